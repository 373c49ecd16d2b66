# module-lifecycle.sh: guest side of scenarios 1-6 and the parameter checks, on a CPU with a PMU.
# SPDX-License-Identifier: MIT
#
# Runs inside the VM (vm-run --file guest-tap.sh --script module-lifecycle.sh)
# on two or more CPUs: before load, bad parameters, load, CPU hotplug, CPU
# PM exit, perf taking the PMU, unload, then 50 load/unload cycles.  pmu-read is the
# oracle of what the hardware allows; ticks-loop and cycle-probe are what
# users run.

# shellcheck source=tests/qemu/scenarios/guest-tap.sh
. /opt/guest-tap.sh
ko=/opt/cycle_enable.ko
sysfs=/sys/kernel/cycle_enable
hot_cpu=$((cpu_count - 1))

# 1. Before load: the PMU counter traps and cycle.h falls back.
is "before load: $pmu_counter traps on CPU 0" traps "$(./pmu-read --cpu 0)"
consumer --seconds 1
is "before load: a cycle.h consumer exits 0" 0 "$consumer_status"
diag "$consumer_out"
isnt "before load: the consumer does not use $pmu_counter" \
	"$pmu_counter" "$consumer_start"
is "before load: cycle-probe exits 1 (only a fallback usable)" 1 "$(run_probe)"
is "before load: cycle-probe reports $pmu_counter as trapping" \
	traps "$(probe_status "$pmu_counter")"
isnt "before load: cycle-probe does not select $pmu_counter" \
	"$pmu_counter" "$(probe_selected)"

# Default parameters grant read access only.  ARMv7 PMUs have no read-only
# mode: there the load refuses every CPU and says why.
check "insmod cycle_enable.ko (default parameters)" insmod "$ko"
is "default parameters: an EL0 write to PMCR traps" traps \
	"$(./pmu-read --pmcr-write --cpu 0)"
if [ -n "$grant_args" ]; then
	is "default parameters on ARMv7: every CPU refused" \
		"0-$((cpu_count - 1))" "$(ce refused)"
	is "default parameters on ARMv7: no CPU granted" "" "$(ce granted)"
	check "the load message names the refused CPUs and why" \
		sh -c "dmesg | grep -q 'refused on CPUs 0-$((cpu_count - 1)) (needs-user-write): '"
	is "default parameters on ARMv7: $pmu_counter traps" traps \
		"$(./pmu-read --cpu 0)"
else
	is "default parameters: every CPU granted" "0-$((cpu_count - 1))" \
		"$(ce granted)"
fi
check "rmmod cycle_enable" rmmod cycle_enable

# Invalid parameters make the load fail and name the parameter.
for bad in event_read=banana count_el1=2 user_write=maybe; do
	param=${bad%%=*}
	refuse "insmod $bad fails" sh -c "insmod $ko $bad 2>/dev/null"
	# The kernel quotes it as `name' (older) or 'name' (newer).
	check "the kernel log names '$param'" \
		sh -c "dmesg | grep -q \"invalid for parameter .$param'\""
	check "after insmod $bad the module is not loaded" \
		test ! -d /sys/module/cycle_enable
done
# count_el1=0 asks to leave the kernel out: not done on 32-bit ARM.
alt_args="event_read=1 user_write=1 count_el1=0"
if [ -n "$grant_args" ]; then
	refuse "ARMv7: insmod count_el1=0 fails" \
		sh -c "insmod $ko count_el1=0 2>/dev/null"
	check "ARMv7: the kernel log says count_el1=0 is not supported" \
		sh -c "dmesg | grep -q 'count_el1=0: not supported on 32-bit ARM'"
	check "ARMv7: after insmod count_el1=0 the module is not loaded" \
		test ! -d /sys/module/cycle_enable
	alt_args="event_read=1 user_write=1"
fi

# 2. After load: every CPU reads a counting PMU counter from user space.
# shellcheck disable=SC2086 # empty or one word
check "insmod cycle_enable.ko $grant_args" insmod "$ko" $grant_args
for cpu in $all_cpus; do
	is "after load: $pmu_counter counts on CPU $cpu" \
		counts "$(./pmu-read --cpu "$cpu")"
	consumer --cpu "$cpu" --seconds 1
	is "after load: the consumer pinned to CPU $cpu exits 0" \
		0 "$consumer_status"
	is "after load: the consumer on CPU $cpu uses $pmu_counter" \
		"$pmu_counter" "$consumer_start"
done
if [ "$pmu_counter" = PMCCNTR_EL0 ]; then
	is "after load: event counters stay closed without event_read" \
		traps "$(./pmu-read --event)"
fi
diag "$(cat "$sysfs/status")"
is "status shows every CPU with a PMU and granted" "$cpu_count" \
	"$(grep -c 'online=1 pmu=1 granted=1 rearms=0$' "$sysfs/status")"
