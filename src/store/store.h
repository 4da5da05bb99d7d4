/*
 * The store: one file per case (.hsdb) holding any number of
 * recordings, laid out in docs/formats/store.md.
 *
 * Writing: a store_writer collects what importers emit through its sink
 * (interning names, threads, classes, methods and frames, building the
 * stack trie) and store_writer_commit() writes the file atomically: a
 * temporary file in the same directory, fsync, rename, fsync of the
 * directory.  A crash at any moment leaves the previous file intact.
 * The writer's memory follows the distinct keys (strings, threads,
 * classes, frames, stack nodes) and a run of samples, never the number
 * of samples: samples are spilled, in time-sorted runs, to an unlinked
 * file (src/store/store_write_spill.h) that commit merges.  Only old-object and
 * liveness records (one per OldObjectSample or agent sample at most)
 * are kept in memory until commit.
 *
 * Reading: store_open() maps the file read-only and checks the header and
 * the table of sections (O(1) in the number of samples).  Each section's
 * checksum and every reference in it are checked the first time it is
 * asked for, before anything is handed out; a bad checksum is an error
 * naming the section.  Every pointer returned is borrowed from the
 * mapping and valid until store_close().
 */
#ifndef HS_STORE_H
#define HS_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/store/store_format.h"
#include "record/sink.h"
#include "util/err.h"

struct sink;
struct store;

/* --- writing --------------------------------------------------------------- */

struct store_writer;

struct store_writer *store_writer_new(void);
void store_writer_free(struct store_writer *w);

/*
 * Where the samples are spilled until commit: an unlinked file in dir
 * (the store's directory, so that the spill fills the file system the
 * store goes to; dir is copied).  Call it before the first sample; the
 * default is $TMPDIR, else /tmp.  Errors on that file (no space left,
 * I/O) make the sink's calls fail and store_writer_commit() return them.
 */
void store_writer_set_spill_dir(struct store_writer *w, const char *dir);

/*
 * Encode the samples into the store's file as they arrive, instead of
 * spilling them all and merging at commit: the store is the same, byte
 * for byte, and about a fifth of an import's work is saved.  The file is
 * made in dir, which must be the directory of the store committed (it
 * is linked there); before the first sample, and not with --append's
 * duplicates (store_writer_skip_duplicates).  Samples that arrive too
 * far out of time order make the writer go back to the spill on its own.
 * false (and nothing changes) where dir's file system cannot make a
 * file without a name, or HEAPSIFT_STORE_STREAM is 0.
 */
bool store_writer_stream(struct store_writer *w, const char *dir);

/* Whether the writer failed (its spill file: no space left, I/O); then
 * every later sample fails, commit fails, and e (if not NULL) gets the
 * reason, which is better to show than an importer's "sink failed". */
bool store_writer_failed(const struct store_writer *w, struct err *e);

/* The sink importers write into; borrowed, valid while w lives. */
const struct sink *store_writer_sink(struct store_writer *w);

/* Copy every recording of an open store into w (for --append), before
 * anything else is added to w. */
int store_writer_add_store(struct store_writer *w, struct store *s,
			   struct err *e);

uint64_t store_writer_n_samples(const struct store_writer *w);
uint32_t store_writer_n_recordings(const struct store_writer *w);

/*
 * From now on (import --append, after store_writer_add_store), a
 * recording the same as one already in w is not added: the same format,
 * JVM, start, end, chunks, settings, event counts, samples (time, kind,
 * bytes, size, thread, class, stack), heap summaries, GCs and code-heap
 * snapshots, whatever the source is called.  For JFR that is the chunks'
 * content as imported; for code-heap reports and javacores, the
 * snapshots'.  store_writer_n_duplicates() counts those dropped and puts
 * in *last (if not NULL) the index of the recording the last one matched.
 */
void store_writer_skip_duplicates(struct store_writer *w);
uint32_t store_writer_n_duplicates(const struct store_writer *w,
				   uint32_t *last);

/* Write everything to path, atomically.  w can be freed afterwards. */
int store_writer_commit(struct store_writer *w, const char *path,
			struct err *e);

