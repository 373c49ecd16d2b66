// SPDX-License-Identifier: GPL-2.0
/*
 * cycle_enable: let user space read the PMU cycle counter on ARM.
 *
 * Linux keeps PMCCNTR_EL0 (arm64) and PMCCNTR (ARMv7) out of user space's
 * reach, and takes the access back whenever a CPU comes online, leaves a
 * deep idle state, or runs a perf event.  This module grants read access on
 * every online CPU that has a PMU, on every CPU that comes online later and
 * after every CPU PM exit, and offers /sys/kernel/cycle_enable/rearm for
 * after perf.  Its files are described, in the kernel's Documentation/ABI
 * format, in sysfs-kernel-cycle_enable next to this file.
 *
 * Ownership.  The module only adds bits.  At each grant it notes what it
 * changed and what it left behind; a register that is no longer what the
 * module left there has been taken over (by perf, a reset, the perf sysctl)
 * and is no longer the module's.  On unload it restores only what is still
 * its own, and never PMCR, the counter enables or the filter while perf
 * counts on that CPU: clearing PMCR.E under perf would stop its counters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/cpu.h>
#include <linux/cpu_pm.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#ifndef CYCLE_ENABLE_VERSION
#define CYCLE_ENABLE_VERSION "unknown"
#endif

static bool event_read;
module_param(event_read, bool, 0444);
MODULE_PARM_DESC(event_read,
		 "User space may also read the event counters (ER; PMUv3 only)");

static bool user_write;
module_param(user_write, bool, 0444);
MODULE_PARM_DESC(user_write,
		 "User space may also write the PMU, and stop perf (EN); the only way on ARMv7 PMUs");

static bool count_el1 = true;
module_param(count_el1, bool, 0444);
MODULE_PARM_DESC(count_el1,
		 "arm64: the cycle counter also counts in the kernel (default on)");

static bool assume_pmu;
module_param(assume_pmu, bool, 0444);
MODULE_PARM_DESC(assume_pmu,
		 "Emulator tests only, taints the kernel: touch a PMU the ID registers deny");

/* Why a CPU's cycle counter was not granted; CE_GRANTABLE if it was not. */
enum ce_refusal {
	CE_GRANTABLE,
	CE_NO_PMU,		/* the ID registers report no usable PMU */
	CE_UNKNOWN_CORE,	/* ARMv7, PerfMon 0, core not known to have one */
	CE_NEEDS_WRITE,		/* no read-only access (CR): needs user_write */
	CE_NR_REFUSALS,
};

/* The word in the status file, and the sentence in the kernel log. */
static const char * const ce_refusal_key[CE_NR_REFUSALS] = {
	[CE_NO_PMU] = "no-pmu",
	[CE_UNKNOWN_CORE] = "unknown-core",
	[CE_NEEDS_WRITE] = "needs-user-write",
};

static const char * const ce_refusal_text[CE_NR_REFUSALS] = {
	[CE_NO_PMU] = "the ID registers report no PMU this module can use",
	[CE_UNKNOWN_CORE] = "ID_DFR0 reports no PMU and MIDR is no core known to have one",
	[CE_NEEDS_WRITE] = "no read-only user access on this PMU (user_write=1 grants writes too)",
};

/* The registers this module reads and changes, as one CPU holds them. */
struct ce_regs {
	u64 userenr;	/* PMUSERENR(_EL0) */
	u64 pmcr;	/* PMCR(_EL0) */
	u64 cntenset;	/* PMCNTENSET(_EL0) */
	u64 intenset;	/* PMINTENSET(_EL1): perf enables it on its counters */
	u64 ccfiltr;	/* the cycle counter's filter; 0 where there is none */
	u64 pmuacr;	/* PMUACR_EL1 (PMUv3.9); 0 where there is none */
};

