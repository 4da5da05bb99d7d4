/*
 * heapsift export: a store as a normalized set of CSV tables (RFC 4180,
 * a header row, CRLF line ends) that load unchanged into sqlite3
 * (.import --csv) or any SQL engine.  The tables and columns are a
 * contract, documented in docs/export.md.  Each file is written to a
 * temporary name and renamed, so a reader never sees half a table.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cache.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/view.h"
#include "export/export.h"
#include "record/record.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/xalloc.h"

static const char export_help[] =
	"usage: heapsift export CASE.hsdb|INPUT... --format=csv -o DIR "
	"[--force]\n"
	"       heapsift export CASE.hsdb|INPUT... --format=csv "
	"--layout=fleet\n"
	"              -o DIR"
	" [--id=ID] [--host=NAME] [--gzip] [--force]\n"
	"       heapsift export CASE.hsdb|INPUT... --format=FORMAT [-o FILE]\n"
	"              [--force]"
	" [--value=VALUE] [FILTERS]\n"
	"\n"
	"--format=csv writes the store as CSV tables into DIR (created if\n"
	"missing): recordings, settings, threads, classes, methods, frames,\n"
	"stacks, samples, old_objects, heap_summaries, liveness, gcs,\n"
	"codeheap_snapshots, codeheaps, codeheap_blocks, codeheap_stats.\n"
	"docs/export.md describes every column; the tables join on their\n"
	"id columns.\n"
	"DIR must be new, empty, or hold nothing but files export writes\n"
	"(they are replaced); a folder with other files only with --force\n"
	"(they are left alone); a file, symbolic link or device never.\n"
	"--layout=fleet writes one folder a recording instead,\n"
	"DIR/recording=ID/ (Hive style), for DuckDB, Spark or Trino over\n"
	"many stores: fleet_samples, fleet_stacks, fleet_stack_frames,\n"
	"fleet_recordings (docs/export.md, Fleet layout).\n"
	"\n"
	"The other formats write one file (standard output without -o) of\n"
	"the samples of one kind that pass the filters:\n"
	"  folded      collapsed stacks for flamegraph.pl, inferno, "
	"speedscope\n"
	"  pprof       gzipped profile.proto for go tool pprof\n"
	"  speedscope  speedscope's JSON, one profile per sample kind\n"
	"  svg         the report's flame graph, as one SVG file\n"
	"\n" CLI_STORE_OPERAND_HELP "\n"
	"      --format=FORMAT  csv, folded, pprof, speedscope or svg\n"
	"  -o, --output=PATH    the folder (csv) or file to write\n"
	"      --force          write into a folder that holds other files,\n"
	"                       or replace a file\n"
	"      --value=VALUE    folded and speedscope: bytes (estimated, the\n"
	"                       default), samples, or objects (estimated;\n"
	"                       agent, outside and old samples only)\n"
	"      --layout=LAYOUT  csv: tables (the default) or fleet\n"
	"      --id=ID          fleet: the recordings' id, ID-N for the\n"
	"                       store's recording N (default: the store's\n"
	"                       file name without .hsdb)\n"
	"      --host=NAME      fleet: the host column (default: empty)\n"
	"      --gzip           fleet: write TABLE.csv.gz\n"
	"  -h, --help           this text\n"
	"\n" VIEW_FILTER_HELP;

/* Every file export writes (cli_output_check lets these be replaced). */
static const char *const export_files[] = {
	"recordings.csv",
	"settings.csv",
	"threads.csv",
	"classes.csv",
	"methods.csv",
	"frames.csv",
	"stacks.csv",
	"samples.csv",
	"old_objects.csv",
	"heap_summaries.csv",
	"liveness.csv",
	"gcs.csv",
	"codeheap_snapshots.csv",
	"codeheaps.csv",
	"codeheap_blocks.csv",
	"codeheap_stats.csv",
	NULL,
};

/* The fleet layout writes only folders recording=ID/ into DIR. */
static const char *const fleet_files[] = {"recording=*", NULL};

/* After one file could not be created or written (a full disk), the
 * others are not tried: one message, not one a table. */
static bool create_failed;

