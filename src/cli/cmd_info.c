/*
 * heapsift info: what a store holds: per recording its source, JVM,
 * time span, samples per kind, settings and event counts.  --check
 * verifies every section's checksum and references.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cache.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/cli_view.h"
#include "record/record.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/human.h"
#include "util/term.h"
#include "util/xalloc.h"

static const char info_help[] =
	"usage: heapsift info [--check] CASE.hsdb|INPUT...\n"
	"\n"
	"Describe the recordings in a store: source, JVM, time span, samples\n"
	"of each kind, the allocation settings in force, event counts.\n"
	"\n" CLI_STORE_OPERAND_HELP "\n"
	"      --check   verify every section of the store (checksums and\n"
	"                references) first\n"
	"  -h, --help    this text\n";

static void put_time(int64_t ns)
{
	char t[HUMAN_TIME_SIZE];

	fputs(human_time(ns, 3, NULL, t, sizeof(t)), stdout);
}

static void put_str(const char *s)
{
	struct buf b = BUF_INIT;

	buf_add_printable(&b, s, strlen(s));
	fputs(b.data, stdout);
	buf_release(&b);
}

/* per_rec[r * SAMPLE__COUNT + k]: recording r's samples of kind k, read
 * a block at a time (no kind is held whole). */
static int count_per_recording(struct store *s,
			       const uint64_t kind_n[SAMPLE__COUNT],
			       uint64_t *per_rec, struct err *e)
{
	int k;

	for (k = 0; k < SAMPLE__COUNT; k++) {
		const struct store_block *blocks;
		struct store_samples sm;
		uint32_t n_blocks, b;
		uint64_t i;

		if (!kind_n[k])
			continue;
		if (store_kind_blocks(s, k, &blocks, &n_blocks, e) < 0)
			return ERR_FAIL;
		for (b = 0; b < n_blocks; b++) {
			if (store_read_block(s, k, b, &sm, e) < 0)
				return ERR_FAIL;
			for (i = 0; i < sm.n; i++)
				per_rec[(size_t)sm.recording[i] * SAMPLE__COUNT +
					(size_t)k]++;
		}
	}
	return 0;
}

struct info_options {
	bool check; /* --check: store_verify() first */
	int n_operands;
	char **operands;
};

