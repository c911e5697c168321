#include "libcore/programs/object_policy.h"

#include <bpf/libbpf.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/bpf.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static bool listed(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcasecmp(names[i], name))
			return true;
	return false;
}

/* Types that only observe. BPF_PROG_TYPE_TRACING also carries fmod_ret, refused below. */
static bool observing_type(enum bpf_prog_type t)
{
	switch (t) {
	case BPF_PROG_TYPE_KPROBE:
	case BPF_PROG_TYPE_TRACEPOINT:
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
	case BPF_PROG_TYPE_PERF_EVENT:
	case BPF_PROG_TYPE_TRACING:
		return true;
	default:
		return false;
	}
}

int object_policy_check_types(struct bpf_object *obj, const struct object_policy *pol, const char *file,
			      char *err, size_t errlen)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		enum bpf_prog_type t = bpf_program__type(p);
		const char *tname = libbpf_bpf_prog_type_str(t);

		if (!bpf_program__autoload(p))
			continue;
		if (t == BPF_PROG_TYPE_TRACING && bpf_program__expected_attach_type(p) == BPF_MODIFY_RETURN) {
			if (listed(pol->program_types, pol->nprogram_types, "fmod_ret"))
				continue;
			snprintf(err, errlen,
				 "%s: program \"%s\" is fmod_ret, which changes what a kernel function returns; "
				 "collectd loads programs that observe. Allow it with AllowProgramType \"fmod_ret\" "
				 "or leave it out with Skip \"%s\"",
				 file, bpf_program__name(p), bpf_program__name(p));
			return -1;
		}
		if (observing_type(t) || (tname && listed(pol->program_types, pol->nprogram_types, tname)))
			continue;
		snprintf(err, errlen,
			 "%s: program \"%s\" has type %s, not a tracing type (kprobe, tracing, tracepoint, "
			 "raw_tracepoint, perf_event); allow it with AllowProgramType \"%s\" or leave it out "
			 "with Skip \"%s\"",
			 file, bpf_program__name(p), tname ? tname : "unknown", tname ? tname : "?", bpf_program__name(p));
		return -1;
	}
	return 0;
}

struct refused_helper {
	int id;
	const char *name;
};

static const struct refused_helper refused_helpers[] = {
	{ BPF_FUNC_probe_write_user, "bpf_probe_write_user" },
	{ BPF_FUNC_override_return, "bpf_override_return" },
	{ BPF_FUNC_send_signal, "bpf_send_signal" },
	{ BPF_FUNC_send_signal_thread, "bpf_send_signal_thread" },
	{ BPF_FUNC_sys_bpf, "bpf_sys_bpf" },
};

static const char *refused_helper_name(int id)
{
	for (size_t i = 0; i < sizeof(refused_helpers) / sizeof(refused_helpers[0]); i++)
		if (refused_helpers[i].id == id)
			return refused_helpers[i].name;
	return NULL;
}

/* The name of the undefined symbol a relocation at `offset` of section `scn_index` points
 * to (an extern function: a kfunc), or NULL. */
static const char *kfunc_at(Elf *elf, size_t scn_index, size_t offset)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh, symsh;
		Elf_Data *data, *syms;
		Elf_Scn *symscn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_REL || sh.sh_info != scn_index)
			continue;
		symscn = elf_getscn(elf, sh.sh_link);
		data = elf_getdata(scn, NULL);
		syms = symscn ? elf_getdata(symscn, NULL) : NULL;
		if (!data || !syms || !gelf_getshdr(symscn, &symsh) || !sh.sh_entsize)
			return NULL;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rel rel;
			GElf_Sym sym;

			if (!gelf_getrel(data, (int)i, &rel) || rel.r_offset != offset)
				continue;
			if (!gelf_getsym(syms, (int)GELF_R_SYM(rel.r_info), &sym) || sym.st_shndx != SHN_UNDEF)
				return NULL;
			return elf_strptr(elf, symsh.sh_link, sym.st_name);
		}
	}
	return NULL;
}

static int check_section(Elf *elf, Elf_Scn *scn, const char *secname, const struct object_policy *pol,
			 const char *file, char *err, size_t errlen)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const struct bpf_insn *insn;
	size_t n;

	if (!data || !data->d_buf)
		return 0;
	insn = data->d_buf;
	n = data->d_size / sizeof(*insn);
	for (size_t i = 0; i < n; i++) {
		const char *name;

		if (insn[i].code != (BPF_JMP | BPF_CALL))
			continue;
		if (insn[i].src_reg == 0) {
			name = refused_helper_name(insn[i].imm);
			if (!name || listed(pol->helpers, pol->nhelpers, name))
				continue;
			snprintf(err, errlen,
				 "%s: section \"%s\" calls %s, which changes the system it should observe; "
				 "allow it with AllowHelper \"%s\" if that is really meant",
				 file, secname, name, name);
			return -1;
		}
		name = kfunc_at(elf, elf_ndxscn(scn), i * sizeof(*insn));
		if (!name || listed(pol->helpers, pol->nhelpers, name))
			continue;
		snprintf(err, errlen,
			 "%s: section \"%s\" calls the kernel function %s (a kfunc), which collectd cannot "
			 "vouch for; allow it with AllowHelper \"%s\"",
			 file, secname, name, name);
		return -1;
	}
	return 0;
}

int object_policy_check_calls(const void *bytes, size_t len, const struct object_policy *pol, const char *file,
			      char *err, size_t errlen)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf;
	int r = 0;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)bytes, len);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		snprintf(err, errlen, "%s is not an ELF file (compile it with clang -target bpf)", file);
		if (elf)
			elf_end(elf);
		return -1;
	}
	while (!r && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		r = check_section(elf, scn, name ? name : "?", pol, file, err, errlen);
	}
	elf_end(elf);
	return r;
}
