/* threads-t: many threads making their first call at once agree on one choice.
 * SPDX-License-Identifier: MIT
 */
#include <pthread.h>
#include <string.h>

#include "cycle.h"
#include "tap/basic.h"

#define THREADS 32

static pthread_barrier_t start;
static const char *names[THREADS];
static ticks first[THREADS];

static void *racer(void *arg)
{
	int i = (int)(intptr_t)arg;

	pthread_barrier_wait(&start);
	first[i] = getticks();
	names[i] = cycle_counter_name();
	return NULL;
}

int main(void)
{
	pthread_t tid[THREADS];
	int i, same = 1, all_read = 1;
	unsigned traps;

#ifndef CYCLE_IMPL_ENGINE
	tap_skip_all("cycle.h has no run-time engine on this platform");
#endif
	tap_plan(4);
	pthread_barrier_init(&start, NULL, THREADS);
	for (i = 0; i < THREADS; i++)
		if (pthread_create(&tid[i], NULL, racer, (void *)(intptr_t)i))
			tap_bail("pthread_create failed");
	for (i = 0; i < THREADS; i++)
		pthread_join(tid[i], NULL);

	for (i = 0; i < THREADS; i++) {
		if (!names[i] || strcmp(names[i], names[0]) != 0)
			same = 0;
		if (first[i] == 0 && !cycle_impl_state.narrow)
			all_read = 0;
	}
	tap_ok(same, "%d threads racing to the first call all use %s",
	       THREADS, names[0]);
	tap_ok(all_read, "every thread got a reading");
	tap_ok(cycle_impl_state.mode >= CYCLE_IMPL_READY,
	       "the choice is published");
	/* The choice probes each trapping counter once (twice with the rate
	 * measurement's reads guarded); racing threads must not add more. */
	traps = cycle_impl_state.traps;
	tap_ok(traps <= (unsigned)CYCLE_IMPL_NCOUNTERS,
	       "the probe ran once: %u trapping reads for %d threads", traps,
	       THREADS);
	return tap_done();
}
