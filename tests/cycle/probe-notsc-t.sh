#!/bin/sh
# probe-notsc-t: cycle-probe started with rdtsc turned off (PR_SET_TSC inherited).
# SPDX-License-Identifier: MIT
#
# A sandbox or a record-and-replay tool turns rdtsc off with
# prctl(PR_SET_TSC, PR_TSC_SIGSEGV) and then execs the program: the probe
# must report rdtsc as trapping and select clock_gettime.  Two facts of the
# kernel decide what can be shown:
#  - some hypervisors accept PR_SET_TSC and still let rdtsc run (CI's
#    machine is one): nothing traps, so the test says so and skips;
#  - where the kernel honours it, glibc's dynamic loader itself reads the
#    TSC before main (_dl_start), so no dynamically linked program can
#    start: the test checks that it is the loader (the probe's --version,
#    which reads no counter, dies too) and runs a statically linked probe.
# A program that turns rdtsc off itself after start-up is revoke-t's case.
#
# Plain POSIX sh without python: the same script runs in Debian's amd64
# kernel under qemu (tests/qemu/check-x86-tsc, busybox), where PR_SET_TSC is
# honoured and CYCLE_TEST_TSC=honoured makes any other answer a failure.
# NOTSC, PROBE and PROBE_STATIC name the programs (default: this build's).
set -u

b=${top_builddir:-.}
notsc=${NOTSC:-$b/tests/cycle/notsc}
probe=${PROBE:-$b/cycle/cycle-probe}
static_probe=${PROBE_STATIC:-$b/tests/cycle/cycle-probe-static}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "${top_srcdir:-.}/tests/tap/libtap.sh"
TAP_DIAG=$tmp/diag

if [ -n "${TEST_EMULATOR:-}" ]; then
	echo "1..0 # SKIP PR_SET_TSC is x86's, tested natively (this build runs under $TEST_EMULATOR)"
	exit 0
fi
for p in "$notsc" "$probe" "$static_probe"; do
	[ -x "$p" ] || { echo "Bail out! $p was not built"; exit 1; }
done
"$notsc" --check
tsc=$?
if [ "$tsc" -eq 77 ]; then
	echo "1..0 # SKIP no PR_SET_TSC here (x86 only)"
	exit 0
fi

# traps_and_falls_back JSON: rdtsc traps and clock_gettime is selected.
traps_and_falls_back() {
	grep -q '"name": "rdtsc", "status": "traps"' "$1" &&
		grep -q '"selected": "clock_gettime"' "$1"
}

echo "1..4"
case $tsc in
0) ok 0 "this kernel honours PR_SET_TSC: rdtsc faults after it" ;;
1)
	[ "${CYCLE_TEST_TSC:-}" != honoured ]
	ok $? "this kernel accepts PR_SET_TSC but lets rdtsc run (a hypervisor that does not pass CR4.TSD on)" ;;
*) ok 1 "notsc --check answers (status $tsc)" ;;
esac

if [ "$tsc" -ne 0 ]; then
	# Nothing traps: the header, told by PR_GET_TSC that rdtsc may trap,
	# tries it under its guard, finds it readable and keeps it.
	"$notsc" "$static_probe" --json >"$tmp/json" 2>"$TAP_DIAG"
	rc=$?
	[ "$rc" -eq 0 ] && grep -q '"name": "rdtsc", "status": "available"' "$tmp/json" &&
		grep -q '"selected": "rdtsc"' "$tmp/json"
	ok $? "the probe started with PR_SET_TSC finds rdtsc readable and selects it (exit $rc)"
	skip "rdtsc does not trap here: tests/qemu/check-x86-tsc runs this where it does"
	skip "rdtsc does not trap here: tests/qemu/check-x86-tsc runs this where it does"
	tap_status
	exit
fi

# A dynamically linked probe: it works, or it dies before main, as every
# dynamically linked program does here.
"$notsc" "$probe" --json >"$tmp/json" 2>"$TAP_DIAG"
rc=$?
if [ "$rc" -le 1 ]; then
	traps_and_falls_back "$tmp/json"
	ok $? "the dynamically linked probe starts, finds rdtsc trapping, selects clock_gettime"
else
	"$notsc" "$probe" --version >"$tmp/version" 2>/dev/null
	vrc=$?
	"$probe" --version >/dev/null 2>&1
	prc=$?
	[ "$vrc" -gt 128 ] && [ ! -s "$tmp/version" ] && [ ! -s "$tmp/json" ] && [ "$prc" -eq 0 ]
	ok $? "the dynamically linked probe cannot start (exit $rc; --version, which reads no counter, exits $vrc): the loader reads the TSC before main"
fi

"$notsc" "$static_probe" --json >"$tmp/json" 2>"$TAP_DIAG"
rc=$?
traps_and_falls_back "$tmp/json"
ok $? "the statically linked probe finds rdtsc trapping and selects clock_gettime"
sed -n 's/^ *\("selected"\|"configured"\)/# \1/p' "$tmp/json"
[ "$rc" -eq 1 ]
ok $? "its exit status is 1, only a fallback usable ($rc)"
tap_status
