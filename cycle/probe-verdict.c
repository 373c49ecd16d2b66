/* probe-verdict.c: cycle-probe --qualify's judgement of one counter.
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the safecycle contributors
 *
 * Three levels, worst first:
 *   not fit      the counter cannot be read everywhere, goes backwards, or
 *                loses its access across a sleep: cycle.h would switch to
 *                another counter in the middle of planning;
 *   fit only pinned to one CPU
 *                each CPU's counter is sound but they disagree (offsets,
 *                drift, rates, counting in sleep): a thread migrating
 *                between two getticks() measures the disagreement;
 *   fit for planning.
 * Notes say what holds even for a fit counter: it stops in sleep, it counts
 * cycles and follows the frequency, perf takes it away.  A counter of the
 * thread rather than of the CPU (a perf event) has no cross-CPU questions:
 * only the first level applies to it.
 */
#include "probe-verdict.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *qv_level_text(enum qv_level level)
{
	switch (level) {
	case QV_FIT:
		return "fit for planning";
	case QV_PINNED:
		return "fit only pinned to one CPU";
	default:
		return "not fit";
	}
}

const char *qv_status_text(enum qv_status status)
{
	static const char *const names[] = {
		"available", "frozen", "unavailable", "traps", "absent"
	};

	return (unsigned)status < 5 ? names[status] : "?";
}

const char *qv_perf_text(enum qv_perf perf)
{
	switch (perf) {
	case QV_PERF_KEPT:
		return "kept";
	case QV_PERF_BACK:
		return "taken, back after";
	case QV_PERF_REARMED:
		return "taken, back on rearm";
	case QV_PERF_GONE:
		return "taken, stays away";
	default:
		return "-";
	}
}

void qv_format_ns(double ns, char *buf, unsigned long size)
{
	double a = ns < 0 ? -ns : ns;

	if (a < 0.5)
		snprintf(buf, size, "0 ns"); /* not "-0 ns" */
	else if (a < 1e3)
		snprintf(buf, size, "%.0f ns", ns);
	else if (a < 1e6)
		snprintf(buf, size, "%.1f us", ns / 1e3);
	else if (a < 1e9)
		snprintf(buf, size, "%.1f ms", ns / 1e6);
	else
		snprintf(buf, size, "%.1f s", ns / 1e9);
}

