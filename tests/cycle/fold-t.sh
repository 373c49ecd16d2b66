#!/bin/sh
# fold-t: files of one object share one engine only when built alike.
# SPDX-License-Identifier: MIT
#
# Folded (GCC 12+ on ELF x86-64, aarch64, armhf) the engine's functions sit in
# COMDAT groups named after CYCLE_IMPL_CODE, and the linker keeps one group of
# a name per program or shared object, from whichever file it sees first.
# Files built with two versions of the header would share one engine under
# one name, each half calling the other's functions, if the code changed and
# the name did not: the name is the first 8 hex digits of the sha256 of the
# header's code (comments, whitespace and the CYCLE_IMPL_CODE line left
# out), so a copy patched anywhere gets its own.  And the copy kept may come
# from any file: one built for more than the ABI's baseline (-march=x86-64-v3,
# armv8.1-a, an AArch32 ARMv8-A, or the same by #pragma GCC target), or one
# in a strict POSIX mode.  So the engine is built for the baseline in every
# file, or a baseline CPU would run that file's instructions and die; it
# compiles there even where libc wraps functions always inline (fortify);
# and its code is the same whatever the file's feature macros.  Each check
# is shown a case it must refuse.
set -u

src=${top_srcdir:-.}
. "$src/tests/tap/libtap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TAP_DIAG=$tmp/diag

# code HEADER: the hash of HEADER's code, as the preprocessor reads it:
# lines spliced at a backslash, comments (outside strings and character
# constants) made a space, runs of blanks one space, empty lines dropped.
code() {
	grep -v '^#define CYCLE_IMPL_CODE ' "$1" | LC_ALL=C awk '
	{ text = text $0 "\n" }
	END {
		gsub(/\\\n/, "", text)
		n = length(text)
		for (i = 1; i <= n; i++) {
			c = substr(text, i, 1)
			d = substr(text, i, 2)
			if (d == "/*") {
				j = index(substr(text, i + 2), "*/")
				i += j ? j + 2 : n
				blank = 1
			} else if (d == "//") {
				j = index(substr(text, i), "\n")
				i += j ? j - 2 : n
			} else if (c == " " || c == "\t") {
				blank = 1
			} else if (c == "\n") {
				if (line != "")
					out = out line "\n"
				line = ""
				blank = 0
			} else {
				if (blank && line != "")
					line = line " "
				blank = 0
				if (c == "\"" || c == "\047") {
					for (j = i + 1; j <= n; j++) {
						e = substr(text, j, 1)
						if (e == "\\")
							j++
						else if (e == c || e == "\n")
							break
					}
					line = line substr(text, i, j - i + 1)
					i = j
				} else {
					line = line c
				}
			}
		}
		printf "%s", out line
	}' | sha256sum | cut -c1-64
}
# named HEADER: HEADER's CYCLE_IMPL_CODE.
named() {
	sed -n 's/^#define CYCLE_IMPL_CODE "\([0-9a-f]*\)"$/\1/p' "$1"
}
# check HEADER: 0 when HEADER is named after its code.
check() {
	name=$(named "$1") h=$(code "$1" | cut -c1-8)
	[ "$name" = "$h" ] && return 0
	echo "cycle.h's code hash begins $h: #define CYCLE_IMPL_CODE \"$h\" (is \"$name\")" >"$TAP_DIAG"
	return 1
}

echo "1..22"
check "$src/cycle/cycle.h"
ok $? "cycle.h's CYCLE_IMPL_CODE is its code's hash ($(named "$src/cycle/cycle.h"))"
# The controls: a change of code fails; a change of comment does not.
sed 's/CYCLE_IMPL_TRIES 5$/CYCLE_IMPL_TRIES 6/' "$src/cycle/cycle.h" >"$tmp/changed.h"
# A comment ending in a backslash swallows the next line.
sed 's|^\(\tsigfillset(&sa->sa_mask);\)|\t/* why */ // \\\n\1|' "$src/cycle/cycle.h" >"$tmp/spliced.h"
! cmp -s "$src/cycle/cycle.h" "$tmp/changed.h" && ! check "$tmp/changed.h" &&
	[ "$(grep -c '// \\$' "$tmp/spliced.h")" = 1 ] && ! check "$tmp/spliced.h"
