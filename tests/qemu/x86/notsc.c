/* notsc.c: run a program with rdtsc turned off (PR_SET_TSC), as a sandbox
 * or a record-and-replay tool would: the setting is inherited across exec.
 * SPDX-License-Identifier: MIT
 *
 * Usage: notsc PROGRAM [ARG...]   (exit 99 if the kernel refuses)
 */
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: notsc PROGRAM [ARG...]\n", stderr);
		return 2;
	}
	if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) != 0) {
		perror("notsc: prctl(PR_SET_TSC)");
		return 99;
	}
	execv(argv[1], argv + 1);
	perror("notsc: execv");
	return 98;
}
