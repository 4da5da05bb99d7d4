/*
 * heapsift timeline: estimated allocation rate and sample rate per time
 * bucket.  The sample rate shows how the recording sampled (the JFR
 * throttle's windows), the allocation rate what the program did.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/view.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/size.h"

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
	"                         alloc_rate,sample_rate,rel_err (time: the\n"
	"                         bucket's start, UTC; rates per second;\n"
	"                         rel_err the bucket's ±, as top's)\n"
	"  -h, --help             this text\n"
	"\n" VIEW_FILTER_HELP;

int cmd_timeline(int argc, char **argv)
{
	enum { OPT_BUCKET = OPT__VIEW_NEXT, OPT_CSV };
	static const struct option opts[] = {
		{"bucket", required_argument, NULL, OPT_BUCKET},
		{"csv", no_argument, NULL, OPT_CSV},
		{"help", no_argument, NULL, 'h'},
		VIEW_FILTER_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	struct view_filters f;
	const struct query_bucket *b;
	struct query_total total;
	struct store *s;
	struct query *q;
	struct buf line = BUF_INIT;
	int64_t bucket = 0, max_rate = 0;
	bool csv = false;
	size_t n, i;
	struct err e;
	int c, rc;

	view_filters_init(&f);
	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(timeline_help, stdout);
			return cli_finish_output(EXIT_OK);
		case OPT_BUCKET:
			if (view_bucket_option("timeline", optarg, &bucket))
				return EXIT_USAGE;
			break;
		case OPT_CSV:
			csv = true;
			break;
		case '?':
		case ':':
			return cli_getopt_error("timeline", c, argv);
		default:
			if (view_filter_option("timeline", c, optarg, &f))
				return EXIT_USAGE;
		}
	}
	rc = view_open("timeline", argc, argv, &f, &s, &q);
	if (rc)
		return rc;
	err_init(&e);
	if (query_timeline(q, &bucket, &b, &n, &total, &e) < 0)
		return view_query_failed("timeline", &e, s, q);
	for (i = 0; i < n; i++)
		if (b[i].est_bytes > max_rate)
			max_rate = b[i].est_bytes;
	if (csv) {
		fputs("time,samples,est_bytes,alloc_rate,sample_rate,rel_"
		      "err\r\n",
		      stdout);
	} else {
		char tb[32];

		printf("%s: %llu samples, %s estimated; buckets of %.3f s\n",
		       sample_kind_name(query_kind(q)),
		       (unsigned long long)total.samples,
		       view_bytes(total.est_bytes, tb, sizeof(tb)),
		       (double)bucket / 1e9);
		printf("%s\n", query_estimate_note(q));
		printf("%-24s %12s %10s %7s  %s\n", "TIME", "ALLOC/S",
		       "SAMPLES/S", "±", "ALLOCATION RATE");
	}
	for (i = 0; i < n; i++) {
		double secs = (double)bucket / 1e9;
		double rate = (double)b[i].est_bytes / secs;
		double srate = (double)b[i].samples / secs;

		buf_reset(&line);
		cli_put_time(&line, b[i].start_ns, 3);
		if (csv) {
			buf_addf(&line, ",%llu,%lld,%.0f,%.3f,",
				 (unsigned long long)b[i].samples,
				 (long long)b[i].est_bytes, rate, srate);
			view_add_rel_err(&line, b[i].rel_err, true);
			buf_adds(&line, "\r\n");
		} else {
			char tb[32];
			int bar =
				max_rate ? (int)(40.0 * (double)b[i].est_bytes /
							 (double)max_rate +
						 0.5)
					 : 0;

			/* a damaged store can make any rate */
			view_bytes(i64_held(rate), tb, sizeof(tb));
			buf_addf(&line, " %10s/s %10.1f ", tb, srate);
			view_add_rel_err(&line, b[i].rel_err, false);
			buf_adds(&line, "  ");
			while (bar-- > 0)
				buf_addch(&line, '#');
			buf_addch(&line, '\n');
		}
		fwrite(line.data, 1, line.len, stdout);
	}
	buf_release(&line);
	view_close(s, q);
	return cli_finish_output(EXIT_OK);
}
