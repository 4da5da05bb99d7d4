/*
 * heapsift timeline: estimated allocation rate and sample rate per time
 * bucket.  The sample rate shows how the recording sampled (the JFR
 * throttle's windows), the allocation rate what the program did.  Both
 * are over the time each bucket covers (query_bucket.covered_ns), not
 * its width: a killed JVM's last bucket ends at its last flush.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cli_view.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/human.h"
#include "util/size.h"
#include "util/term.h"

static const char timeline_help[] =
	"usage: heapsift timeline CASE.hsdb|INPUT... [--bucket=DURATION] "
	"[--csv] "
	"[FILTERS]\n"
	"\n"
	"Estimated allocation rate (bytes per second) and sample rate\n"
	"(samples per second) in buckets of DURATION (default: a round\n"
	"width giving about 60 buckets).\n"
	"\n" CLI_STORE_OPERAND_HELP "\n"
	"      --bucket=DURATION  e.g. 1s, 500ms, 1m\n"
	"      --csv              RFC 4180 CSV: time,samples,est_bytes,\n"
	"                         alloc_rate,sample_rate,rel_err,covered_s\n"
	"                         (time: the bucket's start, UTC; covered_s:\n"
	"                         the seconds of it that the recordings and\n"
	"                         --from/--to cover; rates per second of\n"
	"                         those, empty where it is 0; rel_err the\n"
	"                         bucket's ±, as top's)\n"
	"  -h, --help             this text\n"
	"\n" VIEW_FILTER_HELP;

struct timeline_options {
	struct view_filters f;
	int64_t bucket; /* ns, 0: the query's round width */
	bool csv;
	int n_operands;
	char **operands;
};

enum { OPT_BUCKET = OPT__VIEW_NEXT, OPT_CSV };
const struct option timeline_option_table[] = {
	{"bucket", required_argument, NULL, OPT_BUCKET},
	{"csv", no_argument, NULL, OPT_CSV},
	{"help", no_argument, NULL, 'h'},
	VIEW_FILTER_OPTIONS,
	{NULL, 0, NULL, 0},
};
const struct cli_option_words timeline_word_table[] = {
	VIEW_FILTER_WORDS,
	{NULL, NULL},
};

static int timeline_parse(int argc, char **argv, struct timeline_options *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	view_filters_init(&o->f);
	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":h", timeline_option_table,
				NULL)) != -1) {
		switch (c) {
		case 'h':
			return cli_help(timeline_help);
		case OPT_BUCKET:
			if (view_bucket_option("timeline", optarg, &o->bucket))
				return EXIT_USAGE;
			break;
		case OPT_CSV:
			o->csv = true;
			break;
		default:
			if (view_default_option("timeline", c, argv, &o->f))
				return EXIT_USAGE;
		}
	}
	o->n_operands = argc - optind;
	o->operands = argv + optind;
	return CLI_RUN;
}

/* What was recorded, the buckets' width, whether several JVMs were
 * added together, and the columns' names. */
static void put_text_header(struct query *q, const struct query_options *qo,
			    const struct query_total *total, int64_t bucket)
{
	char tb[32];
	int64_t covered = query_covered(q, NULL, NULL);
	size_t n_jvms;
	bool named;

	term_fprintf(stdout,
		     "%s: %llu samples, %s estimated over %.3f s "
		     "recorded; buckets of %.3f s\n",
		     sample_kind_name(query_kind(q)),
		     (unsigned long long)total->samples,
		     human_bytes(total->est_bytes, tb, sizeof(tb)),
		     (double)covered / 1e9, (double)bucket / 1e9);
	term_fprintf(stdout, "%s\n", query_estimate_note(q));
	n_jvms = query_jvms_sampled(q, qo, &named);
	if (n_jvms > 1 && named)
		printf("fleet: %zu JVMs' samples added together; "
		       "--recording picks one JVM's (heapsift report "
		       "names them)\n",
		       n_jvms);
	else if (n_jvms > 1)
		printf("fleet: %zu recordings' samples added together, "
		       "which may be of different JVMs (not all say "
		       "which); --recording picks one\n",
		       n_jvms);
	term_fprintf(stdout, "%-24s %12s %10s %7s  %s\n", "TIME", "ALLOC/S",
		     "SAMPLES/S", "±", "ALLOCATION RATE");
}

