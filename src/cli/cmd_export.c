/*
 * heapsift export: a store as a normalized set of CSV tables (RFC 4180,
 * a header row, CRLF line ends) that load unchanged into sqlite3
 * (.import --csv) or any SQL engine.  The tables and columns are a
 * contract, documented in docs/export.md.  Each file is written to a
 * temporary name and renamed, so a reader never sees half a table.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cache.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/cli_view.h"
#include "export/export.h"
#include "export/lake.h"
#include "record/record.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/newfile.h"
#include "util/term.h"
#include "util/xalloc.h"

static const char export_help[] =
	"usage: heapsift export CASE.hsdb|INPUT... --format=csv -o DIR "
	"[--force]\n"
	"       heapsift export STORE|INPUT... --layout=fleet "
	"--format=csv|parquet\n"
	"              -o LAKE [--gzip] [--id=ID] [--host=NAME] "
	"[--part-rows=N]\n"
	"       heapsift export CASE.hsdb|INPUT... --format=FORMAT [-o FILE]\n"
	"              [--force]"
	" [--value=VALUE] [--kinds=all] [FILTERS]\n"
	"\n"
	"--format=csv writes the store as CSV tables into DIR (created if\n"
	"missing): recordings, settings, threads, classes, methods, frames,\n"
	"stacks, samples, old_objects, heap_summaries, liveness, gcs,\n"
	"codeheap_snapshots, codeheaps, codeheap_blocks, codeheap_stats.\n"
	"docs/export.md describes every column; the tables join on their\n"
	"id columns.\n"
	"DIR must be new, empty, or hold nothing but files export writes\n"
	"(they are replaced); a folder with other files only with --force\n"
	"(they are left alone); a file, symbolic link or device never.\n"
	"\n"
	"--layout=fleet adds each store (each operand is a case) to the\n"
	"fleet lake LAKE, for DuckDB, Spark or Trino: the tables\n"
	"recordings, samples, stacks and frames, as\n"
	"LAKE/TABLE/day=YYYY-MM-DD/part-*.csv, .csv.gz or .parquet\n"
	"(docs/export.md, The fleet lake).  A recording is known by what\n"
	"it holds: exported again, from any store, it replaces its rows;\n"
	"a case exported again loses the recordings its store no longer\n"
	"holds.  --format=parquet needs DuckDB's library (libduckdb.so,\n"
	"or HEAPSIFT_LIBDUCKDB=PATH) and implies --layout=fleet.\n"
	"\n"
	"The other formats write one file (standard output without -o) of\n"
	"the samples of one kind that pass the filters:\n"
	"  folded      collapsed stacks for flamegraph.pl, inferno, "
	"speedscope\n"
	"  pprof       gzipped profile.proto for go tool pprof (every kind\n"
	"              in one profile with --kinds=all)\n"
	"  otlp        an OpenTelemetry profiles request (protobuf,\n"
	"              uncompressed): a profile per recording, kind and\n"
	"              sample type, every kind held or --kind's\n"
	"  speedscope  speedscope's JSON, one profile per sample kind\n"
	"  svg         the report's flame graph, as one SVG file\n"
	"\n" CLI_STORE_OPERAND_HELP "\n"
	"      --format=FORMAT  csv, parquet, folded, pprof, otlp, speedscope\n"
	"                       or svg\n"
	"  -o, --output=PATH    the folder (csv), lake or file to write\n"
	"      --force          write into a folder that holds other files,\n"
	"                       or replace a file\n"
	"      --value=VALUE    folded and speedscope: bytes (estimated, the\n"
	"                       default), samples, or objects (estimated;\n"
	"                       agent, outside, old and other writers'\n"
	"                       samples only)\n"
	"      --kinds=all      pprof: every kind the store holds in one\n"
	"                       profile, a sample type per kind and value\n"
	"                       (tlab.alloc_space; go tool pprof\n"
	"                       -sample_index=tlab.alloc_space)\n"
	"      --layout=LAYOUT  csv: tables (the default) or fleet\n"
	"      --gzip           fleet: write .csv.gz files\n"
	"      --id=ID          fleet: the case's id (default: the store's\n"
	"                       absolute path); one operand only\n"
	"      --host=NAME      fleet: the host column (default: empty)\n"
	"      --part-rows=N    fleet: add to a day's part until it holds N\n"
	"                       samples rows (default 1000000)\n"
	"  -h, --help           this text\n"
	"\n" VIEW_FILTER_HELP VIEW_FRAME_HELP
	"  The frame options apply to folded, pprof, speedscope and svg.\n";

/* Every file export writes (cli_output_check lets these be replaced). */
static const char *const export_files[] = {
	"recordings.csv",
	"settings.csv",
	"threads.csv",
	"classes.csv",
	"methods.csv",
	"frames.csv",
	"stacks.csv",
	"samples.csv",
	"old_objects.csv",
	"heap_summaries.csv",
	"liveness.csv",
	"gcs.csv",
	"codeheap_snapshots.csv",
	"codeheaps.csv",
	"codeheap_blocks.csv",
	"codeheap_stats.csv",
	NULL,
};

