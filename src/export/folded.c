/*
 * Collapsed ("folded") stacks, the input of flamegraph.pl, inferno and
 * speedscope: one line a stack, frames from the outermost caller to the
 * allocating frame joined by ';', a space, and the value.  The value is
 * an integer (objects are rounded per line).  Each stack is written
 * once: stack nodes that print the same (frames told apart by what the
 * labels leave out, such as a bytecode index or how a method ran) are
 * added up into one line, in the order the first of them comes.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/hash.h"
#include "util/xalloc.h"

static const enum export_value value_table[] = {
	EXPORT_VALUE_BYTES, EXPORT_VALUE_SAMPLES, EXPORT_VALUE_OBJECTS};

bool export_value_parse(const char *s, enum export_value *v)
{
	size_t i;

	for (i = 0; i < sizeof(value_table) / sizeof(value_table[0]); i++)
		if (!strcmp(s, export_value_name(value_table[i]))) {
			*v = value_table[i];
			return true;
		}
	return false;
}

const char *export_value_word(size_t i)
{
	return i < sizeof(value_table) / sizeof(value_table[0])
		       ? export_value_name(value_table[i])
		       : NULL;
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

/* One line of the output: its frames, and the values added into it. */
struct folded_line {
	char *frames;
	size_t len;
	int64_t whole;	/* bytes or samples, held at INT64_MAX */
	double objects; /* fractions until the line is rounded */
};

/* a + b for values of 0 or more, held at INT64_MAX as every sum of
 * bytes is (docs/formats/jfr.md), never wrapped */
static int64_t add_held(int64_t a, int64_t b)
{
	return b > INT64_MAX - a ? INT64_MAX : a + b;
}

/* The frames of stack node's path, root first, as folded writes them. */
static void path_text(struct query *q, uint32_t stack, const char ***labels,
		      size_t *cap, struct buf *out)
{
	size_t depth, d;

	buf_reset(out);
	depth = query_path_frames(q, stack, *labels, *cap);
	if (depth > *cap) {
		*cap = depth;
		*labels = xreallocarray(*labels, *cap, sizeof(**labels));
		query_path_frames(q, stack, *labels, *cap);
	}
	if (!depth)
		buf_adds(out, "(no stack)");
	/* labels run from the allocating frame out: print reversed */
	for (d = depth; d-- > 0;) {
		export_folded_frame(out, (*labels)[d]);
		if (d)
			buf_addch(out, ';');
	}
}

int export_folded(struct query *q, enum export_value v, struct buf *out,
		  struct err *e)
{
	const struct query_stack *st;
	struct query_total total;
	const char **labels = NULL;
	struct folded_line *lines = NULL;
	struct buf text = BUF_INIT;
	struct hmap seen;
	size_t n, k, cap = 0, n_lines = 0;
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
	hmap_init(&seen);
	lines = xcalloc(n ? n : 1, sizeof(*lines));
	for (k = 0; k < n; k++) {
		int64_t whole = v == EXPORT_VALUE_SAMPLES
					? (int64_t)st[k].samples
					: st[k].est_bytes;
		uint64_t at;
		bool added;

		if (whole < 0)
			whole = 0;
		path_text(q, st[k].stack, &labels, &cap, &text);
		if (hmap_get(&seen, text.data, text.len, &at)) {
			lines[at].whole = add_held(lines[at].whole, whole);
			lines[at].objects += st[k].est_objects;
			continue;
		}
		lines[n_lines].frames = xmalloc(text.len + 1);
		memcpy(lines[n_lines].frames, text.data, text.len + 1);
		lines[n_lines].len = text.len;
		lines[n_lines].whole = whole;
		lines[n_lines].objects = st[k].est_objects;
		/* the key is the line's own copy, which lives as long */
		hmap_put(&seen, lines[n_lines].frames, text.len, n_lines,
			 &added);
		n_lines++;
	}
	for (k = 0; k < n_lines; k++) {
		/* objects are rounded here, once a line */
		long long val = v == EXPORT_VALUE_OBJECTS
					? llround(lines[k].objects)
					: (long long)lines[k].whole;

		if (val > 0) {
			buf_add(out, lines[k].frames, lines[k].len);
			buf_addf(out, " %lld\n", val);
		}
		free(lines[k].frames);
	}
	free(lines);
	hmap_release(&seen);
	buf_release(&text);
	free(labels);
	return 0;
}
