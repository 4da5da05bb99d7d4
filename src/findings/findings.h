/*
 * Findings: what the triage rules (rules.c, finding_rule_table[]) make
 * of a store, ranked by severity, each with its evidence and the
 * command that shows more; `heapsift report` renders them and the
 * browser's Findings view lists them, both from query_findings().
 * Below that, what the rules ask of the query layer beyond query.h:
 * the evidence behind a leak suspect (GC roots, GCs survived, objects
 * that are merely not yet collected), the heap after each GC, objects
 * above a size, and a recording's settings.  Like query.h, these read
 * the store through an open query and allocate nothing per sample;
 * the front ends include this header and query.h, nothing below them.
 * Nothing here renders: names from files are kept raw, and each front
 * end cleans them for its target.
 *
 * Every function works on the query's kind and filters (a drill-down
 * key included), so "the evidence for site X" is a query whose
 * options.key is X.
 */
#ifndef HS_QUERY_FINDINGS_H
#define HS_QUERY_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "query/query.h"

struct store;
struct buf;

/* --- findings ------------------------------------------------------------ */

enum finding_severity {
	FINDING_INFO = 0,
	FINDING_WARNING,
	FINDING_CRITICAL,
};

const char *finding_severity_name(enum finding_severity s);

/* A named number of a finding, for machines (the report's JSON
 * "figures"). */
struct finding_fact {
	const char *name; /* static */
	double value;
	const char *unit; /* static: "bytes", "bytes/s", "%", "samples".. */
};

#define FINDING_MAX_FACTS 16

struct finding {
	const char *rule; /* the rule's name (static) */
	enum finding_severity severity;
	double weight;	  /* order within a severity, larger first */
	bool few_samples; /* rests on too few samples: said, ranked lower */
	char *subject;	  /* what it is about (a site, a heap); may be NULL */
	char *sentence;	  /* one sentence */
	char **evidence;  /* lines */
	size_t n_evidence;
	char *command; /* the heapsift command that shows more */
	char *fix;     /* what usually fixes it; NULL */
	struct finding_fact facts[FINDING_MAX_FACTS];
	size_t n_facts;
	int figure; /* index into findings.figures; -1 none */
	int jvm;    /* index into findings.jvms: the JVM it is about */
};

enum finding_figure_kind {
	FIG_RATE, /* allocation rate over time; peaks marked */
	FIG_LIVE, /* live set of leak suspects over time */
	FIG_HEAP, /* heap used after GC over time */
	FIG_MAP,  /* a code heap's granule map */
};

struct finding_series {
	char *name;
	double *y; /* [n_points] */
};

struct finding_figure {
	enum finding_figure_kind kind;
	char *title;
	const char *unit; /* of y: "bytes/s", "bytes", "samples" */
	size_t n_points;
	/* [n_points]; FIG_RATE: the start of the time each point's rate
	 * is over (where a recording starts inside a bucket, there) */
	int64_t *t_ns;
	/* FIG_RATE: [n_points] the nanoseconds each rate is over, the
	 * time its bucket covers (query_bucket.covered_ns); else NULL */
	int64_t *covered_ns;
	struct finding_series *series;
	size_t n_series;
	size_t *peaks; /* FIG_RATE: indexes of peak points */
	size_t n_peaks;
	/* FIG_MAP: one character per cell as the reports print them
	 * (' ' empty, '0'-'9' tenths, '*' full), and the fill 0..1 (-1
	 * nothing there) */
	char *cells;
	double *fill;
	size_t n_cells;
	uint64_t cell_bytes; /* bytes a cell covers */
};

/*
 * One JVM of a store (query_jvms()): the recordings that came from it.
 * Findings belong to one JVM, and no rule adds one JVM's samples to
 * another's.  JFR recordings with the same jdk.JVMInformation pid and
 * jvmStartTime are one JVM; an agent recording or a javacore is one;
 * a code-heap report goes with the HotSpot JVM whose recordings share
 * its folder in the inputs, or the only one, else stands alone.
 */
struct query_jvm {
	char *name;	    /* "pid 4767"; "JVM of recording 3" where the
			       recordings do not say */
	const char *source; /* its first recording's source (borrowed) */
	uint32_t *recs;	    /* its recordings, ascending */
	size_t n_recs;
	int64_t pid, start_ms; /* JVMInformation's; -1 not known */
	bool hotspot;	       /* holds a JFR or agent recording */
};

