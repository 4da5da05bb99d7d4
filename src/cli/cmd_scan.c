/*
 * heapsift scan: a support engineer's first look at a bundle.  Walks every
 * input down to its members, asks the importer registry what each one is,
 * and reads it to the end to count its bytes (which also finds damaged
 * compressed data).  Imports nothing and writes nothing but the listing.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "importers/registry.h"
#include "input/input.h"
#include "input/walk.h"
#include "util/buf.h"
#include "util/term.h"

static const char scan_help[] =
	"usage: heapsift scan [--csv] [LIMITS] INPUT...\n"
	"\n"
	"List every member found in the inputs (files, folders, '-' for\n"
	"standard input, compressed streams, tar/zip/7z archives, nested up "
	"to\n"
	"--max-depth levels) with its size after decompression and the kind\n"
	"of data it holds: jfr, agent, codeheap, javacore or unknown, with\n"
	"the probe's confidence (0-100).  Nothing is extracted to disk.\n"
	"\n"
	"      --csv       RFC 4180 CSV: input,member,kind,bytes,confidence,\n"
	"                  compression,status\n"
	"  -h, --help      this text\n"
	"\n" CLI_LIMIT_HELP "\n"
	"Exit status: 0 all read; 1 an input could not be read; 2 usage;\n"
	"3 listed, but damaged data was skipped or a limit was hit.\n";

struct scan {
	bool csv;
	uint64_t n_members;
	uint64_t bytes;
	uint64_t by_kind[KIND__COUNT];
	struct buf line;
};

static int scan_member(void *ctx, const struct member *m)
{
	struct scan *s = ctx;
	struct probe_result pr;
	const unsigned char *p;
	size_t avail;
	uint64_t skipped;
	const struct err *e;

	input_peek(m->in, PROBE_PREFIX, &p, &avail);
	pr = importer_probe(p, avail, m->in->eof && !m->in->failed);
	/* read to the end: the size, and any damage, are only known then */
	/* what is buffered counts even when the stream then failed (a
	 * limit keeps the first bytes) */
	for (;;) {
		int rc = input_skip(m->in, 16 << 20, &skipped);

		if (rc < 0 || !skipped)
			break;
		cli_progress("scanning %s: %llu MiB", m->display,
			     (unsigned long long)(input_offset(m->in) >> 20));
	}
	cli_progress_done();
	e = input_error(m->in);

	s->n_members++;
	s->bytes += input_offset(m->in);
	s->by_kind[pr.kind]++;
	buf_reset(&s->line);
	if (s->csv) {
		buf_add_csv_name(&s->line, m->input, strlen(m->input));
		buf_addch(&s->line, ',');
		buf_add_csv_name(&s->line, m->path, strlen(m->path));
		buf_addf(&s->line, ",%s,%llu,%d,%s,%s\r\n",
			 import_kind_name(pr.kind),
			 (unsigned long long)input_offset(m->in), pr.score,
			 m->compression,
			 cli_member_status(e, input_offset(m->in)));
	} else {
		buf_addf(&s->line, "%-9s %4d %12llu  %-11s %-9s ",
			 import_kind_name(pr.kind), pr.score,
			 (unsigned long long)input_offset(m->in),
			 m->compression[0] ? m->compression : "-",
			 cli_member_status(e, input_offset(m->in)));
		buf_add_printable(&s->line, m->display, strlen(m->display));
		buf_addch(&s->line, '\n');
	}
	fwrite(s->line.data, 1, s->line.len, stdout);
	return ferror(stdout) ? -1 : 0;
}

static void scan_problem(void *ctx, enum problem_severity sev,
			 const struct err *e)
{
	(void)ctx;
	cli_problem("scan", sev == PROBLEM_ERROR ? "error" : "warning", e);
}

struct scan_options {
	bool csv;
	struct input_limits lim;
	int n_inputs;
	char **inputs;
};

enum { OPT_CSV = OPT__CLI_NEXT };
const struct option scan_option_table[] = {
	{"csv", no_argument, NULL, OPT_CSV},
	{"help", no_argument, NULL, 'h'},
	CLI_LIMIT_OPTIONS,
	{NULL, 0, NULL, 0},
};

static int scan_parse(int argc, char **argv, struct scan_options *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	input_limits_default(&o->lim);
	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":h", scan_option_table, NULL)) !=
	       -1) {
		switch (c) {
		case 'h':
			return cli_help(scan_help);
		case OPT_CSV:
			o->csv = true;
			break;
		case '?':
		case ':':
			return cli_getopt_error("scan", c, argv);
		default:
			if (cli_limit_option("scan", c, optarg, &o->lim))
				return EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return cli_usage_error("scan", "no input given");
	o->n_inputs = argc - optind;
	o->inputs = argv + optind;
	return CLI_RUN;
}

/* The last line: members by kind, bytes, and the walker's problems. */
static void put_summary(const struct scan *s, int n_inputs,
			const struct walk_stats *stats)
{
	enum import_kind k;
	const char *sep = ": ";

	term_fprintf(stdout, "%llu member%s in %d input%s",
		     (unsigned long long)s->n_members,
		     s->n_members == 1 ? "" : "s", n_inputs,
		     n_inputs == 1 ? "" : "s");
	for (k = KIND_JFR; k < KIND__COUNT; k++) {
		if (!s->by_kind[k])
			continue;
		term_fprintf(stdout, "%s%llu %s", sep,
			     (unsigned long long)s->by_kind[k],
			     import_kind_name(k));
		sep = ", ";
	}
	if (s->by_kind[KIND_UNKNOWN])
		term_fprintf(stdout, "%s%llu unknown", sep,
			     (unsigned long long)s->by_kind[KIND_UNKNOWN]);
	printf("; %llu bytes", (unsigned long long)s->bytes);
	if (stats->warnings || stats->errors)
		term_fprintf(stdout, "; %llu warning%s, %llu error%s",
			     (unsigned long long)stats->warnings,
			     stats->warnings == 1 ? "" : "s",
			     (unsigned long long)stats->errors,
			     stats->errors == 1 ? "" : "s");
	putchar('\n');
}

static int scan_run(const struct scan_options *o)
{
	static const struct walk_ops ops = {scan_member, scan_problem};
	struct walk_stats stats = {0, 0, 0, 0};
	struct scan s;
	int i, status, failed_inputs = 0;

	memset(&s, 0, sizeof(s));
	buf_init(&s.line);
	s.csv = o->csv;
	if (s.csv)
		fputs("input,member,kind,bytes,confidence,compression,"
		      "status\r\n",
		      stdout);
	else
		term_fprintf(stdout, "%-9s %4s %12s  %-11s %-9s %s\n", "KIND",
			     "CONF", "BYTES", "COMPRESSION", "STATUS",
			     "MEMBER");
	for (i = 0; i < o->n_inputs; i++) {
		int rc = walk_input(o->inputs[i], &o->lim, &ops, &s, &stats);

		if (rc < 0 && ferror(stdout))
			break;
		if (rc < 0)
			failed_inputs++;
	}
	if (!s.csv)
		put_summary(&s, o->n_inputs, &stats);
	buf_release(&s.line);
	if (failed_inputs || stats.errors)
		status = EXIT_ERROR;
	else if (stats.warnings)
		status = EXIT_WARNED;
	else
		status = EXIT_OK;
	return cli_finish_output(status);
}

int cmd_scan(int argc, char **argv)
{
	struct scan_options o;
	int rc = scan_parse(argc, argv, &o);

	return rc == CLI_RUN ? scan_run(&o) : rc;
}
