/*
 * The fleet lake (lake.h): its marker and lock, its manifest, where a
 * recording's rows go, and the commit that puts them in place.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/duckdb_dl.h"
#include "export/lake_int.h"
#include "util/err.h"
#include "util/xalloc.h"
#include "util/xxh64.h"

#define MARKER "_heapsift_lake"

/* One part: a set of recordings, in one day, with a file per table. */
struct part {
	char day[11];
	char name[22];	   /* part-XXXXXXXXXXXXXXXX */
	bool exists;	   /* in the lake before this export */
	uint64_t old_rows; /* its samples rows, by the manifest */
	struct u64map ids; /* its recordings, from the manifest */
	bool staged;	   /* out[] hold new rows */
	struct lake_out out[LT_N];
	struct lake_out *outp[LT_N];
};

struct known {
	uint64_t id;
	size_t part;
	char *case_value; /* the case_id cell's value, as written */
};

struct lake {
	struct lake_options o;
	int lock_fd;
	struct duckdb_dl *d;
	struct part *parts;
	size_t n_parts, cap_parts;
	struct known *known;
	size_t n_known, cap_known;
	struct u64map by_id;	     /* recording id -> index into known */
	struct u64map drop;	     /* ids whose old rows go */
	struct u64map written;	     /* ids written by this export */
	size_t n_staged, max_staged; /* parts with rows staged; how many
				      * the open files allow */
	struct lake_summary sum;
	struct buf path, scratch;
	struct err *e;
};

static size_t staging_room(void);

/* --- the marker and the lock ------------------------------------------------ */

static const char *format_word(enum lake_format f)
{
	return lake_ext(f);
}

/* The marker's text for format f. */
static void marker_text(struct buf *out, enum lake_format f)
{
	buf_addf(out,
		 "heapsift lake\nschema %d\nformat %s\n"
		 "# tables: recordings, samples, stacks, frames "
		 "(docs/export.md, The fleet lake)\n",
		 LAKE_SCHEMA_VERSION, format_word(f));
}

/* Make the marker (a new lake), or check it: same schema, same format. */
static int marker_check(struct lake *l, struct err *e)
{
	struct buf want = BUF_INIT, got = BUF_INIT;
	char chunk[512];
	ssize_t n;
	int fd, rc = 0;

	buf_reset(&l->path);
	buf_addf(&l->path, "%s/" MARKER, l->o.dir);
	marker_text(&want, l->o.format);
	fd = open(l->path.data, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
		  0666);
	if (fd < 0) {
		rc = err_set(e, ERR_IO, "%s: %s", l->path.data,
			     err_io_reason(errno));
		goto out;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		fprintf(stderr, "heapsift export: waiting for another export "
				"into the same lake\n");
		if (flock(fd, LOCK_EX) < 0) {
			rc = err_set(e, ERR_IO, "locking %s: %s", l->path.data,
				     err_io_reason(errno));
			close(fd);
			goto out;
		}
	}
	l->lock_fd = fd;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0 && got.len < 4096)
		buf_add(&got, chunk, (size_t)n);
	if (got.len == 0) { /* a new lake (or one whose making was cut) */
		if (write(fd, want.data, want.len) != (ssize_t)want.len ||
		    fsync(fd) < 0)
			rc = err_set(e, ERR_IO, "writing %s: %s", l->path.data,
				     err_io_reason(errno));
		goto out;
	}
	if (strncmp(got.data, "heapsift lake\n", 14)) {
		rc = err_set(e, ERR_USAGE, "%s is not a heapsift lake's marker",
			     l->path.data);
	} else if (got.len != want.len ||
		   memcmp(got.data, want.data, want.len)) {
		const char *f = strstr(got.data, "\nformat ");
		size_t k = f ? strcspn(f + 8, "\n") : 0;

		rc = err_set(e, ERR_USAGE,
			     "%s is a lake of %.*s tables (%s): export into it "
			     "with the same format, or into another folder, so "
			     "that no reader counts a recording twice",
			     l->o.dir, (int)(k > 20 ? 20 : k),
			     f ? f + 8 : "other", "its " MARKER " says so");
	}
out:
	buf_release(&want);
	buf_release(&got);
	return rc;
}

