#include "libcore/kernel/prog_misses.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <string.h>

uint64_t bpf_object_recursion_misses(const struct bpf_object *obj)
{
	struct bpf_program *prog;
	uint64_t total = 0;

	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0) /* not loaded: another candidate's program */
			continue;
		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			total += info.recursion_misses;
	}
	return total;
}
