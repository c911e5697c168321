/* The engine's walkers of a module's map views (read/map_view.h): view_start.c sets them
 * up once the object is loaded, view_emit.c reads and sends them every interval, over the
 * one reader (read/series_read.h). */
#ifndef EBPF_ENGINE_VIEWS_H
#define EBPF_ENGINE_VIEWS_H

#include <stddef.h>
#include <stdint.h>

struct module;
struct bpf_object;
struct metric_sink;

/* Reading state of one view; module.c keeps one per descriptor view (view_state.h). */
struct view_state;

/* Histogram rows of the views the module reads (fixed-size arrays; a hook counts
 * the rest into m->hist_rows): what the default precision is budgeted on. */
uint32_t views_hist_rows(const struct module *m);
/* Between open and load: every view map whose value is one bare struct hist_row declared
 * by size (no BTF value type) gets the value size of a row at m->precision
 * (HIST_ROW_SIZE, hist_row.h), so its kernel memory follows the precision. 0 or -errno. */
int views_size_rows(struct module *m, struct bpf_object *obj);
/* Creates the readers of every view once the object is loaded. 0, or -1 with the message. */
int views_start(struct module *m, char *err, size_t errlen);
/* For a module's start hook: the names of label `label` of view `view` (a label declared
 * with neither decode nor names), names[value] for each value below n that has one (NULL:
 * none; such a value reads as its number). 0, or -1 with the message. */
int view_label_names(struct module *m, int view, int label, const char *const *names, uint32_t n, char *err,
		     size_t errlen);
/* Reads every view's map (no values sent). 0 or -errno. */
int views_read(struct module *m);
/* Sends what views_read() read. */
void views_emit(struct module *m, const struct metric_sink *sink);
void views_free(struct module *m);

#endif