/* What a fleet lake holds (lake.h). */
static const char *const lake_files[] = {
	"_heapsift_lake", "recordings", "samples", "stacks", "frames", NULL,
};

/* After one file could not be created or written (a full disk), the
 * others are not tried: one message, not one a table. */
static bool create_failed;

struct table {
	FILE *f;
	struct newfile nf; /* newfile.h: f writes a duplicate of its fd */
	struct buf path, row;
	bool failed;
	int errnum;	/* the first failure's */
	bool abandoned; /* the store could not be read: said already */
};

/* nf's file as a stream of its own (nf keeps its fd to name it). */
static FILE *nf_stream(struct newfile *nf)
{
	int d = dup(nf->fd);
	FILE *f = d >= 0 ? fdopen(d, "wb") : NULL;

	if (!f && d >= 0) {
		int errnum = errno;

		close(d);
		errno = errnum;
	}
	return f;
}

static int table_open(struct table *t, const char *dir, const char *name,
		      const char *header)
{
	buf_init(&t->path);
	buf_init(&t->row);
	buf_addf(&t->path, "%s/%s.csv", dir, name);
	t->failed = false;
	t->errnum = 0;
	t->abandoned = false;
	t->f = NULL;
	t->nf.fd = -1;
	if (!create_failed && newfile_open(&t->nf, t->path.data, 0666) == 0)
		t->f = nf_stream(&t->nf);
	if (!t->f) {
		int errnum = errno;

		newfile_abandon(&t->nf);
		if (create_failed) {
			buf_release(&t->path);
			buf_release(&t->row);
			return -1;
		}
		create_failed = true;
		term_fprintf(stderr, "heapsift export: error: writing %s: %s\n",
			     t->path.data, err_io_reason(errnum));
		buf_release(&t->path);
		buf_release(&t->row);
		return -1;
	}
	fprintf(t->f, "%s\r\n", header);
	return 0;
}

/* A string from a file as a CSV text cell: made printable, then quoted
 * as a spreadsheet needs (buf_add_csv_name). */
static void add_text(struct buf *out, const char *s)
{
	buf_add_csv_name(out, s, strlen(s));
}

static void field_end(struct table *t, bool last)
{
	if (last)
		buf_add(&t->row, "\r\n", 2);
	else
		buf_addch(&t->row, ',');
}

static void field_str(struct table *t, const char *s, bool last)
{
	add_text(&t->row, s);
	field_end(t, last);
}

static void field_int(struct table *t, int64_t v, bool last)
{
	if (v != REC_NONE)
		buf_add_i64(&t->row, v);
	field_end(t, last);
}

static void row_flush(struct table *t)
{
	if (fwrite(t->row.data, 1, t->row.len, t->f) != t->row.len &&
	    !t->failed) {
		t->failed = true;
		t->errnum = errno ? errno : EIO;
	}
	buf_reset(&t->row);
}

