#!/bin/sh
# classic-t: without its engine, cycle.h picks the block FFTW's cycle.h picks.
# SPDX-License-Identifier: MIT
#
# For every block of FFTW's kernel/cycle.h (master), and for the systems where
# the engine runs instead, one row below names a compiler, a target and the
# configure results (HAVE_GETHRTIME, ...) as macros.  The row is checked at
# the preprocessor level: a unit that includes cycle.h is preprocessed with
# $CC -E -undef -nostdinc and only those macros, against the stub system
# headers of tests/cycle/classic/include (so the host's own headers never
# decide), and the output must show the expected ticks type, counter name
# (CYCLE_IMPL_PLAIN_NAME, what cycle_counter_name() returns), TIME_MIN and
# instruction (or call), and the engine only where the row says so.  This
# runs for compilers and systems that are not here (Sun Studio, xlc, DEC C,
# Visual C++, HP-UX, IRIX, Cray, LoongArch, Elbrus, IA-64, ...); the run-time
# side of the classic blocks is tests/matrix/check-matrix's.
#
# When FFTW's own cycle.h is at hand ($FFTW_CYCLE_H, or FFTW master's tarball
# in $SAFECYCLE_FFTW_DIR or ../shared/fftw beside the source tree), every row is also checked
# against it: FFTW picks the ticks type, TIME_MIN and instruction the row
# says, and the rows together reach every block of FFTW's file (a block FFTW
# adds later, with no row here, fails).  Without it those checks are skipped,
# or fail under CI=true.
set -u

src=$(cd "${top_srcdir:-.}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/tap/libtap.sh"
TAP_DIAG=$tmp/diag
stubs=$src/tests/cycle/classic/include
cc=${CC:-cc}

# FFTW master's cycle.h, if it can be found.
fftw_h=${FFTW_CYCLE_H:-}
if [ -z "$fftw_h" ]; then
	for tarball in ${SAFECYCLE_FFTW_DIR:+"$SAFECYCLE_FFTW_DIR"/fftw3-master-*.tar.gz} \
		"$src"/../shared/fftw/fftw3-master-*.tar.gz; do
		[ -z "$fftw_h" ] || break
		[ -f "$tarball" ] || continue
		tar -xzf "$tarball" -C "$tmp" fftw3-master/kernel/cycle.h 2>/dev/null &&
			fftw_h=$tmp/fftw3-master/kernel/cycle.h
	done
fi
[ -z "$fftw_h" ] || [ -f "$fftw_h" ] || fftw_h=
# Under CI the comparison with FFTW's own file must run, not skip.
missing_fftw() {
	if [ "${CI:-}" = true ]; then
		ok 1 "$1 (CI=true: SAFECYCLE_FFTW_DIR or ../shared/fftw must hold FFTW master's tarball)"
	else
		skip "$1"
	fi
}

# macros_of NAME: sets m to the macros of a compiler or system (the words of
# a row that do not start with "-"; those are passed as they are).
macros_of() {
	case $1 in
	gcc) m="-D__GNUC__=12 -D__GNUC_MINOR__=2 -D__GNUC_PATCHLEVEL__=0" ;;
	clang) m="-D__GNUC__=4 -D__GNUC_MINOR__=2 -D__clang__=1 -D__clang_major__=14" ;;
	linux) m="-D__linux__=1 -D__linux=1 -D__gnu_linux__=1 -D__unix__=1 -D__ELF__=1" ;;
	freebsd) m="-D__FreeBSD__=14 -D__unix__=1 -D__ELF__=1" ;;
	netbsd) m="-D__NetBSD__=1 -D__unix__=1 -D__ELF__=1" ;;
	macos) m="-D__APPLE__=1 -D__MACH__=1" ;;
	solaris) m="-D__sun=1 -D__sun__=1 -D__SVR4=1 -D__svr4__=1 -D__unix__=1" ;;
	iso) m="-D__STRICT_ANSI__=1" ;; # -std=c11: no POSIX names in the system headers
	x86-64) m="-D__x86_64__=1 -D__x86_64=1 -D__amd64__=1 -D__amd64=1 -D__LP64__=1" ;;
	i386) m="-D__i386__=1 -D__i386=1 -D__i686__=1" ;;
	aarch64) m="-D__aarch64__=1 -D__ARM_ARCH=8 -D__ARM_64BIT_STATE=1 -D__LP64__=1" ;;
	armv7) m="-D__arm__=1 -D__ARM_ARCH=7 -D__ARM_ARCH_7A__=1 -D__ARM_ARCH_PROFILE=65 -D__ARM_EABI__=1" ;;
	ppc) m="-D__powerpc__=1 -D__powerpc=1 -D__PPC__=1 -D_ARCH_PPC=1" ;;
	ppc64le) m="-D__powerpc__=1 -D__powerpc64__=1 -D__PPC64__=1 -D_ARCH_PPC64=1 -D__LITTLE_ENDIAN__=1 -D__LP64__=1" ;;
	s390) m="-D__s390__=1" ;;
	s390x) m="-D__s390__=1 -D__s390x__=1 -D__zarch__=1 -D__LP64__=1" ;;
	riscv64) m="-D__riscv=1 -D__riscv_xlen=64 -D__LP64__=1" ;;
	riscv32) m="-D__riscv=1 -D__riscv_xlen=32 -D__ILP32__=1" ;;
	sparc64) m="-D__sparc__=1 -D__sparc=1 -D__sparc_v9__=1 -D__arch64__=1 -D__LP64__=1" ;;
	sparcv8plus) m="-D__sparc__=1 -D__sparc=1 -D__sparc_v9__=1 -D__sparc_v8__=1" ;;
	sparcv8) m="-D__sparc__=1 -D__sparc=1 -D__sparc_v8__=1" ;;
	alpha) m="-D__alpha__=1 -D__alpha=1 -D__alpha_ev4__=1 -D__LP64__=1" ;;
	hppa) m="-D__hppa__=1 -D__hppa=1" ;;
	ia64) m="-D__ia64__=1 -D__ia64=1 -D__IA64__=1 -D__LP64__=1" ;;
	loongarch64) m="-D__loongarch__=1 -D__loongarch64=1 -D__loongarch_grlen=64 -D__LP64__=1" ;;
	e2k) m="-D__e2k__=1 -D__elbrus__=1 -D__LCC__=126 -D__LP64__=1" ;;
	mips) m="-D__mips__=1 -D__mips=1 -D_MIPS_SZLONG=32" ;;
	m68k) m="-D__m68k__=1 -D__mc68000__=1" ;;
	*) echo "classic-t: no macros named '$1'" >&2; m="-D__classic_t_unknown_$1" ;;
	esac
}

