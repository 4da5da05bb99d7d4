/*
 * The store writer's spill (src/store/store_write_spill.h): one sample's encoding
 * both ways, and the merge of runs against a stable sort of the same
 * samples done here by insertion (ties in import order): ties across
 * runs, overlapping runs, runs of one sample, no runs, dropped runs;
 * and the merge giving the file's bytes back as it reads them.
 */
#include "test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/store/store_format.h"
#include "record/record.h"
#include "store/store_write_spill.h"
#include "util/spool.h"

#define SPARSE (1u << SAMPLE_AGENT | 1u << SAMPLE_OLD_OBJECT)

static struct spill_sample mk(int64_t t, uint64_t import, uint8_t kind)
{
	struct spill_sample s;

	memset(&s, 0, sizeof(s));
	s.time_ns = t;
	s.kind = kind;
	s.thread = (uint32_t)(import % 3 ? import : STORE_NONE);
	s.cls = (uint32_t)(import * 7);
	s.node = (uint32_t)import;
	s.bytes = (int64_t)import * 100 - 50;
	s.size = kind == SAMPLE_ALLOC ? REC_NONE : (int64_t)import;
	s.import = import;
	return s;
}

TEST(spill_encoding_round_trips)
{
	static const int64_t times[] = {0, 1, -1, INT64_MIN, INT64_MAX};
	unsigned char buf[SPILL_REC_MAX];
	size_t i, len;

	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		struct spill_sample s = mk(times[i], 5, SAMPLE_AGENT), d;
		/* a previous sample at INT64_MAX, with other ids */
		struct spill_sample pv = mk(INT64_MAX, 6, SAMPLE_AGENT);
		const unsigned char *p = buf;
		uint64_t pos;

		s.thread = STORE_NONE;
		s.cls = 0xfffffffeu;
		s.node = 0x7fffffffu;
		s.flags = STORE_SAMPLE_TRUNCATED;
		s.bytes = INT64_MIN;
		s.size = INT64_MAX;
		len = spill_encode(buf, &s, &pv, 123456789, SPARSE);
		CHECK(len <= SPILL_REC_MAX);
		CHECK(spill_decode(&p, buf + len, &d, &pv, &pos, SPARSE));
		CHECK(p == buf + len);
		CHECK_INT(d.time_ns, ==, times[i]);
		CHECK_UINT(d.thread, ==, STORE_NONE);
		CHECK_UINT(d.cls, ==, 0xfffffffeu);
		CHECK_UINT(d.node, ==, 0x7fffffffu);
		CHECK_UINT(d.flags, ==, STORE_SAMPLE_TRUNCATED);
		CHECK_UINT(d.kind, ==, SAMPLE_AGENT);
		CHECK_INT(d.bytes, ==, INT64_MIN);
		CHECK_INT(d.size, ==, INT64_MAX);
		CHECK_UINT(pos, ==, 123456789);
		/* every shorter prefix is refused, never read past */
		while (len-- > 0) {
			p = buf;
			CHECK(!spill_decode(&p, buf + len, &d, &pv, &pos,
					    SPARSE));
		}
	}
}

TEST(spill_encoding_size_modes)
{
	unsigned char buf[SPILL_REC_MAX];
	struct spill_sample s = mk(1000, 9, SAMPLE_ALLOC), d;
	const unsigned char *p = buf;
	uint64_t pos;
	size_t len;

	struct spill_sample pv = mk(990, 8, SAMPLE_ALLOC);

	/* no size, and no import index for a kind that has no records */
	len = spill_encode(buf, &s, &pv, 4, SPARSE);
	/* gap, head, thread, class, node 1 byte each, zigzag(850) 2 */
	CHECK_UINT(len, ==, 1 + 1 + 1 + 1 + 1 + 2);
	CHECK(spill_decode(&p, buf + len, &d, &pv, &pos, SPARSE));
	CHECK_INT(d.size, ==, REC_NONE);
	CHECK_UINT(pos, ==, SPILL_NO_IMPORT);
	/* size equal to bytes costs nothing */
	s = mk(1000, 9, SAMPLE_TLAB_OUTSIDE);
	s.size = s.bytes;
	p = buf;
	len = spill_encode(buf, &s, &pv, 4, SPARSE);
	CHECK(spill_decode(&p, buf + len, &d, &pv, &pos, SPARSE));
	CHECK_INT(d.size, ==, s.bytes);
	CHECK(p == buf + len);
}