/* A row is done: out when the rows gathered pass 64 KiB (one fwrite a
 * row was a tenth of the samples table's time). */
static void row_end(struct table *t)
{
	if (t->row.len >= 65536)
		row_flush(t);
}

static int table_close(struct table *t)
{
	int errnum;

	row_flush(t);
	errnum = t->failed ? t->errnum : 0;
	if (ferror(t->f) && !errnum)
		errnum = EIO;
	if (fflush(t->f) && !errnum)
		errnum = errno;
	/* always, so the descriptor is never leaked */
	if (fclose(t->f) && !errnum)
		errnum = errno;
	if (t->abandoned) {
		newfile_abandon(&t->nf);
		errnum = -1;
	} else if (errnum) {
		newfile_abandon(&t->nf);
	} else if (newfile_commit(&t->nf, t->path.data) < 0) {
		errnum = errno; /* synced, named, renamed: or removed */
	}
	if (errnum > 0) {
		term_fprintf(stderr, "heapsift export: error: writing %s: %s\n",
			     t->path.data, err_io_reason(errnum));
		create_failed = true;
	}
	buf_release(&t->path);
	buf_release(&t->row);
	return errnum ? -1 : 0;
}

/* A table being written: its file, and each sample kind's cell escaped
 * once, not once a sample. */
struct table_writer {
	struct table t;
	const struct buf *kind_cell;
};

/* One row of the store's (store_table_rows): cells as the CSV writes
 * them, a number as digits (nothing for REC_NONE), a string escaped. */
static int write_row(void *ctx, const struct store_cell *c, size_t n)
{
	struct table_writer *w = ctx;
	struct table *t = &w->t;
	size_t i;

	for (i = 0; i < n; i++) {
		bool last = i + 1 == n;

		switch (c[i].type) {
		case STORE_CELL_INT:
			field_int(t, c[i].i, last);
			break;
		case STORE_CELL_U64:
			buf_add_u64(&t->row, c[i].u);
			field_end(t, last);
			break;
		case STORE_CELL_STR:
			field_str(t, c[i].s, last);
			break;
		case STORE_CELL_KIND:
			buf_add(&t->row, w->kind_cell[c[i].i].data,
				w->kind_cell[c[i].i].len);
			field_end(t, last);
			break;
		}
	}
	row_end(t);
	/* a table that cannot be written is abandoned: no need to read on */
	return t->failed;
}

/* Table k of the store into DIR/NAME.csv; 1 when it could not be. */
static int export_table(struct store *s, unsigned k, const char *dir,
			const struct buf *kind_cell)
{
	struct table_writer w;
	struct err e;
	int bad = 0;

	if (table_open(&w.t, dir, store_tables[k].name,
		       store_tables[k].columns) < 0)
		return 1;
	w.kind_cell = kind_cell;
	err_init(&e);
	if (store_table_rows(s, k, write_row, &w, &e) < 0) {
		/* checked whole by store_verify() first: only a file changed
		 * under us gets here */
		view_error("export", &e);
		w.t.failed = w.t.abandoned = true;
		bad = 1;
	}
	bad |= table_close(&w.t);
	return bad;
}

/* The CSV tables of the whole store (the filters do not apply), in
 * store_tables[]' order. */
static int export_tables(const char *path, const char *dir)
{
	struct buf kind_cell[SAMPLE__COUNT];
	struct store *s;
	struct err e;
	unsigned k;
	int bad = 0;

	err_init(&e);
	if (store_open(path, &s, &e) < 0) {
		view_error("export", &e);
		return EXIT_ERROR;
	}
	if (store_verify(s, &e) < 0) {
		view_error("export", &e);
		store_close(s);
		return EXIT_ERROR;
	}
	for (k = 0; k < SAMPLE__COUNT; k++) {
		buf_init(&kind_cell[k]);
		add_text(&kind_cell[k], sample_kind_name((int)k));
	}
	for (k = 0; k < STORE_N_TABLES; k++)
		bad |= export_table(s, k, dir, kind_cell);
	for (k = 0; k < SAMPLE__COUNT; k++)
		buf_release(&kind_cell[k]);
	store_close(s);
	return bad ? EXIT_ERROR : EXIT_OK;
}

