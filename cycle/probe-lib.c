/* probe-lib.c: cycle-probe's primitives (see probe-lib.h): measuring one
 * counter on the CPU the probe runs on, cycle.h's guard around it, pinning,
 * CPU lists, the /proc and sysfs files, JSON.
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the safecycle contributors
 *
 * It calls nothing of the tool above it (probe-qualify.c, cycle-probe.c),
 * only probe-verdict.c's qv_append_cpus, so that a CPU list reads the same
 * in the table and in a verdict.  It is the one file of the tool that uses
 * cycle.h's internals (cycle_impl_*): the others go through it.
 */
#define _GNU_SOURCE 1 /* sched_setaffinity, CPU_SET */

#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "cycle.h"

#ifdef CYCLE_IMPL_ENGINE

#include "probe-lib.h"
#include "probe-verdict.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* --- Rows and the machine -------------------------------------------- */

const char *arch_name(void)
{
#if defined(__aarch64__) && defined(__AARCH64EB__)
	return "aarch64_be";
#elif defined(__aarch64__)
	return "aarch64";
#elif defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 8
	return "armv8";
#elif defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH == 7
	return "armv7";
#elif defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH == 6
	return "armv6";
#elif defined(__arm__)
	return "arm";
#elif defined(__x86_64__) && defined(__ILP32__)
	return "x32";
#elif defined(__x86_64__)
	return "x86_64";
#elif defined(__i686__)
	return "i686";
#elif defined(__i386__)
	return "i386";
#elif defined(__riscv) && __riscv_xlen == 64
	return "riscv64";
#elif defined(__riscv)
	return "riscv32";
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
	return "ppc64le";
#elif defined(__powerpc64__)
	return "ppc64";
#elif defined(__powerpc__)
	return "ppc";
#elif defined(__s390x__)
	return "s390x";
#elif defined(__mips__) && defined(__mips64) && defined(__MIPSEL__)
	return "mips64el";
#elif defined(__mips__) && defined(__mips64)
	return "mips64";
#elif defined(__mips__)
	return "mips";
#elif defined(__loongarch64)
	return "loongarch64";
#else
	return "unknown";
#endif
}

#if NABSENT
static const char *const absent_names[NABSENT] = {"PMCCNTR", "CNTVCT"};
#else
static const char *const absent_names[1] = {""};
#endif

const char *const status_names[] = {
	"available", "frozen", "unavailable", "traps", "absent"
};

/* Row r of the report: absent counters first, then the engine's chain. */
const char *row_name(int r)
{
	return r < NABSENT ? absent_names[r] : cycle_impl_name(r - NABSENT);
}

int module_loaded(void)
{
	return access("/sys/module/cycle_enable", F_OK) == 0;
}

int is_pmu(const char *name)
{
	return strncmp(name, "PMCCNTR", 7) == 0;
}

#if defined(PROBE_PERF_TIER)
/* The choice is made in a child: choosing may open the perf tier's event,
 * and a process holding it may read PMCCNTR_EL0 directly, which would hide
 * from the probe whether the machine lets it.  The names are cycle.h's own
 * strings, found again by name; in-process when fork fails. */
void selected_counter(const char **name, double *hz)
{
	struct { int index; double hz; } answer = {-1, 0.0};
	int fds[2], status;
	pid_t child;

	if (pipe(fds) == 0 && (child = fork()) >= 0) {
		if (child == 0) {
			close(fds[0]);
			answer.index = cycle_impl_lookup(cycle_counter_name());
			answer.hz = cycle_ticks_per_second();
			_exit(write(fds[1], &answer, sizeof(answer)) !=
			      (ssize_t)sizeof(answer));
		}
		close(fds[1]);
		if (read(fds[0], &answer, sizeof(answer)) !=
		    (ssize_t)sizeof(answer))
			answer.index = -1;
		close(fds[0]);
		waitpid(child, &status, 0);
		if (answer.index >= 0) {
			*name = cycle_impl_name(answer.index);
			*hz = answer.hz;
			return;
		}
	}
	*name = cycle_counter_name();
	*hz = cycle_ticks_per_second();
}
#else
void selected_counter(const char **name, double *hz)
{
	*name = cycle_counter_name();
	*hz = cycle_ticks_per_second();
}
#endif

