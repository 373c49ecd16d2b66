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
check "the kernel log says there is no PMU" \
	sh -c "dmesg | grep -q 'cycle_enable: CPU0: no PMU'"
diag "$(cat "$sysfs/status")"
is "status shows every CPU without a PMU, not granted" "$cpu_count" \
	"$(grep -c 'online=1 pmu=0 granted=0 rearms=0$' "$sysfs/status")"
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
check "insmod cycle_enable.ko assume_pmu=1" insmod "$ko" assume_pmu=1
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
