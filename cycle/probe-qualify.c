/* probe-qualify.c: cycle-probe --qualify, "can I trust this counter for
 * planning here?".
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the safecycle contributors
 *
 * cycle-probe.c has found, on each CPU, whether each counter reads and at
 * what rate.  Planning needs more: a thread that migrates between two
 * getticks() compares two CPUs' counters; a plan that waits may put its CPU
 * to sleep; a profiler may take the PMU away; the frequency may change.
 * This file measures those, on every CPU the probe runs on, and hands the
 * readings to probe-verdict.c, which judges them (it measures with
 * probe-lib.c; cycle-probe.c calls it, never the other way round):
 *
 *   offsets  Against a shared clock (CLOCK_MONOTONIC_RAW, the kernel's,
 *            consistent across CPUs).  For each CPU, the reference CPU
 *            (the first) is read just before and just after it, and its
 *            value at the CPU's reading is interpolated, so that neither
 *            an error in the measured rate nor the migrations count.  Each
 *            reading is bracketed by two clock reads, the tightest of 32
 *            kept; half the bracket is its uncertainty.  Two rounds, at
 *            the start and at the end, give the drift.
 *   sleep    20 ms of nanosleep on an otherwise idle CPU (which idles it,
 *            in WFI or deeper), three times: the ticks counted as a share
 *            of those the awake rate predicts, and whether the access
 *            survives.
 *   perf     A cycles event of this process, opened on the CPU: does the
 *            PMU counter still read while it runs, after it is closed,
 *            and (root, module loaded) after the module's rearm.
 *   DVFS     cpufreq's governor and range; with --vary-frequency (root)
 *            the rate at the lowest and at the highest frequency, the
 *            limits restored with signals blocked meanwhile.
 *
 * The perf tier (PMCCNTR_EL0_perf) is a counter of the thread, not of the
 * CPU: perf carries its count across migrations and stops it while the
 * thread sleeps or runs in the kernel.  It gets the sleep test only.
 *
 * Bounded time: every loop is bounded by the clock.  Per CPU: 3 sleeps of
 * 20 ms, a perf test of at most 40 ms per PMU counter, offsets under 10 ms,
 * 150 ms per frequency step; the second offset round starts at least 0.5 s
 * after the first.
 */
#define _GNU_SOURCE 1 /* sched_setaffinity, CPU_SET */

#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "cycle.h"

#ifdef CYCLE_IMPL_ENGINE

#include "probe-lib.h"
#include "probe-qualify.h"
#include "probe-verdict.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* The perf test needs the kernel's perf_event.h, which not every libc's
 * headers carry (musl-gcc has none): without it that one test is not run. */
#if defined(__linux__) && defined(SYS_perf_event_open) && \
	defined(__has_include)
#if __has_include(<linux/perf_event.h>)
#include <linux/perf_event.h>
#define HAVE_PERF_TEST 1
#endif
#endif

#define SAMPLES 32            /* bracketed readings per offset sample */
#define SLEEP_NS 20000000l    /* one sleep */
#define SLEEPS 3
#define DRIFT_GAP_NS 500000000ull /* between the two offset rounds */
#define RATE_WINDOW_NS 20000000ull
#define SETTLE_NS 50000000l   /* after a frequency change */
#define PERF_SPIN_NS 5000000ull
#define SYSFS_CPU "/sys/devices/system/cpu"
#define REARM "/sys/kernel/cycle_enable/rearm"

/* probe-lib.h's statuses are handed to the verdict as they are. */
typedef char status_order_matches[(ST_AVAILABLE == (int)QV_AVAILABLE &&
				   ST_FROZEN == (int)QV_FROZEN &&
				   ST_UNAVAILABLE == (int)QV_UNAVAILABLE &&
				   ST_TRAPS == (int)QV_TRAPS &&
				   ST_ABSENT == (int)QV_ABSENT) ? 1 : -1];

/* One bracketed reading: the counter's value at clock time t (ns). */
struct sample {
	int ok;
	uint64_t v;
	uint64_t t;
	uint64_t bracket;
};

/* One row on one CPU: the readings, then what the verdict reads. */
struct qcell {
	int qualified;        /* the row was available here when we began */
	double offset_ns[2];  /* per round, against the reference CPU */
	double unc_ns[2];
	int offset_ok[2];
	uint64_t round_t[2];  /* the reference's clock time of the round */
	struct qv_cpu qv;
};

struct cpufreq {
	int present;
	char governor[32];
	long cur_khz, min_khz, max_khz;
};

struct qualification {
	const struct report *rep;     /* what the direct probe found */
	int vary_frequency;
	struct qcell (*cell)[NROWS];  /* [cpu index][row] */
	struct cpufreq *freq;         /* [cpu index] */
	struct qv_verdict verdict[NROWS];
	int judged[NROWS];
	char perf_note[256];          /* why perf was not tested, or "" */
	char freq_note[256];
	int rearmed;                  /* we wrote the module's rearm */
	long *userenr;                /* [cpu index]: PMUSERENR, -1 unknown */
	uint64_t began, ended;
	int ref;                      /* the reference CPU's index */
};

