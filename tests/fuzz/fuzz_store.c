/*
 * libFuzzer harness for opening and reading a store: any bytes as an
 * .hsdb, every section asked for, and a query with every group-by, a
 * tree and a timeline run over whatever was accepted; the report's
 * findings and the diff of its first two recordings as the report and
 * diff commands run them (lazily checked), and call paths under both
 * estimates.  A store that passes its checks must never make a query
 * read out of bounds.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/store/store_format.h"
#include "query/query_codeheap.h"
#include "query/diff.h"
#include "findings/findings.h"
#include "query/query.h"
#include "store/store.h"
#include "util/crc32c.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Most mutations break a checksum, and the reader rightly stops there.
 * So that the fuzzer also reaches the structure and reference checks
 * behind them, half the inputs get their checksums recomputed first
 * (where the header and table are sane enough to find them).
 */
static const struct store_toc_entry *
find_section(const struct store_toc_entry *toc, uint32_t n, uint32_t id,
	     size_t size)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (toc[i].id == id && toc[i].offset <= size &&
		    toc[i].length <= size - toc[i].offset &&
		    toc[i].offset % 8 == 0)
			return &toc[i];
	return NULL;
}

/* The sample blocks' own checksums too, in the sample index, so that
 * the block decoder's checks are reached. */
static void fix_block_checksums(unsigned char *p, size_t size,
				const struct store_toc_entry *toc, uint32_t n)
{
	const struct store_toc_entry *ix =
		find_section(toc, n, SEC_SAMPLE_INDEX, size);
	const struct store_toc_entry *bl =
		find_section(toc, n, SEC_SAMPLE_BLOCKS, size);
	uint64_t i;

	if (!ix || !bl)
		return;
	for (i = 0; i + sizeof(struct store_block) <= ix->length;
	     i += sizeof(struct store_block)) {
		struct store_block b;

		memcpy(&b, p + ix->offset + i, sizeof(b));
		if (b.offset > bl->length || b.length > bl->length - b.offset)
			continue;
		b.crc = crc32c_update(0, p + bl->offset + b.offset, b.length);
		memcpy(p + ix->offset + i, &b, sizeof(b));
	}
}

/* The rollup buckets' checksums of their rows (store 2.1; the whole
 * recordings', 3.1), so that the rows' own checks and the views' row
 * passes are reached. */
static void fix_rollup_checksums(unsigned char *p, size_t size,
				 const struct store_toc_entry *toc, uint32_t n,
				 uint32_t buckets, uint32_t rows)
{
	const struct store_toc_entry *bk = find_section(toc, n, buckets, size);
	const struct store_toc_entry *rw = find_section(toc, n, rows, size);
	const size_t row = sizeof(struct store_rollup_row);
	uint64_t i, n_rows;

	if (!bk || !rw)
		return;
	n_rows = rw->length / row;
	for (i = 0; i + sizeof(struct store_rollup_bucket) <= bk->length;
	     i += sizeof(struct store_rollup_bucket)) {
		struct store_rollup_bucket b;

		memcpy(&b, p + bk->offset + i, sizeof(b));
		if (b.first_row > n_rows || b.n_rows > n_rows - b.first_row)
			continue;
		b.crc = crc32c_update(0, p + rw->offset + b.first_row * row,
				      (size_t)b.n_rows * row);
		memcpy(p + bk->offset + i, &b, sizeof(b));
	}
}

static void fix_checksums(unsigned char *p, size_t size)
{
	struct store_header h;
	struct store_toc_entry *toc;
	uint64_t i;

	if (size < STORE_HEADER_LEN)
		return;
	memcpy(&h, p, sizeof(h));
	if (h.toc_offset > size || h.n_sections > 64 ||
	    h.n_sections * (uint64_t)STORE_TOC_ENTRY_LEN >
		    size - h.toc_offset ||
	    h.toc_offset % 8)
		return;
	toc = (struct store_toc_entry *)(p + h.toc_offset);
	fix_block_checksums(p, size, toc, h.n_sections);
	fix_rollup_checksums(p, size, toc, h.n_sections, SEC_ROLLUP_BUCKETS,
			     SEC_ROLLUP_ROWS);
	fix_rollup_checksums(p, size, toc, h.n_sections, SEC_WHOLE_BUCKETS,
			     SEC_WHOLE_ROWS);
	for (i = 0; i < h.n_sections; i++)
		if (toc[i].offset <= size &&
		    toc[i].length <= size - toc[i].offset)
			toc[i].crc = crc32c_update(0, p + toc[i].offset,
						   (size_t)toc[i].length);
	h.toc_crc = crc32c_update(0, toc, h.n_sections * STORE_TOC_ENTRY_LEN);
	h.file_len = size;
	h.header_crc = 0;
	h.header_crc = crc32c_update(0, &h, sizeof(h));
	memcpy(p, &h, sizeof(h));
}

