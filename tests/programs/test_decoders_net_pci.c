/* The ifname, dname and pci_* label decoders: exact texts in both flavours (this project's
 * and ebpf_exporter's), unknown and malformed inputs, the interface name cache's staleness
 * and bound, and pci.ids read from a fixture written here (plus the system's file, or the
 * error that names its package when there is none). */
#include "libcore/decode/decoder_kind.h"
#include "libcore/decode/if_names.h"
#include "libcore/decode/label_decoder.h"
#include "libcore/decode/pci_ids.h"
#include "tests/support/testing.h"
#include "tests/programs/decode_spec.h"
#include "base/err_max.h"

#include <net/if.h>
#include <stdint.h>
#include <unistd.h>

/* ---- ifname ---- */

static char fake_names[IF_NAMES_SLOTS * 2][IF_NAMESIZE];

/* Interfaces 1..2*IF_NAMES_SLOTS-1 named by fake_names ("" : none). */
static int fake_resolve(uint32_t index, char name[IF_NAMESIZE])
{
	if (index >= IF_NAMES_SLOTS * 2 || !fake_names[index][0])
		return -1;
	memcpy(name, fake_names[index], IF_NAMESIZE);
	return 0;
}

static void test_ifname(void)
{
	unsigned int lo = if_nametoindex("lo");
	uint32_t lo32 = lo, zero = 0, none = 0x7ffffff0u;
	uint16_t lo16 = (uint16_t)lo;
	uint64_t lo64 = lo, lo_high = lo | 0xabcd00000000ull;
	char expect[32];

	CHECK(lo > 0);
	CHECK_STR(decode("ifname", &lo32, 4), "lo");
	CHECK_STR(decode("ifname", &lo16, 2), "lo");
	CHECK_STR(decode("ifname", &lo64, 8), "lo");
	CHECK_STR(decode("uint|ifname", &lo32, 4), "lo");
	CHECK_STR(decode("ifname ebpf_exporter", &lo32, 4), "lo");
	/* ebpf_exporter reads the first 4 bytes only */
	CHECK_STR(decode("ifname ebpf_exporter", &lo_high, 8), "lo");
	snprintf(expect, sizeof(expect), "%llu", (unsigned long long)lo_high);
	CHECK_STR(decode("ifname", &lo_high, 8), expect);
	/* no interface: the number, or as ebpf_exporter prints it */
	CHECK_STR(decode("ifname", &zero, 4), "0");
	CHECK_STR(decode("ifname ebpf_exporter", &zero, 4), "unknown:0");
	CHECK_STR(decode("ifname", &none, 4), "2147483632");
	CHECK_STR(decode("ifname ebpf_exporter", &none, 4), "unknown:2147483632");
	CHECK_STR(decode("string|ifname", "eth0", 5), "eth0"); /* text that is no number passes */
	CHECK_STR(add_error(NULL, "ifname", (const char *[]){ "x" }, 1),
		  "label \"l\": decoder ifname: unknown argument \"x\": the only one is \"ebpf_exporter\" (a value "
		  "without a name prints as ebpf_exporter prints it)");
}