static void sleep_ns(long ns)
{
	struct timespec ts = {ns / 1000000000l, ns % 1000000000l};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void spin_ns(uint64_t ns)
{
	uint64_t t0 = clock_ns();

	while (clock_ns() - t0 < ns)
		;
}

/* --- Offsets ---------------------------------------------------------- */

/* The tightest of SAMPLES bracketed readings of row, on this CPU. */
static struct sample take_sample(int row)
{
	struct sample s = {0, 0, 0, 0};
	struct guard gd;
	int k;

	guard_begin(&gd);
	for (k = 0; k < SAMPLES; k++) {
		uint64_t c0 = clock_ns();
		uint64_t v = probe_read_row(row);
		uint64_t c1 = clock_ns();

		if (!s.ok || c1 - c0 < s.bracket) {
			s.ok = 1;
			s.v = v;
			s.t = c0 + (c1 - c0) / 2;
			s.bracket = c1 - c0;
		}
	}
	if (guard_end(&gd))
		s.ok = 0;
	return s;
}

static int qualified(const struct qualification *q, int k, int row)
{
	return q->cell[k][row].qualified;
}

/* Samples every wanted row on CPU k into s[]. */
static void sample_rows(const struct qualification *q, int k, const int *want,
			struct sample *s)
{
	int row;

	if (pin_to(q->rep->cpu[k]) != 0) {
		for (row = 0; row < NROWS; row++)
			s[row].ok = 0;
		return;
	}
	for (row = 0; row < NROWS; row++)
		if (want[row] && qualified(q, k, row))
			s[row] = take_sample(row);
		else
			s[row].ok = 0;
}

/* The offset in ticks of reading b against the reference's a0..a1 (taken
 * before and after it): the reference interpolated to b's time. */
static double offset_ticks(int row, struct sample a0, struct sample b,
			   struct sample a1)
{
	double span = (double)(a1.t - a0.t);
	double ref_ticks = (double)probe_step(row, a0.v, a1.v);
	double at = span > 0 ? ref_ticks * (double)(b.t - a0.t) / span : 0.0;

	if (probe_row_is_narrow(row)) {
		/* 32 bits: the offset modulo 2^32, taken in +-2^31. */
		uint32_t pred = (uint32_t)(a0.v + (uint64_t)(int64_t)(at < 0 ? at - 0.5
									 : at + 0.5));

		return (double)(int32_t)((uint32_t)b.v - pred);
	}
	return (double)(int64_t)(b.v - a0.v) - at;
}

/* One round of offsets of the wanted rows, every CPU against the
 * reference CPU, into round r of the cells. */
static void offsets_round(struct qualification *q, const int *want, int r)
{
	const struct report *rep = q->rep;
	struct sample a0[NROWS], a1[NROWS], b[NROWS];
	int k, row;

	sample_rows(q, q->ref, want, a0);
	for (row = 0; row < NROWS; row++)
		if (want[row] && a0[row].ok) {
			struct qcell *c = &q->cell[q->ref][row];

			c->offset_ns[r] = 0.0;
			c->unc_ns[r] = (double)a0[row].bracket / 2;
			c->offset_ok[r] = 1;
			c->round_t[r] = a0[row].t;
		}
	for (k = 0; k < rep->ncpus; k++) {
		if (k == q->ref)
			continue;
		sample_rows(q, k, want, b);
		sample_rows(q, q->ref, want, a1);
		for (row = 0; row < NROWS; row++) {
			struct qcell *c = &q->cell[k][row];
			double hz = rep->res[q->ref][row].hz;

			if (!want[row] || !a0[row].ok || !b[row].ok ||
			    !a1[row].ok || hz <= 0.0)
				continue;
			c->offset_ns[r] = offset_ticks(row, a0[row], b[row],
						       a1[row]) * 1e9 / hz;
			c->unc_ns[r] = (double)(b[row].bracket +
						(a0[row].bracket +
						 a1[row].bracket) / 2) / 2;
			c->offset_ok[r] = 1;
			c->round_t[r] = b[row].t;
		}
		/* The next CPU's "before" is this one's "after". */
		memcpy(a0, a1, sizeof(a0));
	}
}

/* --- Sleep ------------------------------------------------------------ */

/* On CPU k: the share of a sleep each wanted row counts, the median of
 * SLEEPS, and whether a read after the sleep trapped. */
static void sleep_test(struct qualification *q, int k, const int *want)
{
	const struct report *rep = q->rep;
	double ratio[NROWS][SLEEPS] = {{0}};
	int trapped[NROWS] = {0};
	int n, row;

	if (pin_to(rep->cpu[k]) != 0)
		return;
	for (n = 0; n < SLEEPS; n++) {
		uint64_t v0[NROWS] = {0}, v1[NROWS] = {0}, c0, c1;
		struct guard gd;

		for (row = 0; row < NROWS; row++)
			if (want[row] && qualified(q, k, row)) {
				guard_begin(&gd);
				v0[row] = probe_read_row(row);
				trapped[row] |= guard_end(&gd);
			}
		c0 = clock_ns();
		sleep_ns(SLEEP_NS);
		c1 = clock_ns();
		for (row = 0; row < NROWS; row++) {
			double hz = rep->res[k][row].hz;

			if (!want[row] || !qualified(q, k, row))
				continue;
			guard_begin(&gd);
			v1[row] = probe_read_row(row);
			trapped[row] |= guard_end(&gd);
			ratio[row][n] = hz > 0 ? (double)probe_step(row, v0[row],
				v1[row]) / (hz * (double)(c1 - c0) / 1e9) : 0.0;
		}
	}
	for (row = 0; row < NROWS; row++) {
		struct qv_cpu *p = &q->cell[k][row].qv;
		double *r = ratio[row];

		if (!want[row] || !qualified(q, k, row))
			continue;
		p->sleep_known = 1;
		p->sleep_trapped = trapped[row];
		/* The median of three. */
		p->sleep_ratio = r[0] > r[1] ? (r[1] > r[2] ? r[1] : r[0] > r[2] ?
					       r[2] : r[0]) :
					       (r[0] > r[2] ? r[0] : r[1] > r[2] ?
					       r[2] : r[1]);
	}
}

/* --- perf ------------------------------------------------------------- */

/* Reads row for a few ms under a guard: 1 if it read and advanced. */
static int reads_and_counts(int row)
{
	struct guard gd;
	uint64_t v0, v1;
	int trapped;

	guard_begin(&gd);
	v0 = probe_read_row(row);
	spin_ns(PERF_SPIN_NS / 5);
	v1 = probe_read_row(row);
	trapped = guard_end(&gd);
	return !trapped && probe_step(row, v0, v1) > 0;
}

#if defined(HAVE_PERF_TEST)
static int open_cycles_event(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	/* What perf_event_paranoid 2 allows a user. */
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}
#endif

/* The module's rearm, as root: 1 if written. */
static int write_rearm(void)
{
	int fd = open(REARM, O_WRONLY | O_CLOEXEC);
	int ok;

	if (fd < 0)
		return 0;
	ok = write(fd, "1\n", 2) == 2;
	close(fd);
	return ok;
}

/* On CPU k, for each wanted PMU row that reads there: does a perf cycles
 * session of this process take it away, and does it come back.  The perf
 * tier's own event then shares the PMU with the session's. */
static void perf_test(struct qualification *q, int k, const int *want)
{
	int row;

	for (row = 0; row < NROWS; row++) {
		struct qv_cpu *p = &q->cell[k][row].qv;
		int during, fd = -1;

		if (!want[row])
			continue;
		p->perf = QV_PERF_UNTESTED;
		if (row < NABSENT || !is_pmu(row_name(row)) ||
		    !qualified(q, k, row) || q->perf_note[0])
			continue;
		if (pin_to(q->rep->cpu[k]) != 0)
			continue;
#if defined(HAVE_PERF_TEST)
		fd = open_cycles_event();
#else
		errno = ENOSYS;
#endif
		if (fd < 0) {
			int e = errno;
			long paranoid = proc_number(PERF_PARANOID);

			if (paranoid >= 0)
				snprintf(q->perf_note, sizeof(q->perf_note),
					 "no perf cycles event could be opened "
					 "(%s, perf_event_paranoid %ld): not "
					 "tested", strerror(e), paranoid);
			else
				snprintf(q->perf_note, sizeof(q->perf_note),
					 "no perf cycles event could be opened "
					 "(%s): not tested", strerror(e));
			continue;
		}
		spin_ns(PERF_SPIN_NS);
		during = reads_and_counts(row);
		close(fd);
		spin_ns(PERF_SPIN_NS);
		if (reads_and_counts(row)) {
			p->perf = during ? QV_PERF_KEPT : QV_PERF_BACK;
		} else if (module_loaded() && write_rearm()) {
			q->rearmed = 1;
			p->perf = reads_and_counts(row) ? QV_PERF_REARMED
							: QV_PERF_GONE;
		} else {
			p->perf = QV_PERF_GONE;
		}
	}
}

/* --- Frequency -------------------------------------------------------- */

static int write_long(const char *path, long value)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return 0;
	ok = fprintf(f, "%ld\n", value) > 0;
	return fclose(f) == 0 && ok;
}