TEST(spill_encoding_same_ids_as_the_previous_sample)
{
	unsigned char buf[SPILL_REC_MAX];
	struct spill_sample pv = mk(990, 8, SAMPLE_ALLOC), s = pv, d;
	const unsigned char *p = buf;
	uint64_t pos;
	size_t len;

	/* the thread, class and node of the one before: a gap of 10, the
	 * head and zigzag(bytes) only */
	s.time_ns = 1000;
	s.kind = SAMPLE_TLAB_OUTSIDE;
	s.bytes = 40;
	s.size = 40;
	len = spill_encode(buf, &s, &pv, 4, SPARSE);
	CHECK_UINT(len, ==, 1 + 1 + 1);
	memset(&d, 0, sizeof(d));
	CHECK(spill_decode(&p, buf + len, &d, &pv, &pos, SPARSE));
	CHECK(p == buf + len);
	CHECK_INT(d.time_ns, ==, 1000);
	CHECK_UINT(d.thread, ==, pv.thread);
	CHECK_UINT(d.cls, ==, pv.cls);
	CHECK_UINT(d.node, ==, pv.node);
	CHECK_INT(d.bytes, ==, 40);
	CHECK_INT(d.size, ==, 40);
	/* decoded over the previous sample itself, as the merge does */
	d = pv;
	p = buf;
	CHECK(spill_decode(&p, buf + len, &d, &d, &pos, SPARSE));
	CHECK_INT(d.time_ns, ==, 1000);
	CHECK_UINT(d.node, ==, pv.node);
	/* one id differs: all three are written */
	s.node = pv.node + 1;
	CHECK_UINT(spill_encode(buf, &s, &pv, 4, SPARSE), ==, 1 + 1 + 3 + 1);
	/* the first sample of a run has no previous one: never "same",
	 * and a record that says so is refused */
	s = pv;
	len = spill_encode(buf, &s, NULL, 4, SPARSE);
	CHECK_UINT(len, >, 3);
	len = spill_encode(buf, &s, &pv, 4, SPARSE);
	p = buf;
	CHECK(!spill_decode(&p, buf + len, &d, NULL, &pos, SPARSE));
}

/* order[] = the indices of s[] by time, ties by index (insertion sort) */
static void stable_order(const struct spill_sample *s, size_t n, size_t *order)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = i; j > 0 && s[order[j - 1]].time_ns > s[i].time_ns;
		     j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
}

/* Spill s[0..n) in runs of run samples, a run also ended before each
 * index in cuts (a recording's end), merge, and compare with the stable
 * sort.  Every sample's kind has sparse records, so the merge gives its
 * import index back. */
static void merge_case(const char *what, const struct spill_sample *s, size_t n,
		       size_t run, const size_t *cuts, size_t n_cuts,
		       uint32_t want_runs)
{
	struct spill *sp = spill_new(run, SPARSE);
	struct spill_merge *m = NULL;
	size_t *order = malloc((n + 1) * sizeof(*order)), i, c = 0, got = 0;
	const struct spill_sample *x;
	struct err e;
	int rc;

	err_init(&e);
	for (i = 0; i < n; i++) {
		if (c < n_cuts && cuts[c] == i) {
			CHECK_INT(spill_end_run(sp, &e), ==, 0);
			c++;
		}
		CHECK_INT(spill_add(sp, &s[i], &e), ==, 0);
	}
	CHECK_INT(spill_end_run(sp, &e), ==, 0);
	if (spill_n_runs(sp) != want_runs)
		test_fail(__FILE__, __LINE__, "%s: %u runs, want %u", what,
			  spill_n_runs(sp), want_runs);
	stable_order(s, n, order);
	CHECK_INT(spill_merge_new(sp, &m, &e), ==, 0);
	while ((rc = spill_merge_next(m, &x, &e)) > 0) {
		if (got >= n) {
			test_fail(__FILE__, __LINE__, "%s: too many", what);
			break;
		}
		if (x->import != order[got] ||
		    x->time_ns != s[order[got]].time_ns ||
		    x->node != s[order[got]].node ||
		    x->bytes != s[order[got]].bytes)
			test_fail(__FILE__, __LINE__,
				  "%s: sample %zu is import %llu, want %zu",
				  what, got, (unsigned long long)x->import,
				  order[got]);
		got++;
	}
	CHECK_INT(rc, ==, 0);
	if (got != n)
		test_fail(__FILE__, __LINE__, "%s: %zu samples merged of %zu",
			  what, got, n);
	spill_merge_free(m);
	spill_free(sp);
	free(order);
}

