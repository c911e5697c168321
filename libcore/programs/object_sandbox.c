#include "libcore/programs/object_sandbox.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int object_check_contained(int (*check)(void *ctx), void *ctx, const char *file, char *err, size_t errlen)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old;
	int status = 0, r = 0;
	pid_t pid;

	/* A SIGCHLD set to SIG_IGN would reap the child before waitpid() could see it. */
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGCHLD, &dfl, &old);
	pid = fork();
	if (pid == 0) {
		/* A crash must kill the child, whatever handlers the daemon (or a sanitizer, whose
		 * handler would exit 1 as if the check had returned) installed. */
		static const int crashes[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };

		for (size_t i = 0; i < sizeof(crashes) / sizeof(crashes[0]); i++)
			signal(crashes[i], SIG_DFL);
		libbpf_set_print(NULL); /* the parent logs what the check says, once */
		alarm(OBJECT_CHECK_SECONDS);
		_exit(check(ctx) ? 1 : 0);
	}
	if (pid < 0) {
		snprintf(err, errlen, "cannot check BPF object \"%s\" in a separate process: fork: %s", file,
			 strerror(errno));
		r = -1;
	} else {
		pid_t w;

		while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
			;
		if (w < 0) {
			snprintf(err, errlen, "cannot check BPF object \"%s\" in a separate process: waitpid: %s", file,
				 strerror(errno));
			r = -1;
		} else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
			snprintf(err, errlen, "checking BPF object \"%s\" took more than %u s: refused (is it really a "
				 "BPF object compiled by clang?)", file, OBJECT_CHECK_SECONDS);
			r = -1;
		} else if (WIFSIGNALED(status)) {
			snprintf(err, errlen, "BPF object \"%s\" is corrupt: libbpf crashed opening it (signal %d, %s), "
				 "in a process of its own, so collectd runs on without it; rebuild the object with "
				 "collectd-ebpf-cc", file, WTERMSIG(status), strsignal(WTERMSIG(status)));
			r = -1;
		}
	}
	sigaction(SIGCHLD, &old, NULL);
	return r;
}
