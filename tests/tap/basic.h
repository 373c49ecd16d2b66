/* basic.h: a few TAP helpers for the C tests (plan, ok, diag, skip, bail).
 * SPDX-License-Identifier: MIT
 *
 * Header-only and static, so each test is one file plus this.  Output goes to
 * stdout and is flushed line by line, so a test that dies mid-way still shows
 * what passed; automake's tap-driver.sh then reports the missing results.
 */
#ifndef TAP_BASIC_H
#define TAP_BASIC_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_count, tap_failed;

static inline void tap_plan(int n)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..%d\n", n);
}

static inline void tap_skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

static inline void tap_bail(const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline int tap_ok(int pass, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", pass ? "" : "not ", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass)
		tap_failed++;
	return pass;
}

static inline void tap_skip(const char *why)
{
	printf("ok %d # SKIP %s\n", ++tap_count, why);
}

/* The exit status: non-zero when anything failed. */
static inline int tap_done(void)
{
	return tap_failed ? 1 : 0;
}

#endif /* TAP_BASIC_H */
