#!/bin/sh
# footprint-t: what cycle.h costs a library per file that includes it.
# SPDX-License-Identifier: MIT
#
# Profilers, tracers and schedulers include a timer header in many files.
# The state and the per-thread record must exist once per library, not once
# per file: thread-local storage above all, which glibc takes out of every
# thread's stack.  Each check runs on this header and on the v2 header
# (data/cycle-v2.h: weak definitions, one storage per file), which must fail
# it: that shows the check can tell.  $CC is the build's (a cross build
# checks its target) alone, with -flto and with ld.lld, and clang for the
# same target when it can.
set -u

src=${top_srcdir:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/tap/libtap.sh"
TAP_DIAG=$tmp/log
emu=${TEST_EMULATOR:-}
fp=$src/tests/cycle/footprint
target=$(${CC:-cc} -dumpmachine 2>/dev/null)

case $target in
*linux*) ;;
*) echo "1..0 # SKIP the engine (and its shared state) is Linux only"; exit 0 ;;
esac

# bytes LIB SECTION...: the sum of the sections' sizes in LIB.
bytes() {
	lib=$1
	shift
	total=0
	for hex in $(readelf -SW "$lib" | sed 's/^ *\[ *[0-9]*\] *//' |
		awk -v want=" $* " 'index(want, " " $1 " ") { print $5 }'); do
		total=$((total + 0x$hex))
	done
	echo "$total"
}

# libs CC HEADER TAG: $tmp/TAG-1.so and TAG-64.so, one unit.c and 64.
libs() {
	# shellcheck disable=SC2086
	$1 -O2 -fPIC -I"$src/cycle" -I"$src/tests/cycle" -DHEADER="\"$2\"" \
		-c "$fp/unit.c" -o "$tmp/$3-unit.o" &&
		$1 -O2 -fPIC -I"$src/cycle" -I"$src/tests/cycle" -DHEADER="\"$2\"" \
			-c "$fp/api.c" -o "$tmp/$3-api.o" &&
		$1 -shared "$tmp/$3-api.o" "$tmp/$3-unit.o" -o "$tmp/$3-1.so" &&
		$1 -shared "$tmp/$3-api.o" $(for i in $(seq 64); do echo "$tmp/$3-unit.o"; done) \
			-o "$tmp/$3-64.so"
}

# tinies CC HEADER TAG: $tmp/TAG-tiny-1.so and TAG-tiny-64.so, one
# tiny.c (a file that includes the header and never calls it) and 64.
tinies() {
	# shellcheck disable=SC2086
	$1 -O2 -fPIC -I"$src/cycle" -I"$src/tests/cycle" -DHEADER="\"$2\"" \
		-c "$fp/tiny.c" -o "$tmp/$3-tiny.o" &&
		$1 -shared "$tmp/$3-api.o" "$tmp/$3-tiny.o" -o "$tmp/$3-tiny-1.so" &&
		$1 -shared "$tmp/$3-api.o" $(for i in $(seq 64); do echo "$tmp/$3-tiny.o"; done) \
			-o "$tmp/$3-tiny-64.so"
}

# same SECTIONS TAG: 0 when the 64-file library has as many bytes in
# SECTIONS as the one-file library.
same() {
	one=$(bytes "$tmp/$2-1.so" $1)
	many=$(bytes "$tmp/$2-64.so" $1)
	echo "# $2: $1: $one bytes with 1 including file, $many with 64"
	[ "$one" -eq "$many" ] && [ "$one" -gt 0 ]
}

# once CC FLAGS TAG: $tmp/TAG-once.so, 8 copies of every-call.c; prints
# the engine's functions that it holds more than once (GCC's LTO suffixes
# cut), with how many copies.  Not the API's (getticks, elapsed,
# cycle_counter_name, cycle_ticks_per_second, TIME_MIN's
# cycle_impl_time_min): static inline as in FFTW's header, a file keeps a
# copy where GCC does not inline them.
once() {
	# shellcheck disable=SC2086
	$1 $2 -fPIC -I"$src/cycle" -c "$fp/every-call.c" -o "$tmp/$3-every.o" &&
		$1 $2 -fPIC -I"$src/cycle" -c "$fp/api.c" -o "$tmp/$3-api8.o" &&
		$1 $2 -shared "$tmp/$3-api8.o" $(for i in $(seq 8); do echo "$tmp/$3-every.o"; done) \
			-o "$tmp/$3-once.so" || return 1
	nm "$tmp/$3-once.so" | awk '$2 == "t" || $2 == "T" { sub(/\..*/, "", $3); print $3 }' |
		grep '^cycle_impl_' | grep -v '^cycle_impl_time_min$' |
		sort | uniq -c | awk '$1 > 1 { printf "%s%s x%d", sep, $2, $1; sep = ", " }'
}

