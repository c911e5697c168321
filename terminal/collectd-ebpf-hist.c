/* collectd-ebpf-hist: the plugin's histograms in a terminal, drawn as BCC's print_log2_hist
 * draws them, with the counters as a rate table. It reads only the snapshot file the plugin
 * writes after every read (no BPF, no privileges beyond reading that file), through the one
 * snapshot parser the SNMP subagent uses too. */
#include "base/text_rule.h"
#include "snapshot/snapshot_file.h"
#include "terminal/terminal_cgroup.h"
#include "terminal/terminal_screen.h"
#include "base/err_max.h"
#include "base/text_append.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROG "collectd-ebpf-hist"

struct args {
	const char *path;
	double interval;
	bool since_start, once;
	struct screen_options view;
	char cgroup_glob[TERMINAL_CGROUP_GLOB_MAX];
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [OPTION]...\n"
		"Draws the ebpf plugin's histograms (log2 rows with star bars, as BCC's tools print them)\n"
		"and its counters as rates, from the snapshot file collectd writes after every read.\n"
		"\n"
		"  -s, --snapshot PATH  the plugin's SnapshotFile (default " SNAPSHOT_DEFAULT_PATH ")\n"
		"  -i, --interval N     seconds between screens (default 2); each screen shows what\n"
		"                       happened since the previous one\n"
		"  -S, --since-start    everything since each module started, not the last interval\n"
		"  -m, --module GLOB    only modules whose name matches (syscalls, block, tcp-web, 'b*')\n"
		"  -M, --metric GLOB    only series whose type or type-instance matches,\n"
		"                       as collectd names it (latency, latency-fsync, 'operations-*')\n"
		"  -c, --cgroup GLOB    only the per-cgroup rows (modules with By \"cgroup\") of the\n"
		"                       cgroups that match, cgroup by cgroup, named as collectd names\n"
		"                       them: '/system.slice/*.service', 'system.slice_cron.service',\n"
		"                       '*' (every cgroup)\n"
		"  -t, --top N          counters per module (per cgroup with --cgroup), busiest first\n"
		"                       (default 10; 0: all)\n"
		"  -1, --once           one screen, then exit: after N seconds (and a new snapshot),\n"
		"                       or at once with --since-start\n"
		"  -h, --help           this text\n");
}

/* Exits 2 with what is wrong and how to fix it. */
static void bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '" PROG " --help'.\n");
	exit(2);
}

/* --interval's seconds, or exit 2 when they are not a number above 0 and at most a day. */
static double interval_arg(const char *arg)
{
	char *end;
	double seconds;

	errno = 0;
	seconds = strtod(arg, &end);
	if (errno || end == arg || *end || !(seconds > 0 && seconds <= 86400))
		bad_usage("--interval \"%s\" is not a number of seconds between 0 and 86400 (e.g. -i 2)", arg);
	return seconds;
}

/* --top's count, or exit 2 when it is not a whole number from 0 to 100000. */
static int top_arg(const char *arg)
{
	char *end;
	long top;

	errno = 0;
	top = strtol(arg, &end, 10);
	if (errno || end == arg || *end || top < 0 || top > 100000)
		bad_usage("--top \"%s\" is not a count of counters, 0 to 100000 (0 shows all)", arg);
	return (int)top;
}