/* Per-CPU bookkeeping, only ever changed on its own CPU with IRQs off. */
struct ce_cpu {
	bool probed;		/* refusal, pmuv3 and has_timer are known */
	bool has_pmu;		/* there is a PMU, granted or not */
	bool pmuv3;		/* PMUSERENR has CR and ER */
	bool pmuacr;		/* PMUv3.9: PMUACR_EL1 grants counter by counter */
	bool has_filter;	/* the cycle counter has a filter (not PMUv1) */
	bool has_timer;		/* ARMv7 generic timer: CNTKCTL exists */
	u8 refusal;		/* enum ce_refusal */
	bool active;		/* online and ours: PM exits, rearm apply */
	bool holding;		/* a grant is in place; left is valid */
	bool own_e;		/* PMCR.E is set because of us */
	bool own_c;		/* the cycle counter is enabled because of us */
	bool own_filter;	/* the cycle filter holds our value */
	bool own_acr_c;		/* PMUACR_EL1.C is set because of us */
	bool own_vcten;		/* we set CNTKCTL.PL0VCTEN */
	unsigned long grants;	/* times we wrote the grant on this CPU */
	u64 userenr_added;	/* PMUSERENR bits that were not set before us */
	u64 filter_before;	/* the cycle filter before we took it over */
	struct ce_regs left;	/* what the last grant left in the registers */
};

static DEFINE_PER_CPU(struct ce_cpu, ce_cpus);

/* CPUs with a grant in place, and CPUs refused (any reason). */
static struct cpumask ce_granted_mask;
static struct cpumask ce_refused_mask;

#define CE_PMCR_E		BIT(0)
#define CE_CNTEN_CYCLE		BIT(31)
#define CE_CNTKCTL_PL0VCTEN	BIT(1)
#define CE_USERENR_EN		BIT(0)	/* everything, writes included */
#define CE_USERENR_CR		BIT(2)	/* PMUv3: read the cycle counter */
#define CE_USERENR_ER		BIT(3)	/* PMUv3: read the event counters */
#define CE_USERENR_UEN		BIT(4)	/* PMUv3.9: PMUACR_EL1 decides reads */
#define CE_PMUACR_C		BIT(31)	/* PMUv3.9: the cycle counter */

/*
 * PMUv3.9: whether PMUACR_EL1, not PMUSERENR.CR, decides EL0's reads in the
 * state r holds (Linux 6.13+ sets UEN for a task with user-readable events).
 */
static bool ce_acr_decides(const struct ce_cpu *c, const struct ce_regs *r)
{
	return c->pmuacr && (r->userenr & CE_USERENR_UEN);
}

/*
 * The cycle counter's filter, the same bits in PMCCFILTR_EL0 and in ARMv7
 * PMUv2's PMXEVTYPER for the cycle counter (EL1/EL0 read PL1/PL0 there).
 */
#define CE_FILTR_P		BIT(31)	/* do not count at EL1 */
#define CE_FILTR_U		BIT(30)	/* do not count at EL0 */
#define CE_FILTR_NSK		BIT(29)	/* with EL3: NS EL1 counts if NSK == P */
#define CE_FILTR_NSU		BIT(28)	/* with EL3: NS EL0 counts if NSU == U */

/*
 * Per-architecture register access.  Both halves provide the same helpers;
 * the rest of the file does not know which one it runs on.
 */
#ifdef CONFIG_ARM64

#include <asm/sysreg.h>
#include <asm/virt.h>

#define CE_FILTR_NSH		BIT(27)	/* count at EL2 */
#define CE_PMUVER_SHIFT		8
#define CE_PMUVER_V3P9		9
/* Spelled here: kernels before 6.13 do not name it. */
#define CE_SYS_PMUACR_EL1	sys_reg(3, 0, 9, 14, 4)

static void ce_arch_probe(struct ce_cpu *c)
{
	u64 ver = (read_sysreg(id_aa64dfr0_el1) >> CE_PMUVER_SHIFT) & 0xf;

	/* 0xf is an IMPLEMENTATION DEFINED PMU, not PMUv3. */
	c->has_pmu = ver != 0 && ver != 0xf;
	c->pmuv3 = c->has_pmu;
	c->pmuacr = c->has_pmu && ver >= CE_PMUVER_V3P9;
	c->has_filter = c->has_pmu;
	c->refusal = c->has_pmu ? CE_GRANTABLE : CE_NO_PMU;
	/* Linux sets CNTKCTL_EL1.EL0VCTEN itself, or emulates the read. */
	c->has_timer = false;
}

