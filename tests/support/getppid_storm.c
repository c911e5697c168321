/* Workload for the cost governor's test: a syscall storm on purpose. THREADS threads call
 * getppid() in a tight loop for SECONDS seconds; prints the calls made, all threads summed.
 * Usage: getppid_storm THREADS SECONDS */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double seconds;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void *storm(void *arg)
{
	uint64_t *calls = arg;
	double end = now_s() + seconds;

	do {
		for (int i = 0; i < 1000; i++)
			syscall(SYS_getppid);
		*calls += 1000;
	} while (now_s() < end);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc == 3 ? atoi(argv[1]) : 0;
	uint64_t calls[64] = { 0 }, total = 0;
	pthread_t t[64];

	seconds = argc == 3 ? atof(argv[2]) : 0;
	if (n < 1 || n > 64 || !(seconds > 0)) {
		fprintf(stderr, "usage: getppid_storm THREADS(1-64) SECONDS\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, storm, &calls[i])) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		total += calls[i];
	}
	printf("%llu\n", (unsigned long long)total);
	return 0;
}
