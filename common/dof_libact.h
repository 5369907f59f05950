/*
 * dof_libact.h -- kdt's codes for consumer-side (LIBACT) actions.
 *
 * Some D actions do nothing in probe context and everything in the
 * consumer: clear(), normalize(), denormalize(), trunc(), setopt() and
 * ftruncate().  The compiler (compiler/dc_act.c) emits each as one or two
 * DTRACEACT_LIBACT actions whose ACTDESC argument is one of the codes
 * below; the consumer (consumer/) acts when it decodes the records.
 * Reference 3.3 leaves the numbering to the library; these values are
 * kdt's and are shared by compiler and consumer through this header only.
 *
 *   code  statement            actions (in order), each recording:
 *      1  clear(@a)            LIBACT CLEAR: the aggregation variable id
 *      2  normalize(@a, n)     LIBACT NORMALIZE: id; LIBACT NORMALIZE: n
 *      3  denormalize(@a)      LIBACT DENORMALIZE: id
 *      4  trunc(@a [, n])      LIBACT TRUNC: id; LIBACT TRUNC: n (0: all)
 *      5  setopt(o [, v])      LIBACT SETOPT: name; LIBACT SETOPT: value
 *                              (both strings; value "" when omitted)
 *      6  ftruncate()          LIBACT FTRUNCATE: 0 (8 bytes)
 *
 * Every id/value record is 8 bytes; the id is the 1-based aggregation
 * variable id the compiler assigns in order of first appearance.
 */
#ifndef KDT_DOF_LIBACT_H
#define KDT_DOF_LIBACT_H

#define KDT_LIBACT_CLEAR	1
#define KDT_LIBACT_NORMALIZE	2
#define KDT_LIBACT_DENORMALIZE	3
#define KDT_LIBACT_TRUNC	4
#define KDT_LIBACT_SETOPT	5
#define KDT_LIBACT_FTRUNCATE	6

#endif /* KDT_DOF_LIBACT_H */