struct table {
	FILE *f;
	struct buf path, tmp, row;
	bool failed;
	int errnum;	/* the first failure's */
	bool abandoned; /* the store could not be read: said already */
};

static int table_open(struct table *t, const char *dir, const char *name,
		      const char *header)
{
	buf_init(&t->path);
	buf_init(&t->tmp);
	buf_init(&t->row);
	buf_addf(&t->path, "%s/%s.csv", dir, name);
	buf_addf(&t->tmp, "%s/.%s.csv.tmp%ld", dir, name, (long)getpid());
	t->failed = false;
	t->errnum = 0;
	t->abandoned = false;
	t->f = create_failed ? NULL : fopen(t->tmp.data, "wb");
	if (!t->f) {
		if (create_failed) {
			buf_release(&t->path);
			buf_release(&t->tmp);
			return -1;
		}
		create_failed = true;
		fprintf(stderr,
			"heapsift export: error: writing %s (creating %s): "
			"%s\n",
			t->path.data, t->tmp.data, err_io_reason(errno));
		buf_release(&t->path);
		buf_release(&t->tmp);
		buf_release(&t->row);
		return -1;
	}
	die_unlink_add(t->tmp.data);
	fprintf(t->f, "%s\r\n", header);
	return 0;
}

static void field_str(struct table *t, const char *s, bool last)
{
	struct buf p = BUF_INIT;

	buf_add_printable(&p, s, strlen(s));
	buf_add_csv_text(&t->row, p.data, p.len);
	buf_release(&p);
	buf_adds(&t->row, last ? "\r\n" : ",");
}

static void field_end(struct table *t, bool last)
{
	if (last)
		buf_add(&t->row, "\r\n", 2);
	else
		buf_addch(&t->row, ',');
}

static void field_int(struct table *t, int64_t v, bool last)
{
	if (v != REC_NONE)
		buf_add_i64(&t->row, v);
	field_end(t, last);
}

static void field_ref(struct table *t, uint32_t v, bool last)
{
	if (v != STORE_NONE)
		buf_add_u64(&t->row, v);
	field_end(t, last);
}

static void row_flush(struct table *t)
{
	if (fwrite(t->row.data, 1, t->row.len, t->f) != t->row.len &&
	    !t->failed) {
		t->failed = true;
		t->errnum = errno ? errno : EIO;
	}
	buf_reset(&t->row);
}

/* A row is done: out when the rows gathered pass 64 KiB (one fwrite a
 * row was a tenth of the samples table's time). */
static void row_end(struct table *t)
{
	if (t->row.len >= 65536)
		row_flush(t);
}

static int table_close(struct table *t)
{
	int errnum;

	row_flush(t);
	errnum = t->failed ? t->errnum : 0;
	if (ferror(t->f) && !errnum)
		errnum = EIO;
	if ((fflush(t->f) || fsync(fileno(t->f))) && !errnum)
		errnum = errno;
	/* always, so the descriptor is never leaked */
	if (fclose(t->f) && !errnum)
		errnum = errno;
	if (!errnum && !t->abandoned && rename(t->tmp.data, t->path.data) < 0)
		errnum = errno;
	if (t->abandoned) {
		unlink(t->tmp.data);
		errnum = -1;
	} else if (errnum) {
		fprintf(stderr, "heapsift export: error: writing %s: %s\n",
			t->path.data, err_io_reason(errnum));
		unlink(t->tmp.data);
		create_failed = true;
	}
	die_unlink_remove(t->tmp.data);
	buf_release(&t->path);
	buf_release(&t->tmp);
	buf_release(&t->row);
	return errnum ? -1 : 0;
}

/*
 * The samples table, from a pass over the store's blocks in seq order
 * (store_cursor): a block of each kind in memory, not every sample, so
 * that a store of any size exports in the memory of a small one.  The
 * kinds' names are escaped once, not once a sample.
 */