static void cpufreq_path(int cpu, const char *file, char *buf, size_t size)
{
	snprintf(buf, size, SYSFS_CPU "/cpu%d/cpufreq/%s", cpu, file);
}

static void read_cpufreq(int cpu, struct cpufreq *f)
{
	char path[128];

	cpufreq_path(cpu, "scaling_governor", path, sizeof(path));
	read_line(path, f->governor, sizeof(f->governor));
	cpufreq_path(cpu, "scaling_cur_freq", path, sizeof(path));
	f->cur_khz = proc_number(path);
	cpufreq_path(cpu, "cpuinfo_min_freq", path, sizeof(path));
	f->min_khz = proc_number(path);
	cpufreq_path(cpu, "cpuinfo_max_freq", path, sizeof(path));
	f->max_khz = proc_number(path);
	f->present = f->min_khz > 0 && f->max_khz > 0;
}

/* The rate of row now, over RATE_WINDOW_NS, on this CPU; <= 0 if not. */
static double rate_now(int row)
{
	struct guard gd;
	uint64_t c0, c1, v0, v1;

	guard_begin(&gd);
	c0 = clock_ns();
	v0 = probe_read_row(row);
	spin_ns(RATE_WINDOW_NS);
	v1 = probe_read_row(row);
	c1 = clock_ns();
	if (guard_end(&gd))
		return -1.0;
	return (double)probe_step(row, v0, v1) * 1e9 / (double)(c1 - c0);
}

/* Pins CPU k's frequency to khz through scaling_min/max_freq, measures
 * every qualified row into hz[], and puts both limits back.  Signals that
 * would end the process wait until the limits are back, except those a
 * read raises itself: a trap with SIGILL blocked would kill the process
 * with the limits still pinned (cycle.h's guard cannot answer it). */
static int rates_at(const struct qualification *q, int k, long khz,
		    double *hz)
{
	int cpu = q->rep->cpu[k], row, ok;
	char pmin[128], pmax[128];
	long old_min, old_max;
	sigset_t block, saved;

	cpufreq_path(cpu, "scaling_min_freq", pmin, sizeof(pmin));
	cpufreq_path(cpu, "scaling_max_freq", pmax, sizeof(pmax));
	old_min = proc_number(pmin);
	old_max = proc_number(pmax);
	if (old_min <= 0 || old_max <= 0)
		return 0;
	for (row = 0; row < NROWS; row++)
		hz[row] = -1.0;
	sigfillset(&block);
	sigdelset(&block, SIGILL);
	sigdelset(&block, SIGSEGV);
	sigdelset(&block, SIGBUS);
	sigdelset(&block, SIGFPE);
	sigdelset(&block, SIGTRAP);
	sigprocmask(SIG_BLOCK, &block, &saved);
	/* Widen first, so that each write keeps min <= max. */
	ok = write_long(pmax, khz > old_max ? khz : old_max) &&
	     write_long(pmin, khz) && write_long(pmax, khz) &&
	     pin_to(cpu) == 0;
	if (ok) {
		sleep_ns(SETTLE_NS);
		for (row = 0; row < NROWS; row++)
			hz[row] = qualified(q, k, row) ? rate_now(row) : -1;
	}
	write_long(pmin, old_min < khz ? old_min : khz);
	write_long(pmax, old_max);
	write_long(pmin, old_min);
	sigprocmask(SIG_SETMASK, &saved, NULL);
	return ok;
}

