/*
 * The store reader (store.h).  store_open() maps the file and checks the
 * header and the table of sections with overflow-safe arithmetic: every
 * section lies inside the file, is aligned, and is a whole number of
 * records.  That is O(1) in the number of samples.  The first time a
 * section is asked for, its checksum is computed and every reference in
 * it is checked against the table it points into; only then is a
 * pointer handed out, so no query can index out of bounds, whatever
 * bytes the file holds.  Copying a store into a writer (for --append)
 * is here too, since it reads every table.
 */
#include "store/store.h"
#include "store/store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/record.h"
#include "util/buf.h"
#include "util/crc32c.h"
#include "util/size.h"
#include "util/xalloc.h"

static const struct {
	uint32_t id;
	uint32_t rec_len;
	const char *name;
} known[I__COUNT] = {
	{SEC_STRINGS, 1, "strings"},
	{SEC_RECORDINGS, sizeof(struct store_recording), "recordings"},
	{SEC_SETTINGS, sizeof(struct store_setting), "settings"},
	{SEC_EVENT_COUNTS, sizeof(struct store_count), "event counts"},
	{SEC_THREADS, sizeof(struct store_thread), "threads"},
	{SEC_CLASSES, sizeof(struct store_class), "classes"},
	{SEC_METHODS, sizeof(struct store_method), "methods"},
	{SEC_FRAMES, sizeof(struct store_frame), "frames"},
	{SEC_NODES, sizeof(struct store_node), "stack nodes"},
	{SEC_SAMPLE_INDEX, sizeof(struct store_block), "sample index"},
	{SEC_SAMPLE_BLOCKS, 1, "sample blocks"},
	{SEC_OLD_OBJECTS, sizeof(struct store_old_object), "old objects"},
	{SEC_HEAP, sizeof(struct store_heap), "heap summaries"},
	{SEC_LIVENESS, sizeof(struct store_liveness), "liveness"},
	{SEC_GCS, sizeof(struct store_gc), "garbage collections"},
	{SEC_CH_SNAPSHOTS, sizeof(struct store_ch_snapshot),
	 "code-heap snapshots"},
	{SEC_CH_HEAPS, sizeof(struct store_ch_heap), "code heaps"},
	{SEC_CH_MAPS, sizeof(struct store_ch_map), "granule maps"},
	{SEC_CH_CELLS, 1, "granule cells"},
	{SEC_CH_BLOCKS, sizeof(struct store_ch_block), "code blocks"},
	{SEC_CH_STATS, sizeof(struct store_ch_stat), "code-heap facts"},
	{SEC_ROLLUP_BUCKETS, sizeof(struct store_rollup_bucket),
	 "rollup buckets"},
	{SEC_ROLLUP_ROWS, sizeof(struct store_rollup_row), "rollup rows"},
	{SEC_ROLLUP_SQUARES, sizeof(struct store_rollup_sq), "rollup squares"},
	{SEC_ROLLUP_EST, sizeof(struct store_rollup_est), "rollup estimates"},
	{SEC_ESTIMATES, sizeof(struct store_estimate), "estimates"},
	{SEC_WHOLE_BUCKETS, sizeof(struct store_rollup_bucket),
	 "whole-recording rollup buckets"},
	{SEC_WHOLE_ROWS, sizeof(struct store_rollup_row),
	 "whole-recording rollup rows"},
	{SEC_WHOLE_SQUARES, sizeof(struct store_rollup_sq),
	 "whole-recording rollup squares"},
	{SEC_WHOLE_EST, sizeof(struct store_rollup_est),
	 "whole-recording rollup estimates"},
	{SEC_NODE_MAP, sizeof(uint32_t), "node map"},
	{SEC_GC_INFO, sizeof(struct store_gc_info), "GC facts"},
};

static int bad_file(struct err *e, const char *path, uint64_t off,
		    const char *msg)
{
	err_set_at(e, ERR_FORMAT, off, "store: %s", msg);
	err_source(e, path);
	return ERR_FAIL;
}

static int check_open(struct store *s, struct err *e);

