/*
 * The recording's facts as the JFR importer's replay meets its chunks,
 * in chunk order: the heap events' settings (the last value written
 * wins), the event counts, the JVM's identity, the writers and the
 * heap-like events nobody read; and async-profiler's records settled
 * at the recording's sampling interval (docs/formats/jfr.md).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/jfr/jfr.h"
#include "importers/import_jfr_int.h"
#include "importers/importer.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/xalloc.h"

/*
 * An async-profiler record (JREC_AP_TLAB) settled at the recording's
 * sampling interval I: an InNewTLAB event whose tlabSize is max(size,
 * I) is one of its JVMTI samples (objectSampler.cpp, recordAllocation:
 * total_size = max(size, interval)), a SAMPLE_AP_ALLOC weighing the
 * Horvitz-Thompson bytes; any other is from its tlab mode (AllocTracer:
 * the real TLAB's size) and means what the JDK's does.  A LiveObject
 * weighs the same as the sample it was.
 */
void ap_settle(struct jfr_import *im, struct rec_sample *s)
{
	int64_t I;

	if (s->weight != REC_NONE)
		im->ap_interval = s->weight;
	I = im->ap_interval != REC_NONE ? im->ap_interval : AP_DEFAULT_INTERVAL;
	if (s->kind == SAMPLE_TLAB_NEW) {
		int64_t a = s->alloc_size, t = s->tlab_size;

		s->weight = REC_NONE;
		if (a != REC_NONE && t != REC_NONE && t == (a > I ? a : I)) {
			s->kind = SAMPLE_AP_ALLOC;
			s->weight = rec_poisson_weight(a, I);
		}
	} else {
		s->weight = s->alloc_size == REC_NONE
				    ? REC_NONE
				    : rec_poisson_weight(s->alloc_size, I);
	}
	im->rec.n_samples[s->kind]++;
}

/* The settings of the heap events; the last value written wins. */
void keep_setting(struct jfr_import *im, unsigned chunk_no,
		  const struct jfr_setting_note *n)
{
	struct buf key = BUF_INIT;
	uint64_t idx;

	buf_addf(&key, "%s#%s", n->event, n->name);
	/* copies only for a new name or a changed value: every event of a
	 * hostile file may repeat the same long setting */
	if (!hmap_get(&im->setting_index, key.data, key.len, &idx)) {
		char *k = arena_memdup(&im->keep, key.data, key.len);

		if (im->n_settings == im->alloc_settings) {
			im->alloc_settings = im->alloc_settings
						     ? im->alloc_settings * 2
						     : 16;
			im->settings =
				xreallocarray(im->settings, im->alloc_settings,
					      sizeof(*im->settings));
			im->setting_src = xreallocarray(im->setting_src,
							im->alloc_settings,
							sizeof(char *));
			im->setting_chunk = xreallocarray(im->setting_chunk,
							  im->alloc_settings,
							  sizeof(unsigned));
		}
		idx = im->n_settings++;
		im->settings[idx].name = k;
		im->settings[idx].value = NULL;
		im->setting_src[idx] = NULL;
		im->setting_chunk[idx] = 0;
		hmap_put(&im->setting_index, k, key.len, idx, NULL);
	}
	/* the same pooled string of the same chunk: nothing to compare */
	if (im->setting_src[idx] != n->value ||
	    im->setting_chunk[idx] != chunk_no) {
		im->setting_src[idx] = n->value;
		im->setting_chunk[idx] = chunk_no;
		if (!im->settings[idx].value ||
		    strcmp(im->settings[idx].value, n->value))
			im->settings[idx].value =
				arena_strdup(&im->keep, n->value);
	}
	buf_release(&key);
}

static void keep_count(struct jfr_import *im, const struct rec_count *c)
{
	uint64_t idx;

	if (!hmap_get(&im->count_index, c->name, strlen(c->name), &idx)) {
		/* the name is the chunk's; the map keeps its own */
		char *k = arena_strdup(&im->keep, c->name);

		if (im->n_counts == im->alloc_counts) {
			im->alloc_counts =
				im->alloc_counts ? im->alloc_counts * 2 : 64;
			im->counts = xreallocarray(im->counts, im->alloc_counts,
						   sizeof(*im->counts));
		}
		idx = im->n_counts++;
		im->counts[idx].name = k;
		im->counts[idx].n = 0;
		hmap_put(&im->count_index, k, strlen(k), idx, NULL);
	}
	im->counts[idx].n += c->n;
}

/*
 * JVMInformation's pid and jvmStartTime, kept as the recording's
 * settings "jdk.JVMInformation#pid" and "#jvmStartTime" (as the agent
 * keeps agent#pid): the two together tell two JVMs apart, where two
 * recordings of one JVM (dumps of one recording, its chunk files) give
 * the same pair (query_jvms()).  The JDK writes the event at every
 * chunk's start (jfrPeriodic.cpp, TRACE_REQUEST_FUNC(JVMInformation):
 * os::current_process_id() and Management::vm_init_done_time()).
 */