/* Every code-heap query over every heap: facts, merged maps of every
 * flavour, every granule's detail, and each snapshot against the next. */
static void touch_codeheaps(struct store *s)
{
	struct chq *cq;
	struct err e;
	uint32_t h, f;

	err_init(&e);
	if (chq_open(s, &cq, &e) < 0)
		return;
	for (h = 0; h < chq_n_heaps(cq); h++) {
		struct ch_facts facts;
		struct ch_granule gr;
		uint64_t g;

		chq_facts(cq, h, &facts);
		for (f = 0; f < CHQ__FLAVOURS; f++) {
			uint32_t n = chq_map_len(cq, h, (enum chq_flavour)f);
			uint8_t *out = malloc(n + 1);

			if (out) {
				uint32_t k, c = chq_map_merged(
						    cq, h, (enum chq_flavour)f,
						    3, out, n);

				for (k = 0; k < c; k++)
					(void)chq_cell_char((enum chq_flavour)f,
							    out[k]);
				free(out);
			}
		}
		for (g = 0; g < 4096 && chq_granule(cq, h, g, &gr); g++)
			(void)chq_sorted_block(cq, h, gr.first_block);
		if (chq_n_snapshots(cq) > 1)
			(void)chq_match_heap(cq, 1, h);
	}
	chq_free(cq);
}

/* What heapsift report and heapsift diff read of a store, before any
 * full check, as they do: every rule's findings, and recording 0
 * against recording 1 by site, as trees and as survivors. */
static void touch_report_diff(struct store *s)
{
	struct query_options ob, on;
	struct diff_options dopt;
	struct findings fs;
	struct query *qb, *qn;
	struct err e;

	err_init(&e);
	query_options_init(&ob);
	memset(&fs, 0, sizeof(fs));
	if (query_findings(s, &ob, "fuzz.hsdb", "", &fs, &e) == 0)
		findings_release(&fs);
	query_options_init(&on);
	ob.recording = 0;
	on.recording = 1;
	if (query_open(s, &ob, &qb, &e) < 0)
		return;
	if (query_open(s, &on, &qn, &e) == 0) {
		struct diff *d;

		diff_options_init(&dopt);
		dopt.total = true;
		if (diff_open(qb, &ob, qn, &on, &dopt, &d, &e) == 0) {
			const struct diff_table *t;
			struct query_survivor_options so;

			diff_top(d, GROUP_SITE, &t, &e);
			diff_tree(d, false, 0, &t, &e);
			diff_tree(d, true, 6, &t, &e);
			memset(&so, 0, sizeof(so));
			diff_survivors(d, GROUP_SITE, &so, &t, &e);
			diff_free(d);
		}
		query_free(qn);
	}
	query_free(qb);
}

/* The call paths and their frames under both estimates of
 * ObjectAllocationSample's bytes (the corrected one reads the rests). */
static void touch_paths(struct store *s)
{
	int est;

	for (est = QUERY_EST_JFR; est <= QUERY_EST_CORRECTED; est++) {
		struct query_options o;
		struct query *q;
		struct err e;

		err_init(&e);
		query_options_init(&o);
		o.estimate = est;
		if (query_open(s, &o, &q, &e) == 0) {
			const struct query_path *p;
			const char *labels[16];
			struct query_total t;
			size_t n, all, i;

			if (query_paths(q, 8, &p, &n, &all, &t, &e) == 0)
				for (i = 0; i < n; i++)
					(void)query_path_frames(q, p[i].stack,
								labels, 16);
			query_free(q);
		}
	}
}

/* As the browser does: the kind held decoded, a filter that some
 * classes pass (its first pass may copy them out), the application
 * sites made on first use, the call paths and both trees made as they
 * are opened, the root's children first. */
