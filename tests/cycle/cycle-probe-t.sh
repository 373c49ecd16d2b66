#!/bin/sh
# cycle-probe-t: cycle-probe's report, its JSON, its exit codes and its errors.
# SPDX-License-Identifier: MIT
#
# Runs the probe through $TEST_EMULATOR in a cross build.  CYCLE_TEST_EXPECT,
# when set, is the counter this machine must select.
set -u

probe="${top_builddir:-.}/cycle/cycle-probe"
run() { ${TEST_EMULATOR:-} "$probe" "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "${top_srcdir:-.}/tests/tap/libtap.sh"
TAP_DIAG=$tmp/err
lines() { wc -l <"$1" | tr -d ' '; }

echo "1..31"
[ -x "$probe" ] || { echo "Bail out! $probe was not built"; exit 1; }

run --version >"$tmp/out" 2>"$tmp/err"
ok $? "--version exits 0 ($(head -1 "$tmp/out"))"
run --help >"$tmp/out" 2>"$tmp/err"
rc=$?
grep -q -- --json "$tmp/out"
ok $((rc + $?)) "--help exits 0 and documents --json"

run --no-such-option >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(lines "$tmp/err")" -eq 1 ]
ok $? "an unknown option: exit 2 ($rc) and one line on stderr"
run --cpu 4096 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(lines "$tmp/err")" -eq 1 ] && grep -q 4096 "$tmp/err"
ok $? "a CPU that does not exist: exit 2 ($rc), named on stderr"
run --cpu 0-x >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(lines "$tmp/err")" -eq 1 ]
ok $? "a malformed CPU list: exit 2 ($rc)"

start=$(date +%s%N)
run >"$tmp/text" 2>"$tmp/err"
text_rc=$?
end=$(date +%s%N)
[ "$text_rc" -le 1 ] && grep -q '^selected: ' "$tmp/text"
ok $? "the report runs (exit $text_rc) and says what is selected"
sed 's/^/# /' "$tmp/text"
echo "# report took $(((end - start) / 1000000)) ms"

run --json >"$tmp/json" 2>"$tmp/err"
json_rc=$?
[ "$json_rc" -le 1 ]
ok $? "--json runs (exit $json_rc)"
check() { # check PYTHON-EXPRESSION DESCRIPTION: j is the parsed report
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$tmp/json" 2>"$tmp/err"
	ok $? "$2"
}
check "True" "the JSON parses"
check "isinstance(j['arch'], str) and isinstance(j['selected'], str) and all(isinstance(c['name'], str) and c['status'] in ('available','traps','frozen','unavailable','absent') and (c['hz'] is None or c['hz'] >= 0) for c in j['counters'])" \
	"it has arch, selected, and counters with name, status and hz"
check "any(c['name'] == j['selected'] and c['status'] == 'available' for c in j['counters']) or j['selected'] == 'clock_gettime'" \
	"the selected counter is one the probe found available"
want=0
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if [c for c in j['counters'] if c['name']==j['configured']][0]['status']=='available' else 1)" "$tmp/json" 2>/dev/null || want=1
[ "$json_rc" -eq "$want" ] && [ "$text_rc" -eq "$want" ]
ok $? "exit status is $want: 0 only when the configured counter is usable"
if [ -n "${CYCLE_TEST_EXPECT:-}" ]; then
	check "j['selected'] == '$CYCLE_TEST_EXPECT'" "selected is $CYCLE_TEST_EXPECT"
else
	skip "CYCLE_TEST_EXPECT not set"
fi
online=$(getconf _NPROCESSORS_ONLN)
check "len(j['cpus']) == $online" "every online CPU is probed ($online)"
run --json --cpu 0 >"$tmp/json" 2>"$tmp/err"
check "[c['cpu'] for c in j['cpus']] == [0]" "--cpu 0 probes CPU 0 only"

