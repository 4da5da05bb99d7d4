/*
 * The store's JVMs (query.h, query_jvms()): which recordings came
 * from one JVM, so that the report's rules run on each JVM alone and
 * every finding names its JVM.
 *
 * A JFR recording names its JVM by jdk.JVMInformation's pid and
 * jvmStartTime (kept as the recording's settings by src/importers/import_jfr.c):
 * the JDK writes both at every chunk's start from
 * os::current_process_id() and Management::vm_init_done_time()
 * (jfrPeriodic.cpp, TRACE_REQUEST_FUNC(JVMInformation)), so two dumps of
 * one recording, or the chunk files of one repository, give the same
 * pair, and two JVMs give two pairs even where both are pid 1 in their
 * containers.  An agent recording, a javacore, and a JFR recording
 * without the event (a store imported before heapsift kept them) are
 * each a JVM of their own, named by its first recording.  A code-heap
 * report (jcmd output) does not say its JVM: one JVM's texts are
 * grouped by what they show (place_code_heaps()), and a group goes with
 * the HotSpot JVM whose recordings share the longest folder with it in
 * the inputs (jvm-a/codeheap.txt with jvm-a/app.jfr), or with the only
 * one there is; where two tie, it is a JVM of its own, named by its
 * first file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/query_codeheap.h"
#include "query/query_int.h"
#include "util/buf.h"
#include "util/xalloc.h"

/* The setting's value as a whole number >= 0; -1 when absent or not
 * one. */
static int64_t setting_num(struct query *q, uint32_t rec, const char *name)
{
	const char *v = query_setting(q, rec, name);
	char *end;
	long long n;

	if (!v || !*v)
		return -1;
	n = strtoll(v, &end, 10);
	return *end || n < 0 ? -1 : (int64_t)n;
}

/* The length of source's folder: up to and with its last '/' or '!'
 * (a member of an archive), 0 for a bare name. */
static size_t folder_len(const char *source)
{
	size_t n = strlen(source);

	while (n && source[n - 1] != '/' && source[n - 1] != '!')
		n--;
	return n;
}

/* How many characters the folders of a and b share, cut at the last
 * separator they share. */
static size_t shared_folder(const char *a, const char *b)
{
	size_t la = folder_len(a), lb = folder_len(b), i, cut = 0;

	for (i = 0; i < la && i < lb && a[i] == b[i]; i++)
		if (a[i] == '/' || a[i] == '!')
			cut = i + 1;
	return cut;
}

static void add_rec(struct query_jvm *j, uint32_t r)
{
	j->recs = xreallocarray(j->recs, j->n_recs + 1, sizeof(*j->recs));
	j->recs[j->n_recs++] = r;
}

static struct query_jvm *new_jvm(struct query_jvm **jv, size_t *n,
				 const struct query_recording *x, uint32_t r)
{
	struct query_jvm *j;

	*jv = xreallocarray(*jv, *n + 1, sizeof(**jv));
	j = &(*jv)[(*n)++];
	memset(j, 0, sizeof(*j));
	j->pid = j->start_ms = -1;
	j->source = x->source;
	j->hotspot = !strcmp(x->format, "jfr") || !strcmp(x->format, "agent");
	add_rec(j, r);
	return j;
}

/* The JVM a code-heap report at source goes with: the HotSpot JVM
 * sharing the longest folder with it, else the only one; -1 none. */
static long owner_of(const struct query_jvm *jv, size_t n,
		     const struct query_recording *recs, const char *source)
{
	size_t i, k, best_len = 0, n_hot = 0;
	long best = -1, only = -1;
	bool tie = false;

	for (i = 0; i < n; i++) {
		size_t len = 0;

		if (!jv[i].hotspot)
			continue;
		n_hot++;
		only = (long)i;
		for (k = 0; k < jv[i].n_recs; k++) {
			size_t l = shared_folder(source,
						 recs[jv[i].recs[k]].source);

			if (l > len)
				len = l;
		}
		if (len > best_len) {
			best_len = len;
			best = (long)i;
			tie = false;
		} else if (len == best_len && best_len) {
			tie = true;
		}
	}
	if (n_hot == 1)
		return only;
	return best >= 0 && !tie ? best : -1;
}

/* Does some snapshot of recording a show the same JVM as some snapshot
 * of recording b (chq_same_jvm)? */
static bool texts_one_jvm(const struct chq *ch, uint32_t a, uint32_t b)
{
	uint32_t n = chq_n_snapshots(ch), i, k;

	for (i = 0; i < n; i++) {
		if (chq_snapshot(ch, i)->recording != a)
			continue;
		for (k = 0; k < n; k++)
			if (chq_snapshot(ch, k)->recording == b &&
			    chq_same_jvm(ch, i, k))
				return true;
	}
	return false;
}

