/* getticks-t: the classic API reads a counter that works here and advances.
 * SPDX-License-Identifier: MIT
 *
 * CYCLE_TEST_EXPECT, when set, names the counter this machine must select
 * (the suite sets it for the emulators, where the answer is known).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine-test.h"

/* How many of three children, each measuring the rate for the first time
 * in its life (the code it runs still cold), find hz. */
static int children_measuring(double hz)
{
	int i, status, found = 0;
	pid_t pid;

	for (i = 0; i < 3; i++) {
		pid = fork();
		if (pid == 0)
			_exit(cycle_ticks_per_second() == hz ? 0 : 1);
		if (pid > 0 && waitpid(pid, &status, 0) == pid &&
		    WIFEXITED(status) && WEXITSTATUS(status) == 0)
			found++;
	}
	return found;
}

int main(void)
{
	const char *expect = getenv("CYCLE_TEST_EXPECT");
	const char *name;
	struct timespec pause = {0, 20 * 1000 * 1000};
	ticks t0, t1, prev;
	double rate, seconds, nominal;
	int i, monotonic = 1, found;
	uint64_t dummy;

#ifndef CYCLE_IMPL_ENGINE
	tap_skip_all("cycle.h has no run-time engine on this platform");
#endif
	tap_plan(12);
	t0 = getticks();
	name = cycle_counter_name();
	tap_ok(name && cycle_impl_lookup(name) >= 0,
	       "getticks() uses a counter of this machine's chain: %s", name);
	if (expect && *expect)
		tap_ok(strcmp(name, expect) == 0, "selected %s, expected %s",
		       name, expect);
	else
		tap_skip("CYCLE_TEST_EXPECT not set");
	/* A choice without probes records no status: it took the
	 * configured counter, which the kernel said reads. */
	if (strcmp(name, cycle_impl_name(CYCLE_IMPL_CONFIGURED)) == 0)
		tap_ok(cycle_impl_state.status[CYCLE_IMPL_CONFIGURED] ==
			       CYCLE_IMPL_AVAILABLE ||
		       (CYCLE_IMPL_CONFIGURED == CYCLE_IMPL_INLINE_INDEX &&
			cycle_impl_quiet(CYCLE_IMPL_CONFIGURED)),
		       "the configured counter %s works and is used",
		       cycle_impl_name(CYCLE_IMPL_CONFIGURED));
	else
		tap_ok(cycle_impl_state.status[CYCLE_IMPL_CONFIGURED] !=
			       CYCLE_IMPL_AVAILABLE,
		       "the configured counter %s does not work; %s replaces it",
		       cycle_impl_name(CYCLE_IMPL_CONFIGURED), name);
	tap_ok(cycle_impl_probe(cycle_impl_lookup(name), &dummy),
	       "reading %s again does not trap", name);
	/* Measured later, a revocable counter would be read bare, outside
	 * getticks()'s checks: its choice keeps its rate.  (Under qemu-user:
	 * CYCLE_COUNTER=rdcycle on riscv64; on ARM hardware, a granted PMU.) */
	if (CYCLE_IMPL_REVOCABLE(cycle_impl_lookup(name)))
		tap_ok(cycle_impl_state.rate_known == 1,
		       "%s, revocable, has its rate from the choice", name);
	else
		tap_skip("the counter in use is never revoked");

	prev = getticks();
	for (i = 0; i < 100000; i++) {
		ticks now = getticks();

		if (elapsed(now, prev) < 0)
			monotonic = 0;
		prev = now;
	}
	tap_ok(monotonic, "100000 consecutive readings never go backwards");

	/* The generic timer states its rate (CNTFRQ), and is measured at it:
	 * the measurement confirms the stated rate within 10% (cycle_impl_hz).
	 * Two of three children must: one may be preempted mid-measurement.
	 * (The first measurement of a choice without probes once ran cold
	 * code and took qemu's 62.5 MHz CNTVCT_EL0 for 42-52 MHz.)  s390x's
	 * TOD clock has an architected rate too, but qemu-s390x does not keep
	 * it (a 20 ms sleep measures 90 ms there). */
	nominal = cycle_impl_hw_nominal_hz(cycle_impl_lookup(name));
	if (nominal > 0 && strncmp(name, "CNTVCT", 6) == 0) {
		found = children_measuring(nominal);
		tap_ok(found >= 2, "%s's rate is its stated %.4g Hz (%d of 3 "
		       "first measurements)", name, nominal, found);
	} else {
		tap_skip("the counter in use is not the generic timer");
	}
	rate = cycle_ticks_per_second();
	tap_ok(rate > 1e5 && rate < 1e11, "ticks per second is plausible: %.4g",
	       rate);
	/* 20 ms spun, then slept: a rate 50 times off shows.  The perf tier
	 * counts the thread's user-mode cycles, nothing while it sleeps (the
	 * manual); every other counter counts time. */
	t0 = getticks();
	spin_ms(20);
	t1 = getticks();
	seconds = elapsed(t1, t0) / rate;
	tap_ok(seconds >= 0.015 && seconds < 1.0,
	       "a 20 ms spin measures %.4f s", seconds);
	t0 = getticks();
	nanosleep(&pause, NULL);
	t1 = getticks();
	seconds = elapsed(t1, t0) / rate;
	if (CYCLE_IMPL_IS_PERF(CYCLE_IMPL_INDEX_OF(cycle_impl_state.mode)))
		tap_ok(seconds >= 0 && seconds < 0.005,
		       "a 20 ms sleep measures %.4f s: %s counts nothing "
		       "while the thread sleeps", seconds,
		       cycle_counter_name());
	else
		tap_ok(seconds >= 0.015 && seconds < 1.0,
		       "a 20 ms sleep measures %.4f s", seconds);
#if defined(CYCLE_IMPL_HAS_NARROW)
	/* ARMv7's 32-bit PMCCNTR: the difference modulo 2^32, never
	 * negative (see elapsed()); other counters of this port are signed. */
	if (cycle_impl_state.narrow)
		tap_ok(elapsed(t0, t1) > 2147483648.0,
		       "elapsed() of 32-bit PMCCNTR readings is modular: "
		       "t0 - t1 = %.0f", elapsed(t0, t1));
	else
#endif
		tap_ok(elapsed(t0, t1) < 0, "elapsed() is signed: t0 - t1 < 0");
	/* The hot path tests this object's own flag, at the address it
	 * computes (32-bit ARM's PIC builds it with movw and movt): set
	 * exactly when the shared mode is the port's inline counter. */
	tap_ok(cycle_impl_fast_address() == &cycle_impl_fast &&
		       cycle_impl_fast ==
			       (CYCLE_IMPL_NHW > 0 &&
				cycle_impl_state.mode ==
					CYCLE_IMPL_READY + CYCLE_IMPL_INLINE_INDEX),
	       "the hot path's flag (%d, with %s in use) is found at its "
	       "address and set exactly when the port's inline counter is",
	       cycle_impl_fast, name);
	return tap_done();
}
