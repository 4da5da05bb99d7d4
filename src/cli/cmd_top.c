/*
 * heapsift top: the heaviest classes, allocation sites, application
 * sites, threads or recordings of a store, by estimated bytes, each
 * beside the number of samples it rests on.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_view.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/human.h"
#include "util/term.h"

static const char top_help[] =
	"usage: heapsift top CASE.hsdb|INPUT... [--by=GROUP] [--limit=N] "
	"[--csv] "
	"[FILTERS]\n"
	"\n"
	"The groups that allocated the most, by estimated bytes.  GROUP is\n"
	"class, site (the allocating frame, class.method:line), app-site\n"
	"(the first frame, from the site outwards, that is not a library\n"
	"frame; the site itself when every frame is), thread or recording.  "
	"One sample kind is shown at a time:\n"
	"jdk.ObjectAllocationSample unless --kind says otherwise.\n"
	"\n" CLI_STORE_OPERAND_HELP "\n"
	"      --by=GROUP   class (default), site, app-site, thread, "
	"recording\n"
	"      --limit=N    at most N rows (default 20; all with --csv)\n"
	"      --csv        RFC 4180 CSV: "
	"GROUP,samples,est_bytes,est_objects,\n"
	"                   share,rel_err\n"
	"  -h, --help       this text\n"
	"\n" VIEW_FILTER_HELP VIEW_NORMALIZE_HELP "\n"
	"est_bytes is the sum of the samples' estimates: the weight of\n"
	"jdk.ObjectAllocationSample (corrected by the OutsideTLAB events\n"
	"where there are some, --estimate), the TLAB size of InNewTLAB, the\n"
	"object size of OutsideTLAB and OldObjectSample.  est_objects is\n"
	"empty where the samples carry bytes only.  rel_err (±) is the\n"
	"relative standard error of est_bytes, from the samples' weights:\n"
	"sqrt(sum of squared weights) / est_bytes (docs/estimates.md).  A\n"
	"row marked ! is known to be biased, and its ± understates the error\n"
	"(CSV column biased): few, fewer than 4 effective samples carry it;\n"
	"mixed, its objects went both outside TLABs and in them, and the\n"
	"large ones in TLABs are partly counted at other sites; outside,\n"
	"heapsift agent samples of objects of 64 KiB and more but under 4\n"
	"sampling intervals, which HotSpot samples too seldom (low).\n";

static void put_csv_str(struct buf *b, const char *s)
{
	buf_add_csv_name(b, s, strlen(s));
}

struct top_options {
	struct view_filters f;
	enum query_group by;
	uint64_t limit; /* 0: every row */
	bool csv;
	int n_operands;
	char **operands;
};

enum { OPT_BY = OPT__VIEW_NEXT, OPT_LIMIT, OPT_CSV };
const struct option top_option_table[] = {
	{"by", required_argument, NULL, OPT_BY},
	{"limit", required_argument, NULL, OPT_LIMIT},
	{"csv", no_argument, NULL, OPT_CSV},
	{"help", no_argument, NULL, 'h'},
	VIEW_FILTER_OPTIONS,
	VIEW_NORMALIZE_OPTION,
	{NULL, 0, NULL, 0},
};
const struct cli_option_words top_word_table[] = {
	{"by", query_group_word},
	VIEW_FILTER_WORDS,
	{NULL, NULL},
};

static int top_parse(int argc, char **argv, struct top_options *o)
{
	bool have_limit = false;
	int c;

	memset(o, 0, sizeof(*o));
	o->by = GROUP_CLASS;
	view_filters_init(&o->f);
	view_frames_init(&o->f);
	cli_getopt_begin();
	/* options may come before or after the store (GNU getopt moves
	 * the operands to the end) */
	while ((c = getopt_long(argc, argv, ":h", top_option_table, NULL)) !=
	       -1) {
		switch (c) {
		case 'h':
			return cli_help(top_help);
		case OPT_BY:
			if (view_group_option("top", optarg, &o->by))
				return EXIT_USAGE;
			break;
		case OPT_LIMIT:
			if (view_limit_option("top", optarg, &o->limit))
				return EXIT_USAGE;
			have_limit = true;
			break;
		case OPT_CSV:
			o->csv = true;
			break;
		default:
			if (view_default_option("top", c, argv, &o->f))
				return EXIT_USAGE;
		}
	}
	if (!have_limit)
		o->limit = o->csv ? 0 : 20;
	o->n_operands = argc - optind;
	o->operands = argv + optind;
	return CLI_RUN;
}