ok $? "... and headers with one number changed, or a line spliced into a comment, are not"
sed 's|^/\* cycle.h: |/* cycle.h (a comment changed): |' "$src/cycle/cycle.h" >"$tmp/comment.h"
! cmp -s "$src/cycle/cycle.h" "$tmp/comment.h" && check "$tmp/comment.h"
ok $? "... while one with a comment changed still is"

# Two code versions in one program: two engines, by their groups' names.
cc=${CC:-cc}
folds=no
$cc -dM -E -x c "$src/cycle/cycle.h" 2>/dev/null | grep -q 'CYCLE_IMPL_FOLD' && folds=yes
if [ $folds = yes ]; then
	mkdir "$tmp/next"
	sed 's/^#define CYCLE_IMPL_CODE .*/#define CYCLE_IMPL_CODE "99999999"/' "$src/cycle/cycle.h" >"$tmp/next/cycle.h"
	printf '#include "cycle.h"\nint main(void) { return elapsed(getticks(), getticks()) > 0; }\n' >"$tmp/main.c"
	printf '#include "cycle.h"\nint aux(void) { return getticks() == 0; }\n' >"$tmp/aux.c"
	$cc -O2 -I"$src/cycle" -c "$tmp/main.c" -o "$tmp/main.o" >"$TAP_DIAG" 2>&1 &&
		$cc -O2 -I"$tmp/next" -c "$tmp/aux.c" -o "$tmp/aux.o" >>"$TAP_DIAG" 2>&1 &&
		$cc "$tmp/main.o" "$tmp/aux.o" -o "$tmp/two" >>"$TAP_DIAG" 2>&1 &&
		nm "$tmp/two" | grep -q " cycle_impl_slow_v3_.*_$(named "$src/cycle/cycle.h")$" &&
		nm "$tmp/two" | grep -q ' cycle_impl_slow_v3_.*_99999999$'
	ok $? "$cc: files built with two code versions keep one engine each"
else
	skip "$cc: no fold here (one engine per file)"
fi

# A file built for more than the baseline ($more), linked first, then a
# baseline file: the program holds one engine, the first file's, and runs on
# a baseline CPU ($runner, qemu's).
target=$($cc -dumpmachine 2>/dev/null)
case $target in
x86_64-*linux-gnu) more=-march=x86-64-v3 pragma=arch=x86-64-v3 runner="qemu-x86_64 -cpu qemu64" ;;
aarch64-*linux*) more=-march=armv8.1-a pragma=arch=armv8.1-a runner="qemu-aarch64 -cpu cortex-a53" ;;
arm*-linux-gnueabihf) more="-march=armv8-a -mfpu=neon-fp-armv8" pragma=arch=armv8-a,fpu=neon-fp-armv8 runner="qemu-arm -cpu cortex-a8" ;;
*) more= pragma= runner= ;;
esac
printf '#include "cycle.h"\ndouble more(void) { ticks t = getticks(); return elapsed(getticks(), t) + TIME_MIN; }\n' >"$tmp/more.c"
printf '#include "cycle.h"\ndouble more(void);\nint main(int argc, char **argv) { (void)argv; if (argc > 1) return more() < 0; return elapsed(getticks(), getticks()) > 0 && !*cycle_counter_name(); }\n' >"$tmp/base.c"
if [ -z "$more" ] || [ $folds = no ]; then
	for i in 1 2 3 4 5 6; do skip "$cc: no fold on $target (one engine per file)"; done
elif ! command -v "${runner%% *}" >/dev/null 2>&1; then
	[ "${CI:-}" = true ] && { echo "Bail out! ${runner%% *} is missing"; exit 1; }
	for i in 1 2 3 4 5 6; do skip "${runner%% *} is missing"; done
