/* small-stacks.c: threads on the smallest stacks, in a process whose
 * library has thousands of files that include cycle.h.
 * SPDX-License-Identifier: MIT
 *
 * glibc takes the static TLS of every loaded object out of each thread's
 * stack: a header with thread-local storage per including file would leave
 * nothing of a PTHREAD_STACK_MIN stack (pthread_create fails, or the thread
 * overflows it).  Exit 0 when every thread ran and timed an interval.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define THREADS 4

double footprint_interval(void);

static void *worker(void *arg)
{
	double *out = arg;

	*out = footprint_interval();
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	pthread_attr_t attr;
	double interval[THREADS];
	int i, err, bad = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
	for (i = 0; i < THREADS; i++) {
		interval[i] = -1;
		err = pthread_create(&t[i], &attr, worker, &interval[i]);
		if (err != 0) {
			fprintf(stderr, "small-stacks: pthread_create with a "
				"%ld-byte stack: %s\n", (long)PTHREAD_STACK_MIN,
				strerror(err));
			return 1;
		}
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		if (!(interval[i] > 0)) {
			fprintf(stderr, "small-stacks: thread %d timed %g\n", i,
				interval[i]);
			bad = 1;
		}
	}
	printf("small-stacks: %d threads on %ld-byte stacks timed intervals\n",
	       THREADS, (long)PTHREAD_STACK_MIN);
	return bad;
}
