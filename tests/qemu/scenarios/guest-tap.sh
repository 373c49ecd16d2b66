# guest-tap.sh: TAP output and probes for the scripts that run inside the test VM.
# SPDX-License-Identifier: MIT
#
# Sourced by the scenario scripts (busybox sh).  They print one TAP line per
# check and the plan at the end; check-vm renumbers the lines of every boot.

# shellcheck disable=SC2034 # the variables set here are for the sourcing scripts
tap_count=0
tap_failed=0

ok() {
	tap_count=$((tap_count + 1))
	echo "ok $tap_count - $*"
}

not_ok() {
	tap_count=$((tap_count + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_count - $*"
}

# skip COUNT REASON: COUNT checks that cannot run here.
skip() {
	n=$1
	while [ "$n" -gt 0 ]; do
		tap_count=$((tap_count + 1))
		echo "ok $tap_count # SKIP $2"
		n=$((n - 1))
	done
}

diag() {
	echo "$*" | sed 's/^/# /'
}

# check DESCRIPTION COMMAND...: ok when COMMAND succeeds.
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# refuse DESCRIPTION COMMAND...: ok when COMMAND fails.
refuse() {
	desc=$1
	shift
	if "$@"; then not_ok "$desc"; else ok "$desc"; fi
}

# is DESCRIPTION EXPECTED ACTUAL
is() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		diag "expected '$2', got '$3'"
	fi
}

# isnt DESCRIPTION UNWANTED ACTUAL
isnt() {
	if [ "$2" != "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		diag "got '$3', which it must not be"
	fi
}

# done_testing: print the plan; the status tells whether every check passed.
done_testing() {
	echo "1..$tap_count"
	[ "$tap_failed" -eq 0 ]
}

# The PMU cycle counter, by the name cycle.h and cycle-probe give it.
case $(uname -m) in
aarch64) pmu_counter=PMCCNTR_EL0 ;;
*) pmu_counter=PMCCNTR ;;
esac

# The parameters that grant the cycle counter: ARMv7 PMUs have no read-only
# user access, so there the module grants only with user_write=1.
case $pmu_counter in
PMCCNTR) grant_args=user_write=1 ;;
*) grant_args= ;;
esac

cpu_count=$(nproc)
all_cpus=$(seq 0 $((cpu_count - 1)))

# run_probe [PROBE]: run cycle-probe (or PROBE) --json into /tmp/probe.json,
# print its status.
run_probe() {
	st=0
	"${1:-/opt/cycle-probe}" --json >/tmp/probe.json 2>/tmp/probe.err || st=$?
	echo "$st"
}

# probe_selected: the counter cycle-probe says getticks() uses.
probe_selected() {
	tr -d '\n' </tmp/probe.json |
		sed -n 's/.*"selected": *"\([^"]*\)".*/\1/p'
}

# probe_status NAME: the status of counter NAME over all CPUs probed (the
# "counters" list, which comes before the per-CPU "cpus" list).
probe_status() {
	tr -d '\n' </tmp/probe.json | sed 's/"cpus":.*//' | tr '{' '\n' |
		grep "\"name\": *\"$1\"" |
		sed -n 's/.*"status": *"\([a-z]*\)".*/\1/p' | head -n 1
}

# consumer [ARGS...]: run ticks-loop; sets consumer_status, consumer_start
# (the counter it began with) and consumer_out.
consumer() {
	consumer_status=0
	consumer_out=$(/opt/ticks-loop "$@" 2>&1) || consumer_status=$?
	consumer_start=$(echo "$consumer_out" |
		sed -n 's/.*start=\([^ ]*\).*/\1/p')
}

# cpu_status CPU: that CPU's line of /sys/kernel/cycle_enable/status.
cpu_status() {
	grep "^cpu$1 " /sys/kernel/cycle_enable/status
}

# rearms CPU: the re-grant count of that CPU in the status file.
rearms() {
	cpu_status "$1" | sed -n 's/.* rearms=\([0-9]*\).*/\1/p'
}

# ce NAME: the contents of /sys/kernel/cycle_enable/NAME (a cpulist: an
# empty list is an empty line).
ce() {
	cat "/sys/kernel/cycle_enable/$1"
}

# below LIMIT VALUE, at_least LIMIT VALUE: VALUE < LIMIT, VALUE >= LIMIT
# (decimals); both false for an empty VALUE (the measuring program failed).
below() {
	[ -n "$2" ] && awk -v v="$2" -v l="$1" 'BEGIN { exit !(v < l) }'
}
at_least() {
	[ -n "$2" ] && awk -v v="$2" -v l="$1" 'BEGIN { exit !(v >= l) }'
}

# kernel_trouble: print kernel warnings, bugs and oopses so far; status 0
# when there was none.
kernel_trouble() {
	! dmesg | grep -E 'WARNING:|BUG:|Oops|Unable to handle|Call trace:|invalid opcode|Internal error'
}
