/* util.h - small helpers shared by the analyzer: checked allocation, a
 * growable array, one-line fatal errors, text escaped for terminals,
 * saturating arithmetic, human-readable formatting of times and sizes, and
 * opening only regular files. */
#ifndef CL_REPORT_UTIL_H
#define CL_REPORT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);  /* NULL stays NULL */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "cudalens-report: MESSAGE" on one line of stderr, escaped as by
 * fput_escaped, then exit status 2 */
void fatal(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));
void vfatal(const char *fmt, va_list ap)
    __attribute__((noreturn, format(printf, 1, 0)));
/* "cudalens-report: out of memory", exit status 2 */
void fail_oom(void) __attribute__((noreturn));

/* length of the valid UTF-8 sequence at S, or 0 */
int utf8_len(const char *s);
/* S, as text from a recording can be shown on a terminal: control
 * characters (C0, DEL, C1) and bytes that are not UTF-8 as \xNN, so it
 * stays on its line and carries no escape sequence */
void fput_escaped(FILE *f, const char *s);
/* the same, as a malloc'd string */
char *escaped(const char *s);

/* Grow *v (of *cap elements of size elem) so that it holds at least need. */
void grow_array(void **v, size_t *cap, size_t need, size_t elem);
#define GROW(v, cap, need) grow_array((void **)&(v), &(cap), (need), sizeof *(v))

/* Saturating int64 arithmetic, for sums and differences of values from a
 * recording (times, sizes, ids): extreme values give extreme results, never
 * an overflow (undefined behaviour). */
int64_t sat_add(int64_t a, int64_t b);
int64_t sat_sub(int64_t a, int64_t b);
int64_t sat_mul(int64_t a, int64_t b);

/* "1.23 ms", "512 B", "1.5 GiB": into buf (at least 32 bytes) */
const char *fmt_ns(char *buf, size_t len, int64_t ns);
const char *fmt_bytes(char *buf, size_t len, int64_t bytes);
/* 64-bit handle or address as 0x%llx (SQLite stores them signed) */
const char *fmt_hex(char *buf, size_t len, int64_t v);

/* the basename of a path (a pointer into it) */
const char *path_base(const char *path);

/* Open PATH read-only when it is a regular file (symbolic links followed),
 * never opening a FIFO, device or socket, whose open or read could block or
 * act.  Returns the descriptor; -1 with errno set; or OPEN_NOT_REGULAR with
 * *mode (when not NULL) the file's st_mode. */
#define OPEN_NOT_REGULAR (-2)
int open_regular_file(const char *path, unsigned *mode);
/* "a directory", "a FIFO", "a character device", ...: what MODE is */
const char *file_type_name(unsigned mode);

#endif
