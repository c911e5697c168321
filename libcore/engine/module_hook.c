/* module_hook_fail() (module.h), which every module's hooks call: in a file of its own,
 * not in module.c, which reaches the modules through the module table (module_table.c), so
 * that a module's code never calls back into the lifecycle that runs it. */
#include "libcore/engine/module.h"

#include <stdarg.h>
#include <stdio.h>

int module_hook_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}