static void ce_arch_read_pmu(const struct ce_cpu *c, struct ce_regs *r)
{
	r->userenr = read_sysreg(pmuserenr_el0);
	r->pmcr = read_sysreg(pmcr_el0);
	r->cntenset = read_sysreg(pmcntenset_el0);
	r->intenset = read_sysreg(pmintenset_el1);
	r->ccfiltr = c->has_filter ? read_sysreg(pmccfiltr_el0) : 0;
	/*
	 * Only while UEN is set: then the kernel itself (6.13+) uses
	 * PMUACR_EL1 and has let EL1 reach it (HDFGRTR2_EL2, MDCR_EL3.EnPM2).
	 * An older kernel under a hypervisor may trap the access; and without
	 * UEN the register decides nothing.
	 */
	r->pmuacr = ce_acr_decides(c, r) ?
		    read_sysreg_s(CE_SYS_PMUACR_EL1) : 0;
}

static void ce_arch_write_pmuacr(u64 val)
{
	write_sysreg_s(val, CE_SYS_PMUACR_EL1);
}

static u64 ce_arch_read_cntkctl(void)
{
	return 0;
}

static void ce_arch_write_userenr(u64 val)
{
	write_sysreg(val, pmuserenr_el0);
}

static void ce_arch_write_pmcr(u64 val)
{
	write_sysreg(val, pmcr_el0);
}

static void ce_arch_cycle_counter_on(void)
{
	write_sysreg(CE_CNTEN_CYCLE, pmcntenset_el0);
}

static void ce_arch_cycle_counter_off(void)
{
	write_sysreg(CE_CNTEN_CYCLE, pmcntenclr_el0);
}

/*
 * The filter count_el1 asks for.  Only P excludes the kernel: where EL3
 * exists, Non-secure EL1 is counted when NSK equals P, so NSK stays 0 (what
 * perf does for exclude_kernel).  Under VHE the kernel runs at EL2.
 */
static u64 ce_arch_filter(u64 old)
{
	u64 val = old & ~(CE_FILTR_P | CE_FILTR_U | CE_FILTR_NSK |
			  CE_FILTR_NSU | CE_FILTR_NSH);

	if (!count_el1)
		val |= CE_FILTR_P;
	else if (is_kernel_in_hyp_mode())
		val |= CE_FILTR_NSH;
	return val;
}

static void ce_arch_write_filter(u64 val)
{
	write_sysreg(val, pmccfiltr_el0);
}

static void ce_arch_write_cntkctl(u64 val)
{
}

#else /* 32-bit ARM */

#include <asm/cputype.h>

#define CE_PMSELR_CYCLE		31	/* PMSELR value that selects the cycle filter */
#define CE_PERFMON_SHIFT	24
#define CE_GENTIMER_SHIFT	16
#define CE_MIDR_ARCH_CPUID	0xf	/* MIDR[19:16]: the CPUID scheme is used */

/*
 * ARM's ARMv7 cores that report PerfMon 0 and have the CP15 PMU all the same.
 * The later ones (Cortex-A7, A12, A15, A17) report it in ID_DFR0.
 */
static const u16 ce_known_v7_parts[] = {
	0xc05,	/* Cortex-A5 */
	0xc08,	/* Cortex-A8 */
	0xc09,	/* Cortex-A9 */
};

static bool ce_known_v7_core(u32 midr)
{
	unsigned int i;

	if (((midr >> 24) & 0xff) != ARM_CPU_IMP_ARM)
		return false;
	for (i = 0; i < ARRAY_SIZE(ce_known_v7_parts); i++)
		if (((midr >> 4) & 0xfff) == ce_known_v7_parts[i])
			return true;
	return false;
}

/*
 * ID_DFR0.PerfMon: 1 and 2 are the ARMv7 PMU (PMUSERENR has EN only),
 * 3 and up PMUv3 (CR and ER too), 0xf none.  0 means "not described here":
 * the Cortex-A5, A8 and A9 report it and have the PMU all the same, so for
 * 0 the core decides.
 */
static void ce_arch_probe(struct ce_cpu *c)
{
	u32 midr = read_cpuid_id(), ver;

	/* Without the CPUID scheme (before ARMv6) there is no ID_DFR0. */
	if (((midr >> 16) & 0xf) != CE_MIDR_ARCH_CPUID) {
		c->refusal = CE_NO_PMU;
		return;
	}
	ver = (read_cpuid_ext(CPUID_EXT_DFR0) >> CE_PERFMON_SHIFT) & 0xf;
	c->has_timer = (read_cpuid_ext(CPUID_EXT_PFR1) >> CE_GENTIMER_SHIFT) &
		       0xf;
	c->pmuv3 = ver >= 3 && ver != 0xf;
	/* PMUv2 added the filter: PMXEVTYPER with PMSELR = 31. */
	c->has_filter = ver >= 2 && ver != 0xf;
	if (ver == 0xf) {
		c->refusal = CE_NO_PMU;
	} else if (ver == 0 && !ce_known_v7_core(midr)) {
		c->refusal = CE_UNKNOWN_CORE;
	} else {
		c->has_pmu = true;
		c->refusal = CE_GRANTABLE;
		if (!c->pmuv3 && !user_write)
			c->refusal = CE_NEEDS_WRITE;
	}
}