enum export_format {
	FORMAT_CSV,
	FORMAT_FOLDED,
	FORMAT_PPROF,
	FORMAT_SPEEDSCOPE,
	FORMAT_SVG,
	FORMAT_PARQUET, /* the fleet lake only */
	FORMAT_OTLP,
};

/* --format's words, in enum export_format's order */
static const char *const format_names[] = {
	"csv", "folded", "pprof", "speedscope", "svg", "parquet", "otlp"};

static bool format_parse(const char *s, enum export_format *f)
{
	size_t i;

	for (i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (!strcmp(s, format_names[i])) {
			*f = (enum export_format)i;
			return true;
		}
	return false;
}

static const char *format_word(size_t i)
{
	return i < sizeof(format_names) / sizeof(format_names[0])
		       ? format_names[i]
		       : NULL;
}

/* --kinds' one word */
static const char *const kinds_names[] = {"all"};

static const char *kinds_word(size_t i)
{
	return i < 1 ? kinds_names[i] : NULL;
}

/* --layout's words, tables the default */
enum { LAYOUT_TABLES, LAYOUT_FLEET };
static const char *const layout_names[] = {
	[LAYOUT_TABLES] = "tables",
	[LAYOUT_FLEET] = "fleet",
};

static const char *layout_word(size_t i)
{
	return i < sizeof(layout_names) / sizeof(layout_names[0])
		       ? layout_names[i]
		       : NULL;
}

/* Write b to path through a temporary file renamed into place, or to
 * standard output when path is NULL or "-". */
static int write_out(const char *path, const struct buf *b)
{
	if (!path || !strcmp(path, "-")) {
		if (fwrite(b->data, 1, b->len, stdout) != b->len)
			return cli_finish_output(EXIT_ERROR);
		return cli_finish_output(EXIT_OK);
	}
	return cli_write_file("export", path, b->data, b->len) < 0 ? EXIT_ERROR
								   : EXIT_OK;
}

/* A query per kind, each with f's filters: --kind's, else every kind
 * the store holds; q itself (the default kind's) where it holds none, for
 * an empty profile.  kq[] gets them, to free those that are not q. */
static int kind_queries(struct store *s, struct query *q,
			const struct view_filters *f, struct query **kq,
			size_t *n_kq, struct err *e)
{
	uint64_t counts[SAMPLE__COUNT];
	int k, rc = 0;

	query_kind_counts(q, counts);
	for (k = 0; k < SAMPLE__COUNT && rc == 0; k++) {
		struct query_options ko = f->q;

		if (f->q.kind >= 0 ? k != f->q.kind : !counts[k])
			continue;
		ko.kind = k;
		rc = query_open(s, &ko, &kq[*n_kq], e);
		if (rc == 0)
			(*n_kq)++;
	}
	if (rc == 0 && !*n_kq)
		kq[(*n_kq)++] = q; /* nothing at all: an empty profile */
	return rc;
}

/* Format fmt of q (the filters' default kind), or of kq[] (one query a
 * kind: speedscope, pprof --kinds=all), or of the store (otlp), onto
 * out; name names the input. */
static int view_to_buf(enum export_format fmt, enum export_value v,
		       struct store *s, struct query *q,
		       const struct query_options *o, struct query *const *kq,
		       size_t n_kq, const char *name, struct buf *out,
		       struct err *e)
{
	switch (fmt) {
	case FORMAT_FOLDED:
		return export_folded(q, v, out, e);
	case FORMAT_PPROF:
		return n_kq ? export_pprof_kinds(kq, n_kq, out, e)
			    : export_pprof(q, out, e);
	case FORMAT_SPEEDSCOPE:
		return export_speedscope(kq, n_kq, v, name, out, e);
	case FORMAT_OTLP:
		return export_otlp(s, o, out, e);
	case FORMAT_SVG:
		return export_svg(q, out, e);
	default:
		BUG("export: format %d is not a view", (int)fmt);
	}
	return ERR_FAIL;
}

/* The one-file formats: a view of the filtered samples. */
static int export_view(enum export_format fmt, enum export_value v,
		       bool all_kinds, const char *path, bool force, int argc,
		       char **argv, struct view_filters *f)
{
	struct cli_output o = {path, CLI_OUTPUT_FILE, NULL, force};
	struct store *s;
	struct query *q, *kq[SAMPLE__COUNT];
	size_t n_kq = 0, i;
	struct buf out = BUF_INIT;
	const char *base = strrchr(argv[optind], '/');
	struct err e;
	int rc, status;

	if (path && strcmp(path, "-") &&
	    cli_output_check("export", &o, argv + optind, argc - optind))
		return EXIT_ERROR;
	if ((!path || !strcmp(path, "-")) &&
	    (fmt == FORMAT_PPROF || fmt == FORMAT_OTLP) &&
	    isatty(STDOUT_FILENO))
		return cli_usage_error("export",
				       "--format=%s writes binary data: give "
				       "-o FILE, or redirect standard output",
				       fmt == FORMAT_PPROF ? "pprof" : "otlp");
	status = view_open("export", argc, argv, f, &s, &q);
	if (status)
		return status;
	err_init(&e);
	/* speedscope and pprof --kinds=all: a query per kind */
	if (fmt == FORMAT_SPEEDSCOPE || (fmt == FORMAT_PPROF && all_kinds))
		rc = kind_queries(s, q, f, kq, &n_kq, &e);
	else
		rc = 0;
	if (rc == 0)
		rc = view_to_buf(fmt, v, s, q, &f->q, kq, n_kq,
				 base ? base + 1 : argv[optind], &out, &e);
	for (i = 0; i < n_kq; i++)
		if (kq[i] != q)
			query_free(kq[i]);
	if (rc < 0) {
		buf_release(&out);
		return view_query_failed("export", &e, s, q);
	}
	view_close(s, q);
	status = write_out(path, &out);
	buf_release(&out);
	return status;
}

/* What the command line asks for. */
struct export_args {
	const char *dir, *format, *value, *layout, *kinds;
	const char *filter; /* the last filter option given; NULL none */
	const char *id;
	struct lake_options lo;
	bool gzip;
	struct cli_output o;
	enum export_format fmt;
	enum export_value v;
	struct view_filters f;
	bool fleet;
};

enum {
	OPT_FORMAT = OPT__VIEW_NEXT,
	OPT_FORCE,
	OPT_VALUE,
	OPT_LAYOUT,
	OPT_ID,
	OPT_HOST,
	OPT_GZIP,
	OPT_PART_ROWS,
	OPT_KINDS,
};

const struct option export_option_table[] = {
	{"format", required_argument, NULL, OPT_FORMAT},
	{"force", no_argument, NULL, OPT_FORCE},
	{"output", required_argument, NULL, 'o'},
	{"value", required_argument, NULL, OPT_VALUE},
	{"layout", required_argument, NULL, OPT_LAYOUT},
	{"id", required_argument, NULL, OPT_ID},
	{"host", required_argument, NULL, OPT_HOST},
	{"gzip", no_argument, NULL, OPT_GZIP},
	{"part-rows", required_argument, NULL, OPT_PART_ROWS},
	{"kinds", required_argument, NULL, OPT_KINDS},
	{"help", no_argument, NULL, 'h'},
	VIEW_FILTER_OPTIONS,
	VIEW_FRAME_OPTIONS,
	{NULL, 0, NULL, 0},
};
const struct cli_option_words export_word_table[] = {
	{"format", format_word}, {"value", export_value_word},
	{"layout", layout_word}, {"kinds", kinds_word},
	{"output", NULL},	 VIEW_FILTER_WORDS,
	VIEW_FRAME_WORDS,	 {NULL, NULL},
};

/* The options into a; -1 to go on, else the exit status (--help, a bad
 * option). */
static int parse_options(int argc, char **argv, struct export_args *a)
{
	int c;

	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":ho:", export_option_table,
				NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(export_help, stdout);
			return cli_finish_output(EXIT_OK);
		case OPT_FORMAT:
			a->format = optarg;
			break;
		case 'o':
			if (cli_output_arg("export", optarg,
					   "the folder (csv) or file to "
					   "write, or - for standard output"))
				return EXIT_USAGE;
			a->dir = optarg;
			break;
		case OPT_FORCE:
			a->o.force = true;
			break;
		case OPT_VALUE:
			a->value = optarg;
			break;
		case OPT_LAYOUT:
			a->layout = optarg;
			break;
		case OPT_ID:
			a->id = optarg;
			break;
		case OPT_HOST:
			a->lo.host = optarg;
			break;
		case OPT_GZIP:
			a->gzip = true;
			break;
		case OPT_KINDS:
			a->kinds = optarg;
			break;
		case OPT_PART_ROWS:
			if (!cli_parse_count(optarg, &a->lo.part_rows) ||
			    !a->lo.part_rows)
				return cli_usage_error("export",
						       "--part-rows: '%s' is "
						       "not a count of rows "
						       "(1 or more)",
						       optarg);
			break;
		case '?':
		case ':':
			return cli_getopt_error("export", c, argv);
		default:
			if (view_filter_option("export", c, optarg, &a->f))
				return EXIT_USAGE;
			a->filter = argv[optind - 1];
		}
	}
	return -1;
}

