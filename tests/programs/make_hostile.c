/* Builds the hostile objects the loader's tests feed it, from real objects:
 *
 *   make_hostile raw-kfunc IN OUT     IN's call of helper 0x1234567 (raw_kfunc.bpf.c) becomes
 *                                     a raw kfunc call (src_reg 2) of bpf_send_signal_task by
 *                                     this kernel's BTF id, with no relocation naming it;
 *                                     prints "instruction K: ..." (K in its section); exits 4
 *                                     where the kernel has no such kfunc (before 6.13: the call
 *                                     is then of BTF id 1, for the loader's check only)
 *   make_hostile crash-btf IN OUT     one zero byte of IN's .BTF set to 0xff, the first that
 *                                     makes libbpf's bpf_object__open_mem() die (tried in a
 *                                     child); prints "crashes libbpf: signal N" or, where this
 *                                     libbpf survives every such byte, "libbpf survives",
 *                                     writes the first mutation and exits 3
 *   make_hostile many-calls N OUT     an ELF of N calls, each with its relocation: N - 1 of a
 *                                     function of its own, the last of the kfunc
 *                                     bpf_rcu_read_lock; the object check must be linear in them
 *   make_hostile helper ID IN OUT     IN's call of bpf_probe_write_user in .text (write_user.bpf.c)
 *                                     becomes a call of helper ID (a refused one, by its number)
 *   make_hostile raw-call CODE SRC IN OUT
 *                                     IN's call of helper 0x1234567 (raw_kfunc.bpf.c) becomes an
 *                                     instruction of opcode CODE (0x85 call, 0x8d callx) and
 *                                     src_reg SRC; prints "instruction K: ..." as raw-kfunc does
 *   make_hostile many-relocs N OUT    an ELF of 2 instructions and N relocations of them
 *   make_hostile many-sections N OUT  an ELF of N empty sections besides its names
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(path);
		exit(1);
	}
	b = malloc((size_t)n + 1);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		exit(1);
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

static void spill(const char *path, const void *b, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(b, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static int find_section(char *b, size_t len, const char *name, size_t *off, size_t *size);

/* The one instruction of section `section` that is `marker` becomes `with`: its index in
 * the section (exits if there is not exactly one). */
static size_t patch_call(char *b, size_t len, const char *in, const char *section, const unsigned char marker[8],
			 const struct bpf_insn *with)
{
	size_t off, size, hits = 0, at = 0;

	if (find_section(b, len, section, &off, &size) || off + size > len) {
		fprintf(stderr, "%s has no section %s\n", in, section);
		exit(1);
	}
	for (size_t i = 0; i + 8 <= size; i += 8) {
		if (memcmp(b + off + i, marker, 8))
			continue;
		memcpy(b + off + i, with, 8);
		at = i / 8;
		hits++;
	}
	if (hits != 1) {
		fprintf(stderr, "%s: %zu marker calls in %s, expected 1\n", in, hits, section);
		exit(1);
	}
	return at;
}

/* call 0x1234567, as clang emits raw_kfunc.bpf.c's marker(). */
static const unsigned char raw_kfunc_marker[8] = { 0x85, 0x00, 0x00, 0x00, 0x67, 0x45, 0x23, 0x01 };

static int raw_kfunc(const char *in, const char *out)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	size_t len, at;
	char *b = slurp(in, &len);
	int id;

	/* Before 6.13 there is no bpf_send_signal_task: any BTF id makes the same raw call for
	 * the loader's check (exit 4: the kernel would not load it). */
	id = libbpf_get_error(vmlinux) ? -1 : btf__find_by_name_kind(vmlinux, "bpf_send_signal_task", BTF_KIND_FUNC);
	at = patch_call(b, len, in, "tp_btf/sys_enter", raw_kfunc_marker,
			&(struct bpf_insn){ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_KFUNC_CALL,
					    .imm = id > 0 ? id : 1 });
	spill(out, b, len);
	if (id > 0)
		printf("instruction %zu: a raw kfunc call of bpf_send_signal_task (BTF id %d)\n", at, id);
	else
		printf("instruction %zu: a raw kfunc call of BTF id 1 (this kernel has no bpf_send_signal_task)\n", at);
	free(b);
	if (!libbpf_get_error(vmlinux))
		btf__free(vmlinux);
	return id > 0 ? 0 : 4;
}

static int raw_call(unsigned code, unsigned src_reg, const char *in, const char *out)
{
	size_t len, at;
	char *b = slurp(in, &len);

	at = patch_call(b, len, in, "tp_btf/sys_enter", raw_kfunc_marker,
			&(struct bpf_insn){ .code = (__u8)code, .src_reg = (__u8)src_reg, .imm = 0x1234567 });
	spill(out, b, len);
	printf("instruction %zu: opcode 0x%02x, src_reg %u\n", at, code, src_reg);
	free(b);
	return 0;
}

