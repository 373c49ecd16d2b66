/* probe-verdict.h: cycle-probe --qualify's judgement of one counter.
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the safecycle contributors
 *
 * The judgement is kept apart from the measuring, and from cycle.h, so that
 * the unit tests (tests/cycle/probe-verdict-t.c) can feed it the readings of
 * boards no emulator shows: a skewed board, a core that counts in WFI, a
 * DVFS board.  It only reads numbers and writes words.
 */
#ifndef PROBE_VERDICT_H
#define PROBE_VERDICT_H

/* How far two CPUs may disagree before a migration between two getticks()
 * matters: 1 us is about the cost of a system call, well above the noise
 * of a planner's timings on a core and below the shortest plan worth it. */
#define QV_OFFSET_LIMIT_NS 1000.0
/* Drift between two CPUs' counters (ppm) beyond its uncertainty: 1 ppm
 * takes them 1 us apart per second, the offset limit in a second of
 * planning.  Relative rate difference between CPUs beyond which the units
 * differ by CPU. */
#define QV_DRIFT_LIMIT_PPM 1.0
#define QV_RATE_LIMIT 0.02
/* Ticks counted across a sleep, as a share of those the awake rate
 * predicts: at least QV_SLEEP_COUNTS counts, below QV_SLEEP_STOPS stops. */
#define QV_SLEEP_COUNTS 0.9
#define QV_SLEEP_STOPS 0.5

enum qv_status { QV_AVAILABLE, QV_FROZEN, QV_UNAVAILABLE, QV_TRAPS, QV_ABSENT };

/* What a perf cycles session on the same CPU did to the counter. */
enum qv_perf {
	QV_PERF_UNTESTED,   /* not a PMU counter, or no event could be opened */
	QV_PERF_KEPT,       /* read and advanced during and after the session */
	QV_PERF_BACK,       /* taken during, back by itself after */
	QV_PERF_REARMED,    /* taken, back after the module's rearm */
	QV_PERF_GONE,       /* taken, and still gone after the session */
};

/* One counter on one CPU. */
struct qv_cpu {
	int cpu;
	enum qv_status status;
	double hz;             /* measured rate; <= 0 unknown */
	long backwards;        /* consecutive reads that went back; < 0 unknown */
	int offset_known;      /* offset against the reference CPU measured */
	double offset_ns;      /* counter minus reference CPU's, in ns */
	double offset_unc_ns;  /* +- what the clock reads allow */
	int drift_known;
	double drift_ppm;      /* change of offset_ns per ns, times 1e6 */
	double drift_unc_ppm;
	int sleep_known;
	double sleep_ratio;    /* ticks across a sleep / ticks predicted */
	int sleep_trapped;     /* access lost across the sleep */
	enum qv_perf perf;
	int freq_known;        /* measured at cpufreq's lowest and highest */
	double khz_low, khz_high;
	double hz_low, hz_high;
};

/* One counter on every CPU qualified.  cycles: the counter counts CPU
 * cycles (PMCCNTR, rdcycle) rather than time.  per_task: it counts the
 * thread's own user-mode cycles (a perf event, arm64's perf tier), which
 * perf carries across CPUs: no offsets, drift or per-CPU rates apply. */
struct qv_counter {
	const char *name;
	int cycles;
	int per_task;
	int ncpus;
	const struct qv_cpu *cpus;
};

enum qv_level { QV_FIT, QV_PINNED, QV_NOT_FIT };

struct qv_verdict {
	enum qv_level level;
	char reason[400];      /* why not fit, or why only pinned; "" if fit */
	char notes[768];       /* what to know even when fit; "; " separated */
	int lost_in_sleep;     /* not fit because idle took the access away */
	/* Cross-CPU summary: the pair furthest apart and the spread; the
	 * pair drifting apart fastest, and how fast. */
	int offsets_known;
	int worst_a, worst_b;  /* CPUs */
	double spread_ns, spread_unc_ns;
	int drifts_known;
	int drift_a, drift_b;  /* CPUs */
	double drift_spread_ppm, drift_spread_unc_ppm;
};

/* Judges c into v. */
void qv_judge(const struct qv_counter *c, struct qv_verdict *v);

/* "fit for planning", "fit only pinned to one CPU", "not fit". */
const char *qv_level_text(enum qv_level level);
const char *qv_status_text(enum qv_status status);
const char *qv_perf_text(enum qv_perf perf);

/* Appends CPU first, or the range first-last, to the comma-separated list of
 * *len characters in buf.  A list too long for buf ends in "...", never in a
 * cut number that names another CPU; then *len becomes size, and later calls
 * append nothing. */
void qv_append_cpus(char *buf, unsigned long size, unsigned long *len,
		    int first, int last);

/* A duration in ns in the unit that reads best ("850 ns", "2.1 ms"). */
void qv_format_ns(double ns, char *buf, unsigned long size);

#endif
