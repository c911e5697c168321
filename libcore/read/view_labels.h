/* A view's key as labels (map_view.h, struct view_label): each label's decoder chain, made
 * from the table at start (a Decode line, or a static_map of names, or names the module
 * gives at start), and the instance they make: the labels' texts joined by "-". */
#ifndef EBPF_READ_VIEW_LABELS_H
#define EBPF_READ_VIEW_LABELS_H

#include <stddef.h>
#include <stdint.h>

#include "libcore/decode/label_decoder.h"
#include "libcore/read/map_view.h"

#define VIEW_LABEL_TEXT 64    /* a label's text, cut there (a disk name: DISK_NAME_LEN) */
#define VIEW_INSTANCE_MAX 128 /* the instance the labels make */

struct view_labels {
	struct decoder_chain chains[VIEW_MAX_LABELS];
	const struct view_label *decl[VIEW_MAX_LABELS]; /* the view's labels in use */
	int table_index[VIEW_MAX_LABELS];               /* each one's place in the view's table */
	int n;
};

/* The labels of v whose needs are in `features`, with their decoders. 0, or -1 with err. */
int view_labels_init(struct view_labels *l, const struct map_view *v, uint32_t features, char *err, size_t errlen);
/* Label `table_index` (its place in the view's table) as a static_map of names[value]. 0
 * (also for a label not in use), or -1 with err. */
int view_labels_set_names(struct view_labels *l, int table_index, const char *const *names, uint32_t n, char *err,
			  size_t errlen);
/* Once per read, before decoding (decoder_chain_next_read). */
void view_labels_next_read(struct view_labels *l);
/* The key's labels into texts (l->n of them) and their instance. */
void view_labels_decode(struct view_labels *l, const void *key, char texts[][VIEW_LABEL_TEXT], char *instance,
			size_t len);
void view_labels_free(struct view_labels *l);

#endif
