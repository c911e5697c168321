#include "libcore/programs/perf_event_config.h"
#include "base/err_max.h"

#include <linux/perf_event.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct named {
	const char *name;
	uint64_t value;
};

static const struct named type_names[] = {
	{ "hardware", PERF_TYPE_HARDWARE },
	{ "software", PERF_TYPE_SOFTWARE },
	{ "hw_cache", PERF_TYPE_HW_CACHE },
	{ NULL, 0 },
};

/* The names perf(1) gives them. */
static const struct named hardware_names[] = {
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
	{ NULL, 0 },
};

static const struct named software_names[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
	{ NULL, 0 },
};

/* hw_cache events are a cache, an operation and a result (perf_event_open(2)), named as
 * perf(1) does: LLC-loads (the accesses), LLC-load-misses. */
static const struct named cache_names[] = {
	{ "L1-dcache", PERF_COUNT_HW_CACHE_L1D }, { "L1-icache", PERF_COUNT_HW_CACHE_L1I },
	{ "LLC", PERF_COUNT_HW_CACHE_LL },         { "dTLB", PERF_COUNT_HW_CACHE_DTLB },
	{ "iTLB", PERF_COUNT_HW_CACHE_ITLB },      { "branch", PERF_COUNT_HW_CACHE_BPU },
	{ "node", PERF_COUNT_HW_CACHE_NODE },      { NULL, 0 },
};

static const struct named cache_ops[] = {
	{ "load", PERF_COUNT_HW_CACHE_OP_READ },
	{ "store", PERF_COUNT_HW_CACHE_OP_WRITE },
	{ "prefetch", PERF_COUNT_HW_CACHE_OP_PREFETCH },
	{ NULL, 0 },
};

static const char *name_of(const struct named *t, uint64_t value)
{
	for (; t->name; t++)
		if (t->value == value)
			return t->name;
	return NULL;
}

static int value_of(const struct named *t, const char *name, uint64_t *out)
{
	for (; t->name; t++)
		if (!strcasecmp(t->name, name)) {
			*out = t->value;
			return 0;
		}
	return -1;
}

