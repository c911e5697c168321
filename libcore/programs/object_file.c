#include "libcore/programs/object_file.h"

#include "base/safe_file.h"

#include <stdlib.h>

/* What a user who could write the object could do. */
#define OBJECT_RISK "change the BPF code collectd loads"

static const struct safe_file_kind object_kind = {
	"BPF object", OBJECT_RISK, OBJECT_FILE_MAX_BYTES, "the 64 MiB a BPF object can sensibly be",
};

int object_file_read(const char *path, uid_t allowed_uid, struct object_bytes *out, char *err, size_t errlen)
{
	return safe_file_read(&object_kind, path, allowed_uid, &out->data, &out->len, err, errlen);
}

void object_bytes_free(struct object_bytes *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
}