/* A renamed interface reads with its new name from the read after the rename. */
static void test_ifname_staleness(void)
{
	struct decoder_chain c;
	struct if_names *names;
	uint32_t two = 2, three = 3;
	char err[ERR_MAX], out[DECODE_TEXT_MAX];

	decoder_chain_init(&c, "interface");
	CHECK(decoder_chain_add(&c, "ifname", (const char *[]){ "ebpf_exporter" }, 1, err, sizeof(err)) == 0);
	names = c.d[0]->state;
	names->resolve = fake_resolve;
	snprintf(fake_names[2], IF_NAMESIZE, "eth0");
	CHECK_STR(decoder_chain_decode(&c, &two, 4, out, sizeof(out)), "eth0");
	CHECK_STR(decoder_chain_decode(&c, &three, 4, out, sizeof(out)), "unknown:3");
	CHECK_EQ_U64(names->lookups, 2);
	snprintf(fake_names[2], IF_NAMESIZE, "ens3");
	snprintf(fake_names[3], IF_NAMESIZE, "veth1");
	/* within a read, the cache answers (misses too) */
	CHECK_STR(decoder_chain_decode(&c, &two, 4, out, sizeof(out)), "eth0");
	CHECK_STR(decoder_chain_decode(&c, &three, 4, out, sizeof(out)), "unknown:3");
	CHECK_EQ_U64(names->lookups, 2);
	decoder_chain_next_read(&c);
	CHECK_STR(decoder_chain_decode(&c, &two, 4, out, sizeof(out)), "ens3");
	CHECK_STR(decoder_chain_decode(&c, &three, 4, out, sizeof(out)), "veth1");
	CHECK_STR(decoder_chain_decode(&c, &two, 4, out, sizeof(out)), "ens3");
	CHECK_EQ_U64(names->lookups, 4);
	fake_names[3][0] = '\0'; /* deleted */
	decoder_chain_next_read(&c);
	CHECK_STR(decoder_chain_decode(&c, &three, 4, out, sizeof(out)), "unknown:3");
	decoder_chain_free(&c);
}

/* The cache keeps IF_NAMES_SLOTS names, whatever indexes a map holds. */
static void test_if_names_bound(void)
{
	struct if_names c;
	uint32_t other = 2 + IF_NAMES_SLOTS;

	if_names_init(&c);
	c.resolve = fake_resolve;
	snprintf(fake_names[2], IF_NAMESIZE, "a");
	snprintf(fake_names[other], IF_NAMESIZE, "b");
	CHECK_STR(if_name(&c, 2), "a");
	CHECK_STR(if_name(&c, other), "b"); /* the same slot: it takes 2's place */
	CHECK_STR(if_name(&c, 2), "a");
	CHECK_EQ_U64(c.lookups, 3);
	CHECK(if_name(&c, 0) == NULL);
	CHECK(if_name(&c, 5) == NULL);
	CHECK(sizeof(c.slots) / sizeof(c.slots[0]) == IF_NAMES_SLOTS);
}

/* ---- dname ---- */

static void test_dname(void)
{
	unsigned char name[256];
	char expect[256];

	/* ebpf_exporter's own cases: the whole key part is the name */
	CHECK_STR(decode("dname ebpf_exporter", "\x03" "com", 4), "com");
	CHECK_STR(decode("dname ebpf_exporter", "\x07" "example\x03" "com", 12), "example.com");
	CHECK_STR(decode("dname ebpf_exporter", "\x05" "com", 4), "\\x05com");
	/* with the root label and padding: each 0 byte one more '.' there, the end of the name here */
	CHECK_STR(decode("dname ebpf_exporter", "\x07" "example\x03" "com\0\0", 14), "example.com..");
	CHECK_STR(decode("dname", "\x07" "example\x03" "com\0\0", 14), "example.com");
	CHECK_STR(decode("dname", "\x07" "example\x03" "com", 12), "example.com");
	CHECK_STR(decode("dname ebpf_exporter", "\0", 1), "");
	CHECK_STR(decode("dname", "\0", 1), ".");
	CHECK_STR(decode("dname", "\0\x03" "com", 5), ".");
	CHECK_STR(decode("dname ebpf_exporter", "\0\x03" "com", 5), ".com");
	/* malformed: a label longer than what is left, the bytes as they are (escaped) */
	CHECK_STR(decode("dname", "\x03" "www\x09" "ab\0", 8), "\\x03www\\x09ab\\x00");
	CHECK_STR(decode("dname", "\x01\\\x02\x01" "\x7f", 5), "\\\\.\\x01\\x7f");
	/* a label of 255 bytes never overflows the text */
	memset(name, 'a', sizeof(name));
	name[0] = 255;
	CHECK(strlen(decode("dname", name, 256)) == 255);
	/* malformed: 200 bytes are less than the label's 255 */
	snprintf(expect, sizeof(expect), "\\xff%.199s", (const char *)name + 1);
	CHECK_STR(decode("dname", name, 200), expect);
	memset(name, 0xff, sizeof(name)); /* every byte escaped: 1020 characters */
	name[0] = 255;
	CHECK(strlen(decode("dname ebpf_exporter", name, 256)) == 255 * 4);
	CHECK_STR(decode("dname", "\x02" "ab", 3), "ab");
	CHECK_STR(add_error("uint", "dname", NULL, 0),
		  "label \"l\": decoder dname reads the key's bytes, so it must be the first Decode of the label (here "
		  "it follows uint, which makes text)");
}

