/*
 * What the store views (top, tree, timeline, survivors, diff; report,
 * export and browse in part) share: opening the store, the filter
 * options every view takes and the options several take alike, and
 * turning times given on the command line into nanoseconds.
 */
#ifndef HS_CLI_VIEW_H
#define HS_CLI_VIEW_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "findings/findings.h"
#include "query/query.h"
#include "util/buf.h"

struct store;

enum {
	OPT_FROM = 0x2000,
	OPT_TO,
	OPT_RECORDING,
	OPT_THREAD,
	OPT_KIND,
	OPT_CLASS,
	OPT_INCLUDE,
	OPT_EXCLUDE,
	OPT_LIBRARY,
	OPT_ESTIMATE,
	OPT_FRAMES,
	OPT_DROP_FRAMES,
	OPT_NO_NORMALIZE,
	OPT_LEAF,
	OPT_THREADS,
	OPT__VIEW_NEXT,
};

#define VIEW_FILTER_OPTIONS                                            \
	{"from", required_argument, NULL, OPT_FROM},                   \
		{"to", required_argument, NULL, OPT_TO},               \
		{"recording", required_argument, NULL, OPT_RECORDING}, \
		{"thread", required_argument, NULL, OPT_THREAD},       \
		{"kind", required_argument, NULL, OPT_KIND},           \
		{"class", required_argument, NULL, OPT_CLASS},         \
		{"include", required_argument, NULL, OPT_INCLUDE},     \
		{"exclude", required_argument, NULL, OPT_EXCLUDE},     \
		{"library", required_argument, NULL, OPT_LIBRARY},     \
	{                                                              \
		"estimate", required_argument, NULL, OPT_ESTIMATE      \
	}

/* The filters' options that take a fixed set of words (cli.h). */
#define VIEW_FILTER_WORDS                       \
	{"kind", view_kind_word},               \
	{                                       \
		"estimate", query_estimate_word \
	}
/* --kind's words: the kinds' short names (sample_kind_word()). */
const char *view_kind_word(size_t i);

#define VIEW_FILTER_HELP                                                       \
	"Filters:\n"                                                           \
	"      --from=TIME, --to=TIME  a time window: absolute\n"              \
	"                              (2026-11-21T23:17:12Z) or an offset\n"  \
	"                              (30s, 1m30s, 500ms) from the start\n"   \
	"                              of --recording, else of the earliest\n" \
	"                              recording with samples; --from must\n"  \
	"                              be before --to\n"                       \
	"      --recording=N[,N..]     only recording N, or those listed (a\n" \
	"                              JVM's, as report's commands name\n"     \
	"                              them; see heapsift info)\n"             \
	"      --thread=REGEX          threads whose name matches\n"           \
	"      --kind=KIND             alloc (jdk.ObjectAllocationSample, "    \
	"the\n"                                                                \
	"                              default), tlab, outside, old, agent,\n" \
	"                              ap-alloc, ap-live "                     \
	"(async-profiler's),\n"                                                \
	"                              dd-alloc, dd-live (Datadog's)\n"        \
	"      --class=REGEX           classes whose name matches (byte[],\n"  \
	"                              java.util.HashMap$Node)\n"              \
	"      --include=REGEX         stacks with a frame whose "             \
	"class.method\n"                                                       \
	"                              matches\n"                              \
	"      --exclude=REGEX         stacks with no frame that matches\n"    \
	"      --library=REGEX         frames app-site passes over (default\n" \
	"                              java., javax., jdk., sun., com.sun.)\n" \
	"      --estimate=EST          jfr or corrected: the bytes of\n"       \
	"                              ObjectAllocationSample (corrected,\n"   \
	"                              the default where the recording has\n"  \
	"                              OutsideTLAB events; "                   \
	"docs/estimates.md)\n"                                                 \
	"  Regexes are PCRE2.\n"

/*
 * How stacks become frames (query_options.frames, .drop_re, .normalize;
 * docs/export.md, "Frames"), for the views that show frames: tree, diff,
 * export's flame graphs; top takes --no-normalize alone
 * (VIEW_NORMALIZE_OPTION).  Such a command calls view_frames_init(),
 * which turns normalisation on: it is the default there.
 */
#define VIEW_NORMALIZE_OPTION                                       \
	{                                                           \
		"no-normalize", no_argument, NULL, OPT_NO_NORMALIZE \
	}
/* The frame options' fixed values, for `heapsift completion`. */
#define VIEW_FRAME_WORDS               \
	{"frames", query_frames_word}, \
	{                              \
		"leaf", view_leaf_word \
	}
/* --leaf's words: class, none. */
const char *view_leaf_word(size_t i);

#define VIEW_FRAME_OPTIONS                                                 \
	{"frames", required_argument, NULL, OPT_FRAMES},                   \
		{"drop-frames", required_argument, NULL, OPT_DROP_FRAMES}, \
		{"leaf", required_argument, NULL, OPT_LEAF},               \
		{"threads", no_argument, NULL, OPT_THREADS},               \
		VIEW_NORMALIZE_OPTION

