/* libFuzzer target for ebpf_exporter's config format (libcore/programs/exporter_config.h),
 * built with ASan and UBSan: the input is the YAML. Whatever it is: a refused config says
 * why (a message naming ExporterConfig), an accepted one has 1 to PROGRAM_MAX_VIEWS views,
 * each with a map name, a type and a type instance, labels of 1 to 256 bytes whose decoder
 * chains take their size and decode any bytes of it to text that fits; and every view's
 * chains are freed (LeakSanitizer). */
#include "libcore/programs/exporter_config.h"
#include "base/err_max.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct program_config c;
	unsigned char key[DECODE_BYTES_MAX];
	char err[ERR_MAX], out[DECODE_TEXT_MAX];

	memset(&c, 0, sizeof(c));
	err[0] = '\0';
	if (exporter_config_parse("fuzz.yaml", data, size, &c, err, sizeof(err))) {
		if (!strstr(err, "ExporterConfig \"fuzz.yaml\""))
			abort();
		program_config_free(&c);
		return 0;
	}
	if (c.nviews < 1 || c.nviews > PROGRAM_MAX_VIEWS)
		abort();
	memset(key, size ? data[0] : 0, sizeof(key));
	for (int v = 0; v < c.nviews; v++) {
		struct program_view *view = &c.views[v];

		if (!view->map[0] || !view->type[0] || !view->type_instance[0])
			abort();
		for (int l = 0; l < view->nlabels; l++) {
			struct program_label *lab = &view->labels[l];

			if (lab->size < 1 || lab->size > DECODE_BYTES_MAX)
				abort();
			if (decoder_chain_check(&lab->decoders, lab->size, err, sizeof(err)))
				continue; /* resolve refuses it, with this message */
			decoder_chain_decode(&lab->decoders, key, lab->size, out, sizeof(out));
			if (strlen(out) >= sizeof(out))
				abort();
		}
	}
	program_config_free(&c);
	return 0;
}