#if defined(PROBE_PERF_TIER)
const char *perf_tier_state(int *err)
{
	const struct cycle_impl_v3_state *g = &cycle_impl_state;
	int state = CYCLE_IMPL_LOAD(&g->perf_state, __ATOMIC_ACQUIRE);

	*err = state == CYCLE_IMPL_PERF_OPEN_FAILED ||
	       state == CYCLE_IMPL_PERF_MMAP_FAILED ? g->perf_errno : -1;
	return cycle_impl_perf_reason(state);
}

void perf_tier_why(char *buf, size_t size)
{
	const struct cycle_impl_v3_state *g = &cycle_impl_state;
	int state = CYCLE_IMPL_LOAD(&g->perf_state, __ATOMIC_ACQUIRE);
	long paranoid = proc_number(PERF_PARANOID);

	if (state == CYCLE_IMPL_PERF_OPEN) {
		snprintf(buf, size, "kernel.perf_user_access=1; the event "
			 "reads PMCCNTR_EL0 (index 32)");
	} else if (state == CYCLE_IMPL_PERF_OPEN_FAILED ||
		   state == CYCLE_IMPL_PERF_MMAP_FAILED) {
		int n = snprintf(buf, size, "%s: %s (errno %d)",
				 cycle_impl_perf_reason(state),
				 strerror(g->perf_errno), g->perf_errno);

		/* EACCES: perf_event_paranoid refuses this user. */
		if (g->perf_errno == EACCES && paranoid >= 0 && n > 0 &&
		    (size_t)n < size)
			snprintf(buf + n, size - (size_t)n,
				 "; kernel.perf_event_paranoid is %ld", paranoid);
	} else {
		snprintf(buf, size, "%s", cycle_impl_perf_reason(state));
	}
}
#endif

/* --- The PMU's user-enable register ---------------------------------- */

#if defined(CYCLE_IMPL_PMU_ACCESS)

/* PMUSERENR on this CPU, under the guard (a hypervisor without a virtual
 * PMU may trap it); -1 if it trapped. */
static long read_userenr(void)
{
	struct guard gd;
	unsigned long v;

	guard_begin(&gd);
#if defined(__aarch64__)
	{
		uint64_t r;

		__asm__ __volatile__("mrs %0, pmuserenr_el0" : "=r"(r));
		v = (unsigned long)r;
	}
#else
	{
		uint32_t r;

		__asm__ __volatile__("mrc p15, 0, %0, c9, c14, 0" : "=r"(r));
		v = r;
	}
#endif
	return guard_end(&gd) ? -1 : (long)(v & 0xff);
}
#endif

long read_userenr_on(int cpu)
{
#if defined(CYCLE_IMPL_PMU_ACCESS)
	if (pin_to(cpu) == 0)
		return read_userenr();
#else
	(void)cpu;
#endif
	return -1;
}

/* The meaning of a PMUSERENR value, for the cycle counter. */
const char *userenr_meaning(long v)
{
#if defined(CYCLE_IMPL_PMU_ACCESS)
	switch (cycle_impl_userenr_grant((unsigned long)v)) {
	case CYCLE_IMPL_PMU_GRANTED:
		return (v & CYCLE_IMPL_USERENR_EN) ? "EN: all access granted" :
		       "CR: the cycle counter's reads granted";
	case CYCLE_IMPL_PMU_PERHAPS:
		return "UEN: PMUv3.9 per-counter access, PMUACR_EL1 decides";
	default:
		return "no user access to the cycle counter";
	}
#else
	(void)v;
	return "";
#endif
}

/* --- Measuring one counter on the current CPU ------------------------ */

/* How long each counter is watched on each CPU.  The rate and the steps come
 * from one window, the cost of a read from a second, shorter one; together
 * about 26 ms, so two CPUs with two counters stay well under a second. */
#define WINDOW_NS 20000000ull
#define COST_WINDOW_NS 5000000ull
#define WARMUP_NS 1000000ull
#define BATCH 64         /* consecutive reads compared for steps */
#define COST_BATCH 256   /* reads timed as one group */

/* cycle.h's clock: on x86 the system call, which works where an inherited
 * PR_TSC_SIGSEGV makes the vDSO's clock_gettime fault. */
uint64_t clock_ns(void)
{
	return cycle_impl_clock();
}

/* Inline where it can be, so that the cost measured is the counter's and
 * not a function call's. */
static inline uint64_t read_counter(int i)
{
#if defined(CYCLE_IMPL_PERF_INDEX)
	if (i == CYCLE_IMPL_PERF_INDEX)
		return cycle_impl_read(i);
#endif
	if (i < CYCLE_IMPL_NHW)
		return cycle_impl_hw_read(i);
	return clock_ns();
}

