/*
 * Names for the record kinds of sink.h.
 */
#include "importers/sink.h"

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