/* The store's JVMs, in the order of their first recordings (those of
 * code-heap reports of no known JVM last): *out is malloc'ed, the
 * caller's to free with query_jvms_free(); sources are borrowed from
 * q's store. */
void query_jvms(struct query *q, struct query_jvm **out, size_t *n);
void query_jvms_free(struct query_jvm *jv, size_t n);
/* How many JVMs hold samples of q's kind in the recordings o's filters
 * keep (o: q's options): more than one, and a view that sums samples
 * over time adds JVMs together, a fleet figure that must say so.
 * *named: each of them is named by its recordings (a pid), so they are
 * known to be that many JVMs; false: some are only recordings that do
 * not say which JVM they came from. */
size_t query_jvms_sampled(struct query *q, const struct query_options *o,
			  bool *named);

/* The most recordings a finding's command lists in --recording (the
 * CLI's limit); a JVM of more gets a command without it. */
#define FINDINGS_MAX_RECS 64

/* Every finding of a store, most severe first, and the pictures they
 * point at, and the JVMs they are about.  Owned: findings_release()
 * frees it all. */
struct findings {
	struct finding *findings;
	size_t n_findings;
	struct finding_figure *figures;
	size_t n_figures;
	struct query_jvm *jvms; /* every JVM of the store */
	size_t n_jvms;
};

/*
 * Run every rule of finding_rule_table[] on each JVM of store s alone
 * (query_jvms(); those the filters leave a recording of), under filters
 * (the user's; a drill-down key is not honoured), and sort what they
 * find into one ranking; each finding names its JVM (finding.jvm), and
 * where the store holds several, its command selects the JVM's
 * recordings (--recording=N,N..) unless filters chose one.
 * store_arg and filter_args are pasted into each finding's command:
 * the store as a shell word, and the filters as options (" --from=.."
 * with a leading space; "" none).  <0 with e set when the store is
 * damaged; *out is then empty.
 */
int query_findings(struct store *s, const struct query_options *filters,
		   const char *store_arg, const char *filter_args,
		   struct findings *out, struct err *e);
void findings_release(struct findings *fs);

/* The JVM finding f of fs is about, in words, raw (each front end
 * cleans it): "pid 4767, recording 0 (SOURCE)", "pid 4767, recordings
 * 0,1,2 (SOURCE and 2 more)", "JVM of recording 0 (SOURCE)", appended
 * to out; false, nothing added,
 * where f names none. */
bool findings_jvm_text(struct buf *out, const struct findings *fs,
		       const struct finding *f);

struct findings_ctx;

/* One rule: a row of finding_rule_table[] and its function. */
struct finding_rule {
	const char *name;
	const char *reads; /* what it reads */
	const char *fires; /* when it fires */
	const char *severity;
	const char *text; /* what a finding of it means */
	int (*fn)(struct findings_ctx *c, const struct finding_rule *rule,
		  struct err *e);
};

extern const struct finding_rule finding_rule_table[];

/* A shell word: 'quoted' when it needs to be (for the commands). */
void findings_shell_word(struct buf *out, const char *s);
/* A regex that matches s literally (PCRE2). */
void findings_regex_literal(struct buf *out, const char *s);

/* --- what the rules ask ---------------------------------------------------- */

/* The liveness facts of the query's filtered samples (agent samples,
 * jdk.OldObjectSample); zero counts for a kind without liveness. */
struct query_evidence {
	uint64_t samples;	 /* with a known fate */
	uint64_t alive_at_end;	 /* alive when their recording ended */
	uint64_t dead;		 /* found dead */
	int64_t longest_life_ns; /* of those found dead; -1 none */
	int64_t oldest_alive_ns; /* the age of the oldest alive at the end
				    (at its recording's end); -1 none */
	uint64_t with_root;	 /* OldObjectSample with a path to a GC root */
	uint64_t rooted_elsewhere; /* samples with a root in the same
				      recordings, of any key: roots were
				      searched for (path-to-gc-roots) */
	uint64_t old_gc_1;	   /* alive at the end and survived >= 1 GC */
	uint64_t old_gc_many;	   /* ... >= QUERY_MANY_GCS GCs */
	uint64_t young_unrooted;   /* alive at the end, no root, no GC
				    survived: not yet collected */
	int64_t median_gcs;	   /* GCs survived by the live ones; -1 none */
	int64_t max_gcs;
	int64_t bytes_alive;  /* estimated bytes of those alive at end */
	int64_t largest_size; /* the largest object size known; -1 */
	const char *root;     /* the most common root (borrowed); NULL */
	uint64_t n_gcs;	      /* GCs seen in the recordings involved */
	/* jdk.OldObjectSample (query/old_emissions.h): samples counts
	 * objects, each once however many emissions show it, and
	 * alive_at_end those the last emission of their recording shows;
	 * events: the events behind them; gone: objects only earlier
	 * emissions show (collected, or replaced in the sampler); kept: of
	 * those alive at the end, the ones an earlier emission showed too;
	 * emissions: the most of any recording involved; heap_after_gc:
	 * the heap used after the last GC before each recording's last
	 * emission, summed (-1: not known), which the sizes of the objects
	 * that emission shows cannot exceed; size_alive: those sizes' sum
	 * (objectSize; -1 where the events have none, as JDK 17's) */
	uint64_t events, gone, kept, emissions;
	int64_t heap_after_gc, size_alive;
	int64_t window_ns; /* the most, of any recording involved, from its
			      start to its last emission; 0: none */
};

