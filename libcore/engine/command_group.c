/* The commands of a module's per-command tables (command_group.h). */
#include "libcore/engine/command_group.h"

#include "base/label_value.h"
#include "base/log.h"
#include "base/text_hash.h"
#include "libcore/metric/metric.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A command with a place: its comm and its name. */
struct cmd_place {
	char comm[COMMAND_LEN];
	char name[LABEL_VALUE_MAX];
};

struct command_group {
	uint32_t max_series;
	const char *label; /* the module's, for the log */
	struct cmd_place *places; /* nplaces used, in order of arrival */
	uint32_t nplaces;
	/* place + 1 by comm and by name, open addressing; index_cap slots (a power of two, at
	 * least twice max_series) */
	uint32_t *by_comm, *by_name;
	uint32_t index_cap;
	/* The commands folded in this read, once each: open addressing by comm, fold_cap slots
	 * (at least twice the tables' entries); fold_used of them */
	struct cmd_folded {
		char comm[COMMAND_LEN];
		bool used;
	} *folded;
	uint32_t fold_cap, fold_used;
	bool ever_folded;
};

static uint32_t comm_slot(const char comm[COMMAND_LEN], uint32_t cap)
{
	return bytes_hash32(comm, COMMAND_LEN) & (cap - 1);
}

static struct cmd_place *place_of_comm(struct command_group *g, const char comm[COMMAND_LEN])
{
	for (uint32_t i = comm_slot(comm, g->index_cap); g->by_comm[i]; i = (i + 1) & (g->index_cap - 1))
		if (!memcmp(g->places[g->by_comm[i] - 1].comm, comm, COMMAND_LEN))
			return &g->places[g->by_comm[i] - 1];
	return NULL;
}

static bool name_taken(const struct command_group *g, const char *name)
{
	for (uint32_t i = text_hash32(name) & (g->index_cap - 1); g->by_name[i]; i = (i + 1) & (g->index_cap - 1))
		if (!strcmp(g->places[g->by_name[i] - 1].name, name))
			return true;
	return false;
}

static void index_slot(uint32_t *index, uint32_t cap, uint32_t start, uint32_t value)
{
	uint32_t i = start & (cap - 1);

	while (index[i])
		i = (i + 1) & (cap - 1);
	index[i] = value;
}

/* A new place for comm, named by the rule; '~' and its comm's hash when that name is
 * another comm's already. */
static struct cmd_place *new_place(struct command_group *g, const char comm[COMMAND_LEN])
{
	struct cmd_place *p = &g->places[g->nplaces];
	char text[COMMAND_LEN + 1], safe[LABEL_VALUE_MAX];

	memcpy(text, comm, COMMAND_LEN);
	text[COMMAND_LEN] = '\0';
	memcpy(p->comm, comm, COMMAND_LEN);
	label_value_word(text, p->name);
	if (name_taken(g, p->name)) {
		memcpy(safe, p->name, sizeof(safe));
		snprintf(p->name, sizeof(p->name), "%.*s~%08x", (int)(LABEL_VALUE_MAX - 10), safe, (unsigned int)bytes_hash32(comm, COMMAND_LEN));
		ebpf_log(EBPF_LOG_WARNING, "%s: two commands are named \"%s\" once made safe: the later one is sent as \"%s\"",
			 g->label, safe, p->name);
	}
	g->nplaces++;
	index_slot(g->by_comm, g->index_cap, comm_slot(comm, g->index_cap), g->nplaces);
	index_slot(g->by_name, g->index_cap, text_hash32(p->name), g->nplaces);
	return p;
}

/* Counts comm among this read's folded commands, once. */
static void note_folded(struct command_group *g, const char comm[COMMAND_LEN])
{
	uint32_t i = comm_slot(comm, g->fold_cap);

	for (; g->folded[i].used; i = (i + 1) & (g->fold_cap - 1))
		if (!memcmp(g->folded[i].comm, comm, COMMAND_LEN))
			return;
	if (g->fold_used + 1 >= g->fold_cap) /* never: twice the entries a read can meet */
		return;
	memcpy(g->folded[i].comm, comm, COMMAND_LEN);
	g->folded[i].used = true;
	g->fold_used++;
}

enum series_fate command_group_fate(struct command_group *g, const char command[COMMAND_LEN], const char **text,
				    uint64_t *token)
{
	struct cmd_place *p = place_of_comm(g, command);

	/* An empty comm (prctl can set one) is a name too: "empty". */
	if (!p && g->nplaces < g->max_series)
		p = new_place(g, command);
	if (!p) {
		note_folded(g, command);
		*text = "other";
		*token = 0;
		return SERIES_CARRY;
	}
	*text = p->name;
	*token = (uint64_t)(p - g->places) + 1;
	return SERIES_SEND;
}

void command_group_begin_read(struct command_group *g)
{
	memset(g->folded, 0, (size_t)g->fold_cap * sizeof(*g->folded));
	g->fold_used = 0;
}

void command_group_end_read(struct command_group *g, const struct metric_sink *sink)
{
	g->ever_folded |= g->fold_used > 0;
	if (sink->gauge && g->ever_folded)
		sink->gauge(sink->ctx, METRIC("folded"), "commands", g->fold_used);
}

struct command_group *command_group_new(uint32_t max_series, const char *label, uint64_t entries, char *err,
					size_t errlen)
{
	struct command_group *g = calloc(1, sizeof(*g));

	if (!g) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	g->max_series = max_series;
	g->label = label;
	g->index_cap = 16;
	while (g->index_cap < 2 * max_series)
		g->index_cap *= 2;
	g->fold_cap = 16;
	while (g->fold_cap < 2 * entries)
		g->fold_cap *= 2;
	g->places = calloc(max_series ? max_series : 1, sizeof(*g->places));
	g->by_comm = calloc(g->index_cap, sizeof(*g->by_comm));
	g->by_name = calloc(g->index_cap, sizeof(*g->by_name));
	g->folded = calloc(g->fold_cap, sizeof(*g->folded));
	if (!g->places || !g->by_comm || !g->by_name || !g->folded) {
		snprintf(err, errlen, "cannot set up the per-command reader: %s", strerror(ENOMEM));
		command_group_free(g);
		return NULL;
	}
	return g;
}

void command_group_free(struct command_group *g)
{
	if (!g)
		return;
	free(g->places);
	free(g->by_comm);
	free(g->by_name);
	free(g->folded);
	free(g);
}
