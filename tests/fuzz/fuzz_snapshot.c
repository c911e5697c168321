/* libFuzzer target for the snapshot parser (snapshot/snapshot_file.c), built with ASan and
 * UBSan. Whatever the parser accepts must round-trip: parse -> write -> parse succeeds,
 * and writing that again gives the very same bytes. Anything the sanitizers see, or a
 * round trip that fails, aborts with the input saved by libFuzzer. */
#include "snapshot/snapshot_file.h"
#include "base/err_max.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The snapshot as text, as the plugin writes it; NULL on error. */
static char *write_text(const struct snapshot *s, size_t *len)
{
	const struct snapshot_module **mods = calloc(s->nmodules ? s->nmodules : 1, sizeof(*mods));
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!mods || !f)
		abort();
	for (int i = 0; i < s->nmodules; i++)
		mods[i] = &s->modules[i];
	if (snapshot_write_stream_events(f, mods, s->nmodules, s->events, s->nevents, s->written_us))
		abort();
	fclose(f);
	free(mods);
	return buf;
}

static int parse_bytes(const char *data, size_t size, struct snapshot *s)
{
	char err[ERR_MAX];
	FILE *f;
	int r;

	f = fmemopen((void *)data, size, "r");
	if (!f)
		abort();
	r = snapshot_parse(f, s, err, sizeof(err));
	fclose(f);
	return r;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct snapshot first, second;
	size_t len1, len2;
	char *text1, *text2;

	if (size == 0 || parse_bytes((const char *)data, size, &first))
		return 0;
	text1 = write_text(&first, &len1);
	if (parse_bytes(text1, len1, &second)) {
		fprintf(stderr, "the parser refused what the writer wrote from its own result:\n%s", text1);
		abort();
	}
	text2 = write_text(&second, &len2);
	if (len1 != len2 || memcmp(text1, text2, len1)) {
		fprintf(stderr, "parse -> write is not stable:\n--- first\n%s--- second\n%s", text1, text2);
		abort();
	}
	free(text1);
	free(text2);
	snapshot_free(&first);
	snapshot_free(&second);
	return 0;
}
