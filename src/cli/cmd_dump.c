/*
 * heapsift dump: the decoded heap events of every recording in the
 * inputs, one line each with the full stack, in file order.  For golden
 * tests, for comparing with `jfr print`, and for looking at what an
 * importer made of a file.  --stats decodes everything (every stack
 * resolved) but prints only the per-type event counts; --bench adds the
 * decoding speed on stderr.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/intake.h"
#include "importers/registry.h"
#include "record/sink.h"
#include "input/input.h"
#include "input/walk.h"
#include "util/buf.h"
#include "util/human.h"
#include "util/term.h"

static const char dump_help[] =
	"usage: heapsift dump [--format=text|tsv] [--raw-names] "
	"[--events=LIST] [--stats|--bench] [--jobs=N] [LIMITS] INPUT...\n"
	"\n"
	"Print the heap events of every JFR recording found in the inputs,\n"
	"one per line, in file order (not time order), with full stacks.\n"
	"\n"
	"      --format=text  (default) readable lines\n"
	"      --format=tsv   tab-separated: kind, startTime, javaThreadId,\n"
	"                     threadName, class, value (weight, tlabSize,\n"
	"                     allocationSize, objectSize; the estimated\n"
	"                     bytes of other writers' samples; heapUsed\n"
	"                     for gc),\n"
	"                     truncated, frames, allocationSize, root\n"
	"      --raw-names    class names as the JVM writes them ([B,\n"
	"                     java/lang/String) instead of byte[],\n"
	"                     java.lang.String\n"
	"      --events=LIST  comma-separated: alloc "
	"(ObjectAllocationSample),\n"
	"                     tlab (InNewTLAB), outside (OutsideTLAB), old\n"
	"                     (OldObjectSample), gc (GCHeapSummary),\n"
	"                     ap-alloc, ap-live (async-profiler's samples\n"
	"                     and profiler.LiveObject), dd-alloc, dd-live\n"
	"                     (datadog.ObjectSample, HeapLiveObject);\n"
	"                     default all of these; gcinfo (what "
	"GarbageCollection,\n"
	"                     G1GarbageCollection, EvacuationFailed and\n"
	"                     PromotionFailed say of their GC: gcId, name,\n"
	"                     cause, type, failed) only when named\n"
	"      --stats        print only the count of every event type per\n"
	"                     recording (as `jfr summary` counts them)\n"
	"      --bench        --stats, and the decoding speed on stderr\n"
	"      --jobs=N       threads decoding JFR chunks (default:\n"
	"                     HEAPSIFT_JOBS, else the CPUs, at most 4);\n"
	"                     the output is the same for every N\n"
	"  -h, --help         this text\n"
	"\n" CLI_LIMIT_HELP "\n"
	"Exit status: 0 all read; 1 an input could not be read or held no\n"
	"recording; 2 usage; 3 done, but damaged or unfinished data was\n"
	"skipped.\n";

enum {
	EV_ALLOC = 1,
	EV_TLAB = 2,
	EV_OUTSIDE = 4,
	EV_OLD = 8,
	EV_GC = 16,
	EV_GCINFO = 32,
	EV_AP_ALLOC = 64,
	EV_AP_LIVE = 128,
	EV_DD_ALLOC = 256,
	EV_DD_LIVE = 512
};

struct dump_options {
	bool tsv, raw, stats, bench; /* --bench implies --stats */
	unsigned events;	     /* EV_* */
	unsigned jobs;		     /* --jobs, 0: not given */
	struct input_limits lim;
	int n_inputs;
	char **inputs;
};

/* A run's state: the sink's and the walker's context. */
struct dump {
	const struct dump_options *o;
	struct cli_intake intake; /* what is not JFR */
	unsigned jobs;		  /* cli_jobs() of o->jobs */
	struct buf line;
	uint64_t n_recordings;
	uint64_t n_jfr_members; /* recognised as JFR, readable or not */
	uint64_t n_events;
	uint64_t bytes;
	uint64_t warnings;
};

static void put_time(struct buf *b, int64_t ns)
{
	char t[HUMAN_TIME_SIZE];

	buf_adds(b, human_time(ns, 9, NULL, t, sizeof(t)));
}

