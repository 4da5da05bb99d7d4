/*
 * Collapsed ("folded") stacks, the input of flamegraph.pl, inferno and
 * speedscope: one line a stack, frames from the outermost caller to the
 * allocating frame joined by ';', a space, and the value.  The value is
 * an integer (objects are rounded per stack).  It does not merge stacks
 * that print the same: every reader adds up equal lines.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/xalloc.h"

bool export_value_parse(const char *s, enum export_value *v)
{
	if (!strcmp(s, "bytes"))
		*v = EXPORT_VALUE_BYTES;
	else if (!strcmp(s, "samples"))
		*v = EXPORT_VALUE_SAMPLES;
	else if (!strcmp(s, "objects"))
		*v = EXPORT_VALUE_OBJECTS;
	else
		return false;
	return true;
}

const char *export_value_name(enum export_value v)
{
	switch (v) {
	case EXPORT_VALUE_SAMPLES:
		return "samples";
	case EXPORT_VALUE_OBJECTS:
		return "objects";
	default:
		return "bytes";
	}
}

void export_folded_frame(struct buf *out, const char *label)
{
	struct buf p = BUF_INIT;
	size_t i;

	buf_add_printable(&p, label, strlen(label));
	for (i = 0; i < p.len; i++) {
		if (p.data[i] == ';')
			buf_adds(out, "\\x3b");
		else
			buf_addch(out, p.data[i]);
	}
	buf_release(&p);
}

int export_folded(struct query *q, enum export_value v, struct buf *out,
		  struct err *e)
{
	const struct query_stack *st;
	struct query_total total;
	const char **labels = NULL;
	size_t n, k, cap = 0;
	bool fate;

	if (v == EXPORT_VALUE_OBJECTS && !query_kind_objects(query_kind(q)))
		return err_set(e, ERR_USAGE,
			       "--value=objects: %s samples carry no object "
			       "count (only heapsift.AgentSample, "
			       "jdk.ObjectAllocationOutsideTLAB and "
			       "jdk.OldObjectSample do); use --value=bytes "
			       "or --value=samples",
			       sample_kind_name(query_kind(q)));
	if (query_stacks(q, &st, &n, &fate, &total, e) < 0)
		return ERR_FAIL;
	for (k = 0; k < n; k++) {
		long long val;
		size_t depth, d;

		switch (v) {
		case EXPORT_VALUE_SAMPLES:
			val = (long long)st[k].samples;
			break;
		case EXPORT_VALUE_OBJECTS:
			val = llround(st[k].est_objects);
			break;
		default:
			val = (long long)st[k].est_bytes;
		}
		if (val <= 0)
			continue;
		depth = query_path_frames(q, st[k].stack, labels, cap);
		if (depth > cap) {
			cap = depth;
			labels = xreallocarray(labels, cap, sizeof(*labels));
			query_path_frames(q, st[k].stack, labels, cap);
		}
		if (!depth) {
			buf_adds(out, "(no stack)");
		}
		/* labels run from the allocating frame out: print reversed */
		for (d = depth; d-- > 0;) {
			export_folded_frame(out, labels[d]);
			if (d)
				buf_addch(out, ';');
		}
		buf_addf(out, " %lld\n", val);
	}
	free(labels);
	return 0;
}
