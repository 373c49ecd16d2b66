/* perf-user-access-consumer: checks cycle.h's perf tier (PMCCNTR_EL0 through perf) in an arm64 guest. */
/* SPDX-License-Identifier: MIT */
/*
 * Built like ticks-loop, with PMCCNTR_EL0 configured
 * (-DHAVE_ARMV8_PMCCNTR_EL0), statically, for the guest of
 * perf-user-access.sh.  Each command prints one line of key=value words and
 * exits 0 when its check held, 1 when it did not, 2 on usage error.
 *
 *   name          the counter getticks() uses (name=...)
 *   pin CPU       on CPU: the perf page says the event sits in PMCCNTR_EL0
 *                 (index 32), and getticks() brackets a read() of the event
 *                 (t0 <= read <= t1) and advances at a cycle rate
 *   migrate MS    for MS milliseconds a helper thread moves this thread
 *                 from CPU to CPU while it calls getticks(): every CPU is
 *                 visited, the ticks never go back and never stall
 *   bare          a bare mrs of PMCCNTR_EL0 without any handler, in a child:
 *                 prints sigill=1 when the child died of SIGILL
 *   other-thread  a thread that did not open the event still gets ticks
 *                 that advance (from the next tier, in cycles)
 *   cloexec       the event's descriptor is close-on-exec
 *   as-nobody ... run the command as user and group 65534
 *   fork          a child of fork() does not read the parent's event (the
 *                 kernel does not copy its page) and still gets advancing
 *                 ticks
 *   crowded       (root) a pinned, exclusive cycles event on every CPU
 *                 leaves the PMU no room for this thread's event, whose
 *                 count stops: getticks() leaves the tier for CNTVCT_EL0
 *                 and 1 ms spun still measures about 1 ms
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cycle.h"
#include "../guest/guest-util.h"

static const char prog[] = "perf-user-access-consumer";

#if !defined(CYCLE_IMPL_PERF_INDEX)
#error "this consumer is for aarch64 cycle.h with the perf tier"
#endif

typedef const volatile struct cycle_impl_perf_page perf_page;

static int pin(pid_t tid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(tid, sizeof(set), &set);
}

/* The perf tier must be what getticks() uses, or the checks mean nothing. */
static int require_perf(void)
{
	const char *name = cycle_counter_name();

	if (strcmp(name, "PMCCNTR_EL0_perf") != 0) {
		printf("name=%s perf_state=%s\n", name,
		       cycle_impl_perf_reason(cycle_impl_state.perf_state));
		return 0;
	}
	return 1;
}

static int cmd_pin(int cpu)
{
	perf_page *pc;
	uint64_t count = 0;
	ticks t0, t1, a, b;
	double s0, s1, hz;
	uint32_t idx;
	int i, ok;

	if (!require_perf())
		return 1;
	if (pin(0, cpu) != 0) {
		printf("cpu=%d pinned=0\n", cpu);
		return 1;
	}
	pc = (perf_page *)cycle_impl_state.perf_page;
	/* The event moves with this thread: the page follows at once. */
	t0 = getticks();
	idx = pc->index;
	if (read(cycle_impl_state.perf_fd, &count, sizeof(count)) !=
	    (ssize_t)sizeof(count))
		count = 0;
	t1 = getticks();
	a = getticks();
	s0 = now_seconds();
	do {
		for (i = 0; i < 1000; i++)
			b = getticks();
		s1 = now_seconds();
	} while (s1 - s0 < 0.02);
	hz = elapsed(b, a) / (s1 - s0);
	ok = sched_getcpu() == cpu && idx == CYCLE_IMPL_PERF_CYCLE_INDEX &&
	     t0 <= count && count <= t1 && hz > 1e6;
	printf("cpu=%d on=%d index=%u t0=%llu read=%llu t1=%llu hz=%.0f "
	       "mrs_traps=%u\n", cpu, sched_getcpu(), idx,
	       (unsigned long long)t0, (unsigned long long)count,
	       (unsigned long long)t1, hz, cycle_impl_self.perf_trapped);
	return !ok;
}