/* The options that go together: -1 when they do, else EXIT_USAGE after
 * saying why. */
static int check_options(struct export_args *a)
{
	if (!a->format)
		return cli_usage_error("export",
				       "--format: give --format=csv, parquet, "
				       "folded, pprof, otlp, speedscope or "
				       "svg");
	if (!format_parse(a->format, &a->fmt))
		return cli_usage_error(
			"export",
			"--format: '%s' is not one of csv, "
			"parquet, folded, pprof, otlp, speedscope, svg",
			a->format);
	if (a->value && !export_value_parse(a->value, &a->v))
		return cli_usage_error("export",
				       "--value: '%s' is not one of bytes, "
				       "samples, objects",
				       a->value);
	if (a->value && a->fmt != FORMAT_FOLDED && a->fmt != FORMAT_SPEEDSCOPE)
		return cli_usage_error("export",
				       "--value applies to --format=folded "
				       "and speedscope only");
	if (a->kinds && strcmp(a->kinds, kinds_names[0]))
		return cli_usage_error("export", "--kinds: '%s' is not all",
				       a->kinds);
	if (a->kinds && a->fmt != FORMAT_PPROF)
		return cli_usage_error("export",
				       "--kinds=all applies to --format=pprof "
				       "only (otlp and speedscope write every "
				       "kind already)");
	if (a->kinds && a->f.q.kind >= 0)
		return cli_usage_error("export",
				       "--kinds=all and --kind: give one");
	if (a->fmt == FORMAT_PARQUET)
		a->fleet = true; /* Parquet is the lake's only */
	if (a->layout) {
		if (!strcmp(a->layout, layout_names[LAYOUT_FLEET]))
			a->fleet = true;
		else if (strcmp(a->layout, layout_names[LAYOUT_TABLES]) ||
			 a->fmt == FORMAT_PARQUET)
			return cli_usage_error(
				"export",
				"--layout: '%s' is not one of "
				"tables, fleet%s",
				a->layout,
				a->fmt == FORMAT_PARQUET
					? " (parquet: fleet only)"
					: "");
		if (a->fmt != FORMAT_CSV && a->fmt != FORMAT_PARQUET)
			return cli_usage_error("export", "--layout applies to "
							 "--format=csv only");
	}
	if ((a->id || a->lo.host[0] || a->gzip || a->lo.part_rows) && !a->fleet)
		return cli_usage_error("export",
				       "--id, --host, --gzip and --part-rows "
				       "apply to --layout=fleet only");
	if (a->gzip && a->fmt == FORMAT_PARQUET)
		return cli_usage_error("export", "--gzip: Parquet files are "
						 "compressed already (zstd)");
	return -1;
}

