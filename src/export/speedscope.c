/*
 * speedscope's JSON file format (https://www.speedscope.app/
 * file-format-schema.json): the frames shared by every profile, then
 * one "sampled" profile per sample kind, each stack a sample (frames
 * from the outermost caller in) with its value as the weight.  The
 * profiles are per kind, not per thread: kinds are never mixed in
 * heapsift, and a thread's stacks are what --thread selects.
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

struct frames {
	struct hmap idx; /* site label (borrowed from its query) -> index */
	struct buf json; /* the "frames" array's items */
	size_t n;
};

static size_t frame_index(struct frames *f, struct query *q, uint32_t node,
			  struct buf *method)
{
	const char *site;
	int32_t line;
	uint64_t v;

	query_node_frame(q, node, method, &line, &site);
	if (hmap_get(&f->idx, site, strlen(site), &v))
		return (size_t)v;
	hmap_put(&f->idx, site, strlen(site), f->n, NULL);
	if (f->n)
		buf_adds(&f->json, ",\n");
	buf_adds(&f->json, "{\"name\":");
	buf_add_json(&f->json, site, strlen(site), BUF_JSON_PRINTABLE);
	if (line >= 0)
		buf_addf(&f->json, ",\"line\":%d", line);
	buf_addch(&f->json, '}');
	return f->n++;
}

int export_speedscope(struct query *const *queries, size_t n_queries,
		      enum export_value v, const char *name, struct buf *out,
		      struct err *e)
{
	struct frames fr;
	struct buf profiles = BUF_INIT, method = BUF_INIT;
	size_t qi, n_profiles = 0;
	size_t *idx = NULL, cap = 0;
	int rc = 0;

	hmap_init(&fr.idx);
	buf_init(&fr.json);
	fr.n = 0;
	for (qi = 0; qi < n_queries && rc == 0; qi++) {
		struct query *q = queries[qi];
		const struct query_stack *st;
		struct query_total total;
		struct buf smp = BUF_INIT, wts = BUF_INIT;
		double sum = 0;
		size_t n, k;
		bool fate, first = true;

		if (v == EXPORT_VALUE_OBJECTS &&
		    !query_kind_objects(query_kind(q)))
			continue;
		if (query_stacks(q, &st, &n, &fate, &total, e) < 0) {
			rc = ERR_FAIL;
			break;
		}
		for (k = 0; k < n; k++) {
			double w;
			size_t depth = 0, d;
			uint32_t node = st[k].stack;

			w = v == EXPORT_VALUE_SAMPLES ? (double)st[k].samples
			    : v == EXPORT_VALUE_BYTES ? (double)st[k].est_bytes
						      : st[k].est_objects;
			if (!(w > 0))
				continue;
			/* leaf first, then written reversed */
			do {
				const char *site;
				int32_t line;
				uint32_t up;

				if (depth == cap) {
					cap = cap ? 2 * cap : 64;
					idx = xreallocarray(idx, cap,
							    sizeof(*idx));
				}
				idx[depth++] =
					frame_index(&fr, q, node, &method);
				up = query_node_frame(q, node, &method, &line,
						      &site);
				node = up;
			} while (node);
			buf_adds(&smp, first ? "[" : ",[");
			buf_adds(&wts, first ? "" : ",");
			first = false;
			for (d = depth; d-- > 0;)
				buf_addf(&smp, "%zu%s", idx[d], d ? "," : "");
			buf_addch(&smp, ']');
			if (v == EXPORT_VALUE_OBJECTS)
				buf_addf(&wts, "%.6f", w);
			else
				buf_addf(&wts, "%.0f", w);
			sum += w;
		}
		if (n_profiles++)
			buf_adds(&profiles, ",\n");
		buf_adds(&profiles, "{\"type\":\"sampled\",\"name\":");
		{
			struct buf nm = BUF_INIT;

			buf_addf(&nm, "%s (%s)",
				 sample_kind_name(query_kind(q)),
				 export_value_name(v));
			buf_add_json(&profiles, nm.data, nm.len,
				     BUF_JSON_PRINTABLE);
			buf_release(&nm);
		}
		buf_addf(&profiles,
			 ",\"unit\":\"%s\",\"startValue\":0,"
			 "\"endValue\":%.*f,\n\"samples\":[%s],\n"
			 "\"weights\":[%s]}",
			 v == EXPORT_VALUE_BYTES ? "bytes" : "none",
			 v == EXPORT_VALUE_OBJECTS ? 6 : 0, sum, smp.data,
			 wts.data);
		buf_release(&smp);
		buf_release(&wts);
	}
	if (rc == 0 && !n_profiles)
		rc = err_set(e, ERR_USAGE,
			     "--value=objects: none of the kinds carries an "
			     "object count (only heapsift.AgentSample, "
			     "jdk.ObjectAllocationOutsideTLAB, "
			     "jdk.OldObjectSample and other writers' samples "
			     "do); use --value=bytes or --value=samples");
	if (rc == 0) {
		buf_adds(out, "{\"$schema\":\"https://www.speedscope.app/"
			      "file-format-schema.json\",\n\"name\":");
		buf_add_json(out, name, strlen(name), BUF_JSON_PRINTABLE);
		buf_addf(out,
			 ",\n\"exporter\":\"heapsift %s\",\n"
			 "\"activeProfileIndex\":0,\n"
			 "\"shared\":{\"frames\":[\n%s]},\n"
			 "\"profiles\":[\n%s]}\n",
			 HS_VERSION, fr.json.data, profiles.data);
	}
	free(idx);
	hmap_release(&fr.idx);
	buf_release(&fr.json);
	buf_release(&profiles);
	buf_release(&method);
	return rc;
}
