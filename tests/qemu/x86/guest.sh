# guest.sh: the x86-64 VM's script: cycle.h with rdtsc really turned off.
# SPDX-License-Identifier: MIT
#
# Run by /init in /opt, where check-x86-tsc put the static test programs.
# Each prints its TAP; the line "@@x86 NAME STATUS@@" after it tells the
# host how it ended.
report() { echo "@@x86 $1 $2@@"; }

# rdtsc turned off before the choice: skipped; after it: the process faults
# as with the classic header (no guard stays where only the program revokes).
./revoke-t; report revoke-t $?
# Turned off before the first call (inherited across exec): the choice
# skips it, also in a thread that blocks every signal, also when the
# clock is asked for directly (the vDSO's clock reads the TSC).
./notsc ./blocked-t; report blocked-t $?
CYCLE_COUNTER=clock_gettime CYCLE_TEST_EXPECT=clock_gettime ./notsc ./getticks-t
report getticks-t-clock $?
CYCLE_TEST_EXPECT=clock_gettime ./notsc ./getticks-t; report getticks-t $?
# The guard keeps the program's handlers, with rdtsc trapping for real.
./notsc ./chain-t; report chain-t $?
# The guard on the smallest thread stack and on an alternate signal stack,
# rdtsc trapping for real: here no case may be skipped.
./stack-t >/tmp/stack.tap
rc=$?
cat /tmp/stack.tap
if grep -q SKIP /tmp/stack.tap; then rc=1; fi
report stack-t "$rc"
# cycle-probe with PR_TSC_SIGSEGV inherited: the test make check runs,
# here where the kernel honours it (and the loader cannot start).
CYCLE_TEST_TSC=honoured NOTSC=./notsc PROBE=./cycle-probe \
	PROBE_STATIC=./cycle-probe-static sh probe-notsc-t.sh >/tmp/notsc.tap
rc=$?
cat /tmp/notsc.tap
if grep -q SKIP /tmp/notsc.tap; then rc=1; fi
report probe-notsc-t "$rc"
