/*
 * kc_pspec.h -- dtrace(1)'s probe specifier options -P, -m, -f and -n.
 *
 * dtrace compiles the argument of each of these options as a D program
 * fragment -- probe descriptions separated by commas, then an optional
 * predicate and action block -- in which a description with fewer than
 * four parts is read from a different end:
 *
 *   option  given                 means
 *   -P      prov                  prov:::
 *   -m      [prov:]mod            prov:mod::
 *   -f      [[prov:]mod:]func     prov:mod:func:
 *   -n      [[[prov:]mod:]func:]name   (D's own rule)
 *
 * The kdt command hands the compiler one program text, so it writes each
 * description out in full before joining the texts (kdt_main.c).
 * kc_pspec_expand() is that rewrite; it is pure, so the unit tests call
 * it directly.
 */
#ifndef KDT_KC_PSPEC_H
#define KDT_KC_PSPEC_H

#include <stddef.h>
#include <stdint.h>

/* What the last part of a short description names (dtrace's order). */
#define KC_PSPEC_PROVIDER	0	/* -P */
#define KC_PSPEC_MOD		1	/* -m */
#define KC_PSPEC_FUNC		2	/* -f */
#define KC_PSPEC_NAME		3	/* -n: D's default, as given */

/*
 * The program text for "arg" given to the option of "level": every
 * description of its leading list written with four parts (-n's as
 * given), the rest (predicate, actions) unchanged, and " {}" added when
 * there is no action block (dtrace's default action).  A malloc'ed
 * string, or NULL with why[0, whysz) saying what is wrong (an empty
 * description, more parts than the option takes, no memory).
 */
char *kc_pspec_expand(const char *arg, uint32_t level, char *why,
    size_t whysz);

#endif /* KDT_KC_PSPEC_H */