struct mover {
	pid_t tid;
	int ncpus;
	volatile int stop;
	long moves;
};

/* Moves the reading thread round the CPUs, from outside it. */
static void *move_around(void *arg)
{
	struct mover *m = (struct mover *)arg;
	int cpu = 0;

	while (!m->stop) {
		cpu = (cpu + 1) % m->ncpus;
		if (pin(m->tid, cpu) == 0)
			m->moves++;
		usleep(2000);
	}
	return NULL;
}

static int cmd_migrate(long ms)
{
	struct mover m;
	pthread_t helper;
	cpu_set_t seen;
	long reads = 0, backwards = 0, stalls = 0;
	ticks prev, t;
	double s0, window, s;
	int cpu, visited, ok;

	if (!require_perf())
		return 1;
	memset(&m, 0, sizeof(m));
	m.tid = (pid_t)syscall(SYS_gettid);
	m.ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	CPU_ZERO(&seen);
	if (pthread_create(&helper, NULL, move_around, &m) != 0) {
		printf("helper=0\n");
		return 1;
	}
	prev = getticks();
	s0 = now_seconds();
	window = s0;
	do {
		ticks before = prev;
		int k;

		/* A 1 ms window in which the ticks did not move is a stall. */
		for (k = 0; k < 200; k++) {
			t = getticks();
			reads++;
			if (elapsed(t, prev) < 0)
				backwards++;
			prev = t;
		}
		cpu = sched_getcpu();
		if (cpu >= 0)
			CPU_SET(cpu, &seen);
		s = now_seconds();
		if (s - window >= 0.001) {
			if (prev == before)
				stalls++;
			window = s;
		}
	} while ((s - s0) * 1000.0 < (double)ms);
	m.stop = 1;
	pthread_join(helper, NULL);
	visited = CPU_COUNT(&seen);
	ok = visited == m.ncpus && backwards == 0 && stalls == 0 &&
	     m.moves > m.ncpus && strcmp(cycle_counter_name(),
					 "PMCCNTR_EL0_perf") == 0;
	printf("cpus_visited=%d/%d moves=%ld reads=%ld backwards=%ld "
	       "stalls=%ld mrs_traps=%u name=%s\n", visited, m.ncpus, m.moves,
	       reads, backwards, stalls, cycle_impl_self.perf_trapped,
	       cycle_counter_name());
	return !ok;
}

static int cmd_bare(void)
{
	pid_t child = fork();
	int status = 0, sigill;

	if (child == 0) {
		uint64_t v;

		signal(SIGILL, SIG_DFL);
		__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v));
		printf("bare_value=%llu\n", (unsigned long long)v);
		fflush(stdout);
		_exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child)
		return 1;
	sigill = WIFSIGNALED(status) && WTERMSIG(status) == SIGILL;
	printf("sigill=%d\n", sigill);
	return !sigill;
}

static void *other_thread(void *arg)
{
	ticks *t = (ticks *)arg;
	double s0 = now_seconds();

	t[0] = getticks();
	while (now_seconds() - s0 < 0.01)
		;
	t[1] = getticks();
	t[2] = (ticks)cycle_impl_self.perf_mine;
	return NULL;
}

static int cmd_other_thread(void)
{
	pthread_t th;
	ticks t[3] = {0, 0, 1};
	double d;

	if (!require_perf())
		return 1;
	if (pthread_create(&th, NULL, other_thread, t) != 0)
		return 1;
	pthread_join(th, NULL);
	/* 10 ms at anything from 10 MHz up, in cycles. */
	d = elapsed(t[1], t[0]);
	printf("other_thread_ticks=%.0f opener=%d\n", d, (int)t[2]);
	return !(d > 1e5 && t[2] == 0);
}

static int cmd_cloexec(void)
{
	int flags;

	if (!require_perf())
		return 1;
	flags = fcntl(cycle_impl_state.perf_fd, F_GETFD);
	printf("fd=%d cloexec=%d\n", cycle_impl_state.perf_fd,
	       flags >= 0 && (flags & FD_CLOEXEC) != 0);
	return !(flags >= 0 && (flags & FD_CLOEXEC));
}

