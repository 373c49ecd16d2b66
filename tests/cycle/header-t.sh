#!/bin/sh
# header-t: cycle.h compiles without warnings in every language mode (also
# with -Wconversion), adds no names outside its own prefix besides cycle.h's
# classic API, and prints only whole lines.
# SPDX-License-Identifier: MIT
#
# Uses $CC and $CXX (the build's, so a cross build checks the cross compiler)
# and clang for the same target when it is installed.
set -u

src=${top_srcdir:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/tap/libtap.sh"
TAP_DIAG=$tmp/log

printf '#include "cycle.h"\n#ifdef HAVE_TICK_COUNTER\nint main(void) { ticks t = getticks(); return elapsed(getticks(), t) < 0; }\n#else\nint main(void) { return 0; } /* strict ISO C on a CPU whose counters may trap */\n#endif\n' \
	>"$tmp/use.c"
cp "$tmp/use.c" "$tmp/use.cc"

# The flags FFTW's configure could pass, one at a time.
flags="-DHAVE_ARMV8_PMCCNTR_EL0 -DHAVE_ARMV8_CNTVCT_EL0 -DHAVE_ARMV7A_PMCCNTR -DHAVE_ARMV7A_CNTVCT"

compilers="${CC:-cc}"
target=$(${CC:-cc} -dumpmachine 2>/dev/null)
if command -v clang >/dev/null 2>&1 && clang --target="$target" -c -o "$tmp/x.o" "$tmp/use.c" -I"$src/cycle" 2>/dev/null; then
	compilers="$compilers|clang --target=$target"
fi
cxx="${CXX:-c++}"

echo "1..39"
IFS='|'
for cc in $compilers; do
	unset IFS
	for std in "-std=c89 -D_POSIX_C_SOURCE=199309L" "-std=c89 -pedantic -D_POSIX_C_SOURCE=199309L" "-std=c99 -D_POSIX_C_SOURCE=200809L" -std=gnu99 -std=c11 "-std=c11 -D_GNU_SOURCE" -std=c17 -std=c99; do
		# shellcheck disable=SC2086
		$cc $std -Wall -Wextra -Werror -O2 -I"$src/cycle" -c "$tmp/use.c" -o "$tmp/use.o" >"$tmp/log" 2>&1
		ok $? "$cc $std: no warnings"
	done
	IFS='|'
done
unset IFS
# Pad the plan when clang is absent, so the count stays fixed.
case $compilers in *clang*) ;; *)
	for i in 1 2 3 4 5 6 7 8; do skip "clang cannot target $target here"; done ;;
esac

for std in -std=c++11 -std=c++17; do
	$cxx $std -Wall -Wextra -Werror -O2 -I"$src/cycle" -c "$tmp/use.cc" -o "$tmp/use.o" >"$tmp/log" 2>&1
	ok $? "$cxx $std: no warnings"
done
for f in $flags; do
	${CC:-cc} -Wall -Wextra -Werror -O2 -I"$src/cycle" "$f" -c "$tmp/use.c" -o "$tmp/use.o" >"$tmp/log" 2>&1
	ok $? "$f: no warnings"
done
for f in -DHAVE_ARMV8_PMCCNTR_EL0 -DHAVE_ARMV7A_PMCCNTR; do
	$cxx -Wall -Wextra -Werror -O2 -I"$src/cycle" "$f" -c "$tmp/use.cc" -o "$tmp/use.o" >"$tmp/log" 2>&1
	ok $? "C++ $f: no warnings"
done

# Programs that build with -Wconversion -Wsign-conversion -Werror include the
# header too: in GNU C, in C89 with only POSIX (Linux's SA_RESETHAND and
# SA_NODEFER spelt out by the header), and in C++.
conv="-Wall -Wextra -Wconversion -Wsign-conversion -Werror -O2"
IFS='|'
for cc in $compilers; do
	unset IFS
	for std in -std=gnu11 "-std=c89 -D_POSIX_C_SOURCE=199309L"; do
		# shellcheck disable=SC2086
		$cc $std $conv -I"$src/cycle" -c "$tmp/use.c" -o "$tmp/use.o" >"$tmp/log" 2>&1
		ok $? "$cc $std -Wconversion -Wsign-conversion: no warnings"
	done
	IFS='|'
