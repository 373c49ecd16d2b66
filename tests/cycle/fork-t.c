/* fork-t: a child forked while another thread is choosing does not hang.
 * SPDX-License-Identifier: MIT
 *
 * The child has only the forking thread; the chooser stayed in the parent.
 * Each attempt is a fresh process: a thread starts the choice, the main
 * thread forks as soon as it sees the choice under way, and the child calls
 * getticks() under a watchdog.  The window is a few hundred microseconds;
 * attempts repeat until it was hit enough times, or for WINDOW_SECONDS.
 */
#include <pthread.h>
#include <setjmp.h>
#include <string.h>

#include "engine-test.h"
#include "tap/basic.h"

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
	struct cycle_impl_v3_state *g = &cycle_impl_state;
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

static sigjmp_buf escape;
static volatile sig_atomic_t caught, wrapper_depth;
static struct sigaction wrapped; /* what the wrapper replaced: a guard */

static void program_handler(int sig)
{
	(void)sig;
	caught++;
	siglongjmp(escape, 1);
}

/* A crash reporter: installed over whatever was set, it forwards faults to
 * it.  A second entry for one fault means the faults go round. */
static void wrapper(int sig, siginfo_t *info, void *context)
{
	if (++wrapper_depth > 1)
		_exit(3);
	wrapped.sa_sigaction(sig, info, context);
}

/* The child of a parent whose install was cut by fork() just after its
 * sigaction: the guard set, not recorded, the chooser another process.  The
 * child's program wraps the action before its first getticks(). */
static void wrap_after_cut(void)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = program_handler;
	sigemptyset(&sa.sa_mask);
	g->previous = sa; /* the parent had saved the program's action */
	g->installer = cycle_impl_on_trap;
	g->chooser = (int)getppid();
	sa.sa_sigaction = cycle_impl_on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(CYCLE_IMPL_TRAP_SIGNAL, &sa, NULL);

	sa.sa_sigaction = wrapper;
	sigaction(CYCLE_IMPL_TRAP_SIGNAL, &sa, &wrapped);
	(void)getticks();
	if (sigsetjmp(escape, 1) == 0) {
		wrapper_depth = 0;
		genuine_fault();
	}
	_exit(caught == 1 ? 0 : 4);
}

/* fork() copies the signal actions before the memory: a child of a chooser
 * between its sigaction() and its record may find the guard recorded as
 * installed while its own action is still the program's.  It must not read
 * a counter that traps as if guarded (under qemu-arm CNTVCT traps). */
static void recorded_not_set(void)
{
	struct cycle_impl_v3_state *g = &cycle_impl_state;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(CYCLE_IMPL_TRAP_SIGNAL, &sa, NULL);
	g->previous = sa;
	g->installer = cycle_impl_on_trap;
	g->installed = cycle_impl_on_trap;
	g->chooser = (int)getppid();
	g->mode = CYCLE_IMPL_CHOOSING;
	(void)getticks();
	_exit(g->mode >= CYCLE_IMPL_READY ? 0 : 5);
}

int main(void)
{
	struct window_tally w;
	int n;

#if !defined(CYCLE_IMPL_ENGINE)
	tap_skip_all("cycle.h has no run-time engine on this platform");
#endif
	tap_plan(4);
	/* The choice that probes is the one with a window to fork in. */
	force_full_choice();
	retry_window(attempt, HITS_WANTED, &w);
	tap_ok(w.failures == 0, "children forked during the choice never hang "
	       "or fail (%d of %d)", w.failures, w.attempts);
	window_hit_ok(&w, "forked during the choice");
	n = in_child(wrap_after_cut);
	tap_ok(n == 0, "a child whose program wrapped the guard of a cut choice "
	       "still reaches its handler, once (status %d)", n);
	n = in_child(recorded_not_set);
	tap_ok(n == 0, "a child that finds the guard recorded but not set by a "
	       "cut choice probes nothing that traps (status %d)", n);
	return tap_done();
}