static uint32_t group_root(uint32_t *up, uint32_t i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

/*
 * The code-heap reports, each with its JVM.  Texts of one JVM
 * (chq_same_jvm: a heap at the same address, a code list's methods
 * inside the other's heaps, jcmd's pid) are one group, whatever their
 * folders: a JVM's stdout, analytics, codecache and codelist are one
 * JVM even where no recording names it, so that its one incident is
 * one finding (rules_codeheap.c).  A group goes with the HotSpot JVM
 * whose folder its texts share (owner_of()) when they agree on one;
 * else it is a JVM of its own, named by its first file.
 */
static void place_code_heaps(struct query *q,
			     const struct query_recording *recs, size_t n_recs,
			     struct query_jvm **jv, size_t *n)
{
	struct chq *ch = NULL;
	struct err e;
	uint32_t *up = xcalloc(n_recs ? n_recs : 1, sizeof(*up));
	long *owner = xcalloc(n_recs ? n_recs : 1, sizeof(*owner));
	size_t n_hot = *n;
	uint32_t r, k;

	err_init(&e);
	for (r = 0; r < n_recs; r++) {
		up[r] = r;
		owner[r] = -1;
		if (!strcmp(recs[r].format, "codeheap") && !ch &&
		    chq_open(q->s, &ch, &e) < 0)
			ch = NULL; /* each text stands alone, as before */
	}
	for (r = 0; ch && r < n_recs; r++)
		for (k = r + 1; k < n_recs; k++)
			if (!strcmp(recs[r].format, "codeheap") &&
			    !strcmp(recs[k].format, "codeheap") &&
			    group_root(up, r) != group_root(up, k) &&
			    texts_one_jvm(ch, r, k))
				up[group_root(up, k)] = group_root(up, r);
	/* each group's owner: the one its texts' folders agree on; -2
	 * where two texts of it point at two JVMs */
	for (r = 0; r < n_recs; r++) {
		uint32_t g;
		long o;

		if (strcmp(recs[r].format, "codeheap"))
			continue;
		g = group_root(up, r);
		o = owner_of(*jv, n_hot, recs, recs[r].source);
		if (o < 0 || owner[g] == -2)
			continue;
		owner[g] = owner[g] == -1 || owner[g] == o ? o : -2;
	}
	for (r = 0; r < n_recs; r++) {
		uint32_t g;
		size_t j;

		if (strcmp(recs[r].format, "codeheap"))
			continue;
		g = group_root(up, r);
		if (owner[g] >= 0) {
			add_rec(&(*jv)[owner[g]], r);
			continue;
		}
		/* a JVM of the group's own: its first text's, made once */
		for (j = n_hot; j < *n; j++)
			if (group_root(up, (*jv)[j].recs[0]) == g)
				break;
		if (j < *n)
			add_rec(&(*jv)[j], r);
		else
			new_jvm(jv, n, &recs[r], r)->hotspot = false;
	}
	if (ch)
		chq_free(ch);
	free(owner);
	free(up);
}

static void name_jvms(struct query_jvm *jv, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		struct query_jvm *j = &jv[i];
		bool pid_twice = false;

		for (k = 0; k < n; k++)
			if (k != i && j->pid >= 0 && jv[k].pid == j->pid)
				pid_twice = true;
		if (j->pid >= 0 && !pid_twice)
			j->name = buf_strf("pid %" PRId64, j->pid);
		else if (j->pid >= 0)
			/* containers: pid 1 twice; the start tells them apart */
			j->name = buf_strf("pid %" PRId64 " started at %" PRId64
					   " ms",
					   j->pid, j->start_ms);
		else
			j->name = buf_strf("JVM of recording %" PRIu32,
					   j->recs[0]);
	}
}

void query_jvms(struct query *q, struct query_jvm **out, size_t *n_out)
{
	const struct query_recording *recs;
	struct query_jvm *jv = NULL;
	size_t n_recs, n = 0, i, k;
	uint32_t r;

	query_recordings(q, &recs, &n_recs);
	/* the JVMs that hold recordings of their own */
	for (r = 0; r < n_recs; r++) {
		int64_t pid = -1, start = -1;

		if (!strcmp(recs[r].format, "codeheap"))
			continue;
		if (!strcmp(recs[r].format, "jfr")) {
			pid = setting_num(q, r, "jdk.JVMInformation#pid");
			start = setting_num(q, r,
					    "jdk.JVMInformation#jvmStartTime");
		}
		if (pid >= 0 && start >= 0) {
			for (k = 0; k < n; k++)
				if (jv[k].pid == pid && jv[k].start_ms == start)
					break;
			if (k < n) {
				add_rec(&jv[k], r);
				continue;
			}
		}
		new_jvm(&jv, &n, &recs[r], r);
		if (pid >= 0 && start >= 0) {
			jv[n - 1].pid = pid;
			jv[n - 1].start_ms = start;
		}
	}
	place_code_heaps(q, recs, n_recs, &jv, &n);
	/* the recordings of a JVM in store order */
	for (i = 0; i < n; i++) {
		struct query_jvm *j = &jv[i];
		size_t a, b;

		for (a = 1; a < j->n_recs; a++)
			for (b = a; b > 0 && j->recs[b - 1] > j->recs[b]; b--) {
				uint32_t t = j->recs[b];

				j->recs[b] = j->recs[b - 1];
				j->recs[b - 1] = t;
			}
	}
	name_jvms(jv, n);
	*out = jv;
	*n_out = n;
}

void query_jvms_free(struct query_jvm *jv, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(jv[i].name);
		free(jv[i].recs);
	}
	free(jv);
}

size_t query_jvms_sampled(struct query *q, const struct query_options *o,
			  bool *named)
{
	const struct query_recording *recs;
	struct query_jvm *jv;
	size_t n_recs, n, i, k, count = 0;
	enum sample_kind kind = query_kind(q);

	*named = true;
	query_recordings(q, &recs, &n_recs);
	query_jvms(q, &jv, &n);
	for (i = 0; i < n; i++)
		for (k = 0; k < jv[i].n_recs; k++) {
			uint32_t r = jv[i].recs[k];

			if (r < n_recs && recs[r].samples[kind] &&
			    query_options_keep_recording(o, r)) {
				count++;
				*named &= jv[i].pid >= 0;
				break;
			}
		}
	query_jvms_free(jv, n);
	return count;
}