const struct option info_option_table[] = {
	{"check", no_argument, NULL, 'c'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static int info_parse(int argc, char **argv, struct info_options *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":h", info_option_table, NULL)) !=
	       -1) {
		switch (c) {
		case 'h':
			return cli_help(info_help);
		case 'c':
			o->check = true;
			break;
		default:
			return cli_usage_error("info", "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	o->n_operands = argc - optind;
	o->operands = argv + optind;
	return CLI_RUN;
}

/* What info prints of a store, borrowed from it. */
struct info_store {
	const struct store_recording *recs;
	const struct store_setting *sets;
	const struct store_count *counts;
	const struct store_heap *heap;
	const struct store_ch_snapshot *chs;
	uint32_t n_recs, n_sets, n_counts, n_heap, n_chs;
	uint64_t kind_n[SAMPLE__COUNT], n_samples;
	uint64_t *per_rec; /* count_per_recording()'s, malloc'ed */
};

/* Every section info prints, verified first with check. */
static int info_read(struct store *s, bool check, struct info_store *is,
		     struct err *e)
{
	int k;

	memset(is, 0, sizeof(*is));
	if ((check && store_verify(s, e) < 0) ||
	    store_recordings(s, &is->recs, &is->n_recs, e) < 0 ||
	    store_settings(s, &is->sets, &is->n_sets, e) < 0 ||
	    store_counts(s, &is->counts, &is->n_counts, e) < 0 ||
	    store_heap(s, &is->heap, &is->n_heap, e) < 0 ||
	    store_ch_snapshots(s, &is->chs, &is->n_chs, e) < 0 ||
	    store_kind_counts(s, is->kind_n, e) < 0)
		return ERR_FAIL;
	/* samples of each kind in each recording: every kind's blocks */
	is->per_rec =
		xcalloc((size_t)(is->n_recs ? is->n_recs : 1) * SAMPLE__COUNT,
			sizeof(*is->per_rec));
	for (k = 0; k < SAMPLE__COUNT; k++)
		is->n_samples += is->kind_n[k];
	return count_per_recording(s, is->kind_n, is->per_rec, e);
}

/* Recording r's samples and GC heap summaries, its code-heap snapshots. */
static void put_contents(struct store *s, const struct info_store *is,
			 uint32_t r)
{
	const uint64_t *per_kind = is->per_rec + (size_t)r * SAMPLE__COUNT;
	uint64_t heaps = 0, i;
	uint32_t k;

	for (k = 0; k < is->n_heap; k++)
		heaps += is->heap[k].recording == r;
	if (is->n_samples || !is->n_chs) {
		printf("  samples    ");
		for (k = 0; k < SAMPLE__COUNT; k++)
			if (per_kind[k])
				term_fprintf(stdout, " %s %llu",
					     sample_kind_name(k),
					     (unsigned long long)per_kind[k]);
		printf("\n  gc heap     %llu summaries\n",
		       (unsigned long long)heaps);
	}
	for (k = 0, i = 0; k < is->n_chs; k++)
		i += is->chs[k].recording == r;
	if (i) {
		term_fprintf(stdout, "  code heaps  %llu snapshot%s:",
			     (unsigned long long)i, i == 1 ? "" : "s");
		for (k = 0; k < is->n_chs; k++)
			if (is->chs[k].recording == r)
				term_fprintf(
					stdout, " %u (%s, line %llu)", k,
					store_str(s, is->chs[k].kind),
					(unsigned long long)is->chs[k].line);
		putchar('\n');
	}
}

/* Recording r's settings and its first event counts. */
static void put_settings(struct store *s, const struct info_store *is,
			 const struct store_recording *rec)
{
	uint32_t k;

	for (k = 0; k < rec->n_settings; k++) {
		const struct store_setting *st =
			&is->sets[rec->first_setting + k];
		const char *name = store_str(s, st->name);
		/* what the importer found (import_jfr_facts.c) */
		enum rec_fact fact = rec_setting_fact(name);

		if (fact != REC_FACT_NONE) {
			printf(fact == REC_FACT_IS_WRITERS ? "  written by  "
							   : "  not read    ");
			put_str(store_str(s, st->value));
			if (fact == REC_FACT_IS_UNREAD)
				printf(" (heap-like events no reader takes)");
			putchar('\n');
			continue;
		}
		printf("  setting     ");
		put_str(store_str(s, st->name));
		putchar('=');
		put_str(store_str(s, st->value));
		putchar('\n');
	}
	if (rec->n_counts)
		printf("  events      %u types:", rec->n_counts);
	for (k = 0; k < rec->n_counts && k < 8; k++) {
		const struct store_count *ct =
			&is->counts[rec->first_count + k];

		term_fprintf(stdout, "%s ", k ? "," : "");
		put_str(store_str(s, ct->name));
		printf(" %llu", (unsigned long long)ct->n);
	}
	if (rec->n_counts > 8)
		printf(", ...");
	if (rec->n_counts)
		putchar('\n');
}

static void put_recording(struct store *s, const struct info_store *is,
			  uint32_t r)
{
	const struct store_recording *rec = &is->recs[r];
	/* in double: a damaged store may hold any two times */
	double dur = (double)rec->end_ns - (double)rec->start_ns;

	printf("\nrecording %u: ", r);
	put_str(store_str(s, rec->source));
	term_fprintf(stdout, "\n  format      %s, %u chunk%s\n",
		     store_str(s, rec->format), rec->n_chunks,
		     rec->n_chunks == 1 ? "" : "s");
	printf("  jvm         ");
	if (rec->jvm_name) {
		const char *name = store_str(s, rec->jvm_name);
		const char *version = store_str(s, rec->jvm_version);

		if (!human_version_has_name(name, version)) {
			put_str(name);
			putchar(' ');
		}
		put_str(version);
	} else {
		fputs("(not recorded)", stdout);
	}
	printf("\n  time        ");
	if (rec->start_ns == INT64_MIN) {
		fputs("(not recorded)\n", stdout);
	} else {
		put_time(rec->start_ns);
		fputs(" .. ", stdout);
		put_time(rec->end_ns);
		printf(" (%.3f s)\n", dur / 1e9);
	}
	put_contents(s, is, r);
	if (rec->bytes_skipped)
		printf("  damaged     %llu bytes could not be read\n",
		       (unsigned long long)rec->bytes_skipped);
	put_settings(s, is, rec);
}

static int info_run(const struct info_options *o)
{
	struct info_store is;
	struct store *s;
	struct err e;
	char *path;
	uint32_t r;
	int rc, in_status;

	/* one store, or the inputs to read into the cache store */
	rc = cli_store_open("info", o->n_operands, o->operands, &s, &path,
			    &in_status);
	if (rc)
		return rc;
	err_init(&e);
	if (info_read(s, o->check, &is, &e) < 0) {
		view_error("info", &e);
		free(is.per_rec);
		store_close(s);
		free(path);
		return EXIT_ERROR;
	}
	term_fprintf(stdout, "store %s: %u recording%s, %llu samples%s\n", path,
		     is.n_recs, is.n_recs == 1 ? "" : "s",
		     (unsigned long long)is.n_samples,
		     o->check ? ", every section verified" : "");
	for (r = 0; r < is.n_recs; r++)
		put_recording(s, &is, r);
	free(is.per_rec);
	store_close(s);
	free(path);
	return cli_finish_output(EXIT_OK);
}

int cmd_info(int argc, char **argv)
{
	struct info_options o;
	int rc = info_parse(argc, argv, &o);

	return rc == CLI_RUN ? info_run(&o) : rc;
}
