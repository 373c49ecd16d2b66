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
	struct cycle_impl_v2_state *g = &cycle_impl_state;

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

static int run(int self, int *hits, int *failures)
{
	int i;

	to_self = self;
	*hits = *failures = 0;
	for (i = 0; i < ATTEMPTS && *hits < HITS_WANTED; i++) {
		pid_t pid;
		int status;

		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(attempt());
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status) == 1)
			(*failures)++;
		else if (WEXITSTATUS(status) == 0)
			(*hits)++;
	}
	return i;
}

int main(void)
{
	int n, hits, failures;

#if !defined(CYCLE_IMPL_ENGINE)
	tap_skip_all("cycle.h has no run-time engine on this platform");
#endif
	tap_plan(4);
	n = run(0, &hits, &failures);
	tap_diag("to the chooser: %d attempts, window hit %d, failed %d", n,
		 hits, failures);
	tap_ok(failures == 0, "a handler interrupting the choosing thread "
	       "does not hang (%d failures in %d)", failures, n);
	tap_ok(hits >= 1, "... the window was hit (%d times)", hits);
	n = run(1, &hits, &failures);
	tap_diag("to another thread: %d attempts, window hit %d, failed %d",
		 n, hits, failures);
	tap_ok(failures == 0, "a handler in another thread waits for the "
	       "choice and returns (%d failures in %d)", failures, n);
	tap_ok(hits >= 1, "... the window was hit (%d times)", hits);
	return tap_done();
}
