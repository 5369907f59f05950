/*
 * kenv_free.c -- the freestanding implementation of common/kdt_env.h's
 * services and of the few C library functions common/kdt_env_free.h
 * declares, for the multiboot2 test kernel (tests/vm/mb2/README.md).
 *
 * The test kernel is one CPU, interrupts off, no threads, one enabling
 * set up once; so:
 *
 *   - allocation is a bump allocator over a static arena in .bss
 *     (kenv_free() gives nothing back: setup allocates a bounded amount
 *     once, and the kernel halts when it is done);
 *   - kenv_read() reads only the test kernel's own image
 *     [__kernel_start, __kernel_end) -- text, data and bss, where the
 *     probe arguments it hands to DIF live; anything else faults as an
 *     unmapped address would in kdt.ko (-EFAULT, the ERROR probe fires);
 *   - there is no user space: the user-memory services always fault;
 *   - timestamps are the TSC (cycles, monotonic on one CPU; the records'
 *     order is all kdt-extract uses them for);
 *   - vsnprintf knows the conversions common/ uses: flags "-0", a width
 *     and a precision (numbers or '*'), lengths hh h l ll z j t, and
 *     d i u x X o c s p %.
 *
 * Compiled with -fno-builtin -fno-tree-loop-distribute-patterns, so that
 * the string loops below are not turned back into calls to themselves.
 */
#include "common/kdt_env.h"
#include "common/dif.h"
#include "kb.h"

/* ---- memory and strings ---- */

void *
memcpy(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	while (n-- > 0)
		*d++ = *s++;
	return dst;
}

void *
memmove(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	if (d == s || n == 0)
		return dst;
	if (d < s) {
		while (n-- > 0)
			*d++ = *s++;
	} else {
		while (n-- > 0)
			d[n] = s[n];
	}
	return dst;
}

void *
memset(void *dst, int c, size_t n)
{
	uint8_t *d = dst;

	while (n-- > 0)
		*d++ = (uint8_t)c;
	return dst;
}

int
memcmp(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;

	for (; n > 0; n--, x++, y++)
		if (*x != *y)
			return *x < *y ? -1 : 1;
	return 0;
}

size_t
strlen(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}

size_t
strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n] != '\0')
		n++;
	return n;
}

int
strncmp(const char *a, const char *b, size_t n)
{
	for (; n > 0; n--, a++, b++) {
		if (*a != *b)
			return (uint8_t)*a < (uint8_t)*b ? -1 : 1;
		if (*a == '\0')
			return 0;
	}
	return 0;
}

int
strcmp(const char *a, const char *b)
{
	return strncmp(a, b, (size_t)-1);
}

char *
strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)(uintptr_t)s;
		if (*s == '\0')
			return NULL;
	}
}

/* ---- vsnprintf ---- */

struct kb_out {
	char	*o_buf;
	size_t	o_size;
	size_t	o_len;		/* would-be length */
};

static void
kb_putc(struct kb_out *o, char c)
{
	if (o->o_len + 1 < o->o_size)
		o->o_buf[o->o_len] = c;
	o->o_len++;
}

static void
kb_pad(struct kb_out *o, char c, int n)
{
	while (n-- > 0)
		kb_putc(o, c);
}

/* One converted field: "s" of "n" bytes, padded to "width". */
static void
kb_field(struct kb_out *o, const char *s, int n, int width, int left,
    char padc)
{
	int i;

	if (!left && padc == '0' && n > 0 && s[0] == '-') {
		kb_putc(o, '-');
		s++;
		n--;
		width--;
	}
	if (!left)
		kb_pad(o, padc, width - n);
	for (i = 0; i < n; i++)
		kb_putc(o, s[i]);
	if (left)
		kb_pad(o, ' ', width - n);
}

/* Digits of v in "base" into the end of buf[24]; returns the first. */
static char *
kb_digits(char *end, uint64_t v, unsigned base, int upper, int neg)
{
	const char *dig = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char *p = end;

	do {
		*--p = dig[v % base];
		v /= base;
	} while (v != 0);
	if (neg)
		*--p = '-';
	return p;
}

/* Read an argument of length "len" (0 int, 1 long, 2 long long...). */
static uint64_t
kb_arg(va_list *ap, int len, int sgn)
{
	if (len >= 2)
		return sgn ? (uint64_t)va_arg(*ap, long long) :
		    va_arg(*ap, unsigned long long);
	if (len == 1)
		return sgn ? (uint64_t)va_arg(*ap, long) :
		    va_arg(*ap, unsigned long);
	return sgn ? (uint64_t)(int64_t)va_arg(*ap, int) :
	    va_arg(*ap, unsigned int);
}