static int helper(int id, const char *in, const char *out)
{
	static const unsigned char write_user[8] = { 0x85, 0x00, 0x00, 0x00, BPF_FUNC_probe_write_user, 0, 0, 0 };
	size_t len;
	char *b = slurp(in, &len);

	patch_call(b, len, in, ".text", write_user, &(struct bpf_insn){ .code = BPF_JMP | BPF_CALL, .imm = id });
	spill(out, b, len);
	free(b);
	return 0;
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

/* The offset and size of section `name` in the ELF bytes. */
static int find_section(char *b, size_t len, const char *name, size_t *off, size_t *size)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int found = -1;

	elf_version(EV_CURRENT);
	elf = elf_memory(b, len);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) && !strcmp(n, name)) {
			*off = sh.sh_offset;
			*size = sh.sh_size;
			found = 0;
		}
	}
	elf_end(elf);
	return found;
}

static int crash_btf(const char *in, const char *out)
{
	size_t len, off, size, first = 0;
	char *b = slurp(in, &len), *m = malloc(len);

	if (!m || find_section(b, len, ".BTF", &off, &size) || off + size > len) {
		fprintf(stderr, "%s has no .BTF section\n", in);
		return 1;
	}
	libbpf_set_print(quiet);
	for (size_t i = 0; i < size; i++) {
		int status;
		pid_t pid;

		if (b[off + i])
			continue;
		memcpy(m, b, len);
		m[off + i] = (char)0xff;
		if (!first)
			first = off + i;
		pid = fork();
		if (pid == 0) {
			struct bpf_object *obj;

			/* A sanitizer's SEGV handler would exit 1: the crash must be seen as one. */
			signal(SIGSEGV, SIG_DFL);
			signal(SIGBUS, SIG_DFL);
			obj = bpf_object__open_mem(m, len, NULL);

			bpf_object__close(obj);
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			return 1;
		if (WIFSIGNALED(status)) {
			spill(out, m, len);
			printf("byte %zu (.BTF + %zu) 00 -> ff crashes libbpf: signal %d\n", off + i, i, WTERMSIG(status));
			free(b);
			free(m);
			return 0;
		}
	}
	memcpy(m, b, len);
	m[first] = (char)0xff;
	spill(out, m, len);
	printf("libbpf survives every zero byte of .BTF set to ff; wrote byte %zu changed\n", first);
	free(b);
	free(m);
	return 3;
}

/* Sections of the generated object, in order. */
enum { S_TEXT = 1, S_REL, S_SYMTAB, S_STRTAB, S_SHSTRTAB };

static Elf_Scn *add_section(Elf *elf, Elf64_Word name, Elf64_Word type, Elf64_Xword flags,
			    void *buf, size_t size, Elf64_Xword entsize)
{
	Elf_Scn *scn = elf_newscn(elf);
	Elf_Data *d = elf_newdata(scn);
	GElf_Shdr sh;

	d->d_buf = buf;
	d->d_size = size;
	d->d_align = 8;
	d->d_type = ELF_T_BYTE;
	gelf_getshdr(scn, &sh);
	sh.sh_name = name;
	sh.sh_type = type;
	sh.sh_flags = flags;
	sh.sh_entsize = entsize;
	sh.sh_addralign = 8;
	gelf_update_shdr(scn, &sh);
	return scn;
}

/* Opens out for a new little-endian relocatable BPF ELF: the ELF, with its header in *eh and
 * out's descriptor in *fd, or NULL if out cannot be opened. Every object made here from
 * scratch starts so and ends with end_bpf_elf(); only their sections differ. */
static Elf *begin_bpf_elf(const char *out, int *fd, GElf_Ehdr *eh)
{
	Elf *elf;

	*fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (*fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(*fd, ELF_C_WRITE, NULL);
	gelf_newehdr(elf, ELFCLASS64);
	gelf_getehdr(elf, eh);
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_REL;
	eh->e_machine = EM_BPF;
	eh->e_version = EV_CURRENT;
	return elf;
}

/* Writes elf, its section names in section shstrndx, and closes fd: 0, or 1 said on stderr. */
static int end_bpf_elf(Elf *elf, int fd, GElf_Ehdr *eh, size_t shstrndx)
{
	eh->e_shstrndx = shstrndx;
	gelf_update_ehdr(elf, eh);
	if (elf_update(elf, ELF_C_WRITE) < 0) {
		fprintf(stderr, "elf_update: %s\n", elf_errmsg(-1));
		return 1;
	}
	elf_end(elf);
	close(fd);
	return 0;
}

/* Writes an ELF of .text `insn` and its relocations `rel` (of the symbols "many", a function
 * that is the whole .text, and the kfunc bpf_rcu_read_lock), as clang lays one out. */
static int write_object(const char *out, struct bpf_insn *insn, size_t ninsn, Elf64_Rel *rel, size_t nrel)
{
	/* offsets 1, 7, 17, 25, 33 */
	static char shstr[] = "\0.text\0.rel.text\0.symtab\0.strtab\0.shstrtab";
	static char str[] = "\0bpf_rcu_read_lock\0many";
	Elf64_Sym sym[3] = { { 0 } };
	int fd;
	GElf_Ehdr eh;
	Elf *elf = begin_bpf_elf(out, &fd, &eh);
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (!elf)
		return 1;
	sym[1] = (Elf64_Sym){ .st_name = 19, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), .st_shndx = S_TEXT,
			      .st_size = ninsn * sizeof(*insn) };
	sym[2] = (Elf64_Sym){ .st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_NOTYPE), .st_shndx = SHN_UNDEF };
	add_section(elf, 1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, insn, ninsn * sizeof(*insn), 0);
	scn = add_section(elf, 7, SHT_REL, 0, rel, nrel * sizeof(*rel), sizeof(*rel));
	gelf_getshdr(scn, &sh);
	sh.sh_link = S_SYMTAB;
	sh.sh_info = S_TEXT;
	gelf_update_shdr(scn, &sh);
	scn = add_section(elf, 17, SHT_SYMTAB, 0, sym, sizeof(sym), sizeof(Elf64_Sym));
	gelf_getshdr(scn, &sh);
	sh.sh_link = S_STRTAB;
	sh.sh_info = 1;
	gelf_update_shdr(scn, &sh);
	add_section(elf, 25, SHT_STRTAB, 0, str, sizeof(str), 0);
	add_section(elf, 33, SHT_STRTAB, 0, shstr, sizeof(shstr), 0);
	return end_bpf_elf(elf, fd, &eh, S_SHSTRTAB);
}

