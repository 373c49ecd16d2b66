#!/bin/sh
# precedence-t: with both counter macros of one ARM family, cycle.h starts at
# the generic timer in every compilation mode, with the engine or without.
# SPDX-License-Identifier: MIT
#
# The manual ("Configuration") says: HAVE_ARMV8_PMCCNTR_EL0 with
# HAVE_ARMV8_CNTVCT_EL0 starts at CNTVCT_EL0, HAVE_ARMV7A_PMCCNTR with
# HAVE_ARMV7A_CNTVCT at CNTVCT.  For aarch64 and armhf, with each compiler at
# hand for it ($CC where it targets that CPU, else the Debian cross gcc, and
# clang --target), a unit including cycle.h is preprocessed in GNU C, in C89
# with POSIX (the engine), in strict ISO C99 and without __linux__ (no engine,
# FFTW's blocks), and the counter it starts at is read from the header's own
# macros: the engine's configured index into its names, or the block's name.
# In the strict mode, where nothing can guard a trapping read, the object code
# must not read the PMU counter either; on 32-bit ARM Linux, where both ARMv7
# counters can trap, the strict mode reads no counter at all ("none";
# tests/cycle/strict-iso-t.sh runs it).  A CPU without a compiler here is
# skipped.
set -u

src=$(cd "${top_srcdir:-.}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/tap/libtap.sh"
TAP_DIAG=$tmp/log

cat >"$tmp/first.c" <<'EOF'
#include "cycle.h"
#if defined(CYCLE_IMPL_ENGINE)
cycle_test_first CYCLE_IMPL_CONFIGURED CYCLE_IMPL_NAMES
#elif defined(CYCLE_IMPL_PLAIN_NAME)
cycle_test_first 0 CYCLE_IMPL_PLAIN_NAME
#else
cycle_test_first 0 "none"
#endif
EOF
printf '#include "cycle.h"\n#ifdef HAVE_TICK_COUNTER\nticks cycle_test_read(void) { return getticks(); }\n#else\nint cycle_test_none;\n#endif\n' >"$tmp/read.c"

# first COMPILER FLAGS...: the name of the counter the chain starts at.
first() {
	compiler=$1
	shift
	# shellcheck disable=SC2086
	$compiler -E -P -I"$src/cycle" "$@" "$tmp/first.c" 2>"$tmp/log" |
		sed -n 's/^cycle_test_first \([0-9]*\) "\(.*\)"$/\1 \2/p' |
		awk '{ n = split(substr($0, index($0, " ") + 1), names, /\\0/); print names[$1 + 1] }'
}

# compilers TRIPLE: the compilers that target TRIPLE here, one a line.
compilers() {
	if [ "$(${CC:-cc} -dumpmachine 2>/dev/null)" = "$1" ]; then
		echo "${CC:-cc}"
	elif command -v "$1-gcc" >/dev/null 2>&1; then
		echo "$1-gcc"
	else
		echo "none:$1-gcc"
	fi
	if command -v clang >/dev/null 2>&1 &&
		clang --target="$1" -E -I"$src/cycle" "$tmp/first.c" >/dev/null 2>&1; then
		echo "clang --target=$1"
	else
		echo "none:clang --target=$1"
	fi
}

modes="-std=gnu11|-std=c89 -D_POSIX_C_SOURCE=199309L|-std=c99 -pedantic|-std=gnu11 -U__linux__"
echo "1..29"
# triple, timer, PMU counter, their macros, the PMU read's operands, and what
# the strict ISO mode (no engine, Linux) starts at.
for family in "aarch64-linux-gnu CNTVCT_EL0 PMCCNTR_EL0 -DHAVE_ARMV8_CNTVCT_EL0 -DHAVE_ARMV8_PMCCNTR_EL0 pmccntr_el0 CNTVCT_EL0" \
	"arm-linux-gnueabihf CNTVCT PMCCNTR -DHAVE_ARMV7A_CNTVCT -DHAVE_ARMV7A_PMCCNTR c9,[[:space:]]*c13 none"; do
	# shellcheck disable=SC2086
	set -- $family
	triple=$1 timer=$2 pmu=$3 timer_macro=$4 pmu_macro=$5 pmu_insn=$6 strict=$7
	compilers "$triple" >"$tmp/compilers"
	while read -r cc; do
		case $cc in
		none:*)
			for i in 1 2 3 4 5 6; do skip "${cc#none:} is not installed or cannot target $triple"; done
			continue ;;
		esac
		# The probe sees the configured counter: alone, the PMU macro starts there.
		got=$(first "$cc" -std=gnu11 "$pmu_macro")
		[ "$got" = "$pmu" ]
		ok $? "$cc $pmu_macro alone: $pmu first (got '$got')"
		IFS='|'
		for mode in $modes; do
			unset IFS
			# shellcheck disable=SC2086
			got=$(first "$cc" $mode "$pmu_macro" "$timer_macro" 2>/dev/null)
			want=$timer
			[ "$mode" = "-std=c99 -pedantic" ] && want=$strict
			[ "$got" = "$want" ]
			ok $? "$cc $mode, both macros: $want first (got '$got')"
			IFS='|'
		done
		unset IFS
		# Strict ISO C: no guard, so no PMU read in the code at all.
		$cc -std=c99 -pedantic -O2 -S -I"$src/cycle" "$pmu_macro" "$timer_macro" \
			"$tmp/read.c" -o "$tmp/read.s" >"$tmp/log" 2>&1 &&
			! grep -qi "$pmu_insn" "$tmp/read.s"
		ok $? "$cc -std=c99 -pedantic, both macros: no $pmu read in the code"
	done <"$tmp/compilers"
done

# aarch64 Linux in strict ISO C with the PMU macro alone: the compiler says
# the macro is not obeyed, and the code reads CNTVCT_EL0, not PMCCNTR_EL0.
if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
	aarch64-linux-gnu-gcc -std=c99 -pedantic -O2 -S -I"$src/cycle" \
		-DHAVE_ARMV8_PMCCNTR_EL0 "$tmp/read.c" -o "$tmp/read.s" \
		>"$tmp/log" 2>&1 &&
		grep -q 'cycle.h: HAVE_ARMV8_PMCCNTR_EL0 not obeyed' "$tmp/log" &&
		! grep -qi pmccntr_el0 "$tmp/read.s" &&
		grep -qi cntvct_el0 "$tmp/read.s"
	ok $? "aarch64 -std=c99 -pedantic, PMCCNTR_EL0 alone: a warning, CNTVCT_EL0 read"
else
	skip "aarch64-linux-gnu-gcc is not installed"
fi

# riscv64: rdtime first (no handler: Linux never takes it back), rdcycle
# first only where the build defines HAVE_RISCV_RDCYCLE.
compilers riscv64-linux-gnu >"$tmp/compilers"
while read -r cc; do
	case $cc in
	none:*)
		for i in 1 2; do skip "${cc#none:} is not installed or cannot target riscv64-linux-gnu"; done
		continue ;;
	esac
	got=$(first "$cc" -std=gnu11)
	[ "$got" = rdtime ]
	ok $? "$cc riscv64, no macro: rdtime first (got '$got')"
	got=$(first "$cc" -std=gnu11 -DHAVE_RISCV_RDCYCLE)
	[ "$got" = rdcycle ]
	ok $? "$cc riscv64 -DHAVE_RISCV_RDCYCLE: rdcycle first (got '$got')"
done <"$tmp/compilers"
tap_status
