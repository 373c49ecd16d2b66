// SPDX-License-Identifier: GPL-2.0
/*
 * cycle_enable: let user space read the PMU cycle counter on ARM.
 *
 * Linux keeps PMCCNTR_EL0 (arm64) and PMCCNTR (ARMv7) out of user space's
 * reach, and takes the access back whenever a CPU comes online, leaves a
 * deep idle state, or runs a perf event.  This module grants read access on
 * every online CPU, on every CPU that comes online later and after every CPU
 * PM exit, and offers /sys/kernel/cycle_enable/rearm for after perf.
 *
 * It saves each CPU's registers the first time it touches that CPU and puts
 * them back on unload, unless perf has taken the PMU over since (then perf's
 * state wins: clearing PMCR.E under perf would stop its counters).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/cpu.h>
#include <linux/cpu_pm.h>
#include <linux/cpuhotplug.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#ifndef CYCLE_ENABLE_VERSION
#define CYCLE_ENABLE_VERSION "unknown"
#endif

static bool event_read;
module_param(event_read, bool, 0444);
MODULE_PARM_DESC(event_read,
		 "arm64: user space may also read the event counters (ER)");

static bool user_write;
module_param(user_write, bool, 0444);
MODULE_PARM_DESC(user_write,
		 "arm64: user space may also write the PMU, and stop perf (EN)");

static bool count_el1 = true;
module_param(count_el1, bool, 0444);
MODULE_PARM_DESC(count_el1,
		 "arm64: the cycle counter also counts in the kernel (default on)");

static bool assume_pmu;
module_param(assume_pmu, bool, 0444);
MODULE_PARM_DESC(assume_pmu,
		 "For emulator tests: touch a PMU the ID registers deny (oopses on hardware)");

/* The registers this module reads and changes, as one CPU holds them. */
struct ce_regs {
	u64 userenr;	/* PMUSERENR(_EL0) */
	u64 pmcr;	/* PMCR(_EL0) */
	u64 cntenset;	/* PMCNTENSET(_EL0) */
	u64 ccfiltr;	/* PMCCFILTR_EL0; unused on ARMv7 */
	u64 cntkctl;	/* CNTKCTL; unused on arm64 */
};

/* Per-CPU bookkeeping, only ever changed on its own CPU with IRQs off. */
struct ce_cpu {
	bool probed;		/* has_pmu and has_timer are known */
	bool has_pmu;
	bool has_timer;		/* ARMv7 generic timer: CNTKCTL exists */
	bool saved;		/* orig: the values before our first write */
	bool active;		/* online and ours: PM exits, rearm apply */
	bool set_e;		/* we turned PMCR.E on */
	bool set_c;		/* we turned the cycle counter on */
	bool set_filter;	/* we wrote PMCCFILTR_EL0 */
	bool set_vcten;		/* we set CNTKCTL.PL0VCTEN */
	unsigned long grants;	/* times we wrote the grant on this CPU */
	struct ce_regs orig;
	u64 userenr_written;
};

static DEFINE_PER_CPU(struct ce_cpu, ce_cpus);

#define CE_PMCR_E		BIT(0)
#define CE_CNTEN_CYCLE		BIT(31)
#define CE_CNTKCTL_PL0VCTEN	BIT(1)

/*
 * Per-architecture register access.  Both halves provide the same helpers;
 * the rest of the file does not know which one it runs on.
 */
#ifdef CONFIG_ARM64

#include <asm/sysreg.h>
#include <asm/virt.h>

#define CE_USERENR_EN		BIT(0)
#define CE_USERENR_CR		BIT(2)
#define CE_USERENR_ER		BIT(3)
#define CE_FILTR_P		BIT(31)	/* do not count at EL1 */
#define CE_FILTR_U		BIT(30)	/* do not count at EL0 */
#define CE_FILTR_NSK		BIT(29)	/* NS EL1 counts if NSK == P */
#define CE_FILTR_NSU		BIT(28)	/* NS EL0 counts if NSU == U */
#define CE_FILTR_NSH		BIT(27)	/* count at EL2 */
#define CE_PMUVER_SHIFT		8

static bool ce_arch_has_pmu(void)
{
	u64 ver = (read_sysreg(id_aa64dfr0_el1) >> CE_PMUVER_SHIFT) & 0xf;

	return ver != 0 && ver != 0xf;
}

static bool ce_arch_has_timer(void)
{
	/* Linux sets CNTKCTL_EL1.EL0VCTEN itself, or emulates the read. */
	return false;
}

static u64 ce_arch_user_bits(void)
{
	u64 bits = CE_USERENR_CR;

	if (event_read)
		bits |= CE_USERENR_ER;
	if (user_write)
		bits |= CE_USERENR_EN;
	return bits;
}