/* ---- pci_* ---- */

/* Written in pci.ids' format for these tests: subsystem and programming-interface lines to
 * skip, a CRLF line, a malformed vendor whose device belongs to nobody, duplicate ids. */
static const char fixture[] =
	"# PCI ids for tests\n"
	"\n"
	"0e11  Compaq Computer Corporation\n"
	"\t4091  Smart Array 6i\n"
	"\t\t0e11 4091  Smart Array 6i subsystem\n"
	"8086  Intel Corporation\n"
	"\t1000  82542 Gigabit Ethernet Controller (Fiber)\n"
	"\t\t8086 1000  PRO/1000 Gigabit Server Adapter\n"
	"\t1001  first name\n"
	"\t1001  second name\n"
	"abcd  Windows Line Vendor\r\n"
	"zz01  not a vendor\n"
	"\t0001  orphan device\n"
	"10de  NVIDIA Corporation\n"
	"\t2704  AD103 [GeForce RTX 4080]\n"
	"C 01  Mass storage controller\n"
	"\t08  Non-Volatile memory controller\n"
	"\t\t02  NVM Express\n"
	"\t08  second subclass line\n"
	"C 02  Network controller\n"
	"\t00  Ethernet controller\n"
	"C ff  Unassigned class";

static char fixture_path[64];

static void write_fixture(void)
{
	int fd;

	snprintf(fixture_path, sizeof(fixture_path), "/tmp/pci_ids_fixture.XXXXXX");
	fd = mkstemp(fixture_path);
	CHECK(fd >= 0);
	CHECK(write(fd, fixture, sizeof(fixture) - 1) == (ssize_t)(sizeof(fixture) - 1));
	close(fd);
}

static void test_pci_ids_table(void)
{
	struct pci_ids t;

	CHECK(pci_ids_parse(&t, fixture, sizeof(fixture) - 1) == 0);
	CHECK_EQ_U64(t.n, 15);
	CHECK_STR(pci_ids_name(&t, PCI_ID_VENDOR, 0x8086), "Intel Corporation");
	CHECK_STR(pci_ids_name(&t, PCI_ID_VENDOR, 0x0e11), "Compaq Computer Corporation");
	CHECK_STR(pci_ids_name(&t, PCI_ID_VENDOR, 0xabcd), "Windows Line Vendor");
	CHECK(pci_ids_name(&t, PCI_ID_VENDOR, 0x1234) == NULL);
	CHECK_STR(pci_ids_name(&t, PCI_ID_DEVICE, 0x0e114091), "Smart Array 6i");
	CHECK_STR(pci_ids_name(&t, PCI_ID_DEVICE, 0x80861001), "second name"); /* the last line */
	CHECK(pci_ids_name(&t, PCI_ID_DEVICE, 0xabcd0001) == NULL);          /* the orphan */
	CHECK(pci_ids_name(&t, PCI_ID_DEVICE, 0x0e110e11) == NULL);          /* a subsystem */
	CHECK_STR(pci_ids_name(&t, PCI_ID_CLASS, 0xff), "Unassigned class");
	CHECK_STR(pci_ids_name(&t, PCI_ID_SUBCLASS, 0x0108), "Non-Volatile memory controller"); /* the first */
	CHECK(pci_ids_name(&t, PCI_ID_SUBCLASS, 0x0102) == NULL); /* a programming interface */
	CHECK(pci_ids_name(&t, PCI_ID_CLASS, 0x08) == NULL);
	pci_ids_free(&t);
	CHECK(pci_ids_parse(&t, "", 0) == 0 && t.n == 0 && pci_ids_name(&t, PCI_ID_CLASS, 1) == NULL);
	pci_ids_free(&t);
}

