#!/bin/sh
# strict-iso-t: on 32-bit ARM Linux a compilation mode without the engine (a
# strict ISO mode hides sigaction) never reads an ARMv7 counter, whatever the
# build configured: both can trap there and nothing could catch the signal.
# SPDX-License-Identifier: MIT
#
# For HAVE_ARMV7A_PMCCNTR, HAVE_ARMV7A_CNTVCT and both, in -std=c99 and
# -std=c11 (-pedantic): the compiler prints the header's message, the code
# holds no read of either counter, and the program runs to its end where both
# trap (qemu-arm), timing with timespec_get in C11 and with no counter in C99.
# Controls: without __linux__ the flag is obeyed (the checks can see a read),
# and in GNU C (the engine) the same program survives the traps too.  Uses $CC
# when it targets 32-bit ARM (the armhf suite: run under $TEST_EMULATOR), else
# arm-linux-gnueabihf-gcc, linked statically and run under qemu-arm.
set -u

src=$(cd "${top_srcdir:-.}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/tap/libtap.sh"
TAP_DIAG=$tmp/log

echo "1..23"
case $(${CC:-cc} -dumpmachine 2>/dev/null) in
arm*-linux-gnueabi*) cc=${CC:-cc} link="" run=${TEST_EMULATOR:-} ;;
*)
	cc=arm-linux-gnueabihf-gcc link=-static run=qemu-arm
	if ! command -v "$cc" >/dev/null 2>&1; then
		i=0
		while [ $i -lt 23 ]; do skip "no compiler for 32-bit ARM Linux ($cc: tests/install-deps)"; i=$((i + 1)); done
		exit 0
	fi ;;
esac
can_run=yes
if [ -n "$run" ] && ! command -v "${run%% *}" >/dev/null 2>&1; then
	can_run=no
fi

cat >"$tmp/use.c" <<'PROGRAM'
#include "cycle.h"
#include <stdio.h>
int main(void)
{
#ifdef HAVE_TICK_COUNTER
	ticks t0 = getticks(), t1 = getticks();

	printf("%s\n", cycle_counter_name());
	return elapsed(t1, t0) < 0;
#else
	puts("none");
	return 0;
#endif
}
PROGRAM

# reads FILE.s: the ARMv7 counter reads in the code (PMCCNTR: mrc p15, 0, ..,
# c9, c13, 0; CNTVCT: mrrc p15, 1, .., c14).
reads() {
	grep -Ei 'mrc[[:space:]]+p15,[[:space:]]*0,.*c9,[[:space:]]*c13|mrrc[[:space:]]+p15,[[:space:]]*1,' "$1"
}

for macros in "-DHAVE_ARMV7A_PMCCNTR" "-DHAVE_ARMV7A_CNTVCT" "-DHAVE_ARMV7A_PMCCNTR -DHAVE_ARMV7A_CNTVCT"; do
	for std in c99 c11; do
		want=none
		[ $std = c11 ] && want=timespec_get
		# shellcheck disable=SC2086
		$cc -std=$std -pedantic -O2 -I"$src/cycle" $macros -S "$tmp/use.c" -o "$tmp/use.s" 2>"$tmp/err"
		st=$?
		grep -q 'cycle.h: HAVE_ARMV7A_CNTVCT/PMCCNTR not obeyed' "$tmp/err" >/dev/null
		w=$?
		cp "$tmp/err" "$tmp/log"
		[ $st -eq 0 ] && [ $w -eq 0 ]
		ok $? "-std=$std $macros: compiles with the header's message"
		reads "$tmp/use.s" >"$tmp/log"
		[ $st -eq 0 ] && [ ! -s "$tmp/log" ]
		ok $? "-std=$std $macros: no counter read in the code"
		if [ $can_run = no ]; then
			skip "${run%% *} is not installed"
			continue
		fi
		# shellcheck disable=SC2086
		$cc -std=$std -pedantic -O2 -I"$src/cycle" $macros $link "$tmp/use.c" -o "$tmp/use" 2>"$tmp/log" &&
			$run "$tmp/use" >"$tmp/out" 2>"$tmp/log"
		st=$?
		got=$(cat "$tmp/out" 2>/dev/null)
		[ $st -eq 0 ] && [ "$got" = "$want" ]
		ok $? "-std=$std $macros: runs to its end where the counters trap, with $want (got '$got', exit $st)"
	done
done

# The message is no error even under -pedantic-errors (#warning would be
# an error there before C23).
for std in c99 c11; do
	$cc -std=$std -pedantic-errors -O2 -I"$src/cycle" -DHAVE_ARMV7A_PMCCNTR -c "$tmp/use.c" -o "$tmp/use.o" >"$tmp/log" 2>&1 &&
		grep -q 'not obeyed' "$tmp/log"
	ok $? "-std=$std -pedantic-errors -DHAVE_ARMV7A_PMCCNTR: compiles, with the warning"
done
# Installed (a system header) and under -Werror: it still compiles, and GCC
# still says why ("#pragma GCC warning" was dropped there; Clang drops both).
$cc -std=c99 -pedantic-errors -Werror -O2 -isystem "$src/cycle" -DHAVE_ARMV7A_PMCCNTR \
	-c "$tmp/use.c" -o "$tmp/use.o" >"$tmp/log" 2>&1 &&
	{ $cc --version | grep -qi clang || grep -q 'not obeyed' "$tmp/log"; }
ok $? "installed (-isystem), -Werror -pedantic-errors: compiles, and GCC says why"

# Controls.  Off Linux the build's word is obeyed: the read is there.
$cc -std=c99 -pedantic -O2 -U__linux__ -I"$src/cycle" -DHAVE_ARMV7A_PMCCNTR -S "$tmp/use.c" -o "$tmp/use.s" >"$tmp/log" 2>&1 &&
	reads "$tmp/use.s" >/dev/null && ! grep -q 'not obeyed' "$tmp/log"
ok $? "control: without __linux__ HAVE_ARMV7A_PMCCNTR is read, with no warning"
# In GNU C the engine guards the reads: the same flag, no warning, no death.
if [ $can_run = no ]; then
	skip "${run%% *} is not installed"
else
	$cc -std=gnu11 -O2 -I"$src/cycle" -DHAVE_ARMV7A_PMCCNTR $link "$tmp/use.c" -o "$tmp/use" >"$tmp/log" 2>&1 &&
		! grep -q 'not obeyed' "$tmp/log" && $run "$tmp/use" >"$tmp/out" 2>>"$tmp/log"
	ok $? "control: -std=gnu11 -DHAVE_ARMV7A_PMCCNTR (the engine) survives too: $(cat "$tmp/out" 2>/dev/null)"
fi
tap_status
