#include "libcore/programs/object_policy.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool listed(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcasecmp(names[i], name))
			return true;
	return false;
}

/* Types that only observe, as documented in doc/programs.md: kprobe (kprobe, kretprobe,
 * ksyscall, uprobe, usdt), tracepoint, raw_tp, perf_event (run by a perf event's samples:
 * it reads the sample's registers and counts, as a kprobe reads a function's), and of
 * BPF_PROG_TYPE_TRACING only fentry, fexit and tp_btf. All of them may call the helpers of
 * tracing, but not the ones of refused_helpers below, which change what they observe.
 * TRACING also carries fmod_ret (rewrites what a function returns) and iter (a program run
 * by reads of a bpffs file), refused below. */
static bool observing(enum bpf_prog_type t, enum bpf_attach_type a)
{
	switch (t) {
	case BPF_PROG_TYPE_KPROBE:
	case BPF_PROG_TYPE_TRACEPOINT:
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
	case BPF_PROG_TYPE_PERF_EVENT:
		return true;
	case BPF_PROG_TYPE_TRACING:
		return a == BPF_TRACE_FENTRY || a == BPF_TRACE_FEXIT || a == BPF_TRACE_RAW_TP;
	default:
		return false;
	}
}

/* The name AllowProgramType takes for a program: libbpf's type name, or for the tracing
 * type the kind of attach that is not an observing one. */
static const char *policy_type_name(enum bpf_prog_type t, enum bpf_attach_type a)
{
	const char *tname = libbpf_bpf_prog_type_str(t);

	if (t == BPF_PROG_TYPE_TRACING && a == BPF_MODIFY_RETURN)
		return "fmod_ret";
	if (t == BPF_PROG_TYPE_TRACING && a == BPF_TRACE_ITER)
		return "iter";
	if (t == BPF_PROG_TYPE_TRACING)
		return libbpf_bpf_attach_type_str(a) ? libbpf_bpf_attach_type_str(a) : "tracing";
	return tname ? tname : "unknown";
}

int object_policy_check_types(struct bpf_object *obj, const struct object_policy *pol,
			      bool (*left_out)(const char *program, void *ctx), void *ctx, const char *file,
			      char *err, size_t errlen)
{
	struct bpf_program *p;

	/* Every program, whatever its autoload says: SEC("?...") only turns autoload off, and
	 * the loader turns it on again for the programs it attaches. */
	bpf_object__for_each_program(p, obj) {
		enum bpf_prog_type t = bpf_program__type(p);
		enum bpf_attach_type a = bpf_program__expected_attach_type(p);
		const char *name = bpf_program__name(p), *tname = policy_type_name(t, a);

		if ((left_out && left_out(name, ctx)) || observing(t, a) ||
		    listed(pol->program_types, pol->nprogram_types, tname))
			continue;
		if (t == BPF_PROG_TYPE_TRACING && a == BPF_MODIFY_RETURN)
			snprintf(err, errlen,
				 "%s: program \"%s\" is fmod_ret, which changes what a kernel function returns; "
				 "collectd loads programs that observe. Allow it with AllowProgramType \"fmod_ret\" "
				 "or leave it out with Skip \"%s\"",
				 file, name, name);
		else if (t == BPF_PROG_TYPE_TRACING && a == BPF_TRACE_ITER)
			snprintf(err, errlen,
				 "%s: program \"%s\" is a BPF iterator (SEC \"%s\"), not a tracing program: collectd "
				 "attaches programs that observe events. Allow it with AllowProgramType \"iter\" or "
				 "leave it out with Skip \"%s\"",
				 file, name, bpf_program__section_name(p), name);
		else
			snprintf(err, errlen,
				 "%s: program \"%s\" has type %s, not a tracing type (kprobe, tracing, tracepoint, "
				 "raw_tracepoint, perf_event); allow it with AllowProgramType \"%s\" or leave it out "
				 "with Skip \"%s\"",
				 file, name, tname, tname, name);
		return -1;
	}
	return 0;
}

/* What checking an object has cost so far, against the bounds of object_policy.h. */
struct check_budget {
	size_t insns, relocations;
};

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

/* The name libbpf resolves an extern by: up to a "___" flavour suffix
 * (bpf_rcu_read_lock___v2 is bpf_rcu_read_lock in the kernel). */
static void essential_name(const char *name, char *out, size_t len)
{
	const char *flavour = strstr(name, "___");

	snprintf(out, len, "%.*s", flavour ? (int)(flavour - name) : (int)strlen(name), name);
}

/* A call of name (a helper or a kfunc) is refused unless an AllowHelper lists it; fmt, with
 * its arguments, says why and how to allow it. */