# flags_of WORDS: sets flags to the options of a row's macros column.
flags_of() {
	flags=
	for word in $1; do
		case $word in
		-*) flags="$flags $word" ;;
		*) macros_of "$word"; flags="$flags $m" ;;
		esac
	done
}

# A unit as FFTW's own files are (stdint.h first, for FFTW's uint64_t), and
# probes of what the header defines.
cat >"$tmp/unit.in" <<'EOF'
#include <stdint.h>
#include "HEADER"
cycle_stub_name = CYCLE_IMPL_PLAIN_NAME ;
cycle_stub_tmin = TIME_MIN ;
cycle_stub_engine = CYCLE_IMPL_ENGINE ;
cycle_stub_have = HAVE_TICK_COUNTER ;
cycle_stub_getticks = getticks ;
EOF

# preprocess HEADER OUT FLAGS...
preprocess() {
	sed "s|HEADER|$1|" "$tmp/unit.in" >"$tmp/unit.c"
	out=$2
	shift 2
	# shellcheck disable=SC2086 # $cc is a command and its options
	$cc -E -undef -nostdinc -I"$stubs" "$@" "$tmp/unit.c" >"$out" 2>"$tmp/cpp.err"
}

# summary FILE: five lines: the type of ticks ("-" if none), then what the probes cycle_stub_name, _tmin, _engine and _have
# were set to, without blanks or quotes.
summary() {
	grep -v '^#' "$1" | awk 'BEGIN { RS = ";" }
		{ gsub(/[ \t\n]+/, " "); gsub(/__extension__ /, "") }
		match($0, /typedef [^{}]* ticks$/) { t = substr($0, RSTART + 8) }
		match($0, /cycle_stub_[a-z]+ = .*/) {
			split(substr($0, RSTART), kv, " = ")
			v = kv[2]; gsub(/[ "]/, "", v); probe[kv[1]] = v
		}
		END {
			sub(/ ticks$/, "", t)
			print (t == "" ? "-" : t)
			print probe["cycle_stub_name"]; print probe["cycle_stub_tmin"]
			print probe["cycle_stub_engine"]; print probe["cycle_stub_have"]
		}'
}

# has FILE PATTERN: the output contains PATTERN, blanks and case aside.
has() {
	tr -d ' \t\n' <"$1" | grep -qiF -- "$(printf '%s' "$2" | tr -d ' \t')"
}

# fftw_block FILE: the line of FFTW's cycle.h that typedefs the chosen ticks.
fftw_block() {
	awk -v h="$fftw_h" '
		/^# [0-9]+ "/ { line = $2 - 1; file = $3; gsub(/"/, "", file); next }
		{ line++ }
		file == h && /typedef .* ticks;/ { print line; exit }' "$1"
}

# The rows: id | macros | ticks | name | TIME_MIN | instruction or call |
# FFTW's ticks | FFTW's TIME_MIN | FFTW's instruction.  "=" means the same
# as ours; "-" as FFTW's ticks means FFTW has no counter there; "engine" as
# the name means the engine is compiled (its names are checked at run time);
# TIME_MIN "TIME_MIN" means it is left undefined (FFTW's default, 100).
cat >"$tmp/rows" <<'EOF'
solaris-sparc-gcc     | gcc solaris sparc64 -DHAVE_GETHRTIME -DHAVE_HRTIME_T -DHAVE_SYS_TIME_H | hrtime_t | gethrtime | TIME_MIN | cycle_stub_getticks = gethrtime | = | = | =
solaris-x86-64-studio | -D__SUNPRO_C=0x5150 solaris x86-64 -DHAVE_GETHRTIME -DHAVE_HRTIME_T -DHAVE_SYS_TIME_H | hrtime_t | gethrtime | TIME_MIN | cycle_stub_getticks = gethrtime | = | = | =
solaris-x86-64-noconf | -D__SUNPRO_C=0x5150 solaris x86-64 | unsigned long long | rdtsc | 5000.0 | "rdtsc" | = | = | =
aix-xlc               | -D__xlC__=0x0d01 -D__IBM_GCC_ASM=1 -D_AIX=1 -D_AIX71=1 ppc -DHAVE_READ_REAL_TIME -DHAVE_TIME_BASE_TO_TIME -DHAVE_SYS_TIME_H | timebasestruct_t | read_real_time | TIME_MIN | read_real_time(&t, | = | = | time_base_to_time(&t1,
aix-xlc-noconf        | -D__xlC__=0x0d01 -D__IBM_GCC_ASM=1 -D_AIX=1 ppc | unsigned long long | mftb | TIME_MIN | "mftbu %0" | = | = | =
linux-ppc-xlc         | -D__xlC__=0x0d01 -D__IBM_GCC_ASM=1 linux ppc | unsigned long long | mftb | TIME_MIN | "mftbu %0" | = | = | =
macos-ppc-gcc         | gcc macos ppc -D__ppc__=1 -DHAVE_MACH_ABSOLUTE_TIME -DHAVE_MACH_MACH_TIME_H | unsigned long long | mftb | TIME_MIN | "mftbu %0" | = | = | =
macos-codewarrior     | -D__MWERKS__=0x3200 -Dmacintosh=1 | unsigned long long | mftb | TIME_MIN | "mftbu %0" | = | = | =
macos-x86-64-clang    | clang macos x86-64 -DHAVE_MACH_ABSOLUTE_TIME -DHAVE_MACH_MACH_TIME_H | uint64_t | mach_absolute_time | TIME_MIN | cycle_stub_getticks = mach_absolute_time | = | = | =
macos-arm64-clang     | clang macos aarch64 -DHAVE_MACH_ABSOLUTE_TIME -DHAVE_MACH_MACH_TIME_H | uint64_t | mach_absolute_time | TIME_MIN | cycle_stub_getticks = mach_absolute_time | = | = | =
macos-arm64-noconf    | clang macos aarch64 | uint64_t | CNTVCT_EL0 | TIME_MIN | "mrs %0, cntvct_el0" | = | = | =
freebsd-i386-gcc      | gcc freebsd i386 | unsigned long long | rdtsc | 5000.0 | rdtsc | = | = | =
linux-i386-icc        | -D__ICC=1910 -D__INTEL_COMPILER=1910 linux i386 | unsigned long long | rdtsc | 5000.0 | "rdtsc" | = | = | =
windows-x86-msvc      | -D_MSC_VER=1939 -D_M_IX86=600 -D_WIN32=1 | LARGE_INTEGER | rdtsc | 5000.0 | __rdtsc() | = | = | __emit 031h
windows-x86-msvc6     | -D_MSC_VER=1200 -D_M_IX86=500 -D_WIN32=1 | LARGE_INTEGER | rdtsc | 5000.0 | _emit 0x31 | = | = | __emit 031h
freebsd-x86-64-clang  | clang freebsd x86-64 | unsigned long long | rdtsc | 5000.0 | rdtsc | = | = | =
linux-x86-64-icc      | -D__ICC=1910 -D__INTEL_COMPILER=1910 linux x86-64 | unsigned long long | rdtsc | 5000.0 | "rdtsc" | = | = | =
linux-x86-64-pgi      | -D__PGI=1 -D__PGIC__=20 linux x86-64 | unsigned long long | rdtsc | 5000.0 | "rdtsc" | = | = | rdtsc
windows-x86-64-msvc   | -D_MSC_VER=1939 -D_M_X64=100 -D_M_AMD64=100 -D_WIN32=1 -D_WIN64=1 | unsigned __int64 | rdtsc | 5000.0 | __rdtsc | = | = | =
linux-ia64-ecc        | -D__ECC=910 -D__EDG_VERSION=306 gcc linux ia64 | unsigned long | ar.itc | TIME_MIN | __getReg(_IA64_REG_AR_ITC) | = | = | =
linux-ia64-gcc        | gcc linux ia64 | unsigned long | ar.itc | TIME_MIN | "mov %0=ar.itc" | = | = | =
hpux-ia64-acc         | -D__HP_cc=62500 -D__hpux=1 -D__unix=1 -D__ia64=1 -D_LP64=1 | unsigned long | ar.itc | TIME_MIN | _Asm_mov_from_ar(_AREG_ITC) | = | = | =
windows-ia64-msvc     | -D_MSC_VER=1400 -D_M_IA64=64100 -D_WIN32=1 -D_WIN64=1 | unsigned __int64 | ar.itc | TIME_MIN | __getReg(3116) | = | = | =
linux-hppa-gcc        | gcc linux hppa | unsigned long | mfctl 16 | TIME_MIN | "mfctl 16, %0" | = | = | =
hpux-hppa-cc          | -D__HP_cc=61100 -D__hpux=1 -D__unix=1 -D__hppa=1 | unsigned long | mfctl 16 | TIME_MIN | _MFCTL(16, t) | = | = | _MFCTL(16, ret)
linux-s390-gcc        | gcc linux s390 | unsigned long long | stck | TIME_MIN | "stck %0" | = | = | "stck 0(%0)"
linux-s390x-gcc-iso   | gcc linux s390x iso | unsigned long long | stck | TIME_MIN | "stck %0" | = | = | "stck 0(%0)"
linux-alpha-gcc       | gcc linux alpha | unsigned int | rpcc | TIME_MIN | "rpcc %0" | = | = | =
linux-sparc64-gcc     | gcc linux sparc64 | unsigned long | rd %tick | TIME_MIN | "rd %%tick, %0" | = | = | =
linux-sparcv8plus-gcc | gcc linux sparcv8plus | unsigned long | rd %tick | TIME_MIN | "rd %%tick, %0" | = | = | =
tru64-alpha-decc      | -D__DECC=60590000 -D__DECC_VER=60590000 -D__osf__=1 -D__alpha=1 -DHAVE_C_ASM_H | unsigned int | rpcc | TIME_MIN | asm("rpcc %v0") | = | = | =
freebsd-armv7-cntvct  | clang freebsd armv7 -DHAVE_ARMV7A_CNTVCT | uint64_t | CNTVCT | TIME_MIN | "mrrc p15, 1, %0, %1, c14" | = | = | =
freebsd-armv7-pmccntr | clang freebsd armv7 -DHAVE_ARMV7A_PMCCNTR | uint64_t | PMCCNTR | TIME_MIN | "mrc p15, 0, %0, c9, c13, 0" | = | = | =
freebsd-armv7-both    | clang freebsd armv7 -DHAVE_ARMV7A_PMCCNTR -DHAVE_ARMV7A_CNTVCT | uint64_t | CNTVCT | TIME_MIN | "mrrc p15, 1, %0, %1, c14" | = | = | =
freebsd-armv7-noconf  | clang freebsd armv7 | uint64_t | timespec_get | 2000.0 | timespec_get(&ts, 1) | - | TIME_MIN | -
freebsd-arm64-pmccntr | clang freebsd aarch64 -DHAVE_ARMV8_PMCCNTR_EL0 | uint64_t | PMCCNTR_EL0 | TIME_MIN | "mrs %0, pmccntr_el0" | = | = | =
freebsd-arm64-cntvct  | clang freebsd aarch64 -DHAVE_ARMV8_CNTVCT_EL0 | uint64_t | CNTVCT_EL0 | TIME_MIN | "mrs %0, cntvct_el0" | = | = | =
freebsd-arm64-noconf  | clang freebsd aarch64 | uint64_t | CNTVCT_EL0 | TIME_MIN | "mrs %0, cntvct_el0" | - | TIME_MIN | -
linux-arm64-iso-pmccntr | gcc linux aarch64 iso -DHAVE_ARMV8_PMCCNTR_EL0 | uint64_t | CNTVCT_EL0 | TIME_MIN | "mrs %0, cntvct_el0" | = | = | =
freebsd-riscv64-gcc   | gcc freebsd riscv64 | uint64_t | rdtime | TIME_MIN | "rdtime %0" | = | = | =
linux-riscv64-gcc-iso | gcc linux riscv64 iso | uint64_t | rdtime | TIME_MIN | "rdtime %0" | = | = | =
linux-riscv32-gcc     | gcc linux riscv32 | uint64_t | rdtime | TIME_MIN | "rdtimeh %0" | = | = | rdtimeh %0
linux-loongarch64-gcc | gcc linux loongarch64 | uint64_t | rdtime.d | TIME_MIN | "rdtime.d %0, %1" | = | = | =
linux-e2k-lcc         | gcc linux e2k | uint64_t | rrd %clkr | TIME_MIN | "rrd %%clkr, %0" | = | = | =
irix-mips-mipspro     | -D__sgi=1 -D_SGI_COMPILER_VERSION=744 -D__mips=1 -D_MIPS_SIM=2 -DHAVE_CLOCK_GETTIME | struct timespec | CLOCK_SGI_CYCLE | TIME_MIN | clock_gettime(10, &t) | = | = | =
irix-mips-gcc         | gcc -D__sgi=1 mips -DHAVE_CLOCK_GETTIME | struct timespec | CLOCK_SGI_CYCLE | TIME_MIN | clock_gettime(10, &t) | = | = | =
unicos-cray-rtc       | -D_CRAY=1 -D_CRAYC=1 -D_UNICOS=1 -DHAVE__RTC -DHAVE_INTRINSICS_H | long long | _rtc | TIME_MIN | cycle_stub_getticks = _rtc | = | = | =
linux-mips-zbus       | gcc linux mips -DHAVE_MIPS_ZBUS_TIMER | uint64_t | ZBUS timer | TIME_MIN | 0x10030000 | = | = | =
netbsd-m68k-c11       | gcc netbsd m68k -std=c11 | uint64_t | timespec_get | 2000.0 | timespec_get(&ts, 1) | - | TIME_MIN | -
netbsd-m68k-c99       | gcc netbsd m68k -std=c99 | - | - | TIME_MIN | - | - | TIME_MIN | -
linux-x86-64-gcc      | gcc linux x86-64 | unsigned long long | engine | cycle_impl_time_min() | rdtsc | = | 5000.0 | =
linux-i386-gcc-iso    | gcc linux i386 iso | unsigned long long | rdtsc | 5000.0 | rdtsc | = | = | =
linux-arm64-gcc       | gcc linux aarch64 | uint64_t | engine | cycle_impl_time_min() | "mrs %0, cntvct_el0" | = | TIME_MIN | =
linux-armv7-gcc       | gcc linux armv7 -DHAVE_ARMV7A_CNTVCT | uint64_t | engine | cycle_impl_time_min() | "mrrc p15, 1, %0, %1, c14" | = | TIME_MIN | =
linux-ppc64le-gcc     | gcc linux ppc64le | unsigned long long | engine | cycle_impl_time_min() | "mftb %0" | = | TIME_MIN | "mftbu %0"
linux-ppc64le-gcc-iso | gcc linux ppc64le iso | unsigned long long | mftb | TIME_MIN | "mftb %0" | = | = | "mftbu %0"
linux-s390x-gcc       | gcc linux s390x | unsigned long long | engine | cycle_impl_time_min() | "stckf %0" | = | TIME_MIN | "stck 0(%0)"
linux-riscv64-gcc     | gcc linux riscv64 | uint64_t | engine | cycle_impl_time_min() | "rdtime %0" | = | TIME_MIN | =
linux-sparcv8-gcc     | gcc linux sparcv8 | uint64_t | engine | cycle_impl_time_min() | clock_gettime | - | TIME_MIN | -
linux-mips-gcc        | gcc linux mips | uint64_t | engine | cycle_impl_time_min() | clock_gettime | - | TIME_MIN | -
EOF

nrows=$(grep -c . "$tmp/rows")
echo "1..$((2 * nrows + 1))"

: >"$tmp/blocks"
sed 's/[[:space:]]*|[[:space:]]*/|/g; s/[[:space:]]*$//' "$tmp/rows" >"$tmp/rows.trimmed"
while IFS='|' read -r id flags ticks name tmin pat fticks ftmin fpat; do
	[ "$fticks" != = ] || fticks=$ticks
	[ "$ftmin" != = ] || ftmin=$tmin
	[ "$fpat" != = ] || fpat=$pat
	flags_of "$flags"
	# shellcheck disable=SC2086 # the flags are words
	set -- $flags

	# Ours.
	: >"$TAP_DIAG"
	why=
	if ! preprocess "$src/cycle/cycle.h" "$tmp/ours" "$@"; then
		why=" does not preprocess"
		cat "$tmp/cpp.err" >"$TAP_DIAG"
	else
		summary "$tmp/ours" >"$tmp/summary"
		{ read -r got_ticks; read -r got_name; read -r got_tmin
		  read -r got_engine; read -r got_have; } <"$tmp/summary"
		want_name=$(printf '%s' "$name" | tr -d ' ')
		[ "$got_ticks" = "$ticks" ] || why="$why ticks is '$got_ticks', not '$ticks';"
		if [ "$name" = engine ]; then
			[ "$got_engine" = 1 ] || why="$why no engine;"
		elif [ "$got_engine" != CYCLE_IMPL_ENGINE ]; then
			why="$why the engine is compiled;"
		elif [ "$name" = - ]; then
			[ "$got_have" = HAVE_TICK_COUNTER ] || why="$why HAVE_TICK_COUNTER is defined;"
		else
			[ "$got_name" = "$want_name" ] || why="$why counter '$got_name', not '$name';"
			[ "$got_have" = 1 ] || why="$why HAVE_TICK_COUNTER is '$got_have';"
		fi
		[ "$got_tmin" = "$tmin" ] || why="$why TIME_MIN is '$got_tmin', not '$tmin';"
		[ "$pat" = - ] || has "$tmp/ours" "$pat" || why="$why no '$pat' in the output;"
	fi
	[ -z "$why" ]
	ok $? "$id: $name, ticks $ticks${why:+ -- but$why}"

	# FFTW's.
	if [ -z "$fftw_h" ]; then
		missing_fftw "$id: FFTW master's cycle.h is not at hand (set FFTW_CYCLE_H)"
		continue
	fi
	: >"$TAP_DIAG"
	why=
	if ! preprocess "$fftw_h" "$tmp/fftw" "$@"; then
		why=" does not preprocess"
		cat "$tmp/cpp.err" >"$TAP_DIAG"
	else
		summary "$tmp/fftw" >"$tmp/summary"
		{ read -r got_ticks; read -r got_name; read -r got_tmin; } <"$tmp/summary"
		[ "$got_ticks" = "$fticks" ] || why="$why ticks is '$got_ticks', not '$fticks';"
		[ "$got_tmin" = "$ftmin" ] || why="$why TIME_MIN is '$got_tmin', not '$ftmin';"
		[ "$fpat" = - ] || has "$tmp/fftw" "$fpat" || why="$why no '$fpat' in the output;"
		fftw_block "$tmp/fftw" >>"$tmp/blocks"
	fi
	[ -z "$why" ]
	ok $? "$id: FFTW's block has ticks $fticks${why:+ -- but$why}"
done <"$tmp/rows.trimmed"

# Every block of FFTW's file is some row's.
if [ -z "$fftw_h" ]; then
	missing_fftw "FFTW master's cycle.h is not at hand"
else
	grep -n 'typedef .* ticks;' "$fftw_h" | cut -d: -f1 | sort -u >"$tmp/all"
	sort -u "$tmp/blocks" >"$tmp/hit"
	comm -23 "$tmp/all" "$tmp/hit" | while read -r line; do
		printf 'line %s: %s\n' "$line" "$(sed -n "${line}p" "$fftw_h")"
	done >"$TAP_DIAG"
	! [ -s "$TAP_DIAG" ]
	ok $? "the rows reach all $(wc -l <"$tmp/all" | tr -d ' ') blocks of FFTW's cycle.h"
fi
tap_status