/* The difference of two readings; ARMv7's PMCCNTR is 32 bits wide. */
static inline int64_t step_of(int i, uint64_t a, uint64_t b)
{
	(void)i; /* CYCLE_IMPL_NARROW() ignores it on most ports */
	if (CYCLE_IMPL_NARROW(i))
		return (int32_t)(uint32_t)(b - a);
	return (int64_t)(b - a);
}

/* The same for the other files, by row (a row never absent). */
uint64_t probe_read_row(int row)
{
	return read_counter(row - NABSENT);
}

int64_t probe_step(int row, uint64_t a, uint64_t b)
{
	return step_of(row - NABSENT, a, b);
}

int probe_row_is_narrow(int row)
{
	(void)row;
	return row >= NABSENT && CYCLE_IMPL_NARROW(row - NABSENT);
}

void guard_begin(struct guard *gd)
{
	gd->had_handler = cycle_impl_state.installed != NULL;
	cycle_impl_install();
	cycle_impl_self.probing = 1;
	gd->traps = cycle_impl_self.probe_traps;
}

/* Returns 1 if some read trapped since guard_begin(). */
int guard_end(const struct guard *gd)
{
	int trapped = cycle_impl_self.probe_traps != gd->traps;

	cycle_impl_self.probing = 0;
	if (!gd->had_handler)
		cycle_impl_remove();
	return trapped;
}

/* Rate, smallest step and backward steps, over WINDOW_NS of batches of
 * back-to-back reads. */
static void measure_steps(int i, struct result *r, uint64_t window_ns)
{
	uint64_t buf[BATCH], c0, c1, v0, v1, now;
	int64_t d;
	int k;

	r->min_step = 0;
	r->backwards = 0;
	/* The clock read on both sides of the counter, so that the cost of
	 * a read does not bias the rate (it would by ~1e-5 under qemu). */
	c0 = clock_ns();
	v0 = read_counter(i);
	c0 = (c0 + clock_ns()) / 2;
	do {
		for (k = 0; k < BATCH; k++)
			buf[k] = read_counter(i);
		for (k = 1; k < BATCH; k++) {
			int64_t step = step_of(i, buf[k - 1], buf[k]);

			if (step < 0)
				r->backwards++;
			else if (step > 0 && (r->min_step == 0 ||
					      (uint64_t)step < r->min_step))
				r->min_step = (uint64_t)step;
		}
		now = clock_ns();
	} while (now - c0 < window_ns);
	c1 = clock_ns();
	v1 = read_counter(i);
	c1 = (c1 + clock_ns()) / 2;
	d = step_of(i, v0, v1);
	r->hz = (double)d * 1e9 / (double)(c1 - c0);
}

/* The cost of one read: the fastest of many timed groups, so that an
 * interrupt or a migration inside one group does not count. */
static double measure_cost(int i)
{
	uint64_t start = clock_ns(), sink = 0, t0, t1;
	double best = -1.0;
	int k;

	do {
		t0 = clock_ns();
		for (k = 0; k < COST_BATCH; k += 4) {
			sink ^= read_counter(i);
			sink ^= read_counter(i);
			sink ^= read_counter(i);
			sink ^= read_counter(i);
		}
		t1 = clock_ns();
		if (best < 0 || (double)(t1 - t0) < best)
			best = (double)(t1 - t0);
	} while (t1 - start < COST_WINDOW_NS);
	/* Keep the reads of clock_gettime from being optimised away. */
	__asm__ __volatile__("" : : "r"(sink));
	return best / COST_BATCH;
}

static double nominal_hz(int i)
{
	if (i == CYCLE_IMPL_CLOCK_INDEX)
		return 1e9;
	return cycle_impl_hw_nominal_hz(i);
}