else
	# isa FLAGS [FILE]: the program from FILE (more.c built with $more by
	# default) and base.c, both built with FLAGS.
	isa() {
		first=${2:-more.c} first_flags=${2:+-O2}
		# shellcheck disable=SC2086
		$cc -O2 ${first_flags:-$more} $1 -I"$src/cycle" -c "$tmp/$first" -o "$tmp/more.o" >"$TAP_DIAG" 2>&1 &&
			$cc -O2 $1 -I"$src/cycle" -c "$tmp/base.c" -o "$tmp/base.o" >>"$TAP_DIAG" 2>&1 &&
			$cc -static "$tmp/more.o" "$tmp/base.o" -o "$tmp/isa" >>"$TAP_DIAG" 2>&1 &&
			nm "$tmp/isa" | grep -q ' cycle_impl_slow_s$' &&
			! nm "$tmp/isa" | grep -q ' cycle_impl_slow[.a-z0-9]*$'
	}
	# shellcheck disable=SC2086
	isa "" && $runner "$tmp/isa" >>"$TAP_DIAG" 2>&1
	ok $? "$cc: one engine, from a file built with $more, runs on a baseline CPU ($runner)"
	# The control: the same fold, its engine built for the file's -march.
	mkdir "$tmp/any"
	sed 's/^#define CYCLE_IMPL_PIN __attribute__.*/#define CYCLE_IMPL_PIN/' "$src/cycle/cycle.h" >"$tmp/any/cycle.h"
	# shellcheck disable=SC2086
	! cmp -s "$src/cycle/cycle.h" "$tmp/any/cycle.h" && isa "-I$tmp/any" &&
		! $runner "$tmp/isa" >>"$TAP_DIAG" 2>&1
	ok $? "... which an engine built for the file's -march fails (the baseline CPU dies)"
	# The same through the program's own '#pragma GCC target' before the
	# include, which the header sets aside: on x86 its arch= and the pin's
	# together are an error.
	printf '#pragma GCC target("%s")\n' "$pragma" | cat - "$tmp/more.c" >"$tmp/pragma.c"
	isa "" pragma.c && $runner "$tmp/isa" >>"$TAP_DIAG" 2>&1
	ok $? "$cc: ... and from a file with #pragma GCC target(\"$pragma\")"
	case $target in
	x86_64-*)
		mkdir "$tmp/kept"
		grep -v '^#pragma GCC reset_options' "$src/cycle/cycle.h" >"$tmp/kept/cycle.h"
		! cmp -s "$src/cycle/cycle.h" "$tmp/kept/cycle.h" && ! isa "-I$tmp/kept" pragma.c
		ok $? "... which fails to compile where the pragma reaches the pin"
		;;
	*) skip "GCC lets the pin's arch= replace the pragma's on $target" ;;
	esac
	# A file built for more whose pragma lowers it to the baseline: the
	# API is built for the pragma, the engine for the baseline.
	case $target in
	x86_64-*) high=-march=x86-64-v3 low=arch=x86-64 ;;
	aarch64-*) high="-march=armv8.5-a -mbranch-protection=standard" low=arch=armv8-a ;;
	*) high="-march=armv8-a -mfpu=neon-fp-armv8" low=arch=armv7-a,fpu=vfp ;;
	esac
	printf '#pragma GCC target("%s")\n' "$low" | cat - "$tmp/more.c" >"$tmp/lowered.c"
	# lowered DIR: the program from lowered.c, first, and base.c, run.
	lowered() {
		# shellcheck disable=SC2086
		$cc -O2 $high -I"$1" -c "$tmp/lowered.c" -o "$tmp/lowered.o" >"$TAP_DIAG" 2>&1 &&
			$cc -O2 -I"$1" -c "$tmp/base.c" -o "$tmp/base.o" >>"$TAP_DIAG" 2>&1 &&
			$cc -static "$tmp/lowered.o" "$tmp/base.o" -o "$tmp/lowered" >>"$TAP_DIAG" 2>&1 &&
			$runner "$tmp/lowered" more >>"$TAP_DIAG" 2>&1
	}
	lowered "$src/cycle"
	ok $? "$cc: a file built with $high and #pragma GCC target(\"$low\") runs on a baseline CPU"
	# The control: the API declared with the pragma set aside too (x86;
	# elsewhere nothing is set aside).
	mkdir "$tmp/api"
	sed -e '/^CYCLE_IMPL_API ticks getticks(void);$/i #pragma GCC push_options\n#pragma GCC reset_options' \
		-e '/^ \* THE IMPLEMENTATION/,/^#pragma GCC reset_options$/{/^#pragma GCC \(push\|reset\)_options$/d}' \
		"$src/cycle/cycle.h" >"$tmp/api/cycle.h"
	case $target in
	x86_64-*)
		! cmp -s "$src/cycle/cycle.h" "$tmp/api/cycle.h" && ! lowered "$tmp/api"
		ok $? "... which fails where the API too is built with the pragma set aside"
		;;
	*) skip "nothing is set aside on $target: the pragma builds it all" ;;
	esac