int store_open(const char *path, struct store **out, struct err *e)
{
	struct store *s;
	struct stat st;
	int fd;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err_set(e, ERR_IO, "cannot open: %s", strerror(errno));
		err_source(e, path);
		return ERR_FAIL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		err_set(e, ERR_IO, "not a regular file");
		err_source(e, path);
		close(fd);
		return ERR_FAIL;
	}
	if ((uint64_t)st.st_size < STORE_HEADER_LEN) {
		close(fd);
		return bad_file(e, path, 0,
				"too short for a store header: not a heapsift "
				"store, or cut short");
	}
	s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(path);
	s->map_len = (size_t)st.st_size;
	s->map = mmap(NULL, s->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
	s->mapped = true;
	close(fd);
	if (s->map == MAP_FAILED) {
		err_set(e, ERR_IO, "cannot map: %s", strerror(errno));
		err_source(e, path);
		free(s->path);
		free(s);
		return ERR_FAIL;
	}
	if (check_open(s, e) < 0)
		return ERR_FAIL;
	*out = s;
	return 0;
}

int store_open_memory(const char *name, const void *data, size_t len,
		      struct store **out, struct err *e)
{
	struct store *s;

	*out = NULL;
	if (len < STORE_HEADER_LEN)
		return bad_file(e, name, 0,
				"too short for a store header: not a heapsift "
				"store, or cut short");
	s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(name);
	s->map = data;
	s->map_len = len;
	if (check_open(s, e) < 0)
		return ERR_FAIL;
	*out = s;
	return 0;
}

/* The checks of store_open() past the mapping; frees s on failure. */
static int check_open(struct store *s, struct err *e)
{
	const char *path = s->path;
	struct store_header h;
	const struct store_toc_entry *toc;
	uint64_t toc_len;
	uint32_t i, crc;

	memcpy(&h, s->map, sizeof(h));
	if (memcmp(h.magic, STORE_MAGIC, STORE_MAGIC_LEN) != 0) {
		bad_file(e, path, 0, "not a heapsift store (bad magic)");
		store_close(s);
		return ERR_FAIL;
	}
	crc = h.header_crc;
	h.header_crc = 0;
	if (crc32c_update(0, &h, sizeof(h)) != crc) {
		bad_file(e, path, 40, "header checksum mismatch");
		store_close(s);
		return ERR_FAIL;
	}
	if (h.major < STORE_MAJOR_OLDEST) {
		/* 1.x kept samples in columns; nothing is lost by importing
		 * the recordings again, and two readers are not worth it */
		err_set_at(e, ERR_UNSUPPORTED, 8,
			   "store: format version %u.%u, made by an older "
			   "heapsift; this heapsift reads %u.x to %u.x: "
			   "import the recordings again (heapsift import -o "
			   "NEW.hsdb INPUT...)",
			   h.major, h.minor, STORE_MAJOR_OLDEST, STORE_MAJOR);
		err_source(e, path);
		store_close(s);
		return ERR_FAIL;
	}
	if (h.major > STORE_MAJOR) {
		err_set_at(e, ERR_UNSUPPORTED, 8,
			   "store: format version %u.%u, made by a newer "
			   "heapsift; this heapsift reads %u.x to %u.x",
			   h.major, h.minor, STORE_MAJOR_OLDEST, STORE_MAJOR);
		err_source(e, path);
		store_close(s);
		return ERR_FAIL;
	}
	s->major = h.major;
	if (h.file_len != s->map_len) {
		bool shorter = h.file_len > s->map_len;

		bad_file(e, path, 16,
			 shorter ? "file is shorter than its header says "
				   "(cut short)"
				 : "file is longer than its header says");
		store_close(s);
		return ERR_FAIL;
	}
	if (!u64_mul(h.n_sections, STORE_TOC_ENTRY_LEN, &toc_len) ||
	    !range_ok(h.toc_offset, toc_len, s->map_len) ||
	    h.toc_offset % STORE_ALIGN) {
		bad_file(e, path, 24,
			 "table of sections lies outside the file");
		store_close(s);
		return ERR_FAIL;
	}
	toc = (const struct store_toc_entry *)(s->map + h.toc_offset);
	if (crc32c_update(0, toc, (size_t)toc_len) != h.toc_crc) {
		bad_file(e, path, h.toc_offset,
			 "table of sections checksum mismatch");
		store_close(s);
		return ERR_FAIL;
	}
	for (i = 0; i < h.n_sections; i++) {
		const struct store_toc_entry *t = &toc[i];
		int k;

		for (k = 0; k < I__COUNT; k++)
			if (known[k].id == t->id)
				break;
		if (k == I__COUNT)
			continue; /* a newer writer's section: skipped */
		if (s->sec[k].present || t->rec_len != known[k].rec_len ||
		    !range_ok(t->offset, t->length, s->map_len) ||
		    t->offset % STORE_ALIGN || t->length % t->rec_len) {
			struct buf m = BUF_INIT;

			buf_addf(&m,
				 "section '%s' is malformed (offset %llu, "
				 "length %llu)",
				 known[k].name, (unsigned long long)t->offset,
				 (unsigned long long)t->length);
			bad_file(e, path,
				 h.toc_offset + i * STORE_TOC_ENTRY_LEN,
				 m.data);
			buf_release(&m);
			store_close(s);
			return ERR_FAIL;
		}
		s->sec[k].p = s->map + t->offset;
		s->sec[k].len = t->length;
		s->sec[k].n = t->length / t->rec_len;
		s->sec[k].crc = t->crc;
		s->sec[k].present = true;
	}
	if (!s->sec[I_STRINGS].present || !s->sec[I_NODES].present ||
	    !s->sec[I_STRINGS].len || !s->sec[I_NODES].n) {
		bad_file(e, path, 0,
			 "the strings or stack sections are missing");
		store_close(s);
		return ERR_FAIL;
	}
	/* 4.x blocks hold the writer's node ids, meaningless without the
	 * map; before 4.0 they are the trie's own (a map is ignored) */
	if (h.major >= 4 && s->sec[I_S_INDEX].n &&
	    !s->sec[I_NODE_MAP].present) {
		bad_file(e, path, 0, "the node map section is missing");
		store_close(s);
		return ERR_FAIL;
	}
	if (h.major < 4)
		s->sec[I_NODE_MAP].present = false;
	return 0;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	store_attach(s, NULL, NULL);
	store_samples_free(s);
	store_rollups_free(s);
	if (s->mapped && s->map && s->map != MAP_FAILED)
		munmap((void *)s->map, s->map_len);
	free(s->path);
	free(s);
}