/*
 * Writers of one store take turns: store_lock() takes an exclusive
 * flock(2) on the store at path (on its folder while there is none),
 * waiting for another writer to finish, and calls wait(ctx) once first
 * when it has to wait.  Hold it from before the old store is read
 * (--append) until store_writer_commit() has returned, so that no
 * writer's recordings are lost; store_unlock() lets the next one in.
 * Readers need no lock: a store is never changed, only replaced.
 * *fd_out gets the descriptor that holds the lock.
 */
typedef void store_lock_wait_fn(void *ctx);
int store_lock(const char *path, store_lock_wait_fn *wait, void *ctx,
	       int *fd_out, struct err *e);
void store_unlock(int fd);

/* --- reading --------------------------------------------------------------- */

struct store;

int store_open(const char *path, struct store **out, struct err *e);
/* The same over bytes in memory (fuzzing, tests); data must stay valid
 * and 8-byte aligned until store_close(). */
int store_open_memory(const char *name, const void *data, size_t len,
		      struct store **out, struct err *e);
void store_close(struct store *s);

/*
 * One pointer that the layer above keeps with an open store: the query
 * layer's tables derived from the store alone, made by its first query
 * and shared by the rest.  store_close() calls release(p) first.
 * store_attached() is NULL until a pointer is attached; attaching again
 * releases the one before.
 */
void store_attach(struct store *s, void *p, void (*release)(void *));
void *store_attached(const struct store *s);

/* A string by offset; "" for an offset outside the pool (never NULL). */
const char *store_str(const struct store *s, uint32_t off);

/* The tables, checked on first use.  <0 with e set when damaged. */
int store_recordings(struct store *s, const struct store_recording **out,
		     uint32_t *n, struct err *e);
int store_settings(struct store *s, const struct store_setting **out,
		   uint32_t *n, struct err *e);
int store_counts(struct store *s, const struct store_count **out, uint32_t *n,
		 struct err *e);
int store_threads(struct store *s, const struct store_thread **out, uint32_t *n,
		  struct err *e);
int store_classes(struct store *s, const struct store_class **out, uint32_t *n,
		  struct err *e);
int store_methods(struct store *s, const struct store_method **out, uint32_t *n,
		  struct err *e);
int store_frames(struct store *s, const struct store_frame **out, uint32_t *n,
		 struct err *e);
int store_nodes(struct store *s, const struct store_node **out, uint32_t *n,
		struct err *e);
int store_heap(struct store *s, const struct store_heap **out, uint32_t *n,
	       struct err *e);
int store_old_objects(struct store *s, const struct store_old_object **out,
		      uint32_t *n, struct err *e);
/* Since 1.1; empty in older stores. */
int store_liveness(struct store *s, const struct store_liveness **out,
		   uint32_t *n, struct err *e);
int store_gcs(struct store *s, const struct store_gc **out, uint32_t *n,
	      struct err *e);
/* Since 4.1; empty in older stores and for recordings that are not JFR. */
int store_gc_info(struct store *s, const struct store_gc_info **out,
		  uint32_t *n, struct err *e);

/* Code-heap snapshots and what they own (since 1.2; empty before).  A
 * snapshot's heaps, stats and blocks are contiguous runs, a heap's maps,
 * blocks and stats too; a map's cells are cells[map.cells, +map.n). */
int store_ch_snapshots(struct store *s, const struct store_ch_snapshot **out,
		       uint32_t *n, struct err *e);
int store_ch_heaps(struct store *s, const struct store_ch_heap **out,
		   uint32_t *n, struct err *e);
int store_ch_maps(struct store *s, const struct store_ch_map **out, uint32_t *n,
		  struct err *e);
int store_ch_blocks(struct store *s, const struct store_ch_block **out,
		    uint32_t *n, struct err *e);
int store_ch_stats(struct store *s, const struct store_ch_stat **out,
		   uint32_t *n, struct err *e);
int store_ch_cells(struct store *s, const uint8_t **out, uint64_t *n,
		   struct err *e);

/*
 * Samples, as columns n long, in time order (ties in import order).  The
 * store keeps them in blocks of one kind (docs/formats/store.md); these
 * columns are decoded from the blocks the first time they are asked
 * for, each block's checksum and references checked then, and are owned
 * by the store until store_close().  seq[i] is the sample's index among
 * all samples, by which old objects and liveness records name it.
 */
