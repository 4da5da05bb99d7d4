/*
 * heapsift survivors: which allocation sites' objects stay alive, and for
 * how long, from the liveness the store keeps (heapsift agent recordings;
 * jdk.OldObjectSample).  With --leaks, the keys whose live set keeps
 * growing, with the evidence.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_view.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/human.h"
#include "util/size.h"
#include "util/term.h"

static const char survivors_help[] =
	"usage: heapsift survivors CASE.hsdb|INPUT... [--by=GROUP] "
	"[--bucket=DURATION]\n"
	"                          [--limit=N] [--leaks] [--min-gcs=N]\n"
	"                          [--before-last-gc] [--csv] [FILTERS]\n"
	"\n"
	"Estimated live objects and bytes over time: a sampled object is live\n"
	"at time t when it was allocated at or before t and died after t, or\n"
	"was alive when its recording ended (after that end nothing is known,\n"
	"so it is not counted past it).  Samples come from heapsift agent\n"
	"recordings (--kind=agent, the default when the store has them) or\n"
	"jdk.OldObjectSample (--kind=old): each old object counts once, from\n"
	"its allocation to the last emission (dump or stop) that shows it;\n"
	"it is alive at the end only if the recording's last emission shows\n"
	"it, and GONE if only earlier ones do (collected, or replaced in the\n"
	"JVM's sampler).\n"
	"\n" CLI_STORE_OPERAND_HELP "\n"
	"      --by=GROUP          class, site (the default), app-site, "
	"thread,\n"
	"                          recording; or a cohort: age (how old the\n"
	"                          live objects are at each time) or gcs (how\n"
	"                          many GCs they have survived so far)\n"
	"      --bucket=DURATION   time between points (default: about 60)\n"
	"      --limit=N           the N keys with the largest live peaks\n"
	"                          (default 10; 0 for all; CSV: all)\n"
	"      --leaks             rank the keys as leak suspects: a live set\n"
	"                          that rises at several points and seldom\n"
	"                          falls, still grows in the later half of\n"
	"                          the range, and ends near its peak\n"
	"                          (evidence: slope per second, rising "
	"points);\n"
	"                          old objects: alive at the last emission,\n"
	"                          allocated in 3 of 4 quarters of the range,\n"
	"                          most of those earlier emissions showed\n"
	"                          shown again, and some with a GC root\n"
	"                          where roots were searched for\n"
	"      --min-gcs=N         only objects that survived at least N GCs\n"
	"      --before-last-gc    only objects allocated before the last GC "
	"of\n"
	"                          their recording\n"
	"      --csv               RFC 4180 CSV: GROUP,time,live_samples,\n"
	"                          est_live_bytes,est_live_objects, rows in "
	"time\n"
	"                          order for each key; with --leaks: GROUP,\n"
	"                          slope_bytes_per_s,rising_points,points,\n"
	"                          end_bytes,peak_bytes,suspect\n"
	"  -h, --help              this text\n"
	"\n" VIEW_FILTER_HELP;

/* A series' trend in ten ASCII levels, at most width columns: its live
 * bytes, or its live samples where the kind has no sizes. */
static void sparkline(struct buf *out, const struct query_survivor_series *x,
		      size_t n, bool by_samples, size_t width)
{
	static const char levels[] = " .:-=+*#%@";
	double max =
		by_samples ? (double)x->peak_samples : (double)x->peak_bytes;
	size_t col, cols = n < width ? n : width;

	for (col = 0; col < cols; col++) {
		size_t b = cols > 1 ? col * (n - 1) / (cols - 1) : 0;
		double v = by_samples ? (double)x->live_samples[b]
				      : (double)x->live_bytes[b];
		int lv = max > 0 ? (int)(9.0 * v / max + 0.5) : 0;

		buf_addch(out, levels[lv < 0 ? 0 : lv > 9 ? 9 : lv]);
	}
}

/* The dead's median time to collection and GCs lived through: "-"
 * (none died), "230 ms  0", "2.3 s  4". */
static const char *collected_text(const struct query_survivor_series *x,
				  char *out, size_t size)
{
	char t[24];

	if (x->median_to_collection_ns < 0)
		return snprintf(out, size, "%13s %4s", "-", "-"), out;
	if (x->median_to_collection_ns < 1000000000ll)
		snprintf(t, sizeof(t), "%.0f ms",
			 (double)x->median_to_collection_ns / 1e6);
	else
		snprintf(t, sizeof(t), "%.1f s",
			 (double)x->median_to_collection_ns / 1e9);
	snprintf(out, size, "%13s %4lld", t, (long long)x->median_gcs);
	return out;
}

