# el3-many-cpus.sh: guest side of the EL3 and many-CPU scenario (arm64 -M virt,secure=on, 8 CPUs).
# SPDX-License-Identifier: MIT
#
# Where EL3 exists (every arm64 board with TF-A), PMCCFILTR_EL0.NSK decides
# whether Non-secure EL1 is counted: count_el1=0 must keep the kernel out.
# el1-share measures it: cycles per timer tick in a read(2) loop against a
# user-only loop, about 1 when the kernel is counted.  Then the status files
# must describe every one of the CPUs, whatever their number.

# shellcheck source=tests/qemu/scenarios/guest-tap.sh
. /opt/guest-tap.sh
ko=/opt/cycle_enable.ko
sysfs=/sys/kernel/cycle_enable
all="0-$((cpu_count - 1))"

# share PARAMS...: load with PARAMS, print el1-share's ratio on the last
# CPU, unload.
share() {
	insmod "$ko" "$@" || { echo "insmod failed"; return; }
	out=$(./el1-share --cpu $((cpu_count - 1)) 2>&1)
	rmmod cycle_enable
	diag "$* $out" >&2
	echo "$out" | sed -n 's/^share=\([0-9.]*\) .*/\1/p'
}

check "the guest has 8 or more CPUs" test "$cpu_count" -ge 8

s=$(share count_el1=1)
check "count_el1=1: the kernel is counted (share $s >= 0.7)" at_least 0.7 "$s"
s=$(share count_el1=0)
check "count_el1=0 with EL3: only EL0 is counted (share $s < 0.3)" \
	below 0.3 "$s"
s=$(share count_el1=1)
check "reloaded with count_el1=1: the kernel is counted again (share $s >= 0.7)" \
	at_least 0.7 "$s"

# The status files, complete for every CPU.
check "insmod cycle_enable.ko" insmod "$ko"
is "granted lists all $cpu_count CPUs" "$all" "$(ce granted)"
is "refused is empty" "" "$(ce refused)"
is "revoked is empty" "" "$(ce revoked)"
# The number of CPUs in a cpulist such as 0-7,9.
possible=$(awk -F, '{ for (i = 1; i <= NF; i++) { split($i, r, "-");
	n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } } END { print n }' \
	/sys/devices/system/cpu/possible)
is "status has one line per possible CPU" "$possible" \
	"$(grep -c '' "$sysfs/status")"
is "every status line is complete" "$cpu_count" \
	"$(grep -c '^cpu[0-9]* online=1 pmu=1 granted=1 rearms=0$' "$sysfs/status")"
check "status read in 7-byte pieces equals status read at once" \
	sh -c "dd if=$sysfs/status bs=7 2>/dev/null | cmp -s - $sysfs/status"
check "granted read in 1-byte pieces equals granted" \
	sh -c "dd if=$sysfs/granted bs=1 2>/dev/null | cmp -s - $sysfs/granted"
is "status is readable by everyone" "-r--r--r--" \
	"$(stat -c %A "$sysfs/status")"
is "revoked (which interrupts CPUs) is readable by root only" "-r--------" \
	"$(stat -c %A "$sysfs/revoked")"
check "the load message lists all CPUs as granted" \
	sh -c "dmesg | grep -q 'granted on CPUs $all\$'"
check "rmmod cycle_enable" rmmod cycle_enable
for cpu in $all_cpus; do
	is "after unload: $pmu_counter traps on CPU $cpu" \
		traps "$(./pmu-read --cpu "$cpu")"
done
check "no kernel WARNING, BUG or Oops in the whole run" kernel_trouble

done_testing