static int __attribute__((format(printf, 5, 6)))
refuse_unlisted(const char *name, const struct object_policy *pol, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (listed(pol->helpers, pol->nhelpers, name))
		return 0;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int refuse_kfunc(const char *name, const struct object_policy *pol, const char *file, const char *where,
			char *err, size_t errlen)
{
	char essence[128];

	essential_name(name, essence, sizeof(essence));
	return refuse_unlisted(essence, pol, err, errlen,
			       "%s: %s calls the kernel function %s (a kfunc), which collectd cannot vouch for; "
			       "allow it with AllowHelper \"%s\"",
			       file, where, essence, essence);
}

static int refuse_helper(int id, const struct object_policy *pol, const char *file, const char *where, char *err,
			 size_t errlen)
{
	const char *name = refused_helper_name(id);

	if (!name)
		return 0;
	return refuse_unlisted(name, pol, err, errlen,
			       "%s: %s calls %s, which changes the system it should observe; allow it with AllowHelper "
			       "\"%s\" if that is really meant",
			       file, where, name, name);
}

static bool is_call(const struct bpf_insn *insn)
{
	return (BPF_CLASS(insn->code) == BPF_JMP || BPF_CLASS(insn->code) == BPF_JMP32) &&
	       BPF_OP(insn->code) == BPF_CALL;
}

/* A call the loader cannot name: anything but `call helper` (src_reg 0) and `call
 * subprogram` (src_reg 1), which is what clang emits; a kfunc call by BTF id (src_reg 2)
 * written as a raw instruction carries no name to check. */
static int refuse_unnamed_call(const struct bpf_insn *insn, const char *file, const char *where, char *err,
			       size_t errlen)
{
	snprintf(err, errlen,
		 "%s: %s is a call instruction collectd cannot check (opcode 0x%02x, src_reg %d%s): only helper "
		 "calls and calls of the object's own functions are accepted, and kfuncs only as extern __ksym "
		 "functions, which name what they call; compile the program with collectd-ebpf-cc",
		 file, where, insn->code, insn->src_reg,
		 insn->src_reg == BPF_PSEUDO_KFUNC_CALL ? ": a kfunc called by its BTF id" : "");
	return -1;
}

/* The sections' relocations, found once: rels_of[i] lists the SHT_REL sections that relocate
 * section i (next_rel chains them), so that the whole check is linear in the object. */
struct rel_index {
	size_t nsections;
	size_t *first, *next; /* section indexes + 1, 0 ends a list */
};

static int rel_index_build(Elf *elf, struct rel_index *ri, const char *file, char *err, size_t errlen)
{
	Elf_Scn *scn = NULL;

	if (elf_getshdrnum(elf, &ri->nsections) || ri->nsections > OBJECT_MAX_SECTIONS) {
		snprintf(err, errlen, "%s has more than %u sections: no BPF object needs that many, so collectd does "
			 "not spend the time to check it", file, OBJECT_MAX_SECTIONS);
		return -1;
	}
	ri->first = calloc(ri->nsections + 1, sizeof(*ri->first));
	ri->next = calloc(ri->nsections + 1, sizeof(*ri->next));
	if (!ri->first || !ri->next) {
		snprintf(err, errlen, "%s: out of memory checking it", file);
		return -1;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		size_t i = elf_ndxscn(scn);

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_REL || sh.sh_info >= ri->nsections || i >= ri->nsections)
			continue;
		ri->next[i] = ri->first[sh.sh_info];
		ri->first[sh.sh_info] = i + 1;
	}
	return 0;
}

static void rel_index_free(struct rel_index *ri)
{
	free(ri->first);
	free(ri->next);
}

/* kfunc[k]: the name of the undefined symbol (an extern function: a kfunc) the relocations
 * of section `target` point at instruction k with, or NULL. */
