/* cycle-probe.c: tells whether each cycle counter is usable on every CPU.
 * SPDX-License-Identifier: MIT
 * Copyright (c) 2026 the safecycle contributors
 *
 * Usage: cycle-probe [--json] [--cpu LIST] [--help] [--version]
 *
 * For every counter of cycle.h's fallback chain (clock_gettime included) and
 * every online CPU (the probe pins itself to each in turn, because access to
 * the PMU is granted and revoked per CPU, and big.LITTLE cores differ), it
 * reports whether the counter reads, traps or is frozen, its nominal and
 * measured rate, the smallest step between two reads, the cost of a read and
 * whether two consecutive reads ever went backwards.  Then it names the
 * counter the build asked for, the one getticks() picks in an ordinary
 * process, and what to do when the one asked for is unusable.
 *
 * Exit status: 0 when the configured counter is usable on every probed CPU,
 * 1 when only a fallback is (or this build has no run-time engine), 2 on a
 * usage error, 3 when the output or the report could not be written.
 *
 * This file is main: the options, the order of the work, the table and the
 * JSON.  It calls down only: into probe-qualify.c for --qualify, and into
 * probe-lib.c for the measuring and everything cycle.h does not declare.
 */
#define _GNU_SOURCE 1 /* sched_setaffinity, CPU_SET */

#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "cycle.h"
#include "probe-lib.h" /* PACKAGE_VERSION, with or without the engine */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* 0, 1 and 2 say what the probe found (or that it was misused): a table
 * cut by a full disk must not pass for one of them. */
#define EXIT_OUTPUT 3

static const char usage_text[] =
	"Usage: cycle-probe [--json] [--cpu LIST] [--qualify] [--report FILE]\n"
	"                   [--vary-frequency] [--help] [--version]\n"
	"Probe each cycle counter of this machine on every CPU it may run on:\n"
	"whether it reads, traps or is frozen, its nominal and measured rate,\n"
	"its smallest step, the cost of one read, and whether it went\n"
	"backwards; then name the configured counter, the one getticks()\n"
	"selects, and what to do when the configured one is unusable.\n"
	"\n"
	"  --json            print one JSON object instead of a table\n"
	"  --cpu LIST        probe only these CPUs, e.g. 0  0-2  1,3\n"
	"  --qualify         also measure what planning needs: offsets and\n"
	"                    drift between CPUs, counting across a sleep, a\n"
	"                    perf session taking the counter; a verdict per\n"
	"                    counter (about 0.5 s + 0.1 s per CPU)\n"
	"  --report FILE     --qualify, and write a Markdown report to FILE\n"
	"                    (- for standard output, instead of the table)\n"
	"  --vary-frequency  --qualify, and measure each rate at cpufreq's\n"
	"                    lowest and highest frequency (needs root)\n"
	"  --help            print this help and exit\n"
	"  --version         print the version and exit\n"
	"\n"
	"Exit status: 0 configured counter usable on every probed CPU (with\n"
	"--qualify: fit for planning), 1 otherwise, 2 usage error, 3 the\n"
	"output or the report could not be written.\n";

/* Standard output is checked once, at the end, closing it: a full disk, a
 * closed descriptor or an I/O error replaces status with EXIT_OUTPUT and
 * one line on stderr. */
static int finish_stdout(int status)
{
	int failed = ferror(stdout);

	errno = 0;
	if (fclose(stdout) != 0 || failed) {
		fprintf(stderr, "cycle-probe: writing standard output: %s\n",
			strerror(errno ? errno : EIO));
		return EXIT_OUTPUT;
	}
	return status;
}

/* A file size limit (ulimit -f) must make a write fail with EFBIG, which
 * gets exit status 3 and one line, and leaves no temporary report behind;
 * SIGXFSZ's default would kill the probe with neither. */
static void ignore_file_size_signal(void)
{
	signal(SIGXFSZ, SIG_IGN);
}

#ifndef CYCLE_IMPL_ENGINE

/* Without cycle.h's engine (not Linux, or no GCC-compatible compiler) there
 * is no trap handler, so probing a counter could kill the process. */
int main(int argc, char **argv)
{
	ignore_file_size_signal();
	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		fputs(usage_text, stdout);
		return finish_stdout(0);
	}
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("cycle-probe %s\n", PACKAGE_VERSION);
		return finish_stdout(0);
	}
	fputs("cycle-probe: this build of cycle.h has no run-time engine "
	      "(it needs Linux and GCC or Clang); nothing to probe\n", stderr);
	return 1;
}