# The engine once per library, not once per calling file: the fold, GCC 12+
# on ELF x86-64, aarch64 and armhf (PERFORMANCE_COUNTERS.md,
# "Costs"), without -flto.
case $target in
x86_64-*linux-gnu | aarch64*-linux* | arm*-linux-gnueabihf) fold=yes ;;
*) fold=no ;;
esac

# The toolchains a library may be built with: the build's compiler, with
# -flto and with ld.lld, and clang for the same target (with ld.lld too).
trivial=$tmp/trivial.c
echo 'int main(void) { return 0; }' >"$trivial"
variants="${CC:-cc}|${CC:-cc} -flto|${CC:-cc} -fuse-ld=lld"
variants="$variants|clang --target=$target|clang --target=$target -fuse-ld=lld"

echo "1..51"
n=0
IFS='|'
for cc in $variants; do
	unset IFS
	n=$((n + 1))
	# shellcheck disable=SC2086
	if ! $cc "$trivial" -o "$tmp/trivial" >/dev/null 2>&1; then
		for i in 1 2 3 4 5 6 7 8 9; do skip "$cc cannot link for $target here"; done
		IFS='|'
		continue
	fi
	TAP_DIAG=$tmp/build.log
	libs "$cc" cycle.h "c$n" >"$tmp/build.log" 2>&1 &&
		libs "$cc" data/cycle-v2.h "v$n" >>"$tmp/build.log" 2>&1
	ok $? "$cc: libraries of 1 and 64 including files build (this header and v2)"
	TAP_DIAG=$tmp/log
	same ".tdata .tbss" "c$n"
	ok $? "$cc: thread-local storage is the same for 1 and 64 including files"
	same ".data .bss" "c$n"
	ok $? "$cc: writable data is the same for 1 and 64 including files"
	! { same ".tdata .tbss" "v$n" && same ".data .bss" "v$n"; } >/dev/null
	ok $? "$cc: the v2 header fails them (TLS $(bytes "$tmp/v$n-1.so" .tdata .tbss) -> $(bytes "$tmp/v$n-64.so" .tdata .tbss), data $(bytes "$tmp/v$n-1.so" .data .bss) -> $(bytes "$tmp/v$n-64.so" .data .bss))"
	# A file that includes the header and never calls it: no code, and no
	# destructor (only the guard's installer lists one).
	TAP_DIAG=$tmp/build.log
	tinies "$cc" cycle.h "c$n" >"$tmp/build.log" 2>&1 &&
		tinies "$cc" data/cycle-v2.h "v$n" >>"$tmp/build.log" 2>&1 &&
		same ".text .fini_array" "c$n-tiny" >"$tmp/log"
	ok $? "$cc: a file that never calls getticks() adds no code and no destructor"
	TAP_DIAG=$tmp/log
	case $cc in
	*-flto*) skip "$cc: LTO folds the v2 header's 64 identical destructors: no control" ;;
	*)
		! same ".text .fini_array" "v$n-tiny"
		ok $? "$cc: ... which the v2 header's files do ($(bytes "$tmp/v$n-tiny-1.so" .text .fini_array) -> $(bytes "$tmp/v$n-tiny-64.so" .text .fini_array) bytes)"
		;;
	esac
	case $fold,$cc in
	*clang*) why="no COMDAT functions in C" ;;
	*-flto*) why="every file's copy lands in one object" ;;
	no,*) why="no fold on $target" ;;
	*)
		for opt in -O2 -O0; do
			dups=$(once "$cc" "$opt" "c$n$opt" 2>"$tmp/build.log") &&
				[ -z "$dups" ]
			ok $? "$cc $opt: 8 files that call the whole API leave one engine in the library${dups:+ (more: $dups)}"
		done
		why=
		;;
	esac
	[ -z "$why" ] || { skip "$cc -O2: $why: one engine per calling file"; skip "$cc -O0: $why"; }
	echo "# $cc: code per extra including file: $((($(bytes "$tmp/c$n-64.so" .text) - $(bytes "$tmp/c$n-1.so" .text)) / 63)) bytes of .text"
	# The record must stay thread-local (GCC's TLS commons lose that under
	# -flto), and work: a probing choice writes it (CYCLE_COUNTER).
	# shellcheck disable=SC2086
	readelf --dyn-syms -W "$tmp/c$n-64.so" | grep -q ' TLS .* cycle_impl_v3_t[0-9]$' &&
		$cc -O2 "$fp/small-stacks.c" "$tmp/c$n-64.so" -Wl,-rpath,"$tmp" \
			-o "$tmp/c$n-host" -pthread >"$tmp/log" 2>&1 &&
		CYCLE_COUNTER=clock_gettime $emu "$tmp/c$n-host" >"$tmp/log" 2>&1
	ok $? "$cc: the record is thread-local, and threads time through the library after a probing choice"
	IFS='|'