/* --- the manifest ----------------------------------------------------------- */

static size_t part_find(struct lake *l, const char *day, const char *name)
{
	size_t i;

	for (i = 0; i < l->n_parts; i++)
		if (!strcmp(l->parts[i].day, day) &&
		    !strcmp(l->parts[i].name, name))
			return i;
	return SIZE_MAX;
}

static size_t part_add(struct lake *l, const char *day, const char *name,
		       bool exists)
{
	struct part *p;

	if (l->n_parts == l->cap_parts) {
		l->cap_parts = l->cap_parts ? 2 * l->cap_parts : 16;
		l->parts = xreallocarray(l->parts, l->cap_parts,
					 sizeof(*l->parts));
	}
	p = &l->parts[l->n_parts];
	memset(p, 0, sizeof(*p));
	snprintf(p->day, sizeof(p->day), "%s", day);
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->exists = exists;
	u64map_init(&p->ids);
	return l->n_parts++;
}

static int manifest_row(void *ctx, const char *day, const char *part,
			uint64_t id, const char *case_value, uint64_t samples)
{
	struct lake *l = ctx;
	size_t pi = part_find(l, day, part);
	struct known *k;
	uint64_t at;

	if (pi == SIZE_MAX)
		pi = part_add(l, day, part, true);
	u64map_put(&l->parts[pi].ids, id, 1, NULL);
	l->parts[pi].old_rows += samples;
	if (u64map_get(&l->by_id, id, &at)) {
		/* in two parts: only an export killed in its commit leaves
		 * that; the later rewrite of either keeps one */
		u64map_put(&l->drop, id, 1, NULL);
		return 0;
	}
	if (l->n_known == l->cap_known) {
		l->cap_known = l->cap_known ? 2 * l->cap_known : 64;
		l->known = xreallocarray(l->known, l->cap_known,
					 sizeof(*l->known));
	}
	k = &l->known[l->n_known];
	k->id = id;
	k->part = pi;
	k->case_value = xstrdup(case_value);
	u64map_put(&l->by_id, id, l->n_known++, NULL);
	return 0;
}

int lake_open(const struct lake_options *o, struct lake **out, struct err *e)
{
	struct lake *l = xcalloc(1, sizeof(*l));

	l->o = *o;
	l->lock_fd = -1;
	l->e = e;
	buf_init(&l->path);
	buf_init(&l->scratch);
	u64map_init(&l->by_id);
	u64map_init(&l->drop);
	u64map_init(&l->written);
	*out = l;
	l->max_staged = staging_room();
	/* DuckDB first: without it a new lake gets no marker */
	if (o->format == LAKE_PARQUET && duckdb_dl_open(&l->d, e) < 0)
		return ERR_FAIL;
	if (marker_check(l, e) < 0)
		return ERR_FAIL;
	return lake_read_manifest(o->dir, o->format, l->d, manifest_row, l, e);
}

/* --- where a recording's rows go -------------------------------------------- */

/* Make DIR/TABLE/day=D for each table, and sweep them (newfile.h). */
static int make_folders(struct lake *l, const char *day)
{
	int t;

	for (t = 0; t < LT_N; t++) {
		buf_reset(&l->path);
		buf_addf(&l->path, "%s/%s", l->o.dir, lake_tables[t].name);
		if (mkdir(l->path.data, 0777) < 0 && errno != EEXIST)
			goto fail;
		buf_addf(&l->path, "/day=%s", day);
		if (mkdir(l->path.data, 0777) < 0 && errno != EEXIST)
			goto fail;
		/* what a killed export left: a Parquet file DuckDB was
		 * writing, or a CSV file where there is no O_TMPFILE */
		newfile_sweep(l->path.data);
	}
	return 0;
fail:
	return err_set(l->e, ERR_IO, "cannot create %s: %s", l->path.data,
		       err_io_reason(errno));
}

static void target_path(struct lake *l, struct buf *out, const struct part *p,
			int t)
{
	buf_reset(out);
	buf_addf(out, "%s/%s/day=%s/%s.%s", l->o.dir, lake_tables[t].name,
		 p->day, p->name, lake_ext(l->o.format));
}