#else /* CYCLE_IMPL_ENGINE */

#include "probe-qualify.h"

#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

struct options {
	int json;
	int explicit_cpus;
	cpu_set_t cpus;
	cpu_set_t outside;        /* online, outside the affinity mask */
	cpu_set_t unasked;        /* online, allowed, left out by --cpu */
	int qualify;
	const char *report_path;  /* --report FILE; NULL none */
	FILE *report;             /* stdout for --report -, else NULL */
	int report_in_place;      /* a device or a FIFO: no rename */
	char report_file[PATH_MAX]; /* else what the report replaces */
	int vary_frequency;
};

/* --- Command line ------------------------------------------------------ */

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "cycle-probe: %s '%s' (try --help)\n", what, arg);
	return 2;
}

static int no_such_cpu(unsigned long cpu, const cpu_set_t *allowed)
{
	cpu_set_t online;
	char list[512];
	const char *why = "does not exist";

	online_cpus(&online);
	if (cpu < CPU_SETSIZE && CPU_ISSET(cpu, &online))
		why = "is not in this process's affinity mask";
	else if (cpu < CPU_SETSIZE && cpu_exists((int)cpu))
		why = "is offline";
	format_cpu_list(allowed, list, sizeof(list));
	fprintf(stderr, "cycle-probe: CPU %lu %s (allowed: %s)\n", cpu, why,
		list);
	return 2;
}

/* Checks that every requested CPU is online and allowed; returns 0 or the
 * exit code. */
static int check_cpus(const cpu_set_t *want, const cpu_set_t *allowed)
{
	int c;

	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, want) && !CPU_ISSET(c, allowed))
			return no_such_cpu((unsigned long)c, allowed);
	return 0;
}

static int check_cpufreq(const cpu_set_t *cpus);
static int open_report(struct options *o);

/* The value of option name in argv[*i], given as "NAME VALUE" or
 * "NAME=VALUE": NULL when argv[*i] is not that option, "" when the value
 * is missing or empty (--report= is no file name). */
static const char *option_value(int argc, char **argv, int *i,
				const char *name)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] != '\0')
		return NULL;
	return *i + 1 < argc ? argv[++*i] : "";
}

static int missing_value(const char *what)
{
	fprintf(stderr, "cycle-probe: %s (try --help)\n", what);
	return 2;
}

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, struct options *o)
{
	cpu_set_t online, allowed;
	const char *list = NULL, *v;
	unsigned long beyond;
	int i, rc;

	memset(o, 0, sizeof(*o));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--json") == 0) {
			o->json = 1;
		} else if (strcmp(a, "--qualify") == 0) {
			o->qualify = 1;
		} else if (strcmp(a, "--vary-frequency") == 0) {
			o->qualify = o->vary_frequency = 1;
		} else if ((v = option_value(argc, argv, &i, "--report"))) {
			if (!*v)
				return missing_value("--report needs a file "
						     "name, or -");
			o->qualify = 1;
			o->report_path = v;
		} else if ((v = option_value(argc, argv, &i, "--cpu"))) {
			if (!*v)
				return missing_value("--cpu needs a list, e.g. "
						     "--cpu 0-1");
			list = v;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage_text, stdout);
			return 0;
		} else if (strcmp(a, "--version") == 0) {
			printf("cycle-probe %s\n", PACKAGE_VERSION);
			return 0;
		} else if (a[0] == '-') {
			return usage_error("unknown option", a);
		} else {
			return usage_error("unexpected argument", a);
		}
	}
	online_cpus(&online);
	allowed_cpus(&online, &allowed);
	/* Every online CPU left out is named in the output as not probed,
	 * with why: a verdict must not pass for the whole machine's. */
	CPU_XOR(&o->outside, &online, &allowed);
	if (!list) {
		o->cpus = allowed;
	} else {
		rc = parse_cpu_list(list, &o->cpus, &beyond);
		if (rc == 0)
			return usage_error("malformed CPU list", list);
		o->explicit_cpus = 1;
		if (check_cpus(&o->cpus, &allowed))
			return 2;
		if (rc < 0)
			return no_such_cpu(beyond, &allowed);
		CPU_XOR(&o->unasked, &allowed, &o->cpus);
	}
	if (o->vary_frequency && (rc = check_cpufreq(&o->cpus)) != 0)
		return rc;
	return open_report(o);
}

