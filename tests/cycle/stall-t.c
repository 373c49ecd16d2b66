/* stall-t: a thread paused next to a counter read does not skew the rate.
 * SPDX-License-Identifier: MIT
 *
 * cycle_ticks_per_second() times the counter against the clock.  A thread
 * preempted between a clock read and the counter read paired with it puts
 * the pause on one side of the ratio only: once, under load, qemu's
 * 62.5 MHz CNTVCT_EL0 came out as 116 kHz.  This file stands in for
 * clock_gettime: while the header measures, a quarter of the calls, at
 * random, pause 2 ms after reading the clock, as a preemption would.  The
 * rate must still come out within 10% of one measured without pauses.
 * Each try is a fresh child (the rate is measured once per process); 55
 * of 60 must agree.  Without the header's brackets 36 agreed on x86-64,
 * 46 on aarch64 and 41 on riscv64 under qemu; with them, 59 to 60.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int paused_clock_gettime(clockid_t clock, struct timespec *ts);
#define clock_gettime paused_clock_gettime
#include "cycle.h"
#undef clock_gettime
#include "tap/basic.h"

#define CHILDREN 60
#define AGREEING 55

static int pausing;     /* 1 while the header measures */
static uint32_t random_state;

static int paused_clock_gettime(clockid_t clock, struct timespec *ts)
{
	int r = clock_gettime(clock, ts);
	struct timespec pause = {0, 2000000};

	if (pausing) {
		random_state ^= random_state << 13; /* xorshift32 */
		random_state ^= random_state >> 17;
		random_state ^= random_state << 5;
		if (random_state % 4 == 0)
			nanosleep(&pause, NULL);
	}
	return r;
}

#if defined(CYCLE_IMPL_ENGINE)
static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The counter's rate over 20 ms without pauses, each read bracketed by
 * the clock to within 20 us; 0 if no try was that quiet. */
static double true_rate(void)
{
	struct timespec window = {0, 20000000};
	uint64_t a0, b0, a1, b1;
	ticks t0, t1;
	int i;

	for (i = 0; i < 10; i++) {
		a0 = now();
		t0 = getticks();
		b0 = now();
		nanosleep(&window, NULL);
		a1 = now();
		t1 = getticks();
		b1 = now();
		if ((b0 - a0) + (b1 - a1) < 20000)
			return elapsed(t1, t0) * 1e9 /
			       (double)((a1 + b1) / 2 - (a0 + b0) / 2);
	}
	return 0;
}

/* In a child: 0 when the rate measured with pauses is within 10% of the
 * truth, 1 when it is not, 2 when the counter in use has no rate to
 * measure here (the clock; a revocable counter keeps its choice's), 3 when
 * the truth could not be measured. */
static int child(unsigned seed)
{
	double hz, truth;
	int chosen;

	(void)getticks(); /* the choice, without pauses */
	chosen = cycle_impl_chosen(cycle_impl_state.mode);
	if (chosen >= CYCLE_IMPL_CLOCK_INDEX || CYCLE_IMPL_REVOCABLE(chosen))
		return 2;
	random_state = 2463534242u + seed;
	pausing = 1;
	hz = cycle_ticks_per_second();
	pausing = 0;
	truth = true_rate();
	if (truth <= 0)
		return 3;
	if (hz < 0.9 * truth || hz > 1.1 * truth) {
		printf("# child %u: %s measured at %.4g Hz, truly %.4g Hz\n",
		       seed, cycle_counter_name(), hz, truth);
		fflush(stdout);
		return 1;
	}
	return 0;
}
#endif

int main(void)
{
#if !defined(CYCLE_IMPL_ENGINE)
	tap_skip_all("no engine: the rate is the block's nominal one");
	return 0;
#else
	int i, status, found = 0, counted = 0, verdict;
	pid_t pid;

	tap_plan(1);
	for (i = 0; i < CHILDREN; i++) {
		fflush(stdout); /* the child's diagnostic only, not our lines */
		pid = fork();
		if (pid == 0)
			_exit(child((unsigned)i));
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status))
			continue;
		verdict = WEXITSTATUS(status);
		if (verdict == 2) {
			tap_skip("the counter in use has no rate measured "
				 "when asked");
			return tap_done();
		}
		counted += verdict != 3;
		found += verdict == 0;
	}
	tap_ok(found >= AGREEING, "%s: the rate measured while a quarter of "
	       "the clock reads pause 2 ms is the true one in %d of %d "
	       "children (%d without a quiet truth)", cycle_counter_name(),
	       found, CHILDREN, CHILDREN - counted);
	return tap_done();
#endif
}
