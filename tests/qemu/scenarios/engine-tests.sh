# engine-tests.sh: guest side of the engine tests, the C tests of tests/cycle/ on a real kernel.
# SPDX-License-Identifier: MIT
# shellcheck shell=sh
#
# The C tests of tests/cycle/ that drive cycle.h's engine, cross-built
# statically with the PMU counter configured (check-vm), run on the stock
# kernel: PMCCNTR(_EL0) traps, and the kernel, not qemu-user, delivers the
# SIGILL, lays out the signal frame, sets si_code and si_addr, and leaves
# the registers a handler without SA_SIGINFO sees.  Or with the module
# loaded, where the PMU counter is really granted: the tests must hold, or
# skip what needs a trap, where a developer's board has the module.
#
# /opt/engine-tests.env says how: programs_counter, the PMU counter the
# programs are built for (PMCCNTR for armhf programs, also on the arm64
# kernel, which runs them in AArch32 as Debian's armhf buildds and
# Raspberry Pi OS do); with_module, 1 to load the module first;
# perf_user_access, 1 to set that sysctl first (arm64, no module): the
# thread's PMCCNTR_EL0 through a perf event, the perf tier, is chosen.
# /opt/engine-tests.list names the programs, one a line.  One TAP line per
# program: ok when it exited 0, printed its whole plan and no "not ok"; a
# program that skips as a whole is a skip with its reason.  Each runs with
# CYCLE_DEBUG=1: its "cycle.h:" lines (every process's choice and
# revocation) are shown, counted, as diagnostics.

# shellcheck source=tests/qemu/scenarios/guest-tap.sh
. /opt/guest-tap.sh

# A program that hangs is killed after this many seconds (the tests that
# stage races retry for at most 60 s per window, handler-t twice).
limit=150

# setting NAME: NAME's value in /opt/engine-tests.env (check-vm's).
setting() {
	sed -n "s/^$1=//p" /opt/engine-tests.env
}
programs_counter=$(setting programs_counter)
with_module=$(setting with_module)
perf_user_access=$(setting perf_user_access)
case $programs_counter/$with_module/$perf_user_access in
PMCCNTR/[01]/0 | PMCCNTR_EL0/[01]/0 | PMCCNTR_EL0/0/1) ;;
*)
	echo "Bail out! /opt/engine-tests.env: programs_counter" \
		"'$programs_counter', with_module '$with_module'," \
		"perf_user_access '$perf_user_access'"
	exit 1
	;;
esac

# The counter the choice must make here, for getticks-t: the PMU's with
# the module; with perf_user_access, the perf tier (the direct read still
# traps); the stock kernel denies it to user space, and lets it read
# the generic timer where it keeps time with it (a Cortex-A9 has none: the
# clock).
if [ "$with_module" = 1 ]; then
	expect=$programs_counter
elif [ "$perf_user_access" = 1 ]; then
	expect=PMCCNTR_EL0_perf
elif grep -q arch_sys_counter \
	/sys/devices/system/clocksource/clocksource0/available_clocksource; then
	case $programs_counter in
	PMCCNTR_EL0) expect=CNTVCT_EL0 ;;
	*) expect=CNTVCT ;;
	esac
else
	expect=clock_gettime
fi
diag "programs built for $programs_counter, kernel $(uname -m), module ${with_module}, perf_user_access ${perf_user_access}: getticks-t must choose $expect here"

# The precondition of every result below.
if [ "$with_module" = 1 ]; then
	# shellcheck disable=SC2086 # no arguments, or one
	check "insmod cycle_enable.ko $grant_args" \
		insmod /opt/cycle_enable.ko $grant_args
	is "with the module: $pmu_counter counts" counts \
		"$(/opt/pmu-read --cpu 0)"
else
	is "the stock kernel: $pmu_counter traps (no module loaded)" traps \
		"$(/opt/pmu-read --cpu 0)"
fi
if [ "$perf_user_access" = 1 ]; then
	{ echo 1 >/proc/sys/kernel/perf_user_access; } 2>/dev/null
	is "kernel.perf_user_access is 1" 1 \
		"$(cat /proc/sys/kernel/perf_user_access 2>&1)"
fi

# run_test NAME: run /opt/NAME and report it in one line.
run_test() {
	name=$1 out=/tmp/$1.out err=/tmp/$1.err
	if [ ! -x "/opt/$name" ]; then
		not_ok "$name: the program is in /opt"
		return
	fi
	started=$(date +%s)
	st=0
	CYCLE_DEBUG=1 CYCLE_TEST_EXPECT=$expect \
		timeout -s KILL "$limit" "/opt/$name" </dev/null >"$out" 2>"$err" ||
		st=$?
	took=$(($(date +%s) - started))
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$out" | head -n 1)
	results=$(grep -c '^\(not \)\{0,1\}ok ' "$out")
	failures=$(grep -c '^not ok' "$out")
	skips=$(grep -c '^ok [0-9]* # SKIP' "$out")
	why="exit $st, plan '${plan:-none}', $results results, $failures not ok"
	if [ "$st" = 0 ] && [ "$plan" = 0 ] && [ "$results" = 0 ] &&
		grep -q '^1\.\.0 # SKIP' "$out"; then
		reason=$(sed -n 's/^1\.\.0 # SKIP *//p' "$out" | head -n 1)
		# Only the programs check-vm names may skip as a whole here: a
		# skip is no pass where the engine should run.
		if grep -qx "$name" /opt/engine-tests.skips; then
			skip 1 "$name: $reason"
		else
			not_ok "$name skipped as a whole, which it must not here ($reason)"
		fi
	elif [ "$st" = 0 ] && [ -n "$plan" ] && [ "$plan" = "$results" ] &&
		[ "$failures" = 0 ] && ! grep -q '^Bail out!' "$out"; then
		ok "$name ($results checks, $skips skipped)"
	else
		not_ok "$name ($why)"
		[ "$st" != 137 ] || diag "$name: killed (the limit is $limit s)"
		diag "$(sed "s/^/$name: | /" "$out")"
	fi
	diag "$name: ran $took s"
	# The checks that skipped, and what the guard said.
	grep '^ok [0-9]* # SKIP' "$out" | sed "s/^/$name: /" | while IFS= read -r l; do
		diag "$l"
	done
	grep '^cycle\.h:' "$err" | sort | uniq -c |
		sed "s/^ *\([0-9]*\) /$name: \1x /" | while IFS= read -r l; do
		diag "$l"
	done
	grep -v '^cycle\.h:' "$err" | tail -n 10 | sed "s/^/$name: stderr: /" |
		while IFS= read -r l; do
			diag "$l"
		done
}

while IFS= read -r t; do
	[ -z "$t" ] || run_test "$t"
done </opt/engine-tests.list

done_testing