static int print_leaks(struct query *q, const struct query_survivors *sv,
		       bool csv, size_t limit, const char *keyname)
{
	const struct query_survivor_series *const *r;
	size_t n = query_leak_suspects(q, &r), i, shown = 0;
	struct buf line = BUF_INIT;

	if (csv)
		printf("%s,slope_bytes_per_s,rising_points,points,end_bytes,"
		       "peak_bytes,suspect\r\n",
		       keyname);
	else if (sv->kind == SAMPLE_OLD_OBJECT)
		term_fprintf(
			stdout,
			"leak suspects by %s: objects alive at the last "
			"emission, allocated all\nalong (3 of 4 quarters), "
			"kept "
			"from one emission to the next, rooted\nwhere roots "
			"were "
			"searched for\n"
			"%4s %14s %9s %12s %12s  %s\n",
			keyname, "RANK", "SLOPE", "RISING", "AT END", "PEAK",
			keyname);
	else
		term_fprintf(
			stdout,
			"leak suspects by %s: a live set that rises at several "
			"of %zu points,\nseldom falls, still grows in the "
			"later "
			"half and ends near its peak\n"
			"%4s %14s %9s %12s %12s  %s\n",
			keyname, sv->n_buckets, "RANK", "SLOPE", "RISING",
			"AT END", "PEAK", keyname);
	for (i = 0; i < n; i++) {
		const struct query_survivor_series *x = r[i];

		buf_reset(&line);
		if (csv) {
			buf_add_csv_name(&line, x->key, strlen(x->key));
			buf_addf(&line, ",%.1f,%u,%zu,%lld,%lld,%s\r\n",
				 x->slope, x->rising, sv->n_buckets,
				 (long long)x->end_bytes,
				 (long long)x->peak_bytes,
				 x->suspect ? "yes" : "no");
		} else {
			char a[32], b[32], c[32];

			if (!x->suspect || (limit && shown >= limit))
				break;
			if (sv->by_samples) {
				snprintf(a, sizeof(a), "%.2f smp", x->slope);
				snprintf(b, sizeof(b), "%llu smp",
					 (unsigned long long)x->end_samples);
				snprintf(c, sizeof(c), "%llu smp",
					 (unsigned long long)x->peak_samples);
			} else {
				/* a damaged store can make any slope: no
				 * out-of-range cast */
				human_bytes(i64_held(x->slope), a, sizeof(a));
				human_bytes(x->end_bytes, b, sizeof(b));
				human_bytes(x->peak_bytes, c, sizeof(c));
			}
			buf_addf(&line, "%4zu %12s/s %4u of %-2zu %12s %12s  ",
				 shown + 1, a, x->rising,
				 sv->n_buckets ? sv->n_buckets - 1 : 0, b, c);
			buf_add_printable(&line, x->key, strlen(x->key));
			buf_addch(&line, '\n');
		}
		fwrite(line.data, 1, line.len, stdout);
		shown++;
	}
	if (!csv && !shown)
		term_fprintf(stdout, "none: no %s's live set grows steadily\n",
			     keyname);
	buf_release(&line);
	return 0;
}

struct survivors_options {
	struct view_filters f;
	struct query_survivor_options so;
	enum query_group by;
	const char *keyname; /* --by's word, for the headings */
	uint64_t limit;	     /* 0: every key */
	bool csv, leaks;
	int n_operands;
	char **operands;
};

enum {
	OPT_BY = OPT__VIEW_NEXT,
	OPT_BUCKET,
	OPT_LIMIT,
	OPT_LEAKS,
	OPT_MIN_GCS,
	OPT_BEFORE_LAST_GC,
	OPT_CSV,
};
const struct option survivors_option_table[] = {
	{"by", required_argument, NULL, OPT_BY},
	{"bucket", required_argument, NULL, OPT_BUCKET},
	{"limit", required_argument, NULL, OPT_LIMIT},
	{"leaks", no_argument, NULL, OPT_LEAKS},
	{"min-gcs", required_argument, NULL, OPT_MIN_GCS},
	{"before-last-gc", no_argument, NULL, OPT_BEFORE_LAST_GC},
	{"csv", no_argument, NULL, OPT_CSV},
	{"help", no_argument, NULL, 'h'},
	VIEW_FILTER_OPTIONS,
	{NULL, 0, NULL, 0},
};
/* --by's words: the cohorts, then the groups */
static const struct {
	const char *name;
	enum query_cohort cohort;
} cohort_table[] = {{"age", COHORT_AGE}, {"gcs", COHORT_GCS}};
#define N_COHORTS (sizeof(cohort_table) / sizeof(cohort_table[0]))

static const char *by_word(size_t i)
{
	return i < N_COHORTS ? cohort_table[i].name
			     : query_group_word(i - N_COHORTS);
}

const struct cli_option_words survivors_word_table[] = {
	{"by", by_word},
	VIEW_FILTER_WORDS,
	{NULL, NULL},
};