/* --vary-frequency: each CPU must have cpufreq limits this process may
 * write (root); returns 0 or the exit status. */
static int check_cpufreq(const cpu_set_t *cpus)
{
	char path[128];
	int c;

	for (c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, cpus))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/"
			 "cpufreq/scaling_max_freq", c);
		if (access(path, F_OK) != 0) {
			fprintf(stderr, "cycle-probe: --vary-frequency: CPU %d "
				"has no cpufreq (no %s)\n", c, path);
			return 2;
		}
		if (access(path, W_OK) != 0) {
			fprintf(stderr, "cycle-probe: --vary-frequency needs "
				"root: cannot write %s\n", path);
			return 2;
		}
	}
	return 0;
}

/* A temporary file beside file, as tmp: its descriptor, or -1 with errno.
 * It gets the earlier report's mode (and, as root, its owner: sudo
 * cycle-probe --report on a user's file), or a new file's. */
static int temp_beside(const char *file, char *tmp, size_t size)
{
	const char *slash = strrchr(file, '/');
	int dirlen = slash ? (int)(slash - file) + 1 : 0;
	struct stat st;
	mode_t mask;
	int fd, err;

	if (snprintf(tmp, size, "%.*s.%s.XXXXXX", dirlen, file,
		     file + dirlen) >= (int)size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	if (stat(file, &st) != 0) {
		mask = umask(0);
		umask(mask);
		st.st_mode = 0666 & ~mask;
		st.st_uid = geteuid();
		st.st_gid = getegid();
	}
	if (fchmod(fd, st.st_mode & 07777) == 0 &&
	    (geteuid() != 0 || fchown(fd, st.st_uid, st.st_gid) == 0))
		return fd;
	err = errno;
	close(fd);
	unlink(tmp);
	errno = err;
	return -1;
}

/* The directory of file, "." when it names none. */
static void dir_of(const char *file, char *dir, size_t size)
{
	const char *slash = strrchr(file, '/');

	if (!slash)
		snprintf(dir, size, ".");
	else
		snprintf(dir, size, "%.*s", (int)(slash - file) +
			 (slash == file), file);
}

static int report_error(const char *path, const char *why)
{
	fprintf(stderr, "cycle-probe: cannot write the report to %s: %s\n",
		path, why);
	return 2;
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Why st, an existing --report file, is this process's standard output
 * or error (/dev/stdout, /dev/fd/2, the file of 2>>build.log), or NULL:
 * renaming the report over it would destroy what the caller collects
 * there, and writing it in place would mix the two. */
static const char *std_stream(const struct stat *st)
{
	struct stat fd_st;

	if (fstat(1, &fd_st) == 0 && same_file(&fd_st, st))
		return "it is this process's standard output: use --report -";
	if (fstat(2, &fd_st) == 0 && same_file(&fd_st, st))
		return "it is this process's standard error: give a file";
	return NULL;
}

/* Tries now what write_report does at the end to file (old: its earlier
 * report, or NULL): a temporary file is created beside it and removed at
 * once, which finds a name too long for the directory or for PATH_MAX, a
 * directory this process may not write, a read-only file system.  What
 * creating does not show is rename()'s rule in a sticky directory (/tmp):
 * another user's file there is only its owner's, the directory's owner's
 * or root's to replace.  Returns 2 with one line, or -1. */
static int try_replace(const char *path, const char *file,
		       const struct stat *old)
{
	char tmp[PATH_MAX + 16], dir[PATH_MAX], why[PATH_MAX + 64];
	uid_t euid = geteuid();
	struct stat dst;
	int fd;

	dir_of(file, dir, sizeof(dir));
	if (old && euid != 0 && euid != old->st_uid && stat(dir, &dst) == 0 &&
	    (dst.st_mode & S_ISVTX) && euid != dst.st_uid) {
		fprintf(stderr, "cycle-probe: cannot replace %s: it belongs "
			"to another user in a sticky directory\n", path);
		return 2;
	}
	fd = temp_beside(file, tmp, sizeof(tmp));
	if (fd < 0 && errno == ENAMETOOLONG)
		return report_error(path, "the name of its temporary file "
				    "(.NAME.XXXXXX beside it) is too long");
	if (fd < 0) {
		snprintf(why, sizeof(why), "cannot create a file in %s: %s",
			 dir, strerror(errno));
		return report_error(path, why);
	}
	close(fd);
	unlink(tmp);
	return -1;
}

/* --report FILE: checked before a second of measuring is spent, written
 * only at the end (write_report), so that an interrupted run leaves an
 * earlier report as it was.  A regular file, or a new one, is replaced by
 * rename() from a temporary file beside it (try_replace); a symbolic
 * link's target is what is replaced, and a link to nothing is refused
 * rather than replaced by a file.  A device or a FIFO holds no earlier
 * report: written in place.  Never over this process's standard output
 * or error (std_stream). */
static int open_report(struct options *o)
{
	const char *path = o->report_path, *why = NULL;
	char *file = o->report_file;
	struct stat st;
	int exists;

	if (!path)
		return -1;
	if (strcmp(path, "-") == 0) {
		if (o->json) {
			fputs("cycle-probe: --report - and --json both want "
			      "standard output\n", stderr);
			return 2;
		}
		o->report = stdout;
		return -1;
	}
	if (path[0] == '-')
		return usage_error("--report needs a file name, or -, not",
				   path);
	exists = stat(path, &st) == 0;
	if (exists && (why = std_stream(&st)))
		return report_error(path, why);
	if (!exists) {
		if (errno != ENOENT)
			why = strerror(errno);
		else if (lstat(path, &st) == 0)
			why = "it is a symbolic link to nothing: name the file "
			      "to create instead";
		else if (strlen(path) >= sizeof(o->report_file))
			why = strerror(ENAMETOOLONG);
		else
			strcpy(file, path);
	} else if (!S_ISREG(st.st_mode)) {
		o->report_in_place = 1;
		if (S_ISDIR(st.st_mode))
			why = "it is a directory";
		else if (access(path, W_OK) != 0)
			why = strerror(errno);
	} else if (!realpath(path, file) || access(file, W_OK) != 0) {
		why = strerror(errno);
	}
	if (why)
		return report_error(path, why);
	if (o->report_in_place)
		return -1;
	return try_replace(path, file, exists ? &st : NULL);
}

/* Flushes and closes f, syncing it to the disk first when asked: 0, or
 * the errno of the first failure. */
static int close_file(FILE *f, int sync)
{
	int err = 0;

	errno = 0;
	if (fflush(f) != 0 || ferror(f))
		err = errno ? errno : EIO;
	/* EINVAL: a file system without fsync, nothing to wait for. */
	else if (sync && fsync(fileno(f)) != 0 && errno != EINVAL)
		err = errno;
	if (fclose(f) != 0 && !err)
		err = errno;
	return err;
}

/* Writes the Markdown report: through a temporary file renamed over the
 * earlier one (see open_report), so that a full disk, a file size limit
 * or an I/O error leaves that one whole, never cut.  Returns 0, or
 * EXIT_OUTPUT with one line on stderr. */
static int write_report(const struct options *o,
			const struct qualification *q)
{
	char tmp[PATH_MAX + 16];
	FILE *f = NULL;
	int fd = -1, err;

	if (o->report == stdout) {
		/* Checked with the rest of standard output. */
		qualify_write_report(stdout, q);
		return 0;
	}
	if (o->report_in_place)
		f = fopen(o->report_path, "w");
	else if ((fd = temp_beside(o->report_file, tmp, sizeof(tmp))) >= 0 &&
		 !(f = fdopen(fd, "w")))
		close(fd);
	if (f) {
		qualify_write_report(f, q);
		err = close_file(f, fd >= 0);
		if (!err && fd >= 0 && rename(tmp, o->report_file) != 0)
			err = errno;
	} else {
		err = errno;
	}
	if (!err)
		return 0;
	if (fd >= 0)
		unlink(tmp);
	fprintf(stderr, "cycle-probe: writing the report %s: %s\n",
		o->report_path, strerror(err));
	return EXIT_OUTPUT;
}

/* --- Probing every CPU --------------------------------------------------- */

static void skip_cpu(struct report *rep, int cpu, int err)
{
	rep->skipped[rep->nskipped].cpu = cpu;
	rep->skipped[rep->nskipped++].err = err;
}

/* Returns 0, or the exit status if a requested CPU cannot be used; *q
 * gets --qualify's findings. */
static int probe_cpus(const struct options *o, struct report *rep,
		      struct qualification **q)
{
	cpu_set_t saved;
	int have_saved = sched_getaffinity(0, sizeof(saved), &saved) == 0;
	int c, row;
#if defined(PROBE_PERF_TIER)
	int k;
#endif

	rep->res = calloc((size_t)CPU_COUNT(&o->cpus), sizeof(*rep->res));
	if (!rep->res) {
		fputs("cycle-probe: out of memory\n", stderr);
		return 1;
	}
	rep->ncpus = 0;
	rep->nskipped = 0;
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, &o->outside))
			skip_cpu(rep, c, 0);
		else if (CPU_ISSET(c, &o->unasked))
			skip_cpu(rep, c, SKIP_NOT_ASKED);
		if (!CPU_ISSET(c, &o->cpus))
			continue;
		if (pin_to(c) != 0) {
			/* Gone from our cpuset since (a cgroup): a CPU asked
			 * for by name is an error, one of all not probed. */
			if (!o->explicit_cpus) {
				skip_cpu(rep, c, errno);
				continue;
			}
			fprintf(stderr, "cycle-probe: cannot run on CPU %d: "
				"%s\n", c, strerror(errno));
			return 2;
		}
		for (row = 0; row < NROWS; row++)
			if (row != PERF_ROW)
				probe_row(row, &rep->res[rep->ncpus][row]);
		rep->cpu[rep->ncpus++] = c;
	}
	if (o->qualify && rep->ncpus &&
	    !(*q = qualify_direct_rows(rep, o->vary_frequency)))
		return 1;
