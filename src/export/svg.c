/*
 * The flame graph as one SVG file: the triage report's drawing
 * (util/flame.h) of query_flame()'s nodes, standalone, over the
 * caller's query, with the lines that say where the samples came from:
 * each recording that holds some of them, its span and its JVM.
 * Nothing is drawn here.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/flame.h"
#include "util/human.h"

/* The most recordings named one a line; the rest are counted. */
#define SVG_MAX_RECORDINGS 4

/* "rec.jfr: 2024-05-01T12:00:00.000Z, 90.0 s, OpenJDK ... 17.0.15+6"
 * for each recording whose samples pass the filters, '\n' between. */
static int recording_lines(struct query *q, struct buf *out, struct err *e)
{
	const struct query_row *rows;
	struct query_total total;
	size_t n, i;

	if (query_top(q, GROUP_RECORDING, &rows, &n, &total, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < n && i < SVG_MAX_RECORDINGS; i++) {
		struct query_recording r;
		char *end;
		unsigned long rec = strtoul(rows[i].key, &end, 10);
		char t[HUMAN_TIME_SIZE];

		if (end == rows[i].key || *end != ':' ||
		    rec >= query_n_recordings(q))
			continue;
		query_recording_facts(q, (uint32_t)rec, &r);
		buf_addf(out, "%sRecording ", out->len ? "\n" : "");
		if (n > 1)
			buf_addf(out, "%lu ", rec);
		buf_addf(out, "%s: ", r.source);
		buf_adds(out, human_time(r.start_ns, 3, "start not recorded", t,
					 sizeof(t)));
		if (r.start_ns != INT64_MIN && r.end_ns >= r.start_ns)
			buf_addf(out, ", %.1f s",
				 (double)(r.end_ns - r.start_ns) / 1e9);
		buf_adds(out, ", JVM ");
		if (!*r.jvm_name && !*r.jvm_version)
			buf_adds(out, "not recorded");
		if (*r.jvm_name &&
		    !human_version_has_name(r.jvm_name, r.jvm_version))
			buf_addf(out, "%s%s", r.jvm_name,
				 *r.jvm_version ? " " : "");
		buf_adds(out, r.jvm_version);
	}
	if (n > SVG_MAX_RECORDINGS)
		buf_addf(out, "\nand %zu more recordings",
			 n - SVG_MAX_RECORDINGS);
	return 0;
}

int export_svg(struct query *q, struct buf *out, struct err *e)
{
	struct flame_node *fl;
	struct buf lines = BUF_INIT;
	struct flame_info in = {
		.kind = sample_kind_name(query_kind(q)),
		.unit = "bytes",
		.library_re = QUERY_LIBRARY_DEFAULT,
		.standalone = true,
	};
	size_t n;

	if (query_flame(q, &fl, &n, e) < 0)
		return ERR_FAIL;
	if (!n)
		return err_set(e, ERR_USAGE,
			       "--format=svg: the %s samples that pass the "
			       "filters carry no bytes: nothing to draw",
			       in.kind);
	if (recording_lines(q, &lines, e) < 0) {
		flame_free(fl, n);
		buf_release(&lines);
		return ERR_FAIL;
	}
	in.lines = lines.data;
	flame_svg(out, fl, n, &in);
	flame_free(fl, n);
	buf_release(&lines);
	return 0;
}
