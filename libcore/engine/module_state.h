/* A module's states (module.h's lifecycle) and the word each is said with in its events
 * (module_events.c, the governor's in cost_control.c; the snapshot maps the states to codes
 * of its own, plugin/snapshot_record.c). Below module.h so that what reports a state needs
 * nothing of the lifecycle. */
#ifndef EBPF_CORE_MODULE_STATE_H
#define EBPF_CORE_MODULE_STATE_H

enum module_state {
	MODULE_CONFIGURED,  /* not started yet */
	MODULE_RUNNING,     /* every probe point on its first-choice method */
	MODULE_DEGRADED,    /* running, on a fallback method or with a failing read */
	MODULE_FAILED,      /* could not start, see last_error */
	MODULE_UNSUPPORTED, /* this kernel has no way to run it */
};

static inline const char *module_state_name(enum module_state s)
{
	switch (s) {
	case MODULE_CONFIGURED: return "configured";
	case MODULE_RUNNING: return "running";
	case MODULE_DEGRADED: return "degraded";
	case MODULE_FAILED: return "failed";
	case MODULE_UNSUPPORTED: return "unsupported";
	}
	return "?";
}

#endif