static int export_samples(struct table *t, struct store *s)
{
	struct buf kind_cell[SAMPLE__COUNT];
	struct store_cursor *c = NULL;
	struct store_sample_row x;
	struct err e;
	int k, rc;

	err_init(&e);
	for (k = 0; k < SAMPLE__COUNT; k++) {
		struct buf p = BUF_INIT;
		const char *name = sample_kind_name(k);

		buf_init(&kind_cell[k]);
		buf_add_printable(&p, name, strlen(name));
		buf_add_csv_text(&kind_cell[k], p.data, p.len);
		buf_addch(&kind_cell[k], ',');
		buf_release(&p);
	}
	rc = store_cursor_new(s, &c, &e);
	while (rc >= 0 && !t->failed &&
	       (rc = store_cursor_next(c, &x, &e)) > 0) {
		field_int(t, x.seq, false);
		field_int(t, x.time_ns, false);
		field_int(t, x.recording, false);
		buf_add(&t->row, kind_cell[x.kind].data, kind_cell[x.kind].len);
		field_ref(t, x.thread, false);
		field_ref(t, x.cls, false);
		field_ref(t, x.node ? x.node : STORE_NONE, false);
		field_int(t, x.bytes, false);
		field_int(t, x.size, false);
		field_int(t, x.flags & STORE_SAMPLE_TRUNCATED, true);
		row_end(t);
	}
	store_cursor_free(c);
	for (k = 0; k < SAMPLE__COUNT; k++)
		buf_release(&kind_cell[k]);
	if (rc < 0) {
		/* checked whole by store_verify() first: only a file changed
		 * under us gets here */
		view_error("export", &e);
		t->failed = t->abandoned = true;
		return 1;
	}
	return 0;
}

/* The code-heap tables, as stored (the derived facts are `heapsift
 * codeheap --csv`, the granules `--granules --csv`). */
