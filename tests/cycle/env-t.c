/* env-t: CYCLE_COUNTER and CYCLE_DEBUG, and silence when neither is set.
 * SPDX-License-Identifier: MIT
 *
 * Each case runs in a forked child that has not called getticks() yet, so it
 * makes its own choice; the child reports the counter's name on stdout and
 * whatever cycle.h printed on stderr comes back through a pipe.
 */
#include <stdlib.h>
#include <string.h>

#include "engine-test.h"
#include "tap/basic.h"

struct outcome {
	int status;      /* exit status, or 1000 + signal */
	char name[64];   /* cycle_counter_name() in the child */
	char err[1024];  /* what the child wrote on stderr */
	int err_lines;
};

static void slurp(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < size && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
}

static struct outcome run_with(const char *counter, const char *debug)
{
	struct outcome o;
	int out[2], err[2], status, i;
	pid_t pid;

	memset(&o, 0, sizeof(o));
	o.status = -1;
	if (pipe(out) || pipe(err))
		tap_bail("pipe failed");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		tap_bail("fork failed");
	if (pid == 0) {
		const char *name;

		dup2(out[1], 1);
		dup2(err[1], 2);
		if (counter)
			setenv("CYCLE_COUNTER", counter, 1);
		else
			unsetenv("CYCLE_COUNTER");
		if (debug)
			setenv("CYCLE_DEBUG", debug, 1);
		else
			unsetenv("CYCLE_DEBUG");
		(void)getticks();
		(void)getticks();
		name = cycle_counter_name();
		if (write(1, name, strlen(name)) < 0)
			_exit(3);
		_exit(0);
	}
	close(out[1]);
	close(err[1]);
	slurp(out[0], o.name, sizeof(o.name));
	slurp(err[0], o.err, sizeof(o.err));
	close(out[0]);
	close(err[0]);
	if (waitpid(pid, &status, 0) == pid)
		o.status = WIFSIGNALED(status) ? 1000 + WTERMSIG(status)
					       : WEXITSTATUS(status);
	for (i = 0; o.err[i]; i++)
		o.err_lines += o.err[i] == '\n';
	/* One line is the common case: drop its newline for the TAP text. */
	if (o.err_lines == 1 && i > 0 && o.err[i - 1] == '\n')
		o.err[i - 1] = '\0';
	return o;
}

int main(void)
{
	struct outcome base, o;
	int i;
	char upper[64];

#ifndef CYCLE_IMPL_ENGINE
	tap_skip_all("cycle.h has no run-time engine on this platform");
#endif
	tap_plan(9 + 2 * CYCLE_IMPL_NCOUNTERS);

	base = run_with(NULL, NULL);
	tap_ok(base.status == 0 && base.name[0], "plain run selects %s",
	       base.name);
	tap_ok(base.err[0] == '\0', "nothing is printed unless asked: '%s'",
	       base.err);

	o = run_with(NULL, "1");
	tap_ok(o.status == 0 && o.err_lines == 1,
	       "CYCLE_DEBUG=1 prints exactly one line: %s", o.err);
	tap_ok(strncmp(o.err, "cycle.h: using ", 15) == 0 &&
	       strncmp(o.err + 15, base.name, strlen(base.name)) == 0,
	       "the line names the counter in use (%s)", base.name);

	o = run_with(NULL, "0");
	tap_ok(o.status == 0 && o.err[0] == '\0', "CYCLE_DEBUG=0 is silent");

	o = run_with("no-such-counter", NULL);
	tap_ok(o.status == 0 && o.err_lines == 1 &&
	       strstr(o.err, "no-such-counter") != NULL,
	       "an unknown CYCLE_COUNTER is reported once: %s", o.err);
	tap_ok(strcmp(o.name, base.name) == 0,
	       "an unknown CYCLE_COUNTER is ignored (%s)", o.name);

	for (i = 0; i < CYCLE_IMPL_NCOUNTERS; i++) {
		const char *want = cycle_impl_name(i);
		int got;

		o = run_with(want, "1");
		got = cycle_impl_lookup(o.name);
		tap_ok(o.status == 0, "CYCLE_COUNTER=%s never dies (got %s)",
		       want, o.name);
		tap_ok(got >= i && strstr(o.err, want) != NULL,
		       "CYCLE_COUNTER=%s starts the chain there: %s", want,
		       o.err);
	}

	for (i = 0; "clock_gettime"[i]; i++)
		upper[i] = (char)("clock_gettime"[i] & ~0x20);
	upper[i] = '\0';
	o = run_with(upper, NULL);
	tap_ok(strcmp(o.name, "clock_gettime") == 0,
	       "names are case-insensitive: %s selects %s", upper, o.name);
	o = run_with("", NULL);
	tap_ok(o.status == 0 && strcmp(o.name, base.name) == 0 && !o.err[0],
	       "an empty CYCLE_COUNTER means no request");
	return tap_done();
}