static void list_names(const struct named *t, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (; t->name && used < len; t++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", used ? ", " : "", t->name);
}

/* "LLC-load-misses" -> cache | op << 8 | result << 16; -1 if it is not such a name. */
static int cache_event_value(const char *name, uint64_t *out)
{
	for (const struct named *c = cache_names; c->name; c++)
		for (const struct named *o = cache_ops; o->name; o++) {
			char access[64], miss[64];

			snprintf(access, sizeof(access), "%s-%ss", c->name, o->name);
			snprintf(miss, sizeof(miss), "%s-%s-misses", c->name, o->name);
			if (!strcasecmp(name, access) || !strcasecmp(name, miss)) {
				*out = c->value | o->value << 8 |
				       (uint64_t)(strcasecmp(name, access) ? PERF_COUNT_HW_CACHE_RESULT_MISS
									   : PERF_COUNT_HW_CACHE_RESULT_ACCESS) << 16;
				return 0;
			}
		}
	return -1;
}

static void cache_event_name(uint64_t config, char *out, size_t len)
{
	const char *cache = name_of(cache_names, config & 0xff), *op = name_of(cache_ops, (config >> 8) & 0xff);
	uint64_t result = config >> 16;

	if (cache && op && result <= PERF_COUNT_HW_CACHE_RESULT_MISS && config >> 24 == 0)
		snprintf(out, len, "%s-%s%s", cache, op, result ? "-misses" : "s");
	else
		snprintf(out, len, "0x%llx", (unsigned long long)config);
}

static void describe(struct program_perf_event *e)
{
	const char *type = name_of(type_names, e->type), *config = NULL;
	char number[64];

	if (e->type == PERF_TYPE_HARDWARE)
		config = name_of(hardware_names, e->config);
	else if (e->type == PERF_TYPE_SOFTWARE)
		config = name_of(software_names, e->config);
	if (e->type == PERF_TYPE_HW_CACHE)
		cache_event_name(e->config, number, sizeof(number));
	else
		snprintf(number, sizeof(number), "0x%llx", (unsigned long long)e->config);
	if (type)
		snprintf(e->description, sizeof(e->description), "%s event %s", type, config ? config : number);
	else
		snprintf(e->description, sizeof(e->description), "event type %u config %s", e->type, number);
}

static int parse_type(const struct option *o, struct program_perf_event *e, char *err, size_t errlen)
{
	uint64_t v;

	if (o->nvalues == 1 && o->values[0].type == OPT_NUMBER && o->values[0].number >= 0 &&
	    o->values[0].number <= UINT32_MAX && o->values[0].number == floor(o->values[0].number)) {
		e->type = (uint32_t)o->values[0].number;
		return 0;
	}
	if (o->nvalues == 1 && o->values[0].type == OPT_STRING && !value_of(type_names, o->values[0].string, &v)) {
		e->type = (uint32_t)v;
		return 0;
	}
	snprintf(err, errlen, "Type takes hardware, software, hw_cache, or a PMU's type number (in "
			      "/sys/bus/event_source/devices/*/type)");
	return -1;
}

/* Config after Type: its names are the type's. */
static int parse_config(const struct option *o, struct program_perf_event *e, char *err, size_t errlen)
{
	const struct named *names = e->type == PERF_TYPE_HARDWARE ? hardware_names
				    : e->type == PERF_TYPE_SOFTWARE ? software_names : NULL;
	char valid[512];

	if (o->nvalues == 1 && o->values[0].type == OPT_NUMBER && o->values[0].number >= 0 &&
	    o->values[0].number <= 18446744073709549568.0 && o->values[0].number == floor(o->values[0].number)) {
		e->config = (uint64_t)o->values[0].number;
		return 0;
	}
	if (o->nvalues != 1 || o->values[0].type != OPT_STRING) {
		snprintf(err, errlen, "Config takes the event's name or number: Config \"cpu-clock\"");
		return -1;
	}
	if (names && !value_of(names, o->values[0].string, &e->config))
		return 0;
	if (e->type == PERF_TYPE_HW_CACHE && !cache_event_value(o->values[0].string, &e->config))
		return 0;
	if (names) {
		list_names(names, valid, sizeof(valid));
		snprintf(err, errlen, "Config \"%s\" is not a %s event; valid: %s, or a number", o->values[0].string,
			 e->type == PERF_TYPE_HARDWARE ? "hardware" : "software", valid);
	} else if (e->type == PERF_TYPE_HW_CACHE) {
		snprintf(err, errlen, "Config \"%s\" is not a hw_cache event: a cache (L1-dcache, L1-icache, LLC, dTLB, "
			 "iTLB, branch, node), an operation (load, store, prefetch) and \"s\" for the accesses or "
			 "\"-misses\": LLC-loads, LLC-load-misses; or a number", o->values[0].string);
	} else {
		snprintf(err, errlen, "Config \"%s\": events of type %u are given by number (Config 0x1234), names "
			 "are known for Type hardware, software and hw_cache", o->values[0].string, e->type);
	}
	return -1;
}

static int get_sample(const struct option *o, uint64_t *out, char *err, size_t errlen)
{
	if (o->nvalues != 1 || o->values[0].type != OPT_NUMBER || o->values[0].number < 1 ||
	    o->values[0].number > 1e15 || o->values[0].number != floor(o->values[0].number)) {
		snprintf(err, errlen, "%s takes a whole number from 1 up%s", o->key,
			 !strcasecmp(o->key, "SamplePeriod") ? " (a sample every that many events; 0 would never sample)"
							     : " (samples a second on each CPU)");
		return -1;
	}
	*out = (uint64_t)o->values[0].number;
	return 0;
}

static const char *const block_keys[] = { "Type", "Config", "SamplePeriod", "SampleFrequency", NULL };

int perf_event_parse_block(const struct conf_node *n, struct program_perf_event *e, char *err, size_t errlen)
{
	uint64_t period = 0, frequency = 0;
	const struct option *type = NULL, *config = NULL;
	char why[ERR_MAX];
	const char *name = n->opt.nvalues == 1 && n->opt.values[0].type == OPT_STRING ? n->opt.values[0].string : "";

	if (!name[0] || strlen(name) >= sizeof(e->program)) {
		snprintf(err, errlen, "<PerfEvent> takes the name of the object's SEC(\"perf_event\") program: "
				      "<PerfEvent \"on_sample\">");
		return -1;
	}
	for (int i = 0; i < n->nchildren; i++) {
		const struct option *o = &n->children[i].opt;
		int r = 0;

		if (!strcasecmp(o->key, "Type"))
			type = o;
		else if (!strcasecmp(o->key, "Config"))
			config = o;
		else if (!strcasecmp(o->key, "SamplePeriod"))
			r = get_sample(o, &period, why, sizeof(why));
		else if (!strcasecmp(o->key, "SampleFrequency"))
			r = get_sample(o, &frequency, why, sizeof(why));
		else {
			opt_refuse_unknown(o->key, block_keys, "valid", why, sizeof(why));
			r = -1;
		}
		if (r) {
			snprintf(err, errlen, "<PerfEvent \"%s\">: %s", name, why);
			return -1;
		}
	}
	if (!type || !config) {
		snprintf(err, errlen, "<PerfEvent \"%s\"> needs Type and Config: Type \"software\" Config \"cpu-clock\"",
			 name);
		return -1;
	}
	if (parse_type(type, e, why, sizeof(why)) || parse_config(config, e, why, sizeof(why))) {
		snprintf(err, errlen, "<PerfEvent \"%s\">: %s", name, why);
		return -1;
	}
	if (perf_event_set(e, name, e->type, e->config, period, frequency, why, sizeof(why))) {
		snprintf(err, errlen, "<PerfEvent \"%s\">: %s", name, why);
		return -1;
	}
	return 0;
}

int perf_event_set(struct program_perf_event *e, const char *program, uint32_t type, uint64_t config,
		   uint64_t period, uint64_t frequency, char *err, size_t errlen)
{
	if (strlen(program) >= sizeof(e->program)) {
		snprintf(err, errlen, "the program's name is longer than %zu characters", sizeof(e->program) - 1);
		return -1;
	}
	if (period && frequency) {
		snprintf(err, errlen, "a sample period and a sample frequency both given: each says how often the "
				      "program runs, keep the one you mean");
		return -1;
	}
	if (!period && !frequency) {
		snprintf(err, errlen, "neither a sample period (SamplePeriod N, sample_period: every Nth event) nor a "
				      "sample frequency (SampleFrequency N, sample_frequency: N a second on each CPU) says "
				      "how often to run the program");
		return -1;
	}
	snprintf(e->program, sizeof(e->program), "%s", program);
	e->type = type;
	e->config = config;
	e->frequency = frequency != 0;
	e->sample = frequency ? frequency : period;
	describe(e);
	return 0;
}

int perf_event_from_section(struct program_perf_event *e, const char *program, const char *section, char *err,
			    size_t errlen)
{
	static const char valid[] = "type=N,config=N and frequency=N (samples a second on each CPU) or period=N "
				    "(every Nth event), as SEC(\"perf_event/type=1,config=0,frequency=99\")";
	const char *p = section + strlen(PERF_EVENT_SECTION_PREFIX);
	uint64_t type = 0, config = 0, period = 0, frequency = 0;
	bool has_type = false, has_config = false;

	if (strncmp(section, PERF_EVENT_SECTION_PREFIX, strlen(PERF_EVENT_SECTION_PREFIX)) ||
	    strlen(section) >= sizeof(e->section)) {
		snprintf(err, errlen, "SEC(\"%.200s\") is not perf_event/ with its event (at most %zu characters): "
			 "give %s", section, sizeof(e->section) - 1, valid);
		return -1;
	}
	while (*p) {
		size_t key = strcspn(p, "=,"), len = strcspn(p, ",");
		char *end = NULL; /* stays NULL for what is not key=number: refused below */
		unsigned long long v;

		errno = 0;
		v = p[key] == '=' && p[key + 1] != '-' ? strtoull(p + key + 1, &end, 0) : 0;
		if (p[key] != '=' || end == p + key + 1 || end != p + len || errno) {
			snprintf(err, errlen, "SEC(\"%s\"): \"%.*s\" is not key=number; the section gives %s", section,
				 (int)len, p, valid);
			return -1;
		}
		if (key == 4 && !strncmp(p, "type", 4) && v > UINT32_MAX) {
			snprintf(err, errlen, "SEC(\"%s\"): type %llu is not a perf event type (perf_event_attr's type is "
				 "32 bits: 0 hardware, 1 software, 3 hw_cache, or a PMU's number)", section, v);
			return -1;
		} else if (key == 4 && !strncmp(p, "type", 4))
			type = v, has_type = true;
		else if (key == 6 && !strncmp(p, "config", 6))
			config = v, has_config = true;
		else if (key == 9 && !strncmp(p, "frequency", 9))
			frequency = v;
		else if (key == 6 && !strncmp(p, "period", 6))
			period = v;
		else {
			snprintf(err, errlen, "SEC(\"%s\"): unknown item \"%.*s\"; the section gives %s", section,
				 (int)len, p, valid);
			return -1;
		}
		p += len + (p[len] == ',');
	}
	if (!has_type || !has_config) {
		snprintf(err, errlen, "SEC(\"%s\") names no %s: the section gives %s", section,
			 has_type ? "config" : "type", valid);
		return -1;
	}
	if (perf_event_set(e, program, (uint32_t)type, config, period, frequency, err, errlen))
		return -1;
	snprintf(e->section, sizeof(e->section), "%s", section);
	return 0;
}
