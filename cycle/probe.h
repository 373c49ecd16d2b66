/* probe.h: what cycle-probe's files share: the rows of the report, one
 * counter's result on one CPU, and the helpers that measure and print.
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the safecycle contributors
 *
 * Included after cycle.h, only where it has its run-time engine.
 */
#ifndef PROBE_H
#define PROBE_H

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.2.0"
#endif

/* Counters of the architecture that this build has no instruction for: a
 * 32-bit ARM build for ARMv6 or older cannot read the ARMv7 counters even
 * when the CPU has them.  Shown as "absent" so the reason is visible. */
#if CYCLE_IMPL_NHW == 0 && defined(__arm__)
#define NABSENT 2
#else
#define NABSENT 0
#endif

#define NROWS (NABSENT + CYCLE_IMPL_NCOUNTERS)
#if defined(CYCLE_IMPL_PERF_INDEX)
#define PERF_ROW (NABSENT + CYCLE_IMPL_PERF_INDEX)
#else
#define PERF_ROW (-1)
#endif
#define CLOCK_ROW (NABSENT + CYCLE_IMPL_CLOCK_INDEX)

/* The row of the counter the build asked for.  An ARMv6 build configured
 * for an ARMv7 counter asked for one it cannot have: that is the answer. */
#if NABSENT && defined(HAVE_ARMV7A_PMCCNTR)
#define CONFIGURED_ROW 0
#elif NABSENT && defined(HAVE_ARMV7A_CNTVCT)
#define CONFIGURED_ROW 1
#else
#define CONFIGURED_ROW (NABSENT + CYCLE_IMPL_CONFIGURED)
#endif

/* Worst last: the aggregate over CPUs is the worst status seen.
 * "unavailable" is the perf tier's: no event could be opened or read.
 * The order is probe-verdict.h's enum qv_status. */
enum status { ST_AVAILABLE, ST_FROZEN, ST_UNAVAILABLE, ST_TRAPS, ST_ABSENT };
extern const char *const status_names[];

struct result {
	enum status status;
	double hz;          /* measured against the clock; <0 unknown */
	double nominal_hz;  /* CNTFRQ and the like; <=0 unknown */
	uint64_t min_step;  /* smallest nonzero step; 0 none seen */
	double ns_per_read; /* <0 unknown */
	long backwards;     /* consecutive reads that went back; <0 unknown */
};

struct options {
	int json;
	int explicit_cpus;
	cpu_set_t cpus;
	cpu_set_t outside;        /* online, outside the affinity mask */
	int qualify;
	const char *report_path;  /* --report FILE; NULL none */
	FILE *report;             /* stdout for --report -, else NULL */
	int report_in_place;      /* a device or a FIFO: no rename */
	char report_file[PATH_MAX]; /* else what the report replaces */
	int vary_frequency;
};

/* An online CPU the probe did not run on, and why: err is 0 for one
 * outside the affinity mask it was started with, else the errno of
 * pinning to it. */
struct skipped {
	int cpu;
	int err;
};

struct qualification; /* probe-qualify.c's */

struct report {
	int ncpus;
	int cpu[CPU_SETSIZE];
	int nskipped;
	struct skipped skipped[CPU_SETSIZE];
	struct result (*res)[NROWS]; /* res[cpu index][row] */
	struct result agg[NROWS];    /* over the CPUs */
	const char *selected;
	double selected_hz;
	struct qualification *q;     /* --qualify's findings, or NULL */
};

/* While measuring, a read that traps (access revoked meanwhile) must be
 * completed by cycle.h's handler and counted, not kill the probe nor make
 * this process switch counters: hence the handler and the probing flag. */
struct guard {
	int had_handler;
	unsigned traps;
};
void guard_begin(struct guard *gd);
int guard_end(const struct guard *gd); /* 1 if a read trapped meanwhile */

/* cycle-probe.c */
const char *arch_name(void);
const char *row_name(int row);
uint64_t clock_ns(void);
uint64_t probe_read_row(int row);           /* under a guard */
int64_t probe_step(int row, uint64_t a, uint64_t b); /* b - a, its width */
int probe_row_is_narrow(int row);
void probe_row(int row, struct result *r);  /* on the CPU it runs on */
int pin_to(int cpu);
void format_cpu_list(const cpu_set_t *set, char *buf, size_t size);
void cpu_words(const cpu_set_t *set, char *buf, size_t size);
void probed_cpus(const struct report *rep, cpu_set_t *set);
void skipped_cpus(const struct report *rep, cpu_set_t *set);
int skipped_group(const struct report *rep, int i, char *list, size_t lsize,
		  char *why, size_t wsize);
long proc_number(const char *path);
int module_loaded(void);
int is_pmu(const char *name);
int advise(const struct report *rep, char *buf, size_t size);
void json_string(const char *s);
void json_number(double x, int known);

/* probe-qualify.c: runs after the direct rows were probed on every CPU
 * and before the perf tier (whose event would grant this process what the
 * machine may not); qualify_perf_row after it.  Return 0, or 1 on no
 * memory. */
int qualify_direct_rows(const struct options *o, struct report *rep);
void qualify_perf_row(struct report *rep);
void qualify_print(const struct report *rep);
void qualify_json(const struct report *rep);
void qualify_write_report(FILE *f, const struct report *rep);
int qualify_configured_fit(const struct report *rep);
void qualify_free(struct report *rep);

#endif
