/*
 * Names for the record kinds of sink.h.
 */
#include "record/record.h"

#include <math.h>
#include <string.h>

const char *sample_kind_name(enum sample_kind kind)
{
	switch (kind) {
	case SAMPLE_ALLOC:
		return "jdk.ObjectAllocationSample";
	case SAMPLE_TLAB_NEW:
		return "jdk.ObjectAllocationInNewTLAB";
	case SAMPLE_TLAB_OUTSIDE:
		return "jdk.ObjectAllocationOutsideTLAB";
	case SAMPLE_OLD_OBJECT:
		return "jdk.OldObjectSample";
	case SAMPLE_AGENT:
		return "heapsift.AgentSample";
	case SAMPLE_AP_ALLOC:
		return "jdk.ObjectAllocationInNewTLAB (async-profiler)";
	case SAMPLE_AP_LIVE:
		return "profiler.LiveObject";
	case SAMPLE_DD_ALLOC:
		return "datadog.ObjectSample";
	case SAMPLE_DD_LIVE:
		return "datadog.HeapLiveObject";
	case SAMPLE__COUNT:
		break;
	}
	return "unknown";
}

const char *sample_kind_word(enum sample_kind kind)
{
	static const char *const words[SAMPLE__COUNT] = {
		[SAMPLE_ALLOC] = "alloc",
		[SAMPLE_TLAB_NEW] = "tlab",
		[SAMPLE_TLAB_OUTSIDE] = "outside",
		[SAMPLE_OLD_OBJECT] = "old",
		[SAMPLE_AGENT] = "agent",
		[SAMPLE_AP_ALLOC] = "ap-alloc",
		[SAMPLE_AP_LIVE] = "ap-live",
		[SAMPLE_DD_ALLOC] = "dd-alloc",
		[SAMPLE_DD_LIVE] = "dd-live",
	};

	return (unsigned)kind < SAMPLE__COUNT ? words[kind] : "?";
}

enum rec_fact rec_setting_fact(const char *name)
{
	size_t n = strlen(REC_FACT_EVENT);

	if (strncmp(name, REC_FACT_EVENT, n) || name[n] != '#')
		return REC_FACT_NONE;
	name += n + 1;
	return !strcmp(name, REC_FACT_WRITERS)	? REC_FACT_IS_WRITERS
	       : !strcmp(name, REC_FACT_UNREAD) ? REC_FACT_IS_UNREAD
						: REC_FACT_NONE;
}

int64_t rec_poisson_weight(int64_t s, int64_t interval)
{
	double w, x;

	if (s < 0)
		s = 0;
	if (interval <= 0)
		return s;
	if (!s)
		return interval; /* the limit as s -> 0 */
	x = (double)s;
	w = x / -expm1(-x / (double)interval);
	return w >= 9.2e18 ? INT64_MAX : (int64_t)llround(w);
}

void rec_sample_init(struct rec_sample *s, enum sample_kind kind)
{
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->weight = s->alloc_size = s->tlab_size = REC_NONE;
	s->alloc_time_ns = s->object_age_ns = s->object_size = REC_NONE;
	s->last_heap_used = s->array_elements = REC_NONE;
	s->liveness = LIVE_UNKNOWN;
	s->death_ns = s->alloc_gc = s->death_gc = REC_NONE;
}

/* Indexed by enum ch_block_type: the wording of JDK 17's legend, which
 * 11 and 21+ share (only the letters moved). */
static const char *const ch_type_names[CHB__COUNT] = {
	[CHB_NONE] = "noType",
	[CHB_NMETHOD_BUILDING] = "nMethod (under construction)",
	[CHB_NMETHOD_ACTIVE] = "nMethod (active)",
	[CHB_NMETHOD_INACTIVE] = "nMethod (inactive)",
	[CHB_NMETHOD_DEOPT] = "nMethod (deopt)",
	[CHB_NMETHOD_ZOMBIE] = "nMethod (zombie)",
	[CHB_NMETHOD_UNLOADED] = "nMethod (unloaded)",
	[CHB_RUNTIME_STUB] = "runtime stub",
	[CHB_RICOCHET_STUB] = "ricochet stub",
	[CHB_DEOPT_STUB] = "deopt stub",
	[CHB_UNCOMMON_TRAP_STUB] = "uncommon trap stub",
	[CHB_EXCEPTION_STUB] = "exception stub",
	[CHB_SAFEPOINT_STUB] = "safepoint stub",
	[CHB_ADAPTER_BLOB] = "adapter blob",
	[CHB_MH_ADAPTER_BLOB] = "MH adapter blob",
	[CHB_BUFFER_BLOB] = "buffer blob",
	[CHB_STALE_BLOB] = "<stale blob>",
	[CHB_NMETHOD] = "nMethod",
	[CHB_UNKNOWN] = "unknown",
};

const char *ch_block_type_name(enum ch_block_type t)
{
	return (unsigned)t < CHB__COUNT ? ch_type_names[t] : "unknown";
}

enum ch_block_type ch_block_type_from_name(const char *s, size_t len)
{
	/* "nMethod (under construction), cannot be observed": the name
	 * is what comes before a comma */
	for (int t = 0; t < CHB__COUNT; t++) {
		size_t n = strlen(ch_type_names[t]);

		if (t != CHB_UNKNOWN && n <= len &&
		    !memcmp(ch_type_names[t], s, n) &&
		    (n == len || s[n] == ','))
			return (enum ch_block_type)t;
	}
	return CHB_UNKNOWN;
}

const char *ch_measure_name(enum ch_measure m)
{
	static const char *const n[CH__MEASURES] = {"count", "space", "age",
						    "type"};
	return (unsigned)m < CH__MEASURES ? n[m] : "unknown";
}

const char *ch_part_name(enum ch_part p)
{
	static const char *const n[CH__PARTS] = {"all",	     "tier1", "tier2",
						 "inactive", "stub",  "dead"};
	return (unsigned)p < CH__PARTS ? n[p] : "unknown";
}