struct store_samples {
	uint64_t n;
	const uint32_t *seq;
	const int64_t *time_ns;
	const uint32_t *recording;
	const uint8_t *kind;	/* enum sample_kind */
	const uint8_t *flags;	/* STORE_SAMPLE_* */
	const uint32_t *thread; /* STORE_NONE: none */
	const uint32_t *cls;	/* STORE_NONE: none */
	const uint32_t *node;	/* 0: no stack */
	const int64_t *bytes;	/* the estimate's basis: weight, tlabSize.. */
	/* object size when known, else REC_NONE; in store_kind_samples()'s
	 * columns of jdk.ObjectAllocationSample, which has none, NULL */
	const int64_t *size;
	/* jdk.ObjectAllocationSample's in a store with estimates (2.3,
	 * store_estimates()): the rest of each weight under the corrected
	 * estimate; else NULL */
	const int64_t *rest;
};

/* Every sample, of every kind, in memory: seq[i] == i.  For a pass over
 * every sample, the cursor below holds one block of each kind instead. */
int store_samples(struct store *s, struct store_samples *out, struct err *e);

/*
 * Every sample of every kind in seq order (time order, ties in import
 * order), one decoded block of each kind in memory at a time, whatever
 * the store's size: what export writes from.  Each block is checked as
 * it is read (as store_read_block); a damaged one ends the pass with e
 * set.  store_cursor_rewind(c, rec) starts again with recording rec's
 * samples only (STORE_NONE: all), reading only the blocks that hold
 * some; the first rewind to one recording of several makes a pass over
 * every sample to learn which blocks those are.
 */
struct store_sample_row {
	uint32_t seq, recording, thread, cls, node; /* as store_samples' */
	int64_t time_ns, bytes, size;
	int64_t rest; /* ObjectAllocationSample's in a 3.0 store; else 0 */
	uint8_t kind, flags;
};
struct store_cursor;
int store_cursor_new(struct store *s, struct store_cursor **out, struct err *e);
int store_cursor_rewind(struct store_cursor *c, uint32_t rec, struct err *e);
/* 1 and the next sample in x, 0 at the end, <0 on damage (e set) */
int store_cursor_next(struct store_cursor *c, struct store_sample_row *x,
		      struct err *e);
void store_cursor_free(struct store_cursor *c);
/* A liveness record's state (struct store_liveness) as the exports
 * name it: "dead", "alive_at_end", "alive_at_cut"; "" for any other. */
const char *store_live_state_name(uint32_t state);
/* The samples of one kind only: only that kind's blocks are read. */
int store_kind_samples(struct store *s, int kind, struct store_samples *out,
		       struct err *e);
/* Whether store_kind_samples() has decoded kind already (then asking
 * again costs nothing). */
bool store_kind_decoded(const struct store *s, int kind);
/*
 * A kind a block at a time, for passes that need no more than one block
 * in memory: the index records of kind's blocks (in time order, *n of
 * them), and block b of those decoded into columns the store owns,
 * valid until the next store_read_block() or store_close().  The block's
 * checksum and values are checked each time it is read.
 */
int store_kind_blocks(struct store *s, int kind, const struct store_block **out,
		      uint32_t *n, struct err *e);
int store_read_block(struct store *s, int kind, uint32_t b,
		     struct store_samples *out, struct err *e);
/* How many samples of each kind, from the sample index alone. */
int store_kind_counts(struct store *s, uint64_t counts[SAMPLE__COUNT],
		      struct err *e);

/*
 * The rollups of kind under projection proj (enum store_rollup_proj;
 * since 2.1, docs/formats/store.md): *n buckets, by recording then
 * time, and *rows the rows they index (bucket b's are rows[b.first_row,
 * + b.n_rows), sorted by key).  The buckets and rows of (kind, proj) are
 * checked the first time they are asked for.  *n is 0 when the store
 * has none for kind (a 2.0 store, agent samples, a kind with negative
 * byte counts): the samples are then the only source.  Borrowed until
 * store_close().
 */
int store_rollup(struct store *s, int kind, int proj,
		 const struct store_rollup_bucket **buckets, uint32_t *n,
		 const struct store_rollup_row **rows, struct err *e);