/* Appends a printf-formatted piece to buf, "; "-separated. */
static void add(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n && n + 2 < size) {
		strcpy(buf + n, "; ");
		n += 2;
	}
	if (n >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

void qv_append_cpus(char *buf, unsigned long size, unsigned long *len,
		    int first, int last)
{
	char item[32];
	unsigned long m;

	if (*len >= size)
		return;
	if (last > first)
		m = (unsigned long)snprintf(item, sizeof(item), "%s%d-%d",
					    *len ? "," : "", first, last);
	else
		m = (unsigned long)snprintf(item, sizeof(item), "%s%d",
					    *len ? "," : "", first);
	/* Room is kept for a "..." after every item but the last that fits. */
	if (*len + m + sizeof("...") <= size) {
		memcpy(buf + *len, item, m + 1);
		*len += m;
		return;
	}
	if (*len + sizeof("...") <= size)
		memcpy(buf + *len, "...", sizeof("..."));
	*len = size;
}

/* The CPUs of c for which pick() holds, as "1,3" or "0-3", into buf; the
 * number of them. */
static int cpus_where(const struct qv_counter *c,
		      int (*pick)(const struct qv_cpu *, const void *),
		      const void *arg, char *buf, size_t size)
{
	unsigned long n = 0;
	int k = 0, count = 0;

	buf[0] = '\0';
	while (k < c->ncpus) {
		int first, last;

		if (!pick(&c->cpus[k], arg)) {
			k++;
			continue;
		}
		first = last = c->cpus[k].cpu;
		count++;
		while (k + 1 < c->ncpus && pick(&c->cpus[k + 1], arg) &&
		       c->cpus[k + 1].cpu == last + 1) {
			last = c->cpus[++k].cpu;
			count++;
		}
		k++;
		qv_append_cpus(buf, size, &n, first, last);
	}
	return count;
}

static int with_status(const struct qv_cpu *p, const void *arg)
{
	return p->status == *(const enum qv_status *)arg;
}

static int went_back(const struct qv_cpu *p, const void *arg)
{
	(void)arg;
	return p->backwards > 0;
}

static int lost_in_sleep(const struct qv_cpu *p, const void *arg)
{
	(void)arg;
	return p->sleep_trapped;
}

static int counts_in_sleep(const struct qv_cpu *p, const void *arg)
{
	(void)arg;
	return p->sleep_known && !p->sleep_trapped &&
	       p->sleep_ratio >= QV_SLEEP_COUNTS;
}

static int stops_in_sleep(const struct qv_cpu *p, const void *arg)
{
	(void)arg;
	return p->sleep_known && !p->sleep_trapped &&
	       p->sleep_ratio < QV_SLEEP_STOPS;
}

static int perf_is(const struct qv_cpu *p, const void *arg)
{
	return p->perf == *(const enum qv_perf *)arg;
}

/* Not fit: a CPU where it does not read, reads that go back, access lost
 * across a sleep.  Returns 1 when it judged. */
static int judge_unusable(const struct qv_counter *c, struct qv_verdict *v)
{
	static const enum qv_status bad[] = {
		QV_ABSENT, QV_TRAPS, QV_UNAVAILABLE, QV_FROZEN
	};
	char list[160];
	unsigned i;
	int n;

	/* Every way it fails to read, worst first: "traps on CPUs 0,2-7;
	 * frozen on CPU 1". */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = cpus_where(c, with_status, &bad[i], list, sizeof(list));
		if (n == 0)
			continue;
		v->level = QV_NOT_FIT;
		add(v->reason, sizeof(v->reason), "%s on CPU%s %s",
		    qv_status_text(bad[i]), n > 1 ? "s" : "", list);
	}
	if (v->level == QV_NOT_FIT)
		return 1;
	n = cpus_where(c, went_back, NULL, list, sizeof(list));
	if (n) {
		v->level = QV_NOT_FIT;
		snprintf(v->reason, sizeof(v->reason),
			 "consecutive reads went backwards on CPU%s %s",
			 n > 1 ? "s" : "", list);
		return 1;
	}
	n = cpus_where(c, lost_in_sleep, NULL, list, sizeof(list));
	if (n) {
		v->level = QV_NOT_FIT;
		v->lost_in_sleep = 1;
		snprintf(v->reason, sizeof(v->reason),
			 "user access is lost across a sleep on CPU%s %s "
			 "(the idle state resets the PMU)", n > 1 ? "s" : "",
			 list);
		return 1;
	}
	return 0;
}

/* A number measured, not NaN (no libm needed). */
static int is_number(double x)
{
	return x == x;
}

/* The pair of CPUs drifting apart most surely: the largest difference of
 * drifts (each against the first CPU) beyond the sum of their
 * uncertainties, so that a wide but unsure drift does not hide a sure one.
 * Quadratic in the CPUs, which is nothing beside the measuring. */
static void worst_drift_pair(const struct qv_counter *c, int *a, int *b)
{
	double best = 0.0;
	int i, j;

	*a = *b = -1;
	for (i = 0; i < c->ncpus; i++) {
		const struct qv_cpu *p = &c->cpus[i];

		if (!p->drift_known || !is_number(p->drift_ppm))
			continue;
		for (j = 0; j < c->ncpus; j++) {
			const struct qv_cpu *r = &c->cpus[j];
			double sure;

			if (j == i || !r->drift_known ||
			    !is_number(r->drift_ppm) ||
			    r->drift_ppm < p->drift_ppm)
				continue;
			sure = r->drift_ppm - p->drift_ppm -
			       (r->drift_unc_ppm + p->drift_unc_ppm);
			if (*a < 0 || sure > best) {
				best = sure;
				*a = i;
				*b = j;
			}
		}
	}
}

