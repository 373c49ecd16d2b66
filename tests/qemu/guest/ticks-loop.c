/* ticks-loop: a cycle.h consumer that calls getticks() for a while and checks it advances. */
/* SPDX-License-Identifier: MIT */
/*
 * Built like an FFTW planner would use the header: the PMU counter is the
 * configured one (-DHAVE_ARMV8_PMCCNTR_EL0 / -DHAVE_ARMV7A_PMCCNTR).  It
 * splits the run into 10 ms windows of wall time and calls getticks() as
 * fast as it can; a window in which the ticks did not move while the
 * counter stayed the same is "stuck".  If access is revoked underneath it
 * (perf, hotplug, module unload), cycle.h must switch counters, not die.
 *
 * Usage: ticks-loop [--cpu N] [--seconds S]
 * Prints "start=<counter> end=<counter> windows=W stuck=S backwards=B".
 * Exits 0 when every window advanced, 1 otherwise, 2 on usage error.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cycle.h"
#include "guest-util.h"

int main(int argc, char **argv)
{
	long cpu = -1, seconds = 1, windows = 0, stuck = 0, backwards = 0;
	const char *start_name;
	double end_time;
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--cpu") == 0)
			cpu = parse_number("ticks-loop", "CPU", argv[i + 1]);
		else if (strcmp(argv[i], "--seconds") == 0)
			seconds = parse_number("ticks-loop", "duration",
					       argv[i + 1]);
		else
			break;
	}
	if (i != argc) {
		fprintf(stderr, "usage: ticks-loop [--cpu N] [--seconds S]\n");
		return 2;
	}
	if (cpu >= 0)
		pin_to_cpu("ticks-loop", cpu);

	(void)getticks();
	start_name = cycle_counter_name();
	end_time = now_seconds() + (double)seconds;
	do {
		const char *name = cycle_counter_name();
		double window_end = now_seconds() + 0.01;
		ticks t0 = getticks(), t1;
		double diff;

		do
			t1 = getticks();
		while (now_seconds() < window_end);
		/* A counter switch inside the window makes t1 - t0 meaningless. */
		if (strcmp(name, cycle_counter_name()) != 0)
			continue;
		windows++;
		diff = elapsed(t1, t0);
		/* Going back reads as negative, or, for the 32-bit ARMv7
		 * PMCCNTR (whose elapsed() is never negative), as far more
		 * than the 10 ms window. */
		if (diff == 0)
			stuck++;
		else if (diff < 0 || diff > cycle_ticks_per_second())
			backwards++;
	} while (now_seconds() < end_time);

	printf("start=%s end=%s windows=%ld stuck=%ld backwards=%ld\n",
	       start_name, cycle_counter_name(), windows, stuck, backwards);
	/* A counter reset inside a window (CPU PM exit) may read as going
	 * back; allow one per 4 s. */
	return windows > 0 && stuck == 0 && backwards <= 1 + seconds / 4 ?
	       0 : 1;
}