/*
 * The cycle filter is reached through PMSELR, which perf also uses: it is put
 * back as found.  Callers run with IRQs off, so perf cannot come in between.
 */
static u32 ce_arch_select_cycle_filter(void)
{
	u32 sel;

	asm volatile("mrc p15, 0, %0, c9, c12, 5" : "=r" (sel));
	asm volatile("mcr p15, 0, %0, c9, c12, 5" : : "r" (CE_PMSELR_CYCLE));
	isb();
	return sel;
}

static void ce_arch_deselect(u32 sel)
{
	asm volatile("mcr p15, 0, %0, c9, c12, 5" : : "r" (sel));
	isb();
}

static void ce_arch_read_pmu(const struct ce_cpu *c, struct ce_regs *r)
{
	u32 v, sel;

	asm volatile("mrc p15, 0, %0, c9, c14, 0" : "=r" (v));
	r->userenr = v;
	r->pmuacr = 0;	/* no PMUv3.9 here: ce_arch_probe leaves c->pmuacr */
	asm volatile("mrc p15, 0, %0, c9, c12, 0" : "=r" (v));
	r->pmcr = v;
	asm volatile("mrc p15, 0, %0, c9, c12, 1" : "=r" (v));
	r->cntenset = v;
	asm volatile("mrc p15, 0, %0, c9, c14, 1" : "=r" (v));
	r->intenset = v;
	r->ccfiltr = 0;
	if (c->has_filter) {
		sel = ce_arch_select_cycle_filter();
		asm volatile("mrc p15, 0, %0, c9, c13, 1" : "=r" (v));
		ce_arch_deselect(sel);
		r->ccfiltr = v;
	}
}

static u64 ce_arch_read_cntkctl(void)
{
	u32 v;

	asm volatile("mrc p15, 0, %0, c14, c1, 0" : "=r" (v));
	return v;
}

static void ce_arch_write_userenr(u64 val)
{
	asm volatile("mcr p15, 0, %0, c9, c14, 0" : : "r" ((u32)val));
}

static void ce_arch_write_pmcr(u64 val)
{
	asm volatile("mcr p15, 0, %0, c9, c12, 0" : : "r" ((u32)val));
}

static void ce_arch_cycle_counter_on(void)
{
	asm volatile("mcr p15, 0, %0, c9, c12, 1" : : "r" (CE_CNTEN_CYCLE));
}

static void ce_arch_cycle_counter_off(void)
{
	asm volatile("mcr p15, 0, %0, c9, c12, 2" : : "r" (CE_CNTEN_CYCLE));
}

/*
 * Count PL0 and PL1, whatever a perf session (cycles:k, say) left: a filter
 * that excludes PL0 leaves user space a counter that reads but does not count
 * its own cycles.  NSK and NSU are cleared with P and U, as on arm64.
 */
static u64 ce_arch_filter(u64 old)
{
	return old & ~(CE_FILTR_P | CE_FILTR_U | CE_FILTR_NSK | CE_FILTR_NSU);
}

static void ce_arch_write_filter(u64 val)
{
	u32 sel = ce_arch_select_cycle_filter();

	asm volatile("mcr p15, 0, %0, c9, c13, 1" : : "r" ((u32)val));
	ce_arch_deselect(sel);
}

static void ce_arch_write_cntkctl(u64 val)
{
	asm volatile("mcr p15, 0, %0, c14, c1, 0" : : "r" ((u32)val));
}

static void ce_arch_write_pmuacr(u64 val)
{
}

#endif

/* The PMUSERENR bits the parameters ask for, on this CPU's PMU. */
static u64 ce_user_bits(const struct ce_cpu *c)
{
	u64 bits = 0;

	if (c->pmuv3) {
		bits |= CE_USERENR_CR;
		if (event_read)
			bits |= CE_USERENR_ER;
	}
	if (user_write)
		bits |= CE_USERENR_EN;
	return bits;
}