static int mark_kfuncs(Elf *elf, const struct rel_index *ri, size_t target, const char **kfunc, size_t n,
		       size_t *nrels, const char *file, char *err, size_t errlen)
{
	for (size_t r = ri->first[target]; r; r = ri->next[r - 1]) {
		Elf_Scn *scn = elf_getscn(elf, r - 1), *symscn;
		GElf_Shdr sh, symsh;
		Elf_Data *data, *syms;
		size_t count;

		if (!scn || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
			continue;
		symscn = elf_getscn(elf, sh.sh_link);
		data = elf_getdata(scn, NULL);
		syms = symscn ? elf_getdata(symscn, NULL) : NULL;
		if (!data || !syms || !gelf_getshdr(symscn, &symsh))
			continue;
		count = data->d_size / sh.sh_entsize;
		*nrels += count;
		if (*nrels > OBJECT_MAX_RELOCATIONS) {
			snprintf(err, errlen, "%s has more than %u relocations: no BPF object needs that many, so "
				 "collectd does not spend the time to check it", file, OBJECT_MAX_RELOCATIONS);
			return -1;
		}
		for (size_t i = 0; i < count; i++) {
			GElf_Rel rel;
			GElf_Sym sym;
			const char *name;

			if (!gelf_getrel(data, (int)i, &rel) || rel.r_offset % sizeof(struct bpf_insn) ||
			    rel.r_offset / sizeof(struct bpf_insn) >= n)
				continue;
			if (!gelf_getsym(syms, (int)GELF_R_SYM(rel.r_info), &sym) || sym.st_shndx != SHN_UNDEF)
				continue;
			name = elf_strptr(elf, symsh.sh_link, sym.st_name);
			kfunc[rel.r_offset / sizeof(struct bpf_insn)] = name ? name : "?";
		}
	}
	return 0;
}

static int check_section(Elf *elf, const struct rel_index *ri, Elf_Scn *scn, const char *secname,
			 const struct object_policy *pol, struct check_budget *budget, const char *file, char *err,
			 size_t errlen)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const struct bpf_insn *insn;
	const char **kfunc;
	char where[256];
	size_t n;
	int r = 0;

	if (!data || !data->d_buf)
		return 0;
	insn = data->d_buf;
	n = data->d_size / sizeof(*insn);
	budget->insns += n;
	if (budget->insns > OBJECT_MAX_INSNS) {
		snprintf(err, errlen, "%s has more than %u instructions: more than the kernel loads (1 million per "
			 "program) and than collectd spends the time to check", file, OBJECT_MAX_INSNS);
		return -1;
	}
	kfunc = calloc(n ? n : 1, sizeof(*kfunc));
	if (!kfunc) {
		snprintf(err, errlen, "%s: out of memory checking it", file);
		return -1;
	}
	if (mark_kfuncs(elf, ri, elf_ndxscn(scn), kfunc, n, &budget->relocations, file, err, errlen)) {
		free(kfunc);
		return -1;
	}
	snprintf(where, sizeof(where), "section \"%s\"", secname);
	for (size_t i = 0; i < n && !r; i++) {
		struct bpf_insn in;

		/* Copied out: a section of a file need not start 4-byte aligned in memory. */
		memcpy(&in, (const char *)insn + i * sizeof(in), sizeof(in));
		if (!is_call(&in))
			continue;
		if (kfunc[i])
			r = refuse_kfunc(kfunc[i], pol, file, where, err, errlen);
		else if (in.code != (BPF_JMP | BPF_CALL | BPF_K) || in.src_reg > BPF_PSEUDO_CALL) {
			snprintf(where, sizeof(where), "instruction %zu of section \"%s\"", i, secname);
			r = refuse_unnamed_call(&in, file, where, err, errlen);
		} else if (in.src_reg == 0)
			r = refuse_helper(in.imm, pol, file, where, err, errlen);
		/* src_reg 1: a call of a function of this object, whose code is checked too. */
	}
	free(kfunc);
	return r;
}

int object_policy_check_calls(const void *bytes, size_t len, const struct object_policy *pol, const char *file,
			      char *err, size_t errlen)
{
	struct check_budget budget = { 0 };
	struct rel_index ri = { 0 };
	GElf_Ehdr eh = { 0 };
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
	/* Another machine's code read as BPF instructions would mean nothing. */
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_BPF) {
		snprintf(err, errlen, "%s is an ELF file for another machine (e_machine %u), not BPF (compile it with "
			 "clang -target bpf)", file, (unsigned)eh.e_machine);
		elf_end(elf);
		return -1;
	}
	r = rel_index_build(elf, &ri, file, err, errlen);
	while (!r && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		r = check_section(elf, &ri, scn, name ? name : "?", pol, &budget, file, err, errlen);
	}
	rel_index_free(&ri);
	elf_end(elf);
	return r;
}

/* The kernel's name of the kfunc a loaded call names by BTF id: vmlinux's BTF, read once. */
static const char *kernel_kfunc_name(const struct bpf_insn *insn)
{
	static struct btf *vmlinux;
	static bool tried;
	const struct btf_type *t;

	if (insn->off) /* in a kernel module's BTF */
		return NULL;
	if (!tried) {
		tried = true;
		vmlinux = btf__load_vmlinux_btf();
		if (libbpf_get_error(vmlinux))
			vmlinux = NULL;
	}
	t = vmlinux ? btf__type_by_id(vmlinux, (unsigned)insn->imm) : NULL;
	return t && btf_is_func(t) ? btf__name_by_offset(vmlinux, t->name_off) : NULL;
}

int object_policy_check_loaded(struct bpf_object *obj, const struct object_policy *pol, const char *file,
			       char *err, size_t errlen)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		const struct bpf_insn *insn = bpf_program__insns(p);
		size_t n = bpf_program__insn_cnt(p);
		char where[256];

		if (bpf_program__fd(p) < 0)
			continue; /* not loaded */
		for (size_t i = 0; i < n; i++) {
			const char *name;
			int r = 0;

			if (!is_call(&insn[i]))
				continue;
			snprintf(where, sizeof(where), "program \"%s\" as loaded (instruction %zu)", bpf_program__name(p), i);
			if (insn[i].code == (BPF_JMP | BPF_CALL | BPF_K) && insn[i].src_reg == 0)
				r = refuse_helper(insn[i].imm, pol, file, where, err, errlen);
			else if (insn[i].code == (BPF_JMP | BPF_CALL | BPF_K) && insn[i].src_reg == BPF_PSEUDO_KFUNC_CALL &&
				 (name = kernel_kfunc_name(&insn[i])))
				r = refuse_kfunc(name, pol, file, where, err, errlen);
			else if (insn[i].code != (BPF_JMP | BPF_CALL | BPF_K) || insn[i].src_reg != BPF_PSEUDO_CALL)
				r = refuse_unnamed_call(&insn[i], file, where, err, errlen);
			if (r)
				return -1;
		}
	}
	return 0;
}
