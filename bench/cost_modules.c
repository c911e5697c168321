/* bench/cost_modules: how honest each module's cpu_cost is, module by module (issue 43's
 * "within 25 % of the bench"), beside bench/cost_window's syscalls figures. Per module, a
 * workload whose events the bench knows:
 *
 *   runqueue    the ping-pong of bench/pingpong.h: two waits (wakeup, switch) per round trip
 *   block       O_DIRECT 4 KiB reads of a loop device over a file on tmpfs: one IO each,
 *               timed as CPU time (the reader's and the loop's kworkers'), not wall time;
 *               with -d DIR of a file there (a real disk: no kworkers, its completion in
 *               the disk's interrupt, which no task's clock here counts)
 *   <Program>   tests/exporter/exporter_kaddrs.bpf.o on sys_enter_getppid (a classic
 *               tracepoint) with a map block, driven by getppid(): one run each
 *   ExporterConfig  the same object through its ebpf_exporter config (exporter_kaddrs.yaml)
 *   tcp         loopback connections to the bench's listener, closed with a reset: per connection
 *   signals     SIGUSR1 raised at the bench, taken by an empty handler: one delivery each
 *   vfs         one-byte read()s of /dev/zero: one read each (where fentry and kprobes are
 *               missing, as here, through the module's sys_enter/sys_exit fallback)
 *   fs          one-byte pread()s of a cached file on a scratch ext4 (a loop device): one
 *               ext4_file_read_iter each
 *   dcache      stat() of a cached five-component path under /tmp: one stat each
 *   pagecache   4 KiB pread()s of a cached 4 MiB file on the scratch ext4, a different page
 *               each time (filemap_read marks a page accessed when the read moves to it)
 *   process     a thread created and joined: one fork and one thread exit each
 *   uprobes     a user's program on user space's code: contrib/programs/gai_latency (a
 *               uprobe and a uretprobe on the C library's getaddrinfo) with its shipped
 *               .conf's histogram block, driven by getaddrinfo() of a numeric address: one
 *               call each
 *
 * fs, dcache and pagecache need fentry or kprobes (the module chooses; -a sets AttachOrder
 * on them, "kprobe" for the fallback): on a kernel with neither they are left out; Debian's
 * kernels under qemu run them (tests/vm/bench-cost-vm.sh, `make bench-cost-vm`). -B DEV
 * runs the block section on DEV (the VM's /dev/nullb0: null_blk completes each IO in the
 * reader's context, so its CPU time is the reader's alone) instead of the loop device.
 *
 * and for each, side by side (side_by_side.c: no probe, the module with the kernel's run-time
 * statistics off, the same with them on):
 *   1. the added ns per event (statistics off: what the module costs between cost windows),
 *      the statistics' tax per event (on - off) and the duty cycle's (1/CostPeriod of it, and
 *      as a share of the module's cost), run_time_ns and program runs per event; at the end
 *      of the section the default period this module's runs make (cost_period_default_for)
 *      and the duty cycle's tax at it;
 *   2. the module's own cpu_cost, read once a second for -s seconds at CostPeriod 3 while the
 *      workload runs, as ns per event: the reported ns per second over the module's own
 *      events per second (a user's program has no event count: over the workload's), against
 *      section 1's added ns per event; the ratio is the table's.
 *
 * The modules without event counts (<Program>, ExporterConfig, tcp) send their last
 * window's own cost per second until the next window; in a tight loop the statistics' tax
 * slows the loop during the window, so the window's rate reads low. Each of them runs a
 * second time paced: its batches as bursts, with a clock_nanosleep to a deadline between
 * them that holds the rate at PACED_SHARE of what the tight loop did with the module and its
 * statistics on (a host's requests arrive at a rate the tax does not change), timed as the
 * thread's CPU time per event (its sleeps' syscalls in it), not wall time. For the tight
 * loop section 2 prints the rate the tax predicts in the window, (no probe + off) / (no
 * probe + on) of the rate outside, beside the rate the window saw.
 *
 * Prints numbers, never judges them. Exit 0 when it ran, 1 when it could not.
 */
#define _GNU_SOURCE
#include "bench/measure.h"
#include "bench/pingpong.h"
#include "bench/side_by_side.h"
#include "base/err_max.h"
#include "libcore/engine/cost_window.h"
#include "libcore/engine/module.h"
#include "libcore/kernel/prog_stats.h"
#include "libcore/programs/program_module.h"
#include "plugin/presentation.h"
#include "tests/support/conf_text.h"
#include "tests/support/loop_device.h"
#include "tests/support/loop_ext4.h"
#include "tests/support/recording_sink.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define IO_SIZE 4096
#define DEVICE_MIB 64
#define GETPPID_BATCH 5000
#define PACED_SHARE 0.4 /* of the tight loop's rate with the module and its statistics on */
#define PAGECACHE_PAGES 1024

enum cfg { NO_PROBE, OFF, ON, NCFG };

struct bench;

struct section {
	const char *name, *event, *method;         /* method NULL: the module chooses (module_methods) */
	const char *const *tracepoints;
	double (*batch)(struct bench *b);          /* ns per unit of work */
	struct module *(*make)(struct bench *b);   /* not started; NULL: the built-in module `name` */
	double events_per_unit;                    /* set before the section runs */
	bool module_counts;                        /* the module has cost_events */
	bool paced;                                /* the section before it, paced */
	bool ext4;                                 /* its workload needs the scratch ext4 */
};