/* Names come from the file: never let a raw control byte out. */
static void put_name(struct buf *b, const char *s)
{
	buf_add_printable(b, s, strlen(s));
}

static void put_frames(struct dump *d, const struct rec_stack *st,
		       const char *sep)
{
	uint32_t i;

	if (!st)
		return;
	for (i = 0; i < st->n_frames; i++) {
		const struct rec_frame *f = &st->frames[i];

		if (i)
			buf_adds(&d->line, sep);
		put_name(&d->line, d->o->raw ? f->class_raw : f->class_name);
		buf_addch(&d->line, '.');
		put_name(&d->line, f->method);
		put_name(&d->line, f->descriptor);
		buf_addf(&d->line, ":%d@%d:", f->line, f->bci);
		put_name(&d->line, f->type);
	}
}

static bool wanted(const struct dump *d, enum sample_kind k)
{
	switch (k) {
	case SAMPLE_ALLOC:
		return d->o->events & EV_ALLOC;
	case SAMPLE_TLAB_NEW:
		return d->o->events & EV_TLAB;
	case SAMPLE_TLAB_OUTSIDE:
		return d->o->events & EV_OUTSIDE;
	case SAMPLE_OLD_OBJECT:
		return d->o->events & EV_OLD;
	case SAMPLE_AP_ALLOC:
		return d->o->events & EV_AP_ALLOC;
	case SAMPLE_AP_LIVE:
		return d->o->events & EV_AP_LIVE;
	case SAMPLE_DD_ALLOC:
		return d->o->events & EV_DD_ALLOC;
	case SAMPLE_DD_LIVE:
		return d->o->events & EV_DD_LIVE;
	default:
		return false;
	}
}

static const char *kind_word(enum sample_kind k)
{
	return sample_kind_word(k);
}

static void put_opt(struct buf *b, const char *name, int64_t v)
{
	if (v != REC_NONE)
		buf_addf(b, " %s=%lld", name, (long long)v);
}

static int dump_sample(void *ctx, const struct rec_sample *s)
{
	struct dump *d = ctx;
	const char *cls = d->o->raw ? s->class_raw : s->class_name;
	int64_t value;

	d->n_events++;
	if (d->o->stats || !wanted(d, s->kind))
		return 0;
	buf_reset(&d->line);
	if (d->o->tsv) {
		value = s->kind == SAMPLE_ALLOC		 ? s->weight
			: s->kind == SAMPLE_TLAB_NEW	 ? s->tlab_size
			: s->kind == SAMPLE_TLAB_OUTSIDE ? s->alloc_size
			: sample_kind_ht(s->kind)	 ? s->weight
							 : s->object_size;
		buf_addf(&d->line, "%s\t", kind_word(s->kind));
		put_time(&d->line, s->time_ns);
		if (s->thread) {
			buf_addf(&d->line, "\t%lld\t",
				 (long long)s->thread->java_id);
			put_name(&d->line, s->thread->name);
		} else {
			buf_adds(&d->line, "\t\t");
		}
		buf_addch(&d->line, '\t');
		put_name(&d->line, cls ? cls : "");
		buf_addch(&d->line, '\t');
		if (value != REC_NONE)
			buf_addf(&d->line, "%lld", (long long)value);
		/* no stack recorded: neither truncated nor whole */
		buf_addf(&d->line, "\t%s\t",
			 !s->stack	       ? ""
			 : s->stack->truncated ? "true"
					       : "false");
		put_frames(d, s->stack, ";");
		buf_addch(&d->line, '\t');
		if (s->alloc_size != REC_NONE)
			buf_addf(&d->line, "%lld", (long long)s->alloc_size);
		buf_addch(&d->line, '\t');
		if (s->gc_root)
			put_name(&d->line, s->gc_root);
	} else {
		put_time(&d->line, s->time_ns);
		buf_addf(&d->line, " %s", kind_word(s->kind));
		if (s->thread) {
			buf_adds(&d->line, " thread=");
			put_name(&d->line, s->thread->name);
			buf_addf(&d->line, "(%lld)",
				 (long long)s->thread->java_id);
		}
		buf_adds(&d->line, " class=");
		put_name(&d->line, cls ? cls : "unknown");
		put_opt(&d->line, "weight", s->weight);
		put_opt(&d->line, "tlab", s->tlab_size);
		put_opt(&d->line, "size", s->alloc_size);
		put_opt(&d->line, "objectSize", s->object_size);
		if (s->alloc_time_ns != REC_NONE) {
			buf_adds(&d->line, " allocated=");
			put_time(&d->line, s->alloc_time_ns);
		}
		put_opt(&d->line, "ageNs", s->object_age_ns);
		put_opt(&d->line, "heapUsed", s->last_heap_used);
		put_opt(&d->line, "arrayElements", s->array_elements);
		if (s->gc_root) {
			buf_adds(&d->line, " root=\"");
			put_name(&d->line, s->gc_root);
			buf_addch(&d->line, '"');
		}
		if (s->stack && s->stack->truncated)
			buf_adds(&d->line, " truncated");
		if (s->stack) {
			buf_adds(&d->line, " stack: ");
			put_frames(d, s->stack, "; ");
		}
	}
	buf_addch(&d->line, '\n');
	fwrite(d->line.data, 1, d->line.len, stdout);
	return ferror(stdout) ? -1 : 0;
}