/* The pair of CPUs furthest apart, and the pair drifting apart. */
static void cross_cpu(const struct qv_counter *c, struct qv_verdict *v)
{
	int k, lo = -1, hi = -1, dlo, dhi;

	worst_drift_pair(c, &dlo, &dhi);
	for (k = 0; k < c->ncpus; k++) {
		const struct qv_cpu *p = &c->cpus[k];

		if (!p->offset_known || !is_number(p->offset_ns))
			continue;
		if (lo < 0 || p->offset_ns < c->cpus[lo].offset_ns)
			lo = k;
		if (hi < 0 || p->offset_ns > c->cpus[hi].offset_ns)
			hi = k;
	}
	if (dlo >= 0) {
		v->drifts_known = 1;
		v->drift_a = c->cpus[dlo].cpu;
		v->drift_b = c->cpus[dhi].cpu;
		v->drift_spread_ppm = c->cpus[dhi].drift_ppm -
				      c->cpus[dlo].drift_ppm;
		v->drift_spread_unc_ppm = c->cpus[dhi].drift_unc_ppm +
					  c->cpus[dlo].drift_unc_ppm;
	}
	if (lo < 0)
		return;
	if (lo == hi)
		for (k = 0; k < c->ncpus; k++)
			if (k != lo && c->cpus[k].offset_known)
				hi = k;
	if (lo == hi)
		return;
	v->offsets_known = 1;
	v->worst_a = c->cpus[lo].cpu;
	v->worst_b = c->cpus[hi].cpu;
	v->spread_ns = c->cpus[hi].offset_ns - c->cpus[lo].offset_ns;
	v->spread_unc_ns = c->cpus[hi].offset_unc_ns +
			   c->cpus[lo].offset_unc_ns;
}

/* Fit only pinned: the CPUs disagree, or may and the measurement cannot
 * rule it out.  Returns 1 when it judged. */
static int judge_disagreement(const struct qv_counter *c, struct qv_verdict *v)
{
	double lo_hz = 0.0, hi_hz = 0.0;
	int k, lo = -1, hi = -1, nin, nout;
	char a[32], b[32], in[160], out[160];

	for (k = 0; k < c->ncpus; k++) {
		if (!(c->cpus[k].hz > 0.0)) /* NaN too */
			continue;
		if (lo < 0 || c->cpus[k].hz < lo_hz)
			lo = k, lo_hz = c->cpus[k].hz;
		if (hi < 0 || c->cpus[k].hz > hi_hz)
			hi = k, hi_hz = c->cpus[k].hz;
	}
	if (lo >= 0 && hi_hz > lo_hz * (1.0 + QV_RATE_LIMIT)) {
		v->level = QV_PINNED;
		snprintf(v->reason, sizeof(v->reason),
			 "its rate differs between CPUs: %.1f MHz on CPU %d, "
			 "%.1f MHz on CPU %d", lo_hz / 1e6, c->cpus[lo].cpu,
			 hi_hz / 1e6, c->cpus[hi].cpu);
		return 1;
	}
	if (v->offsets_known &&
	    v->spread_ns - v->spread_unc_ns > QV_OFFSET_LIMIT_NS) {
		qv_format_ns(v->spread_ns, a, sizeof(a));
		v->level = QV_PINNED;
		snprintf(v->reason, sizeof(v->reason),
			 "CPUs %d and %d disagree by %s", v->worst_a,
			 v->worst_b, a);
		return 1;
	}
	/* Over the limit, but within what the clock reads resolve: it may
	 * be either, and "fit" would claim what nothing measured. */
	if (v->offsets_known && v->spread_ns > QV_OFFSET_LIMIT_NS) {
		qv_format_ns(v->spread_ns, a, sizeof(a));
		qv_format_ns(v->spread_unc_ns, b, sizeof(b));
		v->level = QV_PINNED;
		snprintf(v->reason, sizeof(v->reason),
			 "CPUs %d and %d may disagree by %s (+-%s: the clock "
			 "reads here cannot tell)", v->worst_a, v->worst_b, a,
			 b);
		return 1;
	}
	if (v->drifts_known && v->drift_spread_ppm - v->drift_spread_unc_ppm >
	    QV_DRIFT_LIMIT_PPM) {
		v->level = QV_PINNED;
		snprintf(v->reason, sizeof(v->reason),
			 "CPUs %d and %d drift apart by %.1f ppm", v->drift_a,
			 v->drift_b, v->drift_spread_ppm);
		return 1;
	}
	nin = cpus_where(c, counts_in_sleep, NULL, in, sizeof(in));
	nout = cpus_where(c, stops_in_sleep, NULL, out, sizeof(out));
	if (nin && nout) {
		v->level = QV_PINNED;
		snprintf(v->reason, sizeof(v->reason),
			 "it counts while asleep on CPU%s %s but stops on "
			 "CPU%s %s", nin > 1 ? "s" : "", in, nout > 1 ? "s" : "",
			 out);
		return 1;
	}
	return 0;
}