is "granted lists every CPU" "0-$((cpu_count - 1))" "$(ce granted)"
is "refused is empty" "" "$(ce refused)"
is "revoked is empty" "" "$(ce revoked)"
check "the load message lists the granted CPUs" \
	sh -c "dmesg | grep -q 'granted on CPUs 0-$((cpu_count - 1))\$'"
is "after load: cycle-probe exits 0" 0 "$(run_probe)"
is "after load: cycle-probe selects $pmu_counter" \
	"$pmu_counter" "$(probe_selected)"
is "after load: cycle-probe reports $pmu_counter available" \
	available "$(probe_status "$pmu_counter")"

# 3. A CPU taken offline and back keeps access (Linux resets PMUSERENR).
online=/sys/devices/system/cpu/cpu$hot_cpu/online
check "CPU $hot_cpu goes offline" sh -c "echo 0 >$online"
is "status shows CPU $hot_cpu offline" \
	"cpu$hot_cpu online=0 pmu=1 granted=0 rearms=0" "$(cpu_status "$hot_cpu")"
check "CPU $hot_cpu comes back online" sh -c "echo 1 >$online"
is "after offline/online: $pmu_counter counts on CPU $hot_cpu" \
	counts "$(./pmu-read --cpu "$hot_cpu")"
is "status counts one re-arm of CPU $hot_cpu" \
	"cpu$hot_cpu online=1 pmu=1 granted=1 rearms=1" "$(cpu_status "$hot_cpu")"

# 3b. CPU PM exit: a hibernation dry run (pm_test=core) sends CPU 0 through
# CPU_PM_ENTER/EXIT, where Linux resets its PMU (PMCR.E off: frozen).
if [ -w /sys/power/pm_test ] && grep -qw disk /sys/power/state; then
	check "hibernation dry run (pm_test=core) completes" \
		sh -c "echo core >/sys/power/pm_test && echo disk >/sys/power/state"
	echo none >/sys/power/pm_test
	for cpu in $all_cpus; do
		is "after CPU PM exit: $pmu_counter counts on CPU $cpu" \
			counts "$(./pmu-read --cpu "$cpu")"
	done
	is "status counts one re-arm of CPU 0 (CPU PM exit)" \
		"cpu0 online=1 pmu=1 granted=1 rearms=1" "$(cpu_status 0)"
else
	skip $((cpu_count + 2)) "no hibernation test mode in this kernel"
fi

# 4. perf takes the PMU of one CPU while a consumer reads it there.  The
# armhf guest has no perf driver for its PMU (perf-cycles exits 3).
./ticks-loop --cpu "$hot_cpu" --seconds 4 >/tmp/loop.out 2>&1 &
loop_pid=$!
sleep 1
perf_status=0
./perf-cycles --cpu "$hot_cpu" --seconds 1 >/tmp/perf.out 2>&1 ||
	perf_status=$?
diag "$(cat /tmp/perf.out)"
loop_status=0
wait "$loop_pid" || loop_status=$?
diag "$(cat /tmp/loop.out)"
if [ "$perf_status" = 3 ]; then
	skip 4 "the kernel has no perf driver for this PMU"
else
	is "perf_event_open cycles on CPU $hot_cpu for 1 s" 0 "$perf_status"
	is "the consumer on CPU $hot_cpu survives the perf event" \
		0 "$loop_status"
	is "perf revoked access: $pmu_counter traps on CPU $hot_cpu" \
		traps "$(./pmu-read --cpu "$hot_cpu")"
	is "revoked names CPU $hot_cpu" "$hot_cpu" "$(ce revoked)"
fi
refuse "writing 2 to rearm is refused" sh -c "echo 2 2>/dev/null >$sysfs/rearm"
refuse "writing 'yes' to rearm is refused" \
	sh -c "echo yes 2>/dev/null >$sysfs/rearm"
check "writing 1 to rearm succeeds" sh -c "echo 1 >$sysfs/rearm"
is "after rearm: $pmu_counter counts on CPU $hot_cpu" \
	counts "$(./pmu-read --cpu "$hot_cpu")"
is "after rearm: revoked is empty" "" "$(ce revoked)"
is "after rearm: granted lists every CPU" "0-$((cpu_count - 1))" \
	"$(ce granted)"
consumer --cpu "$hot_cpu" --seconds 1
is "after rearm: the consumer on CPU $hot_cpu exits 0" 0 "$consumer_status"

# Writing kernel.perf_user_access (arm64) clears PMUSERENR on every CPU,
# even 0 over 0; rearm grants again.
if [ -w /proc/sys/kernel/perf_user_access ]; then
	echo 0 >/proc/sys/kernel/perf_user_access
	is "writing perf_user_access revokes every CPU" \
		"0-$((cpu_count - 1))" "$(ce revoked)"
	echo 1 >"$sysfs/rearm"
	is "rearm after the sysctl write: revoked is empty" "" "$(ce revoked)"
fi