static int dump_heap_summary(void *ctx, const struct rec_heap_summary *h)
{
	struct dump *d = ctx;

	d->n_events++;
	if (d->o->stats || !(d->o->events & EV_GC))
		return 0;
	buf_reset(&d->line);
	if (d->o->tsv) {
		buf_adds(&d->line, "gc\t");
		put_time(&d->line, h->time_ns);
		buf_adds(&d->line, "\t\t\t");
		put_name(&d->line, h->when);
		buf_addf(&d->line, "\t%lld\t\t\t\t", (long long)h->heap_used);
	} else {
		put_time(&d->line, h->time_ns);
		buf_adds(&d->line, " gc \"");
		put_name(&d->line, h->when);
		buf_addch(&d->line, '"');
		put_opt(&d->line, "gcId", h->gc_id);
		put_opt(&d->line, "heapUsed", h->heap_used);
		put_opt(&d->line, "committed", h->committed);
		put_opt(&d->line, "reserved", h->reserved);
	}
	buf_addch(&d->line, '\n');
	fwrite(d->line.data, 1, d->line.len, stdout);
	return ferror(stdout) ? -1 : 0;
}

static int dump_recording(void *ctx, const struct rec_recording *r)
{
	struct dump *d = ctx;
	struct buf b = BUF_INIT;
	uint32_t i;

	d->n_recordings++;
	if (d->o->tsv)
		return 0;
	buf_adds(&b, "# ");
	put_name(&b, r->source);
	buf_addf(&b, ": %s, %u chunk%s, ", r->format, r->n_chunks,
		 r->n_chunks == 1 ? "" : "s");
	put_time(&b, r->start_ns);
	buf_adds(&b, " .. ");
	put_time(&b, r->end_ns);
	if (r->jvm_name) {
		buf_adds(&b, ", ");
		if (!human_version_has_name(r->jvm_name, r->jvm_version)) {
			put_name(&b, r->jvm_name);
			buf_addch(&b, ' ');
		}
		put_name(&b, r->jvm_version ? r->jvm_version : "");
	}
	buf_addch(&b, '\n');
	if (d->o->stats) {
		for (i = 0; i < r->n_event_types; i++) {
			size_t at = b.len;

			put_name(&b, r->event_types[i].name);
			while (b.len - at < 45)
				buf_addch(&b, ' ');
			buf_addf(&b, " %12llu\n",
				 (unsigned long long)r->event_types[i].n);
		}
	} else {
		buf_addf(&b,
			 "# samples: alloc %llu, tlab %llu, outside %llu, old "
			 "%llu",
			 (unsigned long long)r->n_samples[SAMPLE_ALLOC],
			 (unsigned long long)r->n_samples[SAMPLE_TLAB_NEW],
			 (unsigned long long)r->n_samples[SAMPLE_TLAB_OUTSIDE],
			 (unsigned long long)r->n_samples[SAMPLE_OLD_OBJECT]);
		/* other writers' kinds where the recording has them */
		for (i = SAMPLE_AP_ALLOC; i < SAMPLE__COUNT; i++)
			if (r->n_samples[i])
				buf_addf(&b, ", %s %llu",
					 sample_kind_word((enum sample_kind)i),
					 (unsigned long long)r->n_samples[i]);
		buf_addf(&b, "; gc heap summaries %llu\n",
			 (unsigned long long)r->n_heap_summaries);
		for (i = 0; i < r->n_settings; i++) {
			const char *name = r->settings[i].name;

			/* the importer's findings, not the recording's
			 * settings (import_jfr_facts.c) */
			if (rec_setting_fact(name) == REC_FACT_IS_WRITERS)
				buf_adds(&b, "# written by ");
			else if (rec_setting_fact(name) == REC_FACT_IS_UNREAD)
				buf_adds(&b, "# not read ");
			else {
				buf_adds(&b, "# setting ");
				put_name(&b, name);
				buf_addch(&b, '=');
			}
			put_name(&b, r->settings[i].value);
			buf_addch(&b, '\n');
		}
	}
	fwrite(b.data, 1, b.len, stdout);
	buf_release(&b);
	return ferror(stdout) ? -1 : 0;
}