/*
 * The whole recordings' rollups of kind under projection proj (since
 * 3.1): for each recording that has them, by recording, one bucket of
 * the rows of its time buckets (store_rollup) merged by key, from the
 * first one's start to the last one's end, with the same samples: a
 * reader whose window holds all of those buckets reads these rows in
 * their place and adds up the same sums (counts, bytes and squares held
 * at the top, least and greatest times, least bytes).  A recording with
 * one time bucket, or whose rows hardly merge, has none; n is 0 in an
 * older store.  The rows and their squares and estimate sums (NULL
 * where the sections are missing) are indexed by the buckets' first_row;
 * checked as store_rollup()'s.  Borrowed until store_close().
 */
struct store_rollup_whole {
	const struct store_rollup_bucket *b;
	uint32_t n;
	const struct store_rollup_row *rows;
	const struct store_rollup_sq *sq;
	const struct store_rollup_est *est;
};

int store_rollup_whole(struct store *s, int kind, int proj,
		       struct store_rollup_whole *out, struct err *e);

/*
 * The rollup rows' sums of squared bytes (since 2.2): (*sq)[i] is row
 * i's, for every row of every kind.  *sq is NULL in a 2.1 store, which
 * has none: the readers that need them read the samples.  The section's
 * checksum is verified on first use.  Borrowed until store_close().
 */
int store_rollup_squares(struct store *s, const struct store_rollup_sq **sq,
			 struct err *e);

/*
 * The rollup rows' corrected-estimate sums (since 2.3, struct
 * store_rollup_est): (*est)[i] is row i's, for every row.  NULL in an
 * older store.  Borrowed until store_close().
 */
int store_rollup_est(struct store *s, const struct store_rollup_est **est,
		     struct err *e);

/*
 * The corrected estimate's facts of each recording (since 2.3, struct
 * store_estimate), one per recording in their order; *out NULL in an
 * older store, which has no rest column either: the corrected estimate
 * needs the recordings imported again.  Borrowed until store_close().
 */
int store_estimates(struct store *s, const struct store_estimate **out,
		    struct err *e);

/* --- the tables as rows -------------------------------------------------- */

/*
 * The store's tables as rows of cells, for `heapsift export
 * --format=csv`, which writes each table as one CSV file: the store as
 * it is (every recording, every sample of every kind, the code-heap
 * tables as stored), not a view of it.  docs/export.md documents the
 * tables and their columns; store_tables[] is the store's side of that
 * contract, the tables in the order they are written, each with its
 * columns (comma-separated, as the CSV header row).  A cell is a number
 * or a string from a file, raw: the writer escapes it for its target.
 */
enum store_cell_type {
	STORE_CELL_INT,	 /* i; REC_NONE (nothing there): an empty cell */
	STORE_CELL_U64,	 /* u: an address or a bound, always written */
	STORE_CELL_STR,	 /* s, raw from a file (borrowed from the store) */
	STORE_CELL_KIND, /* i: an enum sample_kind, written as its name */
};

struct store_cell {
	enum store_cell_type type;
	int64_t i;
	uint64_t u;
	const char *s;
};

#define STORE_N_TABLES 16

struct store_table {
	const char *name;    /* "recordings", ...; the file is NAME.csv */
	const char *columns; /* "id,source,format,..." */
};

extern const struct store_table store_tables[STORE_N_TABLES];

/* One row of a table: cells[0..n), one a column, borrowed for the call.
 * Returns 0 to go on, anything else to stop the walk there. */
typedef int store_row_fn(void *ctx, const struct store_cell *cells, size_t n);

/*
 * Call fn with every row of table t (t < STORE_N_TABLES) in order; the
 * samples come from a pass over the blocks (store_cursor), a block of
 * each kind in memory at a time.  0 at the end or when fn stopped it;
 * <0 with e set when the store is damaged (store_verify() first makes
 * that impossible for a store that is not changed under us).
 */
int store_table_rows(struct store *s, unsigned t, store_row_fn *fn, void *ctx,
		     struct err *e);

/* Check every section now (heapsift info --check, tests), the rollups
 * against the samples included. */
int store_verify(struct store *s, struct err *e);

#endif