struct bench {
	int rounds, batches, seconds;
	int shrink; /* -S: each batch 1/shrink of its length */
	const struct section *sec;
	struct pingpong pp;
	struct loop_device dev;
	char buf_space[2 * IO_SIZE];
	char *buf;
	char objdir[64], path[128]; /* path: dcache's, under objdir */
	const char *disk_dir;       /* -d: block reads a file there, on a real disk */
	int disk_fd;
	const char *block_dev;      /* -B: the block section's device instead of the loop */
	const char *attach_order;   /* -a: AttachOrder of the modules that choose */
	char methods[16][96];       /* per section, how its module attached (method NULL) */
	struct loop_ext4 ext4;
	int ext4_small, ext4_big;   /* fs's one-byte file, pagecache's 4 MiB one */
	unsigned int page;          /* pagecache's next page */
	int listener, zero;
	struct sockaddr_in listen_addr;
	struct module *mod;
	int stats_fd, cfg, round;
	uint64_t units;                 /* units of work since attach */
	double pace_ns;                 /* a paced section: ns of the deadline per unit */
	uint64_t deadline;              /* its next burst's start (CLOCK_MONOTONIC ns) */
	uint64_t bursts, late;          /* its bursts, and those that ended after their deadline */
	uint64_t t0_runs, t0_ns;
	double rt_per_unit[SBS_MAX_ROUNDS], runs_per_unit[SBS_MAX_ROUNDS];
	struct side_by_side sbs;
};

/* Warnings once each: a module that falls back (vfs here) says why at every start. */
static void once_log(enum ebpf_log_level level, const char *msg)
{
	static char *seen[32];
	static int nseen;

	if (level > EBPF_LOG_WARNING)
		return;
	for (int i = 0; i < nseen; i++)
		if (!strcmp(seen[i], msg))
			return;
	if (nseen < 32)
		seen[nseen++] = strdup(msg);
	fprintf(stderr, "ebpf: %s\n", msg);
}

/* ---- the workloads ------------------------------------------------------------------------- */

/* A batch of n units, shortened by -S: under qemu's TCG an event takes 4 to 6 times as long,
 * and a batch longer than the host's time slice is rarely run whole, so that its fastest
 * one still holds a preemption. */
static int batch_of(const struct bench *b, int n)
{
	return n / b->shrink > 0 ? n / b->shrink : 1;
}

static double pingpong(struct bench *b)
{
	b->units += (uint64_t)b->pp.trips;
	return pingpong_batch(&b->pp);
}

/* The loop device's kworkers: kernel threads (kthreadd's children) whose name carries the
 * device's ("kworker/u8:2-loop3", the workqueue it last worked for), with their CPU time in
 * ns from /proc/<pid>/schedstat; every other thread of the machine (other sessions building
 * beside the bench) is left out, where /proc/stat's busy time would count it, in ticks. */
#define MAX_KTHREADS 512
struct kthreads {
	int n, pid[MAX_KTHREADS];
	uint64_t run[MAX_KTHREADS];
	bool loop[MAX_KTHREADS];
};