static void parse_args(int argc, char **argv, struct args *a)
{
	static const struct option longopts[] = {
		{ "snapshot", required_argument, NULL, 's' }, { "interval", required_argument, NULL, 'i' },
		{ "since-start", no_argument, NULL, 'S' },    { "module", required_argument, NULL, 'm' },
		{ "metric", required_argument, NULL, 'M' },   { "top", required_argument, NULL, 't' },
		{ "once", no_argument, NULL, '1' },           { "help", no_argument, NULL, 'h' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	char why[ERR_MAX];
	int c;

	*a = (struct args){ .path = SNAPSHOT_DEFAULT_PATH, .interval = 2, .view = { .top = 10 } };
	while ((c = getopt_long(argc, argv, "s:i:Sm:M:c:t:1h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (!optarg[0])
				bad_usage("--snapshot needs a file name, e.g. --snapshot %s", SNAPSHOT_DEFAULT_PATH);
			a->path = optarg;
			break;
		case 'i':
			a->interval = interval_arg(optarg);
			break;
		case 'S':
			a->since_start = true;
			break;
		case 'm':
			a->view.module_glob = optarg;
			break;
		case 'M':
			a->view.metric_glob = optarg;
			break;
		case 'c':
			if (terminal_cgroup_glob(optarg, a->cgroup_glob, why, sizeof(why)))
				bad_usage("%s", why);
			a->view.cgroup_glob = a->cgroup_glob;
			break;
		case 't':
			a->view.top = top_arg(optarg);
			break;
		case '1':
			a->once = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			fprintf(stderr, "Try '" PROG " --help'.\n");
			exit(2);
		}
	}
	if (optind < argc)
		bad_usage("unexpected argument \"%s\" (the snapshot file is given with --snapshot PATH)", argv[optind]);
}

/* read_snapshot()'s "no such file": the caller says what that means at that point. */
#define SNAPSHOT_MISSING (-2)

/* Reads and parses path, opened as the subagent opens it (snapshot_open_file(): a regular
 * file of at most 16 MiB, O_NONBLOCK so a FIFO does not hang the view), parsed within the
 * parser's counts. 0, or -1 (SNAPSHOT_MISSING when there is no such file) with a message
 * saying what is wrong and what to do. */
static int read_snapshot(const char *path, struct snapshot *s, char *err, size_t errlen)
{
	char why[ERR_MAX];
	struct stat st;
	FILE *f = snapshot_open_file(path, &st, why, sizeof(why));
	int e = errno;

	if (!f && e == ENOENT) {
		snprintf(err, errlen, "cannot read %s: no such file. collectd writes it after every read while "
			 "the ebpf plugin runs (SnapshotFile in <Plugin ebpf>, default " SNAPSHOT_DEFAULT_PATH
			 "): start collectd, or name the file with --snapshot PATH", path);
		return SNAPSHOT_MISSING;
	}
	if (!f && e == EACCES) {
		struct group *g = stat(path, &st) == 0 ? getgrgid(st.st_gid) : NULL;

		snprintf(err, errlen, "cannot read %s: permission denied. The file is readable by its group "
			 "(SnapshotGroup in <Plugin ebpf>): run as a member of group %s, or as root", path,
			 g ? g->gr_name : "<SnapshotGroup>");
		return -1;
	}
	if (!f) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	if (snapshot_parse(f, s, why, sizeof(why))) {
		text_printf_cut(err, errlen, "%s is not a collectd-ebpf snapshot this version can read: %s", path, why);
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

static void sleep_seconds(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - floor(s)) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Draws one screen; a live view on a terminal starts each one on a clean screen. 0, or 1
 * when the filters matched nothing. */
static int draw(const struct args *a, const struct snapshot *cur, const struct snapshot *prev)
{
	char *screen = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&screen, &len);
	int drawn, bad;

	if (!mem) {
		fprintf(stderr, PROG ": cannot draw the screen: %s\n", strerror(errno));
		return 1;
	}
	drawn = screen_draw(mem, a->path, cur, prev, &a->view);
	bad = fclose(mem);
	if (!a->once && isatty(STDOUT_FILENO))
		fputs("\033[H\033[2J", stdout);
	/* The snapshot's names and messages are shown under base/text_rule.h's rule: its bytes
	 * never reach the terminal as they are (an ESC, an OSC title or link, a C1 CSI). */
	if (!bad)
		bad = text_write_lines(stdout, screen, TEXT_SHOW);
	free(screen);
	if (fflush(stdout) || bad)
		return 1;
	return drawn > 0 ? 0 : 1;
}

/* A message that may quote the snapshot (its parser's reason), under the same rule. */
static void say(FILE *f, const char *msg)
{
	fprintf(f, PROG ": ");
	text_write_lines(f, msg, TEXT_SHOW);
	fputc('\n', f);
}

/* Once read, the snapshot is gone only when collectd stopped: the plugin removes it on
 * shutdown (a read replaces it by a rename, never leaving a gap). Said on standard error; the
 * view then exits 1, rather than waiting on for a collectd that may never come back. */
static int snapshot_gone(const char *path)
{
	fprintf(stderr, PROG ": %s was removed: collectd stopped (the ebpf plugin removes its "
		"SnapshotFile when collectd stops). Start collectd, then " PROG " again\n", path);
	return 1;
}

/* --since-start: each screen shows everything since each module started, so one snapshot
 * at a time is all it needs. Frees snap; returns main's exit status with --once or when
 * collectd stopped. */
static int show_since_start(const struct args *a, struct snapshot *snap)
{
	char err[ERR_MAX];

	for (;;) {
		int bad = draw(a, snap, NULL);

		if (a->once) {
			snapshot_free(snap); /* the sanitized build's leak check runs at exit */
			return bad;
		}
		sleep_seconds(a->interval);
		snapshot_free(snap);
		int rc = read_snapshot(a->path, snap, err, sizeof(err));

		if (rc == SNAPSHOT_MISSING)
			return snapshot_gone(a->path);
		if (rc)
			say(stdout, err); /* being replaced, or a passing fault: try again */
	}
}

/* Reads the snapshot into cur, interval after interval, until it is newer than prev: 0.
 * 1 (said on standard error) when it is gone (collectd stopped), and with --once when it
 * cannot be read or is not replaced in time; a live view says so and waits on. */
static int wait_for_newer(const struct args *a, const struct snapshot *prev, struct snapshot *cur)
{
	/* collectd's Interval may be longer than ours: a screen waits for a new snapshot, but
	 * not forever. */
	double patience = a->interval * 3 > 30 ? a->interval * 3 : 30, waited = 0;
	char err[ERR_MAX];

	for (;;) {
		sleep_seconds(a->interval);
		waited += a->interval;
		int rc = read_snapshot(a->path, cur, err, sizeof(err));

		if (rc == SNAPSHOT_MISSING)
			return snapshot_gone(a->path);
		if (rc) {
			if (a->once) {
				say(stderr, err);
				return 1;
			}
			say(stdout, err);
			continue;
		}
		if (cur->written_us != prev->written_us)
			return 0;
		snapshot_free(cur);
		if (waited >= patience) {
			fprintf(stderr, PROG ": %s was not replaced for %.0f s: collectd is not running, or its "
				"Interval is longer (raise --interval)\n", a->path, waited);
			if (a->once)
				return 1;
			waited = 0;
		}
	}
}

/* Each screen shows what happened between two snapshots: prev, then each newer one in
 * turn. Frees prev; returns main's exit status with --once. */
static int show_intervals(const struct args *a, struct snapshot *prev)
{
	struct snapshot cur = { 0 };

	if (!a->once)
		printf(PROG ": %s, waiting %g s for the next snapshot to compare with...\n", a->path, a->interval);
	for (;;) {
		if (wait_for_newer(a, prev, &cur)) {
			snapshot_free(prev);
			return 1;
		}
		if (a->once) {
			int bad = draw(a, &cur, prev);

			snapshot_free(&cur);
			snapshot_free(prev);
			return bad ? 1 : 0;
		}
		draw(a, &cur, prev);
		snapshot_free(prev);
		*prev = cur;
		memset(&cur, 0, sizeof(cur));
	}
}

int main(int argc, char **argv)
{
	struct snapshot first = { 0 };
	char err[ERR_MAX];
	struct args a;

	/* A viewer stops on Ctrl-C and on kill, however it was started: a shell script starts
	 * its background commands with SIGINT and SIGQUIT ignored, and the ignored disposition
	 * survives exec (contrib/demo.sh starts it so). */
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	parse_args(argc, argv, &a);
	if (read_snapshot(a.path, &first, err, sizeof(err))) {
		say(stderr, err);
		return 1;
	}
	return a.since_start ? show_since_start(&a, &first) : show_intervals(&a, &first);
}