/* Learn once per CPU what it has, before touching anything. */
static void ce_probe_this_cpu(struct ce_cpu *c)
{
	if (c->probed)
		return;
	ce_arch_probe(c);
	if (assume_pmu && !c->has_pmu) {
		c->has_pmu = true;
		c->pmuv3 = IS_ENABLED(CONFIG_ARM64);
		c->has_filter = c->pmuv3;
		c->refusal = (c->pmuv3 || user_write) ? CE_GRANTABLE :
			     CE_NEEDS_WRITE;
	}
	if (c->refusal != CE_GRANTABLE)
		cpumask_set_cpu(smp_processor_id(), &ce_refused_mask);
	c->probed = true;
}

/* ARMv7 generic timer: let user space read CNTVCT where Linux has not. */
static void ce_grant_timer(struct ce_cpu *c)
{
	u64 cntkctl = ce_arch_read_cntkctl();

	if (!(cntkctl & CE_CNTKCTL_PL0VCTEN)) {
		ce_arch_write_cntkctl(cntkctl | CE_CNTKCTL_PL0VCTEN);
		c->own_vcten = true;
	}
}

/*
 * Grant user read access on this CPU.  Only bits are added: PMCR is changed
 * by read-modify-write and nothing is reset, because perf may be counting.
 * A cycle counter with its overflow interrupt enabled is perf's: its enable
 * bit and its filter stay as they are.
 */
static void ce_grant_this_cpu(void)
{
	struct ce_cpu *c = this_cpu_ptr(&ce_cpus);
	struct ce_regs now;
	bool perf_c;
	u64 bits;

	ce_probe_this_cpu(c);
	if (c->has_timer)
		ce_grant_timer(c);
	if (c->refusal != CE_GRANTABLE)
		return;
	ce_arch_read_pmu(c, &now);

	/*
	 * What changed since the last grant is no longer ours.  perf writes
	 * PMUSERENR whenever it starts the PMU, so a changed PMUSERENR means
	 * that everything else may have been perf's meanwhile.
	 */
	if (!c->holding || now.userenr != c->left.userenr) {
		c->own_e = false;
		c->own_c = false;
		c->own_filter = false;
		c->own_acr_c = false;
		c->userenr_added = ce_user_bits(c) & ~now.userenr;
	}
	perf_c = now.intenset & CE_CNTEN_CYCLE;
	if (now.pmcr != c->left.pmcr)
		c->own_e = false;
	if (now.pmuacr != c->left.pmuacr)
		c->own_acr_c = false;
	if (perf_c || now.cntenset != c->left.cntenset)
		c->own_c = false;
	if (perf_c || now.ccfiltr != c->left.ccfiltr)
		c->own_filter = false;

	if (!perf_c) {
		if (c->has_filter) {
			u64 filter = ce_arch_filter(now.ccfiltr);

			if (filter != now.ccfiltr) {
				if (!c->own_filter)
					c->filter_before = now.ccfiltr;
				ce_arch_write_filter(filter);
				now.ccfiltr = filter;
				c->own_filter = true;
			}
		}
		if (!(now.cntenset & CE_CNTEN_CYCLE)) {
			ce_arch_cycle_counter_on();
			now.cntenset |= CE_CNTEN_CYCLE;
			c->own_c = true;
		}
	}
	if (!(now.pmcr & CE_PMCR_E)) {
		now.pmcr |= CE_PMCR_E;
		ce_arch_write_pmcr(now.pmcr);
		c->own_e = true;
	}
	/*
	 * PMUv3.9: while PMUSERENR.UEN is set (Linux 6.13+ sets it for a task
	 * with user-readable events), PMUACR_EL1 decides which counters EL0
	 * reads and CR only forbids writes: the cycle counter's bit is what
	 * makes our grant hold then.  No other counter's bit is touched.
	 */
	if (ce_acr_decides(c, &now) && !(now.pmuacr & CE_PMUACR_C)) {
		now.pmuacr |= CE_PMUACR_C;
		ce_arch_write_pmuacr(now.pmuacr);
		c->own_acr_c = true;
	}
	bits = ce_user_bits(c);
	now.userenr |= bits;
	ce_arch_write_userenr(now.userenr);
	isb();

	/* Read back: some bits (PMCR.P and .C, for one) do not read as written. */
	ce_arch_read_pmu(c, &c->left);
	c->holding = true;
	c->grants++;
	cpumask_set_cpu(smp_processor_id(), &ce_granted_mask);
}