static void kthreads_read(struct kthreads *k, const char *devname)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	k->n = 0;
	while (d && (e = readdir(d)) && k->n < MAX_KTHREADS) {
		char path[300], line[512], *paren;
		unsigned long long run;
		int ppid;
		FILE *f;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		paren = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
		fclose(f);
		if (!paren || sscanf(paren, ") %*c %d", &ppid) != 1 || ppid != 2)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/schedstat", e->d_name);
		f = fopen(path, "re");
		if (f && fscanf(f, "%llu", &run) == 1) {
			*paren = '\0';
			k->pid[k->n] = atoi(e->d_name);
			k->run[k->n] = run;
			k->loop[k->n] = strstr(line, devname) != NULL;
			k->n++;
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
}

/* CPU time the loop's kworkers spent from `before` to `after` (a thread new since: all of it). */
static uint64_t loop_workers_ns(const struct kthreads *before, const struct kthreads *after)
{
	uint64_t sum = 0;

	for (int i = 0; i < after->n; i++) {
		uint64_t run0 = 0;
		bool loop = after->loop[i];

		for (int j = 0; j < before->n; j++)
			if (before->pid[j] == after->pid[i]) {
				run0 = before->run[j];
				loop = loop || before->loop[j];
			}
		if (loop && after->run[i] >= run0)
			sum += after->run[i] - run0;
	}
	return sum;
}

/* O_DIRECT reads of the loop device, as CPU time per IO: the reading thread's own and its
 * kworkers', not wall time: the wall time of an IO here (10 to 27 us) swings by more than
 * its probes cost (about 1 us); its CPU time does not wait. */
static double direct_reads(struct bench *b)
{
	static struct kthreads k0, k1;
	const int ios = 50; /* not shortened by -S: CPU time leaves preemptions out */
	uint64_t t0, t1;

	kthreads_read(&k0, b->dev.name);
	t0 = thread_cpu_ns();
	for (int i = 0; i < ios; i++) {
		if (pread(b->disk_dir ? b->disk_fd : b->dev.fd, b->buf, IO_SIZE, (off_t)i * IO_SIZE) != IO_SIZE) {
			perror("pread");
			exit(1); /* the device goes with us (autoclear) */
		}
	}
	t1 = thread_cpu_ns();
	kthreads_read(&k1, b->dev.name);
	b->units += ios;
	return (double)(t1 - t0 + loop_workers_ns(&k0, &k1)) / ios;
}

/* -d DIR: a file of DEVICE_MIB in DIR, written and synced, read with O_DIRECT (the page
 * cache out of the way): the block module's IOs on a real disk (virtio here) instead of the
 * loop device, whose kworkers are not there (its completion runs in the disk's interrupt). */
static int disk_file(struct bench *b)
{
	char path[4096], block[1 << 16];
	int fd;

	snprintf(path, sizeof(path), "%s/cost_modules.XXXXXX", b->disk_dir);
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	memset(block, 0x5a, sizeof(block));
	for (int i = 0; i < DEVICE_MIB * 16; i++)
		if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
			break;
	fsync(fd);
	close(fd);
	b->disk_fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	unlink(path);
	return b->disk_fd < 0 ? -1 : 0;
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* Signals raised at the bench itself, each taken by an empty handler: one delivery each. */
static double signals_raised(struct bench *b)
{
	const int n = batch_of(b, 2000);
	uint64_t t0 = now_ns();

	for (int i = 0; i < n; i++)
		raise(SIGUSR1);
	b->units += n;
	return (double)(now_ns() - t0) / n;
}

/* TCP connections over loopback to the bench's own listener, accepted and closed with a
 * reset (SO_LINGER 0: no TIME_WAIT piles up): a handful of state changes each. */
static double connections(struct bench *b)
{
	const int n = batch_of(b, 20);
	struct linger reset = { .l_onoff = 1, .l_linger = 0 };
	uint64_t t0 = now_ns();

	for (int i = 0; i < n; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0), a;

		if (c < 0 || connect(c, (struct sockaddr *)&b->listen_addr, sizeof(b->listen_addr)) ||
		    (a = accept(b->listener, NULL, NULL)) < 0) {
			perror("loopback connection");
			exit(1);
		}
		setsockopt(c, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
		close(c);
		close(a);
	}
	b->units += n;
	return (double)(now_ns() - t0) / n;
}

static int listen_loopback(struct bench *b)
{
	socklen_t len = sizeof(b->listen_addr);

	b->listen_addr = (struct sockaddr_in){ .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	b->listener = socket(AF_INET, SOCK_STREAM, 0);
	if (b->listener < 0 || bind(b->listener, (struct sockaddr *)&b->listen_addr, sizeof(b->listen_addr)) ||
	    listen(b->listener, 64) || getsockname(b->listener, (struct sockaddr *)&b->listen_addr, &len))
		return -1;
	return 0;
}

/* One-byte read()s of /dev/zero: one vfs read each (here through the syscall fallback). */
static double zero_reads(struct bench *b)
{
	const int n = batch_of(b, 5000);
	uint64_t t0 = now_ns();
	char c;

	for (int i = 0; i < n; i++)
		if (read(b->zero, &c, 1) != 1) {
			perror("read /dev/zero");
			exit(1);
		}
	b->units += n;
	return (double)(now_ns() - t0) / n;
}

static double getppids(struct bench *b)
{
	int n = batch_of(b, GETPPID_BATCH);

	b->units += (uint64_t)n;
	return syscall_loop_ns(n);
}

/* n calls of one(b), timed: ns per call (the indirect call is in the no-probe batches too). */
static double per_call(struct bench *b, int n, void (*one)(struct bench *b))
{
	uint64_t t0 = now_ns();

	for (int i = 0; i < n; i++)
		one(b);
	b->units += (uint64_t)n;
	return (double)(now_ns() - t0) / n;
}

static void fail(const char *what)
{
	perror(what);
	exit(1);
}

/* getaddrinfo() of a numeric address: the C library's own work, no lookup; one hit of the
 * uprobe on its entry and one of the uretprobe on its return. */
static void one_getaddrinfo(struct bench *b)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_flags = AI_NUMERICHOST }, *res = NULL;

	(void)b;
	if (!getaddrinfo("127.0.0.1", NULL, &hints, &res))
		freeaddrinfo(res);
}

static double getaddrinfos(struct bench *b)
{
	return per_call(b, batch_of(b, 2000), one_getaddrinfo);
}

/* A one-byte pread() of a cached file on the scratch ext4: one ext4_file_read_iter. */
static void ext4_read(struct bench *b)
{
	char c;

	if (pread(b->ext4_small, &c, 1, 0) != 1)
		fail("pread on the scratch ext4");
}

/* stat() of a cached path of five components (/tmp/cost_modules.X/d/e/f): a dcache lookup
 * per component in the RCU walk, no miss. */
static void stat_path(struct bench *b)
{
	struct stat st;

	if (stat(b->path, &st))
		fail(b->path);
}

/* A 4 KiB pread() of the cached 4 MiB file, a page further each time: filemap_read marks a
 * page accessed only when a read moves to another one, so each read is one access. */
static void page_read(struct bench *b)
{
	b->page = (b->page + 1) % PAGECACHE_PAGES;
	if (pread(b->ext4_big, b->buf, IO_SIZE, (off_t)b->page * IO_SIZE) != IO_SIZE)
		fail("pread of the page cache");
}

static double ext4_reads(struct bench *b)
{
	return per_call(b, 2000, ext4_read);
}

static double stats(struct bench *b)
{
	return per_call(b, 2000, stat_path);
}

static double page_reads(struct bench *b)
{
	return per_call(b, 2000, page_read);
}

static void *empty_thread(void *arg)
{
	return arg;
}

/* A thread created and joined: sched_process_fork and sched_process_exit once each. */
static double threads(struct bench *b)
{
	const int n = batch_of(b, 50);
	uint64_t t0 = now_ns();

	for (int i = 0; i < n; i++) {
		pthread_t t;
		int err = pthread_create(&t, NULL, empty_thread, NULL);

		if (err || (err = pthread_join(t, NULL))) {
			fprintf(stderr, "cost_modules: a thread: %s\n", strerror(err));
			exit(1);
		}
	}
	b->units += n;
	return (double)(now_ns() - t0) / n;
}

/* A paced batch: the section's batch as one burst, then asleep to the deadline that holds
 * the rate at pace_ns per unit; the thread's CPU time per unit over both (the sleep's syscall
 * pays what the probes add to every syscall too). A burst that ends after its deadline (the
 * workload could not keep the pace) is counted as late; one that starts behind it (a pause:
 * the bench attached a module, read its values) restarts the clock, no catching up. */
static double paced(struct bench *b)
{
	uint64_t units0 = b->units, cpu0 = thread_cpu_ns(), now = now_ns();
	struct timespec ts;

	if (b->deadline < now)
		b->deadline = now;
	b->sec->batch(b);
	b->deadline += (uint64_t)(b->pace_ns * (double)(b->units - units0));
	b->bursts++;
	b->late += now_ns() > b->deadline;
	ts = (struct timespec){ .tv_sec = (time_t)(b->deadline / 1000000000ull), .tv_nsec = (long)(b->deadline % 1000000000ull) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	return (double)(thread_cpu_ns() - cpu0) / (double)(b->units - units0);
}

static double run_batch(struct bench *b)
{
	return b->sec->paced ? paced(b) : b->sec->batch(b);
}

/* ---- the modules --------------------------------------------------------------------------- */

/* A user's program from a <Program> block, as the plugin makes it (the presentation's keys
 * taken first). */
static struct module *program(const char *block_text)
{
	struct conf_node *plugin = conf_text(block_text), core = { 0 };
	struct presentation_set shown;
	struct module *m = NULL;
	char err[ERR_MAX] = "";

	if (plugin && plugin->nchildren &&
	    !presentation_take_program(&plugin->children[0], &core, &shown, err, sizeof(err))) {
		m = program_module_new(&core, err, sizeof(err));
		presentation_program_free(&core);
		presentation_set_free(&shown);
	}
	if (!m)
		fprintf(stderr, "cost_modules: the program did not load: %s\n", err);
	conf_text_free(plugin);
	return m;
}

static struct module *program_blocks(struct bench *b)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "<Plugin ebpf>\n<Program \"kaddrs\">\nObject \"%s/exporter_kaddrs.bpf.o\"\n"
		 "<Counter \"kaddr_reads_total\">\nType \"derive\"\n</Counter>\n</Program>\n</Plugin>\n",
		 b->objdir);
	return program(text);
}

