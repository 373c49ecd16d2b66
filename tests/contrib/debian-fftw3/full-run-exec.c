/* full-run-exec: time the transforms a library plans from a wisdom file.
 * SPDX-License-Identifier: MIT
 *
 * Usage: full-run-exec f|d WISDOM measure|patient PROBLEM
 *
 * Built once for aarch64 against libfftw3.so.3 and libfftw3f.so.3 and run
 * under qemu-aarch64 with LD_LIBRARY_PATH naming the library to time
 * (Debian's or the patched one), so that only the library differs.
 * PROBLEM is fftw-wisdom's syntax for a 1-d complex transform: c, i or o
 * (in or out of place), f or b, then n, e.g. cof1024.  The plan is made
 * with FFTW_WISDOM_ONLY from WISDOM, which fftw-wisdom wrote for the same
 * problem and flags, so planning is not repeated here; where the wisdom has
 * no such plan (a library with no timer records its estimate under other
 * flags) the library plans again with the same flags and the line says so.
 * Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID, which qemu
 * user mode passes to the host), so that other work on the machine does not
 * count.  Prints one line: "ns=<median CPU ns per transform>
 * source=wisdom|replanned plan=<fftw_sprint_plan, spaces squeezed>".
 */
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void squeeze(char *s)
{
	char *d = s, *start = s;
	int gap = 0;

	for (; *s; s++) {
		if (*s == ' ' || *s == '\n' || *s == '\t') {
			gap = d != start;
			continue;
		}
		if (gap)
			*d++ = ' ';
		gap = 0;
		*d++ = *s;
	}
	*d = 0;
}

#define BATCHES 7

/* One precision's timing; P is fftw or fftwf, R its real type. */
#define TIME_PREC(P, R)                                                      \
	static int time_##P(const char *wisdom, unsigned flags, int inplace, \
			    int sign, int n)                                 \
	{                                                                    \
		P##_complex *in, *out;                                       \
		P##_plan plan;                                               \
		const char *source = "wisdom";                               \
		double t[BATCHES];                                           \
		long iters = 1;                                              \
		char *desc;                                                  \
		int i, b;                                                    \
		if (!P##_import_wisdom_from_filename(wisdom)) {              \
			fprintf(stderr, "full-run-exec: cannot read wisdom %s\n", wisdom); \
			return 1;                                            \
		}                                                            \
		in = P##_malloc(sizeof(P##_complex) * n);                    \
		out = inplace ? in : P##_malloc(sizeof(P##_complex) * n);    \
		plan = P##_plan_dft_1d(n, in, out, sign, flags | FFTW_WISDOM_ONLY); \
		if (!plan) {                                                 \
			source = "replanned";                                \
			plan = P##_plan_dft_1d(n, in, out, sign, flags);     \
		}                                                            \
		for (i = 0; i < n; i++) {                                    \
			in[i][0] = (R)((i * 7919) % 1000) / 1000;            \
			in[i][1] = (R)((i * 104729) % 1000) / 1000;          \
		}                                                            \
		/* Iterations per batch: at least 20 ms of CPU time. */    \
		for (;;) {                                                   \
			double t0 = now(), dt;                               \
			long k;                                              \
			for (k = 0; k < iters; k++)                          \
				P##_execute(plan);                           \
			dt = now() - t0;                                     \
			if (dt >= 0.02)                                      \
				break;                                       \
			iters *= 2;                                          \
		}                                                            \
		for (b = 0; b < BATCHES; b++) {                              \
			double t0 = now();                                   \
			long k;                                              \
			for (k = 0; k < iters; k++)                          \
				P##_execute(plan);                           \
			t[b] = (now() - t0) / iters;                         \
		}                                                            \
		qsort(t, BATCHES, sizeof t[0], cmp);                         \
		desc = P##_sprint_plan(plan);                                \
		squeeze(desc);                                               \
		printf("ns=%.1f source=%s plan=%s\n", 1e9 * t[BATCHES / 2], source, desc); \
		free(desc);                                                  \
		P##_destroy_plan(plan);                                      \
		if (out != in)                                               \
			P##_free(out);                                       \
		P##_free(in);                                                \
		return 0;                                                    \
	}
TIME_PREC(fftw, double)
TIME_PREC(fftwf, float)

int main(int argc, char **argv)
{
	unsigned flags;
	int inplace, sign, n;
	const char *p;

	if (argc != 5 || (strcmp(argv[1], "f") && strcmp(argv[1], "d"))) {
		fprintf(stderr, "usage: full-run-exec f|d WISDOM measure|patient PROBLEM\n");
		return 2;
	}
	if (!strcmp(argv[3], "measure"))
		flags = FFTW_MEASURE;
	else if (!strcmp(argv[3], "patient"))
		flags = FFTW_PATIENT;
	else {
		fprintf(stderr, "full-run-exec: unknown planner '%s'\n", argv[3]);
		return 2;
	}
	p = argv[4];
	if (strlen(p) < 4 || p[0] != 'c' || (p[1] != 'i' && p[1] != 'o') ||
	    (p[2] != 'f' && p[2] != 'b') || (n = atoi(p + 3)) < 1) {
		fprintf(stderr, "full-run-exec: bad problem '%s' (e.g. cof1024)\n", p);
		return 2;
	}
	inplace = p[1] == 'i';
	sign = p[2] == 'f' ? FFTW_FORWARD : FFTW_BACKWARD;
	return argv[1][0] == 'd' ? time_fftw(argv[2], flags, inplace, sign, n)
				 : time_fftwf(argv[2], flags, inplace, sign, n);
}