done
unset IFS

# The control: the static engine (CYCLE_H_NO_FOLD) is there per file.
if [ "$fold" = yes ] && ! ${CC:-cc} -dM -E -x c /dev/null | grep -q __clang__; then
	dups=$(once "${CC:-cc}" "-O2 -DCYCLE_H_NO_FOLD" static 2>"$tmp/build.log")
	[ -n "$dups" ]
	ok $? "... which the static engine (CYCLE_H_NO_FOLD) fails (${dups:-no function more than once})"
else
	skip "no fold with ${CC:-cc} on $target: no control"
fi

# Unoptimised (-O0, a debug build) GCC emits every static function it
# parses unless it is declared inline: a file that never calls getticks()
# must still get no code and no destructor (the v2 header's files do).
# unoptimised HEADER: the bytes of code and destructors in tiny.c at -O0.
unoptimised() {
	${CC:-cc} -O0 -fPIC -I"$src/cycle" -I"$src/tests/cycle" \
		-DHEADER="\"$1\"" -c "$fp/tiny.c" -o "$tmp/tiny-O0.o" \
		>"$tmp/log" 2>&1 &&
		bytes "$tmp/tiny-O0.o" .text .text.unlikely .text.startup \
			.fini_array .fini_array.00100
}
o0=$(unoptimised cycle.h)
[ "$o0" = 0 ]
ok $? "${CC:-cc} -O0: a file that never calls getticks() has no code and no destructor (${o0:-no object} bytes)"
v2=$(unoptimised data/cycle-v2.h)
[ -n "$v2" ] && [ "$v2" -gt 0 ]
ok $? "... which the v2 header's file has at -O0 (${v2:-no object} bytes)"

# small STACKS: a program whose library has 4096 files that include the
# header runs threads on PTHREAD_STACK_MIN stacks (HEADER: this one or v2).
small() {
	cc=${CC:-cc}
	$cc -O2 -fPIC -I"$src/cycle" -I"$src/tests/cycle" -DHEADER="\"$1\"" \
		-c "$fp/tiny.c" -o "$tmp/tiny.o" &&
		$cc -O2 -fPIC -I"$src/cycle" -I"$src/tests/cycle" -DHEADER="\"$1\"" \
			-c "$fp/api.c" -o "$tmp/api.o" &&
		$cc -shared "$tmp/api.o" $(for i in $(seq 4096); do echo "$tmp/tiny.o"; done) \
			-o "$tmp/libmany.so" &&
		$cc -O2 "$fp/small-stacks.c" -o "$tmp/small-stacks" -L"$tmp" -lmany \
			-Wl,-rpath,"$tmp" -pthread
}
TAP_DIAG=$tmp/build.log
small cycle.h >"$tmp/build.log" 2>&1
ok $? "a library of 4096 including files and a small-stack program build"
TAP_DIAG=$tmp/log
# shellcheck disable=SC2086
$emu "$tmp/small-stacks" >"$tmp/log" 2>&1
ok $? "threads on PTHREAD_STACK_MIN stacks run and time beside 4096 including files"
sed 's/^/# /' "$tmp/log"
small data/cycle-v2.h >"$tmp/build.log" 2>&1 &&
	! $emu "$tmp/small-stacks" >"$tmp/log" 2>&1
ok $? "... where the v2 header's per-file TLS leaves them no stack"
sed 's/^/# /' "$tmp/log"
tap_status