static struct module *program_exporter(struct bench *b)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "<Plugin ebpf>\n<Program \"kaddrs\">\nExporterConfig \"%s/exporter_kaddrs.yaml\"\n"
		 "Object \"%s/exporter_kaddrs.bpf.o\"\n</Program>\n</Plugin>\n", b->objdir, b->objdir);
	return program(text);
}

/* contrib/programs/gai_latency (doc/programs.md's uprobe example) with the histogram block of
 * its shipped .conf, less Multiplier and Percentile (the read's work, not the probes'). */
static struct module *program_uprobes(struct bench *b)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "<Plugin ebpf>\n<Program \"gai_latency\">\nObject \"%s/gai_latency.bpf.o\"\n"
		 "<Histogram \"gai_latency\">\nLayout \"value\"\nSlotsField \"slots\"\nSumField \"sum\"\n"
		 "Buckets \"native\"\nType \"latency\"\nTypeInstance \"getaddrinfo\"\n</Histogram>\n"
		 "</Program>\n</Plugin>\n", b->objdir);
	return program(text);
}

static const char *const sched_tps[] = { "sched_wakeup", "sched_wakeup_new", "sched_switch", NULL };
static const char *const block_tps[] = { "block_rq_insert", "block_rq_issue", "block_rq_complete", NULL };
static const char *const syscall_tps[] = { "sys_enter", "sys_exit", NULL };
static const char *const signal_tps[] = { "signal_deliver", NULL };
static const char *const tcp_tps[] = { "inet_sock_set_state", "tcp_send_reset", "tcp_receive_reset", NULL };
static const char *const process_tps[] = { "sched_process_fork", "sched_process_exit", NULL };
/* Kernel functions: no tracepoint of theirs for foreign probes to sit on. */
static const char *const no_tps[] = { "", NULL };