#if defined(PROBE_PERF_TIER)
	/* The perf tier last, on every CPU: once this process holds its
	 * event, the kernel lets it read PMCCNTR_EL0 directly too, and the
	 * rows above would measure that grant instead of the machine's. */
	for (k = 0; k < rep->ncpus; k++)
		if (pin_to(rep->cpu[k]) == 0)
			probe_row(PERF_ROW, &rep->res[k][PERF_ROW]);
	qualify_perf_row(*q);
#endif
	if (have_saved)
		sched_setaffinity(0, sizeof(saved), &saved);
	if (rep->ncpus == 0) {
		fputs("cycle-probe: no CPU could be probed\n", stderr);
		return 1;
	}
	return 0;
}

/* --- Advice ------------------------------------------------------------ */

/* Where row has status st, in words ("on CPU 1", "on every probed CPU"):
 * a counter that fails on some CPUs only points at hotplug, perf or
 * big.LITTLE rather than at a missing module. */
static void cpus_with(const struct report *rep, int row, enum status st,
		      char *buf, size_t size)
{
	char words[224]; /* cpu_words writes at most 204 */
	cpu_set_t set;
	int k;

	CPU_ZERO(&set);
	for (k = 0; k < rep->ncpus; k++)
		if (rep->res[k][row].status == st)
			CPU_SET(rep->cpu[k], &set);
	if (CPU_COUNT(&set) == rep->ncpus && rep->ncpus > 1) {
		snprintf(buf, size, "on every probed CPU");
		return;
	}
	cpu_words(&set, words, sizeof(words));
	snprintf(buf, size, "on %s", words);
}