/* One decoder with the fixture: "pci_vendor ebpf_exporter PATH" on a number. */
static const char *pci(const char *spec, uint32_t v)
{
	char full[256];

	snprintf(full, sizeof(full), "%s %s", spec, fixture_path);
	return decode(full, &v, 4);
}

static void test_pci_decoders(void)
{
	uint16_t intel = 0x8086;
	char chain[128];

	/* the numbers of ebpf_exporter's tests, through uint as its configs write them */
	CHECK_STR(pci("uint|pci_vendor ebpf_exporter", 0x8086), "Intel Corporation");
	CHECK_STR(pci("uint|pci_vendor", 0x8086), "Intel Corporation");
	CHECK_STR(pci("pci_vendor", 0x8086), "Intel Corporation");
	snprintf(chain, sizeof(chain), "pci_vendor %s", fixture_path);
	CHECK_STR(decode(chain, &intel, 2), "Intel Corporation"); /* 2 bytes, unsigned */
	CHECK_STR(pci("uint|pci_vendor ebpf_exporter", 0x8087), "unknown pci vendor: 0x8087");
	CHECK_STR(pci("uint|pci_vendor", 0x8087), "0x8087");
	/* ebpf_exporter looks 0x0e11 up as "e11": no vendor below 0x1000 has a name there */
	CHECK_STR(pci("uint|pci_vendor ebpf_exporter", 0x0e11), "unknown pci vendor: 0xe11");
	CHECK_STR(pci("uint|pci_vendor", 0x0e11), "Compaq Computer Corporation");
	CHECK_STR(pci("uint|pci_vendor ebpf_exporter", 0x10000), "unknown pci vendor: 0x10000");
	CHECK_STR(pci("uint|pci_vendor ebpf_exporter", 5), "unknown pci vendor: 0x05");

	CHECK_STR(pci("uint|pci_device ebpf_exporter", 0x80861000), "82542 Gigabit Ethernet Controller (Fiber)");
	CHECK_STR(pci("uint|pci_device ebpf_exporter", 0x10de2704), "AD103 [GeForce RTX 4080]");
	CHECK_STR(pci("uint|pci_device ebpf_exporter", 0xdeadbeef), "unknown pci device: 0xdeadbeef");
	CHECK_STR(pci("uint|pci_device", 0xdeadbeef), "0xdeadbeef");
	CHECK_STR(pci("uint|pci_device ebpf_exporter", 0x0e114091), "unknown pci device: 0xe114091");
	CHECK_STR(pci("uint|pci_device", 0x0e114091), "Smart Array 6i");
	CHECK_STR(pci("uint|pci_device", 0x1000), "0x00001000");
	CHECK_STR(pci("uint|pci_device ebpf_exporter", 0x1000), "unknown pci device: 0x1000");

	CHECK_STR(pci("uint|pci_class ebpf_exporter", 2), "Network controller");
	CHECK_STR(pci("uint|pci_class", 1), "Mass storage controller");
	CHECK_STR(pci("uint|pci_class ebpf_exporter", 3), "unknown pci class: 0x03");
	CHECK_STR(pci("uint|pci_class", 3), "0x03");
	CHECK_STR(pci("uint|pci_class ebpf_exporter", 0x1ff), "unknown pci class: 0x1ff");

	CHECK_STR(pci("uint|pci_subclass ebpf_exporter", 0x0108), "Non-Volatile memory controller");
	CHECK_STR(pci("uint|pci_subclass ebpf_exporter", 0x0200), "Ethernet controller");
	CHECK_STR(pci("uint|pci_subclass", 0x0200), "Ethernet controller");
	CHECK_STR(pci("uint|pci_subclass ebpf_exporter", 0xfd00), "unknown pci class: 0xfd");
	CHECK_STR(pci("uint|pci_subclass ebpf_exporter", 0x010b), "unknown pci subclass: 0x0b (class 0x01)");
	CHECK_STR(pci("uint|pci_subclass ebpf_exporter", 0x0003), "unknown pci class: 0x00");
	CHECK_STR(pci("uint|pci_subclass ebpf_exporter", 0x1ff03), "unknown pci class: 0x1ff");
	CHECK_STR(pci("uint|pci_subclass", 0x010b), "0x010b");

	/* text that is no number passes unchanged */
	snprintf(chain, sizeof(chain), "string|pci_class ebpf_exporter %s", fixture_path);
	CHECK_STR(decode(chain, "net", 4), "net");
}

