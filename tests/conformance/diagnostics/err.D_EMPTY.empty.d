/*
 * A program without any clause is an error.
 */