/*
 * How many parts may hold staged rows at once: each holds a file per
 * table open, twice (its own descriptor and its stream's).  The soft
 * limit on open files is raised to the hard one first, as far as 2^16.
 */
static size_t staging_room(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 16;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 65536 &&
	    rl.rlim_max > rl.rlim_cur) {
		rlim_t want =
			rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 65536
				? 65536
				: rl.rlim_max;

		rl.rlim_cur = want;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
		(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 65536)
		rl.rlim_cur = 65536;
	return rl.rlim_cur > 128 + 2 * LT_N ? (rl.rlim_cur - 128) / (2 * LT_N)
					    : 1;
}

static int stage(struct lake *l, struct part *p)
{
	int t;

	if (p->staged)
		return 0;
	if (l->n_staged >= l->max_staged)
		return err_set(
			l->e, ERR_LIMIT,
			"this export adds to more than %zu days at once, "
			"more than the files it may hold open allow: "
			"export fewer stores at a time (a lake takes "
			"them in any order)",
			l->max_staged);
	if (make_folders(l, p->day) < 0)
		return ERR_FAIL;
	for (t = 0; t < LT_N; t++) {
		target_path(l, &l->path, p, t);
		/* Parquet's rows are staged as CSV, for DuckDB to read */
		if (lake_out_open(&p->out[t], l->path.data,
				  l->o.format == LAKE_CSV_GZ,
				  l->o.format != LAKE_PARQUET,
				  (enum lake_table)t, l->e) < 0) {
			while (t-- > 0)
				lake_out_abandon(&p->out[t]);
			return ERR_FAIL;
		}
		p->outp[t] = &p->out[t];
	}
	p->staged = true;
	l->n_staged++;
	return 0;
}

/* The samples rows part p holds, or will once committed (the rows of
 * recordings it drops still counted: it only errs on the full side). */
static uint64_t part_rows(const struct part *p)
{
	return p->old_rows + (p->staged ? p->out[LT_SAMPLES].rows : 0);
}

/* The part new recordings of day go to: the one of the day's parts, old
 * or begun by this export, with the fewest samples rows, as long as it
 * has fewer than the part size; else a new one (named after the first
 * recording it takes).  A recording is never split: a part passes the
 * size by at most its last recording. */
static size_t open_part(struct lake *l, const char *day, uint64_t id)
{
	size_t i, best = SIZE_MAX;
	uint64_t seed;
	char name[22];

	for (i = 0; i < l->n_parts; i++) {
		const struct part *p = &l->parts[i];

		if (strcmp(p->day, day) || part_rows(p) >= l->o.part_rows)
			continue;
		if (best == SIZE_MAX ||
		    part_rows(p) < part_rows(&l->parts[best]))
			best = i;
	}
	if (best != SIZE_MAX)
		return best;
	for (seed = 0x70617274;; seed++) {
		snprintf(name, sizeof(name), "part-%016llx",
			 (unsigned long long)xxh64(&id, sizeof(id), seed));
		if (part_find(l, day, name) == SIZE_MAX)
			return part_add(l, day, name, false);
	}
}

static struct lake_out **route(void *ctx, const struct lake_rec *r)
{
	struct lake *l = ctx;
	uint64_t at;
	size_t pi;

	if (!r->day[0]) {
		l->sum.skipped++;
		return NULL;
	}
	if (u64map_get(&l->written, r->id, &at))
		return NULL; /* the same recording in two stores: once */
	u64map_put(&l->written, r->id, 1, NULL);
	if (u64map_get(&l->by_id, r->id, &at)) {
		/* exported before: its rows are replaced in its own part,
		 * so that no reader sees it twice or not at all */
		u64map_put(&l->drop, r->id, 1, NULL);
		l->sum.replaced++;
		pi = l->known[at].part;
		if (strcmp(l->parts[pi].day, r->day))
			pi = open_part(l, r->day, r->id);
	} else {
		pi = open_part(l, r->day, r->id);
	}
	if (stage(l, &l->parts[pi]) < 0)
		return NULL; /* l->e says why */
	l->sum.recordings++;
	return l->parts[pi].outp;
}