void store_attach(struct store *s, void *p, void (*release)(void *))
{
	if (s->attached_release)
		s->attached_release(s->attached);
	s->attached = p;
	s->attached_release = release;
}

void *store_attached(const struct store *s)
{
	return s->attached;
}

const char *store_str(const struct store *s, uint32_t off)
{
	const struct section *st = &s->sec[I_STRINGS];

	/* the pool ends in NUL (checked when it is), so any offset inside
	 * it starts a terminated string */
	if (st->state != 1 || off >= st->len)
		return "";
	return (const char *)st->p + off;
}

/* --- checking a section on first use ------------------------------------- */

struct check {
	struct store *s;
	int idx;
	bool ok;
	uint64_t at; /* record that failed */
	const char *why;
};

static bool ref_ok(const struct store *s, int idx, uint32_t v, bool none_ok)
{
	return (none_ok && v == STORE_NONE) || v < s->sec[idx].n;
}

static bool str_ok(const struct store *s, uint32_t off)
{
	return off < s->sec[I_STRINGS].len;
}

/* n records from first, all inside table idx (overflow-safe). */
static bool run_ok(const struct store *s, int idx, uint32_t first, uint32_t n)
{
	return first <= s->sec[idx].n && n <= s->sec[idx].n - first;
}

#define FAIL(i, msg)            \
	do {                    \
		c->at = (i);    \
		c->why = (msg); \
		return false;   \
	} while (0)

/* Are nodes [0, n) of a trie numbered depth first?  Walking them in
 * order with the stack of open subtrees, each node's parent is the
 * innermost subtree still open at it.  *bad: the first that is not. */