fi
# A host function built for another -march family (target, target_clones)
# calls the API: getticks() and the rest are plain static inline, which GCC
# may keep out of line; always inlined they would not compile there.
case $target in
x86_64-*linux-gnu) arch='target("arch=haswell")' clones='target_clones("arch=skylake", "default")' ;;
*) arch= ;;
esac
if [ -z "$arch" ] || [ $folds = no ]; then
	skip "$cc: no fold, or no -march families, on $target"
	skip "$cc: no fold, or no -march families, on $target"
else
	cat >"$tmp/family.c" <<EOF
#include "cycle.h"
__attribute__(($arch)) double haswell(void) { ticks t = getticks(); return elapsed(getticks(), t) + TIME_MIN + cycle_ticks_per_second(); }
__attribute__(($clones)) double cloned(void) { ticks t = getticks(); return elapsed(getticks(), t) + *cycle_counter_name(); }
int main(void) { return cloned() < 0 || (__builtin_cpu_supports("avx2") && haswell() < 0); }
EOF
	# family DIR: the program from family.c with DIR's cycle.h, run.
	family() {
		$cc -O2 -Werror -I"$1" "$tmp/family.c" -o "$tmp/family" >"$TAP_DIAG" 2>&1 &&
			"$tmp/family" >>"$TAP_DIAG" 2>&1
	}
	family "$src/cycle"
	ok $? "$cc: functions with $arch and $clones call the whole API"
	mkdir "$tmp/always"
	sed 's/^#define CYCLE_IMPL_API static __inline__ .*/#define CYCLE_IMPL_API static __inline__ __attribute__((__always_inline__))/' \
		"$src/cycle/cycle.h" >"$tmp/always/cycle.h"
	! cmp -s "$src/cycle/cycle.h" "$tmp/always/cycle.h" && ! family "$tmp/always"
	ok $? "... which an always-inline API fails to compile"
fi
# glibc's _FORTIFY_SOURCE wraps memcpy, read, open... in always-inline
# functions built for the file, which GCC will not inline into the engine
# built for less: a file built with $more must still compile, warning-free.
# fortified DIR [WRAPPERS]: every-call.c with DIR's cycle.h, $more and
# fortified, by glibc and by the headers in WRAPPERS.
fortified() {
	# shellcheck disable=SC2086
	$cc -O2 -Wall -Wextra -Werror -D_FORTIFY_SOURCE=2 $more -DHAVE_ARMV8_PMCCNTR_EL0 \
		-DHAVE_ARMV7A_PMCCNTR -I"$1" ${2:+-I"$2"} -c "$src/tests/cycle/footprint/every-call.c" \
		-o "$tmp/fortified.o" >"$TAP_DIAG" 2>&1
}
if [ -z "$more" ] || [ $folds = no ]; then
	skip "$cc: no fold on $target"
	skip "$cc: no fold on $target"
	skip "$cc: no fold on $target"
	skip "$cc: no fold on $target"
