#include "libcore/decode/pci_ids.h"
#include "base/err_max.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where distributions install pci.ids; ebpf_exporter reads the first. */
static const char *const system_paths[] = { "/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids" };

/* n hex digits at s followed by a space, a tab or the end of the line: 0 and *v, else -1. */
static int hex_field(const char *s, const char *end, int n, uint32_t *v)
{
	uint32_t x = 0;

	if (end - s < n)
		return -1;
	for (int i = 0; i < n; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			return -1;
		x = x << 4 | (uint32_t)d;
	}
	if (end - s > n && s[n] != ' ' && s[n] != '\t')
		return -1;
	*v = x;
	return 0;
}

static int add(struct pci_ids *t, size_t *cap, enum pci_id_kind kind, uint32_t id, char *name, uint32_t line)
{
	if (t->n == *cap) {
		size_t c = *cap ? *cap * 2 : 1024;
		struct pci_id_entry *v = realloc(t->v, c * sizeof(*v));

		if (!v)
			return -1;
		t->v = v;
		*cap = c;
	}
	t->v[t->n++] = (struct pci_id_entry){ .id = id, .line = line, .name = (uint32_t)(name - t->text), .kind = kind };
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct pci_id_entry *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* One line (NUL-terminated in place, without its newline) into t. Lines that are not names
 * of the four kinds, or malformed ones, are skipped; a malformed vendor or class line also
 * ends the block it would have opened, so that its devices are not filed under another. */
static int parse_line(struct pci_ids *t, size_t *cap, char *s, char *end, uint32_t line, bool *in_class,
		      int64_t *block)
{
	uint32_t id;
	char *name;
	int tabs = s[0] == '\t' ? (s[1] == '\t' ? 2 : 1) : 0;
	int digits;
	enum pci_id_kind kind;

	if (s == end || s[0] == '#' || tabs == 2)
		return 0;
	if (tabs == 0 && s[0] == 'C' && s + 1 < end && s[1] == ' ') {
		*in_class = true;
		*block = -1;
		if (hex_field(s + 2, end, 2, &id))
			return 0;
		*block = id;
		name = s + 4, kind = PCI_ID_CLASS;
	} else if (tabs == 0) {
		*in_class = false;
		*block = -1;
		if (hex_field(s, end, 4, &id))
			return 0;
		*block = id;
		name = s + 4, kind = PCI_ID_VENDOR;
	} else {
		digits = *in_class ? 2 : 4;
		if (*block < 0 || hex_field(s + 1, end, digits, &id))
			return 0;
		id |= (uint32_t)*block << (4 * digits);
		name = s + 1 + digits, kind = *in_class ? PCI_ID_SUBCLASS : PCI_ID_DEVICE;
	}
	while (name < end && (*name == ' ' || *name == '\t'))
		name++;
	return add(t, cap, kind, id, name, line);
}

/* Parses text (len bytes in a malloc'd buffer of len + 1), which t then owns, as pci_ids_parse(). */
static int parse_owned(struct pci_ids *t, char *text, size_t len)
{
	size_t cap = 0;
	uint32_t line = 0;
	bool in_class = false;
	int64_t block = -1; /* the vendor or class the indented lines belong to, -1: none */

	memset(t, 0, sizeof(*t));
	t->text = text;
	t->text[len] = '\0';
	for (char *s = t->text, *end; s < t->text + len; s = end + 1, line++) {
		end = memchr(s, '\n', (size_t)(t->text + len - s));
		if (!end)
			end = t->text + len;
		*end = '\0';
		if (end > s && end[-1] == '\r')
			*--end = '\0';
		if (parse_line(t, &cap, s, end, line, &in_class, &block)) {
			pci_ids_free(t);
			return -1;
		}
	}
	if (t->n) /* an empty table has no array: qsort takes no NULL, even for 0 entries */
		qsort(t->v, t->n, sizeof(*t->v), entry_cmp);
	return 0;
}

int pci_ids_parse(struct pci_ids *t, const char *text, size_t len)
{
	char *copy = malloc(len + 1);

	memset(t, 0, sizeof(*t));
	if (!copy)
		return -1;
	memcpy(copy, text, len);
	return parse_owned(t, copy, len);
}

int pci_ids_load(struct pci_ids *t, const char *path, char *err, size_t errlen)
{
	/* O_NONBLOCK: a FIFO given as the path fails the regular-file check instead of blocking */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *text = NULL, *owned;
	size_t len = 0;
	int r = -1;

	memset(t, 0, sizeof(*t));
	if (fd < 0) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s is not a regular file: give the path of a pci.ids file", path);
		goto out;
	}
	if ((uint64_t)st.st_size > PCI_IDS_FILE_MAX) {
		snprintf(err, errlen, "%s has %lld bytes, more than the %u a pci.ids file may have", path,
			 (long long)st.st_size, PCI_IDS_FILE_MAX);
		goto out;
	}
	if (!(text = malloc((size_t)st.st_size + 1))) {
		snprintf(err, errlen, "out of memory reading %s", path);
		goto out;
	}
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, text + len, (size_t)st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	owned = text;
	text = NULL; /* t's from here on, freed with it */
	if (parse_owned(t, owned, len)) {
		snprintf(err, errlen, "out of memory reading %s", path);
		goto out;
	}
	if (t->n == 0) {
		snprintf(err, errlen, "%s has no vendor or class lines (\"8086  Intel Corporation\"): is it pci.ids?",
			 path);
		pci_ids_free(t);
		goto out;
	}
	r = 0;
out:
	free(text);
	close(fd);
	return r;
}

static struct pci_ids system_ids;
static char system_error[ERR_MAX];
static pthread_once_t system_once = PTHREAD_ONCE_INIT;

static void load_system(void)
{
	size_t i;

	for (i = 0; i < sizeof(system_paths) / sizeof(system_paths[0]); i++)
		if (!access(system_paths[i], F_OK))
			break;
	if (i == sizeof(system_paths) / sizeof(system_paths[0])) {
		snprintf(system_error, sizeof(system_error),
			 "no pci.ids (the PCI names database) at %s or %s: install it (Debian, Ubuntu: "
			 "`apt-get install pci.ids`; Fedora: hwdata), or give its path as the decoder's argument",
			 system_paths[0], system_paths[1]);
		return;
	}
	pci_ids_load(&system_ids, system_paths[i], system_error, sizeof(system_error));
}

const struct pci_ids *pci_ids_system(char *err, size_t errlen)
{
	pthread_once(&system_once, load_system);
	if (system_error[0]) {
		snprintf(err, errlen, "%s", system_error);
		return NULL;
	}
	return &system_ids;
}

const char *pci_ids_name(const struct pci_ids *t, enum pci_id_kind kind, uint32_t id)
{
	size_t lo = 0, hi = t->n;
	const struct pci_id_entry key = { .id = id, .line = 0, .kind = (uint8_t)kind };

	/* the first entry not before (kind, id, line 0) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (entry_cmp(&t->v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->n || t->v[lo].kind != kind || t->v[lo].id != id)
		return NULL;
	if (kind != PCI_ID_SUBCLASS) /* pcidb keeps these in maps: a later line replaces */
		while (lo + 1 < t->n && t->v[lo + 1].kind == kind && t->v[lo + 1].id == id)
			lo++;
	return t->text + t->v[lo].name;
}

void pci_ids_free(struct pci_ids *t)
{
	free(t->v);
	free(t->text);
	memset(t, 0, sizeof(*t));
}
