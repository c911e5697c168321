/* collectd-ebpf-import: an ebpf_exporter config (`<name>.yaml`) printed as the `<Program>`
 * block that configures the same views, for users who want to read or edit it. It reads the
 * YAML with the parser ExporterConfig uses (libcore/programs/exporter_config.c) and prints
 * what that parser made (program_block_text.c), so the printed block loaded in place of
 * `ExporterConfig` gives the same values; a config ExporterConfig refuses is refused here
 * with the same message. */
#include "base/log.h"
#include "libcore/programs/exporter_config.h"
#include "libcore/programs/program_block_text.h"
#include "libcore/programs/program_config.h"
#include "base/err_max.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "collectd-ebpf-import"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [OPTION]... PATH.yaml\n"
		"Prints the <Program> block equivalent to `ExporterConfig \"PATH.yaml\"` (an ebpf_exporter\n"
		"config): its counters and histograms as <Counter> and <Histogram> blocks with their\n"
		"labels, decoders, names and buckets, exactly as ExporterConfig configures them.\n"
		"\n"
		"  -o, --object PATH  the BPF object the block loads (default: PATH.bpf.o beside the\n"
		"                     YAML, as ExporterConfig finds it)\n"
		"  -n, --name NAME    the program's name, collectd's plugin instance (default: the\n"
		"                     YAML file's name without .yaml)\n"
		"  -h, --help         this text\n"
		"\n"
		"Exit status: 0 with the block on standard output; 1 when the config is refused (the\n"
		"message names the file, the line and the field, as collectd -T would); 2 for a bad\n"
		"command line.\n");
}

/* A message on standard error as collectd's log has the plugin's (base/text_rule.h's rule,
 * TEXT_SHOW): it quotes the config's keys and the command line, which may carry a
 * terminal's controls. */
static void vsay(const char *fmt, va_list ap)
{
	char shown[2048];

	log_vformat(shown, sizeof(shown), TEXT_SHOW, fmt, ap);
	fprintf(stderr, PROG ": %s\n", shown);
}

__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

/* Exits 2 with what is wrong and how to fix it. */
__attribute__((format(printf, 1, 2), noreturn)) static void bad_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '" PROG " --help'.\n");
	exit(2);
}

/* path made absolute against the working directory: Object and ExporterConfig take absolute
 * paths only. 0, or -1 when it does not fit. */
static int absolute(const char *path, char *out, size_t outlen)
{
	char cwd[PATH_MAX];

	if (path[0] == '/')
		return snprintf(out, outlen, "%s", path) < (int)outlen ? 0 : -1;
	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	return snprintf(out, outlen, "%s/%s", cwd, path) < (int)outlen ? 0 : -1;
}

/* "/etc/x/biolatency.yaml" -> "biolatency". */
static int default_name(const char *yaml, char *out, size_t outlen)
{
	const char *base = strrchr(yaml, '/') ? strrchr(yaml, '/') + 1 : yaml;
	size_t len = strlen(base) - 5; /* ".yaml", checked by the caller */

	if (len == 0 || len >= outlen)
		return -1;
	snprintf(out, outlen, "%.*s", (int)len, base);
	return 0;
}

/* The value of option `arg` (argv[*i]): "--object=PATH", or the next argument. */
static const char *option_value(int argc, char **argv, int *i, const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (eq && !strncmp(arg, "--", 2))
		return eq + 1;
	if (*i + 1 >= argc)
		bad_usage("%s needs a value", arg);
	return argv[++*i];
}

/* Whether arg is the short or long option (long ones also as "--long=VALUE"). */
static bool is_option(const char *arg, const char *short_name, const char *long_name)
{
	size_t len = strlen(long_name);

	return !strcmp(arg, short_name) || (!strncmp(arg, long_name, len) && (arg[len] == '\0' || arg[len] == '='));
}

/* What the command line names: the config to print, and the optional --object and --name. */
struct command_line {
	const char *yaml, *object, *name;
};

/* Fills cl from argv; exits 0 after --help, 2 for a command line it cannot take. */
static void read_command_line(int argc, char **argv, struct command_line *cl)
{
	size_t len;

	*cl = (struct command_line){ 0 };
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (is_option(arg, "-h", "--help")) {
			usage(stdout);
			exit(0);
		} else if (is_option(arg, "-o", "--object")) {
			cl->object = option_value(argc, argv, &i, arg);
			if (!cl->object[0])
				bad_usage("--object needs a path: --object %s", "/etc/collectd/ebpf.d/biolatency.bpf.o");
		} else if (is_option(arg, "-n", "--name")) {
			cl->name = option_value(argc, argv, &i, arg);
			if (!cl->name[0] || strchr(cl->name, '/') ||
			    strlen(cl->name) >= sizeof(((struct program_config *)0)->name))
				bad_usage("--name takes a program name without '/', at most 63 characters, not \"%s\"",
					  cl->name);
		} else if (arg[0] == '-' && arg[1]) {
			bad_usage("unknown option %s", arg);
		} else if (cl->yaml) {
			bad_usage("%s", "give one ebpf_exporter config, not several");
		} else {
			cl->yaml = arg;
		}
	}
	if (!cl->yaml)
		bad_usage("%s", "give the ebpf_exporter config to print: " PROG " biolatency.yaml");
	len = strlen(cl->yaml);
	if (len <= 5 || strcmp(cl->yaml + len - 5, ".yaml"))
		bad_usage("\"%s\" is not an ebpf_exporter config: its name ends in .yaml", cl->yaml);
}

/* The program's name and paths as ExporterConfig would set them for this config; exits 2
 * when a name cannot be made or a path does not fit. */
static void name_and_paths(const struct command_line *cl, struct program_config *c)
{
	if (cl->name)
		snprintf(c->name, sizeof(c->name), "%s", cl->name);
	else if (default_name(cl->yaml, c->name, sizeof(c->name)))
		bad_usage("cannot make a program name from \"%s\": give one with --name", cl->yaml);
	if (absolute(cl->yaml, c->exporter_config, sizeof(c->exporter_config)) ||
	    (cl->object ? absolute(cl->object, c->object, sizeof(c->object))
			: exporter_object_path(c->exporter_config, c->object, sizeof(c->object))))
		bad_usage("the path of \"%s\" is too long", cl->object ? cl->object : cl->yaml);
}

int main(int argc, char **argv)
{
	/* large: not on the stack. getopt_long's `struct option` is the name of base/options.h's
	 * configuration option, which program_config.h includes: the command line is read by hand. */
	static struct program_config c;
	struct command_line cl;
	char err[ERR_MAX];
	int r;

	read_command_line(argc, argv, &cl);
	name_and_paths(&cl, &c);
	/* ExporterConfig reads the file by the path the block gives: messages name it so. */
	r = exporter_config_read(c.exporter_config, &c, err, sizeof(err));
	if (r) {
		say("%s", err);
		program_config_free(&c);
		return 1;
	}
	printf("# " PROG " %s: loaded in place of ExporterConfig, this block gives the same values.\n",
	       c.exporter_config);
	r = program_block_write(stdout, &c);
	program_config_free(&c);
	if (r) {
		fprintf(stderr, PROG ": cannot write the block to standard output\n");
		return 1;
	}
	return 0;
}
