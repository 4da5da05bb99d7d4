/*
 * The store benchmark: `store_bench gen PATH` writes a synthetic store
 * (10 million samples, 200,000 distinct stacks, 50 threads, 4
 * recordings, 300 classes) through the same writer the importers use;
 * `store_bench gen PATH N` writes the same with N samples (tests/cli/
 * views_md5.sh uses a small one: the output is a function of N);
 * `store_bench time PATH` times opening it and the queries the views
 * make, each the best of 5 runs.  It asserts nothing: make bench prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record/sink.h"
#include "query/query.h"
#include "store/store.h"

#define N_SAMPLES    10000000u
#define N_STACKS     200000u
#define N_THREADS    50u
#define N_CLASSES    300u
#define N_RECORDINGS 4u
#define N_METHODS    5000u

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int gen(const char *path, uint32_t n_samples)
{
	static char cls_names[N_CLASSES][48], meth_names[N_METHODS][32];
	static char thread_names[N_THREADS][32];
	struct store_writer *w = store_writer_new();
	const struct sink *sink = store_writer_sink(w);
	struct rec_stack *stacks = calloc(N_STACKS, sizeof(*stacks));
	struct rec_thread threads[N_THREADS];
	uint32_t i, r, per_rec = n_samples / N_RECORDINGS;
	struct err e;

	for (i = 0; i < N_CLASSES; i++)
		snprintf(cls_names[i], sizeof(cls_names[i]),
			 i % 3 ? "com.example.app.Type%u" : "java.util.Thing%u",
			 i);
	for (i = 0; i < N_METHODS; i++)
		snprintf(meth_names[i], sizeof(meth_names[i]), "method%u", i);
	for (i = 0; i < N_THREADS; i++) {
		snprintf(thread_names[i], sizeof(thread_names[i]), "worker-%u",
			 i);
		threads[i] = (struct rec_thread){i + 1, thread_names[i], i + 1,
						 1000 + i, false};
	}
	/* stacks share prefixes: a few hundred roots, depth 8 to 40 */
	for (i = 0; i < N_STACKS; i++) {
		uint32_t d = 8 + (uint32_t)(next() % 33), k;
		struct rec_frame *f = calloc(d, sizeof(*f));
		uint64_t seed = next() % 400; /* the outermost frames */

		for (k = 0; k < d; k++) {
			uint32_t m = (uint32_t)((seed * 131 + (d - k) * 17 +
						 (k < 4 ? 0 : next() % 7)) %
						N_METHODS);

			f[k].class_name = cls_names[m % N_CLASSES];
			f[k].class_raw = cls_names[m % N_CLASSES];
			f[k].method = meth_names[m];
			f[k].descriptor = "()V";
			f[k].line = (int32_t)(m % 500);
			f[k].bci = 3;
			f[k].type = k ? "Inlined" : "JIT compiled";
		}
		stacks[i] = (struct rec_stack){i + 1, f, d, false};
	}
	for (r = 0; r < N_RECORDINGS; r++) {
		struct rec_recording rec;
		int64_t t0 =
			1795300000000000000ll + (int64_t)r * 3600000000000ll;

		for (i = 0; i < per_rec; i++) {
			struct rec_sample s;
			uint64_t x = next();

			memset(&s, 0, sizeof(s));
			s.kind = SAMPLE_ALLOC;
			s.time_ns =
				t0 + (int64_t)i * 100000 + (int64_t)(x % 1000);
			s.thread = &threads[x % N_THREADS];
			/* a skewed choice: some stacks are hot */
			s.stack = &stacks[(x >> 8) %
					  ((x >> 40) % 7 ? 2000 : N_STACKS)];
			s.class_name = s.class_raw =
				cls_names[(x >> 20) % N_CLASSES];
			s.weight = (int64_t)(512 + (x >> 32) % 1000000);
			s.alloc_size = s.tlab_size = REC_NONE;
			s.alloc_time_ns = s.object_age_ns = s.object_size =
				REC_NONE;
			s.last_heap_used = s.array_elements = REC_NONE;
			sink->ops->sample(sink->ctx, &s);
		}
		memset(&rec, 0, sizeof(rec));
		rec.source = "synthetic.jfr";
		rec.format = "jfr";
		rec.start_ns = t0;
		rec.end_ns = t0 + (int64_t)per_rec * 100000;
		rec.n_chunks = 1;
		sink->ops->recording(sink->ctx, &rec);
	}
	err_init(&e);
	if (store_writer_commit(w, path, &e) < 0) {
		fprintf(stderr, "store_bench: %s\n", e.msg);
		return 1;
	}
	store_writer_free(w);
	for (i = 0; i < N_STACKS; i++)
		free((void *)stacks[i].frames);
	free(stacks);
	return 0;
}

static double best(double *t, int n)
{
	double b = t[0];
	int i;

	for (i = 1; i < n; i++)
		if (t[i] < b)
			b = t[i];
	return b;
}

