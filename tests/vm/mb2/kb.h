/*
 * kb.h -- what the files of the multiboot2 test kernel share (prefix kb_;
 * the design is in tests/vm/mb2/README.md): the console, the halt that
 * hands the machine to the host, and the arena size.
 */
#ifndef KB_H
#define KB_H

#include "common/kdt_env.h"

/* The bump-allocation arena of kenv_zalloc() (kenv_free.c). */
#define KB_ARENA_SIZE	(12ULL << 20)

/* printf to the first serial port (COM1), with a newline. */
void kb_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Print "KDT-MB2: halt <why>" -- the sentinel the host waits for before
 * it dumps guest memory -- and stop the CPU for good.
 */
void kb_halt(const char *why) __attribute__((noreturn));

uint64_t kb_arena_in_use(void);

#endif /* KB_H */