/*
 * Put back what is still ours on this CPU, each register judged by itself
 * (perf clearing PMUSERENR leaves the others ours).  The access bits we
 * added go unless someone rewrote PMUSERENR since; PMCR.E, the cycle
 * counter enable and the filter go back only where nothing changed them
 * since our last grant and perf has no counter running here.
 */
static void ce_restore_this_cpu(void)
{
	struct ce_cpu *c = this_cpu_ptr(&ce_cpus);
	struct ce_regs now;

	cpumask_clear_cpu(smp_processor_id(), &ce_granted_mask);
	if (c->holding) {
		bool perf_any, perf_c;

		ce_arch_read_pmu(c, &now);
		perf_any = now.intenset != 0;
		perf_c = now.intenset & CE_CNTEN_CYCLE;
		if (c->own_filter && !perf_c && now.ccfiltr == c->left.ccfiltr)
			ce_arch_write_filter(c->filter_before);
		if (c->own_c && !perf_c && now.cntenset == c->left.cntenset)
			ce_arch_cycle_counter_off();
		if (c->own_e && !perf_any && now.pmcr == c->left.pmcr)
			ce_arch_write_pmcr(now.pmcr & ~CE_PMCR_E);
		if (c->own_acr_c && !perf_c && now.pmuacr == c->left.pmuacr &&
		    ce_acr_decides(c, &now))
			ce_arch_write_pmuacr(now.pmuacr & ~CE_PMUACR_C);
		if (now.userenr == c->left.userenr)
			ce_arch_write_userenr(now.userenr & ~c->userenr_added);
		c->holding = false;
		c->own_e = false;
		c->own_c = false;
		c->own_filter = false;
		c->own_acr_c = false;
	}
	if (c->own_vcten) {
		ce_arch_write_cntkctl(ce_arch_read_cntkctl() &
				      ~CE_CNTKCTL_PL0VCTEN);
		c->own_vcten = false;
	}
	isb();
}

/* cpuhp callbacks: run on the CPU itself, in its hotplug thread. */
static int ce_cpu_online(unsigned int cpu)
{
	unsigned long flags;

	local_irq_save(flags);
	ce_grant_this_cpu();
	this_cpu_ptr(&ce_cpus)->active = true;
	local_irq_restore(flags);
	return 0;
}

static int ce_cpu_offline(unsigned int cpu)
{
	unsigned long flags;

	local_irq_save(flags);
	this_cpu_ptr(&ce_cpus)->active = false;
	ce_restore_this_cpu();
	local_irq_restore(flags);
	return 0;
}

/*
 * Deep idle and suspend reset PMUSERENR, and arm_pmu's own notifier resets
 * PMCR on the way out: grant again after it, hence the lowest priority.
 */
static int ce_cpu_pm_notify(struct notifier_block *nb, unsigned long cmd,
			    void *unused)
{
	if (cmd != CPU_PM_EXIT && cmd != CPU_PM_ENTER_FAILED)
		return NOTIFY_DONE;
	if (this_cpu_ptr(&ce_cpus)->active)
		ce_grant_this_cpu();
	return NOTIFY_OK;
}

static struct notifier_block ce_cpu_pm_nb = {
	.notifier_call = ce_cpu_pm_notify,
	.priority = INT_MIN,
};

static void ce_rearm_ipi(void *unused)
{
	if (this_cpu_ptr(&ce_cpus)->active)
		ce_grant_this_cpu();
}

/* Adds this CPU to the mask when its grant is no longer in the hardware. */
static void ce_revoked_ipi(void *arg)
{
	struct cpumask *revoked = arg;
	struct ce_cpu *c = this_cpu_ptr(&ce_cpus);
	u64 bits = ce_user_bits(c);
	struct ce_regs now;

	if (!c->holding)
		return;
	ce_arch_read_pmu(c, &now);
	/* A filter that leaves user space out (perf's cycles:k) is a
	 * revocation too, where perf does not hold the cycle counter. */
	/* Under PMUv3.9's UEN, a cycle counter PMUACR_EL1 leaves out is
	 * revoked whatever CR says. */
	if ((now.userenr & bits) != bits || !(now.pmcr & CE_PMCR_E) ||
	    !(now.cntenset & CE_CNTEN_CYCLE) ||
	    (ce_acr_decides(c, &now) && !(now.pmuacr & CE_PMUACR_C)) ||
	    (!(now.intenset & CE_CNTEN_CYCLE) &&
	     (now.ccfiltr & (CE_FILTR_U | CE_FILTR_NSU))))
		cpumask_set_cpu(smp_processor_id(), revoked);
}