TEST(spill_merge_ties_go_to_the_earlier_run)
{
	struct spill_sample s[9];
	size_t i;

	/* three runs of three, every time equal: import order exactly */
	for (i = 0; i < 9; i++)
		s[i] = mk(42, i, SAMPLE_AGENT);
	merge_case("all equal", s, 9, 3, NULL, 0, 3);
	/* runs of one */
	merge_case("runs of one", s, 9, 1, NULL, 0, 9);
}

TEST(spill_merge_overlapping_and_disjoint_runs)
{
	static const int64_t t[] = {5, 1, 9, 3,	 3,  7,	 2,  8,	 3, 0, 10, 10,
				    6, 6, 4, 20, 21, 22, 23, 24, 1, 2, 3};
	struct spill_sample s[sizeof(t) / sizeof(t[0])];
	size_t i, n = sizeof(t) / sizeof(t[0]);
	size_t cuts[] = {2, 5, 15};

	for (i = 0; i < n; i++)
		s[i] = mk(t[i], i, i % 2 ? SAMPLE_AGENT : SAMPLE_OLD_OBJECT);
	merge_case("runs of 4", s, n, 4, NULL, 0, 6);
	merge_case("runs of 7", s, n, 7, NULL, 0, 4);
	merge_case("one run", s, n, 1000, NULL, 0, 1);
	/* a recording's end ends a run early; an end with nothing
	 * buffered (at 15, right after a full run) makes no empty run */
	merge_case("cut runs", s, n, 5, cuts, 3, 6);
}

TEST(spill_merge_random_against_stable_sort)
{
	struct spill_sample s[600];
	size_t i, run;
	unsigned seed = 12345;

	for (run = 1; run <= 257; run += 64) {
		for (i = 0; i < 600; i++) {
			seed = seed * 1103515245u + 12345u;
			/* few distinct times: many ties; runs overlap */
			s[i] = mk((int64_t)(seed >> 16) % 50 - 25 +
					  (int64_t)i / 40,
				  i, SAMPLE_AGENT);
		}
		merge_case("random", s, 600, run, NULL, 0,
			   (uint32_t)((600 + run - 1) / run));
	}
}

TEST(spill_merge_empty_and_truncated)
{
	struct spill *sp = spill_new(2, SPARSE);
	struct spill_merge *m = NULL;
	struct spill_sample s;
	const struct spill_sample *x;
	struct err e;
	uint64_t i;

	err_init(&e);
	/* nothing spilled: nothing merged */
	CHECK_INT(spill_end_run(sp, &e), ==, 0);
	CHECK_UINT(spill_n_runs(sp), ==, 0);
	CHECK_INT(spill_merge_new(sp, &m, &e), ==, 0);
	CHECK_INT(spill_merge_next(m, &x, &e), ==, 0);
	spill_merge_free(m);
	/* two runs kept, the next two (a duplicate recording) dropped */
	for (i = 0; i < 4; i++) {
		s = mk((int64_t)(10 - i), i, SAMPLE_AGENT);
		CHECK_INT(spill_add(sp, &s, &e), ==, 0);
	}
	CHECK_UINT(spill_n_runs(sp), ==, 2);
	for (i = 4; i < 8; i++) {
		s = mk((int64_t)i, i, SAMPLE_AGENT);
		CHECK_INT(spill_add(sp, &s, &e), ==, 0);
	}
	CHECK_UINT(spill_n_runs(sp), ==, 4);
	spill_truncate(sp, 2);
	s = mk(0, 4, SAMPLE_AGENT); /* import numbers start again */
	CHECK_INT(spill_add(sp, &s, &e), ==, 0);
	CHECK_INT(spill_end_run(sp, &e), ==, 0);
	CHECK_UINT(spill_n_runs(sp), ==, 3);
	CHECK_INT(spill_merge_new(sp, &m, &e), ==, 0);
	for (i = 0; i < 5; i++) {
		static const uint64_t want[] = {4, 3, 2, 1, 0};

		CHECK_INT(spill_merge_next(m, &x, &e), ==, 1);
		CHECK_UINT(x->import, ==, want[i]);
	}
	CHECK_INT(spill_merge_next(m, &x, &e), ==, 0);
	spill_merge_free(m);
	spill_free(sp);
}

