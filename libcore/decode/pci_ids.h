/* pci.ids, the PCI ID database (Debian's package `pci.ids`, /usr/share/misc/pci.ids; Fedora's
 * hwdata, /usr/share/hwdata/pci.ids), read into one sorted table of the names the pci_*
 * decoders give: vendors, devices (by vendor), classes and subclasses. Subsystem and
 * programming-interface lines are skipped.
 *
 * Memory is bounded by the file: a file larger than PCI_IDS_FILE_MAX is refused, and the
 * table holds the file's text once plus an entry per name. The system's file is read once
 * per process (pci_ids_system()), at config time, and shared by every decoder that uses it. */
#ifndef EBPF_CORE_PCI_IDS_H
#define EBPF_CORE_PCI_IDS_H

#include <stddef.h>
#include <stdint.h>

#define PCI_IDS_FILE_MAX (16u << 20) /* pci.ids is about 1.4 MB in 2025 */

enum pci_id_kind {
	PCI_ID_VENDOR,   /* 0x8086 */
	PCI_ID_DEVICE,   /* vendor << 16 | device: 0x80861000 */
	PCI_ID_CLASS,    /* 0x02 */
	PCI_ID_SUBCLASS, /* class << 8 | subclass: 0x0200 */
};

struct pci_id_entry {
	uint32_t id;
	uint32_t line; /* the order in the file: which of two equal ids wins */
	uint32_t name; /* offset in text */
	uint8_t kind;
};

struct pci_ids {
	struct pci_id_entry *v;
	size_t n;
	char *text; /* the file's text, each name NUL-terminated in place */
};

/* Parses pci.ids text (len bytes, need not end in a newline). 0, or -1 when out of memory. */
int pci_ids_parse(struct pci_ids *t, const char *text, size_t len);
/* Reads and parses the file at path (a regular file of at most PCI_IDS_FILE_MAX bytes with at
 * least one vendor or class line). 0, or -1 with err naming the file and what is wrong. */
int pci_ids_load(struct pci_ids *t, const char *path, char *err, size_t errlen);
/* The system's pci.ids (PCI_IDS_PATHS, the first that exists), loaded once. NULL with err
 * naming the package to install when there is none. */
const struct pci_ids *pci_ids_system(char *err, size_t errlen);
/* The name of id, NULL when the database has none. Of two lines with the same id, the last
 * one's name, and for subclasses the first one's: as ebpf_exporter's database (pcidb) reads
 * them. */
const char *pci_ids_name(const struct pci_ids *t, enum pci_id_kind kind, uint32_t id);
void pci_ids_free(struct pci_ids *t);

#endif
