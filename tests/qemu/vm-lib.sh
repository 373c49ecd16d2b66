# vm-lib.sh: what vm-prepare, vm-run and check-vm share: paths, the table of guest architectures.
# SPDX-License-Identifier: MIT
#
# Sourced, not run.  The caller sets `prog` (its name, for messages) and
# `vm_dir` (the directory holding this file) first.

# shellcheck shell=sh disable=SC2034,SC2154 # shared with the sourcing scripts
# The source tree is two levels above tests/qemu/, unless check-vm --srcdir
# said otherwise.
srcdir=${SAFECYCLE_SRCDIR:-$(cd "$vm_dir/../.." && pwd)}
cache_dir=${SAFECYCLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/safecycle}
builddir=$cache_dir/vm-build

# Exit codes shared by the scripts: a missing prerequisite is told apart so
# that check-vm can skip outside CI and fail inside it.
EXIT_MISSING=3

die() {
	echo "$prog: $*" >&2
	exit 1
}

missing() {
	echo "$prog: missing prerequisite: $*" >&2
	exit "$EXIT_MISSING"
}

# set_arch ARCH: everything that differs between the guests.
#   deb_arch      Debian architecture of the kernel and busybox packages
#   flavour       kernel flavour; the metapackages are linux-{image,headers}-FLAVOUR
#   kbuild_arch   ARCH= for Kbuild
#   cross         CROSS_COMPILE= prefix, also used for the guest programs
#   qemu          qemu-system binary; qemu_machine, qemu_cpu and qemu_smp are
#                 vm-run's defaults
#   dtb           the device tree of the kernel package to boot with, or empty
#   counter_macro the FFTW configure macro that makes the PMU counter the configured one
#   suite         where the kernel comes from: empty for bookworm itself, else
#                 the suite whose kernel the metapackages name there
#   programs      the guest whose programs it runs (the same for one CPU)
set_arch() {
	suite='' programs=$1
	case $1 in
	arm64 | arm64-backports)
		deb_arch=arm64 flavour=arm64 kbuild_arch=arm64
		cross=aarch64-linux-gnu- qemu=qemu-system-aarch64
		qemu_machine=virt qemu_cpu=cortex-a57 qemu_smp=4 dtb=
		counter_macro=HAVE_ARMV8_PMCCNTR_EL0
		# -backports: bookworm-backports' kernel (6.12, Debian 13's;
		# Raspberry Pi OS follows the same line).
		[ "$1" = arm64 ] || suite=bookworm-backports programs=arm64
		;;
	armhf | armhf-backports)
		deb_arch=armhf flavour=armmp-lpae kbuild_arch=arm
		cross=arm-linux-gnueabihf- qemu=qemu-system-arm
		qemu_machine=virt qemu_cpu=cortex-a15 qemu_smp=2 dtb=
		counter_macro=HAVE_ARMV7A_PMCCNTR
		[ "$1" = armhf ] || suite=bookworm-backports programs=armhf
		;;
	armhf-a9)
		# A Cortex-A9 board: no LPAE, so the armmp flavour, and no
		# generic timer; the machine needs the kernel's device tree.
		deb_arch=armhf flavour=armmp kbuild_arch=arm
		cross=arm-linux-gnueabihf- qemu=qemu-system-arm
		qemu_machine=vexpress-a9 qemu_cpu=cortex-a9 qemu_smp=2
		dtb=vexpress-v2p-ca9.dtb
		counter_macro=HAVE_ARMV7A_PMCCNTR
		;;
	*)
		echo "$prog: unknown architecture '$1' (arm64, arm64-backports, armhf, armhf-backports or armhf-a9)" >&2
		exit 2
		;;
	esac
	arch=$1
}

# need_tools TOOL...: each must be on PATH, or the prerequisite is missing.
need_tools() {
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 ||
			missing "$tool not found (tests/install-deps vm cross)"
	done
}