/* arm64 Linux 5.17+ can hand out PMU access through perf instead. */
static const char *perf_user_access_hint(void)
{
	if (proc_number(PERF_USER_ACCESS) == 0)
		return ", or let perf hand it out: sysctl "
		       "kernel.perf_user_access=1";
	if (proc_number(PERF_USER_ACCESS) == 1 &&
	    proc_number(PERF_PARANOID) > 2)
		return ", or let perf hand it out to users too: sysctl "
		       "kernel.perf_event_paranoid=2";
	if (access(PERF_USER_ACCESS, F_OK) == 0)
		return ", or check /proc/sys/kernel/perf_user_access";
	return "";
}

/* The module's extra argument on an ARMv7 core, whose PMU has no read-only
 * user access: there it grants only with user_write=1 (see README). */
static const char *armv7_write_hint(void)
{
#if defined(__arm__)
	char line[128];
	FILE *f = fopen("/proc/cpuinfo", "r");
	const char *hint = "";

	if (!f)
		return "";
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "CPU architecture", 16) == 0) {
			if (strtol(strchr(line, ':') ? strchr(line, ':') + 1 :
				   "", NULL, 10) == 7)
				hint = " user_write=1";
			break;
		}
	fclose(f);
	return hint;
#else
	return "";
#endif
}