static int survivors_parse(int argc, char **argv, struct survivors_options *o)
{
	bool limit_given = false;
	uint64_t n;
	size_t i;
	int c;

	memset(o, 0, sizeof(*o));
	o->by = GROUP_SITE;
	o->keyname = "site";
	o->limit = 10;
	view_filters_init(&o->f);
	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":h", survivors_option_table,
				NULL)) != -1) {
		switch (c) {
		case 'h':
			return cli_help(survivors_help);
		case OPT_BY:
			o->keyname = optarg;
			o->so.cohort = COHORT_NONE;
			for (i = 0; i < N_COHORTS; i++)
				if (!strcmp(optarg, cohort_table[i].name))
					o->so.cohort = cohort_table[i].cohort;
			if (!o->so.cohort && !query_group_parse(optarg, &o->by))
				return cli_usage_error(
					"survivors",
					"--by: '%s' is not one of class, site, "
					"app-site, thread, recording, age, gcs",
					optarg);
			break;
		case OPT_BUCKET:
			if (view_bucket_option("survivors", optarg,
					       &o->so.bucket_ns))
				return EXIT_USAGE;
			break;
		case OPT_LIMIT:
			if (view_limit_option("survivors", optarg, &o->limit))
				return EXIT_USAGE;
			limit_given = true;
			break;
		case OPT_MIN_GCS:
			if (!cli_parse_count(optarg, &n))
				return cli_usage_error("survivors",
						       "--min-gcs: '%s' is not "
						       "a whole number from 0",
						       optarg);
			o->so.min_gcs = n > INT64_MAX ? INT64_MAX : (int64_t)n;
			break;
		case OPT_LEAKS:
			o->leaks = true;
			break;
		case OPT_BEFORE_LAST_GC:
			o->so.before_last_gc = true;
			break;
		case OPT_CSV:
			o->csv = true;
			break;
		default:
			if (view_default_option("survivors", c, argv, &o->f))
				return EXIT_USAGE;
		}
	}
	if (o->csv && !limit_given)
		o->limit = 0;
	o->n_operands = argc - optind;
	o->operands = argv + optind;
	return CLI_RUN;
}

/* The store and its query, of the kind --kind says, else of the kind
 * with liveness (agent samples, else old objects). */
static int survivors_open(struct survivors_options *o, struct store **s,
			  struct query **q)
{
	int rc;

	rc = view_open_operands("survivors", o->n_operands, o->operands, &o->f,
				s, q);
	if (rc)
		return rc;
	if (o->f.q.kind < 0 && !sample_kind_has_fate(query_kind(*q))) {
		uint64_t counts[SAMPLE__COUNT];

		query_kind_counts(*q, counts);
		view_close(*s, *q);
		o->f.q.kind = query_fate_kind(counts);
		if (o->f.q.kind < 0)
			o->f.q.kind =
				SAMPLE_OLD_OBJECT; /* says there is none */
		rc = view_open_operands("survivors", o->n_operands, o->operands,
					&o->f, s, q);
	}
	return rc;
}

static void put_text_header(const struct query_survivors *sv,
			    const char *keyname)
{
	if (sv->kind == SAMPLE_OLD_OBJECT)
		term_fprintf(stdout,
			     "%s: %llu objects, each once however many "
			     "emissions show it; sampled objects known "
			     "alive by %s, a point every %.3f s\n",
			     sample_kind_name(sv->kind),
			     (unsigned long long)sv->samples_used, keyname,
			     (double)sv->bucket_ns / 1e9);
	else if (sample_kind_live(sv->kind))
		/* another profiler's live objects: alive when it looked,
		 * and nothing is known of the others (docs/formats/jfr.md) */
		term_fprintf(
			stdout,
			"%s: %llu sampled objects not yet collected when the "
			"profiler looked (no GC forced first; it records no "
			"deaths); live set by %s, a point every %.3f s\n",
			sample_kind_name(sv->kind),
			(unsigned long long)sv->samples_used, keyname,
			(double)sv->bucket_ns / 1e9);
	else
		term_fprintf(stdout,
			     "%s: %llu samples with a known fate (%llu "
			     "untracked, not counted); live set by %s, a "
			     "point every %.3f s\n",
			     sample_kind_name(sv->kind),
			     (unsigned long long)sv->samples_used,
			     (unsigned long long)sv->samples_unknown, keyname,
			     (double)sv->bucket_ns / 1e9);
	/* an old object that the last emission leaves out was
	 * collected or replaced in the sampler: gone, not dead */
	term_fprintf(stdout, "%12s %12s %7s %7s %13s %4s  %-32s  %s\n", "PEAK",
		     "AT END", sv->kind == SAMPLE_OLD_OBJECT ? "GONE" : "DIED",
		     "ALIVE", "TO COLLECTION", "GCS", "TREND", keyname);
}