/* Serve [off, off + count) of text, as the read of a bin attribute. */
static ssize_t ce_read_text(char *buf, loff_t off, size_t count,
			    const char *text, size_t len)
{
	return memory_read_from_buffer(buf, count, &off, text, len);
}

static ssize_t ce_read_cpulist(char *buf, loff_t off, size_t count,
			       const struct cpumask *mask)
{
	char *text = kasprintf(GFP_KERNEL, "%*pbl\n", cpumask_pr_args(mask));
	ssize_t ret;

	if (!text)
		return -ENOMEM;
	ret = ce_read_text(buf, off, count, text, strlen(text));
	kfree(text);
	return ret;
}

static ssize_t granted_read(struct file *file, struct kobject *kobj,
			    struct bin_attribute *attr, char *buf,
			    loff_t off, size_t count)
{
	return ce_read_cpulist(buf, off, count, &ce_granted_mask);
}

static ssize_t refused_read(struct file *file, struct kobject *kobj,
			    struct bin_attribute *attr, char *buf,
			    loff_t off, size_t count)
{
	return ce_read_cpulist(buf, off, count, &ce_refused_mask);
}

/* Root only: it interrupts every granted CPU to read its registers. */
static ssize_t revoked_read(struct file *file, struct kobject *kobj,
			    struct bin_attribute *attr, char *buf,
			    loff_t off, size_t count)
{
	cpumask_var_t revoked;
	ssize_t ret;

	if (!zalloc_cpumask_var(&revoked, GFP_KERNEL))
		return -ENOMEM;
	cpus_read_lock();
	on_each_cpu_mask(&ce_granted_mask, ce_revoked_ipi, revoked, true);
	cpus_read_unlock();
	ret = ce_read_cpulist(buf, off, count, revoked);
	free_cpumask_var(revoked);
	return ret;
}

/* The longest status line: see ABI. */
#define CE_STATUS_LINE	96

/*
 * One line per possible CPU, from the module's bookkeeping (no IPI):
 *   cpu<N> online=<0|1> pmu=<0|1|-> granted=<0|1> rearms=<n>[ refused=<why>]
 */
static ssize_t status_read(struct file *file, struct kobject *kobj,
			   struct bin_attribute *attr, char *buf,
			   loff_t off, size_t count)
{
	size_t size = (size_t)nr_cpu_ids * CE_STATUS_LINE, len = 0;
	unsigned int cpu;
	ssize_t ret;
	char *text;

	text = kvmalloc(size, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct ce_cpu *c = per_cpu_ptr(&ce_cpus, cpu);
		unsigned long grants = READ_ONCE(c->grants);
		u8 refusal = READ_ONCE(c->refusal);
		const char *pmu = "-";

		if (READ_ONCE(c->probed))
			pmu = READ_ONCE(c->has_pmu) ? "1" : "0";
		len += scnprintf(text + len, size - len,
				 "cpu%u online=%d pmu=%s granted=%d rearms=%lu",
				 cpu, cpu_online(cpu), pmu,
				 cpumask_test_cpu(cpu, &ce_granted_mask),
				 grants ? grants - 1 : 0);
		if (READ_ONCE(c->probed) && refusal != CE_GRANTABLE &&
		    refusal < CE_NR_REFUSALS)
			len += scnprintf(text + len, size - len, " refused=%s",
					 ce_refusal_key[refusal]);
		len += scnprintf(text + len, size - len, "\n");
	}
	ret = ce_read_text(buf, off, count, text, len);
	kvfree(text);
	return ret;
}

/* Writing 1 grants access again on every online CPU (after perf). */
static ssize_t rearm_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	unsigned int val;
	int ret;

	ret = kstrtouint(buf, 0, &val);
	if (ret)
		return ret;
	if (val != 1)
		return -EINVAL;
	cpus_read_lock();
	on_each_cpu(ce_rearm_ipi, NULL, 1);
	cpus_read_unlock();
	return count;
}

