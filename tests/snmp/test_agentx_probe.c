/* Why the subagent is not connected: each case of a unix AgentX socket gives a message that
 * names the path and the fix. */
#include "snmp/agentx_probe.h"
#include "tests/support/testing.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	/* path no longer than sun_path: gcc 14 warns of the copy into it otherwise */
	char dir[] = "/tmp/ebpf-agentx-probe-XXXXXX", path[sizeof(sun.sun_path)], msg[512];
	int fd;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/master", dir);

	/* No socket yet (snmpd not started, or listening elsewhere). */
	CHECK(agentx_probe(path, msg, sizeof(msg)) == 1);
	CHECK(strstr(msg, "no AgentX socket at ") && strstr(msg, "agentXSocket") && strstr(msg, "/var/agentx/master"));

	/* A listener: connectable. */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	CHECK(bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0);
	CHECK(listen(fd, 1) == 0);
	CHECK(agentx_probe(path, msg, sizeof(msg)) == 0);
	CHECK(agentx_probe("unix:/nonexistent/x", msg, sizeof(msg)) == 1);

	/* The socket file left behind by a stopped snmpd: nothing listens. */
	close(fd);
	CHECK(agentx_probe(path, msg, sizeof(msg)) == 1);
	CHECK(strstr(msg, "nothing listens on") && strstr(msg, "master agentx"));
	unlink(path);

	/* TCP addresses cannot be probed here. */
	CHECK(agentx_probe("tcp:localhost:705", msg, sizeof(msg)) == -1);
	rmdir(dir);
	return testing_done();
}