/* What to do about the configured counter; fills buf, returns 1 when the
 * configured counter is usable everywhere. */
static int advise(const struct report *rep, char *buf, size_t size)
{
	int row = CONFIGURED_ROW;
	const char *name = row_name(row);
	enum status st = rep->agg[row].status;
	char where[256], fix[320];

	if (st == ST_AVAILABLE) {
		snprintf(buf, size, "none needed: %s is usable on every probed"
			 " CPU", name);
		return 1;
	}
#if defined(PROBE_PERF_TIER)
	/* The same counter, granted by the kernel through perf. */
	if (row == NABSENT + 0 &&
	    rep->agg[PERF_ROW].status == ST_AVAILABLE) {
		snprintf(buf, size, "none needed: %s traps but is read through"
			 " perf (kernel.perf_user_access=1) on every probed "
			 "CPU as %s", name,
			 row_name(PERF_ROW));
		return 1;
	}
#endif
	if (st == ST_ABSENT)
		snprintf(where, sizeof(where), "in this build");
	else
		cpus_with(rep, row, st, where, sizeof(where));
	if (st == ST_ABSENT) {
		snprintf(fix, sizeof(fix), "it was built for ARMv6 or older; "
			 "rebuild for ARMv7-A or later");
	} else if (is_pmu(name) && st == ST_TRAPS && module_loaded()) {
		snprintf(fix, sizeof(fix), "the cycle_enable module is loaded "
			 "but access is off here (no PMU in this VM/CPU, or "
			 "perf reclaimed it? see dmesg)");
	} else if (is_pmu(name) && st == ST_TRAPS) {
		snprintf(fix, sizeof(fix), "load the module: sudo insmod "
			 "enable_module/cycle_enable.ko%s (see README: "
			 "enable_module)%s", armv7_write_hint(),
			 perf_user_access_hint());
	} else if (is_pmu(name) && st == ST_FROZEN) {
		snprintf(fix, sizeof(fix), "the PMU is not counting (no PMU in "
			 "this VM/CPU?)");
	} else if (strncmp(name, "CNTVCT", 6) == 0 && st == ST_TRAPS) {
		snprintf(fix, sizeof(fix), "the kernel does not let user space "
			 "read the generic timer (no generic timer, or "
			 "qemu-user)");
	} else if (strcmp(name, "rdtsc") == 0 && st == ST_TRAPS) {
		snprintf(fix, sizeof(fix), "this process may not run rdtsc "
			 "(prctl PR_SET_TSC or seccomp)");
	} else if (strcmp(name, "rdcycle") == 0 && st == ST_TRAPS) {
		snprintf(fix, sizeof(fix), "Linux 6.6+ hides the cycle CSR: "
			 "sysctl kernel.perf_user_access=2");
	} else {
		snprintf(fix, sizeof(fix), "%s is not usable here",
			 status_names[st]);
	}
	snprintf(buf, size, "%s %s %s: %s; getticks() uses %s", name,
		 status_names[st], where, fix, rep->selected);
	return 0;
}

/* --- Output ------------------------------------------------------------- */

static void print_table_row(int cpu, int row, const struct result *r)
{
	char nominal[32] = "-", measured[32] = "-", step[32] = "-";
	char cost[32] = "-", back[32] = "-";

	if (r->nominal_hz > 0.0)
		snprintf(nominal, sizeof(nominal), "%.3f", r->nominal_hz / 1e6);
	if (r->hz >= 0.0)
		snprintf(measured, sizeof(measured), "%.3f", r->hz / 1e6);
	if (r->min_step)
		snprintf(step, sizeof(step), "%llu",
			 (unsigned long long)r->min_step);
	if (r->ns_per_read >= 0.0)
		snprintf(cost, sizeof(cost), "%.1f", r->ns_per_read);
	if (r->backwards == 0)
		snprintf(back, sizeof(back), "no");
	else if (r->backwards > 0)
		snprintf(back, sizeof(back), "yes (%ld)", r->backwards);
	printf("%3d  %-16s %-11s %12s %13s %9s %8s  %s\n", cpu,
	       row_name(row), status_names[r->status], nominal, measured,
	       step, cost, back);
}