#define VIEW_NORMALIZE_HELP                                              \
	"      --no-normalize          names as recorded: without it, "  \
	"numbers\n"                                                      \
	"                              that change from run to run are " \
	"taken\n"                                                        \
	"                              out of class and thread names\n"  \
	"                              ($$Lambda$12/0x.. -> $$Lambda, "  \
	"$Proxy7\n"                                                      \
	"                              -> $Proxy, pool-3-thread-1 ->\n"  \
	"                              pool-N-thread-N; docs/export.md)\n"

#define VIEW_FRAME_HELP                                                        \
	"Frames:\n"                                                            \
	"      --frames=line|method    a frame per line (class.method:line, "  \
	"the\n"                                                                \
	"                              default) or per method "                \
	"(class.method:\n"                                                     \
	"                              a method's lines are one frame)\n"      \
	"      --drop-frames=REGEX     leave out of every stack the frames\n"  \
	"                              whose class.method matches (a stack\n"  \
	"                              left with none: [dropped])\n"           \
	"      --leaf=class            the allocated class as the innermost\n" \
	"                              frame, CLASS_[k] (CLASS_[i] for tlab\n" \
	"                              samples), as async-profiler writes "    \
	"it\n"                                                                 \
	"                              (--leaf=none: no such frame)\n"         \
	"      --threads               the thread as the outermost frame,\n"   \
	"                              [NAME]\n" VIEW_NORMALIZE_HELP

/* --recording's list: at most a JVM's, as report's commands name them */
#define VIEW_MAX_RECORDINGS FINDINGS_MAX_RECS

/* Times are parsed after the store is open (offsets need its start). */
struct view_filters {
	struct query_options q;
	const char *from, *to;
	/* --recording=N,N..: q.recordings points here (set again by
	 * view_open() and view_resolve(), so a copy of f stays right) */
	uint32_t recs[VIEW_MAX_RECORDINGS];
	size_t n_recs;
};

void view_filters_init(struct view_filters *f);
/* Normalisation on: the default of the commands that take the frame
 * options or --no-normalize. */
void view_frames_init(struct view_filters *f);
/* 0 handled, 1 not a filter option, EXIT_USAGE after a message. */
int view_filter_option(const char *cmd, int opt, const char *arg,
		       struct view_filters *f);

/*
 * The end of every view's option loop, for what getopt_long returned
 * that the command does not handle itself: getopt's errors ('?', ':')
 * and the filters.  0 handled, else EXIT_USAGE (after a message).
 */
int view_default_option(const char *cmd, int c, char **argv,
			struct view_filters *f);

/* The options several views take alike: --by=GROUP (top's groups) and
 * --limit=N (0: no limit).  0, or EXIT_USAGE after a message. */
int view_group_option(const char *cmd, const char *arg, enum query_group *by);
int view_limit_option(const char *cmd, const char *arg, uint64_t *limit);

/*
 * After getopt: the operands left in argv, one store or the inputs to read
 * into the cache store (cli_store_open(), whose import status joins the
 * exit status), opened with its query.  Prints the problem and returns
 * EXIT_USAGE (no operand, a bad filter) or EXIT_ERROR (the store, or no
 * input could be imported); 0 on success.  On failure the store is
 * closed and *s and *q are NULL.
 */
int view_open(const char *cmd, int argc, char **argv, struct view_filters *f,
	      struct store **s, struct query **q);
/* view_open() given the operands themselves (borrowed): n of them. */
int view_open_operands(const char *cmd, int n, char **operands,
		       struct view_filters *f, struct store **s,
		       struct query **q);
void view_close(struct store *s, struct query *q);

/*
 * What view_open() does between opening the store and the query, for a
 * command that opens several queries (diff): checks f's recording and
 * turns its --from/--to into nanoseconds from s's time 0.  0, or
 * EXIT_USAGE / EXIT_ERROR after a message.
 */
int view_resolve(const char *cmd, struct store *s, struct view_filters *f);

/* Print a problem "heapsift CMD: error: ..." */
void view_error(const char *cmd, const struct err *e);

/* A query that failed: a usage message for ERR_USAGE (a bad --bucket
 * for the data), else the error; closes s and q.  The exit status. */
int view_query_failed(const char *cmd, const struct err *e, struct store *s,
		      struct query *q);

/* --bucket=DURATION: 0, or EXIT_USAGE after a message. */
int view_bucket_option(const char *cmd, const char *arg, int64_t *out);

/* A relative standard error (query_row.rel_err) as the views print it:
 * text, 7 wide ("-" for NaN, one decimal under 10%); csv, four decimals,
 * nothing for NaN. */
void view_add_rel_err(struct buf *b, double rel, bool csv);

bool view_parse_duration(const char *s, int64_t *ns);

#endif
