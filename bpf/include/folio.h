/* CO-RE shims for struct folio, one place for the layout changes (types in
 * kernel_types.h). Include after bpf_core_read.h. */
#ifndef EBPF_FOLIO_H
#define EBPF_FOLIO_H

/* Pages in a folio, as the kernel's folio_nr_pages(): 1 unless the PG_head flag marks a
 * large folio, whose size lives in a field that moved:
 *   flags:  unsigned long until 6.17, memdesc_flags_t (struct { unsigned long f; }) since;
 *   size:   _folio_nr_pages (64-bit, 5.16+), renamed _nr_pages, else 1 << (_flags_1 & 0xff).
 * bpf_core_field_exists is a load-time constant: the branches for other layouts are dead
 * code the verifier drops, so their unresolvable relocations never run. */
static __always_inline __u64 folio_pages(const void *folio)
{
	unsigned long flags, head_bit = bpf_core_enum_value(enum pageflags, PG_head);

	if (bpf_core_field_exists(struct folio___flags_word, flags))
		flags = BPF_CORE_READ((struct folio___flags_word *)folio, flags);
	else
		flags = BPF_CORE_READ((struct folio___flags_memdesc *)folio, flags.f);
	if (!(flags & (1UL << head_bit)))
		return 1;
	if (bpf_core_field_exists(struct folio___nr_pages_old, _folio_nr_pages))
		return BPF_CORE_READ((struct folio___nr_pages_old *)folio, _folio_nr_pages);
	if (bpf_core_field_exists(struct folio___nr_pages_new, _nr_pages))
		return BPF_CORE_READ((struct folio___nr_pages_new *)folio, _nr_pages);
	return 1UL << (BPF_CORE_READ((struct folio___order *)folio, _flags_1) & 0xff);
}

#endif