static void print_table(const struct report *rep)
{
	char list[512], why[128];
	int k, row;

	printf("cpu  %-16s %-11s %12s %13s %9s %8s  %s\n", "counter",
	       "status", "nominal MHz", "measured MHz", "min step",
	       "ns/read", "backwards");
	for (k = 0; k < rep->ncpus; k++)
		for (row = 0; row < NROWS; row++)
			print_table_row(rep->cpu[k], row, &rep->res[k][row]);
	for (k = 0; k < rep->nskipped; k++)
		if (skipped_group(rep, k, list, sizeof(list), why, sizeof(why)))
			printf("cpu %s: not probed: %s\n", list, why);
	printf("configured: %s\n", row_name(CONFIGURED_ROW));
#if defined(PROBE_PERF_TIER)
	{
		char why[512];

		perf_tier_why(why, sizeof(why));
		printf("perf tier: %s %s (%s)\n", row_name(PERF_ROW),
		       status_names[rep->agg[PERF_ROW].status], why);
	}
#endif
	printf("selected: %s (%.3f MHz)\n", rep->selected,
	       rep->selected_hz / 1e6);
	printf("advice: %s\n", rep->advice);
}

static void json_result_fields(const struct result *r)
{
	fputs("\"status\": ", stdout);
	json_string(status_names[r->status]);
	fputs(", \"hz\": ", stdout);
	json_number(r->hz, r->hz >= 0.0);
	fputs(", \"nominal_hz\": ", stdout);
	json_number(r->nominal_hz, r->nominal_hz > 0.0);
	fputs(", \"min_step\": ", stdout);
	json_number((double)r->min_step, r->min_step != 0);
	fputs(", \"min_step_ns\": ", stdout);
	json_number((double)r->min_step * 1e9 / r->hz,
		    r->min_step != 0 && r->hz > 0.0);
	fputs(", \"ns_per_read\": ", stdout);
	json_number(r->ns_per_read, r->ns_per_read >= 0.0);
	fputs(", \"backwards\": ", stdout);
	fputs(r->backwards < 0 ? "null" : r->backwards ? "true" : "false",
	      stdout);
	fputs(", \"backwards_count\": ", stdout);
	json_number((double)r->backwards, r->backwards >= 0);
}

static void json_counters(const struct report *rep)
{
	int row, k;

	fputs("  \"counters\": [\n", stdout);
	for (row = 0; row < NROWS; row++) {
		fputs("    {\"name\": ", stdout);
		json_string(row_name(row));
		fputs(", ", stdout);
		json_result_fields(&rep->agg[row]);
		printf(", \"configured\": %s",
		       row == CONFIGURED_ROW ? "true" : "false");
		printf(", \"selected\": %s",
		       strcmp(row_name(row), rep->selected) == 0 ? "true"
								 : "false");
		fputs(", \"per_cpu_status\": {", stdout);
		for (k = 0; k < rep->ncpus; k++) {
			printf("%s\"%d\": ", k ? ", " : "", rep->cpu[k]);
			json_string(status_names[rep->res[k][row].status]);
		}
		printf("}}%s\n", row + 1 < NROWS ? "," : "");
	}
	fputs("  ],\n", stdout);
}

static void json_cpus(const struct report *rep)
{
	int row, k;

	fputs("  \"cpus\": [\n", stdout);
	for (k = 0; k < rep->ncpus; k++) {
		printf("    {\"cpu\": %d, \"counters\": [\n", rep->cpu[k]);
		for (row = 0; row < NROWS; row++) {
			fputs("      {\"name\": ", stdout);
			json_string(row_name(row));
			fputs(", ", stdout);
			json_result_fields(&rep->res[k][row]);
			printf("}%s\n", row + 1 < NROWS ? "," : "");
		}
		printf("    ]}%s\n", k + 1 < rep->ncpus ? "," : "");
	}
	fputs("  ]", stdout);
}

/* "not_probed": the online CPUs left out, each with why; [] when none. */
static void json_not_probed(const struct report *rep)
{
	char why[128];
	int i;

	fputs(",\n  \"not_probed\": [", stdout);
	for (i = 0; i < rep->nskipped; i++) {
		skipped_why(rep->skipped[i].err, why, sizeof(why));
		printf("%s{\"cpu\": %d, \"why\": ", i ? ", " : "",
		       rep->skipped[i].cpu);
		json_string(why);
		putchar('}');
	}
	putchar(']');
}