static int export_codeheaps(struct store *s, const char *dir)
{
	const struct store_ch_snapshot *sn;
	const struct store_ch_heap *hp;
	const struct store_ch_block *bk;
	const struct store_ch_stat *st;
	uint32_t n_sn, n_hp, n_bk, n_st, i, k;
	struct table t;
	struct err e;
	int bad = 0;

	err_init(&e);
	if (store_ch_snapshots(s, &sn, &n_sn, &e) < 0 ||
	    store_ch_heaps(s, &hp, &n_hp, &e) < 0 ||
	    store_ch_blocks(s, &bk, &n_bk, &e) < 0 ||
	    store_ch_stats(s, &st, &n_st, &e) < 0) {
		view_error("export", &e);
		return 1;
	}
	if (table_open(&t, dir, "codeheap_snapshots",
		       "id,recording,kind,time_ns,line") == 0) {
		for (i = 0; i < n_sn; i++) {
			field_int(&t, i, false);
			field_int(&t, sn[i].recording, false);
			field_str(&t, store_str(s, sn[i].kind), false);
			field_int(&t, sn[i].time_ns, false);
			field_int(&t, (int64_t)sn[i].line, true);
			row_end(&t);
		}
		bad |= table_close(&t);
	} else {
		bad = 1;
	}
	if (table_open(
		    &t, dir, "codeheaps",
		    "id,snapshot,name,low,high,high_reserved,segment_size,"
		    "granule_size,granules,committed,reserved,used,free,"
		    "max_used,used_blocks,free_blocks,placement_estimated") ==
	    0) {
		for (i = 0; i < n_hp; i++) {
			const struct store_ch_heap *h = &hp[i];

			field_int(&t, i, false);
			field_int(&t, h->snapshot, false);
			field_str(&t, store_str(s, h->name), false);
			buf_addf(&t.row, "%llu,%llu,%llu,",
				 (unsigned long long)h->low,
				 (unsigned long long)h->high,
				 (unsigned long long)h->high_reserved);
			field_int(&t, h->segment_size, false);
			field_int(&t, h->granule_size, false);
			field_int(&t, h->n_granules, false);
			field_int(&t, h->committed, false);
			field_int(&t, h->reserved, false);
			field_int(&t, h->used, false);
			field_int(&t, h->free, false);
			field_int(&t, h->max_used, false);
			field_int(&t, h->used_blocks, false);
			field_int(&t, h->free_blocks, false);
			field_int(&t, h->flags & STORE_CH_PLACEMENT_ESTIMATED,
				  true);
			row_end(&t);
		}
		bad |= table_close(&t);
	} else {
		bad = 1;
	}
	if (table_open(&t, dir, "codeheap_blocks",
		       "snapshot,heap,state,addr,size,type,compiler,level,"
		       "state_code,compile_id,temperature,gap,gap_blocks,"
		       "permanent_gap,top,name") == 0) {
		for (i = 0; i < n_sn; i++) {
			/* a snapshot's own blocks, then its heaps' */
			for (k = 0; k <= sn[i].n_heaps; k++) {
				uint32_t first, n, j, heap = STORE_NONE;

				if (k == 0) {
					first = sn[i].first_block;
					n = sn[i].n_blocks;
				} else {
					heap = sn[i].first_heap + k - 1;
					first = hp[heap].first_block;
					n = hp[heap].n_blocks;
				}
				for (j = first; j < first + n; j++) {
					const struct store_ch_block *b = &bk[j];

					field_int(&t, i, false);
					field_ref(&t, heap, false);
					field_str(&t,
						  b->flags & STORE_CH_BLOCK_FREE
							  ? "free"
							  : "used",
						  false);
					buf_addf(&t.row, "%llu,",
						 (unsigned long long)b->addr);
					field_int(&t, b->size, false);
					field_str(&t,
						  ch_block_type_name(
							  (enum ch_block_type)
								  b->type),
						  false);
					field_str(&t, store_str(s, b->compiler),
						  false);
					field_int(&t,
						  b->level < 0 ? REC_NONE
							       : b->level,
						  false);
					field_int(&t,
						  b->state < 0 ? REC_NONE
							       : b->state,
						  false);
					field_int(&t, b->compile_id, false);
					field_int(&t, b->temperature, false);
					field_int(&t, b->gap, false);
					field_int(&t, b->gap_blocks, false);
					field_int(
						&t,
						!!(b->flags &
						   STORE_CH_BLOCK_PERMANENT_GAP),
						false);
					field_int(&t,
						  !!(b->flags &
						     STORE_CH_BLOCK_TOP),
						  false);
					field_str(&t, store_str(s, b->name),
						  true);
					row_end(&t);
				}
			}
		}
		bad |= table_close(&t);
	} else {
		bad = 1;
	}
	if (table_open(&t, dir, "codeheap_stats", "snapshot,heap,name,value") ==
	    0) {
		for (i = 0; i < n_sn; i++) {
			for (k = 0; k <= sn[i].n_heaps; k++) {
				uint32_t first, n, j, heap = STORE_NONE;

				if (k == 0) {
					first = sn[i].first_stat;
					n = sn[i].n_stats;
				} else {
					heap = sn[i].first_heap + k - 1;
					first = hp[heap].first_stat;
					n = hp[heap].n_stats;
				}
				for (j = first; j < first + n; j++) {
					field_int(&t, i, false);
					field_ref(&t, heap, false);
					field_str(&t, store_str(s, st[j].name),
						  false);
					field_int(&t, st[j].value, true);
					row_end(&t);
				}
			}
		}
		bad |= table_close(&t);
	} else {
		bad = 1;
	}
	return bad;
}

