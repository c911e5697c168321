#include "prometheus/prom_serve.h"

#include "base/log.h"
#include "snapshot/snapshot_file.h"
#include "base/err_max.h"
#include "base/text_append.h"

#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#if MHD_VERSION < 0x00097002
typedef int MHD_RESULT;
#else
typedef enum MHD_Result MHD_RESULT;
#endif

struct prom_server {
	const struct prom_args *args;
	struct MHD_Daemon *daemon;
	int fd;
	pthread_mutex_t lock; /* the counts and the last error: one scrape at a time */
	uint64_t scrapes, read_errors;
	char last_error[ERR_MAX]; /* logged once until it changes */
};

/* The snapshot as a page: whatever the file holds, a page (snapshot_up 0 and the error
 * when it cannot be read whole). NULL only when out of memory. */
static char *render_page(struct prom_server *s, enum prom_format format, size_t *len)
{
	struct prom_status st = { .up = 1, .error = "" };
	struct prom_text page = { 0 };
	struct snapshot snap;
	char why[ERR_MAX] = "", err[ERR_MAX];
	struct stat sb;
	FILE *f = snapshot_open_file(s->args->snapshot, &sb, why, sizeof(why));

	if (f) {
		if (snapshot_parse(f, &snap, err, sizeof(err)))
			text_printf_cut(why, sizeof(why), "%s is not a collectd-ebpf snapshot this version can read: %s",
					s->args->snapshot, err);
		fclose(f);
	}
	pthread_mutex_lock(&s->lock);
	st.scrapes = ++s->scrapes;
	if (why[0]) {
		st.up = 0;
		st.error = why;
		s->read_errors++;
		if (strcmp(why, s->last_error)) /* once, not at every scrape */
			ebpf_log(EBPF_LOG_ERROR, "serving snapshot_up 0: %s", why);
	} else if (s->last_error[0]) {
		ebpf_log(EBPF_LOG_INFO, "serving %s again", s->args->snapshot);
	}
	snprintf(s->last_error, sizeof(s->last_error), "%s", why);
	st.read_errors = s->read_errors;
	pthread_mutex_unlock(&s->lock);
	if (prom_render(why[0] ? NULL : &snap, &st, format, s->args->buckets, &page) < 0) {
		prom_text_free(&page);
		page.buf = NULL;
	}
	if (!why[0])
		snapshot_free(&snap);
	*len = page.len;
	return page.buf;
}

static MHD_RESULT answer_text(struct MHD_Connection *c, unsigned int code, const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	MHD_RESULT ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static MHD_RESULT handle(void *ctx, struct MHD_Connection *c, const char *url, const char *method,
			 const char *version, const char *upload, size_t *upload_len, void **state)
{
	struct prom_server *s = ctx;
	enum prom_format format;
	struct MHD_Response *r;
	MHD_RESULT ret;
	size_t len;
	char *page;

	(void)version;
	(void)upload;
	if (!*state) { /* the first call has the headers only: refused at once, before a body */
		*state = s;
		if (strcmp(method, "GET") && strcmp(method, "HEAD"))
			return answer_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET /metrics\n");
		return MHD_YES;
	}
	if (*upload_len) { /* a GET with a body: the body is read and ignored */
		*upload_len = 0;
		return MHD_YES;
	}
	if (!strcmp(url, "/"))
		return answer_text(c, MHD_HTTP_OK, "collectd-ebpf-prometheus: the metrics are at /metrics\n");
	if (strcmp(url, "/metrics"))
		return answer_text(c, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n");
	format = prom_format_for(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept"));
	page = render_page(s, format, &len);
	if (!page)
		return answer_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	r = MHD_create_response_from_buffer(len, page, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(page);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", prom_content_type(format));
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* A listening socket on host:port; -1 with err. */
static int listen_on(const struct prom_args *a, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *res;
	int e = getaddrinfo(a->host, a->port, &hints, &res), fd = -1, one = 1;

	if (e) {
		snprintf(err, errlen, "--listen %s:%s: cannot resolve %s: %s; give an address of this host, e.g. "
			 "--listen=" PROM_DEFAULT_LISTEN, a->host, a->port, a->host, gai_strerror(e));
		return -1;
	}
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create a socket for %s:%s: %s", a->host, a->port, strerror(errno));
	} else if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		   bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 64)) {
		e = errno;
		snprintf(err, errlen, "cannot listen on %s port %s: %s%s", a->host, a->port, strerror(e),
			 e == EADDRINUSE ? "; another process listens there (ss -ltnp shows which): choose "
					   "another port with --listen=ADDRESS:PORT"
			 : e == EADDRNOTAVAIL ? "; the address is not one of this host's" : "");
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

struct prom_server *prom_serve_start(const struct prom_args *args, char *err, size_t errlen)
{
	struct prom_server *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->args = args;
	pthread_mutex_init(&s->lock, NULL);
	s->fd = listen_on(args, err, errlen);
	if (s->fd < 0) {
		free(s);
		return NULL;
	}
	/* One thread, one scrape at a time; a slow client is dropped after 10 s. */
	s->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, handle, s,
				     MHD_OPTION_LISTEN_SOCKET, s->fd, MHD_OPTION_CONNECTION_LIMIT, 32u,
				     MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
	if (!s->daemon) {
		snprintf(err, errlen, "libmicrohttpd could not start serving on %s port %s", args->host, args->port);
		close(s->fd);
		free(s);
		return NULL;
	}
	return s;
}

void prom_serve_stop(struct prom_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->daemon); /* closes the listening socket it was given too */
	pthread_mutex_destroy(&s->lock);
	free(s);
}
