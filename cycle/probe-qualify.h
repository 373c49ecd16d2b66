/* probe-qualify.h: cycle-probe --qualify, "can I trust this counter for
 * planning here?": what it measures on top of the direct probe, the
 * verdicts, and how they are printed.
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the safecycle contributors
 *
 * Included after probe-lib.h.  Built on probe-lib.c and probe-verdict.c;
 * cycle-probe.c calls it, never the other way round.
 */
#ifndef PROBE_QUALIFY_H
#define PROBE_QUALIFY_H

#include <stdio.h>

struct report; /* probe-lib.h's */

/* The findings of --qualify about one report: opaque, its own memory. */
struct qualification;

/* Runs after the direct rows of rep were probed on every CPU and before
 * the perf tier (whose event would grant this process what the machine
 * may not); rep must outlive the result.  vary_frequency: measure the
 * rates at cpufreq's limits (root).  NULL, said on stderr, on no memory. */
struct qualification *qualify_direct_rows(const struct report *rep,
					  int vary_frequency);
/* The perf tier's row, once probed on every CPU. */
void qualify_perf_row(struct qualification *q);

/* Output: the text after the table, the "qualify" member of the JSON
 * object (rep->advice must be filled in by then), and the Markdown report
 * into f (the caller opens it and checks the writes). */
void qualify_print(const struct qualification *q);
void qualify_json(const struct qualification *q);
void qualify_write_report(FILE *f, const struct qualification *q);

/* 1 when the configured counter (or the perf tier reading it) is fit for
 * planning; 0 also for q NULL. */
int qualify_configured_fit(const struct qualification *q);
void qualify_free(struct qualification *q);

#endif