/* The CSV tables of the whole store (the filters do not apply). */
static int export_tables(const char *path, const char *dir)
{
	const struct store_recording *recs;
	const struct store_setting *sets;
	const struct store_thread *threads;
	const struct store_class *classes;
	const struct store_method *methods;
	const struct store_frame *frames;
	const struct store_node *nodes;
	const struct store_heap *heap;
	const struct store_old_object *old;
	const struct store_liveness *live;
	const struct store_gc *gcs;
	uint32_t n_live, n_gcs;
	uint32_t n_recs, n_sets, n_threads, n_classes, n_methods, n_frames,
		n_nodes, n_heap, n_old, i, k;
	struct store *s;
	struct table t;
	struct err e;
	int bad = 0;

	err_init(&e);
	if (store_open(path, &s, &e) < 0) {
		view_error("export", &e);
		return EXIT_ERROR;
	}
	if (store_verify(s, &e) < 0 ||
	    store_recordings(s, &recs, &n_recs, &e) < 0 ||
	    store_settings(s, &sets, &n_sets, &e) < 0 ||
	    store_threads(s, &threads, &n_threads, &e) < 0 ||
	    store_classes(s, &classes, &n_classes, &e) < 0 ||
	    store_methods(s, &methods, &n_methods, &e) < 0 ||
	    store_frames(s, &frames, &n_frames, &e) < 0 ||
	    store_nodes(s, &nodes, &n_nodes, &e) < 0 ||
	    store_heap(s, &heap, &n_heap, &e) < 0 ||
	    store_old_objects(s, &old, &n_old, &e) < 0 ||
	    store_liveness(s, &live, &n_live, &e) < 0 ||
	    store_gcs(s, &gcs, &n_gcs, &e) < 0) {
		view_error("export", &e);
		store_close(s);
		return EXIT_ERROR;
	}

	if (table_open(&t, dir, "recordings",
		       "id,source,format,jvm_name,jvm_version,start_ns,end_ns,"
		       "chunks,bytes_skipped") == 0) {
		for (i = 0; i < n_recs; i++) {
			field_int(&t, i, false);
			field_str(&t, store_str(s, recs[i].source), false);
			field_str(&t, store_str(s, recs[i].format), false);
			field_str(&t, store_str(s, recs[i].jvm_name), false);
			field_str(&t, store_str(s, recs[i].jvm_version), false);
			field_int(&t, recs[i].start_ns, false);
			field_int(&t, recs[i].end_ns, false);
			field_int(&t, recs[i].n_chunks, false);
			field_int(&t, (int64_t)recs[i].bytes_skipped, true);
			row_end(&t);
		}
		bad |= table_close(&t);
	} else {
		bad = 1;
	}
	if (table_open(&t, dir, "settings", "recording,name,value") == 0) {
		for (i = 0; i < n_recs; i++)
			for (k = 0; k < recs[i].n_settings; k++) {
				const struct store_setting *st =
					&sets[recs[i].first_setting + k];

				field_int(&t, i, false);
				field_str(&t, store_str(s, st->name), false);
				field_str(&t, store_str(s, st->value), true);
				row_end(&t);
			}
		bad |= table_close(&t);
	} else {
		bad = 1;
	}
	if (table_open(&t, dir, "threads", "id,name,java_id,os_id,virtual") ==
	    0) {
		for (i = 0; i < n_threads; i++) {
			field_int(&t, i, false);
			field_str(&t, store_str(s, threads[i].name), false);
			field_int(&t, threads[i].java_id, false);
			field_int(&t, threads[i].os_id, false);
			field_int(&t, threads[i].flags & STORE_THREAD_VIRTUAL,
				  true);
			row_end(&t);
		}
		bad |= table_close(&t);
	} else {
		bad = 1;
	}
	if (table_open(&t, dir, "classes", "id,name,raw_name") == 0) {
		for (i = 0; i < n_classes; i++) {
			field_int(&t, i, false);
			field_str(&t, store_str(s, classes[i].display), false);
			field_str(&t, store_str(s, classes[i].raw), true);
			row_end(&t);
		}
		bad |= table_close(&t);
	} else {
		bad = 1;
	}
	if (table_open(&t, dir, "methods", "id,class,name,descriptor,hidden") ==
	    0) {
		for (i = 0; i < n_methods; i++) {
			field_int(&t, i, false);
			field_int(&t, methods[i].cls, false);
			field_str(&t, store_str(s, methods[i].name), false);
			field_str(&t, store_str(s, methods[i].descriptor),
				  false);
			field_int(&t, methods[i].flags & STORE_METHOD_HIDDEN,
				  true);
			row_end(&t);
		}
		bad |= table_close(&t);
	} else {
		bad = 1;
	}
	if (table_open(&t, dir, "frames", "id,method,line,bci,type") == 0) {
		for (i = 0; i < n_frames; i++) {
			field_int(&t, i, false);
			field_int(&t, frames[i].method, false);
			field_int(&t, frames[i].line, false);
			field_int(&t, frames[i].bci, false);
			field_str(&t, store_str(s, frames[i].type), true);
			row_end(&t);
		}
		bad |= table_close(&t);
	} else {
		bad = 1;
	}
	if (table_open(&t, dir, "stacks", "id,parent,frame,depth") == 0) {
		for (i = 1; i < n_nodes; i++) {
			field_int(&t, i, false);
			field_ref(&t,
				  nodes[i].parent ? nodes[i].parent
						  : STORE_NONE,
				  false);
			field_int(&t, nodes[i].frame, false);
			field_int(&t, nodes[i].depth, true);
			row_end(&t);
		}
		bad |= table_close(&t);
	} else {
		bad = 1;
	}
	if (table_open(&t, dir, "samples",
		       "id,time_ns,recording,kind,thread,class,stack,est_bytes,"
		       "size,truncated") == 0) {
		bad |= export_samples(&t, s);
		bad |= table_close(&t);
	} else {
		bad = 1;
	}
	if (table_open(&t, dir, "old_objects",
		       "sample,alloc_time_ns,age_ns,object_size,last_heap_used,"
		       "array_elements,gc_root") == 0) {
		for (i = 0; i < n_old; i++) {
			field_int(&t, old[i].sample, false);
			field_int(&t, old[i].alloc_time_ns, false);
			field_int(&t, old[i].age_ns, false);
			field_int(&t, old[i].object_size, false);
			field_int(&t, old[i].last_heap_used, false);
			field_int(&t, old[i].array_elements, false);
			field_str(&t, store_str(s, old[i].root), true);
			row_end(&t);
		}
		bad |= table_close(&t);
	} else {
		bad = 1;
	}
	if (table_open(
		    &t, dir, "heap_summaries",
		    "recording,time_ns,gc_id,when,used,committed,reserved") ==
	    0) {
		for (i = 0; i < n_heap; i++) {
			field_int(&t, heap[i].recording, false);
			field_int(&t, heap[i].time_ns, false);
			field_int(&t, heap[i].gc_id, false);
			field_str(&t, store_str(s, heap[i].when), false);
			field_int(&t, heap[i].used, false);
			field_int(&t, heap[i].committed, false);
			field_int(&t, heap[i].reserved, true);
			row_end(&t);
		}
		bad |= table_close(&t);
	} else {
		bad = 1;
	}
	if (table_open(&t, dir, "liveness",
		       "sample,state,death_ns,alloc_gc,death_gc") == 0) {
		static const char *const states[] = {"", "dead", "alive_at_end",
						     "alive_at_cut"};

		for (i = 0; i < n_live; i++) {
			field_int(&t, live[i].sample, false);
			field_str(&t,
				  live[i].state < 4 ? states[live[i].state]
						    : "",
				  false);
			field_int(&t, live[i].death_ns, false);
			field_int(&t, live[i].alloc_gc, false);
			field_int(&t, live[i].death_gc, true);
			row_end(&t);
		}
		bad |= table_close(&t);
	} else {
		bad = 1;
	}
	if (table_open(&t, dir, "gcs", "recording,number,start_ns,end_ns") ==
	    0) {
		for (i = 0; i < n_gcs; i++) {
			field_int(&t, gcs[i].recording, false);
			field_int(&t, gcs[i].number, false);
			field_int(&t, gcs[i].start_ns, false);
			field_int(&t, gcs[i].end_ns, true);
			row_end(&t);
		}
		bad |= table_close(&t);
	} else {
		bad = 1;
	}
	bad |= export_codeheaps(s, dir);
	store_close(s);
	return bad ? EXIT_ERROR : EXIT_OK;
}

