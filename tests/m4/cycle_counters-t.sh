#!/bin/sh
# cycle_counters-t: the configure options accept what this host can do and
# stop, naming the host, on what it cannot.
# SPDX-License-Identifier: MIT
#
# Runs the project's configure with the build's compiler ($CC) in scratch
# directories, sharing one cache so each run takes a second or two.  The
# configure it runs is a copy of the source tree's, with only the inputs it
# reads: the source tree itself may be configured in place (the quick start,
# then `make check` there), and automake's configure refuses to build out of
# a source tree that has a config.status.
set -u

top=$(cd "${top_srcdir:-.}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/tap/libtap.sh"
TAP_DIAG=$tmp/out

src=$tmp/src
mkdir -p "$src/cycle"
if ! { cp -p "$top/configure" "$top/config.h.in" "$top/Makefile.in" \
	"$top/safecycle.pc.in" "$src/" &&
	cp -pR "$top/build-aux" "$src/" &&
	cp -p "$top/cycle/cycle.h" "$src/cycle/"; } 2>"$tmp/out"; then
	echo "Bail out! cannot copy configure's inputs from $top: $(head -1 "$tmp/out")"
	exit 1
fi

target=$(${CC:-cc} -dumpmachine)
case $(printf '#if defined(__aarch64__)\nA64\n#elif defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7\nV7\n#else\nOTHER\n#endif\n' | ${CC:-cc} -E -P - | tr -d ' \n') in
A64) armv8=yes armv7=no ;;
V7) armv8=no armv7=yes ;;
*) armv8=no armv7=no ;;
esac

# configure_with NAME OPTIONS...: run configure in $tmp/NAME, output in $tmp/out.
configure_with() {
	name=$1
	shift
	mkdir -p "$tmp/$name"
	(cd "$tmp/$name" && "$src/configure" --host="$target" --cache-file="$tmp/cache" \
		CC="${CC:-cc}" CXX="${CXX:-c++}" "$@") >"$tmp/out" 2>&1
}