static struct section sections[] = {
	{ "runqueue", "wait", "tp_btf", sched_tps, pingpong, NULL, 2, true },
	{ "block", "IO", "tp_btf", block_tps, direct_reads, NULL, 1, true },
	{ "<Program>", "getppid()", "tracepoint", syscall_tps, getppids, program_blocks, 1, false },
	{ "<Program>", "getppid()", "tracepoint", syscall_tps, getppids, program_blocks, 1, false, true },
	{ "ExporterConfig", "getppid()", "tracepoint", syscall_tps, getppids, program_exporter, 1, false },
	{ "ExporterConfig", "getppid()", "tracepoint", syscall_tps, getppids, program_exporter, 1, false, true },
	{ "tcp", "connection", "tp_btf", tcp_tps, connections, NULL, 1, false },
	{ "tcp", "connection", "tp_btf", tcp_tps, connections, NULL, 1, false, true },
	{ "signals", "signal", "tp_btf", signal_tps, signals_raised, NULL, 1, true },
	{ "vfs", "read()", "tp_btf", syscall_tps, zero_reads, NULL, 1, true },
	{ "process", "thread", "tp_btf", process_tps, threads, NULL, 1, false },
	{ "fs", "read()", NULL, no_tps, ext4_reads, NULL, 1, false, .ext4 = true },
	{ "dcache", "stat()", NULL, no_tps, stats, NULL, 1, false },
	{ "uprobes", "getaddrinfo()", "uprobe", no_tps, getaddrinfos, program_uprobes, 1, false },
	{ "uprobes", "getaddrinfo()", "uprobe", no_tps, getaddrinfos, program_uprobes, 1, false, true },
	{ "pagecache", "4 KiB read", NULL, no_tps, page_reads, NULL, 1, false, .ext4 = true },
};
#define NSECTIONS (int)(sizeof(sections) / sizeof(sections[0]))
_Static_assert(NSECTIONS <= 16, "struct bench's methods has a row per section");

/* ---- side by side ---------------------------------------------------------------------------- */

struct sums {
	uint64_t runs, ns;
};

static void add_prog(void *ctx, const struct prog_stats *s)
{
	struct sums *t = ctx;

	t->runs += s->runs;
	t->ns += s->run_time_ns;
}

static struct sums sums_of(const struct module *m)
{
	struct sums s = { 0 };

	if (m && m->obj)
		bpf_object_prog_stats(m->obj, add_prog, &s);
	return s;
}

static struct module *make(struct bench *b)
{
	struct module *m = b->sec->make ? b->sec->make(b) : module_new(module_find(b->sec->name), NULL);

	if (m && !b->sec->method && b->attach_order &&
	    bench_set_option(m, "AttachOrder", (struct opt_value){ .type = OPT_STRING, .string = b->attach_order })) {
		module_free(m);
		return NULL;
	}
	return m;
}

static double batch(void *ctx)
{
	return run_batch(ctx);
}

static int attach(void *ctx, int c, int round)
{
	struct bench *b = ctx;
	struct sums s;

	b->cfg = c;
	b->round = round;
	if (c == ON) {
		b->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (b->stats_fd < 0) {
			fprintf(stderr, "bpf_enable_stats: %s (needs CAP_SYS_ADMIN)\n", strerror(errno));
			return SBS_FAILED;
		}
	}
	b->mod = make(b);
	if (!b->mod || bench_start_in_layout(b->mod, LAYOUT_HERE)) {
		fprintf(stderr, "%s did not start: %s\n", b->sec->name, b->mod ? b->mod->last_error : "");
		return SBS_FAILED;
	}
	if (!b->sec->method)
		module_methods(b->mod, b->methods[b->sec - sections], sizeof(b->methods[0]));
	s = sums_of(b->mod);
	b->t0_runs = s.runs;
	b->t0_ns = s.ns;
	b->units = 0;
	return SBS_ATTACHED;
}

static void detach(void *ctx)
{
	struct bench *b = ctx;

	if (b->mod && b->stats_fd >= 0 && b->units) {
		struct sums s = sums_of(b->mod);

		b->rt_per_unit[b->round] = (double)(s.ns - b->t0_ns) / (double)b->units;
		b->runs_per_unit[b->round] = (double)(s.runs - b->t0_runs) / (double)b->units;
	}
	module_free(b->mod);
	b->mod = NULL;
	if (b->stats_fd >= 0)
		close(b->stats_fd);
	b->stats_fd = -1;
}

/* ---- 2. what the module reports ---------------------------------------------------------- */

struct reported {
	double self_ns, pct, module_rate, workload_rate; /* medians over the reads */
	double window_runs;                             /* the last window's program runs per second */
	double runs_per_hit;                            /* its runs per hit of an attach point */
};

static int reported(struct bench *b, struct reported *out)
{
	struct module *m = make(b);
	struct recording r = { 0 };
	struct cost_measure cm;
	double self[64], pct[64], mrate[64], wrate[64];
	int n = 0;

	if (bench_start_cost_windows(m, b->sec->name, 3))
		return -1;
	recording_read(&r, m);
	for (int i = 0; i < b->seconds && n < 64; i++) {
		uint64_t t0 = now_ns(), events0 = m->sinks.events;
		double dt, p;

		b->units = 0;
		while (now_ns() - t0 < 1000000000ull)
			run_batch(b);
		recording_read(&r, m);
		dt = (double)(now_ns() - t0) / 1e9;
		if (!recorded_gauge(&r, "cpu_cost", "", &p))
			continue;
		wrate[n] = (double)b->units * b->sec->events_per_unit / dt;
		mrate[n] = b->sec->module_counts ? (double)(m->sinks.events - events0) / dt : wrate[n];
		pct[n] = p;
		self[n] = mrate[n] > 0 ? p * 1e7 / mrate[n] : 0;
		n++;
	}
	cost_window_stop();
	recording_free(&r);
	if (!n || !cost_window_measure(m, &cm) || cm.seconds <= 0) {
		printf("   %s: no cpu_cost was sent\n", b->sec->name);
		module_free(m);
		return -1;
	}
	module_free(m);
	*out = (struct reported){ median(self, n), median(pct, n), median(mrate, n), median(wrate, n),
				  (double)cm.runs / cm.seconds, cm.hits ? (double)cm.runs / (double)cm.hits : 1 };
	return 0;
}

