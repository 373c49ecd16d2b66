/* fork-t: a child forked while another thread is choosing does not hang.
 * SPDX-License-Identifier: MIT
 *
 * The child has only the forking thread; the chooser stayed in the parent.
 * Each attempt is a fresh process: a thread starts the choice, the main
 * thread forks as soon as it sees the choice under way, and the child calls
 * getticks() under a watchdog.  The window is a few hundred microseconds;
 * attempts repeat until it was hit enough times, with a bound.
 */
#include <pthread.h>
#include <string.h>

#include "engine-test.h"
#include "tap/basic.h"

#define ATTEMPTS 200
#define HITS_WANTED 5

static void *chooser(void *arg)
{
	(void)arg;
	(void)getticks();
	return NULL;
}

/* 0: the child finished; 1: the child failed; 2: the window was missed. */
static int attempt(void)
{
	struct cycle_impl_v2_state *g = &cycle_impl_state;
	pthread_t t;
	pid_t pid;
	int status, hit = 0;

	if (pthread_create(&t, NULL, chooser, NULL) != 0)
		return 1;
	while (CYCLE_IMPL_LOAD(&g->mode, __ATOMIC_ACQUIRE) < CYCLE_IMPL_READY)
		if (CYCLE_IMPL_LOAD(&g->chooser, __ATOMIC_ACQUIRE) != 0) {
			hit = 1;
			break;
		}
	if (!hit) {
		pthread_join(t, NULL);
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		ticks t0, t1;

		alarm(10); /* a hang is a failure, not a stuck suite */
		t0 = getticks();
		t1 = getticks();
		_exit(elapsed(t1, t0) >= 0 ? 0 : 1);
	}
	pthread_join(t, NULL);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(void)
{
	struct window_tally w;
	int n;

#if !defined(CYCLE_IMPL_ENGINE)
	tap_skip_all("cycle.h has no run-time engine on this platform");
#endif
	tap_plan(2);
	n = retry_window(attempt, ATTEMPTS, HITS_WANTED, &w);
	tap_diag("%d attempts: window hit %d times, missed %d, failed %d", n,
		 w.hits, w.missed, w.failures);
	tap_ok(w.failures == 0, "children forked during the choice never hang "
	       "or fail (%d of %d)", w.failures, n);
	tap_ok(w.hits >= 1, "the window was hit (%d times)", w.hits);
	return tap_done();
}
