/* probe-lib.h: cycle-probe's primitives: measuring one counter on the CPU
 * the probe runs on, under cycle.h's guard; pinning; CPU lists; the /proc
 * and sysfs files it reads; JSON; and the findings they fill in.
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the safecycle contributors
 *
 * Included after cycle.h.  The layers, each calling only those below it:
 *   probe-verdict.c  judges numbers; knows nothing else
 *   probe-lib.c      these primitives; the only file of the tool that
 *                    reaches into cycle.h's internals (cycle_impl_*)
 *   probe-qualify.c  --qualify's measurements and its report
 *   cycle-probe.c    main: options, the table, the JSON
 */
#ifndef PROBE_LIB_H
#define PROBE_LIB_H

/* The version where no config.h says it (the matrix and the VM builds
 * compile the sources directly); also without the engine, for --version. */
#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.2.0"
#endif

#ifdef CYCLE_IMPL_ENGINE

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

/* Counters of the architecture that this build has no instruction for: a
 * 32-bit ARM build for ARMv6 or older cannot read the ARMv7 counters even
 * when the CPU has them.  Shown as "absent" so the reason is visible. */
#if CYCLE_IMPL_NHW == 0 && defined(__arm__)
#define NABSENT 2
#else
#define NABSENT 0
#endif

#define NROWS (NABSENT + CYCLE_IMPL_NCOUNTERS)
/* PROBE_PERF_TIER: arm64's PMCCNTR_EL0 read through a perf event, a row
 * of its own, probed last (see cycle-probe.c's probe_cpus). */
#if defined(CYCLE_IMPL_PERF_INDEX)
#define PROBE_PERF_TIER 1
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

#define PERF_USER_ACCESS "/proc/sys/kernel/perf_user_access"
#define PERF_PARANOID "/proc/sys/kernel/perf_event_paranoid"

#if defined(__aarch64__)
#define USERENR_NAME "PMUSERENR_EL0"
#else
#define USERENR_NAME "PMUSERENR"
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

/* An online CPU the probe did not run on, and why: err is 0 for one
 * outside the affinity mask it was started with, SKIP_NOT_ASKED for one
 * that --cpu left out, else the errno of pinning to it. */
#define SKIP_NOT_ASKED (-1)
struct skipped {
	int cpu;
	int err;
};

/* What the direct probe found, filled in by cycle-probe.c and read by
 * probe-qualify.c, which keeps its own findings apart. */
struct report {
	int ncpus;
	int cpu[CPU_SETSIZE];
	int nskipped;
	struct skipped skipped[CPU_SETSIZE];
	struct result (*res)[NROWS]; /* res[cpu index][row] */
	struct result agg[NROWS];    /* over the CPUs */
	const char *selected;
	double selected_hz;
	int configured_usable;       /* on every probed CPU */
	char advice[1024];           /* what to do about the configured one */
};

/* --- Rows and the machine ------------------------------------------- */

const char *arch_name(void);
const char *row_name(int row);
int is_pmu(const char *name);   /* a counter name: the PMU's cycle counter */
int module_loaded(void);        /* cycle_enable */

/* What getticks() selects in an ordinary process, and its rate; asked
 * before the probe pins itself. */
void selected_counter(const char **name, double *hz);

#if defined(PROBE_PERF_TIER)
/* The perf tier's state in cycle.h's words, and the errno of its failed
 * open or mmap (-1 when it did not fail so). */
const char *perf_tier_state(int *err);
/* Why the tier is (not) available, in words, into buf. */
void perf_tier_why(char *buf, size_t size);
#endif

/* PMUSERENR on cpu (pinning to it), -1 where there is no such register or
 * reading it trapped; and what a value means for the cycle counter. */
long read_userenr_on(int cpu);
const char *userenr_meaning(long v);

/* --- Measuring on the CPU the probe runs on -------------------------- */

/* While measuring, a read that traps (access revoked meanwhile) must be
 * completed by cycle.h's handler and counted, not kill the probe nor make
 * this process switch counters: hence the handler and the probing flag. */
struct guard {
	int had_handler;
	unsigned traps;
};
void guard_begin(struct guard *gd);
int guard_end(const struct guard *gd); /* 1 if a read trapped meanwhile */

uint64_t clock_ns(void);
uint64_t probe_read_row(int row);           /* under a guard */
int64_t probe_step(int row, uint64_t a, uint64_t b); /* b - a, its width */
int probe_row_is_narrow(int row);
void probe_row(int row, struct result *r);  /* on the CPU it runs on */
int pin_to(int cpu);
/* Over the CPUs: the worst status, the mean rate and cost (rep->agg). */
void aggregate(struct report *rep);

/* --- CPU lists: "0", "0-2", "1,3" ------------------------------------ */

int parse_cpu_list(const char *s, cpu_set_t *set, unsigned long *beyond);
void format_cpu_list(const cpu_set_t *set, char *buf, size_t size);
void cpu_words(const cpu_set_t *set, char *buf, size_t size);
void online_cpus(cpu_set_t *set);
void allowed_cpus(const cpu_set_t *online, cpu_set_t *set);
int cpu_exists(int cpu);
void probed_cpus(const struct report *rep, cpu_set_t *set);
void skipped_cpus(const struct report *rep, cpu_set_t *set);
void skipped_why(int err, char *buf, size_t size);
int skipped_group(const struct report *rep, int i, char *list, size_t lsize,
		  char *why, size_t wsize);

/* --- Files and JSON -------------------------------------------------- */

long proc_number(const char *path);
void read_line(const char *path, char *buf, size_t size);
void json_string(const char *s);
void json_number(double x, int known);

#endif /* CYCLE_IMPL_ENGINE */
#endif