static bool numbered_depth_first(const struct store_node *r, uint64_t n,
				 uint64_t *bad)
{
	uint32_t *open_ = xmalloc(n * sizeof(uint32_t));
	uint64_t top = 0, i;
	bool ok = true;

	open_[top++] = 0;
	for (i = 1; i < n && ok; i++) {
		while (top && r[open_[top - 1]].end <= i)
			top--;
		ok = top && open_[top - 1] == r[i].parent;
		open_[top++] = (uint32_t)i;
	}
	free(open_);
	*bad = i - 1;
	return ok;
}

/* The strings, and the tables that name things: the recordings, their
 * settings and counts, the threads and the classes. */
static bool check_name_refs(struct check *c)
{
	const struct store *s = c->s;
	const struct section *sec = &s->sec[c->idx];
	uint64_t i;

	switch (c->idx) {
	case I_STRINGS:
		if (!sec->len || sec->p[sec->len - 1] != '\0' || sec->p[0])
			FAIL(0, "does not start and end with NUL");
		return true;
	case I_RECORDINGS: {
		const struct store_recording *r = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!str_ok(s, r[i].source) ||
			    !str_ok(s, r[i].format) ||
			    !str_ok(s, r[i].jvm_name) ||
			    !str_ok(s, r[i].jvm_version) ||
			    !range_ok(r[i].first_setting, r[i].n_settings,
				      s->sec[I_SETTINGS].n) ||
			    !range_ok(r[i].first_count, r[i].n_counts,
				      s->sec[I_COUNTS].n))
				FAIL(i, "refers outside its tables");
		return true;
	}
	case I_SETTINGS: {
		const struct store_setting *r = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!str_ok(s, r[i].name) || !str_ok(s, r[i].value))
				FAIL(i, "refers outside the strings");
		return true;
	}
	case I_COUNTS: {
		const struct store_count *r = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!str_ok(s, r[i].name))
				FAIL(i, "refers outside the strings");
		return true;
	}
	case I_THREADS: {
		const struct store_thread *r = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!str_ok(s, r[i].name))
				FAIL(i, "refers outside the strings");
		return true;
	}
	case I_CLASSES: {
		const struct store_class *r = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!str_ok(s, r[i].display) || !str_ok(s, r[i].raw))
				FAIL(i, "refers outside the strings");
		return true;
	}
	default:
		return true;
	}
}

/* The stacks: methods, frames, the trie of nodes and the map from the
 * writer's node ids to the trie's. */
static bool check_stack_refs(struct check *c)
{
	const struct store *s = c->s;
	const struct section *sec = &s->sec[c->idx];
	uint64_t i;

	switch (c->idx) {
	case I_METHODS: {
		const struct store_method *r = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!ref_ok(s, I_CLASSES, r[i].cls, false) ||
			    !str_ok(s, r[i].name) ||
			    !str_ok(s, r[i].descriptor))
				FAIL(i, "refers outside its tables");
		return true;
	}
	case I_FRAMES: {
		const struct store_frame *r = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!ref_ok(s, I_METHODS, r[i].method, false) ||
			    !str_ok(s, r[i].type))
				FAIL(i, "refers outside its tables");
		return true;
	}
	case I_NODES: {
		const struct store_node *r = (const void *)sec->p;

		if (r[0].parent != STORE_NONE || r[0].depth ||
		    r[0].end != sec->n)
			FAIL(0, "root node is malformed");
		for (i = 1; i < sec->n; i++)
			if (r[i].parent >= i ||
			    !ref_ok(s, I_FRAMES, r[i].frame, false) ||
			    r[i].depth != r[r[i].parent].depth + 1 ||
			    r[i].end <= i || r[i].end > r[r[i].parent].end)
				FAIL(i, "is not a depth-first trie");
		if (!numbered_depth_first(r, sec->n, &i))
			FAIL(i, "is not numbered depth first");
		return true;
	}
	case I_NODE_MAP: {
		const uint32_t *r = (const void *)sec->p;
		uint64_t n = s->sec[I_NODES].n;
		uint8_t *seen;

		/* a permutation of the trie's ids: every sample's node is
		 * then one node, and distinct ids stay distinct */
		if (sec->n != n)
			FAIL(0, "does not hold one entry per stack node");
		seen = xcalloc((size_t)n, 1);
		for (i = 0; i < n; i++) {
			if (r[i] >= n || seen[r[i]]) {
				free(seen);
				FAIL(i, "is not a permutation of the stack "
					"nodes");
			}
			seen[r[i]] = 1;
		}
		free(seen);
		return true;
	}
	default:
		return true;
	}
}