static void frequency_test(struct qualification *q)
{
	const struct report *rep = q->rep;
	int k, row, varied = 0;

	for (k = 0; k < rep->ncpus; k++)
		read_cpufreq(rep->cpu[k], &q->freq[k]);
	if (!q->freq[q->ref].present) {
		snprintf(q->freq_note, sizeof(q->freq_note),
			 "no cpufreq here: the rate was measured at the one "
			 "frequency the CPUs run at");
		return;
	}
	if (!q->vary_frequency) {
		snprintf(q->freq_note, sizeof(q->freq_note),
			 "measured at the current frequency only "
			 "(--vary-frequency, as root, measures the range)");
		return;
	}
	for (k = 0; k < rep->ncpus; k++) {
		const struct cpufreq *f = &q->freq[k];
		double low[NROWS], high[NROWS];

		if (!f->present || !rates_at(q, k, f->min_khz, low) ||
		    !rates_at(q, k, f->max_khz, high))
			continue;
		varied++;
		for (row = 0; row < NROWS; row++) {
			struct qv_cpu *p = &q->cell[k][row].qv;

			if (!qualified(q, k, row) || low[row] <= 0 ||
			    high[row] <= 0)
				continue;
			p->freq_known = 1;
			p->khz_low = (double)f->min_khz;
			p->khz_high = (double)f->max_khz;
			p->hz_low = low[row];
			p->hz_high = high[row];
		}
	}
	if (varied)
		snprintf(q->freq_note, sizeof(q->freq_note), "rates measured "
			 "at cpufreq's lowest and highest frequency on %d "
			 "CPU%s", varied, varied == 1 ? "" : "s");
	else
		snprintf(q->freq_note, sizeof(q->freq_note), "cpufreq's "
			 "limits could not be changed: measured at the "
			 "current frequency only");
}

/* --- The PMU's user-enable register ----------------------------------- */

/* What the machine grants, before the perf test changes it: PMUSERENR on
 * every CPU, where the architecture has one. */
static void read_access_registers(struct qualification *q)
{
	int k;

	for (k = 0; k < q->rep->ncpus; k++)
		q->userenr[k] = read_userenr_on(q->rep->cpu[k]);
}

/* "0x0c on CPUs 0-7 (CR: ...); 0x00 on CPU 8 (...)" into buf, or "" where
 * there is no such register. */
static void describe_userenr(const struct qualification *q, char *buf,
			     size_t size)
{
	const struct report *rep = q->rep;
	size_t n = 0;
	int k, j;

	buf[0] = '\0';
	for (k = 0; k < rep->ncpus && n < size; k++) {
		cpu_set_t set;
		char list[256];

		for (j = 0; j < k; j++)
			if (q->userenr[j] == q->userenr[k])
				break;
		if (j < k || q->userenr[k] < 0)
			continue;
		CPU_ZERO(&set);
		for (j = k; j < rep->ncpus; j++)
			if (q->userenr[j] == q->userenr[k])
				CPU_SET(rep->cpu[j], &set);
		format_cpu_list(&set, list, sizeof(list));
		n += (size_t)snprintf(buf + n, size - n, "%s0x%02lx on CPU%s %s "
				      "(%s)", n ? "; " : "", q->userenr[k],
				      CPU_COUNT(&set) > 1 ? "s" : "", list,
				      userenr_meaning(q->userenr[k]));
	}
}

/* --- Putting it together ---------------------------------------------- */

static void fill_cells(struct qualification *q, const int *want)
{
	const struct report *rep = q->rep;
	int k, row;

	for (k = 0; k < rep->ncpus; k++)
		for (row = 0; row < NROWS; row++) {
			const struct result *r = &rep->res[k][row];
			struct qcell *c = &q->cell[k][row];

			if (!want[row])
				continue;
			c->qualified = r->status == ST_AVAILABLE;
			c->qv.cpu = rep->cpu[k];
			c->qv.status = (enum qv_status)r->status;
			c->qv.hz = r->hz;
			c->qv.backwards = r->backwards;
		}
}

/* Offsets and drift into the verdict's fields, then the verdict. */
static void judge_rows(struct qualification *q, const int *want, int per_task)
{
	const struct report *rep = q->rep;
	struct qv_cpu *cpus = calloc((size_t)rep->ncpus, sizeof(*cpus));
	int k, row;

	if (!cpus)
		return;
	for (row = 0; row < NROWS; row++) {
		struct qv_counter c;

		if (!want[row])
			continue;
		for (k = 0; k < rep->ncpus; k++) {
			struct qcell *cell = &q->cell[k][row];
			struct qcell *ref = &q->cell[q->ref][row];
			struct qv_cpu *p = &cell->qv;
			double span;

			p->offset_known = cell->offset_ok[0];
			p->offset_ns = cell->offset_ns[0];
			p->offset_unc_ns = cell->unc_ns[0];
			span = (double)(ref->round_t[1] - ref->round_t[0]);
			p->drift_known = cell->offset_ok[0] &&
					 cell->offset_ok[1] &&
					 ref->offset_ok[1] && span > 0;
			if (p->drift_known) {
				p->drift_ppm = (cell->offset_ns[1] -
						cell->offset_ns[0]) / span * 1e6;
				p->drift_unc_ppm = (cell->unc_ns[0] +
						    cell->unc_ns[1]) / span * 1e6;
			}
			cpus[k] = *p;
		}
		c.name = row_name(row);
		c.cycles = is_pmu(c.name) || strcmp(c.name, "rdcycle") == 0;
		c.per_task = per_task;
		c.ncpus = rep->ncpus;
		c.cpus = cpus;
		qv_judge(&c, &q->verdict[row]);
		q->judged[row] = 1;
	}
	free(cpus);
}

/* The rows of one pass: the direct ones, or the perf tier alone. */
static void rows_of_pass(int perf_pass, int *want)
{
	int row;

	for (row = 0; row < NROWS; row++)
		want[row] = (row == PERF_ROW) == perf_pass;
}