/* A number for conversion "c"; "len" as for kb_arg, -1/-2 for h/hh. */
static void
kb_num(struct kb_out *o, va_list *ap, char c, int len, int width, int left,
    char padc)
{
	char buf[24], *p, *end = buf + sizeof (buf);
	int sgn = c == 'd' || c == 'i';
	uint64_t v = kb_arg(ap, len < 0 ? 0 : len, sgn);
	int neg = 0;

	if (len == -1)
		v = sgn ? (uint64_t)(int64_t)(int16_t)v : (uint16_t)v;
	else if (len == -2)
		v = sgn ? (uint64_t)(int64_t)(int8_t)v : (uint8_t)v;
	else if (len == 0 && !sgn)
		v = (uint32_t)v;
	if (sgn && (int64_t)v < 0) {
		neg = 1;
		v = (uint64_t)0 - v;
	}
	p = kb_digits(end, v, c == 'o' ? 8 : (c == 'x' || c == 'X' ||
	    c == 'p') ? 16 : 10, c == 'X', neg);
	if (c == 'p') {
		*--p = 'x';
		*--p = '0';
	}
	kb_field(o, p, (int)(end - p), width, left, padc);
}

/* The length modifier at *fmt: 0 none, 1 l/z/j/t, 2 ll, -1 h, -2 hh. */
static int
kb_len(const char **fmt)
{
	const char *f = *fmt;
	int len = 0;

	if (f[0] == 'h') {
		len = f[1] == 'h' ? -2 : -1;
		f += f[1] == 'h' ? 2 : 1;
	} else if (f[0] == 'l') {
		len = f[1] == 'l' ? 2 : 1;
		f += f[1] == 'l' ? 2 : 1;
	} else if (f[0] == 'z' || f[0] == 'j' || f[0] == 't') {
		len = 1;
		f++;
	}
	*fmt = f;
	return len;
}

/* A width or precision: digits or '*'. */
static int
kb_int(const char **fmt, va_list *ap)
{
	int v = 0;

	if (**fmt == '*') {
		(*fmt)++;
		return va_arg(*ap, int);
	}
	while (**fmt >= '0' && **fmt <= '9')
		v = v * 10 + (*(*fmt)++ - '0');
	return v;
}

static void
kb_conv(struct kb_out *o, const char **fmt, va_list *ap)
{
	int left = 0, width, prec = -1, len;
	char padc = ' ', c;
	const char *s;

	for (;; (*fmt)++) {
		if (**fmt == '-')
			left = 1;
		else if (**fmt == '0')
			padc = '0';
		else if (**fmt != '#' && **fmt != ' ' && **fmt != '+')
			break;
	}
	width = kb_int(fmt, ap);
	if (**fmt == '.') {
		(*fmt)++;
		prec = kb_int(fmt, ap);
	}
	len = kb_len(fmt);
	c = *(*fmt)++;
	switch (c) {
	case 's':
		s = va_arg(*ap, const char *);
		if (s == NULL)
			s = "(null)";
		kb_field(o, s, (int)strnlen(s, prec < 0 ? (size_t)-1 :
		    (size_t)prec), width, left, ' ');
		break;
	case 'c':
		kb_putc(o, (char)va_arg(*ap, int));
		break;
	case 'p':
		kb_num(o, ap, c, 1, width, left, padc);
		break;
	case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
		kb_num(o, ap, c, len, width, left, padc);
		break;
	case '\0':
		(*fmt)--;
		break;
	default:		/* '%' and anything unknown: as is */
		kb_putc(o, c);
	}
}

int
vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct kb_out o = { buf, size, 0 };
	va_list aq;

	va_copy(aq, ap);
	while (*fmt != '\0') {
		if (*fmt != '%') {
			kb_putc(&o, *fmt++);
			continue;
		}
		fmt++;
		kb_conv(&o, &fmt, &aq);
	}
	va_end(aq);
	if (size > 0)
		buf[o.o_len < size ? o.o_len : size - 1] = '\0';
	return (int)o.o_len;
}

int
snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* ---- allocation: a bump allocator over a static arena ---- */

static uint8_t kb_arena[KB_ARENA_SIZE] __attribute__((aligned(4096)));
static uint64_t kb_arena_used;

void *
kenv_zalloc(uint64_t size)
{
	uint64_t want = (size + 15) & ~(uint64_t)15;
	void *p;

	if (size == 0 || want < size || want > KB_ARENA_SIZE - kb_arena_used)
		return NULL;
	p = kb_arena + kb_arena_used;
	kb_arena_used += want;
	memset(p, 0, want);
	return p;
}