else
	fortified "$src/cycle"
	ok $? "$cc: a file built with $more and _FORTIFY_SOURCE=2 compiles"
	mkdir "$tmp/libc"
	sed 's/__builtin_memcpy(/memcpy(/' "$src/cycle/cycle.h" >"$tmp/libc/cycle.h"
	! cmp -s "$src/cycle/cycle.h" "$tmp/libc/cycle.h" && ! fortified "$tmp/libc"
	ok $? "... which an engine calling libc's memcpy fails"
	# musl's fortify-headers wrap write() too, always inline.
	mkdir "$tmp/musl"
	cat >"$tmp/musl/unistd.h" <<'EOF'
#include_next <unistd.h>
#ifndef WRAPPED_WRITE
#define WRAPPED_WRITE
__typeof__(write) wrapped_write __asm__("write");
extern __inline__ __attribute__((__always_inline__, __gnu_inline__)) ssize_t
write(int fd, const void *buf, size_t n) { return wrapped_write(fd, buf, n); }
#endif
EOF
	fortified "$src/cycle" "$tmp/musl"
	ok $? "$cc: ... and with a write() like musl's fortify-headers'"
	mkdir "$tmp/write"
	sed 's/(void)!cycle_impl_write(2,/(void)!write(2,/' "$src/cycle/cycle.h" >"$tmp/write/cycle.h"
	! cmp -s "$src/cycle/cycle.h" "$tmp/write/cycle.h" && ! fortified "$tmp/write" "$tmp/musl"
	ok $? "... which an engine calling write() fails"
fi
# The copy kept may come from a file in a strict POSIX mode, where
# <signal.h> names neither SA_ONSTACK nor SA_RESTART: the guard it installs
# still has both, as every file's does.
if [ -z "$runner" ] || [ $folds = no ]; then
	skip "$cc: no fold on $target"
	skip "$cc: no fold on $target"
elif ! command -v "${runner%% *}" >/dev/null 2>&1; then
	skip "${runner%% *} is missing"
	skip "${runner%% *} is missing"
else
	printf '#include "cycle.h"\ndouble strict(void) { ticks t = getticks(); return elapsed(getticks(), t); }\n' >"$tmp/strict.c"
	cat >"$tmp/flags.c" <<'EOF'
#include "cycle.h"
double strict(void);
int main(void)
{
	struct sigaction sa;

	if (strict() < 0 || !cycle_impl_install() ||
	    sigaction(CYCLE_IMPL_TRAP_SIGNAL, NULL, &sa) != 0)
		return 2;
	return !(sa.sa_flags & SA_ONSTACK) || !(sa.sa_flags & SA_RESTART);
}
EOF
	# flags DIR: the program from strict.c, first, and flags.c, run.
	flags() {
		$cc -O2 -std=c99 -D_POSIX_C_SOURCE=200809L -I"$1" -c "$tmp/strict.c" -o "$tmp/strict.o" >"$TAP_DIAG" 2>&1 &&
			$cc -O2 -I"$1" -c "$tmp/flags.c" -o "$tmp/flags.o" >>"$TAP_DIAG" 2>&1 &&
			$cc -static "$tmp/strict.o" "$tmp/flags.o" -o "$tmp/flags" >>"$TAP_DIAG" 2>&1 &&
			"${runner%% *}" "$tmp/flags" >>"$TAP_DIAG" 2>&1
	}
	flags "$src/cycle"
	ok $? "$cc: the engine of a strict POSIX file sets SA_ONSTACK and SA_RESTART"
	mkdir "$tmp/strictflags"
	sed 's/^#define CYCLE_IMPL_SA_ONSTACK 0x08000000u/#define CYCLE_IMPL_SA_ONSTACK 0/' "$src/cycle/cycle.h" >"$tmp/strictflags/cycle.h"
	! cmp -s "$src/cycle/cycle.h" "$tmp/strictflags/cycle.h" && ! flags "$tmp/strictflags"
	ok $? "... which an engine that names only what <signal.h> does fails"