/* ---- a section ----------------------------------------------------------------------------- */

struct row {
	double bench_ns, self_ns, tax_ns, rt_ns, runs, period;
	double loaded_ns; /* the tight loop's ns per unit with the module and its statistics on */
	bool done;
};

static const char *workload(const struct section *sec)
{
	return sec->paced ? "paced" : "loop";
}

/* prev: the section before (a paced section's tight loop, which sets its pace). */
static int run_section(struct bench *b, struct section *sec, struct row *row, const struct row *prev)
{
	struct reported rep;
	double epu, off, on;

	if (sec->paced && !(prev && prev->done && prev->loaded_ns > 0))
		return -1;
	b->sec = sec;
	b->pace_ns = sec->paced ? prev->loaded_ns / PACED_SHARE : 0;
	b->deadline = b->bursts = b->late = 0;
	b->sbs = (struct side_by_side){ .ncfg = NCFG, .rounds = b->rounds, .batches = b->batches,
					.tracepoints = sec->tracepoints, .ctx = b, .batch = batch,
					.attach = attach, .detach = detach };
	printf("\n== %s (%s), per %s, %s\n", sec->name, sec->method ? sec->method : "the module's choice", sec->event,
	       sec->paced ? "paced" : "a tight loop");
	if (sec->paced)
		printf("   paced at %.0f %ss/s (%.0f %% of the tight loop's rate with the module and its statistics on),\n"
		       "   timed as the thread's CPU time\n", 1e9 / b->pace_ns * sec->events_per_unit, sec->event,
		       100 * PACED_SHARE);
	if (sbs_run(&b->sbs))
		return -1;
	if (!sec->method)
		printf("   attached: %s\n", b->methods[sec - sections]);
	epu = sec->events_per_unit;
	off = median(b->sbs.added[OFF], b->rounds) / epu;
	on = median(b->sbs.added[ON], b->rounds) / epu;
	*row = (struct row){ .bench_ns = off, .tax_ns = on - off,
			     .rt_ns = median(b->rt_per_unit, b->rounds) / epu,
			     .runs = median(b->runs_per_unit, b->rounds) / epu,
			     .loaded_ns = median(b->sbs.ns[ON], b->rounds) };
	printf("   1. no probe %.1f ns per %s; added: statistics off %+.1f ns, on %+.1f ns (tax %.1f ns;\n"
	       "      duty-cycled 1/%d: %.2f ns, %.1f %% of the module's cost); run_time_ns %.1f ns over\n"
	       "      %.2f program runs per %s (overhead beyond run_time: %.1f ns per run)\n",
	       median(b->sbs.ns[NO_PROBE], b->rounds) / epu, sec->event, off, on, on - off, COST_PERIOD_DEFAULT,
	       (on - off) / COST_PERIOD_DEFAULT, off > 0 ? 100 * (on - off) / COST_PERIOD_DEFAULT / off : 0, row->rt_ns,
	       row->runs, sec->event, row->runs > 0 ? (off - row->rt_ns) / row->runs : 0);
	if (reported(b, &rep))
		return -1;
	row->self_ns = rep.self_ns;
	/* the default period this module's runs make (cost_window.c: the module alone) */
	row->period = cost_period_default_for(row->runs > 0 ? rep.self_ns / row->runs : 0);
	row->done = true;
	printf("   2. cpu_cost %.3f %% (median of %d s), %.0f %ss/s counted by the module (%.0f by the\n"
	       "      workload): %.1f ns per %s against the bench's %.1f: %.2fx\n",
	       rep.pct, b->seconds, rep.module_rate, sec->event, rep.workload_rate, rep.self_ns, sec->event, off,
	       off > 0 ? rep.self_ns / off : 0);
	printf("      The last window: %.0f program runs/s, against %.0f outside it (%.2f runs per %s at the\n"
	       "      workload's rate): %.2fx%s\n", rep.window_runs, row->runs * rep.workload_rate, row->runs, sec->event,
	       row->runs > 0 ? rep.window_runs / (row->runs * rep.workload_rate) : 0,
	       sec->module_counts ? "" : ", the share of the rate its cost per second is sent at until the next window");
	if (!sec->paced && !sec->module_counts) /* a tight loop of the event: the tax slows it in the window */
		printf("      The statistics' tax predicts a tight loop at (no probe + off) / (no probe + on) = %.2fx in the\n"
		       "      window\n", (median(b->sbs.ns[NO_PROBE], b->rounds) + off * epu) /
		       (median(b->sbs.ns[NO_PROBE], b->rounds) + on * epu));
	printf("      Its programs ran %.2f times a hit of an attach point: the overhead beyond run_time %.1f ns per\n"
	       "      hit (the table: cost_window.c)\n", rep.runs_per_hit,
	       row->runs > 0 ? (off - row->rt_ns) / (row->runs / rep.runs_per_hit) : 0);
	printf("      Its default period: %.0f intervals (%.1f ns per run): the duty cycle's tax %.2f ns per %s,\n"
	       "      %.1f %% of the module's cost (at 1/%d: %.1f %%)\n", row->period,
	       row->runs > 0 ? rep.self_ns / row->runs : 0, row->tax_ns / row->period, sec->event,
	       off > 0 ? 100 * row->tax_ns / row->period / off : 0, COST_PERIOD_DEFAULT,
	       off > 0 ? 100 * row->tax_ns / COST_PERIOD_DEFAULT / off : 0);
	if (sec->paced)
		printf("      Paced: %llu of %llu bursts ended after their deadline (the pace not kept)\n",
		       (unsigned long long)b->late, (unsigned long long)b->bursts);
	sbs_warn_foreign(&b->sbs, sec->tracepoints[0]);
	return 0;
}