/* A case's id: --id, else the operand's absolute path (an input that
 * has none, such as standard input, as given). */
static char *case_id(const char *operand, const char *id)
{
	char *abs;

	if (id)
		return xstrdup(id);
	abs = strcmp(operand, "-") ? realpath(operand, NULL) : NULL;
	return abs ? abs : xstrdup(operand);
}

/* One operand's store added to the lake: the exit status its inputs
 * give (EXIT_OK, EXIT_WARNED...), or an error's after a message. */
static int lake_add_operand(struct lake *l, char *operand,
			    const struct export_args *a)
{
	struct store *s;
	struct err e;
	char *path, *id;
	int rc, in_status;

	rc = cli_store_path("export", 1, &operand, &path, &in_status);
	if (rc)
		return rc;
	err_init(&e);
	if (store_open(path, &s, &e) < 0) {
		view_error("export", &e);
		free(path);
		return EXIT_ERROR;
	}
	/* the whole store is checked first: a damaged store adds nothing */
	id = case_id(operand, a->id);
	rc = store_verify(s, &e);
	if (rc == 0)
		rc = lake_add(l, s, id, &e);
	if (rc < 0)
		view_error("export", &e);
	store_close(s);
	free(id);
	free(path);
	return rc < 0 ? EXIT_ERROR : in_status;
}

