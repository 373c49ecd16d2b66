# qualify.sh: guest side of the board qualification scenario (arm64, 8 CPUs).
# SPDX-License-Identifier: MIT
#
# cycle-probe --qualify on Debian's arm64 kernel, three ways: the stock
# kernel (PMCCNTR_EL0 traps: not fit; CNTVCT_EL0 fit), with cycle_enable
# loaded (the counter reads everywhere, a perf session takes it and the
# module's rearm gives it back; each CPU's PMCCNTR_EL0 started at its own
# bring-up, so it is fit only pinned, and fit on one CPU), and with
# kernel.perf_user_access=1 (read through perf: fit).  The Markdown report
# is printed as diagnostics: PERFORMANCE_COUNTERS.md shows one.

# shellcheck source=tests/qemu/scenarios/guest-tap.sh
. /opt/guest-tap.sh
ko=/opt/cycle_enable.ko
q=/tmp/qualify.txt
limit=$(awk -v n="$cpu_count" 'BEGIN { print 2 + 0.5 * n }')

# qualify ARGS...: cycle-probe --qualify ARGS into $q; prints the status.
qualify() {
	st=0
	/opt/cycle-probe --qualify "$@" >"$q" 2>/tmp/qualify.err || st=$?
	echo "$st"
}

# verdict COUNTER: the verdict line's words after the counter's name.
verdict() {
	sed -n "s/^verdict: $1: //p" "$q"
}

# rows COUNTER: the counter's rows of the qualification table, one per CPU:
# cpu counter MHz offset unit +-unc unit drift +-unc sleep perf...
rows() {
	awk -v c="$1" '/^qualify:/ { t = 1; next } /^verdict:/ { t = 0 }
		t && $2 == c' "$q"
}

# took: the seconds the qualification says it took.
took() {
	sed -n 's/^qualify: [0-9]* CPUs*, \([0-9.]*\) s$/\1/p' "$q"
}

# show: the qualification part of the output, as diagnostics.
show() {
	diag "$(sed -n '/^qualify:/,$p' "$q")"
}

check "the guest has 8 or more CPUs" test "$cpu_count" -ge 8
echo 0 >/proc/sys/kernel/perf_user_access

# The stock kernel.
is "stock: --qualify exits 1 (the configured counter is not fit)" 1 "$(qualify)"
show
is "stock: PMCCNTR_EL0 is not fit, it traps everywhere" \
	"not fit: traps on CPUs 0-$((cpu_count - 1))" "$(verdict PMCCNTR_EL0)"
is "stock: CNTVCT_EL0 is fit for planning" "fit for planning" \
	"$(verdict CNTVCT_EL0)"
is "stock: the table has CNTVCT_EL0 on every CPU" "$cpu_count" \
	"$(rows CNTVCT_EL0 | grep -c '')"
is "stock: CNTVCT_EL0 agrees between CPUs to within nanoseconds" "" \
	"$(rows CNTVCT_EL0 | awk '$5 != "ns"')"
is "stock: CNTVCT_EL0 counts all of a sleep on every CPU" "" \
	"$(rows CNTVCT_EL0 | awk '$10 + 0 < 90')"
check "stock: the qualification took $(took) s, within 2 s + 0.5 s per CPU ($limit s)" \
	below "$limit" "$(took)"
check "stock: the advice is the module or the perf sysctl" \
	grep -q '^qualified: PMCCNTR_EL0 is not fit; advice: .*insmod.*perf_user_access' "$q"

# With the module.
check "insmod cycle_enable.ko" insmod "$ko"
is "module: --qualify exits 1 (fit only pinned)" 1 \
	"$(qualify --report /tmp/report.md)"
show
check "module: PMCCNTR_EL0 is fit only pinned: CPUs disagree by more than 1 us" \
	sh -c "verdict() { sed -n 's/^verdict: PMCCNTR_EL0: //p' $q; };
		verdict | grep -Eq '^fit only pinned to one CPU: CPUs [0-9]+ and [0-9]+ disagree by [0-9.]+ (us|ms|s)$'"
is "module: a perf session takes PMCCNTR_EL0 on every CPU, the rearm gives it back" \
	"$cpu_count" "$(rows PMCCNTR_EL0 | grep -c 'taken, back on rearm$')"
is "module: PMCCNTR_EL0 does not drift between CPUs (perf's rewrite is not drift)" \
	"" "$(rows PMCCNTR_EL0 | awk '$8 > 10 || $8 < -10')"
is "module: qemu's PMCCNTR_EL0 counts all of a sleep (WFI does not stop it)" \
	"" "$(rows PMCCNTR_EL0 | awk '$10 + 0 < 90')"
check "module: the report has a verdict table of the 4 counters" \
	test "$(sed -n '/^## Verdicts/,/^## Per CPU/p' /tmp/report.md | grep -c '^| [A-Za-z]')" -eq 5
check "module: the report names the module's grant and the CPU part" \
	sh -c "grep -q '^- \*\*Module cycle_enable:\*\* loaded; granted on CPUs 0-$((cpu_count - 1));' /tmp/report.md &&
		grep -q '^- \*\*CPUs qualified:\*\* 0-$((cpu_count - 1)) ($cpu_count x Cortex-A57)' /tmp/report.md"
check "module: the report's per-CPU table has a row per CPU and counter" \
	test "$(grep -c '^| [0-9]' /tmp/report.md)" -eq $((cpu_count * 4))
diag "$(cat /tmp/report.md)"
is "module, --cpu 3: one CPU, PMCCNTR_EL0 is fit for planning (exit 0)" 0 \
	"$(qualify --cpu 3)"
is "module, --cpu 3: the verdict, saying which CPUs it covers" \
	"fit for planning on CPU 3 (CPUs 0-2,4-$((cpu_count - 1)) not probed)" "$(verdict PMCCNTR_EL0)"
is "module, --cpu $cpu_count (no such CPU): exit 2" 2 "$(qualify --cpu "$cpu_count")"
is "module, --cpu $cpu_count: one line on stderr" 1 "$(grep -c '' /tmp/qualify.err)"
check "rmmod cycle_enable" rmmod cycle_enable

# kernel.perf_user_access=1: PMCCNTR_EL0 through the perf tier.
echo 1 >/proc/sys/kernel/perf_user_access
is "perf_user_access=1: --qualify exits 0" 0 "$(qualify)"
show
is "perf_user_access=1: PMCCNTR_EL0_perf is fit for planning" \
	"fit for planning" "$(verdict PMCCNTR_EL0_perf)"
check "perf_user_access=1: noted as a counter of the thread" \
	grep -q "thread's own cycles" "$q"
check "perf_user_access=1: PMCCNTR_EL0 is qualified through it" \
	grep -q '^qualified: PMCCNTR_EL0 is fit for planning' "$q"
is "perf_user_access=1: the perf tier keeps counting beside a perf session on every CPU" \
	"$cpu_count" "$(rows PMCCNTR_EL0_perf | grep -c ' kept$')"
echo 0 >/proc/sys/kernel/perf_user_access

check "no kernel warning, bug or oops" kernel_trouble
done_testing
