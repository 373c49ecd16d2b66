# guest-fftw.sh: inside the test VM, check that FFTW's planner uses the PMU counter and survives perf.
# SPDX-License-Identifier: MIT
#
# Run by tests/qemu/vm-run under busybox sh in /opt, which holds:
#   cycle_enable.ko  the project's module
#   fftw-bench       FFTW's tests/bench, static, built with our cycle.h and the
#                    PMU counter configured (--enable-armv8-pmccntr-el0 or
#                    --enable-armv7a-pmccntr)
#   perf-churn       tests/fftw/perf-churn.c, static
# Prints TAP; exits with the number of failed tests.

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
show() { sed 's/^/# /' "$1"; }

# ARMv7 cores have no read-only user access: the module grants only what
# user_write=1 asks for there (ARMv8 cores in AArch32 get read-only CR).
insmod_args=
case $(uname -m) in
aarch64) pmu=PMCCNTR_EL0 ;;
armv7*) pmu=PMCCNTR insmod_args=user_write=1 ;;
armv8*) pmu=PMCCNTR ;;
*) echo "Bail out! unexpected machine $(uname -m)"; exit 1 ;;
esac

chosen() { sed -n 's/^cycle\.h: using \([^ ]*\) .*/\1/p' "$1" | head -n 1; }
pcost() { sed -n 's/.*pcost = \([0-9.e+-]*\).*/\1/p' "$1" | head -n 1; }
positive() { [ -n "$1" ] && awk -v x="$1" 'BEGIN { exit !(x > 0) }'; }

# Before the module, the PMU counter traps: the fallback must be taken.
if CYCLE_DEBUG=1 timeout 120 ./fftw-bench -v2 256 >/tmp/before.out 2>&1 &&
	positive "$(pcost /tmp/before.out)" && [ -n "$(chosen /tmp/before.out)" ] &&
	[ "$(chosen /tmp/before.out)" != "$pmu" ]; then
	ok "without the module bench measures with $(chosen /tmp/before.out), not $pmu"
else
	not_ok "without the module bench measures, not with $pmu"
	show /tmp/before.out
fi

if insmod /opt/cycle_enable.ko $insmod_args >/tmp/insmod.out 2>&1; then
	ok "insmod cycle_enable.ko $insmod_args"
else
	not_ok "insmod cycle_enable.ko"
	show /tmp/insmod.out
fi

# With the module, the configured PMU counter is the one used (CYCLE_DEBUG says).
CYCLE_DEBUG=1 timeout 120 ./fftw-bench -v2 1024 >/tmp/measure.out 2>&1
rc=$?
if [ "$(chosen /tmp/measure.out)" = "$pmu" ]; then
	ok "bench uses $pmu with the module"
else
	not_ok "bench uses $pmu with the module (got '$(chosen /tmp/measure.out)')"
	grep '^cycle\.h' /tmp/measure.out | sed 's/^/# /'
fi
if [ $rc -eq 0 ] && positive "$(pcost /tmp/measure.out)"; then
	ok "FFTW_MEASURE plan of 1024 measured with $pmu (pcost $(pcost /tmp/measure.out))"
else
	not_ok "FFTW_MEASURE plan of 1024 measured with $pmu (exit $rc)"
	tail -n 5 /tmp/measure.out | sed 's/^/# /'
fi
if timeout 120 ./fftw-bench --verify ocf1024 --verify orb97 --verify icf32x32 >/tmp/verify.out 2>&1; then
	ok "bench --verify with $pmu"
else
	not_ok "bench --verify with $pmu"
	show /tmp/verify.out
fi

# PATIENT planning while perf events use the PMU on every CPU.  First a run
# that starts with the PMU counter granted.  arm64 Linux revokes user access
# when a perf event runs (armv8pmu_start), so there cycle.h must switch counters
# mid-plan; the armv7 perf driver leaves PMUSERENR alone but reprograms the
# counter under us.  Either way FFTW must finish.  (FFTW gives 2-D plans pcost 0,
# so 1-D sizes are used.)  Nothing may open a perf event before this run: it
# would revoke the access the module granted.
CYCLE_DEBUG=1 timeout 300 ./fftw-bench -v2 -o patient 4096 >/tmp/revoked.out 2>&1 &
planner=$!
sleep 1
./perf-churn 900 >/tmp/churn.out 2>&1 &
churn=$!
wait $planner
rc=$?

# A churn that is still running had perf events; one that exited with 3 found
# no perf cycles event in this kernel (the armhf guest may have no PMU driver).
if kill -0 $churn 2>/dev/null; then
	perf_ok=yes under="under perf churn"
else
	wait $churn
	churn_rc=$?
	perf_ok=no under="without perf churn (no perf cycles event in this guest)"
	if [ $churn_rc -ne 3 ] || [ $pmu = PMCCNTR_EL0 ]; then
		# arm64's kernel has the armv8_pmuv3 driver: no churn there is a failure.
		not_ok "perf churn runs (exit $churn_rc)"
		show /tmp/churn.out
	fi
fi
what=
[ $pmu = PMCCNTR_EL0 ] && [ $perf_ok = yes ] && what=", revoked mid-plan"
if [ $rc -eq 0 ] && positive "$(pcost /tmp/revoked.out)" &&
	[ "$(chosen /tmp/revoked.out)" = "$pmu" ] &&
	{ [ -z "$what" ] || grep -Eq "^cycle\.h: $pmu (trapped|is no longer granted) after the choice" /tmp/revoked.out; }; then
	ok "FFTW_PATIENT plan of 4096 started with $pmu completes $under$what (pcost $(pcost /tmp/revoked.out))"
else
	not_ok "FFTW_PATIENT plan of 4096 started with $pmu completes $under$what (exit $rc)"
	tail -n 3 /tmp/revoked.out | sed 's/^/# /'
fi
grep -h '^cycle\.h' /tmp/revoked.out | sed 's/^/# /'

# Then one that starts while the churn runs.
CYCLE_DEBUG=1 timeout 300 ./fftw-bench -v2 -o patient 1024 >/tmp/patient.out 2>&1
rc=$?
if [ $rc -eq 0 ] && positive "$(pcost /tmp/patient.out)"; then
	ok "FFTW_PATIENT plan of 1024 started $under completes (pcost $(pcost /tmp/patient.out))"
else
	not_ok "FFTW_PATIENT plan of 1024 started $under completes (exit $rc)"
	tail -n 5 /tmp/patient.out | sed 's/^/# /'
fi
grep -h '^cycle\.h' /tmp/patient.out | sed 's/^/# /'

if [ $perf_ok = no ]; then
	echo "ok $((n + 1)) - # SKIP perf churn: this guest's kernel has no perf CPU-cycles event"
	n=$((n + 1))
else
	churning=no
	kill -0 $churn 2>/dev/null && churning=yes
	kill $churn 2>/dev/null
	wait $churn
	rc=$?
	# The churn was alive to the end and really opened events.
	if [ $churning = yes ] && [ $rc -eq 0 ]; then
		ok "perf churn ran during planning: $(cat /tmp/churn.out)"
	else
		not_ok "perf churn ran during planning (alive: $churning, exit $rc)"
		show /tmp/churn.out
	fi
fi

rmmod cycle_enable 2>/dev/null
echo "1..$n"
exit $failed