/* One GC event's facts (not counted in n_events: the importer reads
 * them as facts of a GC, the way `jfr print` shows them; tsv: the
 * collector in the class column, the gcId as the value, the G1 type in
 * frames, the cause in root). */
static int dump_gc_info(void *ctx, const struct rec_gc_info *g)
{
	struct dump *d = ctx;

	if (d->o->stats || !(d->o->events & EV_GCINFO))
		return 0;
	buf_reset(&d->line);
	if (d->o->tsv) {
		buf_adds(&d->line, "gcinfo\t\t\t\t");
		put_name(&d->line, g->name ? g->name : "");
		buf_addf(&d->line, "\t%lld\t\t", (long long)g->gc_id);
		put_name(&d->line, g->phase ? g->phase : "");
		buf_addf(&d->line, "\t%s\t", g->failed ? "failed" : "");
		put_name(&d->line, g->cause ? g->cause : "");
	} else {
		buf_addf(&d->line, "gcinfo gcId=%lld", (long long)g->gc_id);
		if (g->name) {
			buf_adds(&d->line, " name=\"");
			put_name(&d->line, g->name);
			buf_addch(&d->line, '"');
		}
		if (g->cause) {
			buf_adds(&d->line, " cause=\"");
			put_name(&d->line, g->cause);
			buf_addch(&d->line, '"');
		}
		if (g->phase) {
			buf_adds(&d->line, " type=\"");
			put_name(&d->line, g->phase);
			buf_addch(&d->line, '"');
		}
		if (g->failed)
			buf_adds(&d->line, " failed");
	}
	buf_addch(&d->line, '\n');
	fwrite(d->line.data, 1, d->line.len, stdout);
	return ferror(stdout) ? -1 : 0;
}

static const struct sink_ops dump_sink_ops = {
	.sample = dump_sample,
	.heap_summary = dump_heap_summary,
	.gc_info = dump_gc_info,
	.recording = dump_recording,
};

static void print_problem(enum problem_severity sev, const struct err *e)
{
	cli_problem("dump", sev == PROBLEM_ERROR ? "error" : "warning", e);
}

static void dump_warn(void *ctx, const struct err *e)
{
	struct dump *d = ctx;

	/* events no reader takes: dump prints events, not the store's
	 * gaps (--stats counts every type; import says them) */
	if (e->code == ERR_NOT_READ)
		return;
	d->warnings++;
	print_problem(PROBLEM_WARNING, e);
}

static void dump_problem(void *ctx, enum problem_severity sev,
			 const struct err *e)
{
	(void)ctx;
	print_problem(sev, e);
}