/* The sample rows staged so far, in every part. */
static uint64_t staged_samples(const struct lake *l)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < l->n_parts; i++)
		if (l->parts[i].staged)
			n += l->parts[i].out[LT_SAMPLES].rows;
	return n;
}

int lake_add(struct lake *l, struct store *s, const char *case_id,
	     struct err *e)
{
	uint64_t before = staged_samples(l);
	size_t i;
	int rc;

	/* the case's recordings exported before: replaced, or dropped
	 * when the store no longer holds them */
	buf_reset(&l->scratch);
	lake_cell_value(&l->scratch, case_id, l->o.format != LAKE_PARQUET);
	for (i = 0; i < l->n_known; i++)
		if (!strcmp(l->known[i].case_value, l->scratch.data))
			u64map_put(&l->drop, l->known[i].id, 1, NULL);
	l->e = e; /* route()'s errors are the caller's */
	rc = lake_store_rows(s, case_id, l->o.host, route, l, e);
	l->sum.samples += staged_samples(l) - before;
	return rc;
}

/* --- the commit ------------------------------------------------------------- */

/* Whether part p holds a recording whose old rows go. */
static bool part_drops(const struct lake *l, const struct part *p)
{
	size_t pos = 0;
	uint64_t id, v;

	while (u64map_next(&p->ids, &pos, &id, &v))
		if (u64map_get(&l->drop, id, &v))
			return true;
	return false;
}

/* Part p's tables: the recordings first, so that the manifest names
 * every recording a table holds rows of, then the others. */
static int commit_part(struct lake *l, struct part *p, struct err *e)
{
	struct u64map keep;
	size_t pos = 0;
	uint64_t id, v, rows;
	int t, rc = 0;

	u64map_init(&keep);
	while (u64map_next(&p->ids, &pos, &id, &v))
		if (!u64map_get(&l->drop, id, &v))
			u64map_put(&keep, id, 1, NULL);
	for (t = 0; t < LT_N && rc == 0; t++) {
		struct lake_out *add = p->staged ? &p->out[t] : NULL;

		target_path(l, &l->path, p, t);
		if (add && lake_out_finish(add, e) < 0) {
			rc = ERR_FAIL;
			break;
		}
		rc = lake_file_write(
			l->path.data, l->o.format, (enum lake_table)t,
			p->exists ? &keep : NULL, add, l->d, &rows, e);
	}
	u64map_release(&keep);
	l->sum.parts++;
	return rc;
}

int lake_commit(struct lake *l, struct lake_summary *sum, struct err *e)
{
	size_t i, pos = 0;
	uint64_t id, v;
	int rc = 0;

	uint64_t todo = 0, done = 0;
	bool *go = xcalloc(l->n_parts ? l->n_parts : 1, sizeof(*go));

	for (i = 0; i < l->n_parts; i++) {
		const struct part *p = &l->parts[i];

		go[i] = p->staged || (p->exists && part_drops(l, p));
		todo += go[i];
	}
	for (i = 0; i < l->n_parts && rc == 0; i++) {
		if (!go[i])
			continue;
		if (l->o.progress)
			l->o.progress(l->o.progress_ctx, done++, todo);
		rc = commit_part(l, &l->parts[i], e);
	}
	free(go);
	while (u64map_next(&l->drop, &pos, &id, &v))
		if (!u64map_get(&l->written, id, &v))
			l->sum.dropped++;
	*sum = l->sum;
	return rc;
}

void lake_close(struct lake *l)
{
	size_t i;
	int t;

	if (!l)
		return;
	for (i = 0; i < l->n_parts; i++) {
		for (t = 0; t < LT_N; t++)
			if (l->parts[i].outp[t])
				lake_out_abandon(&l->parts[i].out[t]);
		u64map_release(&l->parts[i].ids);
	}
	for (i = 0; i < l->n_known; i++)
		free(l->known[i].case_value);
	free(l->known);
	free(l->parts);
	u64map_release(&l->by_id);
	u64map_release(&l->drop);
	u64map_release(&l->written);
	if (l->d)
		duckdb_dl_close(l->d);
	if (l->lock_fd >= 0)
		close(l->lock_fd);
	buf_release(&l->path);
	buf_release(&l->scratch);
	free(l);
}
