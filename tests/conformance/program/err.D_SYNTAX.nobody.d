/*
 * A probe description must be followed by a predicate or a body.
 */
BEGIN
