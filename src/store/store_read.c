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

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "importers/sink.h"
#include "util/buf.h"
#include "util/crc32c.h"
#include "util/size.h"
#include "util/xalloc.h"

enum sec_index {
	I_STRINGS,
	I_RECORDINGS,
	I_SETTINGS,
	I_COUNTS,
	I_THREADS,
	I_CLASSES,
	I_METHODS,
	I_FRAMES,
	I_NODES,
	I_S_TIME,
	I_S_RECORDING,
	I_S_KIND,
	I_S_FLAGS,
	I_S_THREAD,
	I_S_CLASS,
	I_S_NODE,
	I_S_BYTES,
	I_S_SIZE,
	I_OLD,
	I_HEAP,
	I_LIVE,
	I_GCS,
	I_CH_SNAPS,
	I_CH_HEAPS,
	I_CH_MAPS,
	I_CH_CELLS,
	I_CH_BLOCKS,
	I_CH_STATS,
	I__COUNT
};

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
	{SEC_S_TIME, 8, "sample times"},
	{SEC_S_RECORDING, 4, "sample recordings"},
	{SEC_S_KIND, 1, "sample kinds"},
	{SEC_S_FLAGS, 1, "sample flags"},
	{SEC_S_THREAD, 4, "sample threads"},
	{SEC_S_CLASS, 4, "sample classes"},
	{SEC_S_NODE, 4, "sample stacks"},
	{SEC_S_BYTES, 8, "sample bytes"},
	{SEC_S_SIZE, 8, "sample sizes"},
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
};

struct section {
	const unsigned char *p;
	uint64_t len;
	uint64_t n; /* records */
	uint32_t crc;
	bool present;
	int state; /* 0 unchecked, 1 good, -1 bad (err kept) */
};