# 5. Unload restores the registers: the counter traps, consumers fall back.
check "rmmod cycle_enable" rmmod cycle_enable
for cpu in $all_cpus; do
	is "after unload: $pmu_counter traps on CPU $cpu" \
		traps "$(./pmu-read --cpu "$cpu")"
done
check "after unload: $sysfs is gone" test ! -e "$sysfs"
consumer --seconds 1
is "after unload: the consumer exits 0" 0 "$consumer_status"
isnt "after unload: the consumer does not use $pmu_counter" \
	"$pmu_counter" "$consumer_start"
is "after unload: cycle-probe exits 1" 1 "$(run_probe)"
is "after unload: cycle-probe reports $pmu_counter as trapping" \
	traps "$(probe_status "$pmu_counter")"

# The parameters that widen access (arm64: PMUSERENR_EL0.ER).
if [ "$pmu_counter" = PMCCNTR_EL0 ]; then
	check "insmod cycle_enable.ko event_read=1" insmod "$ko" event_read=1
	isnt "with event_read=1: event counters read from user space" \
		traps "$(./pmu-read --event)"
	check "rmmod cycle_enable" rmmod cycle_enable
	is "after unload: event counters trap again" \
		traps "$(./pmu-read --event)"
fi

# 5b. Unloading never stops perf: a perf session counts on CPU 0 while the
# module grants again over it (rearm, then a CPU PM exit), then the module
# goes; perf's count must still advance.
rm -f /tmp/go
# shellcheck disable=SC2086
insmod "$ko" $grant_args
./perf-watch --cpu 0 --until /tmp/go >/tmp/watch.out 2>&1 &
watch_pid=$!
sleep 1
if ! kill -0 "$watch_pid" 2>/dev/null; then
	watch_status=0
	wait "$watch_pid" || watch_status=$?
	rmmod cycle_enable
	diag "$(cat /tmp/watch.out)"
	if [ "$watch_status" = 3 ]; then
		skip 5 "the kernel has no perf driver for this PMU"
	else
		not_ok "perf-watch keeps a perf session open on CPU 0"
		skip 4 "no perf session"
	fi
else
	is "a perf session on CPU 0 revokes its grant" 0 "$(ce revoked)"
	# perf takes the grant back at each of its overflows (every few
	# seconds here): read revoked right after the rearm, a few times.
	tries=0
	while [ "$tries" -lt 5 ]; do
		echo 1 >"$sysfs/rearm"
		revoked=$(ce revoked)
		[ -n "$revoked" ] || break
		tries=$((tries + 1))
	done
	is "rearm grants CPU 0 again under perf" "" "$revoked"
	if [ -w /sys/power/pm_test ] && grep -qw disk /sys/power/state; then
		before=$(rearms 0)
		echo core >/sys/power/pm_test && echo disk >/sys/power/state
		echo none >/sys/power/pm_test
		diag "$(cpu_status 0)"
		check "a CPU PM exit under perf grants CPU 0 again" \
			test "$(rearms 0)" -gt "$before"
	else
		skip 1 "no hibernation test mode in this kernel"
	fi
	# Grant once more just before the unload: what the old module got
	# wrong was unloading over a re-grant.
	echo 1 >"$sysfs/rearm"
	check "rmmod cycle_enable during the perf session" rmmod cycle_enable
	touch /tmp/go
	watch_status=0
	wait "$watch_pid" || watch_status=$?
	diag "$(cat /tmp/watch.out)"
	is "perf's count on CPU 0 still advances after rmmod" 0 "$watch_status"
fi

# Unload, then load with other parameters: they take effect.
check "insmod with user_write=1" insmod "$ko" user_write=1
is "with user_write=1: an EL0 write to PMCR works" writes \
	"$(./pmu-read --pmcr-write --cpu 0)"
check "rmmod cycle_enable" rmmod cycle_enable
is "after unload: an EL0 write to PMCR traps again" traps \
	"$(./pmu-read --pmcr-write --cpu 0)"

# 6. 50 load/unload cycles, every other one with the non-default parameters.
failures=0
i=0
while [ "$i" -lt 50 ]; do
	if [ $((i % 2)) -eq 0 ]; then
		# shellcheck disable=SC2086
		insmod "$ko" $grant_args || failures=$((failures + 1))
	else
		# shellcheck disable=SC2086
		insmod "$ko" $alt_args || failures=$((failures + 1))
	fi
	[ "$(./pmu-read)" = counts ] || failures=$((failures + 1))
	rmmod cycle_enable || failures=$((failures + 1))
	i=$((i + 1))
done
is "50 load/unload cycles: every load, read and unload worked" 0 "$failures"
for cpu in $all_cpus; do
	is "after 50 cycles: $pmu_counter traps on CPU $cpu" \
		traps "$(./pmu-read --cpu "$cpu")"
done
check "no kernel WARNING, BUG or Oops in the whole run" kernel_trouble

done_testing