static int dump_member(void *ctx, const struct member *m)
{
	struct dump *d = ctx;
	const unsigned char *p;
	size_t avail;
	struct probe_result pr;
	struct sink sink = {&dump_sink_ops, d};
	struct import_env env = {m->display, dump_warn, d, 0, d->jobs};
	struct err e;
	uint64_t before = input_offset(m->in), recs_before = d->n_recordings;

	if (input_peek(m->in, PROBE_PREFIX, &p, &avail) < 0)
		avail = 0; /* the walker reports the failure */
	pr = importer_probe(p, avail, m->in->eof && !m->in->failed);
	cli_intake_member(&d->intake, m, pr.kind == KIND_JFR, avail);
	if (pr.kind != KIND_JFR)
		return 0;
	d->n_jfr_members++;
	err_init(&e);
	if (pr.ops->import(m->in, &sink, &env, &e) < 0) {
		if (ferror(stdout))
			return -1;
		err_source(&e, m->display);
		if (d->n_recordings == recs_before &&
		    cli_intake_refused(&d->intake, m, &e)) {
			print_problem(PROBLEM_ERROR, &e);
		} else {
			d->warnings++;
			print_problem(PROBLEM_WARNING, &e);
		}
	}
	d->bytes += input_offset(m->in) - before;
	return 0;
}

static bool parse_events(const char *list, unsigned *out)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = {{"alloc", EV_ALLOC},
		     {"tlab", EV_TLAB},
		     {"outside", EV_OUTSIDE},
		     {"old", EV_OLD},
		     {"gc", EV_GC},
		     {"gcinfo", EV_GCINFO},
		     {"ap-alloc", EV_AP_ALLOC},
		     {"ap-live", EV_AP_LIVE},
		     {"dd-alloc", EV_DD_ALLOC},
		     {"dd-live", EV_DD_LIVE}};
	const char *p = list;

	*out = 0;
	while (*p) {
		size_t n = strcspn(p, ","), i;
		bool found = false;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == n &&
			    !strncmp(p, names[i].name, n)) {
				*out |= names[i].bit;
				found = true;
			}
		if (!found)
			return false;
		p += n;
		if (*p)
			p++;
	}
	return *out != 0;
}

enum {
	OPT_FORMAT = OPT__CLI_NEXT,
	OPT_RAW,
	OPT_EVENTS,
	OPT_STATS,
	OPT_BENCH,
	OPT_JOBS
};
const struct option dump_option_table[] = {
	{"format", required_argument, NULL, OPT_FORMAT},
	{"raw-names", no_argument, NULL, OPT_RAW},
	{"events", required_argument, NULL, OPT_EVENTS},
	{"stats", no_argument, NULL, OPT_STATS},
	{"bench", no_argument, NULL, OPT_BENCH},
	{"jobs", required_argument, NULL, OPT_JOBS},
	{"help", no_argument, NULL, 'h'},
	CLI_LIMIT_OPTIONS,
	{NULL, 0, NULL, 0},
};
/* --format's words, text the default */
static const struct {
	const char *name;
	bool tsv;
} format_table[] = {{"text", false}, {"tsv", true}};
#define N_FORMATS (sizeof(format_table) / sizeof(format_table[0]))

static const char *format_word(size_t i)
{
	return i < N_FORMATS ? format_table[i].name : NULL;
}

const struct cli_option_words dump_word_table[] = {
	{"format", format_word},
	{NULL, NULL},
};

