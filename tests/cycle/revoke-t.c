/* revoke-t: a counter revoked after the choice is replaced, never fatal.
 * SPDX-License-Identifier: MIT
 *
 * On x86 only the process itself can turn rdtsc off (prctl(PR_SET_TSC)),
 * so no guard stays after the choice: turned off before the first call, it
 * is skipped; turned off after, the process dies of it as with the classic
 * header (shown where the kernel really stops rdtsc: the x86 VM).  On ARM
 * under qemu the
 * PMU counter traps from the start, so the test first makes the engine believe
 * it was granted (engine-test.h).  There the engine reads the PMU's access
 * register before the counter and switches without a trap; the trap itself
 * (access taken away between that check and the read) is tested last, with
 * the counter read the way getticks() reads it.
 */
#include <string.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include "engine-test.h"
#include "tap/basic.h"

/* Revoke access to the hardware counter the engine uses, if we can: 1 when
 * a guarded read of it traps afterwards (some hypervisors accept
 * PR_SET_TSC and still let rdtsc run). */
static int turn_counter_off(void)
{
#if defined(CYCLE_IMPL_ENGINE) && defined(PR_SET_TSC) && \
	(defined(__x86_64__) || defined(__i386__))
	uint64_t v;

	return prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) == 0 &&
	       !cycle_impl_probe(0, &v);
#else
	return 0;
#endif
}

static void try_turn_off(void)
{
	_exit(turn_counter_off() ? 0 : 77);
}

static void choose_after_revoke(void)
{
	if (!turn_counter_off())
		_exit(77);
	_exit(strcmp(cycle_counter_name(), "clock_gettime") == 0 ? 0 : 1);
}

/* Turned off after the choice where no guard stays: the next read faults
 * with the program's action, here the default (turn_counter_off() probed
 * under a guard of its own, which goes first). */
static void revoke_unguarded(void)
{
	(void)getticks();
	if (!turn_counter_off())
		_exit(77);
	cycle_impl_remove();
	(void)getticks();
	_exit(0);
}

int main(void)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	const char *before;
	ticks t0, t1, t2, t3;
	int revoked_for_real, status, i;
	unsigned traps, expected;

#if !defined(CYCLE_IMPL_ENGINE) || CYCLE_IMPL_NHW == 0 || \
	CYCLE_IMPL_TRAP_SIGNAL == 0
	tap_skip_all("no hardware counter that can trap on this platform");
#endif
	/* Where counter 0 reads and nothing can turn it off (qemu-user does
	 * not emulate PR_SET_TSC; rdcycle reads there), no read can trap.
	 * rdtsc, which only the program turns off, keeps no guard: two
	 * tests for it. */
	if (CYCLE_IMPL_REVOCABLE(0)) {
		uint64_t v;

		if (cycle_impl_probe(0, &v) && in_child(try_turn_off) != 0)
			tap_skip_all("counter 0 reads here and cannot be revoked");
	}
	tap_plan(CYCLE_IMPL_REVOCABLE(0) ? 9 : 2);

	status = in_child(choose_after_revoke);
	if (status == 77)
		tap_skip("cannot turn the counter off before the choice here");
	else
		tap_ok(status == 0,
		       "a counter turned off before the first call is skipped");
	if (!CYCLE_IMPL_REVOCABLE(0)) {
		status = in_child(revoke_unguarded);
		if (status == 77)
			tap_skip("cannot turn the counter off here");
		else
			tap_ok(status == 1000 + CYCLE_IMPL_TRAP_SIGNAL,
			       "turned off after the choice, it faults as with "
			       "the classic header: no guard stays (status %d)",
			       status);
		return tap_done();
	}

	t0 = getticks();
	if (strcmp(cycle_counter_name(),
		   cycle_impl_name(CYCLE_IMPL_CONFIGURED)) == 0 && turn_counter_off()) {
		/* Real: the counter worked at the choice; guard it as the
		 * engine does for the counters Linux revokes. */
		cycle_impl_install();
		revoked_for_real = 1;
	} else {
		pretend_granted(0);
		t0 = PRETEND_LAST_READING;
		revoked_for_real = 0;
	}
	/* Not cycle_counter_name(): it reads the counter, which would trap. */
	before = cycle_impl_name(CYCLE_IMPL_INDEX_OF(g->mode));
	tap_diag("%s: %s is in use, access %s", revoked_for_real ?
		 "real revocation" : "pretended grant", before,
		 revoked_for_real ? "now revoked" : "never was granted");
	traps = g->traps;

	t1 = getticks();
#if defined(CYCLE_IMPL_PMU_ACCESS)
	expected = traps; /* the access register said so: nothing trapped */
	tap_ok(g->traps == expected,
	       "the revocation was seen in the access register, no trap");
#else
	expected = traps + 1; /* the guard completed it with the fallback */
	tap_ok(g->traps == expected, "the read after the revocation trapped");
#endif
	tap_ok(strcmp(cycle_counter_name(), before) != 0,
	       "the process moved on from %s to %s", before,
	       cycle_counter_name());
	tap_ok(elapsed(t1, t0) < 0,
	       "an interval straddling the switch is negative (%.3g)",
	       elapsed(t1, t0));

	t2 = getticks();
	for (i = 0; i < 100000; i++)
		t3 = getticks();
	tap_ok(elapsed(t3, t2) > 0, "after the switch intervals are positive");
	tap_ok(g->traps == expected, "and the revoked counter is not read again");
	tap_ok(CYCLE_IMPL_LOAD(&g->mode, __ATOMIC_ACQUIRE) >= CYCLE_IMPL_CONVERTED,
	       "the switch is for good");
	tap_ok(elapsed(t3, t1) > 0 && elapsed(t3, t1) < 1e12,
	       "ticks keep one unit across the switch (%.3g ticks)",
	       elapsed(t3, t1));

#if defined(CYCLE_IMPL_PMU_ACCESS)
	/* Access taken away after the check, before the read: the read
	 * traps and the guard switches counters and answers. */
	pretend_granted(0);
	traps = g->traps;
	(void)guarded_read(0);
	tap_ok(g->traps == traps + 1 &&
	       CYCLE_IMPL_LOAD(&g->mode, __ATOMIC_ACQUIRE) >= CYCLE_IMPL_CONVERTED &&
	       CYCLE_IMPL_INDEX_OF(g->mode) != 0,
	       "a read revoked after the access check traps and switches (to %s)",
	       cycle_impl_name(CYCLE_IMPL_INDEX_OF(g->mode)));
#else
	tap_skip("no access register here: the read of test 2 was the trap");
#endif
	return tap_done();
}