/* The table's method: the section's, or how the first of its module's points attached
 * ("fentry" of "fentry:ext4_file_read_iter, fentry:ext4_file_write_iter"). */
static const char *method_of(struct bench *b, int i)
{
	if (sections[i].method)
		return sections[i].method;
	b->methods[i][strcspn(b->methods[i], ":,")] = '\0';
	return b->methods[i];
}

/* The program objects, copied where the loader takes them: a directory only root writes. */
static int copy_objects(struct bench *b)
{
	const char *top = getenv("top_builddir"), *src = getenv("top_srcdir");
	char cmd[1024];

	snprintf(b->objdir, sizeof(b->objdir), "/tmp/cost_modules.XXXXXX");
	if (!mkdtemp(b->objdir))
		return -1;
	snprintf(b->path, sizeof(b->path), "%s/d/e/f", b->objdir);
	snprintf(cmd, sizeof(cmd),
		 "cp '%s/tests/exporter/exporter_kaddrs.bpf.o' '%s/contrib/programs/gai_latency.bpf.o' "
		 "'%s/tests/exporter/exporter_kaddrs.yaml' '%s' && "
		 "chmod 644 '%s'/* && mkdir -p '%s/d/e' && : > '%s'", top ? top : ".", top ? top : ".",
		 src ? src : (top ? top : "."), b->objdir, b->objdir, b->objdir, b->path);
	return system(cmd) ? -1 : 0;
}