/* What the estimates are, the bias note when a row shown has one, and
 * the columns' names. */
static void put_text_header(struct query *q, enum query_group by,
			    const struct query_total *total,
			    const struct query_row *rows, size_t n)
{
	char tb[32];
	bool corr = query_estimate(q) == QUERY_EST_CORRECTED;
	size_t i;

	term_fprintf(stdout, "%s (%s): %llu samples%s, %s estimated; by %s\n",
		     sample_kind_name(query_kind(q)),
		     corr ? "weights corrected by OutsideTLAB events"
		     : query_kind(q) == SAMPLE_ALLOC	? "weights"
		     : query_kind(q) == SAMPLE_TLAB_NEW ? "TLAB sizes"
		     : sample_kind_ht(query_kind(q))
			     ? "unbiased weights of sampled sizes"
			     : "object sizes",
		     (unsigned long long)total->samples,
		     corr ? " and OutsideTLAB events" : "",
		     human_bytes(total->est_bytes, tb, sizeof(tb)),
		     query_group_name(by));
	term_fprintf(stdout, "%s\n", query_estimate_note(q));
	for (i = 0; i < n; i++)
		if (rows[i].bias)
			break;
	if (i < n)
		term_fprintf(stdout,
			     "! the estimate is known to be biased on this "
			     "row, beyond its ±: %s\n",
			     "fewer than 4 effective samples, large "
			     "objects partly allocated in TLABs, or "
			     "large objects HotSpot samples too seldom "
			     "(--csv says which)");
	term_fprintf(stdout, "%12s %7s %9s %7s  %s\n", "EST_BYTES", "SHARE",
		     "SAMPLES", "±", query_group_name(by));
}

static void put_row(struct buf *line, const struct query_row *r, bool csv)
{
	if (csv) {
		put_csv_str(line, r->key);
		buf_addf(line, ",%llu,%lld,", (unsigned long long)r->samples,
			 (long long)r->est_bytes);
		if (!isnan(r->est_objects))
			buf_addf(line, "%.0f", r->est_objects);
		buf_addf(line, ",%.6f,", r->share);
		view_add_rel_err(line, r->rel_err, true);
		buf_addf(line, ",%s\r\n",
			 r->bias == QUERY_BIAS_FEW	 ? "few"
			 : r->bias == QUERY_BIAS_MIXED	 ? "mixed"
			 : r->bias == QUERY_BIAS_OUTSIDE ? "outside"
							 : "");
	} else {
		char tb[32];

		buf_addf(line, "%12s %6.2f%% %9llu ",
			 human_bytes(r->est_bytes, tb, sizeof(tb)),
			 r->share * 100.0, (unsigned long long)r->samples);
		view_add_rel_err(line, r->rel_err, false);
		buf_adds(line, r->bias ? "! " : "  ");
		buf_add_printable(line, r->key, strlen(r->key));
		buf_addch(line, '\n');
	}
}

static int top_run(struct top_options *o)
{
	const struct query_row *rows;
	struct query_total total;
	struct store *s;
	struct query *q;
	struct buf line = BUF_INIT;
	size_t n, i;
	struct err e;
	int rc;

	rc = view_open_operands("top", o->n_operands, o->operands, &o->f, &s,
				&q);
	if (rc)
		return rc;
	err_init(&e);
	if (query_top(q, o->by, &rows, &n, &total, &e) < 0) {
		view_error("top", &e);
		view_close(s, q);
		return EXIT_ERROR;
	}
	if (o->limit && n > o->limit)
		n = (size_t)o->limit;
	if (o->csv) {
		buf_addf(&line,
			 "%s,samples,est_bytes,est_objects,share,rel_err,"
			 "biased\r\n",
			 query_group_name(o->by));
		fwrite(line.data, 1, line.len, stdout);
	} else {
		put_text_header(q, o->by, &total, rows, n);
	}
	for (i = 0; i < n; i++) {
		buf_reset(&line);
		put_row(&line, &rows[i], o->csv);
		fwrite(line.data, 1, line.len, stdout);
	}
	buf_release(&line);
	view_close(s, q);
	return cli_finish_output(EXIT_OK);
}

int cmd_top(int argc, char **argv)
{
	struct top_options o;
	int rc = top_parse(argc, argv, &o);

	return rc == CLI_RUN ? top_run(&o) : rc;
}
