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

echo "1..53"
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
run --report= >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(lines "$tmp/err")" -eq 1 ] && grep -q 'needs a file name' "$tmp/err"
ok $? "--report= names no file: exit 2 ($rc), $(cat "$tmp/err")"

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
cp "$tmp/json" "$tmp/all.json"
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

# Started on one CPU of several: the others are named as not probed, in the
# table, the JSON and the report, and each verdict says which CPUs it is
# about, so that it does not pass for the whole machine's.
if [ "$online" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
	one=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['cpus'][1]['cpu'])" "$tmp/all.json")
	others=$(python3 -c "import json,sys; print(','.join(str(c['cpu']) for c in json.load(open(sys.argv[1]))['cpus'] if c['cpu'] != $one))" "$tmp/all.json")
	taskset -c "$one" ${TEST_EMULATOR:-} "$probe" --qualify --report "$tmp/one.md" >"$tmp/one.txt" 2>"$tmp/err"
	rc=$?
	grep -q "^cpu [0-9,-]*: not probed: not in this process's affinity mask\$" "$tmp/one.txt"
	ok $? "under taskset -c $one, the table names the others ($others) as not probed (exit $rc)"
	not_probed="on CPU $one (CPUs\{0,1\} [0-9,-]* not probed)"
	grep -q "^verdict: clock_gettime: fit for planning $not_probed\$" "$tmp/one.txt" &&
		grep -q "^qualified: .* $not_probed; advice: " "$tmp/one.txt"
	ok $? "the verdicts and the conclusion say which CPUs they are about"
	grep "not probed" "$tmp/one.txt" | sed 's/^/# /'
	grep -q "^- \*\*CPUs not probed:\*\* [0-9,-]* (not in this process's affinity mask)\$" "$tmp/one.md" &&
		grep -q "^\*\*.* $not_probed\.\*\* Advice: " "$tmp/one.md"
	ok $? "so does the Markdown report"
	taskset -c "$one" ${TEST_EMULATOR:-} "$probe" --json >"$tmp/json" 2>"$tmp/err"
	check "[c['cpu'] for c in j['cpus']] == [$one] and [x['cpu'] for x in j['not_probed']] == [$others] and all('affinity' in x['why'] for x in j['not_probed'])" \
		"--json under taskset -c $one: not_probed lists the others ($others) and why"
	taskset -c "$one" ${TEST_EMULATOR:-} "$probe" --json --cpu "$one" >"$tmp/json" 2>"$tmp/err"
	check "[c['cpu'] for c in j['cpus']] == [$one] and [x['cpu'] for x in j['not_probed']] == [$others] and all('affinity' in x['why'] for x in j['not_probed'])" \
		"--json --cpu $one under taskset -c $one: not_probed still lists the others ($others)"
else
	for _ in 1 2 3 4 5; do skip "needs two online CPUs and taskset"; done
fi

# --cpu LIST: the online CPUs left out are named as not probed, "not asked
# for", and the verdicts say which CPUs they are about, as under taskset.
nall=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['cpus']))" "$tmp/all.json")
if [ "$nall" -ge 2 ]; then
	first=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['cpus'][0]['cpu'])" "$tmp/all.json")
	rest=$(python3 -c "import json,sys; print(','.join(str(c['cpu']) for c in json.load(open(sys.argv[1]))['cpus'][1:]))" "$tmp/all.json")
	run --qualify --cpu "$first" >"$tmp/cpu.txt" 2>"$tmp/err"
	rc=$?
	grep -q "^cpu [0-9,-]*: not probed: not asked for (--cpu)\$" "$tmp/cpu.txt" &&
		grep -q "^qualified: .* on CPU $first (CPUs\{0,1\} [0-9,-]* not probed); advice: " "$tmp/cpu.txt"
	ok $? "--qualify --cpu $first (exit $rc): the table names the others, the verdict says CPU $first ($(grep '^qualified:' "$tmp/cpu.txt" | cut -c1-80))"
	run --qualify --json --cpu "$first" >"$tmp/json" 2>"$tmp/err"
	check "[c['cpu'] for c in j['cpus']] == [$first] and [x['cpu'] for x in j['not_probed'] if x['why'] == 'not asked for (--cpu)'] == [$rest]" \
		"--qualify --json --cpu $first: not_probed lists CPUs $rest, not asked for (--cpu)"
else
	skip "needs two CPUs to probe"
	skip "needs two CPUs to probe"
fi