enum export_format {
	FORMAT_CSV,
	FORMAT_FOLDED,
	FORMAT_PPROF,
	FORMAT_SPEEDSCOPE,
	FORMAT_SVG,
};

static bool format_parse(const char *s, enum export_format *f)
{
	static const char *const names[] = {"csv", "folded", "pprof",
					    "speedscope", "svg"};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*f = (enum export_format)i;
			return true;
		}
	return false;
}

/* Write b to path through a temporary file renamed into place, or to
 * standard output when path is NULL or "-". */
static int write_out(const char *path, const struct buf *b)
{
	if (!path || !strcmp(path, "-")) {
		if (fwrite(b->data, 1, b->len, stdout) != b->len)
			return cli_finish_output(EXIT_ERROR);
		return cli_finish_output(EXIT_OK);
	}
	return cli_write_file("export", path, b->data, b->len) < 0 ? EXIT_ERROR
								   : EXIT_OK;
}

/* The one-file formats: a view of the filtered samples. */
static int export_view(enum export_format fmt, enum export_value v,
		       const char *path, bool force, int argc, char **argv,
		       struct view_filters *f)
{
	struct cli_output o = {path, CLI_OUTPUT_FILE, NULL, force};
	struct store *s;
	struct query *q, *kq[SAMPLE__COUNT];
	size_t n_kq = 0, i;
	struct buf out = BUF_INIT;
	struct err e;
	int rc, status;