static void keep_jvm_id(struct jfr_import *im, const struct jfr_job *j)
{
	struct jfr_setting_note n;
	char v[32];

	n.event = "jdk.JVMInformation";
	n.value = v;
	if (j->jvm_pid >= 0) {
		snprintf(v, sizeof(v), "%" PRId64, j->jvm_pid);
		n.name = "pid";
		keep_setting(im, j->chunk_no, &n);
	}
	if (j->jvm_start_ms >= 0) {
		snprintf(v, sizeof(v), "%" PRId64, j->jvm_start_ms);
		n.name = "jvmStartTime";
		keep_setting(im, j->chunk_no, &n);
	}
}

/* The chunk's events of types that look like heap data and that no
 * reader took (j->unread_ids), by name: one warning per type at the
 * recording's end, and the recording's setting heapsift#unread. */
static void keep_unread(struct jfr_import *im, const struct jfr_job *j)
{
	size_t i, k;

	for (i = 0; i < j->n_unread_ids; i++) {
		const char *name = jfr_type_name(j->c, j->unread_ids[i]);
		uint64_t idx;

		for (k = 0; name && k < j->n_counts; k++) {
			if (strcmp(j->counts[k].name, name) || !j->counts[k].n)
				continue;
			if (!hmap_get(&im->unread_index, name, strlen(name),
				      &idx)) {
				char *key = arena_strdup(&im->keep, name);

				if (im->n_unread == im->alloc_unread) {
					im->alloc_unread =
						im->alloc_unread
							? 2 * im->alloc_unread
							: 8;
					im->unread = xreallocarray(
						im->unread, im->alloc_unread,
						sizeof(*im->unread));
				}
				idx = im->n_unread++;
				im->unread[idx].name = key;
				im->unread[idx].n = 0;
				hmap_put(&im->unread_index, key, strlen(key),
					 idx, NULL);
			}
			im->unread[idx].n += j->counts[k].n;
		}
	}
}

/* What the chunk adds to the recording's facts. */
void merge_facts(struct jfr_import *im, const struct jfr_job *j)
{
	size_t i;

	im->writers |= 1u << j->writer;
	if (j->recording_name && !im->writer_label[j->writer])
		im->writer_label[j->writer] =
			arena_strdup(&im->keep, j->recording_name);
	keep_unread(im, j);
	for (i = 0; i < j->n_settings; i++)
		keep_setting(im, j->chunk_no, &j->settings[i]);
	if (j->jvm_name)
		im->rec.jvm_name = arena_strdup(&im->keep, j->jvm_name);
	if (j->jvm_version)
		im->rec.jvm_version = arena_strdup(&im->keep, j->jvm_version);
	keep_jvm_id(im, j);
	for (i = 0; i < j->n_counts; i++)
		keep_count(im, &j->counts[i]);
	for (i = 0; i < SAMPLE__COUNT; i++)
		im->rec.n_samples[i] += j->n_samples[i];
	im->rec.n_heap_summaries += j->n_heap_summaries;
	if (j->last_event_ns > im->last_event_ns)
		im->last_event_ns = j->last_event_ns;
}

/*
 * What the recording's writers were, where another than the JDK wrote
 * a chunk (setting heapsift#writers: "JDK, Datadog java-profiler"), and
 * which heap-like events nobody read (heapsift#unread: "TYPE=N ...",
 * with one warning each): info and the report's inventory name both.
 */
void other_facts(struct jfr_import *im)
{
	struct jfr_setting_note n;
	struct buf v = BUF_INIT;
	unsigned w;
	size_t i;

	n.event = REC_FACT_EVENT;
	if (im->writers & ~(1u << JFR_WRITER_JDK)) {
		for (w = 0; w < 3; w++) {
			const char *name = jfr_writer_name((enum jfr_writer)w),
				   *label = im->writer_label[w];

			if (!(im->writers >> w & 1))
				continue;
			/* the name it gives itself where that begins with
			 * ours, with its version ("async-profiler
			 * 4.5-b583d82"); Datadog's names a recording "1" */
			buf_addf(&v, "%s%s", v.len ? ", " : "",
				 label && !strncmp(label, name, strlen(name))
					 ? label
					 : name);
		}
		n.name = REC_FACT_WRITERS;
		n.value = v.data;
		keep_setting(im, UINT32_MAX, &n);
	}
	buf_reset(&v);
	for (i = 0; i < im->n_unread; i++) {
		import_warnf(im->env, ERR_NOT_READ, ERR_NO_OFFSET,
			     "jfr: %llu events of %s were not read (heap "
			     "data of a kind heapsift does not know)",
			     (unsigned long long)im->unread[i].n,
			     im->unread[i].name);
		buf_addf(&v, "%s%s=%llu", i ? " " : "", im->unread[i].name,
			 (unsigned long long)im->unread[i].n);
	}
	if (im->n_unread) {
		n.name = REC_FACT_UNREAD;
		n.value = v.data;
		keep_setting(im, UINT32_MAX, &n);
	}
	buf_release(&v);
}