static void ce_arch_read_pmu(struct ce_regs *r)
{
	r->userenr = read_sysreg(pmuserenr_el0);
	r->pmcr = read_sysreg(pmcr_el0);
	r->cntenset = read_sysreg(pmcntenset_el0);
	r->ccfiltr = read_sysreg(pmccfiltr_el0);
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

static bool ce_arch_has_filter(void)
{
	return true;
}

static u64 ce_arch_filter(u64 old)
{
	u64 val = old & ~(CE_FILTR_P | CE_FILTR_U | CE_FILTR_NSK |
			  CE_FILTR_NSU | CE_FILTR_NSH);

	/* Under VHE the kernel runs at EL2: count there instead of EL1. */
	if (!count_el1)
		val |= CE_FILTR_P | CE_FILTR_NSK;
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

static void ce_arch_sync(void)
{
	isb();
}

#else /* 32-bit ARM */

#include <asm/cputype.h>

#define CE_USERENR_EN		BIT(0)	/* the only bit ARMv7 has */
#define CE_PERFMON_SHIFT	24
#define CE_GENTIMER_SHIFT	16

static bool ce_arch_has_pmu(void)
{
	u32 ver = (read_cpuid_ext(CPUID_EXT_DFR0) >> CE_PERFMON_SHIFT) & 0xf;

	return ver != 0 && ver != 0xf;
}

static bool ce_arch_has_timer(void)
{
	return (read_cpuid_ext(CPUID_EXT_PFR1) >> CE_GENTIMER_SHIFT) & 0xf;
}

static u64 ce_arch_user_bits(void)
{
	return CE_USERENR_EN;
}

static void ce_arch_read_pmu(struct ce_regs *r)
{
	u32 v;

	asm volatile("mrc p15, 0, %0, c9, c14, 0" : "=r" (v));
	r->userenr = v;
	asm volatile("mrc p15, 0, %0, c9, c12, 0" : "=r" (v));
	r->pmcr = v;
	asm volatile("mrc p15, 0, %0, c9, c12, 1" : "=r" (v));
	r->cntenset = v;
	r->ccfiltr = 0;
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

static bool ce_arch_has_filter(void)
{
	/* The ARMv7 cycle filter needs PMUv2 and PMSELR; not worth it. */
	return false;
}

static u64 ce_arch_filter(u64 old)
{
	return old;
}

static void ce_arch_write_filter(u64 val)
{
}

static void ce_arch_write_cntkctl(u64 val)
{
	asm volatile("mcr p15, 0, %0, c14, c1, 0" : : "r" ((u32)val));
}

static void ce_arch_sync(void)
{
	isb();
}

#endif

/* Read only what this CPU has: the others are UNDEF. */
static void ce_read_this_cpu(const struct ce_cpu *c, struct ce_regs *r)
{
	memset(r, 0, sizeof(*r));
	if (c->has_pmu)
		ce_arch_read_pmu(r);
	if (c->has_timer)
		r->cntkctl = ce_arch_read_cntkctl();
}

/* Learn once per CPU what it has, before touching anything. */
static void ce_probe_this_cpu(struct ce_cpu *c)
{
	if (c->probed)
		return;
	c->probed = true;
	c->has_timer = ce_arch_has_timer();
	c->has_pmu = ce_arch_has_pmu();
	if (!c->has_pmu && assume_pmu) {
		pr_warn("CPU%u: no PMU, touching it anyway (assume_pmu)\n",
			smp_processor_id());
		c->has_pmu = true;
	} else if (!c->has_pmu) {
		pr_info("CPU%u: no PMU; leaving it alone\n",
			smp_processor_id());
	}
}

/*
 * Grant user read access on this CPU.  Only bits are added: PMCR is changed
 * by read-modify-write and nothing is reset, because perf may be counting.
 */
static void ce_grant_this_cpu(void)
{
	struct ce_cpu *c = this_cpu_ptr(&ce_cpus);
	struct ce_regs now;

	ce_probe_this_cpu(c);
	if (!c->has_pmu && !c->has_timer)
		return;
	ce_read_this_cpu(c, &now);
	if (!c->saved) {
		c->orig = now;
		c->saved = true;
	}

	if (c->has_timer && !(now.cntkctl & CE_CNTKCTL_PL0VCTEN)) {
		ce_arch_write_cntkctl(now.cntkctl | CE_CNTKCTL_PL0VCTEN);
		c->set_vcten = true;
	}

	if (c->has_pmu) {
		/*
		 * A cycle counter already running belongs to someone else
		 * (perf): leave its filter alone.
		 */
		if (!(now.cntenset & CE_CNTEN_CYCLE)) {
			if (ce_arch_has_filter()) {
				u64 filter = ce_arch_filter(now.ccfiltr);

				ce_arch_write_filter(filter);
				c->set_filter = true;
			}
			ce_arch_cycle_counter_on();
			c->set_c = true;
		}
		if (!(now.pmcr & CE_PMCR_E)) {
			ce_arch_write_pmcr(now.pmcr | CE_PMCR_E);
			c->set_e = true;
		}
		c->userenr_written = now.userenr | ce_arch_user_bits();
		ce_arch_write_userenr(c->userenr_written);
	}
	ce_arch_sync();
	c->grants++;
}

/*
 * Put back what this CPU had before the first grant.  If the access bits
 * are no longer what we wrote, perf has run here since and owns PMCR, the
 * enable bits and the filter now: only PMUSERENR goes back.
 */
static void ce_restore_this_cpu(void)
{
	struct ce_cpu *c = this_cpu_ptr(&ce_cpus);
	struct ce_regs now;

	if (!c->saved)
		return;
	ce_read_this_cpu(c, &now);

	if (c->has_pmu) {
		if (now.userenr == c->userenr_written) {
			if (c->set_e && !(c->orig.pmcr & CE_PMCR_E))
				ce_arch_write_pmcr(now.pmcr & ~CE_PMCR_E);
			if (c->set_c && !(c->orig.cntenset & CE_CNTEN_CYCLE))
				ce_arch_cycle_counter_off();
			if (c->set_filter)
				ce_arch_write_filter(c->orig.ccfiltr);
		}
		ce_arch_write_userenr(c->orig.userenr);
	}
	if (c->set_vcten && !(c->orig.cntkctl & CE_CNTKCTL_PL0VCTEN))
		ce_arch_write_cntkctl(now.cntkctl & ~CE_CNTKCTL_PL0VCTEN);
	ce_arch_sync();
	c->set_e = false;
	c->set_c = false;
	c->set_filter = false;
	c->set_vcten = false;
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

/* Deep idle and suspend reset PMUSERENR; grant again on the way out. */
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
};

static void ce_rearm_ipi(void *unused)
{
	if (this_cpu_ptr(&ce_cpus)->active)
		ce_grant_this_cpu();
}

/* What one CPU looks like right now, for the status file. */
struct ce_live {
	bool granted;
};

static void ce_live_ipi(void *arg)
{
	struct ce_live *live = arg;
	struct ce_cpu *c = this_cpu_ptr(&ce_cpus);
	u64 bits = ce_arch_user_bits();
	struct ce_regs now;

	live->granted = false;
	if (!c->has_pmu)
		return;
	ce_read_this_cpu(c, &now);
	live->granted = (now.userenr & bits) == bits &&
			(now.pmcr & CE_PMCR_E) &&
			(now.cntenset & CE_CNTEN_CYCLE);
}

/*
 * One line per possible CPU:
 *   cpu<N> online=<0|1> pmu=<0|1|-> granted=<0|1> rearms=<count>
 * "granted" is read from the hardware now: perf may have revoked it.
 */
static ssize_t status_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	unsigned int cpu;
	int len = 0;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		struct ce_cpu *c = per_cpu_ptr(&ce_cpus, cpu);
		struct ce_live live = { .granted = false };
		bool online = cpu_online(cpu);
		unsigned long grants = READ_ONCE(c->grants);
		const char *pmu = "-";

		if (READ_ONCE(c->probed))
			pmu = READ_ONCE(c->has_pmu) ? "1" : "0";
		if (online && READ_ONCE(c->active))
			smp_call_function_single(cpu, ce_live_ipi, &live, 1);
		len += sysfs_emit_at(buf, len,
				     "cpu%u online=%d pmu=%s granted=%d rearms=%lu\n",
				     cpu, online, pmu, live.granted,
				     grants ? grants - 1 : 0);
	}
	cpus_read_unlock();
	return len;
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

static struct kobj_attribute status_attr = __ATTR_RO(status);
static struct kobj_attribute rearm_attr = __ATTR_WO(rearm);

static struct attribute *ce_attrs[] = {
	&status_attr.attr,
	&rearm_attr.attr,
	NULL,
};

static const struct attribute_group ce_attr_group = {
	.attrs = ce_attrs,
};

static struct kobject *ce_kobj;
static enum cpuhp_state ce_hp_state;

static int __init cycle_enable_init(void)
{
	int ret;

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "cycle_enable:online",
				ce_cpu_online, ce_cpu_offline);
	if (ret < 0)
		return ret;
	ce_hp_state = ret;

	ret = cpu_pm_register_notifier(&ce_cpu_pm_nb);
	if (ret)
		goto err_hp;

	ce_kobj = kobject_create_and_add("cycle_enable", kernel_kobj);
	if (!ce_kobj) {
		ret = -ENOMEM;
		goto err_pm;
	}
	ret = sysfs_create_group(ce_kobj, &ce_attr_group);
	if (ret)
		goto err_kobj;

	pr_info("version %s: user read access to the cycle counter granted\n",
		CYCLE_ENABLE_VERSION);
	return 0;

err_kobj:
	kobject_put(ce_kobj);
err_pm:
	cpu_pm_unregister_notifier(&ce_cpu_pm_nb);
err_hp:
	cpuhp_remove_state(ce_hp_state);
	return ret;
}

/* Stop every path that grants before restoring: sysfs, PM, then hotplug. */
static void __exit cycle_enable_exit(void)
{
	kobject_put(ce_kobj);
	cpu_pm_unregister_notifier(&ce_cpu_pm_nb);
	cpuhp_remove_state(ce_hp_state);
	pr_info("registers restored\n");
}

module_init(cycle_enable_init);
module_exit(cycle_enable_exit);

MODULE_DESCRIPTION("Grant user space read access to the ARM PMU cycle counter");
MODULE_LICENSE("GPL");
MODULE_VERSION(CYCLE_ENABLE_VERSION);
