/* seccomp-t: a first getticks() inside a seccomp sandbox (x86-64).
 * SPDX-License-Identifier: MIT
 *
 * Browsers, language sandboxes and servers filter system calls; a filter
 * that traps a call sends SIGSYS to the program's handler, which answers
 * for the kernel.  The first call asks the kernel one question there
 * (prctl(PR_GET_TSC)) and needs nothing else: allowed, refused with an
 * error, or trapped into the handler like every other call, the program
 * stays alive with rdtsc counting.  Each case runs in a child that installs
 * the filter and then makes its first getticks().
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stddef.h>
#include <string.h>
#if defined(__x86_64__) && defined(__linux__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#endif

#include "engine-test.h"
#include "tap/basic.h"

#if defined(__x86_64__) && defined(__linux__) && defined(CYCLE_IMPL_ENGINE)
static volatile sig_atomic_t trapped;

/* The sandbox's handler: every trapped call fails with ENOSYS. */
static void sandbox(int sig, siginfo_t *info, void *context)
{
	ucontext_t *uc = context;

	(void)sig;
	(void)info;
	trapped++;
	uc->uc_mcontext.gregs[REG_RAX] = -ENOSYS;
}

/* Allows what the child needs to end, answers prctl as told, traps the
 * rest into sandbox(). */
static int enter_sandbox(unsigned prctl_answer)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_rt_sigreturn, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 2, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, prctl_answer),
	};
	struct sock_fprog prog = {sizeof(code) / sizeof(code[0]), code};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sandbox;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGSYS, &sa, NULL) == 0 &&
	       prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

/* Exit 0: rdtsc chosen and counting; 5: max_traps exceeded. */
static void first_call(unsigned prctl_answer, int max_traps)
{
	ticks t0, t1;
	volatile int spin;

	if (!enter_sandbox(prctl_answer))
		_exit(77);
	t0 = getticks();
	for (spin = 0; spin < 100000; spin++)
		;
	t1 = getticks();
	if (strcmp(cycle_counter_name(), "rdtsc") != 0 || !(elapsed(t1, t0) > 0))
		_exit(4);
	_exit(max_traps >= 0 && trapped > max_traps ? 5 : 0);
}

static void prctl_allowed(void) { first_call(SECCOMP_RET_ALLOW, 0); }
static void prctl_refused(void)
{
	first_call(SECCOMP_RET_ERRNO | EPERM, -1);
}
static void prctl_trapped(void) { first_call(SECCOMP_RET_TRAP, -1); }

static void report(int status, const char *what)
{
	if (status == 77)
		tap_skip("seccomp filters cannot be installed here");
	else
		tap_ok(status == 0, "%s (status %d)", what, status);
}
#endif

int main(void)
{
#if !(defined(__x86_64__) && defined(__linux__) && defined(CYCLE_IMPL_ENGINE))
	tap_skip_all("the seccomp cases are x86-64 Linux's (prctl(PR_GET_TSC))");
#else
	if (getenv("CYCLE_COUNTER"))
		tap_skip_all("CYCLE_COUNTER is set: the first call probes");
	tap_plan(3);
	report(in_child(prctl_allowed),
	       "prctl allowed, all else trapped: rdtsc counts, and no other "
	       "system call was made");
	report(in_child(prctl_refused),
	       "prctl refused with EPERM, all else trapped: rdtsc counts");
	report(in_child(prctl_trapped),
	       "every call trapped into the program's SIGSYS handler: "
	       "rdtsc counts");
#endif
	return tap_done();
}
