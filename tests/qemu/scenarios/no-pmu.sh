# no-pmu.sh: guest side of scenario 7, a CPU model without a PMU (qemu -cpu MODEL,pmu=off).
# SPDX-License-Identifier: MIT
#
# The module must load without an oops and leave the PMU alone.  Then, with
# assume_pmu=1, it does what naive enable modules do: the emulated registers
# accept the write and PMCCNTR reads 0 forever.  cycle-probe must call that
# frozen and getticks() must not use it.

# shellcheck source=tests/qemu/scenarios/guest-tap.sh
. /opt/guest-tap.sh
ko=/opt/cycle_enable.ko
sysfs=/sys/kernel/cycle_enable

check "insmod cycle_enable.ko on CPUs without a PMU" insmod "$ko"
# arm64: PMUVer 0.  ARMv7: PerfMon 0 on a core (Cortex-A15) that would
# report its PMU there, unlike the Cortex-A5/A8/A9.
case $pmu_counter in
PMCCNTR_EL0) why=no-pmu ;;
*) why=unknown-core ;;
esac
all="0-$((cpu_count - 1))"
check "the load message says in one line which CPUs are refused, and why" \
	sh -c "dmesg | grep -q 'cycle_enable: refused on CPUs $all ($why): '"
is "the kernel log has one such line, not one per CPU" 1 \
	"$(dmesg | grep -c 'cycle_enable: refused on')"
diag "$(cat "$sysfs/status")"
is "status shows every CPU without a PMU, not granted" "$cpu_count" \
	"$(grep -c "online=1 pmu=0 granted=0 rearms=0 refused=$why\$" "$sysfs/status")"
is "refused lists every CPU" "$all" "$(ce refused)"
is "granted is empty" "" "$(ce granted)"
check "writing 1 to rearm succeeds" sh -c "echo 1 >$sysfs/rearm"
for cpu in $all_cpus; do
	is "the PMU was left alone: $pmu_counter traps on CPU $cpu" \
		traps "$(./pmu-read --cpu "$cpu")"
done
consumer --seconds 1
is "a cycle.h consumer exits 0" 0 "$consumer_status"
isnt "the consumer does not use $pmu_counter" "$pmu_counter" "$consumer_start"
is "cycle-probe exits 1" 1 "$(run_probe)"
isnt "cycle-probe does not select $pmu_counter" \
	"$pmu_counter" "$(probe_selected)"
check "rmmod cycle_enable" rmmod cycle_enable

# Readable but not counting: what a module without the PMU check leaves.
taint_before=$(cat /proc/sys/kernel/tainted)
# shellcheck disable=SC2086 # empty or one word
check "insmod cycle_enable.ko assume_pmu=1 $grant_args" \
	insmod "$ko" assume_pmu=1 $grant_args
is "assume_pmu taints the kernel (U)" 64 \
	"$(($(cat /proc/sys/kernel/tainted) & 64))"
is "the kernel was not user-tainted before" 0 "$((taint_before & 64))"
is "with assume_pmu: $pmu_counter reads but is frozen (oracle)" \
	frozen "$(./pmu-read --cpu 0)"
is "with assume_pmu: cycle-probe exits 1" 1 "$(run_probe)"
is "with assume_pmu: cycle-probe reports $pmu_counter frozen" \
	frozen "$(probe_status "$pmu_counter")"
isnt "with assume_pmu: cycle-probe does not select $pmu_counter" \
	"$pmu_counter" "$(probe_selected)"
consumer --seconds 1
is "with assume_pmu: the consumer exits 0" 0 "$consumer_status"
isnt "with assume_pmu: the consumer does not use $pmu_counter" \
	"$pmu_counter" "$consumer_start"
diag "$consumer_out"
check "rmmod cycle_enable" rmmod cycle_enable
check "no kernel WARNING, BUG or Oops in the whole run" kernel_trouble

done_testing