/* Probes counter i (engine index) on the CPU the probe runs on now. */
static void probe_counter(int i, struct result *r)
{
	struct guard gd;
	uint64_t v;
	int trapped;
	int perf = 0; /* the perf tier: "unavailable" rather than "traps" */

	r->hz = -1.0;
	r->nominal_hz = 0.0;
	r->min_step = 0;
	r->ns_per_read = -1.0;
	r->backwards = -1;
#if defined(CYCLE_IMPL_PERF_INDEX)
	/* A perf cycles event would take PMCCNTR_EL0 from the direct reads
	 * (the module's) measured just before on this CPU, in the row before
	 * (r[-1], PMCCNTR_EL0): leave the tier untried. */
	if (i == CYCLE_IMPL_PERF_INDEX && r[-1].status == ST_AVAILABLE) {
		int untried = CYCLE_IMPL_PERF_UNTRIED;

		CYCLE_IMPL_CAS(&cycle_impl_state.perf_state, &untried,
			       CYCLE_IMPL_PERF_DIRECT);
	}
	perf = i == CYCLE_IMPL_PERF_INDEX;
#endif
	if (!cycle_impl_probe(i, &v)) {
		r->status = perf ? ST_UNAVAILABLE : ST_TRAPS;
		return;
	}
	guard_begin(&gd);
	/* CNTFRQ_EL0 is readable exactly when CNTVCT_EL0 is: ask only now. */
	r->nominal_hz = nominal_hz(i);
	/* A short first pass pays for cold caches and, under qemu, for
	 * translating the loop, which would otherwise skew the rate. */
	measure_steps(i, r, WARMUP_NS);
	measure_steps(i, r, WINDOW_NS);
	r->ns_per_read = measure_cost(i);
	trapped = guard_end(&gd);
	if (trapped) {
		/* Access went away while we watched: the numbers are junk. */
		r->status = ST_TRAPS;
		r->hz = -1.0;
		r->min_step = 0;
		r->ns_per_read = -1.0;
		r->backwards = -1;
	} else if (r->hz <= 0.0) {
		r->status = ST_FROZEN;
		r->hz = 0.0;
	} else {
		r->status = ST_AVAILABLE;
	}
}

void probe_row(int row, struct result *r)
{
	if (row < NABSENT) {
		memset(r, 0, sizeof(*r));
		r->status = ST_ABSENT;
		r->hz = -1.0;
		r->ns_per_read = -1.0;
		r->backwards = -1;
		return;
	}
	probe_counter(row - NABSENT, r);
}

int pin_to(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one);
}

/* Over the CPUs: the worst status; rate and cost averaged over the CPUs
 * where the counter works, smallest step the smallest, backwards summed. */
void aggregate(struct report *rep)
{
	int row, k;

	for (row = 0; row < NROWS; row++) {
		struct result *a = &rep->agg[row];
		double hz = 0.0, cost = 0.0;
		int n = 0;

		memset(a, 0, sizeof(*a));
		a->status = ST_AVAILABLE;
		a->hz = -1.0;
		a->ns_per_read = -1.0;
		a->backwards = -1;
		for (k = 0; k < rep->ncpus; k++) {
			const struct result *r = &rep->res[k][row];

			if (r->status > a->status)
				a->status = r->status;
			if (a->nominal_hz <= 0.0)
				a->nominal_hz = r->nominal_hz;
			if (r->min_step &&
			    (!a->min_step || r->min_step < a->min_step))
				a->min_step = r->min_step;
			if (r->backwards >= 0)
				a->backwards = (a->backwards < 0 ? 0 :
						a->backwards) + r->backwards;
			if (r->status != ST_AVAILABLE)
				continue;
			hz += r->hz;
			cost += r->ns_per_read;
			n++;
		}
		if (n) {
			a->hz = hz / n;
			a->ns_per_read = cost / n;
		} else if (a->status == ST_FROZEN) {
			a->hz = 0.0;
		}
	}
}

/* --- CPU lists: "0", "0-2", "1,3" ------------------------------------ */

/* Parses a kernel-style CPU list into set; returns 1, 0 if malformed, or
 * -1 with *beyond set if it names a CPU too large for a cpu_set_t. */
int parse_cpu_list(const char *s, cpu_set_t *set, unsigned long *beyond)
{
	CPU_ZERO(set);
	for (;;) {
		char *end;
		unsigned long lo, hi, c;

		if (*s < '0' || *s > '9')
			return 0;
		errno = 0;
		lo = strtoul(s, &end, 10);
		hi = lo;
		s = end;
		if (*s == '-') {
			s++;
			if (*s < '0' || *s > '9')
				return 0;
			hi = strtoul(s, &end, 10);
			s = end;
		}
		if (errno || hi < lo)
			return 0;
		/* Kept so that the caller names the first CPU missing. */
		for (c = lo; c <= hi && c < CPU_SETSIZE; c++)
			CPU_SET(c, set);
		if (hi >= CPU_SETSIZE) {
			*beyond = lo >= CPU_SETSIZE ? lo : CPU_SETSIZE;
			return -1;
		}
		if (*s == '\0' || *s == '\n')
			return 1;
		if (*s++ != ',')
			return 0;
	}
}