TEST(spill_error_names_the_directory)
{
	struct spill *sp = spill_new(1, SPARSE);
	struct spill_sample s = mk(1, 0, SAMPLE_AGENT);
	struct err e;

	err_init(&e);
	spill_set_dir(sp, "/nonexistent-heapsift-dir");
	CHECK(spill_add(sp, &s, &e) < 0);
	CHECK_CONTAINS(e.msg, "spill file in /nonexistent-heapsift-dir");
	spill_free(sp);
}

TEST(spill_run_samples_from_the_environment)
{
	setenv("HEAPSIFT_STORE_RUN_SAMPLES", "7", 1);
	CHECK_UINT(spill_run_samples(), ==, 7);
	setenv("HEAPSIFT_STORE_RUN_SAMPLES", "0", 1);
	CHECK_UINT(spill_run_samples(), ==, SPILL_RUN_DEFAULT);
	setenv("HEAPSIFT_STORE_RUN_SAMPLES", "12x", 1);
	CHECK_UINT(spill_run_samples(), ==, SPILL_RUN_DEFAULT);
	unsetenv("HEAPSIFT_STORE_RUN_SAMPLES");
	CHECK_UINT(spill_run_samples(), ==, SPILL_RUN_DEFAULT);
}

/* Whether the spill's directory punches holes: 2 MiB written, the
 * first given back. */
static bool punches(void)
{
	const char *dir = getenv("TMPDIR");
	static char buf[1 << 20];
	struct stat st;
	bool yes = false;
	int fd = tmpfile_nameless(dir && *dir ? dir : "/tmp");

	if (fd < 0)
		return false;
	if (write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf) &&
	    write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf) &&
	    fsync(fd) == 0 &&
	    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
		      sizeof(buf)) == 0 &&
	    fstat(fd, &st) == 0)
		yes = (uint64_t)st.st_blocks * 512 < 2 * sizeof(buf);
	close(fd);
	return yes;
}

TEST(spill_merge_gives_back_what_it_has_read)
{
	/* 4 runs of 1 M samples whose times interleave (run r's i-th at
	 * 4 i + r): the merge gives them in time order, and the runs' pages
	 * it has read go back to the file system as it goes */
	enum { PER = 1000000, RUNS = 4 };
	struct spill *sp = spill_new(PER, 0);
	struct spill_merge *m = NULL;
	const struct spill_sample *x;
	uint64_t got = 0, len, mid = 0;
	struct err e;
	size_t r, i;
	int rc;
	bool ok = true;

	if (!punches()) {
		spill_free(sp);
		SKIP("the spill's file system punches no holes (the spill "
		     "then stays whole until the end)");
	}
	err_init(&e);
	for (r = 0; r < RUNS; r++)
		for (i = 0; i < PER; i++) {
			struct spill_sample s = mk((int64_t)(4 * i + r),
						   r * PER + i, SAMPLE_ALLOC);

			CHECK_INT(spill_add(sp, &s, &e), ==, 0);
		}
	CHECK_INT(spill_end_run(sp, &e), ==, 0);
	CHECK_UINT(spill_n_runs(sp), ==, RUNS);
	len = spill_file_len(sp);
	CHECK_UINT(len, >, (uint64_t)RUNS * PER * 4); /* 4 bytes or more each */
	CHECK_UINT(spill_file_allocated(sp), >=, len - 4096);
	CHECK_INT(spill_merge_new(sp, &m, &e), ==, 0);
	while ((rc = spill_merge_next(m, &x, &e)) > 0) {
		uint64_t want_run = got % RUNS, want_i = got / RUNS;

		if (ok && (x->time_ns != (int64_t)got ||
			   x->node != (uint32_t)(want_run * PER + want_i))) {
			test_fail(__FILE__, __LINE__,
				  "sample %llu: time %lld, node %u",
				  (unsigned long long)got,
				  (long long)x->time_ns, x->node);
			ok = false;
		}
		if (++got == (uint64_t)RUNS * PER / 2)
			mid = spill_file_allocated(sp);
	}
	CHECK_INT(rc, ==, 0);
	CHECK_UINT(got, ==, (uint64_t)RUNS * PER);
	/* half read: about half given back, less what each run's buffer
	 * and its last MiB hold */
	CHECK_UINT(mid, <, len / 2 + RUNS * ((2u << 20) + 8192));
	CHECK_UINT(spill_file_allocated(sp), <, RUNS * ((2u << 20) + 8192));
	spill_merge_free(m);
	spill_free(sp);
}