static int many_calls(size_t n, const char *out)
{
	struct bpf_insn *insn = calloc(n + 2, sizeof(*insn));
	Elf64_Rel *rel = calloc(n, sizeof(*rel));
	int r;

	if (!insn || !rel)
		return 1;
	for (size_t i = 0; i < n; i++) {
		insn[i] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL, .imm = -1 };
		rel[i].r_offset = i * sizeof(*insn);
		rel[i].r_info = ELF64_R_INFO(i + 1 < n ? 1 : 2, 10); /* R_BPF_64_32: "many", then the kfunc */
	}
	insn[n] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K };
	insn[n + 1] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	r = write_object(out, insn, n + 2, rel, n);
	free(insn);
	free(rel);
	return r;
}

/* `r0 = 0; exit` with n relocations of its first instruction: few instructions, the
 * relocations alone past the bound. */
static int many_relocs(size_t n, const char *out)
{
	struct bpf_insn insn[2] = { { .code = BPF_ALU64 | BPF_MOV | BPF_K }, { .code = BPF_JMP | BPF_EXIT } };
	Elf64_Rel *rel = calloc(n ? n : 1, sizeof(*rel));
	int r;

	if (!rel)
		return 1;
	for (size_t i = 0; i < n; i++)
		rel[i].r_info = ELF64_R_INFO(1, 10);
	r = write_object(out, insn, 2, rel, n);
	free(rel);
	return r;
}

/* A BPF ELF of n empty sections, and the section names. */
static int many_sections(size_t n, const char *out)
{
	static char shstr[] = "\0.shstrtab\0.empty";
	int fd;
	GElf_Ehdr eh;
	Elf *elf = begin_bpf_elf(out, &fd, &eh);

	if (!elf)
		return 1;
	add_section(elf, 1, SHT_STRTAB, 0, shstr, sizeof(shstr), 0);
	for (size_t i = 0; i < n; i++)
		add_section(elf, 11, SHT_PROGBITS, 0, NULL, 0, 0);
	return end_bpf_elf(elf, fd, &eh, 1);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "raw-kfunc"))
		return raw_kfunc(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "crash-btf"))
		return crash_btf(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "many-calls"))
		return many_calls(strtoul(argv[2], NULL, 10), argv[3]);
	if (argc == 4 && !strcmp(argv[1], "many-relocs"))
		return many_relocs(strtoul(argv[2], NULL, 10), argv[3]);
	if (argc == 4 && !strcmp(argv[1], "many-sections"))
		return many_sections(strtoul(argv[2], NULL, 10), argv[3]);
	if (argc == 5 && !strcmp(argv[1], "helper"))
		return helper((int)strtol(argv[2], NULL, 0), argv[3], argv[4]);
	if (argc == 6 && !strcmp(argv[1], "raw-call"))
		return raw_call((unsigned)strtoul(argv[2], NULL, 0), (unsigned)strtoul(argv[3], NULL, 0), argv[4], argv[5]);
	fprintf(stderr, "usage: make_hostile raw-kfunc|crash-btf IN OUT, many-calls|many-relocs|many-sections N OUT, "
			"helper ID IN OUT, or raw-call CODE SRC_REG IN OUT\n");
	return 2;
}