/* "perf_tier": the arm64 perf tier and the kernel settings behind it. */
static void json_perf_tier(const struct report *rep)
{
#if defined(PROBE_PERF_TIER)
	int err;
	const char *state = perf_tier_state(&err);
	long access_value = proc_number(PERF_USER_ACCESS);
	long paranoid = proc_number(PERF_PARANOID);
	char why[512];

	perf_tier_why(why, sizeof(why));
	fputs("  \"perf_tier\": {\"counter\": ", stdout);
	json_string(row_name(PERF_ROW));
	fputs(", \"status\": ", stdout);
	json_string(status_names[rep->agg[PERF_ROW].status]);
	fputs(", \"perf_user_access\": ", stdout);
	json_number((double)access_value, access_value >= 0);
	fputs(", \"perf_event_paranoid\": ", stdout);
	json_number((double)paranoid, access(PERF_PARANOID, F_OK) == 0);
	fputs(", \"state\": ", stdout);
	json_string(state);
	fputs(", \"errno\": ", stdout);
	json_number((double)err, err >= 0);
	fputs(", \"reason\": ", stdout);
	json_string(why);
	fputs("},\n", stdout);
#else
	(void)rep;
#endif
}

static void print_json(const struct report *rep,
		       const struct qualification *q)
{
	fputs("{\n  \"tool\": \"cycle-probe\",\n  \"version\": ", stdout);
	json_string(PACKAGE_VERSION);
	fputs(",\n  \"arch\": ", stdout);
	json_string(arch_name());
	fputs(",\n  \"configured\": ", stdout);
	json_string(row_name(CONFIGURED_ROW));
	fputs(",\n  \"selected\": ", stdout);
	json_string(rep->selected);
	fputs(",\n  \"selected_hz\": ", stdout);
	json_number(rep->selected_hz, rep->selected_hz > 0.0);
	printf(",\n  \"configured_usable\": %s",
	       rep->configured_usable ? "true" : "false");
	fputs(",\n  \"advice\": ", stdout);
	if (rep->configured_usable)
		fputs("null", stdout);
	else
		json_string(rep->advice);
	fputs(",\n", stdout);
	json_perf_tier(rep);
	json_counters(rep);
	json_cpus(rep);
	json_not_probed(rep);
	if (q)
		qualify_json(q);
	fputs("\n}\n", stdout);
}

/* A standard descriptor closed by the caller would be the next open()'s
 * (the report's temporary file would become standard output): hold each
 * with /dev/null, read-only, so that writing to a closed standard output
 * still fails, with EBADF. */
static void hold_std_fds(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", O_RDONLY) < 0)
			break;
}

/* Probes, prints and writes the report: the exit status but for standard
 * output's own failure. */
static int probe(int argc, char **argv, struct report *rep,
		 struct qualification **q)
{
	struct options o;
	int rc, table;

	rc = parse_options(argc, argv, &o);
	if (rc >= 0)
		return rc;
	/* What an ordinary process gets: chosen before we pin ourselves. */
	selected_counter(&rep->selected, &rep->selected_hz);
	rc = probe_cpus(&o, rep, q);
	if (rc)
		return rc;
	aggregate(rep);
	/* Before any output: --qualify's advice repeats it. */
	rep->configured_usable = advise(rep, rep->advice, sizeof(rep->advice));
	table = o.report != stdout; /* --report - prints the report instead */
	if (o.json)
		print_json(rep, *q);
	else if (table)
		print_table(rep);
	if (o.qualify && !o.json && table)
		qualify_print(*q);
	if (o.report_path && (rc = write_report(&o, *q)) != 0)
		return rc;
	if (o.qualify)
		return qualify_configured_fit(*q) ? 0 : 1;
	return rep->configured_usable ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct report rep;
	struct qualification *q = NULL;
	int rc;

	hold_std_fds();
	ignore_file_size_signal();
	memset(&rep, 0, sizeof(rep));
	rc = probe(argc, argv, &rep, &q);
	qualify_free(q);
	free(rep.res);
	return finish_stdout(rc);
}

#endif /* CYCLE_IMPL_ENGINE */
