#!/bin/sh
# default-t: a build configured with no counter option compiles exactly as
# one configured for the architecture's timer, and differently from one
# configured for its cycle counter.
# SPDX-License-Identifier: MIT
#
# The header's default is the timer (CNTVCT_EL0, CNTVCT, rdtime), which the
# kernel never takes back; both macros of one architecture mean the timer
# too.  So the aarch64 and armhf suites run the whole TAP suite for the
# timer's option and only a few tests for no option: this test is what
# makes that sound.  For $CC and, when installed, the aarch64, armhf and
# riscv64 cross compilers: a program that uses the whole API, preprocessed
# (-E -P: a difference the optimiser would drop still counts) and compiled
# at -O2 without debug information, compared byte for byte.  A compiler
# that cannot compile it (a cross gcc without its libc headers) is left
# out, or fails the test under CI=true.
set -u

src=$(cd "${top_srcdir:-.}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/tap/libtap.sh"
TAP_DIAG=$tmp/log

cat >"$tmp/use.c" <<'PROGRAM'
#include <stdio.h>
#include "cycle.h"
int main(void)
{
	ticks t0 = getticks(), t1 = getticks();

	printf("%s %g %g %g\n", cycle_counter_name(), elapsed(t1, t0),
	       cycle_ticks_per_second(), (double)TIME_MIN);
	return 0;
}
PROGRAM

# object CC NAME FLAGS...: preprocess and compile use.c into $tmp/NAME.o,
# the preprocessed text appended to it.
object() {
	cc=$1 name=$2
	shift 2
	# shellcheck disable=SC2086 # $cc is a command with its options
	$cc -O2 -I"$src/cycle" "$@" -c "$tmp/use.c" -o "$tmp/$name.o" >>"$tmp/log" 2>&1 &&
		$cc -E -P -I"$src/cycle" "$@" "$tmp/use.c" >>"$tmp/$name.o" 2>>"$tmp/log"
}

# same CC TARGET TIMER CYCLES: the three comparisons for one compiler.
same() {
	cc=$1 target=$2 timer=$3 cycles=$4
	: >"$tmp/log"
	object "$cc" none && object "$cc" timer "-D$timer" &&
		object "$cc" both "-D$timer" "-D$cycles" && object "$cc" cycles "-D$cycles"
	built=$?
	[ $built -eq 0 ] && cmp "$tmp/none.o" "$tmp/timer.o" >>"$tmp/log" 2>&1
	ok $? "$target ($cc): no option compiles as $timer"
	[ $built -eq 0 ] && cmp "$tmp/none.o" "$tmp/both.o" >>"$tmp/log" 2>&1
	ok $? "$target: $timer with $cycles compiles as $timer alone"
	[ $built -eq 0 ] && ! cmp -s "$tmp/none.o" "$tmp/cycles.o"
	ok $? "$target: $cycles alone compiles differently"
}

compilers=${CC:-cc}
for cross in aarch64-linux-gnu-gcc arm-linux-gnueabihf-gcc riscv64-linux-gnu-gcc; do
	command -v "$cross" >/dev/null 2>&1 && compilers="$compilers
$cross"
done
seen=
while IFS= read -r cc; do
	target=$($cc -dumpmachine 2>/dev/null)
	case " $seen " in *" $target "*) continue ;; esac
	seen="$seen $target"
	: >"$tmp/log"
	if ! object "$cc" probe; then
		if [ "${CI:-}" = true ]; then
			echo "Bail out! $cc cannot compile a program with cycle.h (CI=true)"
			exit 1
		fi
		echo "# $cc cannot compile a program with cycle.h: left out"
		continue
	fi
	case $target in
	aarch64-*linux*) same "$cc" "$target" HAVE_ARMV8_CNTVCT_EL0 HAVE_ARMV8_PMCCNTR_EL0 ;;
	arm*-linux-gnueabihf) same "$cc" "$target" HAVE_ARMV7A_CNTVCT HAVE_ARMV7A_PMCCNTR ;;
	riscv64-*linux*)
		: >"$tmp/log"
		object "$cc" none && object "$cc" cycles -DHAVE_RISCV_RDCYCLE &&
			! cmp -s "$tmp/none.o" "$tmp/cycles.o"
		ok $? "$target ($cc): HAVE_RISCV_RDCYCLE compiles differently from no option" ;;
	esac
done <<EOF_COMPILERS
$compilers
EOF_COMPILERS
if [ "$tap_n" -eq 0 ]; then
	echo "1..0 # SKIP no compiler for aarch64, armhf or riscv64 Linux (tests/install-deps)"
	exit 0
fi
echo "1..$tap_n"
tap_status
