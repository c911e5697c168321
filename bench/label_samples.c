#include "bench/label_samples.h"

#include "libcore/decode/cgroup_paths.h"
#include "base/err_max.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static void load_disks(struct label_samples *s)
{
	FILE *f = fopen("/proc/diskstats", "re");
	char line[800];

	while (f && s->ndev < 64 && fgets(line, sizeof(line), f)) {
		unsigned int ma, mi;

		if (sscanf(line, "%u %u", &ma, &mi) == 2)
			s->devs[s->ndev++] = ma << 20 | mi;
	}
	if (f)
		fclose(f);
}

static void load_symbols(struct label_samples *s)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[800], name[256];
	int cap = (int)(sizeof(s->addrs) / sizeof(s->addrs[0]));

	while (f && s->naddr < cap && fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type;

		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && a && (type == 'T' || type == 't'))
			s->addrs[s->naddr++] = a + 8;
	}
	if (f)
		fclose(f);
}

static void load_cgroups(struct label_samples *s)
{
	char mnt[512], err[ERR_MAX], path[800];
	struct dirent *e;
	DIR *d;

	if (cgroup2_mount(mnt, sizeof(mnt), err, sizeof(err)) || !(d = opendir(mnt)))
		return;
	while (s->ncgroup < 256 && (e = readdir(d))) {
		struct stat st;

		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", mnt, e->d_name);
		if (!stat(path, &st))
			s->cgroups[s->ncgroup++] = st.st_ino;
	}
	closedir(d);
}

int label_samples_load(struct label_samples *s)
{
	memset(s, 0, sizeof(*s));
	load_disks(s);
	load_symbols(s);
	load_cgroups(s);
	if (!s->ndev || !s->naddr || !s->ncgroup) {
		fprintf(stderr, "needs root, disks, /proc/kallsyms addresses and a cgroup2 mount (%d disks, %d "
				"symbols, %d cgroups)\n", s->ndev, s->naddr, s->ncgroup);
		return -1;
	}
	return 0;
}
