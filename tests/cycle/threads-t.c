/* threads-t: many threads making their first call at once agree on one choice.
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE 1 /* CPU_SET, sched_setaffinity */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* A waiter of real-time priority on the chooser's CPU must not starve the
 * chooser (waiters spun with sched_yield, which never yields to a lower
 * priority: about 1 s, until the kernel's real-time throttling).  In a
 * child: the chooser (main) on CPU 0; a SCHED_FIFO waiter on CPU 0 asleep
 * on a pipe; a third thread on CPU 1 wakes it as soon as the choice is
 * under way.  Exits 0 when the choice took under 300 ms, 77 when
 * real-time priority or a second CPU is not to be had here. */
static int wake[2];

static void *fifo_waiter(void *arg)
{
	char c;

	(void)arg;
	if (read(wake[0], &c, 1) == 1)
		(void)getticks();
	return NULL;
}

static void *waker(void *arg)
{
	cpu_set_t cpu1;

	(void)arg;
	CPU_ZERO(&cpu1);
	CPU_SET(1, &cpu1);
	sched_setaffinity(0, sizeof(cpu1), &cpu1);
	while (CYCLE_IMPL_LOAD(&cycle_impl_state.chooser, __ATOMIC_ACQUIRE) ==
		       0 &&
	       CYCLE_IMPL_LOAD(&cycle_impl_state.mode, __ATOMIC_ACQUIRE) <
		       CYCLE_IMPL_READY)
		;
	return (void *)(intptr_t)(write(wake[1], "x", 1) == 1);
}

static int fifo_child(void)
{
	struct sched_param sp;
	pthread_attr_t attr;
	struct timespec a, b;
	cpu_set_t one;
	pthread_t t, w;
	long ms;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (pipe(wake) != 0 || sched_setaffinity(0, sizeof(one), &one) != 0)
		return 77;
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	sp.sched_priority = 10;
	pthread_attr_setschedparam(&attr, &sp);
	if (pthread_create(&t, &attr, fifo_waiter, NULL) != 0)
		return 77;
	if (pthread_create(&w, NULL, waker, NULL) != 0)
		return 77;
	usleep(10000); /* the waker on CPU 1 */
	clock_gettime(CLOCK_MONOTONIC, &a);
	(void)getticks();
	clock_gettime(CLOCK_MONOTONIC, &b);
	pthread_join(w, NULL);
	pthread_join(t, NULL);
	ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
	printf("# the choice took %ld ms beside a SCHED_FIFO waiter\n", ms);
	return ms < 300 ? 0 : 1;
}

int main(void)
{
	int status = 0;
	pid_t pid;

	pthread_t tid[THREADS];
	int i, same = 1, all_read = 1;
	unsigned traps;

#ifndef CYCLE_IMPL_ENGINE
	tap_skip_all("cycle.h has no run-time engine on this platform");
#endif
	tap_plan(5);
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
	/* Probe traps are counted per thread; a trap counted here would be
	 * a read outside the choice that trapped: none may. */
	traps = cycle_impl_state.traps;
	tap_ok(traps == 0 && cycle_impl_state.chooser == 0,
	       "one choice for %d threads: no stray trap (%u), lock released",
	       THREADS, traps);

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(fifo_child());
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		tap_bail("fork failed");
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		tap_skip("SCHED_FIFO or a second CPU is not to be had here");
	else
		tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		       "a SCHED_FIFO waiter on the chooser's CPU does not "
		       "starve it (status %d)", status);
	return tap_done();
}