static void qualify_pass(struct qualification *q, int perf_pass)
{
	int want[NROWS], k;
	uint64_t first;

	rows_of_pass(perf_pass, want);
	fill_cells(q, want);
	first = clock_ns();
	/* The perf tier's event counts this thread's own user cycles and
	 * goes with it from CPU to CPU: no offsets between CPUs to speak of,
	 * and it stands still while the thread is elsewhere. */
	if (!perf_pass)
		offsets_round(q, want, 0);
	for (k = 0; k < q->rep->ncpus; k++)
		sleep_test(q, k, want);
	if (!perf_pass) {
		if (clock_ns() - first < DRIFT_GAP_NS)
			sleep_ns((long)(DRIFT_GAP_NS - (clock_ns() - first)));
		offsets_round(q, want, 1);
	}
	/* Last: perf rewrites the PMU counter it takes, and a new frequency
	 * changes a cycle counter's pace, either of which would pass for
	 * drift between the rounds. */
	for (k = 0; k < q->rep->ncpus; k++)
		perf_test(q, k, want);
	if (!perf_pass)
		frequency_test(q);
	judge_rows(q, want, perf_pass);
}

struct qualification *qualify_direct_rows(const struct report *rep,
					  int vary_frequency)
{
	struct qualification *q = calloc(1, sizeof(*q));

	if (q) {
		q->cell = calloc((size_t)rep->ncpus, sizeof(*q->cell));
		q->freq = calloc((size_t)rep->ncpus, sizeof(*q->freq));
		q->userenr = calloc((size_t)rep->ncpus, sizeof(*q->userenr));
	}
	if (!q || !q->cell || !q->freq || !q->userenr) {
		qualify_free(q);
		fputs("cycle-probe: out of memory\n", stderr);
		return NULL;
	}
	q->rep = rep;
	q->vary_frequency = vary_frequency;
	q->ref = 0;
	q->began = clock_ns();
	read_access_registers(q);
	qualify_pass(q, 0);
	q->ended = clock_ns();
	return q;
}

void qualify_perf_row(struct qualification *q)
{
	if (!q || PERF_ROW < 0)
		return;
	qualify_pass(q, 1);
	q->ended = clock_ns();
}

void qualify_free(struct qualification *q)
{
	if (!q)
		return;
	free(q->cell);
	free(q->freq);
	free(q->userenr);
	free(q);
}

int qualify_configured_fit(const struct qualification *q)
{
	int row = CONFIGURED_ROW;

	if (!q)
		return 0;
#if defined(PROBE_PERF_TIER)
	/* PMCCNTR_EL0 read through perf is the configured counter too, where
	 * the direct read is not what getticks() uses. */
	if (row == NABSENT && q->judged[PERF_ROW] &&
	    q->rep->agg[row].status != ST_AVAILABLE)
		row = PERF_ROW;
#endif
	return q->judged[row] && q->verdict[row].level == QV_FIT;
}

/* --- Describing the machine ------------------------------------------- */

/* Arm's own cores, by MIDR part number (implementer 0x41). */
static const char *arm_part(unsigned part)
{
	static const struct { unsigned part; const char *name; } parts[] = {
		{0xc05, "Cortex-A5"}, {0xc07, "Cortex-A7"},
		{0xc08, "Cortex-A8"}, {0xc09, "Cortex-A9"},
		{0xc0d, "Cortex-A12"}, {0xc0e, "Cortex-A17"},
		{0xc0f, "Cortex-A15"}, {0xd03, "Cortex-A53"},
		{0xd04, "Cortex-A35"}, {0xd05, "Cortex-A55"},
		{0xd07, "Cortex-A57"}, {0xd08, "Cortex-A72"},
		{0xd09, "Cortex-A73"}, {0xd0a, "Cortex-A75"},
		{0xd0b, "Cortex-A76"}, {0xd0c, "Neoverse-N1"},
		{0xd0d, "Cortex-A77"}, {0xd40, "Neoverse-V1"},
		{0xd41, "Cortex-A78"}, {0xd44, "Cortex-X1"},
		{0xd46, "Cortex-A510"}, {0xd47, "Cortex-A710"},
		{0xd48, "Cortex-X2"}, {0xd49, "Neoverse-N2"},
		{0xd4b, "Cortex-A78C"}, {0xd4d, "Cortex-A715"},
		{0xd4e, "Cortex-X3"}, {0xd4f, "Neoverse-V2"},
		{0xd80, "Cortex-A520"}, {0xd81, "Cortex-A720"},
		{0xd82, "Cortex-X4"}, {0xd84, "Neoverse-V3"},
		{0xd8e, "Neoverse-N3"},
	};
	size_t i;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (parts[i].part == part)
			return parts[i].name;
	return NULL;
}

/* CPU k's part: from MIDR_EL1 in sysfs (arm64), else /proc/cpuinfo's
 * "CPU implementer"/"CPU part" (32-bit ARM) or "model name" (x86). */
static void cpu_part(int cpu, char *buf, size_t size)
{
	char path[128], line[256];
	unsigned long midr = 0;
	long impl = -1, part = -1;
	int this = -1;
	FILE *f;

	snprintf(buf, size, "unknown");
	snprintf(path, sizeof(path),
		 SYSFS_CPU "/cpu%d/regs/identification/midr_el1", cpu);
	read_line(path, line, sizeof(line));
	if (line[0] && (midr = strtoul(line, NULL, 16)) != 0) {
		impl = (long)((midr >> 24) & 0xff);
		part = (long)((midr >> 4) & 0xfff);
	} else if ((f = fopen("/proc/cpuinfo", "r")) != NULL) {
		while (fgets(line, sizeof(line), f)) {
			char *v = strchr(line, ':');

			if (!v)
				continue;
			v++;
			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			if (strncmp(line, "processor", 9) == 0)
				this = atoi(v);
			else if (this != cpu && this >= 0)
				continue;
			else if (strncmp(line, "CPU implementer", 15) == 0)
				impl = strtol(v, NULL, 0);
			else if (strncmp(line, "CPU part", 8) == 0)
				part = strtol(v, NULL, 0);
			else if (strncmp(line, "model name", 10) == 0)
				snprintf(buf, size, "%s", v);
		}
		fclose(f);
	}
	if (impl == 0x41 && part >= 0 && arm_part((unsigned)part))
		snprintf(buf, size, "%s", arm_part((unsigned)part));
	else if (impl >= 0 && part >= 0)
		snprintf(buf, size, "implementer 0x%02lx part 0x%03lx", impl,
			 part);
}

