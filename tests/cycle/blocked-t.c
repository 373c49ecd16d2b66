/* blocked-t: a thread that blocks every signal can call getticks().
 * SPDX-License-Identifier: MIT
 *
 * A trap in a thread that blocks its signal is forced to the default action
 * by the kernel: the process dies whatever the handler.  The sigwait-thread
 * pattern blocks everything in every worker.  Here such a thread makes the
 * first call (the choice probes counters that trap under qemu: PMCCNTR_EL0,
 * PMCCNTR, CNTVCT), and later reads while a PMU counter is pretended
 * granted, so that a read of it would trap for real under qemu.
 */
#include <pthread.h>
#include <string.h>

#include "engine-test.h"
#include "tap/basic.h"

static ticks blocked_reading;

static void *blocked_thread(void *arg)
{
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	blocked_reading = getticks();
	return NULL;
}

static void choose_in_blocked_thread(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, blocked_thread, NULL) != 0)
		_exit(3);
	pthread_join(t, NULL);
	_exit(strcmp(cycle_counter_name(), "none") != 0 ? 0 : 1);
}

static void read_pmu_in_blocked_thread(void)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	pthread_t t;
	unsigned traps;

	pretend_granted(0);
	traps = g->traps;
	if (pthread_create(&t, NULL, blocked_thread, NULL) != 0)
		_exit(3);
	pthread_join(t, NULL);
	/* Not read there: no trap, and the reading is the replacement's. */
	_exit(g->traps == traps && elapsed(blocked_reading,
					    PRETEND_LAST_READING) < 0 ? 0 : 1);
}

int main(void)
{
	int status;

#if !defined(CYCLE_IMPL_ENGINE)
	tap_skip_all("cycle.h has no run-time engine on this platform");
#endif
	tap_plan(2);
	status = in_child(choose_in_blocked_thread);
	tap_ok(status == 0, "the first call from a thread blocking every "
	       "signal survives the probe (status %d)", status);
#if CYCLE_IMPL_NHW > 0 && CYCLE_IMPL_REVOCABLE(0)
	status = in_child(read_pmu_in_blocked_thread);
	tap_ok(status == 0, "such a thread never reads the granted PMU counter:"
	       " it gets the next counter in the same unit (status %d)",
	       status);
#else
	(void)read_pmu_in_blocked_thread;
	tap_skip("no PMU counter in this port's chain");
#endif
	return tap_done();
}
