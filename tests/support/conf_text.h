/* Test helper: a collectd-style configuration text ("<Program \"x\">", "Key \"s\" 1 true",
 * "</Program>") parsed into the conf_node tree front-ends build, so tests write configs as
 * users do. Strings only in double quotes, no escapes; good enough for tests, not for users. */
#ifndef EBPF_TESTS_CONF_TEXT_H
#define EBPF_TESTS_CONF_TEXT_H

#include "base/options.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>


static inline const char *conf_text_line(const char *p, struct conf_node *n, struct opt_value *vals, char **store)
{
	char *key = *store;
	int nv = 0;

	while (*p && !isspace((unsigned char)*p) && *p != '>')
		*(*store)++ = *p++;
	*(*store)++ = '\0';
	n->opt.key = key;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n' || *p == '>')
			break;
		if (*p == '"') {
			vals[nv].type = OPT_STRING;
			vals[nv].string = *store;
			for (p++; *p && *p != '"'; p++)
				*(*store)++ = *p;
			*(*store)++ = '\0';
			if (*p == '"')
				p++;
		} else if (!strncmp(p, "true", 4) || !strncmp(p, "false", 5)) {
			vals[nv].type = OPT_BOOLEAN;
			vals[nv].boolean = *p == 't';
			p += *p == 't' ? 4 : 5;
		} else {
			char *end;

			vals[nv].type = OPT_NUMBER;
			vals[nv].number = strtod(p, &end);
			p = end > p ? end : p + 1;
		}
		nv++;
	}
	n->opt.values = vals;
	n->opt.nvalues = nv;
	if (*p == '>')
		p++;
	return p;
}

/* Parses text into *root (the first block); conf_text_free() gives everything back (the
 * sanitized build's leak checker fails a test that leaks). */
static inline const char *conf_text_block(const char *p, struct conf_node *n, char **store)
{
	struct opt_value *vals = calloc(16, sizeof(*vals));
	struct conf_node *kids = calloc(32, sizeof(*kids));
	int nk = 0;

	p = conf_text_line(p, n, vals, store);
	for (;;) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		if (p[0] == '<' && p[1] == '/') {
			while (*p && *p != '\n')
				p++;
			break;
		}
		if (*p == '<')
			p = conf_text_block(p + 1, &kids[nk++], store);
		else {
			p = conf_text_line(p, &kids[nk], calloc(16, sizeof(struct opt_value)), store);
			kids[nk].children = NULL;
			kids[nk++].nchildren = 0;
		}
	}
	n->children = kids;
	n->nchildren = nk;
	return p;
}

static inline struct conf_node *conf_text(const char *text)
{
	struct conf_node *root = calloc(1, sizeof(*root));
	char *store = calloc(1, strlen(text) * 2 + 64);

	while (*text && *text != '<')
		text++;
	conf_text_block(text + 1, root, &store);
	return root;
}

static inline void conf_text_free_node(struct conf_node *n)
{
	for (int i = 0; i < n->nchildren; i++)
		conf_text_free_node((struct conf_node *)&n->children[i]);
	free((void *)n->opt.values);
	free((void *)n->children);
}

static inline void conf_text_free(struct conf_node *root)
{
	conf_text_free_node(root);
	free((void *)root->opt.key); /* the string store begins with the root's key */
	free(root);
}

#endif