/* --- Output ----------------------------------------------------------- */

static void format_offset(const struct qv_cpu *p, char *buf, size_t size)
{
	char v[32], u[32];

	if (!p->offset_known) {
		snprintf(buf, size, "-");
		return;
	}
	qv_format_ns(p->offset_ns, v, sizeof(v));
	qv_format_ns(p->offset_unc_ns, u, sizeof(u));
	snprintf(buf, size, "%s +-%s", v, u);
}

static void format_drift(const struct qv_cpu *p, char *buf, size_t size)
{
	if (p->drift_known)
		snprintf(buf, size, "%.1f +-%.1f", p->drift_ppm,
			 p->drift_unc_ppm);
	else
		snprintf(buf, size, "-");
}

static void format_sleep(const struct qv_cpu *p, char *buf, size_t size)
{
	if (!p->sleep_known)
		snprintf(buf, size, "-");
	else if (p->sleep_trapped)
		snprintf(buf, size, "access lost");
	else
		snprintf(buf, size, "%.0f%%", p->sleep_ratio * 100.0);
}

static void format_rate(const struct qv_cpu *p, char *buf, size_t size)
{
	if (p->status != QV_AVAILABLE || p->hz <= 0)
		snprintf(buf, size, "-");
	else if (p->freq_known)
		snprintf(buf, size, "%.1f (%.1f-%.1f)", p->hz / 1e6,
			 p->hz_low / 1e6, p->hz_high / 1e6);
	else
		snprintf(buf, size, "%.3f", p->hz / 1e6);
}

/* The per-CPU rows of every counter judged: aligned columns after the
 * table (no status: the table above has it), or the Markdown report's. */
static void print_per_cpu(FILE *f, const struct qualification *q, int markdown)
{
	const struct report *rep = q->rep;
	char rate[64], offset[80], drift[64], slept[64];
	int k, row;

	for (k = 0; k < rep->ncpus; k++)
		for (row = 0; row < NROWS; row++) {
			const struct qv_cpu *p = &q->cell[k][row].qv;

			if (!q->judged[row])
				continue;
			format_rate(p, rate, sizeof(rate));
			format_offset(p, offset, sizeof(offset));
			format_drift(p, drift, sizeof(drift));
			format_sleep(p, slept, sizeof(slept));
			if (markdown)
				fprintf(f, "| %d | %s | %s | %s | %s | %s | %s "
					"| %s |\n", rep->cpu[k], row_name(row),
					qv_status_text(p->status), rate,
					offset, drift, slept,
					qv_perf_text(p->perf));
			else
				fprintf(f, "%3d  %-16s %-18s %-22s %-16s %-11s "
					"%s\n", rep->cpu[k], row_name(row),
					rate, offset, drift, slept,
					qv_perf_text(p->perf));
		}
}

/* The configured counter's level, in words, the perf tier counting as it. */
static const char *configured_level(const struct qualification *q)
{
	if (qualify_configured_fit(q))
		return qv_level_text(QV_FIT);
	return qv_level_text(q->verdict[CONFIGURED_ROW].level);
}

/* Which CPUs a verdict is about, when some online ones were not probed
 * (taskset, --cpu): " on CPU 1 (CPU 0 not probed)", else "". */
static void coverage(const struct report *rep, char *buf, size_t size)
{
	char probed[256], skipped[256];
	cpu_set_t set;

	buf[0] = '\0';
	if (!rep->nskipped)
		return;
	probed_cpus(rep, &set);
	cpu_words(&set, probed, sizeof(probed));
	skipped_cpus(rep, &set);
	cpu_words(&set, skipped, sizeof(skipped));
	snprintf(buf, size, " on %s (%s not probed)", probed, skipped);
}

/* The advice for row's verdict. */
static void verdict_advice(const struct qualification *q, int row, char *buf,
			   size_t size)
{
	const struct report *rep = q->rep;
	const struct qv_verdict *v = &q->verdict[row];

	if (v->level == QV_FIT) {
		snprintf(buf, size, "none needed");
	} else if (v->level == QV_PINNED) {
		snprintf(buf, size, "pin the planning thread to one CPU "
			 "(taskset -c N, sched_setaffinity), or plan with a "
			 "counter fit for planning here");
	} else if (rep->agg[row].status != ST_AVAILABLE &&
		   row == CONFIGURED_ROW) {
		snprintf(buf, size, "%s", rep->advice);
	} else if (v->lost_in_sleep && is_pmu(row_name(row))) {
		snprintf(buf, size, "load the cycle_enable module, which grants "
			 "the counter again after each idle exit (CPU PM)");
	} else {
		snprintf(buf, size, "configure for another counter (on ARM "
			 "the generic timer: --enable-armv8-cntvct-el0, "
			 "--enable-armv7a-cntvct)");
	}
}

void qualify_print(const struct qualification *q)
{
	const struct report *rep;
	char access[512], where[600];
	int row;

	if (!q)
		return;
	rep = q->rep;
	coverage(rep, where, sizeof(where));
	printf("\nqualify: %d CPU%s, %.1f s\n", rep->ncpus,
	       rep->ncpus == 1 ? "" : "s", (double)(q->ended - q->began) / 1e9);
	printf("cpu  %-16s %-18s %-22s %-16s %-11s %s\n", "counter",
	       "MHz", "offset vs first CPU", "drift ppm", "sleep", "perf");
	print_per_cpu(stdout, q, 0);
	for (row = 0; row < NROWS; row++) {
		const struct qv_verdict *v = &q->verdict[row];

		if (!q->judged[row])
			continue;
		printf("verdict: %s: %s%s%s%s\n", row_name(row),
		       qv_level_text(v->level), where,
		       v->reason[0] ? ": " : "", v->reason);
		if (v->notes[0])
			printf("  notes: %s\n", v->notes);
	}
	describe_userenr(q, access, sizeof(access));
	if (access[0])
		printf("access: " USERENR_NAME " %s\n", access);
	if (q->perf_note[0])
		printf("perf: %s\n", q->perf_note);
	printf("frequency: %s\n", q->freq_note);
	{
		char advice[1024];

		verdict_advice(q, CONFIGURED_ROW, advice, sizeof(advice));
		printf("qualified: %s is %s%s; advice: %s\n",
		       row_name(CONFIGURED_ROW), configured_level(q), where,
		       advice);
	}
}

