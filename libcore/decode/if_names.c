#include "libcore/decode/if_names.h"

#include <string.h>

static int kernel_resolve(uint32_t index, char name[IF_NAMESIZE])
{
	return if_indextoname(index, name) ? 0 : -1;
}

void if_names_init(struct if_names *c)
{
	memset(c, 0, sizeof(*c));
	c->resolve = kernel_resolve;
}

const char *if_name(struct if_names *c, uint32_t index)
{
	struct if_name_slot *s = &c->slots[index % IF_NAMES_SLOTS];

	if (index == 0)
		return NULL;
	if (s->index != index || s->generation != c->generation) {
		c->lookups++;
		s->index = index;
		s->generation = c->generation;
		s->known = !c->resolve(index, s->name);
		s->name[IF_NAMESIZE - 1] = '\0';
	}
	return s->known ? s->name : NULL;
}

void if_names_expire(struct if_names *c)
{
	c->generation++;
}