/* A series as CSV rows, one a point in time. */
static void put_series_csv(struct buf *line, const struct query_survivors *sv,
			   const struct query_survivor_series *x)
{
	size_t b;

	for (b = 0; b < sv->n_buckets; b++) {
		char when[HUMAN_TIME_SIZE];

		buf_reset(line);
		buf_add_csv_name(line, x->key, strlen(x->key));
		buf_addch(line, ',');
		buf_adds(line, human_time(sv->time_ns[b], 3, NULL, when,
					  sizeof(when)));
		buf_addf(line, ",%llu,%lld,%.0f\r\n",
			 (unsigned long long)x->live_samples[b],
			 (long long)x->live_bytes[b], x->live_objects[b]);
		fwrite(line->data, 1, line->len, stdout);
	}
}

/* A series as one line: peak, end, fates (none for a cohort: a life
 * crosses cohorts), the trend and the key. */
static void put_series_text(struct buf *line, const struct query_survivors *sv,
			    const struct query_survivor_series *x, bool cohort)
{
	char pb[32], eb[32], lb[48];
	size_t b;

	buf_reset(line);
	if (sv->by_samples) {
		snprintf(pb, sizeof(pb), "%llu smp",
			 (unsigned long long)x->peak_samples);
		snprintf(eb, sizeof(eb), "%llu smp",
			 (unsigned long long)x->end_samples);
	} else {
		human_bytes(x->peak_bytes, pb, sizeof(pb));
		human_bytes(x->end_bytes, eb, sizeof(eb));
	}
	collected_text(x, lb, sizeof(lb));
	if (cohort)
		buf_addf(line, "%12s %12s %7s %7s %13s %4s", pb, eb, "-", "-",
			 "-", "-");
	else if (sample_kind_live(sv->kind) && sv->kind != SAMPLE_OLD_OBJECT)
		/* no death is recorded: not 0 deaths, none known */
		buf_addf(line, "%12s %12s %7s %7llu %s", pb, eb, "-",
			 (unsigned long long)x->alive, lb);
	else
		buf_addf(line, "%12s %12s %7llu %7llu %s", pb, eb,
			 (unsigned long long)(sv->kind == SAMPLE_OLD_OBJECT
						      ? x->gone
						      : x->dead),
			 (unsigned long long)x->alive, lb);
	buf_adds(line, "  ");
	sparkline(line, x, sv->n_buckets, sv->by_samples, 32);
	for (b = sv->n_buckets; b < 32; b++)
		buf_addch(line, ' ');
	buf_adds(line, "  ");
	buf_add_printable(line, x->key, strlen(x->key));
	buf_addch(line, '\n');
	fwrite(line->data, 1, line->len, stdout);
}

static int survivors_run(struct survivors_options *o)
{
	const struct query_survivors *sv;
	const char *keyname = o->keyname;
	struct buf line = BUF_INIT;
	struct store *s;
	struct query *q;
	size_t i;
	struct err e;
	int rc;

	rc = survivors_open(o, &s, &q);
	if (rc)
		return rc;
	err_init(&e);
	if (query_survivors(q, o->by, &o->so, &sv, &e) < 0)
		return view_query_failed("survivors", &e, s, q);
	if (o->so.cohort)
		keyname = o->so.cohort == COHORT_AGE ? "age" : "gcs";
	if (!sv->samples_used && !o->csv) {
		term_fprintf(
			stdout,
			"%s: no sample with a known fate%s (%llu untracked)\n",
			sample_kind_name(sv->kind),
			o->so.min_gcs || o->so.before_last_gc
				? " passes the filters"
				: "",
			(unsigned long long)sv->samples_unknown);
	} else if (o->leaks) {
		print_leaks(q, sv, o->csv, (size_t)o->limit, keyname);
	} else {
		if (o->csv)
			printf("%s,time,live_samples,est_live_bytes,est_live_"
			       "objects\r\n",
			       keyname);
		else
			put_text_header(sv, keyname);
		for (i = 0; i < sv->n_series && (!o->limit || i < o->limit);
		     i++) {
			if (o->csv)
				put_series_csv(&line, sv, &sv->series[i]);
			else
				put_series_text(&line, sv, &sv->series[i],
						o->so.cohort);
		}
		if (!o->csv && o->limit && sv->n_series > o->limit)
			printf("(%zu more; --limit=0 shows all)\n",
			       sv->n_series - (size_t)o->limit);
	}
	buf_release(&line);
	view_close(s, q);
	return cli_finish_output(EXIT_OK);
}

int cmd_survivors(int argc, char **argv)
{
	struct survivors_options o;
	int rc = survivors_parse(argc, argv, &o);

	return rc == CLI_RUN ? survivors_run(&o) : rc;
}
