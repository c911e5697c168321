/* Map views (map_view.h) read once per interval and sent: every view of a map as series
 * (series_read.h), as a program's maps are (keyed views: an array's rows or a hash's keys
 * as instances; rows as values: each row a field of one series, with their ratio); ring
 * buffers drained. */
#include "libcore/read/map_view.h"

#include "base/log.h"
#include "libcore/engine/module.h"
#include "libcore/read/series_read.h"
#include "libcore/engine/view_state.h"

#include <bpf/libbpf.h>
#include <string.h>

static int read_view(struct module *m, const struct map_view *v, struct view_state *s)
{
	int e;

	if (v->shape == VIEW_RINGBUF) {
		/* Records first (a ring view is listed before the counts): the log line of an
		 * event precedes the count that includes it. A failure is said, and the counts
		 * are still read. */
		e = ring_buffer__consume(s->rb);
		if (e < 0)
			ebpf_log(EBPF_LOG_ERROR, "%s: reading the %s ring buffer failed: %s", m->label,
				 v->ring_name ? v->ring_name : v->map, strerror(-e));
		return 0;
	}
	if (v->before_read)
		v->before_read(m);
	return series_reader_read(s->series); /* its entries are summed as they are sent */
}

int views_read(struct module *m)
{
	for (int i = 0; m->views && i < m->ops->nviews; i++) {
		int e;

		if (!m->views[i].active)
			continue;
		e = read_view(m, &m->ops->views[i], &m->views[i]);
		if (e)
			return e;
	}
	return 0;
}

void views_emit(struct module *m, const struct metric_sink *sink)
{
	for (int i = 0; m->views && i < m->ops->nviews; i++) {
		struct view_state *s = &m->views[i];

		if (s->active && s->series)
			series_reader_send(s->series, sink);
	}
}