static void test_pci_errors(void)
{
	char empty[] = "/tmp/pci_ids_empty.XXXXXX", msg[512];
	int fd = mkstemp(empty);

	CHECK(fd >= 0);
	CHECK(write(fd, "# nothing\n", 10) == 10);
	close(fd);
	CHECK_STR(add_error(NULL, "pci_vendor", (const char *[]){ "/nonexistent/pci.ids" }, 1),
		  "label \"l\": decoder pci_vendor: cannot read /nonexistent/pci.ids: No such file or directory");
	CHECK_STR(add_error(NULL, "pci_class", (const char *[]){ "/" }, 1),
		  "label \"l\": decoder pci_class: / is not a regular file: give the path of a pci.ids file");
	snprintf(msg, sizeof(msg),
		 "label \"l\": decoder pci_device: %s has no vendor or class lines (\"8086  Intel Corporation\"): is "
		 "it pci.ids?", empty);
	CHECK_STR(add_error(NULL, "pci_device", (const char *[]){ empty }, 1), msg);
	CHECK_STR(add_error(NULL, "pci_subclass", (const char *[]){ "intel" }, 1),
		  "label \"l\": decoder pci_subclass: unknown argument \"intel\": the arguments are \"ebpf_exporter\" "
		  "(an unknown id prints as ebpf_exporter prints it) and the absolute path of a pci.ids file");
	CHECK_STR(add_error(NULL, "pci_subclass", (const char *[]){ "ebpf_exporter", "ebpf_exporter" }, 2),
		  "label \"l\": decoder pci_subclass: unknown argument \"ebpf_exporter\": the arguments are "
		  "\"ebpf_exporter\" (an unknown id prints as ebpf_exporter prints it) and the absolute path of a "
		  "pci.ids file");
	unlink(empty);
}

/* The system's pci.ids when installed (the numbers of ebpf_exporter's tests), else the error
 * that says what to install. */
static void test_pci_system(void)
{
	uint32_t intel = 0x8086, nvme = 0x0108, eth = 0x0200, fiber = 0x80861000;

	if (access("/usr/share/misc/pci.ids", F_OK) && access("/usr/share/hwdata/pci.ids", F_OK)) {
		CHECK_STR(add_error(NULL, "pci_vendor", NULL, 0),
			  "label \"l\": decoder pci_vendor: no pci.ids (the PCI names database) at "
			  "/usr/share/misc/pci.ids or /usr/share/hwdata/pci.ids: install it (Debian, Ubuntu: `apt-get "
			  "install pci.ids`; Fedora: hwdata), or give its path as the decoder's argument");
		return;
	}
	CHECK_STR(decode("uint|pci_vendor ebpf_exporter", &intel, 4), "Intel Corporation");
	CHECK_STR(decode("uint|pci_subclass ebpf_exporter", &nvme, 4), "Non-Volatile memory controller");
	CHECK_STR(decode("pci_subclass", &eth, 4), "Ethernet controller");
	CHECK_STR(decode("uint|pci_device ebpf_exporter", &fiber, 4), "82542 Gigabit Ethernet Controller (Fiber)");
}

int main(void)
{
	test_ifname();
	test_ifname_staleness();
	test_if_names_bound();
	test_dname();
	write_fixture();
	test_pci_ids_table();
	test_pci_decoders();
	test_pci_errors();
	test_pci_system();
	unlink(fixture_path);
	return testing_done();
}