void
kenv_free(void *ptr)
{
	(void)ptr;	/* the arena is never reused (see above) */
}

uint64_t
kb_arena_in_use(void)
{
	return kb_arena_used;
}

/* ---- memory the probes may read: the kernel's own image ---- */

extern char __kernel_start[], __kernel_end[];

static int
kb_readable(uint64_t addr, uint64_t size)
{
	uint64_t lo = (uint64_t)(uintptr_t)__kernel_start;
	uint64_t hi = (uint64_t)(uintptr_t)__kernel_end;

	return addr >= lo && addr <= hi && size <= hi - addr;
}

int
kenv_read(void *dst, uint64_t addr, uint32_t size)
{
	if (!kb_readable(addr, size))
		return -EFAULT;
	memcpy(dst, (const void *)(uintptr_t)addr, size);
	return 0;
}

int
kenv_read_str(char *dst, uint64_t addr, uint32_t size)
{
	uint32_t i;

	if (size == 0)
		return -EFAULT;
	memset(dst, 0, size);
	for (i = 0; i < size - 1; i++) {
		if (!kb_readable(addr + i, 1)) {
			memset(dst, 0, size);
			return -EFAULT;
		}
		dst[i] = *(const char *)(uintptr_t)(addr + i);
		if (dst[i] == '\0')
			return (int)i;
	}
	return (int)i;
}

int
kenv_read_user(void *dst, uint64_t uaddr, uint32_t size)
{
	return -EFAULT;
}

int
kenv_read_user_str(char *dst, uint64_t uaddr, uint32_t size)
{
	if (size != 0)
		memset(dst, 0, size);
	return -EFAULT;
}

int
kenv_write_user(uint64_t uaddr, const void *src, uint32_t size)
{
	return -EFAULT;
}

/* ---- the rest of the execution context ---- */

uint32_t
kenv_crc32(const void *buf, uint64_t len)
{
	const uint8_t *p = buf;
	uint32_t crc = ~0U;
	int k;

	while (len-- > 0) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & (0U - (crc & 1)));
	}
	return ~crc;
}

uint64_t
kenv_timestamp(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

void
kenv_delay_ns(uint64_t ns)
{
	uint64_t end = kenv_timestamp() + ns;	/* >= 1 cycle per ns */

	while (kenv_timestamp() < end)
		__asm__ volatile("pause");
}

void
kenv_panic(const char *msg)
{
	kb_log("kdt-mb2: panic: %s", msg);
	kb_halt("panic");
}

/* The test kernel has no processes: like a kernel thread, left alone. */
int
kenv_signal(uint32_t sig, int stop)
{
	(void)sig;
	(void)stop;
	return 0;
}

void
kenv_execname(char *buf, uint32_t size)
{
	if (size == 0)
		return;
	memset(buf, 0, size);
	memcpy(buf, "kdt-mb2", size - 1 < 7 ? size - 1 : 7);
}

/* One CPU, no processes, no wall clock: the rest is constant. */

uint32_t
kenv_cpu(void)
{
	return 0;
}

uint64_t
kenv_pid(void)
{
	return 0;
}

uint64_t
kenv_tid(void)
{
	return 0;
}

uint64_t
kenv_ppid(void)
{
	return 0;
}

uint64_t
kenv_uid(void)
{
	return 0;
}

uint64_t
kenv_gid(void)
{
	return 0;
}

/* One thread, running, with every id 0 (like kenv_uid()). */
uint64_t
kenv_procvar(uint32_t id)
{
	if (id == DIF_VAR_KDT_NLWP)
		return 1;
	return id == DIF_VAR_KDT_LWPSTATE ? DIF_LWP_SONPROC : 0;
}

uint64_t
kenv_walltime(void)
{
	return 0;
}

uint64_t
kenv_vtime(void)
{
	return kenv_timestamp();
}

uint64_t
kenv_curthread(void)
{
	return (uint64_t)(uintptr_t)&kb_arena_used;
}

uint32_t
kenv_ipl(void)
{
	return 0;
}

uint32_t
kenv_stack(uint64_t *pcs, uint32_t max)
{
	return 0;
}

uint64_t
kenv_caller(void)
{
	return 0;
}

int
kenv_progenyof(uint64_t pid)
{
	return 0;
}

uint32_t
kenv_ustack(uint64_t *pcs, uint32_t max, uint64_t *pid)
{
	*pid = 0;
	return 0;
}
