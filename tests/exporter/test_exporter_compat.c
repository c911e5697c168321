/* Keeps doc/programs.md's table of ebpf_exporter's examples true: for each row, a YAML of
 * this project's own with what the row says the example needs (labels `name:size=a>b`, the
 * bucket type, kaddrs, cgroup_id_map, tracing, perf_event_array) goes through the
 * ExporterConfig parser, which must accept it exactly when the row does not say "refused"
 * (its status: "parses", "loads" or "counts exactly", what was measured of the example
 * itself; tests/exporter/exporter_examples.sh checks those against ebpf_exporter's files). The
 * table must list all 43 examples. Tokens ending in "-program" are about the object, not
 * the YAML, and are left out here. */
#include "libcore/programs/exporter_config.h"
#include "tests/support/testing.h"
#include "base/err_max.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXAMPLES 43

static size_t used;
static char yaml[8192];

static void put(const char *fmt, const char *a, const char *b)
{
	used += (size_t)snprintf(yaml + used, sizeof(yaml) - used, fmt, a, b);
}

/* One label, "name:size=dec>dec", as YAML lines. */
static void put_label(char *token, int index)
{
	char *eq = strchr(token, '='), *colon = strchr(token, ':'), idx[16];

	if (!eq || !colon || colon > eq) {
		fprintf(stderr, "bad needs token \"%s\"\n", token);
		CHECK(0);
		return;
	}
	*eq = *colon = '\0';
	snprintf(idx, sizeof(idx), "%d", index);
	put("        - name: %s%s\n", token, idx);
	put("          size: %s%s\n", colon + 1, "");
	put("          decoders:\n%s%s", "", "");
	for (char *save, *d = strtok_r(eq + 1, ">", &save); d; d = strtok_r(NULL, ">", &save)) {
		put("            - name: %s%s\n", d, "");
		if (!strcmp(d, "static_map"))
			put("              static_map: {1: one}\n%s%s", "", "");
		if (!strcmp(d, "regexp"))
			put("              regexps: [\"^(.*)$\"]\n%s%s", "", "");
	}
}

/* The row's YAML from its needs column; whether it names ksym or kstack (kallsyms: root only). */
static void build(char *needs, bool *ksym)
{
	char *tokens[32], *save;
	int n = 0, labels = 0;
	const char *bucket = NULL;
	bool perf = false;

	used = 0;
	*ksym = strstr(needs, "=ksym") || strstr(needs, "=kstack");
	for (char *t = strtok_r(needs, " `", &save); t && n < 32; t = strtok_r(NULL, " `", &save))
		tokens[n++] = t;
	for (int i = 0; i < n; i++) {
		if (!strcmp(tokens[i], "exp2") || !strcmp(tokens[i], "exp2zero") || !strcmp(tokens[i], "linear"))
			bucket = tokens[i];
		else if (!strcmp(tokens[i], "perf_event_array"))
			perf = true;
		else if (!strcmp(tokens[i], "kaddrs"))
			put("kaddrs:\n  - some_symbol\n%s%s", "", "");
		else if (!strcmp(tokens[i], "cgroup_id_map"))
			put("cgroup_id_map:\n  name: ids\n  type: hash\n  regexps:\n    - ^.*$\n%s%s", "", "");
		else if (!strcmp(tokens[i], "tracing"))
			put("tracing:\n  spans: []\n%s%s", "", "");
	}
	put("metrics:\n  %s:\n    - name: m_%s\n", bucket ? "histograms" : "counters", bucket ? "seconds" : "total");
	put("      help: a metric\n%s%s", "", "");
	if (bucket)
		put("      bucket_type: %s\n      bucket_min: 0\n      bucket_max: 20%s\n", bucket, "");
	if (perf)
		put("      perf_event_array: true\n%s%s", "", "");
	for (int i = 0; i < n; i++)
		if (strchr(tokens[i], '=') && !labels++)
			put("      labels:\n%s%s", "", "");
	if (bucket && !labels++)
		put("      labels:\n%s%s", "", "");
	for (int i = 0, l = 0; i < n; i++)
		if (strchr(tokens[i], '='))
			put_label(tokens[i], l++);
	if (bucket)
		put("        - name: bucket\n          size: 8\n          decoders: [{name: uint}]\n%s%s", "", "");
}

/* "| a | b | c | d |" into its cells (trimmed); the number of cells. */
static int cells(char *line, char **out, int max)
{
	int n = 0;
	char *p = strchr(line, '|');

	while (p && n < max) {
		char *next = strchr(p + 1, '|'), *s = p + 1, *e;

		if (!next)
			break;
		*next = '\0';
		while (*s == ' ')
			s++;
		for (e = s + strlen(s); e > s && e[-1] == ' '; e--)
			;
		*e = '\0';
		out[n++] = s;
		p = next;
	}
	return n;
}

int main(void)
{
	const char *top = getenv("top_srcdir");
	char path[4096], line[2048];
	int rows = 0, inside = 0, accepted = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/doc/programs.md", top ? top : ".");
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *c[8], err[ERR_MAX];
		struct program_config conf;
		bool ksym;
		int r;

		if (strstr(line, "<!-- exporter-compat-begin -->"))
			inside = 1;
		else if (strstr(line, "<!-- exporter-compat-end -->"))
			inside = 0;
		if (!inside || strncmp(line, "| ", 2) || !strncmp(line, "| example ", 10) || !strncmp(line, "|---", 4))
			continue;
		if (cells(line, c, 8) != 4 || (strcmp(c[2], "parses") && strcmp(c[2], "loads") &&
					       strcmp(c[2], "counts exactly") && strcmp(c[2], "refused"))) {
			fprintf(stderr, "a row that is not `| name | needs | refused/parses/loads/counts exactly | why |`: "
				"%s\n", line);
			CHECK(0);
			continue;
		}
		rows++;
		build(c[1], &ksym);
		if (ksym && geteuid() != 0) {
			printf("%s: not root, ksym and kstack cannot read kallsyms: not tried\n", c[0]);
			continue;
		}
		memset(&conf, 0, sizeof(conf));
		r = exporter_config_parse(c[0], (const unsigned char *)yaml, used, &conf, err, sizeof(err));
		program_config_free(&conf);
		if ((r == 0) != !!strcmp(c[2], "refused")) {
			fprintf(stderr, "%s: the table says %s, the parser %s\n%s\n%s\n", c[0], c[2],
				r == 0 ? "accepts it" : "refuses it:", r ? err : "", yaml);
			CHECK(0);
		} else {
			CHECK(1);
			accepted += r == 0;
			printf("%s: %s%s%s\n", c[0], c[2], r ? ": " : "", r ? err : "");
		}
	}
	fclose(f);
	CHECK(rows == EXAMPLES);
	printf("%d examples in the table, %d accepted by the parser\n", rows, accepted);
	return testing_done();
}
