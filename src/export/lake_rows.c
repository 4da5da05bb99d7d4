/*
 * One store's rows for the fleet lake: for each recording its id and
 * day, then its samples (a pass over the blocks that hold them, through
 * the query layer's cursor: never all in memory), the stacks they use,
 * each once, as frame ids, the frames those name, and last its row of
 * the recordings table.  Where the rows go is the lake's to say
 * (route()).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "export/lake_int.h"
#include "query/query.h"
#include "record/record.h"
#include "util/err.h"
#include "util/xalloc.h"
#include "util/xxh64.h"

#define HEAPSIFT_VERSION_TEXT "heapsift " HS_VERSION

struct rows {
	struct query *q;
	struct query_cursor *c;
	const char *case_id, *host;
	unsigned char *used; /* [query_n_stacks]: the recording's stacks */
	/* [query_n_stacks]: a node's site label, once looked up
	 * (query_node_frame() writes the method's text too: not for
	 * every sample) */
	const char **site;
	struct hmap frame_ids; /* site label -> frame id, per recording */
	uint64_t n_frames;
	struct buf m, ids;
	struct err *e;
};

static void hash_str(struct xxh64 *h, const char *s)
{
	xxh64_update(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

static void hash_i64(struct xxh64 *h, int64_t v)
{
	unsigned char b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)((uint64_t)v >> (8 * i));
	xxh64_update(h, b, 8);
}

static bool time_known(int64_t t)
{
	return t != REC_NONE && t > 0;
}

/*
 * What the JVM recorded, whatever the file was called: its format, JVM,
 * start and end (nanoseconds), chunks, settings and samples of each
 * kind.  Two copies of one recording, or two imports of it, give one
 * id; two recordings of one JVM differ in their start or end.  Where
 * the start is not known (a report without a time), the input's name
 * is added, so that two such reports are not taken for one.
 */
static uint64_t recording_id(struct query *q, uint32_t r,
			     const struct query_recording *x)
{
	const char **names = NULL, **values = NULL;
	const struct query_recording *counts;
	struct xxh64 h;
	size_t i, n;
	int k;

	xxh64_init(&h, 0x6c616b6532ull); /* "lake2" */
	hash_str(&h, x->format);
	hash_str(&h, x->jvm_name);
	hash_str(&h, x->jvm_version);
	hash_i64(&h, x->start_ns);
	hash_i64(&h, x->end_ns);
	hash_i64(&h, x->n_chunks);
	n = query_settings(q, r, &names, &values);
	for (i = 0; i < n; i++) {
		hash_str(&h, names[i]);
		hash_str(&h, values[i]);
	}
	free(names);
	free(values);
	query_recordings(q, &counts, &n);
	for (k = 0; r < n && k < SAMPLE__COUNT; k++)
		hash_i64(&h, (int64_t)counts[r].samples[k]);
	if (!time_known(x->start_ns))
		hash_str(&h, x->source);
	return xxh64_value(&h);
}

/* The recording's day: its start's, else its first sample's ("" none). */
static int recording_day(struct rows *w, uint32_t r,
			 const struct query_recording *x, char day[11])
{
	int64_t t = x->start_ns;
	time_t secs;
	struct tm tm;

	day[0] = '\0';
	if (!time_known(t)) {
		struct query_sample y;
		int more = query_cursor_rewind(w->c, r, w->e);

		if (more >= 0)
			more = query_cursor_next(w->c, &y, w->e);
		if (more < 0)
			return ERR_FAIL;
		if (more == 0 || !time_known(y.time_ns))
			return 0;
		t = y.time_ns;
	}
	secs = (time_t)(t / 1000000000);
	if (!gmtime_r(&secs, &tm) || tm.tm_year + 1900 > 9999 ||
	    tm.tm_year + 1900 < 1970)
		return 0;
	{
		char text[48];

		snprintf(text, sizeof(text), "%04d-%02d-%02d",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
		memcpy(day, text, 10);
		day[10] = '\0';
	}
	return 0;
}

static void sample_row(struct rows *w, struct lake_out *o, const char *rid,
		       const struct query_sample *y)
{
	int64_t bytes = y->bytes == REC_NONE ? 0 : y->bytes;
	const char *site = w->site[y->stack];
	int32_t line;

	if (!site) {
		query_node_frame(w->q, y->stack, &w->m, &line, &site);
		w->site[y->stack] = site;
	}
	lake_out_text(o, rid);
	lake_out_text(o, w->host);
	lake_out_int(o, y->time_ns);
	lake_out_text(o, sample_kind_name(y->kind));
	lake_out_text(o, y->thread);
	lake_out_text(o, y->cls);
	lake_out_text(o, y->stack ? site : "(no stack)");
	lake_out_int(o, y->stack);
	lake_out_int(o, y->est_bytes);
	lake_out_int(o, bytes);
	lake_out_text(o, y->alloc_estimate);
	if (sample_kind_ht(y->kind) && y->size > 0)
		lake_out_double(o, (double)bytes / (double)y->size);
	else if (query_kind_objects(y->kind))
		lake_out_double(o, 1.0);
	else
		lake_out_null(o);
	lake_out_int(o, y->size);
	lake_out_bool(o, y->truncated);
	lake_out_text(o, y->fate);
	lake_out_int(o, y->fate ? y->death_ns : REC_NONE);
	lake_out_end(o);
	w->used[y->stack] = 1;
}

/* A frame's id in the recording: its first row in frames when new. */
static uint64_t frame_id(struct rows *w, struct lake_out *fo, const char *rid,
			 const char *site, int32_t line)
{
	uint64_t id;

	if (hmap_get(&w->frame_ids, site, strlen(site), &id))
		return id;
	id = ++w->n_frames;
	hmap_put(&w->frame_ids, site, strlen(site), id, NULL); /* q's text */
	lake_out_text(fo, rid);
	lake_out_u64(fo, id);
	lake_out_text(fo, site);
	lake_out_text(fo, w->m.data);
	lake_out_int(fo, line >= 0 ? line : REC_NONE);
	lake_out_end(fo);
	return id;
}

/* The stacks the recording's samples used, each once: their frames from
 * the allocating one out to the outermost caller, as frame ids. */
static void stack_rows(struct rows *w, struct lake_out *so, struct lake_out *fo,
		       const char *rid)
{
	uint32_t node, n = query_n_stacks(w->q);

	for (node = 1; node < n; node++) {
		uint32_t at = node, depth = 0;

		if (!w->used[node])
			continue;
		w->used[node] = 0; /* for the next recording */
		buf_reset(&w->ids);
		while (at) {
			const char *site;
			int32_t line;
			uint32_t up =
				query_node_frame(w->q, at, &w->m, &line, &site);

			if (depth++)
				buf_addch(&w->ids, ';');
			buf_add_u64(&w->ids, frame_id(w, fo, rid, site, line));
			at = up;
		}
		lake_out_text(so, rid);
		lake_out_u64(so, node);
		lake_out_u64(so, depth);
		lake_out_text(so, w->ids.data);
		lake_out_end(so);
	}
	w->used[0] = 0;
}

static void recording_row(struct rows *w, struct lake_out *o, const char *rid,
			  const struct query_recording *x, uint64_t n,
			  const char *alloc_estimate)
{
	lake_out_text(o, rid);
	lake_out_text(o, w->case_id);
	lake_out_text(o, w->host);
	lake_out_text(o, x->source);
	lake_out_text(o, x->format);
	lake_out_text(o, x->jvm_name);
	lake_out_text(o, x->jvm_version);
	lake_out_int(o, x->start_ns);
	lake_out_int(o, x->end_ns);
	lake_out_u64(o, x->n_chunks);
	lake_out_u64(o, x->bytes_skipped);
	lake_out_u64(o, n);
	lake_out_text(o, alloc_estimate);
	lake_out_u64(o, LAKE_SCHEMA_VERSION);
	lake_out_text(o, HEAPSIFT_VERSION_TEXT);
	lake_out_end(o);
}

/* Recording r's rows into outs[]. */
static int one_recording(struct rows *w, struct lake_rec *lr,
			 struct lake_out **outs,
			 const struct query_recording *x)
{
	const char *alloc_estimate = NULL;
	struct query_sample y;
	char rid[17];
	int more;

	lake_id_hex(rid, lr->id);
	hmap_release(&w->frame_ids);
	hmap_init(&w->frame_ids);
	w->n_frames = 0;
	more = query_cursor_rewind(w->c, lr->rec, w->e);
	while (more >= 0 && (more = query_cursor_next(w->c, &y, w->e)) > 0) {
		sample_row(w, outs[LT_SAMPLES], rid, &y);
		lr->samples++;
		if (y.alloc_estimate &&
		    (!alloc_estimate || y.kind == SAMPLE_ALLOC))
			alloc_estimate = y.alloc_estimate;
	}
	if (more < 0)
		return ERR_FAIL; /* the store changed under us: checked first */
	stack_rows(w, outs[LT_STACKS], outs[LT_FRAMES], rid);
	recording_row(w, outs[LT_RECORDINGS], rid, x, lr->samples,
		      alloc_estimate);
	return 0;
}

int lake_store_rows(struct store *s, const char *case_id, const char *host,
		    lake_route_fn *route, void *ctx, struct err *e)
{
	struct rows w = {.case_id = case_id, .host = host, .e = e};
	struct query_options qo;
	uint32_t r, n;
	int rc = 0;

	query_options_init(&qo);
	if (query_open(s, &qo, &w.q, e) < 0)
		return ERR_FAIL;
	if (query_cursor_new(w.q, &w.c, e) < 0) {
		query_free(w.q);
		return ERR_FAIL;
	}
	n = query_n_stacks(w.q);
	w.used = xcalloc(n ? n : 1, 1);
	w.site = xcalloc(n ? n : 1, sizeof(*w.site));
	hmap_init(&w.frame_ids);
	buf_init(&w.m);
	buf_init(&w.ids);
	n = query_n_recordings(w.q);
	for (r = 0; r < n && rc == 0; r++) {
		struct lake_rec lr = {.rec = r};
		struct query_recording x;
		struct lake_out **outs;

		query_recording_facts(w.q, r, &x);
		lr.id = recording_id(w.q, r, &x);
		if ((rc = recording_day(&w, r, &x, lr.day)) < 0)
			break;
		outs = route(ctx, &lr);
		if (!outs) {
			if (err_isset(e))
				rc = ERR_FAIL;
			continue;
		}
		rc = one_recording(&w, &lr, outs, &x);
	}
	query_cursor_free(w.c);
	free(w.used);
	free(w.site);
	hmap_release(&w.frame_ids);
	buf_release(&w.m);
	buf_release(&w.ids);
	query_free(w.q);
	return rc;
}