/* Writes set as a compact list ("0-3,6") into buf; "..." ends a list too
 * long. */
void format_cpu_list(const cpu_set_t *set, char *buf, size_t size)
{
	unsigned long n = 0;
	int c = 0;

	buf[0] = '\0';
	while (c < CPU_SETSIZE) {
		int start;

		if (!CPU_ISSET(c, set)) {
			c++;
			continue;
		}
		start = c;
		while (c + 1 < CPU_SETSIZE && CPU_ISSET(c + 1, set))
			c++;
		qv_append_cpus(buf, size, &n, start, c);
		c++;
	}
}

/* The same in words: "CPU 1", "CPUs 0,2-3". */
void cpu_words(const cpu_set_t *set, char *buf, size_t size)
{
	char list[200]; /* leaves room for the words around it */

	format_cpu_list(set, list, sizeof(list));
	snprintf(buf, size, "CPU%s %s", CPU_COUNT(set) > 1 ? "s" : "", list);
}

/* The online CPUs: sysfs knows about hotplug; the affinity mask is the
 * fallback where /sys is not mounted. */
void online_cpus(cpu_set_t *set)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	char line[4096];
	unsigned long beyond;
	int ok = 0;

	if (f) {
		ok = fgets(line, sizeof(line), f) &&
		     parse_cpu_list(line, set, &beyond) == 1;
		fclose(f);
	}
	if (!ok && sched_getaffinity(0, sizeof(*set), set) != 0) {
		CPU_ZERO(set);
		CPU_SET(0, set);
	}
}

/* The online CPUs this process was started on (taskset, a cpuset): the
 * probe never widens its own affinity beyond them. */
void allowed_cpus(const cpu_set_t *online, cpu_set_t *set)
{
	if (sched_getaffinity(0, sizeof(*set), set) != 0)
		*set = *online;
	CPU_AND(set, set, online);
}

int cpu_exists(int cpu)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	return access(path, F_OK) == 0;
}

void probed_cpus(const struct report *rep, cpu_set_t *set)
{
	int k;

	CPU_ZERO(set);
	for (k = 0; k < rep->ncpus; k++)
		CPU_SET(rep->cpu[k], set);
}

void skipped_cpus(const struct report *rep, cpu_set_t *set)
{
	int i;

	CPU_ZERO(set);
	for (i = 0; i < rep->nskipped; i++)
		CPU_SET(rep->skipped[i].cpu, set);
}

void skipped_why(int err, char *buf, size_t size)
{
	if (err == SKIP_NOT_ASKED)
		snprintf(buf, size, "not asked for (--cpu)");
	else if (err)
		snprintf(buf, size, "cannot run on it: %s", strerror(err));
	else
		snprintf(buf, size, "not in this process's affinity mask");
}

/* The CPUs not probed for the reason of rep->skipped[i], as a list, and
 * that reason: their number, or 0 when an earlier entry had the reason and
 * named them. */
int skipped_group(const struct report *rep, int i, char *list, size_t lsize,
		  char *why, size_t wsize)
{
	int err = rep->skipped[i].err, j;
	cpu_set_t set;

	for (j = 0; j < i; j++)
		if (rep->skipped[j].err == err)
			return 0;
	CPU_ZERO(&set);
	for (j = i; j < rep->nskipped; j++)
		if (rep->skipped[j].err == err)
			CPU_SET(rep->skipped[j].cpu, &set);
	format_cpu_list(&set, list, lsize);
	skipped_why(err, why, wsize);
	return CPU_COUNT(&set);
}

/* --- Files and JSON -------------------------------------------------- */

/* The first number in a /proc file, or -1 when it is missing. */
long proc_number(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* The first line of a file, without its newline; "" when unreadable. */
void read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f) {
		if (fgets(buf, (int)size, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

/* JSON strings: our names are plain ASCII, but escape anyway. */
void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

/* A number, or null when unknown (or not finite, which JSON cannot say). */
void json_number(double x, int known)
{
	if (known && isfinite(x))
		printf("%.10g", x);
	else
		fputs("null", stdout);
}

#endif /* CYCLE_IMPL_ENGINE */
