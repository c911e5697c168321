/* collectd's plugin API, from whichever header layout configure found:
 * Debian's collectd-dev (<collectd/core/daemon/plugin.h>), a 5.9+ source tree
 * (utils/common/common.h) or an older one (daemon/common.h). */
#ifndef EBPF_PLUGIN_COLLECTD_API_H
#define EBPF_PLUGIN_COLLECTD_API_H

#if defined(COLLECTD_PACKAGED_LAYOUT)
#include "collectd/core/daemon/collectd.h"
#include "collectd/core/daemon/plugin.h"
#include "collectd/core/utils/common/common.h"
#elif defined(COLLECTD_OLD_COMMON_H)
#include "collectd.h"
#include "common.h"
#include "plugin.h"
#else
#include "collectd.h"
#include "plugin.h"
#include "utils/common/common.h"
#endif

#endif