#define QUERY_MANY_GCS 4

int query_evidence(struct query *q, struct query_evidence *ev, struct err *e);

/*
 * What a GC collected, from its collector's name in jdk.GarbageCollection
 * and G1's young type in jdk.G1GarbageCollection (the JDK's gcName.hpp
 * and g1GCPauseType.hpp, g1YCTypes.hpp before JDK 17, name them;
 * docs/report.md says what each shows).
 */
enum query_gc_kind {
	QUERY_GC_UNKNOWN = 0, /* the recording does not say (no GC events,
				 a store older than 4.1, not JFR) */
	QUERY_GC_YOUNG,	      /* the young generation only: G1New but
				 mixed, ParallelScavenge, DefNew, ZGC Minor */
	QUERY_GC_MIXED,	      /* G1New "Mixed": young and some old regions */
	QUERY_GC_CYCLE_END,   /* G1Old: the end of G1's concurrent cycle,
				 its empty old regions freed */
	QUERY_GC_FULL,	      /* the whole heap, stopped: G1Full,
				 ParallelOld, SerialOld, PSMarkSweep */
	QUERY_GC_WHOLE,	      /* a concurrent cycle over the whole heap:
				 Z, ZGC Major, Shenandoah */
};

/* One "After GC" (or "Before GC") heap summary, with what the
 * recording says of its GC. */
struct query_heap_point {
	int64_t time_ns;
	int64_t used, committed, reserved; /* REC_NONE when absent */
	int64_t gc_id;			   /* REC_NONE when absent */
	enum query_gc_kind kind;
	bool failed;	   /* a young collection that failed to copy
			      (jdk.EvacuationFailed, jdk.PromotionFailed) */
	const char *name;  /* the collector ("G1New"), borrowed; NULL */
	const char *cause; /* "System.gc()", borrowed; NULL */
};

/* The kind of a GC from its collector's name and G1's young type
 * (either NULL when not known). */
enum query_gc_kind query_gc_kind_of(const char *name, const char *phase);

/*
 * The heap summaries of recording rec taken at `when` ("After GC",
 * "Before GC"), in time order, each joined with what the recording
 * says of its GC (by its gc id).  *out is malloc'ed and owned by the
 * caller (free()); *n may be 0.
 */
int query_heap_summaries(struct query *q, uint32_t rec, const char *when,
			 struct query_heap_point **out, size_t *n,
			 struct err *e);

/* Objects of at least min_size bytes among the filtered samples, by
 * allocation site (the sizes: TLAB events' allocationSize, agent
 * sizes, OldObjectSample objectSize: of the objects each recording's
 * last emission shows, each once, query/old_emissions.h).  Rows are malloc'ed, keys are
 * borrowed from q; the caller frees *rows.  Sorted by bytes. */
struct query_size_row {
	const char *key;
	uint64_t objects; /* samples at or above min_size */
	int64_t bytes;	  /* their sizes' sum */
	int64_t largest;
};

int query_large_objects(struct query *q, int64_t min_size,
			struct query_size_row **rows, size_t *n_rows,
			struct err *e);

/* A recording's setting by name ("jdk.ObjectAllocationSample#throttle",
 * "agent#interval"): borrowed from the store, NULL when absent. */
const char *query_setting(struct query *q, uint32_t rec, const char *name);

/* Every setting of recording rec, for the appendix: the strings are
 * borrowed from the store, the two arrays malloc'ed (the caller frees
 * them); returns the count. */
size_t query_settings(struct query *q, uint32_t rec, const char ***names,
		      const char ***values);

#endif
