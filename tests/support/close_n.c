/* Workload for the ExporterConfig regexp test: for each COMM:COUNT argument, a child process
 * named COMM (prctl PR_SET_NAME, the command name BPF's bpf_get_current_comm reads) closes
 * the marker fd 777777, which no process has open, COUNT times; one child at a time, and the
 * parent exits once all are done. Waits for a line on stdin first, so that collectd can
 * attach before. Usage: close_n COMM:COUNT... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MARK_FD 777777

int main(int argc, char **argv)
{
	char line[16];

	if (argc < 2) {
		fprintf(stderr, "usage: %s COMM:COUNT...\n", argv[0]);
		return 2;
	}
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (int i = 1; i < argc; i++) {
		char comm[16];
		const char *colon = strrchr(argv[i], ':');
		unsigned long count;
		int status;
		pid_t pid;

		if (!colon || (size_t)(colon - argv[i]) >= sizeof(comm))
			return 2;
		snprintf(comm, sizeof(comm), "%.*s", (int)(colon - argv[i]), argv[i]);
		count = strtoul(colon + 1, NULL, 10);
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			if (prctl(PR_SET_NAME, comm, 0, 0, 0))
				_exit(1);
			for (unsigned long n = 0; n < count; n++)
				close(MARK_FD);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
	}
	return 0;
}