/* The samples' index, the rollups' indexes and the per-row and
 * per-recording sums beside the rollups. */
static bool check_index_refs(struct check *c)
{
	const struct store *s = c->s;
	const struct section *sec = &s->sec[c->idx];
	uint64_t i;

	switch (c->idx) {
	case I_S_INDEX: {
		const char *why = store_index_check(c->s, &c->at);

		if (why) {
			c->why = why;
			return false;
		}
		return true;
	}
	case I_R_BUCKETS:
	case I_W_BUCKETS: {
		const char *why =
			c->idx == I_R_BUCKETS
				? store_rollup_index_check(c->s, &c->at)
				: store_whole_index_check(c->s, &c->at);

		if (why) {
			c->why = why;
			return false;
		}
		return true;
	}
	case I_R_SQUARES:
		/* one per row: the values themselves can be anything (a sum
		 * held at the top included); store_verify() rebuilds them */
		if (sec->n != s->sec[I_R_ROWS].n)
			FAIL(0, "does not hold one entry per rollup row");
		return true;
	case I_R_EST:
		/* as the squares; store_verify() rebuilds them */
		if (sec->n != s->sec[I_R_ROWS].n)
			FAIL(0, "does not hold one entry per rollup row");
		return true;
	case I_W_SQUARES:
	case I_W_EST:
		if (sec->n != s->sec[I_W_ROWS].n)
			FAIL(0, "does not hold one entry per whole-recording "
				"rollup row");
		return true;
	case I_ESTIMATES: {
		const struct store_estimate *r = (const void *)sec->p;

		if (sec->n != s->sec[I_RECORDINGS].n)
			FAIL(0, "does not hold one entry per recording");
		for (i = 0; i < sec->n; i++)
			if (r[i].typical_tlab < 0 || r[i].reserved ||
			    (r[i].tlab_hi > r[i].all_hi ||
			     (r[i].tlab_hi == r[i].all_hi &&
			      r[i].tlab_lo > r[i].all_lo)))
				FAIL(i, "holds impossible sums");
		return true;
	}

	default:
		return true;
	}
}

/* What the collector and the liveness say: old objects, liveness, GCs
 * and their details, heap summaries. */
static bool check_gc_refs(struct check *c)
{
	const struct store *s = c->s;
	const struct section *sec = &s->sec[c->idx];
	uint64_t i;

	switch (c->idx) {
	case I_OLD: {
		const struct store_old_object *r = (const void *)sec->p;

		/* that each is an old object's: store_seqs_check() */
		for (i = 0; i < sec->n; i++)
			if (!str_ok(s, r[i].root) ||
			    (i && r[i].sample <= r[i - 1].sample))
				FAIL(i, "is not one entry per old-object "
					"sample, in sample order");
		return true;
	}
	case I_LIVE: {
		const struct store_liveness *r = (const void *)sec->p;

		/* the samples' kinds: store_seqs_check() */
		for (i = 0; i < sec->n; i++) {
			if (i && r[i].sample <= r[i - 1].sample)
				FAIL(i,
				     "is not one entry per sample, in sample "
				     "order");
			if (r[i].state < STORE_LIVE_DEAD ||
			    r[i].state > STORE_LIVE_AT_CUT)
				FAIL(i, "has an unknown state");
			if ((r[i].state == STORE_LIVE_DEAD) !=
			    (r[i].death_ns != INT64_MIN))
				FAIL(i, "has a death time if and only if it is "
					"not dead");
		}
		return true;
	}
	case I_GCS: {
		const struct store_gc *r = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!ref_ok(s, I_RECORDINGS, r[i].recording, false) ||
			    (i && r[i].recording < r[i - 1].recording))
				FAIL(i, "is not in recording order, or refers "
					"to no recording");
		return true;
	}
	case I_GC_INFO: {
		const struct store_gc_info *r = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!ref_ok(s, I_RECORDINGS, r[i].recording, false) ||
			    (i && r[i].recording < r[i - 1].recording) ||
			    !str_ok(s, r[i].name) || !str_ok(s, r[i].cause) ||
			    !str_ok(s, r[i].phase))
				FAIL(i, "is not in recording order, or refers "
					"outside its tables");
		return true;
	}
	case I_HEAP: {
		const struct store_heap *r = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!ref_ok(s, I_RECORDINGS, r[i].recording, false) ||
			    !str_ok(s, r[i].when))
				FAIL(i, "refers outside its tables");
		return true;
	}
	default:
		return true;
	}
}

