#include "libcore/kernel/prog_stats.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdio.h>
#include <string.h>

void bpf_object_prog_stats(const struct bpf_object *obj, void (*fn)(void *ctx, const struct prog_stats *s),
			   void *ctx)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		int fd = bpf_program__fd(prog);
		struct prog_stats s;

		if (fd < 0) /* not loaded: another candidate's program */
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		s = (struct prog_stats){ .name = bpf_program__name(prog), .runs = info.run_cnt,
					 .run_time_ns = info.run_time_ns, .recursion_misses = info.recursion_misses };
		fn(ctx, &s);
	}
}

bool bpf_stats_sysctl_on(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
	int c = f ? fgetc(f) : EOF;

	if (f)
		fclose(f);
	return c == '1';
}
