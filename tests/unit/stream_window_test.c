/*
 * The stream's window (store_write_stream.c) holds the spill's own columns.
 * A short run, a small recording's, must not keep columns made for a
 * whole run: the window's memory follows the samples it holds, however
 * many recordings they come in.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/sink.h"
#include "store/store_write_spill.h"
#include "store/store.h"
#include "store/store_write_stream.h"
#include "store/store_write_int.h"
#include "test.h"

#define T0	1700000000000000000ll
#define BIG	600000 /* whole runs and a short one (SPILL_RUN_DEFAULT) */
#define SMALL	2000   /* recordings of */
#define PER	5      /* samples each */
#define LATE	400000 /* a big one after them: every small one released */
#define WINDOW	300000
#define STR(x)	#x
#define XSTR(x) STR(x)

static void sample(const struct sink *sink, int64_t t, uint64_t *rnd)
{
	static const struct rec_frame f[1] = {
		{"A", "A", "a", "()V", 1, 1, "Interpreted", false, 0}};
	static const struct rec_stack stack = {1, f, 1, false};
	static const struct rec_thread thr = {1, "t0", 1, 1, false};
	struct rec_sample x;

	rec_sample_init(&x, SAMPLE_TLAB_OUTSIDE);
	x.time_ns = t;
	x.thread = &thr;
	x.stack = &stack;
	x.class_name = x.class_raw = "byte[]";
	x.alloc_size = 16 + (int64_t)(test_rand(rnd) % 4096);
	sink->ops->sample(sink->ctx, &x);
}

/* A recording of n samples 1 us apart, after *t (moved to its last). */
static void recording(struct store_writer *w, int64_t *t, int n, uint64_t *rnd)
{
	const struct sink *sink = store_writer_sink(w);
	int64_t start = *t + 1;
	int i;

	for (i = 0; i < n; i++)
		sample(sink, *t += 1000, rnd);
	test_recording_end(w, start, *t);
}

TEST(stream_window_memory_follows_its_samples)
{
	char dir[] = "/tmp/hs-unit-window-XXXXXX";
	const char *old = getenv("HEAPSIFT_STORE_WINDOW_SAMPLES");
	char *keep = old ? strdup(old) : NULL;
	struct store_writer *w;
	struct store_samples all;
	struct store *s;
	struct err e;
	uint64_t rnd = 88172645463325252ull;
	size_t bytes, held; /* held: the window's runs' samples */
	uint32_t spares;
	int64_t t = T0;
	int i, r;

	CHECK(mkdtemp(dir) != NULL);
	setenv("HEAPSIFT_STORE_WINDOW_SAMPLES", XSTR(WINDOW), 1);
	w = store_writer_new();
	CHECK(store_writer_stream(w, dir));
	if (keep)
		setenv("HEAPSIFT_STORE_WINDOW_SAMPLES", keep, 1);
	else
		unsetenv("HEAPSIFT_STORE_WINDOW_SAMPLES");
	free(keep);
	if (!w->stream) {
		store_writer_free(w);
		rmdir(dir);
		return;
	}
	recording(w, &t, BIG, &rnd);
	bytes = stream_window_bytes(w->stream, &held, &spares);
	CHECK_UINT(held, >=, WINDOW);
	CHECK_UINT(bytes, <=, 4 * held * 42);
	for (r = 0; r < SMALL; r++)
		recording(w, &t, PER, &rnd);
	bytes = stream_window_bytes(w->stream, &held, &spares);
	/* a whole run's columns are 1.4 MB: kept for each of the 2000
	 * small recordings, or even 1024 samples each, they would be far
	 * past this */
	CHECK_UINT(held, >=, WINDOW);
	CHECK_UINT(bytes, <=, 4 * held * 42);
	/* the small ones' copies released are freed: the spares are the
	 * spill's own columns, never more than a few: those of the runs
	 * the last release handed back at once */
	recording(w, &t, LATE, &rnd);
	bytes = stream_window_bytes(w->stream, &held, &spares);
	CHECK_UINT(bytes, <=, 4 * held * 42);
	CHECK_UINT(spares, <=, 8);
	s = test_store_commit(w, dir, "w.hsdb");
	if (!s)
		return;
	err_init(&e);
	CHECK_INT(store_samples(s, &all, &e), ==, 0);
	CHECK_UINT(all.n, ==, (uint64_t)BIG + SMALL * PER + LATE);
	for (i = 1; i < (int)all.n; i++)
		if (all.time_ns[i] <= all.time_ns[i - 1]) {
			CHECK_INT(all.time_ns[i], >, all.time_ns[i - 1]);
			break;
		}
	store_close(s);
	test_store_remove(dir, "w.hsdb");
}
