/* counter-t: the counter a build of cycle.h reads, its ticks type, and that
 * it advances; for tests/matrix/check-matrix, on every target it runs.
 * SPDX-License-Identifier: MIT
 *
 * Built with -DFFTW_TICKS=TYPE, the type of ticks in the block of FFTW's
 * cycle.h for this target (or the engine's, where FFTW has no counter).
 * Usage: counter-t NAME[|NAME...]   the counter(s) cycle_counter_name() may
 * name here.  Works with and without the engine; the last check (a
 * wrap-around) is the classic blocks' own.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cycle.h"
#include "tap/basic.h"

#ifndef FFTW_TICKS
#error "build with -DFFTW_TICKS=<FFTW's type of ticks for this target>"
#endif
#define CYCLE_TEST_STR(x) #x
#define CYCLE_TEST_XSTR(x) CYCLE_TEST_STR(x)

/* Nanoseconds of CLOCK_MONOTONIC (the emulator's host clock). */
static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Whether NAME is one of the "|"-separated names of LIST. */
static int listed(const char *name, const char *list)
{
	size_t n = strlen(name);
	const char *p = list;

	while (p && *p) {
		if (strncmp(p, name, n) == 0 && (p[n] == '\0' || p[n] == '|'))
			return 1;
		p = strchr(p, '|');
		if (p)
			p++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *expect = argc > 1 ? argv[1] : "";
	const char *name;
	ticks t0, t1, t;
	double start, end, e;
	long reads = 0;

#if !defined(HAVE_TICK_COUNTER)
	tap_skip_all("this build of cycle.h has no tick counter");
#else
	tap_plan(5);
	tap_ok(__builtin_types_compatible_p(ticks, FFTW_TICKS),
	       "ticks is FFTW's %s", CYCLE_TEST_XSTR(FFTW_TICKS));

	t0 = getticks(); /* a counter that traps ends the test here */
	name = cycle_counter_name();
	tap_ok(listed(name, expect), "the counter is %s (expected %s)", name,
	       expect);

	/* It advances: read until it moves, for at most 1 s. */
	start = now_ns();
	do {
		t = getticks();
		reads++;
	} while (elapsed(t, t0) == 0 && now_ns() - start < 1e9);
	tap_ok(elapsed(t, t0) > 0, "%s advances (%g ticks after %ld reads)",
	       name, elapsed(t, t0), reads);

	/* A measured interval of 2 ms is positive; its rate is reported. */
	t0 = getticks();
	start = now_ns();
	while (now_ns() - start < 2e6)
		;
	t1 = getticks();
	end = now_ns();
	e = elapsed(t1, t0);
	tap_ok(e > 0, "elapsed() over 2 ms is positive: %g ticks", e);
	tap_diag("%s: %.4g ticks per second here (cycle_ticks_per_second() "
		 "says %g)", name, e / ((end - start) * 1e-9),
		 cycle_ticks_per_second());

#if defined(CYCLE_IMPL_ENGINE)
	tap_skip("the engine's ticks carry its own state: no wrap-around test");
#else
	/* Readings 8 ticks apart across a wrap of the counter's width (a
	 * 32-bit rpcc or cr16 wraps in seconds).  Backwards, a 64-bit
	 * counter's interval is negative (FFTW measures again); a 32-bit
	 * one's is 2^32 - 8, for it must never be negative (a plan longer than
	 * 2^31 ticks would be measured again for ever). */
	{
		ticks before = (ticks)0 - 3, after = 5;
		int narrow = sizeof(ticks) == 4 || strcmp(name, "PMCCNTR") == 0;
		double back = narrow ? 4294967288.0 : -8.0;

		if (sizeof(ticks) > 4 && strcmp(name, "PMCCNTR") == 0)
			before = (ticks)0xfffffffdu; /* 32-bit readings */
		tap_ok(elapsed(after, before) == 8.0 &&
			       elapsed(before, after) == back,
		       "elapsed() across a wrap of %s: %g, and %g backwards "
		       "(want %g)", name, elapsed(after, before),
		       elapsed(before, after), back);
	}
#endif
	return tap_done();
#endif
}