struct store {
	char *path;
	const unsigned char *map;
	size_t map_len;
	bool mapped; /* else the caller's memory */
	struct section sec[I__COUNT];
	struct err bad[I__COUNT];
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
	if (h.major != STORE_MAJOR) {
		err_set_at(e, ERR_UNSUPPORTED, 8,
			   "store: format version %u.%u; this heapsift reads "
			   "%u.x",
			   h.major, h.minor, STORE_MAJOR);
		err_source(e, path);
		store_close(s);
		return ERR_FAIL;
	}
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
	/* every sample column has one value per sample */
	for (i = I_S_TIME; i <= I_S_SIZE; i++)
		if (s->sec[i].n != s->sec[I_S_TIME].n) {
			bad_file(e, path, 0, "sample columns differ in length");
			store_close(s);
			return ERR_FAIL;
		}
	if (!s->sec[I_STRINGS].present || !s->sec[I_NODES].present ||
	    !s->sec[I_STRINGS].len || !s->sec[I_NODES].n) {
		bad_file(e, path, 0,
			 "the strings or stack sections are missing");
		store_close(s);
		return ERR_FAIL;
	}
	return 0;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	if (s->mapped && s->map && s->map != MAP_FAILED)
		munmap((void *)s->map, s->map_len);
	free(s->path);
	free(s);
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

static bool check_refs(struct check *c)
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
		/* depth first: walking the nodes in order with the stack of
		 * open subtrees, each node's parent is the innermost subtree
		 * still open at it */
		{
			uint32_t *open_ = xmalloc(sec->n * sizeof(uint32_t));
			uint64_t top = 0;
			bool ok = true;

			open_[top++] = 0;
			for (i = 1; i < sec->n && ok; i++) {
				while (top && r[open_[top - 1]].end <= i)
					top--;
				ok = top && open_[top - 1] == r[i].parent;
				open_[top++] = (uint32_t)i;
			}
			free(open_);
			if (!ok)
				FAIL(i - 1, "is not numbered depth first");
		}
		return true;
	}
	case I_S_TIME: {
		const int64_t *t = (const void *)sec->p;

		for (i = 1; i < sec->n; i++)
			if (t[i] < t[i - 1])
				FAIL(i, "is not in time order");
		return true;
	}
	case I_S_RECORDING: {
		const uint32_t *v = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!ref_ok(s, I_RECORDINGS, v[i], false))
				FAIL(i, "refers to no recording");
		return true;
	}
	case I_S_KIND: {
		for (i = 0; i < sec->n; i++)
			if (sec->p[i] >= SAMPLE__COUNT)
				FAIL(i, "holds an unknown sample kind");
		return true;
	}
	case I_S_THREAD: {
		const uint32_t *v = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!ref_ok(s, I_THREADS, v[i], true))
				FAIL(i, "refers to no thread");
		return true;
	}
	case I_S_CLASS: {
		const uint32_t *v = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!ref_ok(s, I_CLASSES, v[i], true))
				FAIL(i, "refers to no class");
		return true;
	}
	case I_S_NODE: {
		const uint32_t *v = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!ref_ok(s, I_NODES, v[i], false))
				FAIL(i, "refers to no stack");
		return true;
	}
	case I_OLD: {
		const struct store_old_object *r = (const void *)sec->p;
		const uint8_t *kind = s->sec[I_S_KIND].p;

		for (i = 0; i < sec->n; i++)
			if (r[i].sample >= s->sec[I_S_TIME].n ||
			    !str_ok(s, r[i].root) ||
			    kind[r[i].sample] != SAMPLE_OLD_OBJECT ||
			    (i && r[i].sample <= r[i - 1].sample))
				FAIL(i, "is not one entry per old-object "
					"sample, in sample order");
		return true;
	}
	case I_LIVE: {
		const struct store_liveness *r = (const void *)sec->p;
		const uint8_t *kind = s->sec[I_S_KIND].p;

		for (i = 0; i < sec->n; i++) {
			if (r[i].sample >= s->sec[I_S_TIME].n ||
			    (i && r[i].sample <= r[i - 1].sample))
				FAIL(i,
				     "is not one entry per sample, in sample "
				     "order");
			if (kind[r[i].sample] != SAMPLE_AGENT &&
			    kind[r[i].sample] != SAMPLE_OLD_OBJECT)
				FAIL(i, "is for a sample of a kind that has "
					"no liveness");
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
	case I_HEAP: {
		const struct store_heap *r = (const void *)sec->p;

		for (i = 0; i < sec->n; i++)
			if (!ref_ok(s, I_RECORDINGS, r[i].recording, false) ||
			    !str_ok(s, r[i].when))
				FAIL(i, "refers outside its tables");
		return true;
	}
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
	[I_S_RECORDING] = {D(I_RECORDINGS)},
	[I_S_THREAD] = {D(I_THREADS)},
	[I_S_CLASS] = {D(I_CLASSES)},
	[I_S_NODE] = {D(I_NODES)},
	[I_OLD] = {D(I_STRINGS), D(I_S_TIME), D(I_S_KIND)},
	[I_HEAP] = {D(I_STRINGS), D(I_RECORDINGS)},
	[I_LIVE] = {D(I_S_TIME), D(I_S_KIND)},
	[I_GCS] = {D(I_RECORDINGS)},
	[I_CH_SNAPS] = {D(I_STRINGS), D(I_RECORDINGS), D(I_CH_HEAPS)},
	[I_CH_HEAPS] = {D(I_STRINGS), D(I_CH_MAPS), D(I_CH_BLOCKS),
			D(I_CH_STATS)},
	[I_CH_MAPS] = {D(I_CH_CELLS)},
	[I_CH_BLOCKS] = {D(I_STRINGS)},
	[I_CH_STATS] = {D(I_STRINGS)},
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
	return 0;
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

int store_samples(struct store *s, struct store_samples *out, struct err *e)
{
	int i;

	for (i = I_S_TIME; i <= I_S_SIZE; i++)
		if (section(s, i, e) < 0)
			return ERR_FAIL;
	out->n = s->sec[I_S_TIME].n;
	out->time_ns = (const int64_t *)s->sec[I_S_TIME].p;
	out->recording = (const uint32_t *)s->sec[I_S_RECORDING].p;
	out->kind = s->sec[I_S_KIND].p;
	out->flags = s->sec[I_S_FLAGS].p;
	out->thread = (const uint32_t *)s->sec[I_S_THREAD].p;
	out->cls = (const uint32_t *)s->sec[I_S_CLASS].p;
	out->node = (const uint32_t *)s->sec[I_S_NODE].p;
	out->bytes = (const int64_t *)s->sec[I_S_BYTES].p;
	out->size = (const int64_t *)s->sec[I_S_SIZE].p;
	return 0;
}

int store_verify(struct store *s, struct err *e)
{
	int i;

	for (i = 0; i < I__COUNT; i++)
		if (section(s, i, e) < 0)
			return ERR_FAIL;
	return 0;
}

/* --- copying into a writer (for --append) ------------------------------- */

static void ch_blocks_out(struct store *s, const struct store_ch_block *b,
			  uint32_t n, struct rec_ch_block *out)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct rec_ch_block *o = &out[i];

		memset(o, 0, sizeof(*o));
		o->kind =
			b[i].flags & STORE_CH_BLOCK_FREE ? CHK_FREE : CHK_USED;
		o->addr = b[i].addr;
		o->size = b[i].size;
		o->type = (enum ch_block_type)b[i].type;
		o->compiler =
			b[i].compiler ? store_str(s, b[i].compiler) : NULL;
		o->level = b[i].level;
		o->temperature = b[i].temperature;
		o->compile_id = b[i].compile_id;
		o->state = b[i].state;
		o->name = b[i].name ? store_str(s, b[i].name) : NULL;
		o->gap = b[i].gap;
		o->gap_blocks = b[i].gap_blocks;
		o->permanent_gap = b[i].flags & STORE_CH_BLOCK_PERMANENT_GAP;
		o->top = b[i].flags & STORE_CH_BLOCK_TOP;
	}
}

