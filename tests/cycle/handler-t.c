/* handler-t: a signal handler that calls getticks() during the first call.
 * SPDX-License-Identifier: MIT
 *
 * Profilers call the counter from SIGPROF handlers; FFTW's getticks() was
 * one instruction.  Each attempt is a fresh process whose main thread makes
 * the first call while a second thread, as soon as it sees the choice under
 * way, sends SIGPROF to the main thread (the handler interrupts the chooser
 * itself) or to itself (the handler waits for another thread's choice).
 * A watchdog turns a hang into a failure.
 */
#include <pthread.h>
#include <string.h>

#include "engine-test.h"
#include "tap/basic.h"

#define ATTEMPTS 100
#define HITS_WANTED 5

static volatile sig_atomic_t handled;
static volatile ticks in_handler;
static pthread_t main_thread;
static int to_self;

static void on_prof(int sig)
{
	(void)sig;
	in_handler = getticks();
	handled++;
}

static void *sender(void *arg)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;

	(void)arg;
	while (CYCLE_IMPL_LOAD(&g->mode, __ATOMIC_ACQUIRE) < CYCLE_IMPL_READY)
		if (CYCLE_IMPL_LOAD(&g->chooser, __ATOMIC_ACQUIRE) != 0) {
			if (to_self)
				raise(SIGPROF);
			else
				pthread_kill(main_thread, SIGPROF);
			return (void *)1;
		}
	return NULL;
}

/* 0: survived with the signal sent during the choice; 2: missed. */
static int attempt(void)
{
	struct sigaction sa;
	pthread_t t;
	void *hit;

	alarm(10);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPROF, &sa, NULL);
	main_thread = pthread_self();
	if (pthread_create(&t, NULL, sender, NULL) != 0)
		return 1;
	(void)getticks();
	pthread_join(t, &hit);
	if (!hit)
		return 2;
	while (!handled) /* delivered once the choice unblocked it */
		;
	return 0;
}

int main(void)
{
	struct window_tally w;
	int n;

#if !defined(CYCLE_IMPL_ENGINE)
	tap_skip_all("cycle.h has no run-time engine on this platform");
#endif
	tap_plan(4);
	to_self = 0;
	/* The choice that probes is the one with a window to fork in. */
	force_full_choice();
	n = retry_window(attempt, ATTEMPTS, HITS_WANTED, &w);
	tap_diag("to the chooser: %d attempts, window hit %d, missed %d, "
		 "failed %d", n, w.hits, w.missed, w.failures);
	tap_ok(w.failures == 0, "a handler interrupting the choosing thread "
	       "does not hang (%d failures in %d)", w.failures, n);
	tap_ok(w.hits >= 1, "... the window was hit (%d times)", w.hits);
	to_self = 1;
	n = retry_window(attempt, ATTEMPTS, HITS_WANTED, &w);
	tap_diag("to another thread: %d attempts, window hit %d, missed %d, "
		 "failed %d", n, w.hits, w.missed, w.failures);
	tap_ok(w.failures == 0, "a handler in another thread waits for the "
	       "choice and returns (%d failures in %d)", w.failures, n);
	tap_ok(w.hits >= 1, "... the window was hit (%d times)", w.hits);
	return tap_done();
}