# --qualify: a verdict per counter, consistent with the exit status, the
# JSON and the Markdown report.  It replaces an earlier report.
echo "an earlier report" >"$tmp/report.md"
chmod 600 "$tmp/report.md"
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
# The table's exit status follows its own conclusion, as the JSON's does (two
# runs measure twice: under load a drift near a threshold can change the
# verdict between them, so their statuses need not be equal).
if grep -q '^qualified: [^ ]* is fit for planning' "$tmp/q.txt"; then
	[ "$q_rc" -eq 0 ]
else
	[ "$q_rc" -ne 0 ] && grep -q '^qualified: ' "$tmp/q.txt"
fi
ok $? "the table's exit status ($q_rc) is 0 exactly when its conclusion says fit for planning ($(sed -n 's/^qualified: //p' "$tmp/q.txt" | cut -c1-60))"
n_counters=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['counters']))" "$tmp/json")
[ -s "$tmp/report.md" ] && grep -q '^## Verdicts' "$tmp/report.md" &&
	[ "$(sed -n '/^## Verdicts/,/^## /p' "$tmp/report.md" | grep -c '^| [A-Za-z]')" -eq $((n_counters + 1)) ]
ok $? "--report writes Markdown with a verdict row per counter ($n_counters)"
[ "$(stat -c %a "$tmp/report.md")" = 600 ] && [ -z "$(find "$tmp" -maxdepth 1 -name '.report.md.*')" ]
ok $? "it replaced the earlier report, whose mode it kept, leaving no temporary file"
sed -n '1,/^## Per CPU/p' "$tmp/report.md" | sed 's/^/# /'
run --report - >"$tmp/out" 2>"$tmp/err"
head -1 "$tmp/out" | grep -q '^# Cycle counter qualification' && ! grep -q '^selected: ' "$tmp/out"
ok $? "--report - writes the report, and only it, to standard output"
run --report "$tmp/no/such/dir/r.md" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(lines "$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ]
ok $? "an unwritable report: exit 2 ($rc) before measuring, one line on stderr"

# refused MESSAGE DESCRIPTION: the last run stopped before measuring: exit
# 2, nothing on standard output, one line on stderr matching MESSAGE.
refused() {
	[ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(lines "$tmp/err")" -eq 1 ] &&
		grep -q -- "$1" "$tmp/err"
	ok $? "$2: exit 2 ($rc), $(cut -c1-160 "$tmp/err")"
}

# The report is never renamed over this process's standard output or
# error: 2>>build.log would lose the log.
echo "an earlier log" >"$tmp/log"
cp "$tmp/log" "$tmp/log.orig"
run --report /dev/stdout >>"$tmp/log" 2>"$tmp/err"
rc=$?
cp "$tmp/log" "$tmp/out.log"
: >"$tmp/out"
cmp -s "$tmp/out.log" "$tmp/log.orig" || echo "standard output changed" >>"$tmp/err"
refused "is this process's standard output: use --report -\$" "--report /dev/stdout, standard output a file (left as it was)"
run --report /dev/stderr >"$tmp/out" 2>>"$tmp/log"
rc=$?
head -1 "$tmp/log" >"$tmp/out.log"
sed 1d "$tmp/log" >"$tmp/err"
cmp -s "$tmp/out.log" "$tmp/log.orig" || echo "the earlier log is gone" >>"$tmp/err"
refused "is this process's standard error: give a file\$" "--report /dev/stderr, 2>> a log (kept, one line added)"

# What would fail at the end is found before measuring: the temporary
# file's name, .NAME.XXXXXX, too long for the directory (NAME_MAX) or for
# PATH_MAX.
long=$(printf '%250s' '' | tr ' ' r)
run --report "$tmp/$long" >"$tmp/out" 2>"$tmp/err"
rc=$?
refused "temporary file .* too long" "a 250-byte name, whose temporary name is too long"
deep=$tmp/deep
comp=$(printf '%200s' '' | tr ' ' d)
mkdir "$deep"
while [ ${#deep} -lt 3850 ]; do
	deep=$deep/$comp
	mkdir "$deep" || break
done
name=$(printf '%*s' $((4090 - ${#deep} - 1)) '' | tr ' ' r)
run --report "$deep/$name" >"$tmp/out" 2>"$tmp/err"
rc=$?
refused "temporary file .* too long" "a 4090-byte path, whose temporary name exceeds PATH_MAX"

# A symbolic link to nothing: refused, not replaced by a file.
ln -s gone.md "$tmp/link.md"
run --report "$tmp/link.md" >"$tmp/out" 2>"$tmp/err"
rc=$?
{ [ -L "$tmp/link.md" ] && [ ! -e "$tmp/gone.md" ]; } || echo "the link was replaced" >>"$tmp/err"
refused "symbolic link to nothing" "a dangling symbolic link"

# As another user (root may write anywhere): a directory it may not write,
# and another user's file in a sticky directory, which rename() may not
# replace though the file is writable.
as_nobody=""
if [ "$(id -u)" -ne 0 ]; then
	why="not root: cannot run as another user"
elif ! command -v setpriv >/dev/null 2>&1; then
	why="no setpriv"
else
	as_nobody="setpriv --reuid=$(id -u nobody) --regid=$(id -g nobody) --clear-groups"
	chmod 711 "$tmp"
	$as_nobody ${TEST_EMULATOR:-} "$probe" --version >/dev/null 2>&1 ||
		{ why="nobody cannot run $probe"; as_nobody=""; }
fi
if [ -n "$as_nobody" ]; then
	mkdir "$tmp/ro" "$tmp/sticky"
	chmod 755 "$tmp/ro"
	chmod 1777 "$tmp/sticky"
	echo "root's report" >"$tmp/sticky/r.md"
	chmod 666 "$tmp/sticky/r.md"
	$as_nobody ${TEST_EMULATOR:-} "$probe" --report "$tmp/ro/r.md" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	refused "cannot create a file in $tmp/ro: Permission denied\$" "as nobody, a directory it may not write"
	$as_nobody ${TEST_EMULATOR:-} "$probe" --report "$tmp/sticky/r.md" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$(cat "$tmp/sticky/r.md")" = "root's report" ] || echo "root's report changed" >>"$tmp/err"
	refused "belongs to another user in a sticky directory\$" "as nobody, root's file in a sticky directory"
else
	skip "$why"
	skip "$why"
fi

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

# Output that cannot be written: exit 3 and one line on stderr naming it,
# never a status that would pass for a verdict (1) or success (0).
stdout_fails() { # stdout_fails STATUS DESCRIPTION
	[ "$1" -eq 3 ] && [ "$(lines "$tmp/err")" -eq 1 ] &&
		grep -q '^cycle-probe: writing standard output: ' "$tmp/err"
	ok $? "$2: exit 3 ($1), $(cat "$tmp/err")"
}
if [ -w /dev/full ]; then
	run --help >/dev/full 2>"$tmp/err"
	stdout_fails $? "--help to a full disk"
	run --version >/dev/full 2>"$tmp/err"
	stdout_fails $? "--version to a full disk"
	run >/dev/full 2>"$tmp/err"
	stdout_fails $? "the table to a full disk"
	run --json >/dev/full 2>"$tmp/err"
	stdout_fails $? "--json to a full disk"
else
	for _ in 1 2 3 4; do skip "no /dev/full"; done
fi
run >&- 2>"$tmp/err"
stdout_fails $? "standard output closed"

# A report that passes the check before measuring but cannot be written at
# the end (no file may grow: ulimit -f 0, with SIGXFSZ's default action as
# a user's shell leaves it; the probe ignores the signal, so that write()
# fails with EFBIG): the earlier report stays whole, no temporary file is
# left beside it.  Standard error goes through a pipe, which the limit
# spares.
mkdir "$tmp/keep"
echo "an earlier report" >"$tmp/keep/r.md"
cp "$tmp/keep/r.md" "$tmp/r.md.orig"
(
	ulimit -f 0 && run --report "$tmp/keep/r.md" 2>&1 >/dev/null
	echo "rc=$?"
) | cat >"$tmp/out"
rc=$(sed -n 's/^rc=//p' "$tmp/out")
grep -v '^rc=' "$tmp/out" >"$tmp/err"
[ "$rc" = 3 ] && [ "$(lines "$tmp/err")" -eq 1 ] && grep -q 'keep/r\.md' "$tmp/err" &&
	cmp -s "$tmp/keep/r.md" "$tmp/r.md.orig" && [ "$(ls -A "$tmp/keep")" = r.md ]
ok $? "a report that cannot be written: exit 3 ($rc), the earlier one whole, no temporary file ($(ls -A "$tmp/keep" | tr '\n' ' '))"


# Standard output to a file that may not grow: exit 3 and one line too.
(
	ulimit -f 0 && run >"$tmp/big.txt"
	echo "rc=$?"
) 2>&1 | cat >"$tmp/out"
rc=$(sed -n 's/^rc=//p' "$tmp/out")
grep -v '^rc=' "$tmp/out" >"$tmp/err"
stdout_fails "${rc:-0}" "standard output under ulimit -f 0"

tap_status
