/* handler-t: a signal handler that calls getticks() during the first call.
 * SPDX-License-Identifier: MIT
 *
 * Profilers call the counter from SIGPROF handlers; FFTW's getticks() was
 * one instruction.  Each attempt is a fresh process whose main thread makes
 * the first call while a second thread, as soon as it sees the choice under
 * way, sends SIGPROF to the main thread (the handler interrupts the chooser
 * itself) or to itself (the handler waits for another thread's choice).
 * The main thread starts the choice only once the sender runs, so that the
 * window is not missed merely because the sender was not scheduled yet.
 * A watchdog turns a hang into a failure.
 */
#include <pthread.h>
#include <string.h>

#include "engine-test.h"
#include "tap/basic.h"

#define HITS_WANTED 5

static volatile sig_atomic_t handled;
static volatile ticks in_handler;
static pthread_t main_thread;
static int to_self;
static volatile int sender_running;

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
	__atomic_store_n(&sender_running, 1, __ATOMIC_RELEASE);
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
	while (!__atomic_load_n(&sender_running, __ATOMIC_ACQUIRE))
		;
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

#if !defined(CYCLE_IMPL_ENGINE)
	tap_skip_all("cycle.h has no run-time engine on this platform");
#endif
	tap_plan(4);
	to_self = 0;
	/* The choice that probes is the one with a window to fork in. */
	force_full_choice();
	retry_window(attempt, HITS_WANTED, &w);
	tap_ok(w.failures == 0, "a handler interrupting the choosing thread "
	       "does not hang (%d failures in %d)", w.failures, w.attempts);
	window_hit_ok(&w, "to the chooser");
	to_self = 1;
	retry_window(attempt, HITS_WANTED, &w);
	tap_ok(w.failures == 0, "a handler in another thread waits for the "
	       "choice and returns (%d failures in %d)", w.failures, w.attempts);
	window_hit_ok(&w, "to another thread");
	return tap_done();
}