/* One bucket's line; max_rate (bytes per nanosecond) is the longest
 * bar's. */
static void put_bucket(struct buf *line, const struct query_bucket *b,
		       int64_t bucket, double max_rate, bool csv)
{
	double secs = (double)b->covered_ns / 1e9;
	double rate = secs > 0 ? (double)b->est_bytes / secs : 0;
	double srate = secs > 0 ? (double)b->samples / secs : 0;
	char when[HUMAN_TIME_SIZE];

	buf_adds(line, human_time(b->start_ns, 3, NULL, when, sizeof(when)));
	if (csv) {
		buf_addf(line, ",%llu,%lld,", (unsigned long long)b->samples,
			 (long long)b->est_bytes);
		if (secs > 0)
			buf_addf(line, "%.0f,%.3f,", rate, srate);
		else
			buf_adds(line, ",,");
		view_add_rel_err(line, b->rel_err, true);
		buf_addf(line, ",%.9f\r\n", secs);
	} else if (secs <= 0) {
		buf_addf(line, " %12s %10s %7s  (not recorded)\n", "-", "-",
			 "");
	} else {
		char tb[32];
		int bar = max_rate > 0
				  ? (int)(40.0 * rate / (1e9 * max_rate) + 0.5)
				  : 0;

		/* a damaged store can make any rate */
		human_bytes(i64_held(rate), tb, sizeof(tb));
		buf_addf(line, " %10s/s %10.1f ", tb, srate);
		view_add_rel_err(line, b->rel_err, false);
		buf_adds(line, "  ");
		while (bar-- > 0)
			buf_addch(line, '#');
		/* a bucket the recordings cover in part */
		if (b->covered_ns < bucket)
			buf_addf(line, "  (%.3f s recorded)", secs);
		buf_addch(line, '\n');
	}
}

static int timeline_run(struct timeline_options *o)
{
	const struct query_bucket *b;
	struct query_total total;
	struct store *s;
	struct query *q;
	struct buf line = BUF_INIT;
	double max_rate = 0; /* bytes per nanosecond */
	size_t n, i;
	struct err e;
	int rc;

	rc = view_open_operands("timeline", o->n_operands, o->operands, &o->f,
				&s, &q);
	if (rc)
		return rc;
	err_init(&e);
	if (query_timeline(q, &o->bucket, &b, &n, &total, &e) < 0)
		return view_query_failed("timeline", &e, s, q);
	for (i = 0; i < n; i++)
		if (b[i].covered_ns > 0 &&
		    (double)b[i].est_bytes / (double)b[i].covered_ns > max_rate)
			max_rate = (double)b[i].est_bytes /
				   (double)b[i].covered_ns;
	if (o->csv)
		fputs("time,samples,est_bytes,alloc_rate,sample_rate,rel_"
		      "err,covered_s\r\n",
		      stdout);
	else
		put_text_header(q, &o->f.q, &total, o->bucket);
	for (i = 0; i < n; i++) {
		buf_reset(&line);
		put_bucket(&line, &b[i], o->bucket, max_rate, o->csv);
		fwrite(line.data, 1, line.len, stdout);
	}
	buf_release(&line);
	view_close(s, q);
	return cli_finish_output(EXIT_OK);
}

int cmd_timeline(int argc, char **argv)
{
	struct timeline_options o;
	int rc = timeline_parse(argc, argv, &o);

	return rc == CLI_RUN ? timeline_run(&o) : rc;
}
