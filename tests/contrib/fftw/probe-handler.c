/* probe-handler: FFTW's counter probe leaves the program's SIGILL disposition and mask as they were.
 * SPDX-License-Identifier: MIT
 *
 * Usage: probe-handler own|none
 *   own   installs a SIGILL handler (SA_SIGINFO, SIGUSR1 in its mask) first;
 *   none  leaves SIGILL at its default.
 * Then plans a DFT with FFTW_MEASURE, twice, and compares SIGILL's action
 * (handler, flags, mask) and the thread's signal mask with what they were.
 * Prints "kept own" or "kept none", or "changed: ..." and exits 1.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <fftw3.h>

#define FLAGS (SA_SIGINFO | SA_RESTART | SA_NODEFER | SA_RESETHAND | SA_ONSTACK)

static volatile sig_atomic_t ours_ran;

static void own(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	ours_ran = 1;
}

int main(int argc, char **argv)
{
	struct sigaction want, got;
	sigset_t mask0, mask1;
	fftw_complex *a;
	fftw_plan p;
	int i, mine;

	if (argc != 2 || (strcmp(argv[1], "own") && strcmp(argv[1], "none"))) {
		fprintf(stderr, "usage: probe-handler own|none\n");
		return 2;
	}
	mine = !strcmp(argv[1], "own");
	if (mine) {
		memset(&want, 0, sizeof want);
		want.sa_sigaction = own;
		want.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&want.sa_mask);
		sigaddset(&want.sa_mask, SIGUSR1);
		if (sigaction(SIGILL, &want, 0))
			return 2;
	}
	sigaction(SIGILL, 0, &want);
	sigprocmask(SIG_SETMASK, 0, &mask0);

	a = fftw_alloc_complex(256);
	for (i = 0; i < 2; i++) {
		p = fftw_plan_dft_1d(256, a, a, FFTW_FORWARD, FFTW_MEASURE);
		if (!p)
			return 2;
		fftw_destroy_plan(p);
		fftw_forget_wisdom();
	}
	fftw_free(a);

	sigaction(SIGILL, 0, &got);
	sigprocmask(SIG_SETMASK, 0, &mask1);
	if (got.sa_handler != want.sa_handler) {
		printf("changed: SIGILL's handler is %s\n",
		       got.sa_handler == SIG_DFL ? "the default" : "another");
		return 1;
	}
	/* (the C library may add flags of its own, such as SA_RESTORER) */
	if ((got.sa_flags & FLAGS) != (want.sa_flags & FLAGS) ||
	    sigismember(&got.sa_mask, SIGUSR1) != sigismember(&want.sa_mask, SIGUSR1)) {
		printf("changed: SIGILL's flags or mask\n");
		return 1;
	}
	if (sigismember(&mask1, SIGILL) != sigismember(&mask0, SIGILL)) {
		printf("changed: SIGILL is now %sblocked\n", sigismember(&mask1, SIGILL) ? "" : "un");
		return 1;
	}
	if (ours_ran) {
		printf("changed: the program's own handler was called\n");
		return 1;
	}
	printf("kept %s\n", mine ? "own" : "none");
	return 0;
}