# Started on CPU 0 only (taskset, a cpuset): the probe stays within it, and
# --cpu selects within it.  (qemu-user passes the affinity calls through.)
if [ "$online" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
	taskset -c 0 ${TEST_EMULATOR:-} "$probe" --json >"$tmp/json" 2>"$tmp/err"
	check "[c['cpu'] for c in j['cpus']] == [0]" "under taskset -c 0 only CPU 0 is probed"
	taskset -c 0 ${TEST_EMULATOR:-} "$probe" --cpu 1 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(lines "$tmp/err")" -eq 1 ] && grep -q 'affinity' "$tmp/err"
	ok $? "under taskset -c 0, --cpu 1 is an error: exit $rc, $(cat "$tmp/err")"
else
	skip "needs two online CPUs and taskset"
	skip "needs two online CPUs and taskset"
fi

# --qualify: a verdict per counter, consistent with the exit status, the
# JSON and the Markdown report.
run --qualify --report "$tmp/report.md" >"$tmp/q.txt" 2>"$tmp/err"
q_rc=$?
[ "$q_rc" -le 1 ] && grep -q '^qualified: ' "$tmp/q.txt" &&
	grep -q '^verdict: clock_gettime: ' "$tmp/q.txt"
ok $? "--qualify runs (exit $q_rc), gives a verdict per counter and a conclusion"
sed 's/^/# /' "$tmp/q.txt"
run --qualify --json >"$tmp/json" 2>"$tmp/err"
qj_rc=$?
check "all(c['verdict'] in ('fit', 'pinned', 'not-fit') for c in j['qualify']['counters']) and [c['name'] for c in j['qualify']['counters']] == [c['name'] for c in j['counters']]" \
	"--qualify --json: a verdict (fit, pinned, not-fit) for every counter"
check "[c for c in j['qualify']['counters'] if c['name'] == 'clock_gettime'][0]['verdict'] == 'fit'" \
	"clock_gettime, measured against itself, is fit for planning"
check "all(c['verdict'] == 'not-fit' and 'traps' in c['reason'] for c in j['qualify']['counters'] if any(s == 'traps' for s in [x['per_cpu_status'] for x in j['counters'] if x['name'] == c['name']][0].values()))" \
	"every counter that traps somewhere is not fit, and the reason says it traps"
check "all(x['offset_ns'] is not None and x['sleep_ratio'] is not None for c in j['qualify']['counters'] if c['name'] == 'clock_gettime' for x in c['cpus'])" \
	"clock_gettime has an offset and a sleep share on every CPU"
check "len(j['cpus']) < 2 or all(abs(x['offset_ns']) <= x['offset_unc_ns'] + 1000 for c in j['qualify']['counters'] if c['name'] == 'clock_gettime' for x in c['cpus'])" \
	"clock_gettime's offsets between CPUs are within their uncertainty"
check "all(0.5 < x['sleep_ratio'] < 1.5 for c in j['qualify']['counters'] if c['name'] == 'clock_gettime' for x in c['cpus'])" \
	"clock_gettime counts a sleep (share between 0.5 and 1.5)"
check "0 < j['qualify']['seconds'] < 2 + 0.5 * len(j['cpus'])" \
	"the qualification stays within its bound (2 s + 0.5 s per CPU)"
check "j['qualify']['configured_fit'] == ($qj_rc == 0)" \
	"exit status $qj_rc: 0 exactly when the configured counter is fit"
[ "$q_rc" -eq "$qj_rc" ]
ok $? "the table and the JSON give the same exit status ($q_rc, $qj_rc)"
n_counters=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['counters']))" "$tmp/json")
[ -s "$tmp/report.md" ] && grep -q '^## Verdicts' "$tmp/report.md" &&
	[ "$(sed -n '/^## Verdicts/,/^## /p' "$tmp/report.md" | grep -c '^| [A-Za-z]')" -eq $((n_counters + 1)) ]
ok $? "--report writes Markdown with a verdict row per counter ($n_counters)"
sed -n '1,/^## Per CPU/p' "$tmp/report.md" | sed 's/^/# /'
run --report - >"$tmp/out" 2>"$tmp/err"
head -1 "$tmp/out" | grep -q '^# Cycle counter qualification' && ! grep -q '^selected: ' "$tmp/out"
ok $? "--report - writes the report, and only it, to standard output"
run --report "$tmp/no/such/dir/r.md" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(lines "$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ]
ok $? "an unwritable report: exit 2 ($rc) before measuring, one line on stderr"

# --vary-frequency where it cannot work: no cpufreq, or not root.
first_cpu=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['cpus'][0]['cpu'])" "$tmp/json" 2>/dev/null || echo 0)
maxfreq=/sys/devices/system/cpu/cpu$first_cpu/cpufreq/scaling_max_freq
if [ ! -e "$maxfreq" ] || [ ! -w "$maxfreq" ]; then
	run --vary-frequency --cpu "$first_cpu" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 2 ] && [ "$(lines "$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] &&
		grep -q 'cpufreq\|root' "$tmp/err"
	ok $? "--vary-frequency without writable cpufreq: exit 2 ($rc), $(cat "$tmp/err")"
else
	skip "cpufreq is writable here: --vary-frequency would change the frequency"
fi

# An inherited PR_TSC_SIGSEGV (x86): the probe reports rdtsc as trapping
# instead of dying in its own clock reads.
case $(${CC:-cc} -dumpmachine 2>/dev/null) in
x86_64-*|i?86-*)
	printf '#include <sys/prctl.h>\n#include <unistd.h>\nint main(int c, char **v) { (void)c; if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0)) return 99; execv(v[1], v + 1); return 98; }\n' >"$tmp/notsc.c"
	printf 'int main(void) { unsigned a, d; __asm__ __volatile__("rdtsc" : "=a"(a), "=d"(d)); return 0; }\n' >"$tmp/rdtsc.c"
	if ${CC:-cc} -o "$tmp/notsc" "$tmp/notsc.c" 2>/dev/null &&
		${CC:-cc} -o "$tmp/rdtsc" "$tmp/rdtsc.c" 2>/dev/null &&
		! "$tmp/notsc" "$tmp/rdtsc" 2>/dev/null; then
		"$tmp/notsc" "$probe" --json >"$tmp/json" 2>"$tmp/err"
		check "[c for c in j['counters'] if c['name']=='rdtsc'][0]['status']=='traps' and j['selected']=='clock_gettime'" \
			"with PR_TSC_SIGSEGV inherited: rdtsc traps, clock_gettime selected"
	else
		skip "PR_SET_TSC does not stop rdtsc on this kernel or hypervisor"
	fi ;;
*) skip "PR_SET_TSC is x86 only" ;;
esac
tap_status