echo "1..18"
for opt in armv8-pmccntr:HAVE_ARMV8_PMCCNTR_EL0:$armv8 \
	armv8-pmccntr-el0:HAVE_ARMV8_PMCCNTR_EL0:$armv8 \
	armv8-cntvct-el0:HAVE_ARMV8_CNTVCT_EL0:$armv8 \
	armv7a-pmccntr:HAVE_ARMV7A_PMCCNTR:$armv7 \
	armv7a-cntvct:HAVE_ARMV7A_CNTVCT:$armv7; do
	flag=${opt%%:*}
	rest=${opt#*:}
	macro=${rest%%:*}
	possible=${rest#*:}
	configure_with "$flag" "--enable-$flag"
	rc=$?
	if [ "$possible" = yes ]; then
		[ $rc -eq 0 ] && grep -q "^#define $macro 1" "$tmp/$flag/config.h"
		ok $? "--enable-$flag on $target defines $macro"
	else
		[ $rc -ne 0 ] && grep -q "error: --enable-$flag needs .* targets " "$tmp/out"
		ok $? "--enable-$flag on $target stops configure, naming the host"
	fi
done

configure_with typo --enable-armv8-pmcntr
[ $? -ne 0 ] && grep -q "unrecognized option.*armv8-pmcntr" "$tmp/out"
ok $? "a misspelt option is an error, not a warning"
configure_with value --enable-armv8-pmccntr=maybe
[ $? -ne 0 ] && grep -q "takes no value" "$tmp/out"
ok $? "an option given a value is an error"
configure_with help --help
grep -q "PERFORMANCE_COUNTERS.md" "$tmp/out"
ok $? "--help points to PERFORMANCE_COUNTERS.md"

configure_with plain
rc=$?
grep -q "counters compiled in: " "$tmp/out"
ok $((rc + $?)) "the summary names the counters compiled in ($(sed -n 's/.*counters compiled in: //p' "$tmp/out"))"
! grep -q "^#define HAVE_ARMV" "$tmp/plain/config.h"
ok $? "no option, no counter macro"
configure_with disabled --disable-armv8-pmccntr --disable-armv7a-pmccntr
[ $? -eq 0 ] && ! grep -q "^#define HAVE_ARMV" "$tmp/disabled/config.h"
ok $? "--disable-* is accepted and defines nothing"

# Off Linux the header has no run-time checks, and the summary says so, not
# the Linux chain (a compiler that does not define __linux__ stands in for
# macOS, FreeBSD or Solaris; its own cache, CC being another).
mkdir -p "$tmp/offlinux"
(cd "$tmp/offlinux" && "$src/configure" --host="$target" \
	CC="${CC:-cc} -U__linux__" CXX="${CXX:-c++}") >"$tmp/out" 2>&1
rc=$?
grep -q "which counters cycle.h will try... the classic block for this system (no run-time checks" "$tmp/out"
ok $((rc + $?)) "without __linux__ the summary names the classic block, not the Linux chain"

# In a strict ISO mode the header has no engine either (no sigaction): the
# summary says so, where it named the Linux chain and its PMU counter.  The
# mode goes in CFLAGS, which come after the -std=gnu11 autoconf adds to CC.
mkdir -p "$tmp/strict"
(cd "$tmp/strict" && "$src/configure" --host="$target" \
	CFLAGS="-std=c99 -O2" CXX="${CXX:-c++}") >"$tmp/out" 2>&1
rc=$?
grep -q "which counters cycle.h will try... the classic block for this system (no run-time checks" "$tmp/out"
ok $((rc + $?)) "with -std=c99 the summary names the classic block, not the Linux chain"

# The macro is reusable: a minimal project that only calls CYCLE_ARG_COUNTERS.
mkdir -p "$tmp/reuse/m4"
cp "$top/m4/cycle_counters.m4" "$tmp/reuse/m4/"
cat >"$tmp/reuse/configure.ac" <<'AC'
AC_INIT([reuse], [1])
AC_CONFIG_MACRO_DIR([m4])
AC_CONFIG_HEADERS([config.h])
AC_PROG_CC
CYCLE_ARG_COUNTERS
AC_OUTPUT
AC
if command -v autoreconf >/dev/null 2>&1; then
	(cd "$tmp/reuse" && autoreconf -i >/dev/null 2>&1 && ./configure --help) >"$tmp/out" 2>&1
	grep -q -- "--enable-armv8-pmccntr-el0" "$tmp/out"
	ok $? "another project's configure.ac gets the options from the m4 file alone"
else
	skip "autoreconf is not installed"
fi

# Two options of one family are accepted, as FFTW's configure accepts them:
# the generic timer comes first (as in cycle.h), and --help says so.
configure_with help --help
tr -s ' \n' '  ' <"$tmp/out" | grep -q -- "--enable-armv8-cntvct-el0 try the ARMv8 generic timer CNTVCT_EL0 first (the default on aarch64), even with --enable-armv8-pmccntr" &&
	tr -s ' \n' '  ' <"$tmp/out" | grep -q -- "--enable-armv7a-cntvct try the ARMv7-A generic timer CNTVCT first (the default on ARMv7-A), even with --enable-armv7a-pmccntr"
ok $? "--help states that the generic timer comes first when both options of a family are given"

# together NAME POSSIBLE CHAIN WARNINGS MACROS -- OPTIONS...: where POSSIBLE
# is yes, configure succeeds, defines every one of MACROS, prints WARNINGS
# warning lines and names CHAIN as the chain; elsewhere it stops with one
# error line naming the host.
together() {
	name=$1 possible=$2 chain=$3 warnings=$4 macros=$5
	shift 6
	configure_with "$name" "$@"
	rc=$?
	if [ "$possible" = yes ]; then
		[ $rc -eq 0 ] &&
			[ "$(grep -c 'WARNING: .*comes first' "$tmp/out")" -eq "$warnings" ] &&
			grep -q "which counters cycle.h will try\.\.\. $chain\$" "$tmp/out" || return 1
		for m in $macros; do
			grep -q "^#define $m 1" "$tmp/$name/config.h" || return 1
		done
	else
		[ $rc -ne 0 ] && [ "$(grep -c 'error: ' "$tmp/out")" -eq 1 ] &&
			grep -q "error: --enable-.* needs .*, but the compiler .* targets " "$tmp/out"
	fi
}
together armv8-both "$armv8" "CNTVCT_EL0 -> clock_gettime" 1 \
	"HAVE_ARMV8_PMCCNTR_EL0 HAVE_ARMV8_CNTVCT_EL0" -- \
	--enable-armv8-pmccntr --enable-armv8-cntvct-el0
ok $? "--enable-armv8-pmccntr --enable-armv8-cntvct-el0 on $target: $([ "$armv8" = yes ] && echo "CNTVCT_EL0 first, one warning" || echo "one error naming the host")"
together armv7-both "$armv7" "CNTVCT -> clock_gettime" 1 \
	"HAVE_ARMV7A_PMCCNTR HAVE_ARMV7A_CNTVCT" -- \
	--enable-armv7a-pmccntr --enable-armv7a-cntvct
ok $? "--enable-armv7a-pmccntr --enable-armv7a-cntvct on $target: $([ "$armv7" = yes ] && echo "CNTVCT first, one warning" || echo "one error naming the host")"
together armv8-spellings "$armv8" "PMCCNTR_EL0 -> PMCCNTR_EL0_perf -> CNTVCT_EL0 -> clock_gettime" 0 \
	HAVE_ARMV8_PMCCNTR_EL0 -- \
	--enable-armv8-pmccntr --enable-armv8-pmccntr-el0
ok $? "both spellings of PMCCNTR_EL0 on $target: $([ "$armv8" = yes ] && echo "PMCCNTR_EL0 first, no warning" || echo "one error naming the host")"
tap_status