/* What a perf cycles session did to it, where it did something. */
static void add_perf_notes(const struct qv_counter *c, struct qv_verdict *v)
{
	static const struct {
		enum qv_perf perf;
		const char *then;
	} effects[] = {
		{QV_PERF_GONE, "and it stays away: cycle.h then falls back to "
			       "the next counter"},
		{QV_PERF_REARMED, "until the module's rearm"},
		{QV_PERF_BACK, "while it runs"},
	};
	char list[160];
	size_t i;
	int n;

	for (i = 0; i < sizeof(effects) / sizeof(effects[0]); i++) {
		n = cpus_where(c, perf_is, &effects[i].perf, list,
			       sizeof(list));
		if (n)
			add(v->notes, sizeof(v->notes), "a perf cycles session "
			    "takes it away on CPU%s %s %s", n > 1 ? "s" : "",
			    list, effects[i].then);
	}
}

/* What holds even for a fit counter. */
static void add_notes(const struct qv_counter *c, struct qv_verdict *v)
{
	const size_t sz = sizeof(v->notes);
	char a[32];
	double low = 0.0, high = 0.0, klow = 0.0, khigh = 0.0;
	int k, nfreq = 0, nsleep = 0;
	double ratio = 1.0;

	if (c->ncpus < 2)
		add(v->notes, sz, "one CPU qualified: cross-CPU agreement "
		    "not measured");
	else if (v->offsets_known && v->level == QV_FIT &&
		 v->spread_unc_ns > QV_OFFSET_LIMIT_NS) {
		qv_format_ns(v->spread_unc_ns, a, sizeof(a));
		add(v->notes, sz, "CPUs agree only within %s, the resolution "
		    "of the clock here (an emulator?)", a);
	}
	for (k = 0; k < c->ncpus; k++) {
		const struct qv_cpu *q = &c->cpus[k];

		if (q->sleep_known && !q->sleep_trapped) {
			if (!nsleep || q->sleep_ratio < ratio)
				ratio = q->sleep_ratio;
			nsleep++;
		}
		if (q->freq_known && q->hz_low > 0 && q->hz_high > 0) {
			if (!nfreq || q->hz_low < low)
				low = q->hz_low, klow = q->khz_low;
			if (!nfreq || q->hz_high > high)
				high = q->hz_high, khigh = q->khz_high;
			nfreq++;
		}
	}
	if (nsleep && v->level != QV_PINNED && ratio < QV_SLEEP_STOPS)
		add(v->notes, sz, "it stops while the CPU sleeps (%.0f%% of "
		    "a sleep counted): an interval with a blocking wait is "
		    "under-counted", ratio * 100.0);
	else if (nsleep && v->level != QV_PINNED && ratio < QV_SLEEP_COUNTS)
		add(v->notes, sz, "it slows while the CPU sleeps (%.0f%% of "
		    "a sleep counted)", ratio * 100.0);
	if (nfreq && high > low * (1.0 + QV_RATE_LIMIT)) {
		if (c->cycles)
			add(v->notes, sz, "it counts cycles: %.0f MHz at %.0f "
			    "MHz, %.0f MHz at %.0f MHz, so ticks are not time "
			    "(cycle_ticks_per_second() is the rate when first "
			    "asked)", low / 1e6, klow / 1e3, high / 1e6,
			    khigh / 1e3);
		else
			add(v->notes, sz, "its rate follows the CPU frequency "
			    "(%.0f MHz at %.0f MHz, %.0f MHz at %.0f MHz): "
			    "ticks are not a fixed unit of time", low / 1e6,
			    klow / 1e3, high / 1e6, khigh / 1e3);
	} else if (nfreq) {
		add(v->notes, sz, "its rate does not follow the CPU frequency "
		    "(%.0f to %.0f MHz)", klow / 1e3, khigh / 1e3);
	}
	add_perf_notes(c, v);
}

void qv_judge(const struct qv_counter *c, struct qv_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->level = QV_FIT;
	if (c->ncpus == 0) {
		v->level = QV_NOT_FIT;
		snprintf(v->reason, sizeof(v->reason), "no CPU qualified");
		return;
	}
	if (c->per_task) {
		if (!judge_unusable(c, v)) {
			add(v->notes, sizeof(v->notes), "it counts this "
			    "thread's own cycles in user mode (a perf event): "
			    "perf carries the count when the thread moves to "
			    "another CPU, and it stands still while the thread "
			    "sleeps or runs in the kernel");
			add_perf_notes(c, v);
		}
		return;
	}
	cross_cpu(c, v);
	if (!judge_unusable(c, v))
		judge_disagreement(c, v);
	add_notes(c, v);
}