/* The code-heap snapshots and the heaps, maps, blocks and stats they
 * own. */
static bool check_codeheap_refs(struct check *c)
{
	const struct store *s = c->s;
	const struct section *sec = &s->sec[c->idx];
	uint64_t i;

	switch (c->idx) {
	case I_CH_SNAPS: {
		const struct store_ch_snapshot *r = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!ref_ok(s, I_RECORDINGS, r[i].recording, false) ||
			    !str_ok(s, r[i].kind) ||
			    !run_ok(s, I_CH_HEAPS, r[i].first_heap,
				    r[i].n_heaps) ||
			    !run_ok(s, I_CH_STATS, r[i].first_stat,
				    r[i].n_stats) ||
			    !run_ok(s, I_CH_BLOCKS, r[i].first_block,
				    r[i].n_blocks))
				FAIL(i, "refers outside its tables");
		return true;
	}
	case I_CH_HEAPS: {
		const struct store_ch_heap *r = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!ref_ok(s, I_CH_SNAPS, r[i].snapshot, false) ||
			    !str_ok(s, r[i].name) ||
			    !run_ok(s, I_CH_MAPS, r[i].first_map,
				    r[i].n_maps) ||
			    !run_ok(s, I_CH_STATS, r[i].first_stat,
				    r[i].n_stats) ||
			    !run_ok(s, I_CH_BLOCKS, r[i].first_block,
				    r[i].n_blocks))
				FAIL(i, "refers outside its tables");
		return true;
	}
	case I_CH_MAPS: {
		const struct store_ch_map *r = (const void *)sec->p;
		uint64_t cells = s->sec[I_CH_CELLS].len;

		for (i = 0; i < sec->n; i++)
			if (!ref_ok(s, I_CH_HEAPS, r[i].heap, false) ||
			    r[i].measure >= CH__MEASURES ||
			    r[i].part >= CH__PARTS || r[i].cells > cells ||
			    r[i].n > cells - r[i].cells)
				FAIL(i, "refers outside its tables");
		return true;
	}
	case I_CH_BLOCKS: {
		const struct store_ch_block *r = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!str_ok(s, r[i].name) ||
			    !str_ok(s, r[i].compiler) ||
			    r[i].type >= CHB__COUNT)
				FAIL(i, "refers outside its tables");
		return true;
	}
	case I_CH_STATS: {
		const struct store_ch_stat *r = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!str_ok(s, r[i].name))
				FAIL(i, "refers outside its tables");
		return true;
	}
	default:
		return true;
	}
}

/* Does section c->idx refer only inside the tables and strings it names,
 * in the order the readers rely on?  On failure, c->at and c->why say
 * which record and why. */
static bool check_refs(struct check *c)
{
	switch (c->idx) {
	case I_STRINGS:
	case I_RECORDINGS:
	case I_SETTINGS:
	case I_COUNTS:
	case I_THREADS:
	case I_CLASSES:
		return check_name_refs(c);
	case I_METHODS:
	case I_FRAMES:
	case I_NODES:
	case I_NODE_MAP:
		return check_stack_refs(c);
	case I_S_INDEX:
	case I_R_BUCKETS:
	case I_W_BUCKETS:
	case I_R_SQUARES:
	case I_R_EST:
	case I_W_SQUARES:
	case I_W_EST:
	case I_ESTIMATES:
		return check_index_refs(c);
	case I_OLD:
	case I_LIVE:
	case I_GCS:
	case I_GC_INFO:
	case I_HEAP:
		return check_gc_refs(c);
	case I_CH_SNAPS:
	case I_CH_HEAPS:
	case I_CH_MAPS:
	case I_CH_BLOCKS:
	case I_CH_STATS:
		return check_codeheap_refs(c);
	default:
		return true;
	}
}