static struct kobj_attribute rearm_attr = __ATTR_WO(rearm);
static BIN_ATTR_RO(status, 0);
static BIN_ATTR_RO(granted, 0);
static BIN_ATTR_RO(refused, 0);
static BIN_ATTR_ADMIN_RO(revoked, 0);

static struct attribute *ce_attrs[] = {
	&rearm_attr.attr,
	NULL,
};

static struct bin_attribute *ce_bin_attrs[] = {
	&bin_attr_status,
	&bin_attr_granted,
	&bin_attr_refused,
	&bin_attr_revoked,
	NULL,
};

static const struct attribute_group ce_attr_group = {
	.attrs = ce_attrs,
	.bin_attrs = ce_bin_attrs,
};

/* One line for the granted CPUs, one per reason for the refused ones. */
static void ce_report(void)
{
	cpumask_var_t why;
	unsigned int cpu;
	int r;

	if (cpumask_empty(&ce_granted_mask))
		pr_info("version %s: user read access to the cycle counter granted on no CPU\n",
			CYCLE_ENABLE_VERSION);
	else
		pr_info("version %s: user read access to the cycle counter granted on CPUs %*pbl\n",
			CYCLE_ENABLE_VERSION,
			cpumask_pr_args(&ce_granted_mask));
	if (cpumask_empty(&ce_refused_mask) ||
	    !zalloc_cpumask_var(&why, GFP_KERNEL))
		return;
	for (r = CE_GRANTABLE + 1; r < CE_NR_REFUSALS; r++) {
		cpumask_clear(why);
		for_each_cpu(cpu, &ce_refused_mask)
			if (READ_ONCE(per_cpu_ptr(&ce_cpus, cpu)->refusal) == r)
				cpumask_set_cpu(cpu, why);
		if (!cpumask_empty(why))
			pr_info("refused on CPUs %*pbl (%s): %s\n",
				cpumask_pr_args(why), ce_refusal_key[r],
				ce_refusal_text[r]);
	}
	free_cpumask_var(why);
}

static struct kobject *ce_kobj;
static enum cpuhp_state ce_hp_state;

static int __init cycle_enable_init(void)
{
	int ret;

	/* Asked to leave the kernel out, where the counter cannot. */
	if (!count_el1 && !IS_ENABLED(CONFIG_ARM64)) {
		pr_err("count_el1=0: not supported on 32-bit ARM (PMUv1 cores have no cycle filter)\n");
		return -EINVAL;
	}
	if (assume_pmu) {
		pr_warn("assume_pmu=1: touching PMUs the ID registers deny, for emulator tests only (tainting the kernel)\n");
		add_taint(TAINT_USER, LOCKDEP_STILL_OK);
	}

	/* Before the grants: a PM exit during them must find it in place. */
	ret = cpu_pm_register_notifier(&ce_cpu_pm_nb);
	if (ret)
		return ret;

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "cycle_enable:online",
				ce_cpu_online, ce_cpu_offline);
	if (ret < 0)
		goto err_pm;
	ce_hp_state = ret;

	ce_kobj = kobject_create_and_add("cycle_enable", kernel_kobj);
	if (!ce_kobj) {
		ret = -ENOMEM;
		goto err_hp;
	}
	ret = sysfs_create_group(ce_kobj, &ce_attr_group);
	if (ret)
		goto err_kobj;

	ce_report();
	return 0;

err_kobj:
	kobject_del(ce_kobj);
	kobject_put(ce_kobj);
err_hp:
	cpuhp_remove_state(ce_hp_state);
err_pm:
	cpu_pm_unregister_notifier(&ce_cpu_pm_nb);
	return ret;
}

/* Stop every path that grants before restoring: sysfs, then hotplug. */
static void __exit cycle_enable_exit(void)
{
	/* Gone from sysfs now, even if the last reference drops later. */
	kobject_del(ce_kobj);
	kobject_put(ce_kobj);
	cpuhp_remove_state(ce_hp_state);
	cpu_pm_unregister_notifier(&ce_cpu_pm_nb);
	pr_info("registers restored\n");
}

module_init(cycle_enable_init);
module_exit(cycle_enable_exit);

MODULE_DESCRIPTION("Grant user space read access to the ARM PMU cycle counter");
MODULE_LICENSE("GPL");
MODULE_VERSION(CYCLE_ENABLE_VERSION);
