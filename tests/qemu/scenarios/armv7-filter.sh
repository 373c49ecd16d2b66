# armv7-filter.sh: guest side of the ARMv7 cycle filter scenario (armhf, Cortex-A15: PMUv2).
# SPDX-License-Identifier: MIT
#
# perf's cycles:k on a PMUv2 core writes the cycle counter's filter
# (PMXEVTYPER with PMSELR = 31) with U set, and leaves it so: PMCCNTR then
# reads in user space but counts only the kernel's cycles.  The guest's
# kernel has no perf driver for this PMU, so the test module
# cycle_filter_set writes that filter on every CPU instead.  cycle_enable
# must put PL0 back into the count at load and at rearm, call the filter a
# revocation meanwhile, and put back the filter it found when unloaded.
# pmu-read --rate: the counter's ticks per microsecond over 100 ms in user
# space (about 1000 where qemu's 1 GHz cycle counter counts user space).

# shellcheck source=tests/qemu/scenarios/guest-tap.sh
. /opt/guest-tap.sh
ko=/opt/cycle_enable.ko
sysfs=/sys/kernel/cycle_enable
filter=/sys/module/cycle_filter_set/parameters/value
no_pl0=0x40000000 # U: PL0 not counted
all="0-$((cpu_count - 1))"

# every VALUE: the test module's readback with every CPU's filter at VALUE.
every() {
	for cpu in $all_cpus; do
		printf '%s' "${sep:-}cpu$cpu=$1"
		sep=" "
	done
	sep=
	echo
}
rate() {
	./pmu-read --cpu "$1" --rate | sed -n 's/^rate=//p'
}
# least_rate CPU: the least of three rates: the kernel's share of the time
# (interrupts, and a loaded host descheduling qemu while the guest is in the
# kernel) comes and goes, a count of user space does not.
least_rate() {
	for i in 1 2 3; do rate "$1"; done | sort -n | head -n 1
}

check "insmod cycle_filter_set.ko value=$no_pl0 (what cycles:k leaves)" \
	insmod /opt/cycle_filter_set.ko value=$no_pl0
is "every CPU's cycle filter leaves PL0 out" "$(every $no_pl0)" "$(cat $filter)"

# shellcheck disable=SC2086 # one word
check "insmod cycle_enable.ko $grant_args" insmod "$ko" $grant_args
is "every CPU granted" "$all" "$(ce granted)"
is "the load put PL0 back into every CPU's cycle filter" \
	"$(every 0x00000000)" "$(cat $filter)"
for cpu in $all_cpus; do
	r=$(rate "$cpu")
	check "PMCCNTR counts user space on CPU $cpu (rate $r >= 500 per us)" \
		at_least 500 "$r"
done

# cycles:k again, after the grant: the counter reads but counts nothing of
# the program's, and the module says so.
echo $no_pl0 >$filter
r=$(least_rate 0)
check "the filter leaves PL0 out again: PMCCNTR counts only the kernel's share on CPU 0 (rate $r < 500 per us)" \
	below 500 "$r"
is "revoked lists every CPU whose filter leaves PL0 out" "$all" "$(ce revoked)"
check "writing 1 to rearm succeeds" sh -c "echo 1 >$sysfs/rearm"
is "rearm put PL0 back into every CPU's cycle filter" \
	"$(every 0x00000000)" "$(cat $filter)"
r=$(rate 0)
check "after rearm PMCCNTR counts user space on CPU 0 again (rate $r >= 500 per us)" \
	at_least 500 "$r"
is "after rearm revoked is empty" "" "$(ce revoked)"

check "rmmod cycle_enable" rmmod cycle_enable
is "rmmod put back the filter it found on every CPU" \
	"$(every $no_pl0)" "$(cat $filter)"
check "rmmod cycle_filter_set" rmmod cycle_filter_set
check "the kernel log has no warning, bug or oops" kernel_trouble

done_testing
