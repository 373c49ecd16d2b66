/* notsc: run a program with rdtsc turned off (PR_SET_TSC), as a sandbox or
 * a record-and-replay tool would: the setting is inherited across exec.
 * SPDX-License-Identifier: MIT
 *
 * Usage: notsc PROGRAM [ARG...]   exec PROGRAM with rdtsc turned off
 *        notsc --check            does this kernel honour PR_SET_TSC?
 *
 * --check exits 0 when rdtsc faults after the call, 1 when the kernel
 * accepts the call and still lets rdtsc run (some hypervisors do not pass
 * CR4.TSD on), 77 when there is no PR_SET_TSC (not x86, or the kernel
 * refuses it).  PROGRAM mode exits 99 when the kernel refuses the call.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(PR_SET_TSC) && (defined(__x86_64__) || defined(__i386__))
#define NOTSC_X86 1
#endif

static int turn_rdtsc_off(void)
{
#if defined(NOTSC_X86)
	return prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* In a child, so that the answer costs this process nothing: rdtsc after
 * the call either faults (SIGSEGV) or runs. */
static int check(void)
{
	pid_t pid;
	int status;

	pid = fork();
	if (pid == 0) {
		if (turn_rdtsc_off() != 0)
			_exit(77);
#if defined(NOTSC_X86)
		{
			unsigned lo, hi;

			__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
		}
#endif
		_exit(1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		perror("notsc: fork");
		return 2;
	}
	if (WIFSIGNALED(status))
		return WTERMSIG(status) == SIGSEGV ? 0 : 2;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--check") == 0)
		return check();
	if (argc < 2 || argv[1][0] == '-') {
		fputs("usage: notsc PROGRAM [ARG...] | notsc --check\n", stderr);
		return 2;
	}
	if (turn_rdtsc_off() != 0) {
		perror("notsc: prctl(PR_SET_TSC)");
		return 99;
	}
	execv(argv[1], argv + 1);
	perror("notsc: execv");
	return 98;
}