static int time_it(const char *path)
{
	const char *names[] = {"group-by class",
			       "group-by site",
			       "group-by thread",
			       "call tree",
			       "inverted tree",
			       "group-by site, --include regex",
			       "open",
			       "decode the kind (query_hold)",
			       "browser's call tree (lazy)",
			       "browser's inverted tree (lazy)",
			       "browser's inverted filter Type2"};
	double t[11][5];
	int run, k;

	for (run = 0; run < 5; run++) {
		struct store *s;
		struct query *q, *qf, *qz;
		struct query_options o;
		const struct query_row *rows;
		const struct query_tree_node *nodes;
		struct query_total tot;
		const char *const *labels;
		unsigned char *site_ok;
		size_t n, n_all, n_labels, i;
		struct err e;
		double a;

		err_init(&e);
		a = now();
		if (store_open(path, &s, &e) < 0) {
			fprintf(stderr, "store_bench: %s\n", e.msg);
			return 1;
		}
		t[6][run] = now() - a;
		query_options_init(&o);
		/* first use verifies the columns: not part of a query */
		if (query_open(s, &o, &q, &e) < 0) {
			fprintf(stderr, "store_bench: %s\n", e.msg);
			return 1;
		}
		/* as the browser does: the kind decoded once, then passes */
		a = now();
		if (query_hold(q, &e) < 0) {
			fprintf(stderr, "store_bench: %s\n", e.msg);
			return 1;
		}
		t[7][run] = now() - a;
		a = now();
		query_top(q, GROUP_CLASS, &rows, &n, &tot, &e);
		t[0][run] = now() - a;
		a = now();
		query_top(q, GROUP_SITE, &rows, &n, &tot, &e);
		t[1][run] = now() - a;
		a = now();
		query_top(q, GROUP_THREAD, &rows, &n, &tot, &e);
		t[2][run] = now() - a;
		a = now();
		query_tree(q, false, 0, &nodes, &n, &tot, &e);
		t[3][run] = now() - a;
		a = now();
		query_tree(q, true, 0, &nodes, &n, &tot, &e);
		t[4][run] = now() - a;
		o.include_re = "Type1[0-9]\\.method4";
		a = now();
		query_open(s, &o, &qf, &e);
		query_top(qf, GROUP_SITE, &rows, &n, &tot, &e);
		t[5][run] = now() - a;
		if (run == 0)
			printf("  samples         %llu, %llu in the filtered "
			       "query\n",
			       (unsigned long long)N_SAMPLES,
			       (unsigned long long)tot.samples);
		/* the browser's trees on a query of their own, held, as
		 * the browser opens them: the node sums made afresh */
		query_options_init(&o);
		if (query_open(s, &o, &qz, &e) < 0 || query_hold(qz, &e) < 0) {
			fprintf(stderr, "store_bench: %s\n", e.msg);
			return 1;
		}
		a = now();
		query_tree_lazy(qz, false, &nodes, &n, &n_all, &tot, &e);
		t[8][run] = now() - a;
		a = now();
		query_tree_lazy(qz, true, &nodes, &n, &n_all, &tot, &e);
		t[9][run] = now() - a;
		n_labels = query_tree_labels(qz, &labels);
		site_ok = calloc(n_labels ? n_labels : 1, 1);
		for (i = 0; site_ok && i < n_labels; i++)
			site_ok[i] = strstr(labels[i], "Type2") != NULL;
		a = now();
		if (site_ok)
			query_tree_lazy_filter(qz, true, site_ok);
		t[10][run] = now() - a;
		free(site_ok);
		query_free(qz);
		query_free(qf);
		query_free(q);
		store_close(s);
	}
	printf("  %-34s %8.1f ms\n", names[6], best(t[6], 5) * 1e3);
	printf("  %-34s %8.1f ms\n", names[7], best(t[7], 5) * 1e3);
	for (k = 0; k < 6; k++)
		printf("  %-34s %8.1f ms\n", names[k], best(t[k], 5) * 1e3);
	for (k = 8; k < 11; k++)
		printf("  %-34s %8.1f ms\n", names[k], best(t[k], 5) * 1e3);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "gen"))
		return gen(argv[2], N_SAMPLES);
	if (argc == 4 && !strcmp(argv[1], "gen")) {
		unsigned long n = strtoul(argv[3], NULL, 10);

		if (n < N_RECORDINGS || n > N_SAMPLES) {
			fprintf(stderr, "store_bench: N from %u to %u\n",
				N_RECORDINGS, N_SAMPLES);
			return 2;
		}
		return gen(argv[2], (uint32_t)n);
	}
	if (argc == 3 && !strcmp(argv[1], "time"))
		return time_it(argv[2]);
	fprintf(stderr, "usage: store_bench gen PATH [N] | time PATH\n");
	return 2;
}