static int dump_parse(int argc, char **argv, struct dump_options *o)
{
	size_t i;
	int c;

	memset(o, 0, sizeof(*o));
	o->events = EV_ALLOC | EV_TLAB | EV_OUTSIDE | EV_OLD | EV_GC |
		    EV_AP_ALLOC | EV_AP_LIVE | EV_DD_ALLOC | EV_DD_LIVE;
	input_limits_default(&o->lim);
	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":h", dump_option_table, NULL)) !=
	       -1) {
		switch (c) {
		case 'h':
			return cli_help(dump_help);
		case OPT_FORMAT:
			for (i = 0; i < N_FORMATS; i++)
				if (!strcmp(optarg, format_table[i].name))
					break;
			if (i < N_FORMATS)
				o->tsv = format_table[i].tsv;
			else
				return cli_usage_error("dump",
						       "--format: '%s' is not "
						       "text or tsv",
						       optarg);
			break;
		case OPT_RAW:
			o->raw = true;
			break;
		case OPT_EVENTS:
			if (!parse_events(optarg, &o->events))
				return cli_usage_error(
					"dump",
					"--events: '%s' is not a list of "
					"alloc, tlab, outside, old, gc, "
					"gcinfo, ap-alloc, ap-live, dd-alloc, "
					"dd-live",
					optarg);
			break;
		case OPT_STATS:
			o->stats = true;
			break;
		case OPT_BENCH:
			o->stats = o->bench = true;
			break;
		case OPT_JOBS:
			if (cli_jobs_option("dump", optarg, &o->jobs))
				return EXIT_USAGE;
			break;
		case '?':
		case ':':
			return cli_getopt_error("dump", c, argv);
		default:
			if (cli_limit_option("dump", c, optarg, &o->lim))
				return EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return cli_usage_error("dump", "no input given");
	o->n_inputs = argc - optind;
	o->inputs = argv + optind;
	return CLI_RUN;
}

/* Every input walked, each member JFR recognises decoded into d's sink;
 * the count of inputs that could not be read. */
static int dump_inputs(struct dump *d, struct walk_stats *stats)
{
	static const struct walk_ops ops = {dump_member, dump_problem};
	int i, failed_inputs = 0;

	/* dump reads one kind: what is not JFR is "not recognised" here */
	cli_intake_init_kind(&d->intake, "dump", "a JFR recording",
			     "JFR recordings",
			     "dump reads JFR recordings only; heapsift scan "
			     "says what it is, heapsift import reads the "
			     "other kinds");
	for (i = 0; i < d->o->n_inputs; i++) {
		int rc;

		cli_intake_begin(&d->intake, d->o->inputs[i]);
		rc = walk_input(d->o->inputs[i], &d->o->lim, &ops, d, stats);
		if (rc < 0 && ferror(stdout))
			break;
		if (rc < 0 || cli_intake_end(&d->intake))
			failed_inputs++;
	}
	cli_intake_release(&d->intake);
	return failed_inputs;
}

static int dump_run(const struct dump_options *o)
{
	struct walk_stats stats = {0, 0, 0, 0};
	struct dump d;
	struct timespec t0, t1;
	int failed_inputs, status;

	memset(&d, 0, sizeof(d));
	d.o = o;
	buf_init(&d.line);
	d.jobs = cli_jobs(o->jobs);
	if (o->tsv && !o->stats)
		fputs("kind\tstartTime\tjavaThreadId\tthreadName\tclass\tvalue"
		      "\ttruncated\tframes\tallocationSize\troot\n",
		      stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	failed_inputs = dump_inputs(&d, &stats);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (o->bench) {
		double s = (double)(t1.tv_sec - t0.tv_sec) +
			   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

		fprintf(stderr,
			"heapsift dump: decoded %llu bytes, %llu heap events "
			"in %.3f s: %.0f MB/s, %.0f events/s\n",
			(unsigned long long)d.bytes,
			(unsigned long long)d.n_events, s,
			s > 0 ? (double)d.bytes / 1e6 / s : 0.0,
			s > 0 ? (double)d.n_events / s : 0.0);
	}
	buf_release(&d.line);
	if (!d.n_recordings && !failed_inputs && !ferror(stdout)) {
		/* nothing to show is an error, whether no member looked like
		 * JFR or none that did could be read */
		term_fprintf(stderr,
			     "heapsift dump: no %sJFR recording in the "
			     "inputs\n",
			     d.n_jfr_members ? "readable " : "");
		failed_inputs++;
	}
	if (failed_inputs || stats.errors)
		status = EXIT_ERROR;
	else if (stats.warnings || d.warnings)
		status = EXIT_WARNED;
	else
		status = EXIT_OK;
	return cli_finish_output(status);
}

int cmd_dump(int argc, char **argv)
{
	struct dump_options o;
	int rc = dump_parse(argc, argv, &o);

	return rc == CLI_RUN ? dump_run(&o) : rc;
}
