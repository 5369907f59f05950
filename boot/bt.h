/*
 * bt.h -- boot handoff helpers of the tools: writing and editing the initrd
 * trailer (the format is common/itrl.h; this folder only moves files).
 *
 * Users: boot/kdt_initrd_main.c (kdt-initrd add/show/extract/remove) and
 * anon/ (kdt -A -o DIR writes DIR/anon.trailer with bt_trailer_write()).
 * The multiboot2 side of boot/ is freestanding and has its own header,
 * boot/mb2.h.
 *
 * Every file these functions change is replaced atomically: the new
 * contents go to a temporary file in the same directory
 * (".NAME.kdt-XXXXXX"), which gets the old file's mode and owner, is
 * fsync'ed and then renamed over the old name; the directory is fsync'ed
 * last.  A failure at any step removes the temporary file and leaves the
 * original exactly as it was, so a full disk or a killed process never
 * leaves half an initrd behind.
 *
 * Every DOF is checked with common/'s dof_load() before it is written, so
 * what reaches the bootloader is something the kernel will load.
 *
 * Errors: the functions return 0 (or a count) or -errno and print one line
 * to "err" (when not NULL) in the form "PROG: FILE: what, value, limit";
 * PROG is the running program's name, so kdt and kdt-initrd both read
 * naturally.
 */
#ifndef KDT_BT_H
#define KDT_BT_H

#include <stdint.h>
#include <stdio.h>

#include "common/itrl.h"

/*
 * Flags of bt_initrd_add_flags() and bt_initrd_remove().  BT_F_FORCE acts
 * on a damaged trailer (an itrl_find() error): when only the DOF's CRC is
 * wrong, the footer checked out and its length is trusted, so the damaged
 * trailer is cut (remove) or replaced (add); when the footer itself is
 * damaged there is no length to trust: add keeps every byte as part of
 * the initrd and appends after them, remove fails with the file unchanged.
 */
#define BT_F_FORCE	0x1

/*
 * Write the position-independent trailer for "dof" -- the DOF followed by
 * its struct itrl_foot -- as the whole of file "path", so that
 * "cat initrd.img path > initrd-kdt.img" adds it to any initrd.  The DOF
 * must pass dof_load().  Returns 0 or -errno.
 */
int bt_trailer_write(const char *path, const void *dof, uint64_t dofsz,
    FILE *err);

/*
 * Append "dof" as the trailer of initrd file "initrd", replacing a kdt
 * trailer that is already there (never stacking two).  A damaged existing
 * trailer (itrl_find() error) is refused unless bt_initrd_add_flags() gets
 * BT_F_FORCE (above).  Returns 0 or -errno; the initrd is unchanged on
 * any failure.
 */
int bt_initrd_add(const char *initrd, const void *dof, uint64_t dofsz,
    FILE *err);
int bt_initrd_add_flags(const char *initrd, const void *dof, uint64_t dofsz,
    uint32_t flags, FILE *err);

/*
 * Cut the kdt trailer off "initrd".  Returns 1 when one was removed, 0
 * when there was none (the file is untouched), -errno on failure.  A
 * damaged trailer is refused unless BT_F_FORCE (above) says it can be cut.
 */
int bt_initrd_remove(const char *initrd, uint32_t flags, FILE *err);

/*
 * What is at the end of "initrd": returns 1 with *ii filled (and the DOF
 * in a malloc'ed *dofp of ii_dofsz bytes when dofp is not NULL), 0 when
 * there is no trailer, -errno when the file cannot be read or the trailer
 * breaks a rule of itrl.h (the message, naming the file, is in *ke and,
 * when err is not NULL, printed).
 */
int bt_initrd_inspect(const char *initrd, struct itrl_info *ii, void **dofp,
    struct kdt_err *ke, FILE *err);

/*
 * Check "dof" with dof_load(); "name" names it in the message.  Returns
 * the number of ECBs (>= 0) or -errno.
 */
int bt_dof_check(const char *name, const void *dof, uint64_t dofsz,
    FILE *err);

/*
 * Read all of file "path" into a malloc'ed buffer (*bufp, *lenp; a
 * zero-length file gives a 1-byte buffer and *lenp 0).  Returns 0 or -errno.
 */
int bt_file_read(const char *path, void **bufp, uint64_t *lenp, FILE *err);

/* One piece of the contents bt_file_replace() writes. */
struct bt_chunk {
	const void	*bc_buf;
	uint64_t	bc_len;
};

/*
 * Replace (or create) "path" atomically with the concatenation of
 * chunks[0, n), as described above.  A new file gets mode 0644 (less the
 * umask); an existing one keeps its mode and owner.  A symbolic link is
 * followed: its target is replaced (an initrd.img link stays a link).
 * Returns 0 or -errno.
 */
int bt_file_replace(const char *path, const struct bt_chunk *chunks,
    unsigned n, FILE *err);

/* Flags of bt_file_write(). */
#define BT_W_NOFOLLOW	0x1	/* replace a symbolic link itself */
#define BT_W_MKDIRS	0x2	/* create missing parent directories, 0755 */

/*
 * bt_file_replace() for files a tool installs into a system, possibly
 * under another root (kdt -A --root=DIR): the file gets exactly "mode"
 * and the writer's owner, whatever was there before; with BT_W_NOFOLLOW
 * a symbolic link at "path" is replaced, never followed (inside a foreign
 * root an absolute link would lead out of it); with BT_W_MKDIRS missing
 * directories are created.  Returns 0 or -errno after one message.
 */
int bt_file_write(const char *path, const struct bt_chunk *chunks,
    unsigned n, uint32_t mode, uint32_t wflags, FILE *err);

#endif /* KDT_BT_H */