static int cmd_fork(void)
{
	pid_t child;
	int status = 0;

	if (!require_perf())
		return 1;
	fflush(stdout);
	child = fork();
	if (child == 0) {
		/* The kernel leaves the event's page out of the child: had
		 * cycle.h read it, the child would die of SIGSEGV here. */
		ticks t0 = getticks(), t1;
		double s0 = now_seconds();

		while (now_seconds() - s0 < 0.01)
			;
		t1 = getticks();
		printf("child_alive=%d child_ticks=%.0f\n",
		       *cycle_impl_state.perf_alive, elapsed(t1, t0));
		fflush(stdout);
		_exit(*cycle_impl_state.perf_alive == 0 &&
		      elapsed(t1, t0) > 1e5 ? 0 : 1);
	}
	if (child < 0 || waitpid(child, &status, 0) != child)
		return 1;
	if (WIFSIGNALED(status))
		printf("child_signal=%d\n", WTERMSIG(status));
	return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* What the hardlockup detector or a system-wide profiler may do to the
 * PMU, and a big.LITTLE cluster of another PMU does to the event: it stops
 * counting (index 0, read() answers one count for ever). */
static int cmd_crowded(void)
{
	struct perf_event_attr attr;
	int cpu, ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN), taken = 0, k;
	ticks t0 = 0, t1 = 0;
	double s0;

	if (!require_perf())
		return 1;
	for (cpu = 0; cpu < ncpus; cpu++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = PERF_COUNT_HW_CPU_CYCLES;
		attr.pinned = 1;
		attr.exclusive = 1;
		taken += syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
				 PERF_FLAG_FD_CLOEXEC) >= 0;
	}
	for (k = 0; k < 3; k++) { /* the first interval spans the switch */
		t0 = getticks();
		s0 = now_seconds();
		while (now_seconds() - s0 < 0.001)
			;
		t1 = getticks();
	}
	printf("exclusive_events=%d cpus=%d name=%s ticks_per_ms=%.0f "
	       "index=%u\n", taken, ncpus, cycle_counter_name(),
	       elapsed(t1, t0),
	       ((perf_page *)cycle_impl_state.perf_page)->index);
	return !(taken == ncpus &&
		 strcmp(cycle_counter_name(), "CNTVCT_EL0") == 0 &&
		 elapsed(t1, t0) > 0.5e-3 * cycle_ticks_per_second() &&
		 elapsed(t1, t0) < 1e-1 * cycle_ticks_per_second());
}

int main(int argc, char **argv)
{
	const char *cmd;

	/* "as-nobody COMMAND...": what an unprivileged user gets. */
	if (argc > 1 && strcmp(argv[1], "as-nobody") == 0) {
		if (setgid(65534) != 0 || setuid(65534) != 0) {
			perror("perf-user-access-consumer: cannot become nobody");
			return 2;
		}
		argv++;
		argc--;
	}
	cmd = argc > 1 ? argv[1] : "";

	if (strcmp(cmd, "name") == 0 && argc == 2) {
		printf("name=%s\n", cycle_counter_name());
		return 0;
	}
	if (strcmp(cmd, "pin") == 0 && argc == 3)
		return cmd_pin((int)parse_number(prog, "CPU", argv[2]));
	if (strcmp(cmd, "migrate") == 0 && argc == 3)
		return cmd_migrate(parse_number(prog, "milliseconds",
						argv[2]));
	if (strcmp(cmd, "bare") == 0 && argc == 2)
		return cmd_bare();
	if (strcmp(cmd, "other-thread") == 0 && argc == 2)
		return cmd_other_thread();
	if (strcmp(cmd, "cloexec") == 0 && argc == 2)
		return cmd_cloexec();
	if (strcmp(cmd, "fork") == 0 && argc == 2)
		return cmd_fork();
	if (strcmp(cmd, "crowded") == 0 && argc == 2)
		return cmd_crowded();
	fprintf(stderr, "usage: perf-user-access-consumer [as-nobody] name | "
		"pin CPU | migrate MS | bare | other-thread | cloexec | fork | "
		"crowded\n");
	return 2;
}