static void touch_held(struct store *s)
{
	struct query_options o;
	struct query *q;
	struct err e;

	err_init(&e);
	query_options_init(&o);
	o.class_re = "^[a-m]";
	if (query_open(s, &o, &q, &e) == 0) {
		const struct query_row *rows;
		const struct query_path *p;
		const struct query_tree_node *nodes;
		struct query_total t;
		size_t n, all;
		int inv;

		if (query_hold(q, &e) == 0) {
			/* a drill-down into the first site, held: the
			 * first pass's sieve by trie node (node_sieve) */
			if (query_top(q, GROUP_SITE, &rows, &n, &t, &e) == 0 &&
			    n) {
				struct query_options od;
				struct query *qd;

				query_options_init(&od);
				od.key = rows[0].key;
				od.key_by = GROUP_SITE;
				if (query_open(s, &od, &qd, &e) == 0) {
					if (query_hold(qd, &e) == 0) {
						query_top(qd, GROUP_CLASS,
							  &rows, &n, &t, &e);
						query_paths(qd, 8, &p, &n, &all,
							    &t, &e);
					}
					query_free(qd);
				}
			}
			query_top(q, GROUP_APP_SITE, &rows, &n, &t, &e);
			query_top(q, GROUP_THREAD, &rows, &n, &t, &e);
			query_paths(q, 8, &p, &n, &all, &t, &e);
			for (inv = 0; inv < 2; inv++) {
				const char *const *labels;
				size_t ns = query_tree_labels(q, &labels), i;
				unsigned char *ok;

				if (query_tree_lazy(q, inv, &nodes, &n, &all,
						    &t, &e) < 0)
					continue;
				if (n &&
				    nodes[0].first_child == QUERY_TREE_LATER)
					query_tree_children(q, inv, 0, &nodes,
							    &n);
				/* the \ filter: every other site matches */
				ok = calloc(ns + 1, 1);
				if (!ok)
					continue;
				for (i = 0; i < ns; i++)
					ok[i] = (unsigned char)(i & 1);
				(void)query_tree_lazy_filter(q, inv, ok);
				for (i = 0; i < n; i++)
					(void)query_tree_lazy_kept(q, inv,
								   (uint32_t)i);
				free(ok);
			}
		}
		query_free(q);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* aligned copy of exactly size bytes: ASan sees any over-read */
	void *copy = aligned_alloc(8, (size + 7) / 8 * 8 + 8);
	struct store *s;
	struct query *q;
	struct query_options o;
	struct err e;

	memcpy(copy, data, size);
	if (size && (data[size - 1] & 1))
		fix_checksums(copy, size);
	{
		/* HS_FUZZ_STORE_OUT=FILE: the store as read, checksums
		 * fixed, for fixtures/store/fuzz/ (a crash input is not a
		 * store heapsift opens until then) */
		const char *out = getenv("HS_FUZZ_STORE_OUT");
		FILE *f = out && *out ? fopen(out, "wb") : NULL;

		if (f) {
			fwrite(copy, 1, size, f);
			fclose(f);
		}
	}
	err_init(&e);
	if (store_open_memory("fuzz.hsdb", copy, size, &s, &e) == 0) {
		/* first as a view does: only what it needs checked, lazily */
		query_options_init(&o);
		if (query_open(s, &o, &q, &e) == 0) {
			const struct query_row *rows;
			const struct query_recording *recs;
			struct query_total t;
			size_t n;

			query_top(q, GROUP_SITE, &rows, &n, &t, &e);
			query_recordings(q, &recs, &n);
			query_free(q);
		}
		touch_report_diff(s);
		touch_paths(s);
		touch_held(s);
		/* a time range: whole rollup buckets and samples at its
		 * edges, without the full check first */
		query_options_init(&o);
		o.from_ns = 1000;
		o.to_ns = INT64_MAX / 2;
		o.thread_re = "a";
		if (query_open(s, &o, &q, &e) == 0) {
			const struct query_tree_node *nodes;
			const struct query_bucket *b;
			struct query_total t;
			size_t n;
			int64_t w = 0;

			query_tree(q, false, 0, &nodes, &n, &t, &e);
			query_timeline(q, &w, &b, &n, &t, &e);
			query_free(q);
		}
		if (store_verify(s, &e) == 0) {
			query_options_init(&o);
			o.include_re = "a";
			if (query_open(s, &o, &q, &e) == 0) {
				const struct query_row *rows;
				const struct query_tree_node *nodes;
				const struct query_bucket *b;
				struct query_total t;
				size_t n;
				int64_t w = 0;
				int g;

				for (g = GROUP_CLASS; g <= GROUP_RECORDING; g++)
					query_top(q, g, &rows, &n, &t, &e);
				query_tree(q, false, 0, &nodes, &n, &t, &e);
				query_tree(q, true, 8, &nodes, &n, &t, &e);
				query_timeline(q, &w, &b, &n, &t, &e);
				query_free(q);
			}
			/* survivors, over the kinds that have liveness */
			for (int k = SAMPLE_OLD_OBJECT; k <= SAMPLE_AGENT;
			     k++) {
				query_options_init(&o);
				o.kind = k;
				if (query_open(s, &o, &q, &e) == 0) {
					const struct query_survivors *sv;
					const struct query_survivor_series
						*const *r;
					struct query_survivor_options so;

					memset(&so, 0, sizeof(so));
					query_survivors(q, GROUP_SITE, &so, &sv,
							&e);
					query_leak_suspects(q, &r);
					so.cohort = COHORT_GCS;
					so.min_gcs = 1;
					so.before_last_gc = true;
					query_survivors(q, GROUP_CLASS, &so,
							&sv, &e);
					so.cohort = COHORT_AGE;
					so.bucket_ns = 1000;
					query_survivors(q, GROUP_THREAD, &so,
							&sv, &e);
					query_free(q);
				}
			}
			touch_codeheaps(s);
			touch_paths(s);
		}
		store_close(s);
	}
	free(copy);
	return 0;
}