fi
# A file below the baseline whose pragma raises it (the timing part of a
# -mgeneral-regs-only program, an ARMv6 file's ARMv7-A code) folds as the
# pragma asks, and holds the counters it would without the fold.
case $target in
x86_64-*linux-gnu) below=-mgeneral-regs-only raise=arch=x86-64 ;;
aarch64-*linux*) below=-march=armv8-a+nofp raise=arch=armv8-a ;;
arm*-linux-gnueabihf) below="-march=armv6 -mfpu=vfp -marm" raise=arch=armv7-a ;;
*) below= ;;
esac
if [ -z "$below" ] || [ $folds = no ]; then
	skip "$cc: no fold on $target"
	skip "$cc: no fold on $target"
else
	printf '#pragma GCC target("%s")\n#include "cycle.h"\nint raised(void) { return getticks() != 0; }\n' "$raise" >"$tmp/raised.c"
	# raised DIR [FLAGS]: the state raised.c holds, built with DIR's cycle.h.
	raised() {
		# shellcheck disable=SC2086
		$cc -O2 $below ${2-} -I"$1" -c "$tmp/raised.c" -o "$tmp/raised.o" >"$TAP_DIAG" 2>&1 &&
			nm "$tmp/raised.o" | grep -o 'cycle_impl_v3_n[0-9]*' | sort -u
	}
	static=$(raised "$src/cycle" -DCYCLE_H_NO_FOLD)
	[ -n "$static" ] && [ "$(raised "$src/cycle")" = "$static" ]
	ok $? "$cc: a file built with $below and #pragma GCC target(\"$raise\") keeps its engine ($static)"
	case $target in
	x86_64-*) skip "x86 sets the pragma aside, where all is pinned: see 9 and 10" ;;
	aarch64-*) skip "the pin restores all that +nofp takes away" ;;
	*)
		# The ports are chosen on the pragma's macros (ARMv7-A).
		mkdir "$tmp/reset"
		sed 's/^#define CYCLE_IMPL_FOLD 1$/&\n#define CYCLE_IMPL_SET_ASIDE 1/' \
			"$src/cycle/cycle.h" >"$tmp/reset/cycle.h"
		! cmp -s "$src/cycle/cycle.h" "$tmp/reset/cycle.h" && [ "$(raised "$tmp/reset")" != "$static" ]
		ok $? "... which fails where the pragma is set aside"
		;;
	esac
fi
# x86: -mno-mmx and -mno-fxsr leave __k8__ and __SSE2__ defined, below
# x86-64: such a file keeps its own engine, or getticks() could not inline
# the pinned read.
case $target in
x86_64-*linux-gnu)
	if [ $folds = no ]; then
		skip "$cc: no fold on $target"
		skip "$cc: no fold on $target"
	else
		# nommx DIR: unit.c built with DIR's cycle.h, -mno-mmx, -mno-fxsr.
		nommx() {
			$cc -O2 -mno-mmx -I"$1" -c "$tmp/base.c" -o "$tmp/nommx.o" >"$TAP_DIAG" 2>&1 &&
				$cc -O2 -mno-fxsr -I"$1" -c "$tmp/base.c" -o "$tmp/nommx.o" >>"$TAP_DIAG" 2>&1
		}
		nommx "$src/cycle"
		ok $? "$cc: files built with -mno-mmx, -mno-fxsr compile"
		mkdir "$tmp/mmx"
		sed 's/defined(__MMX__) && //g; s/defined(__FXSR__) && //g' "$src/cycle/cycle.h" >"$tmp/mmx/cycle.h"
		! cmp -s "$src/cycle/cycle.h" "$tmp/mmx/cycle.h" && ! nommx "$tmp/mmx"
		ok $? "... which fail where the fold trusts __k8__ and __SSE2__"
	fi
	;;
*)
	skip "x86 only"
	skip "x86 only"
	;;
esac
tap_status
