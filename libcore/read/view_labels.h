/* A view's key as labels (map_view.h, struct view_label): each label's decoder chain, made
 * from the table at start (a Decode line, or a static_map of names, or names the module
 * gives at start), handed to the view's series (series_view.h), whose name they make; and
 * a view's value fields as the series' fields. */
#ifndef EBPF_READ_VIEW_LABELS_H
#define EBPF_READ_VIEW_LABELS_H

#include <stddef.h>
#include <stdint.h>

#include "libcore/decode/label_decoder.h"
#include "libcore/read/map_view.h"
#include "libcore/read/series_view.h"

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
/* The labels as a series view's (series_view.h: the series named by series_name.h), into
 * out (VIEW_MAX_LABELS). Their number. */
int view_labels_as_series(struct view_labels *l, struct series_label *out);
void view_labels_free(struct view_labels *l);

/* Adds to c a static_map of names[value] ("value=name" for each non-empty name; none: c
 * is left as it is). 0, or -1 with err. */
int view_labels_chain_names(struct decoder_chain *c, const char *const *names, uint32_t n, char *err, size_t errlen);
/* A view's value field as a series' field; its count metric's id goes into *count_id,
 * which must live as long as sf. */
void view_field_as_series(const struct view_field *f, struct series_field *sf, struct metric_id *count_id);

#endif
