/* probe-verdict-t: cycle-probe --qualify's verdict on boards no emulator
 * shows.
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the safecycle contributors
 *
 * Each board is written down as the readings cycle-probe --qualify would
 * take there (rate, offsets against the first CPU, drift, the share of a
 * sleep counted, what a perf session did, the rates at cpufreq's lowest
 * and highest frequency).  The ones marked "recorded" were taken by
 * cycle-probe --qualify --json (this machine, the arm64 VM, qemu-user); the
 * others are built from the behaviour their comment cites, which no
 * emulator reproduces: skewed clusters, a core that counts in WFI, DVFS.
 */
#include "probe-verdict.h"

#include "tap/basic.h"

#include <stdio.h>
#include <string.h>

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* A CPU where everything is sound: the counter reads at hz, agrees with
 * the first CPU to within unc_ns, counts all of a sleep. */
static struct qv_cpu sound(int cpu, double hz, double offset_ns, double unc_ns)
{
	struct qv_cpu p;

	memset(&p, 0, sizeof(p));
	p.cpu = cpu;
	p.status = QV_AVAILABLE;
	p.hz = hz;
	p.backwards = 0;
	p.offset_known = 1;
	p.offset_ns = offset_ns;
	p.offset_unc_ns = unc_ns;
	p.drift_known = 1;
	p.drift_ppm = 0.0;
	p.drift_unc_ppm = 0.2;
	p.sleep_known = 1;
	p.sleep_ratio = 1.0;
	p.perf = QV_PERF_UNTESTED;
	return p;
}

static struct qv_verdict judge_as(const char *name, int cycles, int per_task,
				  const struct qv_cpu *cpus, int n)
{
	struct qv_counter c;
	struct qv_verdict v;

	c.name = name;
	c.cycles = cycles;
	c.per_task = per_task;
	c.ncpus = n;
	c.cpus = cpus;
	qv_judge(&c, &v);
	tap_diag("%s: %s%s%s%s%s", name, qv_level_text(v.level),
		 v.reason[0] ? ": " : "", v.reason, v.notes[0] ? " -- " : "",
		 v.notes);
	return v;
}

static struct qv_verdict judge(const char *name, int cycles,
			       const struct qv_cpu *cpus, int n)
{
	return judge_as(name, cycles, 0, cpus, n);
}

static int has(const char *text, const char *part)
{
	return strstr(text, part) != NULL;
}