	if (path && strcmp(path, "-") &&
	    cli_output_check("export", &o, argv + optind, argc - optind))
		return EXIT_ERROR;
	if ((!path || !strcmp(path, "-")) && fmt == FORMAT_PPROF &&
	    isatty(STDOUT_FILENO))
		return cli_usage_error("export",
				       "--format=pprof writes gzipped binary "
				       "data: give -o FILE, or redirect "
				       "standard output");
	status = view_open("export", argc, argv, f, &s, &q);
	if (status)
		return status;
	err_init(&e);
	switch (fmt) {
	case FORMAT_FOLDED:
		rc = export_folded(q, v, &out, &e);
		break;
	case FORMAT_PPROF:
		rc = export_pprof(q, &out, &e);
		break;
	case FORMAT_SVG:
		rc = export_svg(q, &out, &e);
		break;
	default: {
		/* a profile per kind: --kind's, else every kind held */
		uint64_t counts[SAMPLE__COUNT];
		const char *base = strrchr(argv[optind], '/');
		int k;

		query_kind_counts(q, counts);
		rc = 0;
		for (k = 0; k < SAMPLE__COUNT && rc == 0; k++) {
			struct query_options ko = f->q;

			if (f->q.kind >= 0 ? k != f->q.kind : !counts[k])
				continue;
			ko.kind = k;
			rc = query_open(s, &ko, &kq[n_kq], &e);
			if (rc == 0)
				n_kq++;
		}
		if (rc == 0 && !n_kq)
			kq[n_kq++] = q; /* nothing at all: an empty profile */
		if (rc == 0)
			rc = export_speedscope(kq, n_kq, v,
					       base ? base + 1 : argv[optind],
					       &out, &e);
		for (i = 0; i < n_kq; i++)
			if (kq[i] != q)
				query_free(kq[i]);
	}
	}
	if (rc < 0) {
		buf_release(&out);
		return view_query_failed("export", &e, s, q);
	}
	view_close(s, q);
	status = write_out(path, &out);
	buf_release(&out);
	return status;
}