static void remove_objects(struct bench *b)
{
	char path[128];

	if (!b->objdir[0])
		return;
	snprintf(path, sizeof(path), "%s/exporter_kaddrs.bpf.o", b->objdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/exporter_kaddrs.yaml", b->objdir);
	unlink(path);
	unlink(b->path);
	snprintf(path, sizeof(path), "%s/d/e", b->objdir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/d", b->objdir);
	rmdir(path);
	rmdir(b->objdir);
}

/* fs's and pagecache's files on a scratch ext4 (a loop device, mkfs.ext4 on PATH), written
 * so that their pages are in the page cache, and open for reading. 0, or -1 with a message. */
static int ext4_files(struct bench *b)
{
	static const char *const names[] = { "one", "pages" };
	static char page[IO_SIZE];
	int *fds[] = { &b->ext4_small, &b->ext4_big };

	if (loop_ext4_setup(&b->ext4, 64)) {
		fprintf(stderr, "cost_modules: no scratch ext4 for fs and pagecache: %s\n", b->ext4.why);
		return -1;
	}
	memset(page, 'x', sizeof(page));
	for (int i = 0; i < 2; i++) {
		char path[128];
		int fd, pages = i ? PAGECACHE_PAGES : 0;

		snprintf(path, sizeof(path), "%s/%s", b->ext4.mnt, names[i]);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || write(fd, page, 1) != 1) {
			perror(path);
			return -1;
		}
		for (int p = 0; p < pages; p++)
			if (pwrite(fd, page, IO_SIZE, (off_t)p * IO_SIZE) != IO_SIZE) {
				perror(path);
				return -1;
			}
		fsync(fd); /* written back now, not during the sections */
		close(fd);
		*fds[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (*fds[i] < 0) {
			perror(path);
			return -1;
		}
	}
	return 0;
}

static void ext4_remove(struct bench *b)
{
	if (b->ext4_small > 0)
		close(b->ext4_small);
	if (b->ext4_big > 0)
		close(b->ext4_big);
	if (b->ext4.mounted) {
		char path[128];

		snprintf(path, sizeof(path), "%s/one", b->ext4.mnt);
		unlink(path);
		snprintf(path, sizeof(path), "%s/pages", b->ext4.mnt);
		unlink(path);
	}
	loop_ext4_teardown(&b->ext4);
}

/* Whether `name` is one of the comma-separated list `only` (NULL: every section). */
static bool chosen(const char *only, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = only; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
	return !only;
}

/* The block section's device: -B's, opened for direct reads, or a loop device over tmpfs. */
static int block_device(struct bench *b, char *err, size_t errlen)
{
	const char *slash;

	if (!b->block_dev)
		return loop_device_setup(&b->dev, DEVICE_MIB, NULL, err, errlen);
	b->dev.fd = open(b->block_dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (b->dev.fd < 0) {
		snprintf(err, errlen, "%s: %s (-B takes a block device, such as null_blk's /dev/nullb0)", b->block_dev,
			 strerror(errno));
		return -1;
	}
	slash = strrchr(b->block_dev, '/');
	snprintf(b->dev.name, sizeof(b->dev.name), "%s", slash ? slash + 1 : b->block_dev);
	return 0;
}

int main(int argc, char **argv)
{
	static struct bench b;
	struct row rows[NSECTIONS] = { 0 };
	char err[ERR_MAX];
	struct utsname u;
	const char *only = NULL;
	int c, other, rc = 1;

	b = (struct bench){ .rounds = 5, .batches = 30, .seconds = 8, .shrink = 1, .stats_fd = -1, .pp.trips = 1000,
			    .dev.fd = -1, .ext4.dev_fd = -1 };
	while ((c = getopt(argc, argv, "r:b:s:m:d:B:a:S:")) != -1) {
		switch (c) {
		case 'r': b.rounds = atoi(optarg); break;
		case 'b': b.batches = atoi(optarg); break;
		case 's': b.seconds = atoi(optarg); break;
		case 'm': only = optarg; break;
		case 'd': b.disk_dir = optarg; break;
		case 'B': b.block_dev = optarg; break;
		case 'a': b.attach_order = optarg; break;
		case 'S': b.shrink = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-r rounds] [-b batches] [-s seconds of reads] [-m module[,module...]]\n"
					"       [-d dir on a disk] [-B block device for the block section]\n"
					"       [-a AttachOrder of fs, dcache, pagecache] [-S divisor of each batch's length]\n",
				argv[0]);
			return 2;
		}
	}
	if (b.rounds < 1 || b.rounds > SBS_MAX_ROUNDS || b.batches < 1 || b.batches > SBS_MAX_BATCHES ||
	    b.seconds < 3 || b.seconds > 64 || b.shrink < 1 || b.shrink > 100) {
		fprintf(stderr, "cost_modules: -r 1..%d, -b 1..%d, -s 3..64, -S 1..100\n", SBS_MAX_ROUNDS, SBS_MAX_BATCHES);
		return 2;
	}
	if (bench_stats_setup("cost_modules"))
		return 1;
	ebpf_log_set_handler(once_log);
	b.buf = b.buf_space + (IO_SIZE - (uintptr_t)b.buf_space % IO_SIZE) % IO_SIZE;
	choose_cpus(&b.pp.cpu, &other);
	pin_to_cpu(b.pp.cpu);
	b.pp.trips = batch_of(&b, b.pp.trips);
	if (pingpong_start(&b.pp)) {
		perror("cost_modules: pipes and the partner thread");
		return 1;
	}
	if (chosen(only, "block") && block_device(&b, err, sizeof(err))) {
		fprintf(stderr, "cost_modules: no device for the block section: %s\n", err);
		goto out;
	}
	if (b.disk_dir && disk_file(&b)) {
		fprintf(stderr, "cost_modules: cannot write and read back a file in %s: %s\n", b.disk_dir, strerror(errno));
		goto out;
	}
	for (int i = 0; i < NSECTIONS; i++)
		if (sections[i].ext4 && chosen(only, sections[i].name) && !b.ext4.dev[0] && ext4_files(&b))
			goto out;
	signal(SIGUSR1, on_usr1);
	b.zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (b.zero < 0) {
		perror("cost_modules: /dev/zero");
		goto out;
	}
	if (listen_loopback(&b)) {
		perror("cost_modules: a loopback listener");
		goto out;
	}
	if (copy_objects(&b)) {
		fprintf(stderr, "cost_modules: cannot copy tests/exporter/exporter_kaddrs.bpf.o and .yaml (run from the build "
				"tree after make check, or set top_builddir and top_srcdir)\n");
		goto out;
	}
	uname(&u);
	printf("collectd-ebpf cost_modules: kernel %s %s, %ld CPUs online, pinned to CPU %d; %d rounds x %d batches\n",
	       u.release, u.machine, sysconf(_SC_NPROCESSORS_ONLN), b.pp.cpu, b.rounds, b.batches);
	sections[0].events_per_unit = pingpong_switches_per_trip(&b.pp);
	printf("ping-pong: %.2f context switches per round trip (2.00: every read blocked), taken as the waits\n",
	       sections[0].events_per_unit);
	for (int i = 0; i < NSECTIONS; i++)
		if (chosen(only, sections[i].name) && run_section(&b, &sections[i], &rows[i], i ? &rows[i - 1] : NULL))
			printf("   %s (%s): left out\n", sections[i].name, workload(&sections[i]));
	printf("\n%-16s %-11s %-8s %12s %12s %7s %7s %18s %8s\n", "module", "method", "workload", "bench ns/ev",
	       "self ns/ev", "ratio", "period", "duty tax", "at 1/60");
	for (int i = 0; i < NSECTIONS; i++)
		if (rows[i].done)
			printf("%-16s %-11s %-8s %12.1f %12.1f %6.2fx %7.0f %7.2f ns %5.1f %% %6.1f %%\n", sections[i].name,
			       method_of(&b, i), workload(&sections[i]), rows[i].bench_ns, rows[i].self_ns,
			       rows[i].bench_ns > 0 ? rows[i].self_ns / rows[i].bench_ns : 0, rows[i].period,
			       rows[i].tax_ns / rows[i].period,
			       rows[i].bench_ns > 0 ? 100 * rows[i].tax_ns / rows[i].period / rows[i].bench_ns : 0,
			       rows[i].bench_ns > 0 ? 100 * rows[i].tax_ns / COST_PERIOD_DEFAULT / rows[i].bench_ns : 0);
	rc = 0;
out:
	remove_objects(&b);
	if (b.listener > 0)
		close(b.listener);
	if (b.zero > 0)
		close(b.zero);
	if (b.disk_fd > 0)
		close(b.disk_fd);
	if (b.block_dev && b.dev.fd >= 0)
		close(b.dev.fd);
	else if (!b.block_dev)
		loop_device_remove(&b.dev);
	ext4_remove(&b);
	pingpong_stop(&b.pp);
	return rc;
}
