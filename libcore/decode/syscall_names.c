#include "libcore/decode/syscall_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *syscall_name(unsigned int nr, char *buf, unsigned long len)
{
	if (nr < SYSCALL_TABLE_SIZE && syscall_table[nr])
		return syscall_table[nr];
	snprintf(buf, len, "sys_%u", nr);
	return buf;
}

int syscall_number(const char *name)
{
	char *end;
	long nr;

	for (int i = 0; i < SYSCALL_TABLE_SIZE; i++)
		if (syscall_table[i] && !strcmp(syscall_table[i], name))
			return i;
	if (strncmp(name, "sys_", 4))
		return -1;
	nr = strtol(name + 4, &end, 10);
	return (*end == '\0' && end != name + 4 && nr >= 0 && nr < SYSCALL_TABLE_SIZE) ? (int)nr : -1;
}
