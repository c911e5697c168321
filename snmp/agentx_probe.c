#include "agentx_probe.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int agentx_probe(const char *addr, char *buf, size_t len)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, r, e;

	if (!strncmp(addr, "unix:", 5))
		addr += 5;
	if (addr[0] != '/' || strlen(addr) >= sizeof(sun.sun_path))
		return -1;
	if (stat(addr, &st) != 0) {
		snprintf(buf, len, "no AgentX socket at %s (%s): start snmpd with \"master agentx\" and "
			 "\"agentXSocket %s\" in snmpd.conf, or give snmpd's socket with --agentx-socket%s", addr,
			 strerror(errno), addr,
			 strcmp(addr, AGENTX_NETSNMP_SOCKET) ? " (an snmpd.conf without agentXSocket uses "
							      AGENTX_NETSNMP_SOCKET ")" : "");
		return 1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(buf, len, "%s is not a socket: give snmpd's agentXSocket with --agentx-socket", addr);
		return 1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(buf, len, "cannot create a unix socket: %s", strerror(errno));
		return 1;
	}
	memcpy(sun.sun_path, addr, strlen(addr) + 1);
	r = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	e = errno;
	close(fd);
	if (r == 0)
		return 0;
	if (e == EACCES || e == EPERM)
		snprintf(buf, len, "no permission to connect to %s (%s): snmpd's agentXPerms must give this "
			 "user's group access, e.g. \"agentXPerms 0660 0755 Debian-snmp ebpf-snmp\"", addr, strerror(e));
	else if (e == ECONNREFUSED)
		snprintf(buf, len, "nothing listens on %s (%s): snmpd is not running, or runs without "
			 "\"master agentx\"", addr, strerror(e));
	else
		snprintf(buf, len, "cannot connect to %s: %s", addr, strerror(e));
	return 1;
}