/* A folder of the layout before the lake: recording=ID/ folders. */
static bool old_fleet_layout(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	bool old = false;

	if (!d)
		return false;
	while (!old && (de = readdir(d)))
		old = !strncmp(de->d_name, "recording=", 10);
	closedir(d);
	return old;
}

/* "1 recording", "2 recordings" */
static const char *recs(uint64_t n)
{
	return n == 1 ? "recording" : "recordings";
}

/* What the commit did: "LAKE: 3 recordings written (1 replaced its rows
 * of before), 2,000 samples, 2 parts written; 1 recording dropped ...". */
static void lake_say(const char *dir, const struct lake_summary *m)
{
	term_fprintf(
		stderr,
		"heapsift export: %s: %llu %s written (%llu replaced "
		"rows already in the lake), %llu samples, %llu %s "
		"written",
		dir, (unsigned long long)m->recordings, recs(m->recordings),
		(unsigned long long)m->replaced, (unsigned long long)m->samples,
		(unsigned long long)m->parts, m->parts == 1 ? "part" : "parts");
	if (m->dropped)
		fprintf(stderr,
			"; %llu %s dropped: their case's store no longer "
			"holds them",
			(unsigned long long)m->dropped, recs(m->dropped));
	if (m->skipped)
		fprintf(stderr,
			"; %llu %s left out: no time to place them by (no "
			"start, no samples)",
			(unsigned long long)m->skipped, recs(m->skipped));
	fputc('\n', stderr);
}

/* The progress line while stores are read: which, and how far along. */
static void term_progress_operand(const char *operand, int i, int n)
{
	if (!cli_progress_enabled())
		return;
	{
		struct buf b = BUF_INIT;

		buf_add_printable(&b, operand, strlen(operand));
		cli_progress("adding %s to the lake (%d of %d)", b.data, i + 1,
			     n);
		buf_release(&b);
	}
}

static void lake_progress(void *ctx, uint64_t part, uint64_t parts)
{
	(void)ctx;
	cli_progress("writing the lake: part %llu of %llu",
		     (unsigned long long)part + 1, (unsigned long long)parts);
}

/* --layout=fleet: every operand's store into the lake a->dir; nothing
 * is changed unless every store could be read. */
