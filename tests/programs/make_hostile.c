/* Builds the hostile objects the loader's tests feed it (issue 20), from real objects:
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

static int raw_kfunc(const char *in, const char *out)
{
	static const unsigned char marker[8] = { 0x85, 0x00, 0x00, 0x00, 0x67, 0x45, 0x23, 0x01 };
	struct btf *vmlinux = btf__load_vmlinux_btf();
	size_t len, hits = 0, off, size, at = 0;
	char *b = slurp(in, &len);
	int id;

	if (find_section(b, len, "tp_btf/sys_enter", &off, &size)) {
		fprintf(stderr, "%s has no section tp_btf/sys_enter\n", in);
		return 1;
	}

	/* Before 6.13 there is no bpf_send_signal_task: any BTF id makes the same raw call for
	 * the loader's check (exit 4: the kernel would not load it). */
	id = libbpf_get_error(vmlinux) ? -1 : btf__find_by_name_kind(vmlinux, "bpf_send_signal_task", BTF_KIND_FUNC);
	for (size_t i = 0; i + 8 <= len; i += 8) {
		struct bpf_insn insn = { .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_KFUNC_CALL, .imm = id > 0 ? id : 1 };

		if (memcmp(b + i, marker, 8))
			continue;
		memcpy(b + i, &insn, 8);
		at = (i - off) / 8;
		hits++;
	}
	if (hits != 1) {
		fprintf(stderr, "%s: %zu marker calls, expected 1\n", in, hits);
		return 1;
	}
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

static int many_calls(size_t n, const char *out)
{
	/* offsets 1, 7, 17, 25, 33 */
	static char shstr[] = "\0.text\0.rel.text\0.symtab\0.strtab\0.shstrtab";
	static char str[] = "\0bpf_rcu_read_lock\0many";
	struct bpf_insn *insn = calloc(n + 2, sizeof(*insn));
	Elf64_Rel *rel = calloc(n, sizeof(*rel));
	Elf64_Sym sym[3] = { { 0 } };
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	Elf *elf;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (!insn || !rel || fd < 0)
		return 1;
	for (size_t i = 0; i < n; i++) {
		insn[i] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL, .imm = -1 };
		rel[i].r_offset = i * sizeof(*insn);
		rel[i].r_info = ELF64_R_INFO(i + 1 < n ? 1 : 2, 10); /* R_BPF_64_32: "many", then the kfunc */
	}
	insn[n] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K };
	insn[n + 1] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
	sym[1] = (Elf64_Sym){ .st_name = 19, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), .st_shndx = S_TEXT,
			      .st_size = (n + 2) * sizeof(*insn) };
	sym[2] = (Elf64_Sym){ .st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_NOTYPE), .st_shndx = SHN_UNDEF };
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_WRITE, NULL);
	gelf_newehdr(elf, ELFCLASS64);
	gelf_getehdr(elf, &eh);
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_type = ET_REL;
	eh.e_machine = EM_BPF;
	eh.e_version = EV_CURRENT;
	add_section(elf, 1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, insn, (n + 2) * sizeof(*insn), 0);
	scn = add_section(elf, 7, SHT_REL, 0, rel, n * sizeof(*rel), sizeof(*rel));
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
	eh.e_shstrndx = S_SHSTRTAB;
	gelf_update_ehdr(elf, &eh);
	if (elf_update(elf, ELF_C_WRITE) < 0) {
		fprintf(stderr, "elf_update: %s\n", elf_errmsg(-1));
		return 1;
	}
	elf_end(elf);
	close(fd);
	free(insn);
	free(rel);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "raw-kfunc"))
		return raw_kfunc(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "crash-btf"))
		return crash_btf(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "many-calls"))
		return many_calls(strtoul(argv[2], NULL, 10), argv[3]);
	fprintf(stderr, "usage: make_hostile raw-kfunc|crash-btf IN OUT, or many-calls N OUT\n");
	return 2;
}
