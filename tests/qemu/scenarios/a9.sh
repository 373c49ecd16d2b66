# a9.sh: guest side of the Cortex-A9 scenario (-M vexpress-a9, Debian's armmp kernel and its device tree).
# SPDX-License-Identifier: MIT
#
# The Cortex-A5, A8 and A9 report PerfMon 0 in ID_DFR0 and have the CP15
# PMU all the same: the module must find it from MIDR.  Their PMU has no
# read-only user access, so the default parameters refuse with that reason,
# and user_write=1 grants.  (qemu's Cortex-A9 PMU does not count: the
# counter then reads but is frozen, and cycle.h must not pick it.)

# shellcheck source=tests/qemu/scenarios/guest-tap.sh
. /opt/guest-tap.sh
ko=/opt/cycle_enable.ko
all="0-$((cpu_count - 1))"

is "the CPU is a Cortex-A9 (MIDR part 0xc09)" 0xc09 \
	"$(sed -n 's/^CPU part[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
diag "$(dmesg | grep 'hw perfevents')"

check "insmod cycle_enable.ko (default parameters)" insmod "$ko"
check "the load message refuses CPUs $all: no read-only access" \
	sh -c "dmesg | grep -q 'refused on CPUs $all (needs-user-write): '"
diag "$(dmesg | grep 'cycle_enable:')"
is "refused lists every CPU" "$all" "$(ce refused)"
is "granted is empty" "" "$(ce granted)"
is "status: a PMU, refused for want of user_write" "$cpu_count" \
	"$(grep -c 'online=1 pmu=1 granted=0 rearms=0 refused=needs-user-write$' /sys/kernel/cycle_enable/status)"
for cpu in $all_cpus; do
	is "default parameters: an EL0 write to PMCR traps on CPU $cpu" traps \
		"$(./pmu-read --pmcr-write --cpu "$cpu")"
	is "default parameters: PMCCNTR traps on CPU $cpu" traps \
		"$(./pmu-read --cpu "$cpu")"
done
check "rmmod cycle_enable" rmmod cycle_enable

check "insmod cycle_enable.ko user_write=1" insmod "$ko" user_write=1
is "user_write=1: the PMU found from MIDR, every CPU granted" "$all" \
	"$(ce granted)"
is "user_write=1: refused is empty" "" "$(ce refused)"
for cpu in $all_cpus; do
	r=$(./pmu-read --cpu "$cpu")
	isnt "user_write=1: PMCCNTR reads on CPU $cpu ($r)" traps "$r"
done
is "user_write=1: an EL0 write to PMCR works" writes \
	"$(./pmu-read --pmcr-write --cpu 0)"
run_probe >/dev/null
isnt "cycle-probe selects PMCCNTR only if it counts" \
	"$( [ "$(./pmu-read --cpu 0)" = counts ] || echo PMCCNTR)" \
	"$(probe_selected)"
check "rmmod cycle_enable" rmmod cycle_enable
for cpu in $all_cpus; do
	is "after unload: PMCCNTR traps on CPU $cpu" traps \
		"$(./pmu-read --cpu "$cpu")"
done
check "no kernel WARNING, BUG or Oops in the whole run" kernel_trouble

done_testing