#undef FAIL

/* The tables a section's references point into, checked first: index
 * plus one, 0 ends a list. */
#define D(x) ((x) + 1)
static const int deps[I__COUNT][4] = {
	[I_RECORDINGS] = {D(I_STRINGS), D(I_SETTINGS), D(I_COUNTS)},
	[I_SETTINGS] = {D(I_STRINGS)},
	[I_COUNTS] = {D(I_STRINGS)},
	[I_THREADS] = {D(I_STRINGS)},
	[I_CLASSES] = {D(I_STRINGS)},
	[I_METHODS] = {D(I_STRINGS), D(I_CLASSES)},
	[I_FRAMES] = {D(I_STRINGS), D(I_METHODS)},
	[I_NODES] = {D(I_FRAMES)},
	[I_S_INDEX] = {D(I_RECORDINGS), D(I_THREADS), D(I_CLASSES), D(I_NODES)},
	[I_OLD] = {D(I_STRINGS), D(I_S_INDEX)},
	[I_HEAP] = {D(I_STRINGS), D(I_RECORDINGS)},
	[I_LIVE] = {D(I_S_INDEX)},
	[I_GCS] = {D(I_RECORDINGS)},
	[I_GC_INFO] = {D(I_STRINGS), D(I_RECORDINGS)},
	[I_CH_SNAPS] = {D(I_STRINGS), D(I_RECORDINGS), D(I_CH_HEAPS)},
	[I_CH_HEAPS] = {D(I_STRINGS), D(I_CH_MAPS), D(I_CH_BLOCKS),
			D(I_CH_STATS)},
	[I_CH_MAPS] = {D(I_CH_CELLS)},
	[I_CH_BLOCKS] = {D(I_STRINGS)},
	[I_CH_STATS] = {D(I_STRINGS)},
	[I_R_BUCKETS] = {D(I_RECORDINGS), D(I_S_INDEX), D(I_R_ROWS)},
	[I_ESTIMATES] = {D(I_RECORDINGS)},
	[I_W_BUCKETS] = {D(I_R_BUCKETS), D(I_W_ROWS)},
	[I_NODE_MAP] = {D(I_NODES)},
};
#undef D

static int section(struct store *s, int idx, struct err *e)
{
	struct section *sec = &s->sec[idx];
	struct check c = {s, idx, true, 0, NULL};
	int k;

	if (sec->state == 1)
		return 0;
	if (sec->state == -1) {
		*e = s->bad[idx];
		return ERR_FAIL;
	}
	for (k = 0; k < 4 && deps[idx][k]; k++)
		if (section(s, deps[idx][k] - 1, e) < 0)
			return ERR_FAIL;
	err_init(&s->bad[idx]);
	/* the sample blocks are checked a block at a time, when read
	 * (store_read_samples.c), the rollup rows a bucket at a time
	 * (store_read_rollup.c); store_verify() checks their whole too */
	if (idx == I_S_BLOCKS || idx == I_R_ROWS || idx == I_W_ROWS) {
		sec->state = 1;
		return 0;
	}
	if (sec->present &&
	    crc32c_update(0, sec->p, (size_t)sec->len) != sec->crc) {
		err_set_at(&s->bad[idx], ERR_FORMAT,
			   (uint64_t)(sec->p - s->map),
			   "store: section '%s' checksum mismatch: the file "
			   "is damaged",
			   known[idx].name);
	} else if (sec->present && !check_refs(&c)) {
		err_set_at(&s->bad[idx], ERR_FORMAT,
			   (uint64_t)(sec->p - s->map) +
				   c.at * known[idx].rec_len,
			   "store: section '%s', record %llu %s",
			   known[idx].name, (unsigned long long)c.at, c.why);
	}
	if (err_isset(&s->bad[idx])) {
		err_source(&s->bad[idx], s->path);
		sec->state = -1;
		*e = s->bad[idx];
		return ERR_FAIL;
	}
	sec->state = 1;
	/* old objects and liveness records name samples of their kinds */
	if ((idx == I_OLD &&
	     store_seqs_check(s, idx, 1u << SAMPLE_OLD_OBJECT, e) < 0) ||
	    (idx == I_LIVE &&
	     store_seqs_check(s, idx,
			      1u << SAMPLE_OLD_OBJECT | 1u << SAMPLE_AGENT |
				      1u << SAMPLE_AP_LIVE |
				      1u << SAMPLE_DD_LIVE,
			      e) < 0)) {
		s->bad[idx] = *e;
		sec->state = -1;
		return ERR_FAIL;
	}
	return 0;
}

