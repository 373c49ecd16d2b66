// SPDX-License-Identifier: MIT
/*
 * cycle_filter_set: a test-only module for 32-bit ARM that writes the PMUv2
 * cycle counter's filter (PMXEVTYPER with PMSELR = 31) on every CPU, as a
 * perf session of cycles:k would leave it, and reads it back.  The armhf VM
 * scenario uses it to show that cycle_enable puts PL0 back into the count.
 *
 *   insmod cycle_filter_set.ko value=0x40000000   U: PL0 not counted
 *   echo 0x40000000 > /sys/module/cycle_filter_set/parameters/value
 *   cat /sys/module/cycle_filter_set/parameters/value
 *                       every CPU's filter, "cpu0=0x... cpu1=0x..."
 *
 * It checks nothing itself (ID_DFR0.PerfMon >= 2 is the scenario's to know).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/smp.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <asm/barrier.h>

#ifndef CONFIG_ARM
#error "cycle_filter_set is for 32-bit ARM"
#endif

static DEFINE_PER_CPU(u32, cfs_seen);

/* PMSELR = 31 selects the cycle filter; the old PMSELR is put back after. */
static u32 cfs_select(void)
{
	u32 sel;

	asm volatile("mrc p15, 0, %0, c9, c12, 5" : "=r" (sel));
	asm volatile("mcr p15, 0, %0, c9, c12, 5" : : "r" (31));
	isb();
	return sel;
}

static void cfs_deselect(u32 sel)
{
	asm volatile("mcr p15, 0, %0, c9, c12, 5" : : "r" (sel));
	isb();
}

static void cfs_write(void *arg)
{
	u32 sel = cfs_select();

	asm volatile("mcr p15, 0, %0, c9, c13, 1" : : "r" (*(u32 *)arg));
	cfs_deselect(sel);
}

static void cfs_read(void *unused)
{
	u32 val, sel = cfs_select();

	asm volatile("mrc p15, 0, %0, c9, c13, 1" : "=r" (val));
	cfs_deselect(sel);
	this_cpu_write(cfs_seen, val);
}

static int cfs_set(const char *buf, const struct kernel_param *kp)
{
	u32 val;
	int ret = kstrtou32(buf, 0, &val);

	if (ret)
		return ret;
	on_each_cpu(cfs_write, &val, 1);
	return 0;
}

static int cfs_get(char *buf, const struct kernel_param *kp)
{
	unsigned int cpu;
	int n = 0;

	on_each_cpu(cfs_read, NULL, 1);
	for_each_online_cpu(cpu)
		n += scnprintf(buf + n, PAGE_SIZE - n, "%scpu%u=0x%08x",
			       n ? " " : "", cpu, per_cpu(cfs_seen, cpu));
	n += scnprintf(buf + n, PAGE_SIZE - n, "\n");
	return n;
}

static const struct kernel_param_ops cfs_ops = {
	.set = cfs_set,
	.get = cfs_get,
};
module_param_cb(value, &cfs_ops, NULL, 0644);
MODULE_PARM_DESC(value, "the cycle counter's filter (PMXEVTYPER, PMSELR = 31) on every CPU");

MODULE_DESCRIPTION("safecycle tests: set the ARMv7 cycle filter as perf cycles:k leaves it");
MODULE_LICENSE("Dual MIT/GPL");
