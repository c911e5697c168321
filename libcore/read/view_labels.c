#define _GNU_SOURCE /* asprintf */
#include "libcore/read/view_labels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int view_labels_chain_names(struct decoder_chain *c, const char *const *names, uint32_t n, char *err, size_t errlen)
{
	char **args = calloc(n ? n : 1, sizeof(*args));
	int nargs = 0, r = -1;

	if (!args)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		if (!names[i] || !names[i][0])
			continue;
		if (asprintf(&args[nargs], "%u=%s", i, names[i]) < 0)
			goto out;
		nargs++;
	}
	r = nargs ? decoder_chain_add(c, "static_map", (const char *const *)args, nargs, err, errlen) : 0;
out:
	if (r && !args)
		snprintf(err, errlen, "out of memory");
	for (int i = 0; args && i < nargs; i++)
		free(args[i]);
	free(args);
	return r;
}

static int add_decode_line(struct decoder_chain *c, const struct view_label *d, char *err, size_t errlen)
{
	int nargs = 0;

	while (nargs + 1 < VIEW_LABEL_ARGS && d->decode[nargs + 1])
		nargs++;
	return decoder_chain_add(c, d->decode[0], d->decode + 1, nargs, err, errlen);
}

int view_labels_init(struct view_labels *l, const struct map_view *v, uint32_t features, char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	for (int i = 0; i < v->nlabels && l->n < VIEW_MAX_LABELS; i++) {
		const struct view_label *d = &v->labels[i];
		struct decoder_chain *c = &l->chains[l->n];
		int e = 0;

		if ((features & d->needs) != d->needs)
			continue;
		decoder_chain_init(c, d->name);
		if (d->decode[0])
			e = add_decode_line(c, d, err, errlen);
		else if (d->names)
			e = view_labels_chain_names(c, d->names, (uint32_t)d->nnames, err, errlen);
		if (e)
			return -1;
		l->decl[l->n] = d;
		l->table_index[l->n++] = i;
	}
	return 0;
}

int view_labels_set_names(struct view_labels *l, int table_index, const char *const *names, uint32_t n, char *err,
			  size_t errlen)
{
	for (int i = 0; i < l->n; i++) {
		if (l->table_index[i] != table_index)
			continue;
		decoder_chain_free(&l->chains[i]);
		return view_labels_chain_names(&l->chains[i], names, n, err, errlen);
	}
	return 0;
}

int view_labels_as_series(struct view_labels *l, struct series_label *out)
{
	for (int i = 0; i < l->n; i++)
		out[i] = (struct series_label){ .name = l->decl[i]->name, .offset = l->decl[i]->offset,
						.size = l->decl[i]->size, .chain = &l->chains[i] };
	return l->n;
}

void view_labels_free(struct view_labels *l)
{
	for (int i = 0; i < l->n; i++)
		decoder_chain_free(&l->chains[i]);
	l->n = 0;
}

void view_field_as_series(const struct view_field *f, struct series_field *sf, struct metric_id *count_id)
{
	*sf = (struct series_field){ .kind = f->kind, .id = { .name = f->metric }, .offset = (uint32_t)f->offset,
				     .width = sizeof(uint64_t), .send_zero = f->flags & VIEW_ALWAYS,
				     .instance_prefix = f->instance_prefix, .unit = f->unit };
	if (f->count_metric) {
		*count_id = (struct metric_id){ .name = f->count_metric };
		sf->count_id = count_id;
	}
}