static const char *level_key(enum qv_level level)
{
	return level == QV_FIT ? "fit" : level == QV_PINNED ? "pinned"
							    : "not-fit";
}

static void json_text_or_null(const char *s)
{
	if (s[0])
		json_string(s);
	else
		fputs("null", stdout);
}

/* ', "key": number' (null when unknown). */
static void json_field(const char *key, double x, int known)
{
	printf(", \"%s\": ", key);
	json_number(x, known);
}

static void json_qv_cpu(const struct qv_cpu *p)
{
	printf("{\"cpu\": %d, \"status\": ", p->cpu);
	json_string(qv_status_text(p->status));
	json_field("hz", p->hz, p->status == QV_AVAILABLE && p->hz > 0);
	json_field("offset_ns", p->offset_ns, p->offset_known);
	json_field("offset_unc_ns", p->offset_unc_ns, p->offset_known);
	json_field("drift_ppm", p->drift_ppm, p->drift_known);
	json_field("drift_unc_ppm", p->drift_unc_ppm, p->drift_known);
	json_field("sleep_ratio", p->sleep_ratio,
		   p->sleep_known && !p->sleep_trapped);
	printf(", \"sleep_access_lost\": %s", !p->sleep_known ? "null" :
	       p->sleep_trapped ? "true" : "false");
	fputs(", \"perf\": ", stdout);
	json_string(p->perf == QV_PERF_UNTESTED ? "untested" :
		    p->perf == QV_PERF_KEPT ? "kept" :
		    p->perf == QV_PERF_BACK ? "back" :
		    p->perf == QV_PERF_REARMED ? "rearmed" : "gone");
	json_field("khz_low", p->khz_low, p->freq_known);
	json_field("khz_high", p->khz_high, p->freq_known);
	json_field("hz_low", p->hz_low, p->freq_known);
	json_field("hz_high", p->hz_high, p->freq_known);
	fputs("}", stdout);
}

void qualify_json(const struct qualification *q)
{
	const struct report *rep = q->rep;
	char advice[1024];
	int row, k, first = 1;

	verdict_advice(q, CONFIGURED_ROW, advice, sizeof(advice));
	fputs(",\n  \"qualify\": {\n    \"seconds\": ", stdout);
	json_number((double)(q->ended - q->began) / 1e9, 1);
	fputs(",\n    \"configured\": ", stdout);
	json_string(row_name(CONFIGURED_ROW));
	printf(",\n    \"configured_fit\": %s",
	       qualify_configured_fit(q) ? "true" : "false");
	fputs(",\n    \"advice\": ", stdout);
	json_string(advice);
	fputs(",\n    \"perf_note\": ", stdout);
	json_text_or_null(q->perf_note);
	fputs(",\n    \"frequency_note\": ", stdout);
	json_string(q->freq_note);
	fputs(",\n    \"pmuserenr\": ", stdout);
	for (k = 0; k < rep->ncpus; k++) {
		if (q->userenr[k] < 0)
			continue;
		printf("%s\"%d\": %ld", first ? "{" : ", ", rep->cpu[k],
		       q->userenr[k]);
		first = 0;
	}
	fputs(first ? "null" : "}", stdout);
	first = 1;
	fputs(",\n    \"cpufreq\": [", stdout);
	for (k = 0; k < rep->ncpus; k++) {
		const struct cpufreq *f = &q->freq[k];

		if (!f->present)
			continue;
		printf("%s\n      {\"cpu\": %d, \"governor\": ", first ? "" : ",",
		       rep->cpu[k]);
		json_string(f->governor);
		printf(", \"cur_khz\": %ld, \"min_khz\": %ld, \"max_khz\": %ld}",
		       f->cur_khz, f->min_khz, f->max_khz);
		first = 0;
	}
	fputs(first ? "]" : "\n    ]", stdout);
	fputs(",\n    \"counters\": [", stdout);
	first = 1;
	for (row = 0; row < NROWS; row++) {
		const struct qv_verdict *v = &q->verdict[row];

		if (!q->judged[row])
			continue;
		fputs(first ? "\n      {\"name\": " : ",\n      {\"name\": ",
		      stdout);
		first = 0;
		json_string(row_name(row));
		fputs(", \"verdict\": ", stdout);
		json_string(level_key(v->level));
		fputs(", \"verdict_text\": ", stdout);
		json_string(qv_level_text(v->level));
		fputs(", \"reason\": ", stdout);
		json_text_or_null(v->reason);
		fputs(", \"notes\": ", stdout);
		json_text_or_null(v->notes);
		json_field("spread_ns", v->spread_ns, v->offsets_known);
		json_field("spread_unc_ns", v->spread_unc_ns,
			   v->offsets_known);
		if (v->offsets_known)
			printf(", \"worst_pair\": [%d, %d]", v->worst_a,
			       v->worst_b);
		else
			fputs(", \"worst_pair\": null", stdout);
		if (v->drifts_known)
			printf(", \"drift_pair\": [%d, %d]", v->drift_a,
			       v->drift_b);
		else
			fputs(", \"drift_pair\": null", stdout);
		json_field("drift_spread_ppm", v->drift_spread_ppm,
			   v->drifts_known);
		json_field("drift_spread_unc_ppm", v->drift_spread_unc_ppm,
			   v->drifts_known);
		fputs(",\n       \"cpus\": [", stdout);
		for (k = 0; k < rep->ncpus; k++) {
			fputs(k ? ",\n         " : "\n         ", stdout);
			json_qv_cpu(&q->cell[k][row].qv);
		}
		fputs("]}", stdout);
	}
	fputs(first ? "]\n  }" : "\n    ]\n  }", stdout);
}

