/*
 * dif_subr.h -- DIF subroutine ids beyond those common/dif.h defines.
 *
 * The compiler (compiler/dc_subr.c) emits "call <id>" for every DTrace
 * subroutine a D program uses; the emulator (common/dif_vm.c) dispatches
 * on the same ids.  The numbering is illumos's (reference 2.7): ids that
 * dif.h already defines are not repeated here, and kdt-only subroutines
 * live above the illumos range (dif.h's DIF_SUBR_KDT_KSTRING, 0x100).
 * Subroutines that exist on illumos but have no Linux meaning (msgsize,
 * ddi_pathname, getf) keep their ids reserved and are not accepted by
 * the compiler.
 */
#ifndef KDT_DIF_SUBR_H
#define KDT_DIF_SUBR_H

#include "dif.h"

#define DIF_SUBR_MUTEX_OWNED		1
#define DIF_SUBR_MUTEX_OWNER		2
#define DIF_SUBR_MUTEX_TYPE_ADAPTIVE	3
#define DIF_SUBR_MUTEX_TYPE_SPIN	4
#define DIF_SUBR_RW_READ_HELD		5
#define DIF_SUBR_RW_WRITE_HELD		6
#define DIF_SUBR_RW_ISWRITER		7
#define DIF_SUBR_PROGENYOF		11
#define DIF_SUBR_COPYOUT		13
#define DIF_SUBR_COPYOUTSTR		14
#define DIF_SUBR_COPYINTO		17
#define DIF_SUBR_MSGDSIZE		18
#define DIF_SUBR_MSGSIZE		19
#define DIF_SUBR_GETMAJOR		20
#define DIF_SUBR_GETMINOR		21
#define DIF_SUBR_DDI_PATHNAME		22
#define DIF_SUBR_CLEANPATH		27
#define DIF_SUBR_STRTOK			31
#define DIF_SUBR_INET_NTOP		41
#define DIF_SUBR_INET_NTOA		42
#define DIF_SUBR_INET_NTOA6		43
#define DIF_SUBR_GETF			46
#define DIF_SUBR_JSON			47

#endif /* KDT_DIF_SUBR_H */