int main(void)
{
	static struct qv_cpu big[256];
	struct qv_cpu b[8];
	struct qv_verdict v;
	unsigned long len;
	char buf[32], expect[sizeof(v.reason)], *cut;
	int k;

	tap_plan(43);

	/* Recorded: this x86-64 machine (2 vCPUs), rdtsc.  Offsets and
	 * drift within the clock's resolution. */
	b[0] = sound(0, 2095995000.0, 0, 10);
	b[1] = sound(1, 2095992000.0, -5, 24);
	v = judge("rdtsc", 0, b, 2);
	tap_ok(v.level == QV_FIT && !v.reason[0] && !v.notes[0],
	       "recorded x86-64 rdtsc: fit for planning, nothing to note");
	tap_ok(v.offsets_known && v.worst_a == 1 && v.worst_b == 0 &&
	       v.spread_ns == 5, "the worst pair is CPUs 1 and 0, 5 ns apart");

	/* Recorded: qemu-user aarch64, PMCCNTR_EL0 traps on both CPUs. */
	memset(b, 0, sizeof(b));
	b[0].cpu = 0, b[0].status = QV_TRAPS, b[0].backwards = -1;
	b[1].cpu = 1, b[1].status = QV_TRAPS, b[1].backwards = -1;
	v = judge("PMCCNTR_EL0", 1, b, 2);
	tap_ok(v.level == QV_NOT_FIT && has(v.reason, "traps on CPUs 0-1"),
	       "qemu-user PMCCNTR_EL0: not fit, traps on CPUs 0-1");

	/* Recorded: the arm64 VM (qemu-system, Cortex-A57, 8 CPUs, Debian's
	 * 6.1 kernel) with cycle_enable loaded: each CPU's PMCCNTR_EL0 was
	 * reset at its own bring-up. */
	{
		static const double off_us[8] = {
			0, -446.5, -617.7, -897.6, -2600, -2800, -3300, -3600
		};

		for (k = 0; k < 8; k++) {
			b[k] = sound(k, 1000.03e6, off_us[k] * 1e3, 200.0);
			b[k].perf = QV_PERF_REARMED;
		}
	}
	v = judge("PMCCNTR_EL0", 1, b, 8);
	tap_ok(v.level == QV_PINNED && has(v.reason, "CPUs 7 and 0 disagree by 3.6 ms") &&
	       has(v.notes, "on CPUs 0-7 until the module's rearm"),
	       "recorded arm64 VM, module: pinned, CPUs 7 and 0 3.6 ms apart; perf noted");
	/* Recorded: the same VM, kernel.perf_user_access=1: the perf tier
	 * counts the thread's user cycles only, so its pace differs by CPU
	 * (kernel time under emulation) and a sleep counts nothing. */
	{
		static const double mhz[8] = {
			897.8, 925.0, 943.9, 959.0, 938.7, 943.2, 923.1, 920.4
		};

		for (k = 0; k < 8; k++) {
			b[k] = sound(k, mhz[k] * 1e6, 0.0, 0.0);
			b[k].offset_known = b[k].drift_known = 0;
			b[k].sleep_ratio = 0.0;
		}
	}
	v = judge_as("PMCCNTR_EL0_perf", 1, 1, b, 8);
	tap_ok(v.level == QV_FIT && has(v.notes, "thread's own cycles") &&
	       !has(v.notes, "stops while"),
	       "recorded perf tier: fit, a counter of the thread, not of the CPU");
	b[6].perf = QV_PERF_GONE;
	v = judge_as("PMCCNTR_EL0_perf", 1, 1, b, 8);
	tap_ok(v.level == QV_FIT && has(v.notes, "on CPU 6 and it stays away"),
	       "perf tier lost to a perf session on CPU 6: fit, noted");
	b[6].perf = QV_PERF_KEPT;
	b[5].status = QV_UNAVAILABLE;
	v = judge_as("PMCCNTR_EL0_perf", 1, 1, b, 8);
	tap_ok(v.level == QV_NOT_FIT && has(v.reason, "unavailable on CPU 5"),
	       "perf tier unavailable on CPU 5: not fit");
	/* The same rates on a counter of the CPU: units differ by CPU. */
	b[5].status = QV_AVAILABLE;
	v = judge("PMCCNTR_EL0", 1, b, 8);
	tap_ok(v.level == QV_PINNED && has(v.reason, "rate differs"),
	       "the same rates on a counter of the CPU: pinned");

	/* A skewed board: two clusters whose generic timers disagree by
	 * 3.2 us (clusters brought up from different resets). */
	for (k = 0; k < 8; k++)
		b[k] = sound(k, 24e6, k < 4 ? 0.0 : 3200.0, 80.0);
	v = judge("CNTVCT_EL0", 0, b, 8);
	tap_ok(v.level == QV_PINNED && has(v.reason, "CPUs 0 and 4") &&
	       has(v.reason, "3.2 us"),
	       "skewed clusters (3.2 us): fit only pinned, CPUs 0 and 4");
	/* The same spread within the measurement's uncertainty: it may be
	 * over the limit, so not "fit". */
	for (k = 0; k < 8; k++)
		b[k] = sound(k, 24e6, k < 4 ? 0.0 : 3200.0, 1500.0);
	v = judge("CNTVCT_EL0", 0, b, 8);
	tap_ok(v.level == QV_PINNED && has(v.reason, "may disagree by 3.2 us"),
	       "the same spread inside +-1.5 us: pinned, it may disagree");
	/* A small spread, coarsely measured: fit, with the resolution. */
	for (k = 0; k < 8; k++)
		b[k] = sound(k, 24e6, k < 4 ? 0.0 : 500.0, 1500.0);
	v = judge("CNTVCT_EL0", 0, b, 8);
	tap_ok(v.level == QV_FIT && has(v.notes, "agree only within 3.0 us"),
	       "500 ns +- 3 us: fit, the resolution noted");
	/* Just under the limit. */
	for (k = 0; k < 8; k++)
		b[k] = sound(k, 24e6, k == 7 ? 900.0 : 0.0, 30.0);
	v = judge("CNTVCT_EL0", 0, b, 8);
	tap_ok(v.level == QV_FIT, "900 ns +- 60 ns apart: fit for planning");

	/* Per-CPU PMU counters, reset at each CPU's bring-up: seconds. */
	for (k = 0; k < 4; k++)
		b[k] = sound(k, 1.8e9, k * 0.35e9, 200.0);
	v = judge("PMCCNTR_EL0", 1, b, 4);
	tap_ok(v.level == QV_PINNED && has(v.reason, "CPUs 0 and 3") &&
	       has(v.reason, "1.1 s"),
	       "PMU counters reset per CPU: pinned, CPUs 0 and 3 1.1 s apart");

	/* Drift: a timer that runs 50 ppm fast on one CPU. */
	for (k = 0; k < 4; k++)
		b[k] = sound(k, 24e6, 0.0, 50.0);
	b[2].drift_ppm = 50.0;
	b[2].drift_unc_ppm = 0.5;
	v = judge("CNTVCT_EL0", 0, b, 4);
	tap_ok(v.level == QV_PINNED && has(v.reason, "CPUs 0 and 2 drift apart by 50.0 ppm"),
	       "a CPU drifting 50 ppm: pinned");
	b[2].drift_ppm = 0.6;
	v = judge("CNTVCT_EL0", 0, b, 4);
	tap_ok(v.level == QV_FIT, "0.6 +- 0.7 ppm of drift: fit for planning");
	/* Opposite signs: each under the limit against CPU 0, twice it
	 * against each other. */
	b[1].drift_ppm = 0.8, b[1].drift_unc_ppm = 0.1;
	b[2].drift_ppm = -0.8, b[2].drift_unc_ppm = 0.1;
	v = judge("CNTVCT_EL0", 0, b, 4);
	tap_ok(v.level == QV_PINNED && has(v.reason, "CPUs 2 and 1 drift apart by 1.6 ppm"),
	       "+0.8 and -0.8 ppm: the pair is 1.6 ppm apart, pinned");
	/* A large drift that is not significant, in either CPU order. */
	b[1].drift_ppm = 0.5, b[1].drift_unc_ppm = 0.0;
	b[2].drift_ppm = 100.0, b[2].drift_unc_ppm = 99.5;
	v = judge("CNTVCT_EL0", 0, b, 4);
	tap_ok(v.level == QV_FIT, "100 +- 99.5 ppm beside 0.5 ppm: not significant, fit");
	b[1] = b[2], b[1].cpu = 1;
	b[2].drift_ppm = 0.5, b[2].drift_unc_ppm = 0.0, b[2].cpu = 2;
	v = judge("CNTVCT_EL0", 0, b, 4);
	tap_ok(v.level == QV_FIT, "the same in the other order: fit");
	/* A sure drift beside a wide unsure one: the sure pair is named. */
	b[2].drift_ppm = 9.0;
	v = judge("CNTVCT_EL0", 0, b, 4);
	tap_ok(v.level == QV_PINNED && has(v.reason, "CPUs 0 and 2 drift apart by 9.0 ppm"),
	       "9 +- 0 ppm beside 100 +- 99.5 ppm: pinned, CPUs 0 and 2 named");

	/* big.LITTLE at the current frequencies: PMCCNTR at 1.4 GHz on the
	 * A53s and 1.8 GHz on the A72s (RK3399-like), offsets aside. */
	for (k = 0; k < 6; k++)
		b[k] = sound(k, k < 4 ? 1.416e9 : 1.8e9, 0.0, 100.0);
	v = judge("PMCCNTR_EL0", 1, b, 6);
	tap_ok(v.level == QV_PINNED && has(v.reason, "rate differs") &&
	       has(v.reason, "1416.0 MHz on CPU 0") &&
	       has(v.reason, "1800.0 MHz on CPU 4"),
	       "big.LITTLE cycle counters: pinned, the rates named");

	/* A core that counts in WFI (NVIDIA Olympus counts PMCCNTR_EL0 in
	 * WFI/WFE) against one that stops (most cores). */
	for (k = 0; k < 4; k++)
		b[k] = sound(k, 3.0e9, 0.0, 40.0);
	v = judge("PMCCNTR_EL0", 1, b, 4);
	tap_ok(v.level == QV_FIT && !has(v.notes, "sleep"),
	       "counting in WFI everywhere: fit, nothing about sleep");
	for (k = 0; k < 4; k++)
		b[k].sleep_ratio = 0.015;
	v = judge("PMCCNTR_EL0", 1, b, 4);
	tap_ok(v.level == QV_FIT && has(v.notes, "stops while the CPU sleeps") &&
	       has(v.notes, "2% of a sleep"),
	       "stopping in WFI everywhere: fit, noted as under-counting waits");
	b[3].sleep_ratio = 0.7;
	v = judge("PMCCNTR_EL0", 1, b, 4);
	tap_ok(v.level == QV_FIT && has(v.notes, "stops"),
	       "the least share decides the note");
	for (k = 0; k < 4; k++)
		b[k].sleep_ratio = k < 2 ? 1.0 : 0.02;
	v = judge("PMCCNTR_EL0", 1, b, 4);
	tap_ok(v.level == QV_PINNED && has(v.reason, "asleep on CPUs 0-1") &&
	       has(v.reason, "stops on CPUs 2-3"),
	       "counting in WFI on some cores only: pinned");
	for (k = 0; k < 4; k++)
		b[k].sleep_ratio = k < 2 ? 0.8 : 0.6;
	v = judge("PMCCNTR_EL0", 1, b, 4);
	tap_ok(v.level == QV_FIT && has(v.notes, "slows while the CPU sleeps"),
	       "between the thresholds: fit, slows in sleep");

	/* A DVFS board: PMCCNTR follows the clock from 408 MHz to 1.8 GHz,
	 * CNTVCT stays at 24 MHz. */
	for (k = 0; k < 2; k++) {
		b[k] = sound(k, 1.2e9, 0.0, 100.0);
		b[k].freq_known = 1;
		b[k].khz_low = 408000;
		b[k].khz_high = 1800000;
		b[k].hz_low = 408e6;
		b[k].hz_high = 1800e6;
	}
	v = judge("PMCCNTR_EL0", 1, b, 2);
	tap_ok(v.level == QV_FIT && has(v.notes, "counts cycles: 408 MHz at 408 MHz") &&
	       has(v.notes, "1800 MHz at 1800 MHz"),
	       "DVFS, cycle counter: fit, noted as counting cycles");
	for (k = 0; k < 2; k++)
		b[k].hz = b[k].hz_low = b[k].hz_high = 24e6;
	v = judge("CNTVCT_EL0", 0, b, 2);
	tap_ok(v.level == QV_FIT && has(v.notes, "does not follow"),
	       "DVFS, generic timer: fit, its rate does not follow");
	for (k = 0; k < 2; k++) {
		b[k].hz_low = 0.8e9;
		b[k].hz_high = 2.0e9;
	}
	v = judge("rdtsc", 0, b, 2);
	tap_ok(v.level == QV_FIT && has(v.notes, "not a fixed unit of time"),
	       "DVFS, a time counter that follows the frequency: noted");

	/* Not fit: backwards (A64's unstable timer), access lost in idle
	 * (CPU PM without the module), frozen. */
	for (k = 0; k < 4; k++)
		b[k] = sound(k, 24e6, 0.0, 50.0);
	b[1].backwards = 3;
	v = judge("CNTVCT_EL0", 0, b, 4);
	tap_ok(v.level == QV_NOT_FIT && has(v.reason, "backwards on CPU 1"),
	       "reads going backwards on CPU 1: not fit");
	b[1].backwards = 0;
	b[2].sleep_trapped = 1;
	b[3].sleep_trapped = 1;
	v = judge("PMCCNTR_EL0", 1, b, 4);
	tap_ok(v.level == QV_NOT_FIT && v.lost_in_sleep &&
	       has(v.reason, "lost across a sleep on CPUs 2-3"),
	       "access lost across idle on CPUs 2-3: not fit");
	b[2].sleep_trapped = b[3].sleep_trapped = 0;
	b[0].status = QV_FROZEN;
	v = judge("PMCCNTR_EL0", 1, b, 4);
	tap_ok(v.level == QV_NOT_FIT && has(v.reason, "frozen on CPU 0"),
	       "frozen on CPU 0: not fit");
	b[0].status = QV_AVAILABLE;
	b[2].status = QV_TRAPS;
	b[0].backwards = 2;
	v = judge("PMCCNTR_EL0", 1, b, 4);
	tap_ok(v.level == QV_NOT_FIT && has(v.reason, "traps on CPU 2") &&
	       !has(v.reason, "backwards"),
	       "traps outranks backwards in the reason");
	b[1].status = QV_FROZEN;
	v = judge("PMCCNTR_EL0", 1, b, 4);
	tap_ok(v.level == QV_NOT_FIT &&
	       strcmp(v.reason, "traps on CPU 2; frozen on CPU 1") == 0,
	       "traps and frozen both named (as in the arm64 VM after a perf tier event: traps on CPUs 0,2-7, frozen on CPU 1)");

	/* perf: gone, rearmed, back. */
	for (k = 0; k < 4; k++) {
		b[k] = sound(k, 1e9, 0.0, 100.0);
		b[k].perf = k < 2 ? QV_PERF_GONE : QV_PERF_REARMED;
	}
	v = judge("PMCCNTR_EL0", 1, b, 4);
	tap_ok(v.level == QV_FIT && has(v.notes, "CPUs 0-1 and it stays away") &&
	       has(v.notes, "CPUs 2-3 until the module's rearm"),
	       "perf taking the counter: fit, with where it stays away");

	/* One CPU; no CPU. */
	b[0] = sound(0, 1e9, 0.0, 20.0);
	v = judge("PMCCNTR", 1, b, 1);
	tap_ok(v.level == QV_FIT && has(v.notes, "one CPU qualified"),
	       "one CPU: fit, cross-CPU agreement not measured");
	v = judge("PMCCNTR", 1, b, 0);
	tap_ok(v.level == QV_NOT_FIT, "no CPU: not fit");

	/* A big server where every other CPU traps: the list is cut with
	 * "...", never inside a number that would name another CPU. */
	for (k = 0; k < N(big); k++) {
		big[k] = sound(k, 1e9, 0.0, 20.0);
		big[k].status = k % 2 ? QV_AVAILABLE : QV_TRAPS;
	}
	v = judge("PMCCNTR_EL0", 1, big, N(big));
	cut = strstr(v.reason, "...");
	tap_ok(v.level == QV_NOT_FIT && has(v.reason, "traps on CPUs 0,2,4,") &&
	       cut && (cut[-1] == ',' || (cut[-1] >= '0' && cut[-1] <= '9')),
	       "256 CPUs, every other one trapping: the list ends in '...'");
	/* What precedes "..." is whole: every even CPU up to the last named. */
	expect[0] = '\0';
	for (k = 0; cut && strlen(expect) < (size_t)(cut - v.reason); k += 2)
		snprintf(expect + strlen(expect), sizeof(expect) - strlen(expect),
			 "%s%d", k ? "," : "traps on CPUs ", k);
	tap_ok(cut && strlen(expect) == (size_t)(cut - v.reason) &&
	       strncmp(v.reason, expect, strlen(expect)) == 0,
	       "the CPUs before '...' are whole numbers, in order");

	len = 0;
	buf[0] = '\0';
	qv_append_cpus(buf, 12, &len, 0, 3);
	qv_append_cpus(buf, 12, &len, 6, 6);
	tap_ok(strcmp(buf, "0-3,6") == 0, "ranges and single CPUs: '%s'", buf);
	qv_append_cpus(buf, 12, &len, 100, 107);
	qv_append_cpus(buf, 12, &len, 9, 9);
	tap_ok(strcmp(buf, "0-3,6...") == 0 && len == 12,
	       "a range that does not fit becomes '...', and nothing follows: '%s'",
	       buf);

	qv_format_ns(850, buf, sizeof(buf));
	tap_ok(strcmp(buf, "850 ns") == 0, "850 ns reads '%s'", buf);
	qv_format_ns(-0.4, buf, sizeof(buf));
	tap_ok(strcmp(buf, "0 ns") == 0, "-0.4 ns reads '%s'", buf);
	qv_format_ns(-2.1e6, buf, sizeof(buf));
	tap_ok(strcmp(buf, "-2.1 ms") == 0, "-2.1e6 ns reads '%s'", buf);
	return tap_done();
}
