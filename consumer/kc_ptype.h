/*
 * kc_ptype.h -- printing a print() record by its type layout.
 *
 * The layout format is common/dof_ptype.h's; the printer is kc_ptype.c.
 */
#ifndef KDT_KC_PTYPE_H
#define KDT_KC_PTYPE_H

#include <stdint.h>
#include <stdio.h>

/*
 * Print the record "data" (size bytes) of a print() action whose format
 * is "layout" ("@" T) to out, as dtrace prints the object.  Returns 1
 * when printed, 0 when layout is no layout or does not fit the record
 * (nothing is written then; the caller traces the record instead).
 */
int kc_ptype_print(FILE *out, const char *layout, const uint8_t *data,
    uint64_t size);

#endif /* KDT_KC_PTYPE_H */
