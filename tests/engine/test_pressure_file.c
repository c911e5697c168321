/* The PSI file parser (libcore/kernel/pressure_file.h), no root: the host's and a cgroup's
 * files as the kernel writes them, the cpu file of kernels before 5.13 (no `full`), and bad
 * text (a line cut short, no total=, a total that is no number or beyond 64 bits, garbage,
 * no `some`, a line twice): a clear error, no crash; and pressure_read on real files. */
#include "libcore/kernel/pressure_file.h"
#include "tests/support/testing.h"

#include <errno.h>
#include <fcntl.h>

static int parse(const char *text, struct pressure_totals *t, char *err, size_t len)
{
	err[0] = '\0';
	return pressure_parse(text, t, err, len);
}

static void test_good(void)
{
	struct pressure_totals t;
	char err[256];

	CHECK(parse("some avg10=42.95 avg60=42.69 avg300=45.63 total=9407514276\n"
		    "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", &t, err, sizeof(err)) == 0);
	CHECK_EQ_U64(t.some, 9407514276ull);
	CHECK_EQ_U64(t.full, 0);
	CHECK(t.has_full);
	/* cpu before 5.13: `some` only */
	CHECK(parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=17\n", &t, err, sizeof(err)) == 0);
	CHECK_EQ_U64(t.some, 17);
	CHECK(!t.has_full);
	/* no final newline; the largest total */
	CHECK(parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=18446744073709551615", &t, err, sizeof(err)) == 0);
	CHECK_EQ_U64(t.some, UINT64_MAX);
	/* full before some, as no kernel writes it but as a reader takes it */
	CHECK(parse("full avg10=1.00 avg60=0.00 avg300=0.00 total=5\nsome avg10=1.00 avg60=0.00 avg300=0.00 total=9\n",
		    &t, err, sizeof(err)) == 0);
	CHECK(t.some == 9 && t.full == 5 && t.has_full);
	CHECK(!strcmp(pressure_resource_name(PRESSURE_MEMORY), "memory"));
}

/* text is refused with a message that holds `says`. */
static void refused(const char *text, const char *says)
{
	struct pressure_totals t;
	char err[256];

	CHECK(parse(text, &t, err, sizeof(err)) == -1);
	if (!strstr(err, says))
		fprintf(stderr, "for \"%s\": \"%s\" does not say \"%s\"\n", text, err, says);
	CHECK(strstr(err, says) != NULL);
}

static void test_bad(void)
{
	char small[8];
	struct pressure_totals t;

	refused("some avg10=0.00 avg60=", "line 1 \"some avg10=0.00 avg60=\" has no total= (cut short?)");
	refused("some avg10=0.00 avg60=0.00 avg300=0.00 total=12\nfull avg10=0.00 av", "line 2");
	refused("some avg10=0.00 avg60=0.00 avg300=0.00 total=", "line 1: total= is not followed by a whole number");
	refused("some avg10=0.00 avg60=0.00 avg300=0.00 total=12x4", "line 1: total= is not a whole number");
	refused("some avg10=0.00 avg60=0.00 avg300=0.00 total=-3", "not followed by a whole number");
	refused("some total=18446744073709551616", "line 1: total= is beyond 64 bits");
	refused("full avg10=0.00 avg60=0.00 avg300=0.00 total=1\n", "no \"some\" line");
	refused("", "no \"some\" line");
	refused("\x01\xff garbage\n", "line 1 does not begin with \"some \" or \"full \"");
	refused("some total=1\nsome total=2\n", "line 2: a second \"some\" line");
	refused("some total=1\nhalf total=2\n", "line 2 does not begin with \"some \" or \"full \"");
	refused("some xtotal=5\n", "has no total=");
	/* a message cut to a small buffer stays a string */
	CHECK(pressure_parse("garbage", &t, small, sizeof(small)) == -1 && strlen(small) < sizeof(small));
}

static void test_read(void)
{
	char dir[] = "/tmp/ebpf-test-psi.XXXXXX", path[128], err[512];
	struct pressure_totals t;
	int fd;
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	snprintf(path, sizeof(path), "%s/cpu.pressure", dir);
	f = fopen(path, "w");
	fputs("some avg10=0.00 avg60=0.00 avg300=0.00 total=250\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=7\n", f);
	fclose(f);
	CHECK(pressure_read(fd, "cpu.pressure", &t, err, sizeof(err)) == 0 && t.some == 250 && t.full == 7);
	CHECK(pressure_read(fd, "io.pressure", &t, err, sizeof(err)) == -ENOENT);
	CHECK(!strcmp(err, "cannot open io.pressure: No such file or directory"));
	snprintf(path, sizeof(path), "%s/memory.pressure", dir);
	f = fopen(path, "w");
	fputs("some avg10=0.00 av", f);
	fclose(f);
	CHECK(pressure_read(fd, "memory.pressure", &t, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "memory.pressure: line 1") != NULL);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cpu.pressure", dir);
	unlink(path);
	close(fd);
	rmdir(dir);
	/* the running kernel's, where it has PSI */
	if (access("/proc/pressure/cpu", R_OK) == 0)
		CHECK(pressure_read(AT_FDCWD, "/proc/pressure/cpu", &t, err, sizeof(err)) == 0);
}

int main(void)
{
	test_good();
	test_bad();
	test_read();
	return testing_done();
}