done
unset IFS
case $compilers in *clang*) ;; *)
	for i in 1 2; do skip "clang cannot target $target here"; done ;;
esac
cxxs=$cxx
if command -v clang++ >/dev/null 2>&1 && clang++ --target="$target" -c -o "$tmp/x.o" "$tmp/use.cc" -I"$src/cycle" 2>/dev/null; then
	cxxs="$cxxs|clang++ --target=$target"
fi
IFS='|'
for cx in $cxxs; do
	unset IFS
	# shellcheck disable=SC2086
	$cx -std=c++11 $conv -I"$src/cycle" -c "$tmp/use.cc" -o "$tmp/use.o" >"$tmp/log" 2>&1
	ok $? "$cx -std=c++11 -Wconversion -Wsign-conversion: no warnings"
	IFS='|'
done
unset IFS
case $cxxs in *clang*) ;; *) skip "clang++ cannot target $target here" ;; esac

# The engine in a strict C89 mode with POSIX declarations (no snprintf).
printf '#include "cycle.h"\n#ifndef CYCLE_IMPL_ENGINE\n#error no engine\n#endif\nint main(void) { ticks t = getticks(); return elapsed(getticks(), t) < 0; }\n' >"$tmp/c89.c"
case $target in
*linux*)
	${CC:-cc} -std=c89 -D_POSIX_C_SOURCE=199309L -Wall -Wextra -Werror -I"$src/cycle" "$tmp/c89.c" -o "$tmp/c89" >"$tmp/log" 2>&1
	ok $? "-std=c89 -D_POSIX_C_SOURCE=199309L builds the engine and links" ;;
*) skip "the engine is Linux only" ;;
esac

# Exported symbols (global or weak, defined, default visibility): only the
# two versioned shared objects (the engine's functions, getticks and elapsed
# are static; the fast path's flag, cycle_impl_v3_f*, is hidden).
${CC:-cc} -O2 -I"$src/cycle" -c "$tmp/use.c" -o "$tmp/use.o" 2>"$tmp/log"
readelf -sW "$tmp/use.o" 2>/dev/null |
	awk '($5 == "GLOBAL" || $5 == "WEAK") && $6 == "DEFAULT" && $7 != "UND" { print $8 }' |
	grep -v '^main$' >"$tmp/syms"
grep -v '^cycle_impl_v3_[nt][0-9]$' "$tmp/syms" >"$tmp/log"
[ "$(wc -l <"$tmp/syms")" -le 2 ] && ! [ -s "$tmp/log" ] &&
	readelf -sW "$tmp/use.o" | grep -q ' HIDDEN .* cycle_impl_v3_f[0-9]$'
ok $? "exported symbols: only the versioned state ($(tr '\n' ' ' <"$tmp/syms")); the flag is hidden"

# Macros: everything cycle.h defines beyond what its system headers define.
printf '#include <stdint.h>\n#include <time.h>\n#include <errno.h>\n#include <fcntl.h>\n#include <pthread.h>\n#include <sched.h>\n#include <signal.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <ucontext.h>\n#include <unistd.h>\n' >"$tmp/sys.c"
${CC:-cc} -dM -E "$tmp/sys.c" | awk '{print $2}' | sed 's/(.*//' | sort -u >"$tmp/sys.macros"
${CC:-cc} -dM -E -I"$src/cycle" "$tmp/use.c" | awk '{print $2}' | sed 's/(.*//' | sort -u >"$tmp/all.macros"
comm -13 "$tmp/sys.macros" "$tmp/all.macros" | grep -v '^CYCLE_\|^cycle_impl_\|^HAVE_TICK_COUNTER$\|^TIME_MIN$' >"$tmp/log"
! [ -s "$tmp/log" ]
ok $? "defined macros all start with CYCLE_ (or are HAVE_TICK_COUNTER, TIME_MIN)"