static int export_lake(int argc, char **argv, struct export_args *a)
{
	struct lake_summary sum;
	struct lake *l = NULL;
	struct err e;
	int i, status = EXIT_OK, rc;

	if (old_fleet_layout(a->dir)) {
		term_fprintf(stderr,
			     "heapsift export: error: %s holds the fleet "
			     "layout of heapsift before the lake "
			     "(recording=*/ folders, schema 1): export into "
			     "a new folder (docs/export.md, The fleet lake)\n",
			     a->dir);
		return EXIT_ERROR;
	}
	a->lo.dir = a->dir;
	a->lo.format = a->fmt == FORMAT_PARQUET ? LAKE_PARQUET
		       : a->gzip		? LAKE_CSV_GZ
						: LAKE_CSV;
	if (!a->lo.part_rows)
		a->lo.part_rows = LAKE_PART_ROWS;
	a->lo.progress = lake_progress;
	err_init(&e);
	if (lake_open(&a->lo, &l, &e) < 0) {
		view_error("export", &e);
		lake_close(l);
		return cli_finish_output(EXIT_ERROR);
	}
	for (i = optind; i < argc; i++) {
		term_progress_operand(argv[i], i - optind, argc - optind);
		rc = lake_add_operand(l, argv[i], a);
		if (rc == EXIT_ERROR || rc == EXIT_USAGE) {
			lake_close(l); /* nothing of this export is kept */
			return cli_finish_output(rc);
		}
		if (rc > status)
			status = rc;
	}
	rc = lake_commit(l, &sum, &e);
	cli_progress_done();
	if (rc < 0) {
		view_error("export", &e);
		status = EXIT_ERROR;
	} else {
		lake_say(a->dir, &sum);
	}
	lake_close(l);
	return cli_finish_output(status);
}

/* --format=csv: the whole store as tables, or in the fleet layout. */
static int export_csv(int argc, char **argv, struct export_args *a)
{
	char *path;
	int rc, in_status;

	if (a->filter)
		return cli_usage_error("export",
				       "%s: --format=csv exports the whole "
				       "store; the filters apply to folded, "
				       "pprof, speedscope and svg",
				       a->filter);
	if (optind >= argc)
		return cli_usage_error("export", "no store given, nor inputs "
						 "to read");
	if (!a->dir)
		return cli_usage_error("export", "no directory given (-o DIR)");
	if (a->id && argc - optind > 1)
		return cli_usage_error("export", "--id names one case: give "
						 "one store (or input) with "
						 "it");
	a->o.path = a->dir;
	if (a->fleet)
		a->o.names = lake_files;
	if (a->fleet && old_fleet_layout(a->dir))
		return export_lake(argc, argv, a); /* which says why not */
	if (cli_output_check("export", &a->o, argv + optind, argc - optind))
		return EXIT_ERROR;
	if (a->fleet) {
		if (mkdir(a->dir, 0777) < 0 && errno != EEXIST) {
			term_fprintf(stderr,
				     "heapsift export: error: cannot create "
				     "%s: %s\n",
				     a->dir, strerror(errno));
			return EXIT_ERROR;
		}
		return export_lake(argc, argv, a);
	}
	/* one store, or the inputs to read into the cache store first */
	rc = cli_store_path("export", argc - optind, argv + optind, &path,
			    &in_status);
	if (rc)
		return rc;
	if (mkdir(a->dir, 0777) < 0 && errno != EEXIST) {
		term_fprintf(stderr,
			     "heapsift export: error: cannot create %s: %s\n",
			     a->dir, strerror(errno));
		free(path);
		return EXIT_ERROR;
	}
	rc = cli_finish_output(export_tables(path, a->dir));
	free(path);
	return rc;
}

int cmd_export(int argc, char **argv)
{
	struct export_args a = {
		.lo = {.host = ""},
		.o = {NULL, CLI_OUTPUT_FOLDER, export_files, false},
		.v = EXPORT_VALUE_BYTES,
	};
	int st;

	view_filters_init(&a.f);
	view_frames_init(&a.f);
	st = parse_options(argc, argv, &a);
	if (st < 0)
		st = check_options(&a);
	if (st >= 0)
		return st;
	if (a.fmt != FORMAT_CSV && a.fmt != FORMAT_PARQUET)
		return export_view(a.fmt, a.v, a.kinds != NULL, a.dir,
				   a.o.force, argc, argv, &a.f);
	return export_csv(argc, argv, &a);
}