static void ch_stats_out(struct store *s, const struct store_ch_stat *st,
			 uint32_t n, struct rec_ch_stat *out)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		out[i].name = store_str(s, st[i].name);
		out[i].value = st[i].value;
	}
}

/* Replay recording r's code-heap snapshots into sink. */
static int ch_replay(struct store *s, const struct sink *sink, uint32_t r,
		     struct err *e)
{
	const struct store_ch_snapshot *sn;
	const struct store_ch_heap *hp;
	const struct store_ch_map *mp;
	const struct store_ch_block *bk;
	const struct store_ch_stat *st;
	const uint8_t *cells;
	uint64_t n_cells;
	uint32_t n_sn, n_hp, n_mp, n_bk, n_st, i, h, k;
	int rc = 0;

	if (store_ch_snapshots(s, &sn, &n_sn, e) < 0 ||
	    store_ch_heaps(s, &hp, &n_hp, e) < 0 ||
	    store_ch_maps(s, &mp, &n_mp, e) < 0 ||
	    store_ch_blocks(s, &bk, &n_bk, e) < 0 ||
	    store_ch_stats(s, &st, &n_st, e) < 0 ||
	    store_ch_cells(s, &cells, &n_cells, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < n_sn && rc >= 0; i++) {
		struct rec_codeheap c;
		struct rec_ch_heap *heaps;
		struct rec_ch_stat *stats;
		struct rec_ch_block *blocks;

		if (sn[i].recording != r)
			continue;
		memset(&c, 0, sizeof(c));
		c.kind = store_str(s, sn[i].kind);
		c.line = sn[i].line;
		c.time_ns = sn[i].time_ns;
		heaps = xcalloc(sn[i].n_heaps + 1, sizeof(*heaps));
		stats = xcalloc(sn[i].n_stats + 1, sizeof(*stats));
		blocks = xcalloc(sn[i].n_blocks + 1, sizeof(*blocks));
		ch_stats_out(s, st + sn[i].first_stat, sn[i].n_stats, stats);
		ch_blocks_out(s, bk + sn[i].first_block, sn[i].n_blocks,
			      blocks);
		for (h = 0; h < sn[i].n_heaps; h++) {
			const struct store_ch_heap *x =
				&hp[sn[i].first_heap + h];
			struct rec_ch_heap *o = &heaps[h];
			struct rec_ch_map *maps;
			struct rec_ch_block *hb;
			struct rec_ch_stat *hs;

			o->name = store_str(s, x->name);
			o->low = x->low;
			o->high = x->high;
			o->high_reserved = x->high_reserved;
			o->segment_size = x->segment_size;
			o->granule_size = x->granule_size;
			o->n_granules = x->n_granules;
			o->committed = x->committed;
			o->reserved = x->reserved;
			o->used = x->used;
			o->free = x->free;
			o->max_used = x->max_used;
			o->used_blocks = x->used_blocks;
			o->free_blocks = x->free_blocks;
			o->placement_estimated =
				x->flags & STORE_CH_PLACEMENT_ESTIMATED;
			maps = xcalloc(x->n_maps + 1, sizeof(*maps));
			for (k = 0; k < x->n_maps; k++) {
				const struct store_ch_map *m =
					&mp[x->first_map + k];

				maps[k].measure = (enum ch_measure)m->measure;
				maps[k].part = (enum ch_part)m->part;
				maps[k].bundle = m->flags & STORE_CH_MAP_BUNDLE;
				maps[k].cells = cells + m->cells;
				maps[k].n = m->n;
			}
			hb = xcalloc(x->n_blocks + 1, sizeof(*hb));
			ch_blocks_out(s, bk + x->first_block, x->n_blocks, hb);
			hs = xcalloc(x->n_stats + 1, sizeof(*hs));
			ch_stats_out(s, st + x->first_stat, x->n_stats, hs);
			o->maps = maps;
			o->n_maps = x->n_maps;
			o->blocks = hb;
			o->n_blocks = x->n_blocks;
			o->stats = hs;
			o->n_stats = x->n_stats;
		}
		c.heaps = heaps;
		c.n_heaps = sn[i].n_heaps;
		c.stats = stats;
		c.n_stats = sn[i].n_stats;
		c.blocks = blocks;
		c.n_blocks = sn[i].n_blocks;
		if (sink->ops->codeheap)
			rc = sink->ops->codeheap(sink->ctx, &c);
		for (h = 0; h < sn[i].n_heaps; h++) {
			free((void *)heaps[h].maps);
			free((void *)heaps[h].blocks);
			free((void *)heaps[h].stats);
		}
		free(heaps);
		free(stats);
		free(blocks);
	}
	if (rc < 0)
		return err_set(e, ERR_IO, "store: copying failed");
	return 0;
}

int store_writer_add_store(struct store_writer *w, struct store *s,
			   struct err *e)
{
	const struct sink *sink = store_writer_sink(w);
	const struct store_recording *recs;
	const struct store_setting *sets;
	const struct store_count *counts;
	const struct store_thread *threads;
	const struct store_class *classes;
	const struct store_method *methods;
	const struct store_frame *frames;
	const struct store_node *nodes;
	const struct store_heap *heap;
	const struct store_old_object *old;
	const struct store_liveness *live;
	const struct store_gc *gcs;
	struct store_samples sm;
	uint32_t n_recs, n_sets, n_counts, n_threads, n_classes, n_methods,
		n_frames, n_nodes, n_heap, n_old, n_live, n_gcs, r;
	struct rec_frame *fbuf;
	struct rec_setting *sbuf;
	struct rec_count *cbuf;
	uint64_t i, oi, li;
	int rc = 0;