int store_section(struct store *s, int idx, struct err *e)
{
	return section(s, idx, e);
}

const char *store_section_name(int idx)
{
	return known[idx].name;
}

#define TABLE(fn, idx, type)                                                  \
	int fn(struct store *s, const type **out, uint32_t *n, struct err *e) \
	{                                                                     \
		if (section(s, idx, e) < 0)                                   \
			return ERR_FAIL;                                      \
		*out = (const type *)s->sec[idx].p;                           \
		*n = (uint32_t)(s->sec[idx].n > UINT32_MAX ? UINT32_MAX       \
							   : s->sec[idx].n);  \
		return 0;                                                     \
	}

TABLE(store_recordings, I_RECORDINGS, struct store_recording)
TABLE(store_settings, I_SETTINGS, struct store_setting)
TABLE(store_counts, I_COUNTS, struct store_count)
TABLE(store_threads, I_THREADS, struct store_thread)
TABLE(store_classes, I_CLASSES, struct store_class)
TABLE(store_methods, I_METHODS, struct store_method)
TABLE(store_frames, I_FRAMES, struct store_frame)
TABLE(store_nodes, I_NODES, struct store_node)
TABLE(store_heap, I_HEAP, struct store_heap)
TABLE(store_old_objects, I_OLD, struct store_old_object)
TABLE(store_liveness, I_LIVE, struct store_liveness)
TABLE(store_gcs, I_GCS, struct store_gc)
TABLE(store_gc_info, I_GC_INFO, struct store_gc_info)
TABLE(store_ch_snapshots, I_CH_SNAPS, struct store_ch_snapshot)
TABLE(store_ch_heaps, I_CH_HEAPS, struct store_ch_heap)
TABLE(store_ch_maps, I_CH_MAPS, struct store_ch_map)
TABLE(store_ch_blocks, I_CH_BLOCKS, struct store_ch_block)
TABLE(store_ch_stats, I_CH_STATS, struct store_ch_stat)

int store_ch_cells(struct store *s, const uint8_t **out, uint64_t *n,
		   struct err *e)
{
	if (section(s, I_CH_CELLS, e) < 0)
		return ERR_FAIL;
	*out = s->sec[I_CH_CELLS].p;
	*n = s->sec[I_CH_CELLS].len;
	return 0;
}

#undef TABLE

int store_verify(struct store *s, struct err *e)
{
	static const int row_secs[] = {I_R_ROWS, I_W_ROWS};
	int i;

	for (i = 0; i < I__COUNT; i++)
		if (section(s, i, e) < 0)
			return ERR_FAIL;
	for (i = 0; i < 2; i++) {
		const struct section *rows = &s->sec[row_secs[i]];

		if (rows->present &&
		    crc32c_update(0, rows->p, (size_t)rows->len) != rows->crc) {
			err_set_at(e, ERR_FORMAT, (uint64_t)(rows->p - s->map),
				   "store: section '%s' checksum mismatch: "
				   "the file is damaged",
				   known[row_secs[i]].name);
			err_source(e, s->path);
			return ERR_FAIL;
		}
	}
	if (store_blocks_verify(s, e) < 0 || store_estimates_verify(s, e) < 0)
		return ERR_FAIL;
	return store_rollups_verify(s, e);
}