/* --- The Markdown report ---------------------------------------------- */

/* The module's state in words: loaded or not, and where it grants. */
static void module_state(char *buf, size_t size)
{
	char granted[256], refused[256];

	if (!module_loaded()) {
		snprintf(buf, size, "not loaded");
		return;
	}
	read_line("/sys/kernel/cycle_enable/granted", granted,
		    sizeof(granted));
	read_line("/sys/kernel/cycle_enable/refused", refused,
		    sizeof(refused));
	snprintf(buf, size, "loaded; granted on CPUs %s; refused on %s",
		 granted[0] ? granted : "none", refused[0] ? refused : "none");
}

/* The CPU parts as "8 x Cortex-A57" or "4 x Cortex-A53, 4 x Cortex-A72". */
static void cpu_parts(const struct report *rep, char *buf, size_t size)
{
	char part[128], seen[8][128];
	int count[8] = {0}, nseen = 0, k, i;
	size_t n = 0;

	for (k = 0; k < rep->ncpus; k++) {
		cpu_part(rep->cpu[k], part, sizeof(part));
		for (i = 0; i < nseen; i++)
			if (strcmp(seen[i], part) == 0)
				break;
		if (i == nseen && nseen < 8)
			snprintf(seen[nseen++], sizeof(seen[0]), "%s", part);
		if (i < 8)
			count[i]++;
	}
	buf[0] = '\0';
	for (i = 0; i < nseen && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%d x %s",
				      i ? ", " : "", count[i], seen[i]);
}

/* A sysctl's value, or "absent". */
static void sysctl_text(const char *path, char *buf, size_t size)
{
	long v = proc_number(path);

	if (access(path, F_OK) != 0)
		snprintf(buf, size, "absent");
	else
		snprintf(buf, size, "%ld", v);
}

static void md_cell(FILE *f, const char *s)
{
	/* A '|' would end the cell. */
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

/* The report into f; cycle-probe.c opens it and checks the writes. */
void qualify_write_report(FILE *f, const struct qualification *q)
{
	const struct report *rep = q->rep;
	struct utsname u;
	char buf[1024], a[64], b[64], list[512], where[600];
	cpu_set_t set;
	time_t now = time(NULL);
	int k, row;

	fputs("# Cycle counter qualification\n\n", f);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	fprintf(f, "- **Date:** %s\n", buf);
	if (uname(&u) == 0)
		fprintf(f, "- **Kernel:** %s %s %s (%s)\n", u.sysname,
			u.release, u.machine, u.version);
	fprintf(f, "- **cycle-probe:** %s, built for %s, configured for %s\n",
		PACKAGE_VERSION, arch_name(), row_name(CONFIGURED_ROW));
	probed_cpus(rep, &set);
	format_cpu_list(&set, list, sizeof(list));
	cpu_parts(rep, buf, sizeof(buf));
	fprintf(f, "- **CPUs qualified:** %s (%s)\n", list, buf);
	for (k = 0; k < rep->nskipped; k++)
		if (skipped_group(rep, k, list, sizeof(list), buf, sizeof(buf)))
			fprintf(f, "- **CPUs not probed:** %s (%s)\n", list,
				buf);
	module_state(buf, sizeof(buf));
	fprintf(f, "- **Module cycle_enable:** %s\n", buf);
	sysctl_text(PERF_USER_ACCESS, a, sizeof(a));
	sysctl_text(PERF_PARANOID, b, sizeof(b));
	fprintf(f, "- **kernel.perf_user_access:** %s; "
		"**kernel.perf_event_paranoid:** %s\n", a, b);
	if (q->freq[q->ref].present)
		fprintf(f, "- **cpufreq (CPU %d):** governor %s, %ld to %ld "
			"MHz, now %ld MHz\n", rep->cpu[q->ref],
			q->freq[q->ref].governor, q->freq[q->ref].min_khz / 1000,
			q->freq[q->ref].max_khz / 1000,
			q->freq[q->ref].cur_khz / 1000);
	fprintf(f, "- **Frequency:** %s\n", q->freq_note);
	describe_userenr(q, buf, sizeof(buf));
	if (buf[0])
		fprintf(f, "- **" USERENR_NAME ":** %s\n", buf);
	if (q->perf_note[0])
		fprintf(f, "- **perf:** %s\n", q->perf_note);
	if (q->rearmed)
		fputs("- **perf:** the module's rearm was written after the "
		      "perf session\n", f);
	fprintf(f, "- **Time taken:** %.1f s\n", (double)(q->ended -
							   q->began) / 1e9);
	verdict_advice(q, CONFIGURED_ROW, buf, sizeof(buf));
	coverage(rep, where, sizeof(where));
	fprintf(f, "\n**%s is %s%s.** Advice: ", row_name(CONFIGURED_ROW),
		configured_level(q), where);
	md_cell(f, buf);
	fputs("\n\n## Verdicts\n\n| counter | verdict | why | notes |\n"
	      "|---|---|---|---|\n", f);
	for (row = 0; row < NROWS; row++) {
		const struct qv_verdict *v = &q->verdict[row];

		if (!q->judged[row])
			continue;
		fprintf(f, "| %s | %s | ", row_name(row),
			qv_level_text(v->level));
		md_cell(f, v->reason[0] ? v->reason : "-");
		fputs(" | ", f);
		md_cell(f, v->notes[0] ? v->notes : "-");
		fputs(" |\n", f);
	}
	fputs("\n## Per CPU\n\nOffsets are against the first CPU, at the "
	      "start; drift is how the offset moved until the end; sleep is "
	      "the share of a 20 ms sleep the counter counted; perf is what "
	      "a cycles event of the probe did to it.\n\n"
	      "| CPU | counter | status | MHz | offset | drift (ppm) | sleep "
	      "| perf |\n|---:|---|---|---:|---:|---:|---:|---|\n", f);
	print_per_cpu(f, q, 1);
}

#endif /* CYCLE_IMPL_ENGINE */
