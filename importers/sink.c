/*
 * Names for the record kinds of sink.h.
 */
#include "importers/sink.h"

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
	case SAMPLE__COUNT:
		break;
	}
	return "unknown";
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