	if (store_verify(s, e) < 0 ||
	    store_recordings(s, &recs, &n_recs, e) < 0 ||
	    store_settings(s, &sets, &n_sets, e) < 0 ||
	    store_counts(s, &counts, &n_counts, e) < 0 ||
	    store_threads(s, &threads, &n_threads, e) < 0 ||
	    store_classes(s, &classes, &n_classes, e) < 0 ||
	    store_methods(s, &methods, &n_methods, e) < 0 ||
	    store_frames(s, &frames, &n_frames, e) < 0 ||
	    store_nodes(s, &nodes, &n_nodes, e) < 0 ||
	    store_heap(s, &heap, &n_heap, e) < 0 ||
	    store_old_objects(s, &old, &n_old, e) < 0 ||
	    store_liveness(s, &live, &n_live, e) < 0 ||
	    store_gcs(s, &gcs, &n_gcs, e) < 0 || store_samples(s, &sm, e) < 0)
		return ERR_FAIL;
	(void)n_threads;
	(void)n_classes;
	(void)n_methods;
	(void)n_frames;
	fbuf = xmalloc(sizeof(*fbuf) * (n_nodes ? n_nodes : 1));
	sbuf = xmalloc(sizeof(*sbuf) * (n_sets ? n_sets : 1));
	cbuf = xmalloc(sizeof(*cbuf) * (n_counts ? n_counts : 1));
	for (r = 0; r < n_recs && rc >= 0; r++) {
		struct rec_recording rr;
		uint32_t k;

		for (i = 0, oi = 0, li = 0; i < sm.n && rc >= 0; i++) {
			struct rec_sample x;
			struct rec_thread th;
			struct rec_stack st;
			uint32_t node = sm.node[i], depth = 0;

			if (sm.recording[i] != r)
				continue;
			rec_sample_init(&x, (enum sample_kind)sm.kind[i]);
			x.time_ns = sm.time_ns[i];
			switch (x.kind) {
			case SAMPLE_TLAB_NEW:
				x.tlab_size = sm.bytes[i];
				x.alloc_size = sm.size[i];
				break;
			case SAMPLE_TLAB_OUTSIDE:
				x.alloc_size = sm.bytes[i];
				break;
			case SAMPLE_OLD_OBJECT:
				x.object_size = sm.size[i];
				break;
			default:
				x.weight = sm.bytes[i];
				x.alloc_size = sm.size[i];
			}
			if (sm.thread[i] != STORE_NONE) {
				const struct store_thread *t =
					&threads[sm.thread[i]];

				th.id = (uint64_t)sm.thread[i] + 1;
				th.name = store_str(s, t->name);
				th.java_id = t->java_id;
				th.os_id = t->os_id;
				th.is_virtual = t->flags & STORE_THREAD_VIRTUAL;
				x.thread = &th;
			}
			if (sm.cls[i] != STORE_NONE) {
				x.class_id = (uint64_t)sm.cls[i] + 1;
				x.class_name = store_str(
					s, classes[sm.cls[i]].display);
				x.class_raw =
					store_str(s, classes[sm.cls[i]].raw);
			}
			/* a node's path, site first */
			for (; node; node = nodes[node].parent) {
				const struct store_frame *f =
					&frames[nodes[node].frame];
				const struct store_method *m =
					&methods[f->method];
				struct rec_frame *rf = &fbuf[depth++];

				rf->class_name =
					store_str(s, classes[m->cls].display);
				rf->class_raw =
					store_str(s, classes[m->cls].raw);
				rf->method = store_str(s, m->name);
				rf->descriptor = store_str(s, m->descriptor);
				rf->hidden = m->flags & STORE_METHOD_HIDDEN;
				rf->line = f->line;
				rf->bci = f->bci;
				rf->type = store_str(s, f->type);
			}
			if (sm.node[i]) {
				st.id = sm.node[i]; /* never 0 here */
				st.frames = fbuf;
				st.n_frames = depth;
				st.truncated =
					sm.flags[i] & STORE_SAMPLE_TRUNCATED;
				x.stack = &st;
			}
			/* old-object extras are sorted by sample too */
			while (oi < n_old && old[oi].sample < i)
				oi++;
			if (oi < n_old && old[oi].sample == i) {
				x.alloc_time_ns = old[oi].alloc_time_ns;
				x.object_age_ns = old[oi].age_ns;
				x.object_size = old[oi].object_size;
				x.last_heap_used = old[oi].last_heap_used;
				x.array_elements = old[oi].array_elements;
				x.gc_root = old[oi].root
						    ? store_str(s, old[oi].root)
						    : NULL;
			}
			while (li < n_live && live[li].sample < i)
				li++;
			if (li < n_live && live[li].sample == i) {
				x.liveness =
					live[li].state == STORE_LIVE_DEAD
						? LIVE_DEAD
					: live[li].state == STORE_LIVE_AT_END
						? LIVE_AT_END
						: LIVE_AT_CUT;
				if (x.liveness == LIVE_DEAD)
					x.death_ns = live[li].death_ns;
				if (live[li].alloc_gc >= 0)
					x.alloc_gc = live[li].alloc_gc;
				if (live[li].death_gc >= 0)
					x.death_gc = live[li].death_gc;
			}
			rc = sink->ops->sample(sink->ctx, &x);
		}
		for (k = 0; k < n_gcs && rc >= 0; k++) {
			struct rec_gc g;

			if (gcs[k].recording != r || !sink->ops->gc)
				continue;
			g.number = gcs[k].number;
			g.start_ns = gcs[k].start_ns;
			g.end_ns = gcs[k].end_ns;
			rc = sink->ops->gc(sink->ctx, &g);
		}
		for (k = 0; k < n_heap && rc >= 0; k++) {
			struct rec_heap_summary hs;

			if (heap[k].recording != r)
				continue;
			hs.time_ns = heap[k].time_ns;
			hs.gc_id = heap[k].gc_id;
			hs.when = store_str(s, heap[k].when);
			hs.heap_used = heap[k].used;
			hs.committed = heap[k].committed;
			hs.reserved = heap[k].reserved;
			rc = sink->ops->heap_summary(sink->ctx, &hs);
		}
		memset(&rr, 0, sizeof(rr));
		rr.source = store_str(s, recs[r].source);
		rr.format = store_str(s, recs[r].format);
		rr.jvm_name = recs[r].jvm_name ? store_str(s, recs[r].jvm_name)
					       : NULL;
		rr.jvm_version = recs[r].jvm_version
					 ? store_str(s, recs[r].jvm_version)
					 : NULL;
		rr.start_ns = recs[r].start_ns;
		rr.end_ns = recs[r].end_ns;
		rr.n_chunks = recs[r].n_chunks;
		rr.bytes_skipped = recs[r].bytes_skipped;
		for (k = 0; k < recs[r].n_settings; k++) {
			sbuf[k].name = store_str(
				s, sets[recs[r].first_setting + k].name);
			sbuf[k].value = store_str(
				s, sets[recs[r].first_setting + k].value);
		}
		rr.settings = sbuf;
		rr.n_settings = recs[r].n_settings;
		for (k = 0; k < recs[r].n_counts; k++) {
			cbuf[k].name = store_str(
				s, counts[recs[r].first_count + k].name);
			cbuf[k].n = counts[recs[r].first_count + k].n;
		}
		rr.event_types = cbuf;
		rr.n_event_types = recs[r].n_counts;
		if (rc >= 0 && ch_replay(s, sink, r, e) < 0) {
			free(fbuf);
			free(sbuf);
			free(cbuf);
			return ERR_FAIL;
		}
		if (rc >= 0)
			rc = sink->ops->recording(sink->ctx, &rr);
	}
	free(fbuf);
	free(sbuf);
	free(cbuf);
	if (rc < 0)
		return err_set(e, ERR_IO, "store: copying failed");
	return 0;
}
