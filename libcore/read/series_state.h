/* What a series reader (series_read.h) keeps, for its three parts, one pipeline:
 * series_read.c walks a read's entries and adds their values into their series, asking
 * series_places.c for each entry's series (the index by key, naming, the index by name, the
 * cap, reclaimed and forgotten places), series_send.c sends them. A part calls only the ones
 * after it. Not for use outside libcore/read/series_*.c. */
#ifndef EBPF_READ_SERIES_STATE_H
#define EBPF_READ_SERIES_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/label_value.h"
#include "libcore/hist/hist.h"
#include "libcore/read/lazy_array.h"
#include "libcore/read/map_read.h"
#include "libcore/read/series_view.h"

struct key_cache;
struct metric_sink;

/* A histogram field's slots of this read and its previous cumulative ones: allocated for
 * histogram fields only, so that a counter view of 10,000 series stays small, and its
 * slots as many as the view's precision has. */
struct field_hist {
	struct hist_tracker tracker;
	uint64_t slots[]; /* HIST_NSLOTS(the view's precision) */
};

/* One field of one series: what this read added up. */
struct field_acc {
	uint64_t value;      /* counters and gauges */
	uint64_t sum;        /* histograms */
	/* counters and gauges: the value sent at the last read; a keep_totals histogram's: its
	 * sum (as the map keeps it) sent at the last read */
	uint64_t last_value;
	struct field_hist *hist;
};

/* A slot of the index of series by name: (name hash, series + 1; 0 free). */
struct name_slot {
	uint32_t hash, series;
};

/* One series: its fields and its name. What an entry touches (seen, its fields) leads, in
 * one cache line with the one field of a view of one (a program block's, at 10,000 series
 * each entry's a line apart in a random order): acc points at acc_one then, else at a
 * block of nfields; the name, needed only for a new key and at send, trails. */
struct series {
	_Alignas(64) bool seen; /* got an entry this read */
	bool forget;         /* its group no longer holds it: forgotten unsent (series_group.holds) */
	uint32_t idle;       /* reads in a row without a change (reclaim_after) */
	struct field_acc *acc; /* nfields */
	struct field_acc *carry; /* nfields, or NULL: what deleted entries left (SERIES_CARRY) */
	uint64_t group_token;    /* what the group's fate gave its entries (series_group.holds) */
	struct field_acc acc_one;
	char name[LABEL_VALUE_MAX];
	/* Where each label's text ends in the name (after a group's '/'), then where each
	 * starts: series_name()'s `ends`, so that its labels are sent apart too
	 * (series_send.c). */
	uint8_t label_end[SERIES_LABEL_SPANS];
};

/* An entry whose value its series keeps once the entry is deleted (SERIES_CARRY). */
struct carried {
	uint32_t entry, series;
};

struct series_reader {
	const struct series_view *v;
	struct map_read rd;          /* every entry of the last read */
	/* The series in the order they came (dense: a read walks them in memory order), and
	 * an open-addressing index of them by name. Each place's fields are its acc_one or a
	 * block of accs, given at its first use; places move by swapping, so that no block is
	 * lost. */
	struct series *series;
	struct lazy_array series_mem, accs_mem, index_mem, doomed_mem, carried_mem; /* what they lie in */
	uint32_t nseries;
	struct field_acc *accs;      /* (max_series + 2) x nfields: the places', other's, the carry */
	struct name_slot *index;
	uint32_t capacity;           /* of the index: a power of two, at least 2 x max_series */
	struct key_cache *keys;      /* raw key -> series + 1 (KEY_OTHER: `other`) */
	uint32_t *row_series;        /* or, fixed_labels arrays: row -> series + 1 */
	struct series other;         /* label sets beyond max_series */
	uint32_t folded;             /* label sets in `other` this read */
	uint32_t waiting;            /* of them, new ones that found no room (not reclaimed ones) */
	bool ever_folded;
	bool may_drop;               /* a label's decoders may drop a key (regexps) */
	uint32_t unmatched;          /* keys dropped so this read: gauge "unmatched-<map>" */
	/* reclaim_after: the series given up for newcomers are added into `other`, less what
	 * they had when they were given up (the carry), so that `other` goes on from where it
	 * was (keep_totals: no carry, `other` adds only what their entries count from then on);
	 * their names (64-bit hashes) stay out of the series until max_series of them were given
	 * up. */
	uint64_t *reclaimed;
	uint32_t nreclaimed;
	struct field_acc *carry;     /* nfields */
	/* summed copies (else NULL): an entry's copies summed (packed: as the map holds them), then unpacked */
	uint64_t *summed, *unpacked;
	struct series **to;          /* an entry's series per copy (series_of_copies, _summed) */
	/* keep_totals: the previous read's entries (the dump's buffers, swapped after each send),
	 * an index of them by key (entry + 1, open addressing, prev_cap slots), and room for an
	 * entry's slots now and then */
	uint8_t *prev_keys, *prev_values;
	uint32_t prev_count, prev_cap, *prev_index;
	uint64_t *slots_now, *slots_then;
	/* A group's (series_view.group): the group's text of the entry being named; this
	 * read's entries to delete once sent, and those whose series carry their values. */
	const char *group_text;
	uint64_t group_token;
	uint32_t *doomed, ndoomed;
	struct carried *carried;
	uint32_t ncarried;
};

/* series_places.c: where an entry goes (the read's walk, series_read.c, asks; nothing here
 * calls back into it) */
/* An entry whose copies are summed (value: the sum, what an entry hook sees): its series
 * (NULL: its label set is dropped), and with COPIES_SUMMED_AND_APART each copy's "cpu<N>" series
 * into to[] (rd.copies of them). Named through the key cache (or its row) when known, else
 * decoded (series_name.c), and placed. */
struct series *series_of_summed(struct series_reader *r, const uint8_t *key, const uint8_t *value, struct series **to);
/* An entry whose copies are added on their own: the series of each copy into to[] (NULL:
 * dropped): the key's one series (COPIES_ADDED), or each CPU's own (COPIES_APART*). False: no copy has one. */
bool series_of_copies(struct series_reader *r, const uint8_t *key, struct series **to);
/* The series named `name`: an existing one, a new one while there is room, else `other`. */
struct series *series_place_for(struct series_reader *r, const char *name);
/* A new series' fields; false: out of memory. */
bool series_fields_init(const struct series_reader *r, struct series *s, bool all_hists);
/* A histogram field's slots and tracker; NULL: out of memory. */
struct field_hist *series_hist_new(const struct series_reader *r);
void series_free_hists(const struct series_reader *r, struct series *s);
/* Gives idle places to the label sets waiting for room (reclaim_after); the number given. */
uint32_t series_reclaim_idle(struct series_reader *r);
/* Drops the series a group no longer holds (series.forget). */
void series_drop_forgotten(struct series_reader *r);

/* series_send.c */
void series_send_one(struct series_reader *r, struct series *s, const char *name, const struct metric_sink *sink);
/* `other`, less what reclaimed series carried into it. */
void series_send_other(struct series_reader *r, const struct metric_sink *sink);

#endif