int cmd_export(int argc, char **argv)
{
	enum {
		OPT_FORMAT = OPT__VIEW_NEXT,
		OPT_FORCE,
		OPT_VALUE,
		OPT_LAYOUT,
		OPT_ID,
		OPT_HOST,
		OPT_GZIP,
	};
	static const struct option opts[] = {
		{"format", required_argument, NULL, OPT_FORMAT},
		{"force", no_argument, NULL, OPT_FORCE},
		{"output", required_argument, NULL, 'o'},
		{"value", required_argument, NULL, OPT_VALUE},
		{"layout", required_argument, NULL, OPT_LAYOUT},
		{"id", required_argument, NULL, OPT_ID},
		{"host", required_argument, NULL, OPT_HOST},
		{"gzip", no_argument, NULL, OPT_GZIP},
		{"help", no_argument, NULL, 'h'},
		VIEW_FILTER_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	const char *dir = NULL, *format = NULL, *value = NULL, *layout = NULL;
	const char *filter = NULL;
	struct export_fleet_options fo = {NULL, NULL, "", false};
	struct cli_output o = {NULL, CLI_OUTPUT_FOLDER, export_files, false};
	enum export_format fmt;
	enum export_value v = EXPORT_VALUE_BYTES;
	struct view_filters f;
	bool fleet = false;
	char *path;
	int c, st, rc, in_status;

	view_filters_init(&f);
	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(export_help, stdout);
			return cli_finish_output(EXIT_OK);
		case OPT_FORMAT:
			format = optarg;
			break;
		case 'o':
			dir = optarg;
			break;
		case OPT_FORCE:
			o.force = true;
			break;
		case OPT_VALUE:
			value = optarg;
			break;
		case OPT_LAYOUT:
			layout = optarg;
			break;
		case OPT_ID:
			fo.id = optarg;
			break;
		case OPT_HOST:
			fo.host = optarg;
			break;
		case OPT_GZIP:
			fo.gzip = true;
			break;
		case '?':
		case ':':
			return cli_getopt_error("export", c, argv);
		default:
			st = view_filter_option("export", c, optarg, &f);
			if (st)
				return EXIT_USAGE;
			filter = argv[optind - 1];
		}
	}
	if (!format)
		return cli_usage_error("export",
				       "--format: give --format=csv, folded, "
				       "pprof, speedscope or svg");
	if (!format_parse(format, &fmt))
		return cli_usage_error("export",
				       "--format: '%s' is not one of csv, "
				       "folded, pprof, speedscope, svg",
				       format);
	if (value && !export_value_parse(value, &v))
		return cli_usage_error("export",
				       "--value: '%s' is not one of bytes, "
				       "samples, objects",
				       value);
	if (value && fmt != FORMAT_FOLDED && fmt != FORMAT_SPEEDSCOPE)
		return cli_usage_error("export",
				       "--value applies to --format=folded "
				       "and speedscope only");
	if (layout) {
		if (!strcmp(layout, "fleet"))
			fleet = true;
		else if (strcmp(layout, "tables"))
			return cli_usage_error("export",
					       "--layout: '%s' is not one of "
					       "tables, fleet",
					       layout);
		if (fmt != FORMAT_CSV)
			return cli_usage_error("export", "--layout applies to "
							 "--format=csv only");
	}
	if ((fo.id || fo.host[0] || fo.gzip) && !fleet)
		return cli_usage_error("export",
				       "--id, --host and --gzip apply to "
				       "--format=csv --layout=fleet only");
	if (fmt != FORMAT_CSV)
		return export_view(fmt, v, dir, o.force, argc, argv, &f);

	if (filter)
		return cli_usage_error("export",
				       "%s: --format=csv exports the whole "
				       "store; the filters apply to folded, "
				       "pprof, speedscope and svg",
				       filter);
	if (optind >= argc)
		return cli_usage_error("export", "no store given, nor inputs "
						 "to read");
	if (!dir)
		return cli_usage_error("export", "no directory given (-o DIR)");
	o.path = dir;
	if (fleet)
		o.names = fleet_files;
	if (cli_output_check("export", &o, argv + optind, argc - optind))
		return EXIT_ERROR;
	/* one store, or the inputs to read into the cache store first */
	rc = cli_store_path("export", argc - optind, argv + optind, &path,
			    &in_status);
	if (rc)
		return rc;
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		fprintf(stderr,
			"heapsift export: error: cannot create %s: %s\n", dir,
			strerror(errno));
		free(path);
		return EXIT_ERROR;
	}
	if (fleet) {
		struct store *s;
		struct err e;

		err_init(&e);
		if (store_open(path, &s, &e) < 0) {
			view_error("export", &e);
			free(path);
			return EXIT_ERROR;
		}
		fo.dir = dir;
		/* the recordings' ids come from the name given, not from a
		 * cache store's */
		rc = export_fleet(s, argv[optind], &fo, &e);
		if (rc < 0 && e.code)
			view_error("export", &e);
		store_close(s);
		free(path);
		return cli_finish_output(rc < 0 ? EXIT_ERROR : EXIT_OK);
	}
	rc = export_tables(path, dir);
	free(path);
	return cli_finish_output(rc);
}