# Every line the header prints is whole, however long the environment's value:
# an unknown CYCLE_COUNTER of 300 characters is cut short in its warning,
# which still ends in its newline (it ran into the program's next line).
printf '#include "cycle.h"\nint main(void)\n{\n#ifdef CYCLE_IMPL_ENGINE\n\tticks t = getticks();\n\treturn elapsed(getticks(), t) < 0;\n#else\n\treturn 77;\n#endif\n}\n' >"$tmp/long.c"
long=$(printf '%300s' '' | tr ' ' x)
# whole_lines N: $tmp/err is N lines of at most 159 bytes, each ending in a newline.
whole_lines() {
	[ "$(wc -l <"$tmp/err")" -eq "$1" ] && [ "$(tail -c 1 "$tmp/err" | od -An -c | tr -d ' ')" = '\n' ] &&
		[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$tmp/err")" -le 159 ]
}
if ${CC:-cc} -I"$src/cycle" "$tmp/long.c" -o "$tmp/long" >"$tmp/log" 2>&1 &&
	{ ${TEST_EMULATOR:-} "$tmp/long"; [ $? -ne 77 ]; }; then
	CYCLE_COUNTER=$long ${TEST_EMULATOR:-} "$tmp/long" 2>"$tmp/err"
	rc=$?
	cp "$tmp/err" "$tmp/log"
	[ $rc -eq 0 ] && whole_lines 1 && grep -q "^cycle.h: CYCLE_COUNTER=xxx*\.\.\. is not a counter of this machine; ignored\$" "$tmp/err"
	ok $? "a 300-character CYCLE_COUNTER gives one whole line, the value cut with ..."
	CYCLE_COUNTER=$long CYCLE_DEBUG=1 ${TEST_EMULATOR:-} "$tmp/long" 2>"$tmp/err"
	rc=$?
	cp "$tmp/err" "$tmp/log"
	[ $rc -eq 0 ] && whole_lines 2
	ok $? "with CYCLE_DEBUG=1 too: two whole lines"
	# A newline or a terminal's escape in the value stays inside the line.
	CYCLE_COUNTER=$(printf 'a\nb\033[31mc\177') ${TEST_EMULATOR:-} "$tmp/long" 2>"$tmp/err"
	rc=$?
	cp "$tmp/err" "$tmp/log"
	[ $rc -eq 0 ] && whole_lines 1 && grep -q '^cycle.h: CYCLE_COUNTER=a?b?\[31mc? is not' "$tmp/err"
	ok $? "control characters in CYCLE_COUNTER are written as '?': one whole line"
else
	skip "no engine for $target (or the program does not build)"
	skip "no engine for $target (or the program does not build)"
	skip "no engine for $target (or the program does not build)"
fi

# A host that defines attribute names as macros before the header, as the
# Linux kernel and many projects do: the header spells them __name__.
printf '#define noinline __attribute__((noinline))\n#define unused __attribute__((unused))\n#define cold __attribute__((cold))\n#define used __attribute__((used))\n#define weak __attribute__((weak))\n#define common __attribute__((common))\n#define section(s) __attribute__((section(s)))\n#define visibility(v) __attribute__((visibility(v)))\n#define selectany __attribute__((selectany))\n' >"$tmp/macros.c"
cat "$tmp/use.c" >>"$tmp/macros.c"
cp "$tmp/macros.c" "$tmp/macros.cc"
${CC:-cc} -Wall -Wextra -Werror -O2 -I"$src/cycle" "$tmp/macros.c" -o "$tmp/macros" >"$tmp/log" 2>&1
ok $? "a program that defines noinline, unused, cold, used, weak, common, section, visibility and selectany as macros builds"
$cxx -Wall -Wextra -Werror -O2 -I"$src/cycle" "$tmp/macros.cc" -o "$tmp/macros" >"$tmp/log" 2>&1
ok $? "... in C++ too"

# The header alone, with nothing before it, in two units of one program.
printf '#include "cycle.h"\nticks other(void) { return getticks(); }\n' >"$tmp/other.c"
printf '#include "cycle.h"\nticks other(void);\nint main(void) { return elapsed(other(), getticks()) > 0 ? 0 : 0; }\n' >"$tmp/main.c"
${CC:-cc} -Wall -Wextra -Werror -I"$src/cycle" "$tmp/main.c" "$tmp/other.c" -o "$tmp/two" >"$tmp/log" 2>&1
ok $? "two translation units including cycle.h link together"
tap_status
