/*
 * The heapsift agent-recording importer (docs/formats/agent-recording.md):
 * samples with their unbiased weights, and what became of each tracked
 * object, into a sink.
 *
 * Two passes over the recording, which is held in memory whole (a
 * mapped file costs nothing; an archive member is bounded by
 * --max-member-size): deaths come after their samples in the file, and
 * a sample is emitted once, with its liveness.  The first pass gathers
 * deaths, the alive-at-end list, the GC count and the last counters; the
 * second resolves definitions in file order and emits.
 *
 * Damage (a frame cut short, a checksum mismatch) ends the readable
 * part: everything before it is imported and a warning gives the offset
 * and the bytes left, as for a JVM killed with SIGKILL.  Only a stream
 * with no readable header is an error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/agentrec/agentrec.h"
#include "formats/jfr/jfr.h"
#include "importers/importer_list.h"
#include "record/sink.h"
#include "input/input.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/xalloc.h"

static int agent_probe(const unsigned char *p, size_t len, int complete)
{
	(void)complete;
	if (len >= AGENTREC_MAGIC_LEN &&
	    memcmp(p, AGENTREC_MAGIC, AGENTREC_MAGIC_LEN) == 0)
		return 100;
	return 0;
}

/* What pass 1 learns of a tracked sample. */
struct fate {
	int64_t death_ns;
	int64_t death_gc;
	uint8_t state; /* 0: nothing seen, else enum rec_liveness */
};

struct agent_import {
	const struct sink *sink;
	const struct import_env *env;
	struct arena keep;
	/* definitions: agent id -> record (pointers into keep) */
	struct u64map classes, methods, threads, stacks;
	/* pass 1 */
	struct u64map fate_index; /* sample id -> index into fates */
	struct fate *fates;
	size_t n_fates, alloc_fates;
	uint64_t counters[AR_N_COUNTERS];
	bool have_counters, ended;
	int64_t end_ns;
	uint64_t n_sample_entries;
	/* the readable part ends here, and why (NULL: the whole file) */
	uint64_t stop_at;
	const char *stop_why;
	/* header */
	uint64_t interval;
	uint32_t sampler, depth, max_tracked, pid;
	const char *options;
	/* counts for the recording and the warnings */
	uint64_t n_untracked, n_at_cut, n_damaged, n_undefined, n_gc_entries;
	int64_t first_ns, last_ns;
	int64_t last_death_ns; /* the latest death read: the recording lasted
				  at least until then */
};

struct def_class {
	const char *raw, *display;
};

struct def_method {
	const struct def_class *cls;
	const char *name, *descriptor;
	bool hidden;
};

static const char *keep_str(struct agent_import *ai, const char *s, uint32_t n)
{
	return arena_memdup(&ai->keep, s, n);
}

static struct fate *fate_of(struct agent_import *ai, uint64_t sample, bool add)
{
	uint64_t *v;
	bool added;
	uint64_t idx;

	if (!add)
		return u64map_get(&ai->fate_index, sample, &idx)
			       ? &ai->fates[idx]
			       : NULL;
	v = u64map_put(&ai->fate_index, sample, ai->n_fates, &added);
	if (added) {
		if (ai->n_fates == ai->alloc_fates) {
			ai->alloc_fates =
				ai->alloc_fates ? 2 * ai->alloc_fates : 1024;
			ai->fates = xreallocarray(ai->fates, ai->alloc_fates,
						  sizeof(*ai->fates));
		}
		memset(&ai->fates[ai->n_fates++], 0, sizeof(*ai->fates));
	}
	return &ai->fates[*v];
}

/* Pass 1: fates, counters, the end; where the readable part stops. */
static void pass_fates(struct agent_import *ai, struct agentrec_reader *r)
{
	struct agentrec_record rec;
	const char *why;
	int rc;
	uint32_t k;

	while ((rc = agentrec_next(r, &rec, &why)) > 0) {
		const unsigned char *p = rec.payload;

		switch (rec.type) {
		case AR_SAMPLES:
			ai->n_sample_entries += rec.len / AR_SAMPLE_LEN;
			break;
		case AR_DEATHS:
			if (rec.len % AR_DEATH_LEN)
				ai->n_damaged++;
			for (k = 0; k + AR_DEATH_LEN <= rec.len;
			     k += AR_DEATH_LEN) {
				struct fate *f =
					fate_of(ai, agentrec_le64(p + k), true);

				if (f->state)
					ai->n_damaged++; /* a second fate */
				f->state = LIVE_DEAD;
				f->death_ns = (int64_t)agentrec_le64(p + k + 8);
				f->death_gc = agentrec_le32(p + k + 16);
				if (f->death_ns > ai->last_death_ns)
					ai->last_death_ns = f->death_ns;
			}
			break;
		case AR_ALIVE:
			if (rec.len % AR_ALIVE_LEN)
				ai->n_damaged++;
			for (k = 0; k + AR_ALIVE_LEN <= rec.len;
			     k += AR_ALIVE_LEN) {
				struct fate *f =
					fate_of(ai, agentrec_le64(p + k), true);

				if (f->state)
					ai->n_damaged++; /* a second fate */
				if (f->state != LIVE_DEAD)
					f->state = LIVE_AT_END;
			}
			break;
		case AR_GCS:
			ai->n_gc_entries += rec.len / AR_GC_LEN;
			break;
		case AR_COUNTERS:
			if (rec.len >= AR_N_COUNTERS * 8) {
				for (k = 0; k < AR_N_COUNTERS; k++)
					ai->counters[k] =
						agentrec_le64(p + 8 * k);
				ai->have_counters = true;
			}
			break;
		case AR_END:
			if (rec.len >= 8) {
				ai->ended = true;
				ai->end_ns = (int64_t)agentrec_le64(p);
			}
			break;
		default:
			break;
		}
	}
	ai->stop_at = r->pos;
	ai->stop_why = rc < 0 ? why : NULL;
}

static int read_header(struct agent_import *ai,
		       const struct agentrec_record *rec,
		       struct rec_recording *rr)
{
	struct agentrec_cursor c;
	const char *s[5];
	uint32_t n[5];
	int i;

	agentrec_cursor(&c, rec);
	rr->start_ns = (int64_t)agentrec_u64(&c);
	ai->interval = agentrec_u64(&c);
	ai->depth = agentrec_u32(&c);
	ai->pid = agentrec_u32(&c);
	ai->sampler = agentrec_u32(&c);
	ai->max_tracked = agentrec_u32(&c);
	for (i = 0; i < 5; i++)
		agentrec_str(&c, &s[i], &n[i]);
	if (c.bad)
		return -1;
	rr->jvm_name = n[0] ? keep_str(ai, s[0], n[0]) : NULL;
	rr->jvm_version = n[1] ? keep_str(ai, s[1], n[1]) : NULL;
	ai->options = keep_str(ai, s[3], n[3]);
	return 0;
}

/* Define id as p, unless it is defined already. */
static bool define_id(struct agent_import *ai, struct u64map *m, uint32_t id,
		      const void *p)
{
	bool added;

	(void)ai;
	u64map_put(m, id, (uint64_t)(uintptr_t)p, &added);
	return added;
}

static void define(struct agent_import *ai, const struct agentrec_record *rec)
{
	struct agentrec_cursor c;
	const char *s, *s2;
	uint32_t n, n2, id;

	agentrec_cursor(&c, rec);
	switch (rec->type) {
	case AR_CLASS: {
		struct def_class *k = arena_calloc(&ai->keep, 1, sizeof(*k));
		char *disp;

		id = agentrec_u32(&c);
		agentrec_str(&c, &s, &n);
		if (c.bad)
			break;
		k->raw = keep_str(ai, s, n);
		disp = arena_alloc(&ai->keep, 2 * (size_t)n + 16);
		jfr_display_class_name(k->raw, n, false, disp);
		k->display = disp;
		if (!define_id(ai, &ai->classes, id, k))
			ai->n_damaged++; /* an id defined twice: the first holds */
		return;
	}
	case AR_METHOD: {
		struct def_method *m = arena_calloc(&ai->keep, 1, sizeof(*m));
		uint32_t cls, flags;
		uint64_t v;

		id = agentrec_u32(&c);
		cls = agentrec_u32(&c);
		flags = agentrec_u32(&c);
		agentrec_str(&c, &s, &n);
		agentrec_str(&c, &s2, &n2);
		if (c.bad)
			break;
		m->cls = u64map_get(&ai->classes, cls, &v)
				 ? (const struct def_class *)(uintptr_t)v
				 : NULL;
		if (!m->cls)
			ai->n_undefined++;
		m->name = keep_str(ai, s, n);
		m->descriptor = keep_str(ai, s2, n2);
		m->hidden = flags & AR_METHOD_HIDDEN;
		if (!define_id(ai, &ai->methods, id, m))
			ai->n_damaged++; /* an id defined twice: the first holds */
		return;
	}
	case AR_THREAD: {
		struct rec_thread *t = arena_calloc(&ai->keep, 1, sizeof(*t));
		uint32_t flags;

		id = agentrec_u32(&c);
		flags = agentrec_u32(&c);
		t->java_id = (int64_t)agentrec_u64(&c);
		agentrec_str(&c, &s, &n);
		if (c.bad)
			break;
		t->id = id;
		t->name = keep_str(ai, s, n);
		t->os_id = -1;
		t->is_virtual = flags & AR_THREAD_VIRTUAL;
		if (!define_id(ai, &ai->threads, id, t))
			ai->n_damaged++; /* an id defined twice: the first holds */
		return;
	}
	case AR_STACK: {
		struct rec_stack *st = arena_calloc(&ai->keep, 1, sizeof(*st));
		struct rec_frame *fr;
		uint32_t flags, nf, i;

		id = agentrec_u32(&c);
		flags = agentrec_u32(&c);
		nf = agentrec_u32(&c);
		if (c.bad || nf > (rec->len - 12) / AR_FRAME_LEN)
			break;
		fr = arena_calloc(&ai->keep, nf ? nf : 1, sizeof(*fr));
		for (i = 0; i < nf; i++) {
			uint32_t mid = agentrec_u32(&c);
			const struct def_method *m = NULL;
			uint64_t v;

			fr[i].bci = (int32_t)agentrec_u32(&c);
			fr[i].line = (int32_t)agentrec_u32(&c);
			if (u64map_get(&ai->methods, mid, &v))
				m = (const struct def_method *)(uintptr_t)v;
			else
				ai->n_undefined++;
			fr[i].class_name =
				m && m->cls ? m->cls->display : "unknown";
			fr[i].class_raw = m && m->cls ? m->cls->raw : "unknown";
			fr[i].method = m ? m->name : "unknown";
			fr[i].descriptor = m ? m->descriptor : "";
			fr[i].hidden = m && m->hidden;
			fr[i].type = NULL;
		}
		st->id = id;
		st->frames = fr;
		st->n_frames = nf;
		st->truncated = flags & AR_STACK_TRUNCATED;
		if (!define_id(ai, &ai->stacks, id, st))
			ai->n_damaged++; /* an id defined twice: the first holds */
		return;
	}
	default:
		return;
	}
	ai->n_damaged++;
}

/*
 * The unbiased weight of a sample of an object of size s (docs/estimates.md):
 * Poisson sampling (HotSpot) takes it with probability 1 - exp(-s/I);
 * systematic sampling (OpenJ9) with probability s/I below I, surely
 * above.
 */
static int64_t weight_bytes(uint32_t sampler, uint64_t interval, uint64_t s)
{
	if (s > INT64_MAX)
		s = INT64_MAX; /* damage: saturate, never wrap */
	if (interval > INT64_MAX)
		interval = INT64_MAX;
	if (!interval)
		return (int64_t)s;
	if (sampler == AR_SAMPLER_SYSTEMATIC)
		return s < interval ? (int64_t)interval : (int64_t)s;
	return rec_poisson_weight((int64_t)s, (int64_t)interval);
}

static int emit_samples(struct agent_import *ai,
			const struct agentrec_record *rec)
{
	const unsigned char *p = rec->payload;
	uint32_t k;

	if (rec->len % AR_SAMPLE_LEN)
		ai->n_damaged++;
	for (k = 0; k + AR_SAMPLE_LEN <= rec->len; k += AR_SAMPLE_LEN) {
		const unsigned char *e = p + k;
		uint64_t id = agentrec_le64(e), size = agentrec_le64(e + 16), v;
		uint32_t thread = agentrec_le32(e + 24),
			 cls = agentrec_le32(e + 28),
			 stack = agentrec_le32(e + 32),
			 flags = agentrec_le32(e + 40);
		struct rec_sample s;
		const struct fate *f;

		rec_sample_init(&s, SAMPLE_AGENT);
		s.time_ns = (int64_t)agentrec_le64(e + 8);
		s.alloc_size = size > INT64_MAX ? INT64_MAX : (int64_t)size;
		s.weight = weight_bytes(ai->sampler, ai->interval, size);
		s.alloc_gc = agentrec_le32(e + 36);
		if (u64map_get(&ai->threads, thread, &v))
			s.thread = (const struct rec_thread *)(uintptr_t)v;
		else if (thread)
			ai->n_undefined++;
		if (u64map_get(&ai->stacks, stack, &v))
			s.stack = (const struct rec_stack *)(uintptr_t)v;
		else if (stack)
			ai->n_undefined++;
		if (u64map_get(&ai->classes, cls, &v)) {
			const struct def_class *dc =
				(const struct def_class *)(uintptr_t)v;

			s.class_id = cls;
			s.class_name = dc->display;
			s.class_raw = dc->raw;
		} else if (cls) {
			ai->n_undefined++;
		}
		if (!(flags & AR_SAMPLE_TRACKED)) {
			ai->n_untracked++;
		} else if ((f = fate_of(ai, id, false)) &&
			   f->state == LIVE_DEAD &&
			   (f->death_ns == REC_NONE ||
			    f->death_ns < s.time_ns)) {
			/* dead before it was allocated: a damaged entry */
			ai->n_damaged++;
		} else if (f && f->state) {
			s.liveness = (enum rec_liveness)f->state;
			if (f->state == LIVE_DEAD) {
				s.death_ns = f->death_ns;
				s.death_gc = f->death_gc;
			}
		} else {
			/* neither dead nor listed alive: the recording was
			 * cut before the agent could say */
			s.liveness = LIVE_AT_CUT;
			ai->n_at_cut++;
		}
		if (s.time_ns < ai->first_ns)
			ai->first_ns = s.time_ns;
		if (s.time_ns > ai->last_ns)
			ai->last_ns = s.time_ns;
		if (ai->sink->ops->sample &&
		    ai->sink->ops->sample(ai->sink->ctx, &s) < 0)
			return -1;
	}
	return 0;
}

static int emit_gcs(struct agent_import *ai, const struct agentrec_record *rec)
{
	uint32_t k;

	if (rec->len % AR_GC_LEN)
		ai->n_damaged++;
	for (k = 0; k + AR_GC_LEN <= rec->len; k += AR_GC_LEN) {
		struct rec_gc g;

		g.number = agentrec_le32(rec->payload + k);
		g.start_ns = (int64_t)agentrec_le64(rec->payload + k + 8);
		g.end_ns = (int64_t)agentrec_le64(rec->payload + k + 16);
		if (g.end_ns > ai->last_ns)
			ai->last_ns = g.end_ns;
		if (ai->sink->ops->gc &&
		    ai->sink->ops->gc(ai->sink->ctx, &g) < 0)
			return -1;
	}
	return 0;
}

/* The whole stream, in memory (a mapped file already is). */
static int slurp(struct input *in, const unsigned char **p, size_t *len,
		 struct err *e)
{
	size_t want = (size_t)1 << 20, avail;

	for (;;) {
		if (input_peek(in, want, p, &avail) < 0) {
			*e = *input_error(in);
			return ERR_FAIL;
		}
		if (avail < want)
			break;
		if (want > SIZE_MAX / 2)
			return err_set(e, ERR_LIMIT,
				       "agent: recording too large");
		want *= 2;
	}
	*len = avail;
	return 0;
}

static const char *sampler_name(uint32_t s)
{
	return s == AR_SAMPLER_POISSON	    ? "poisson"
	       : s == AR_SAMPLER_SYSTEMATIC ? "systematic"
					    : "unknown";
}

/*
 * Pass 2: the header, then the records up to where the readable part
 * stops (pass_fates()), each defined or sent to the sink.  rr gets the
 * header's facts.  Fails on a missing or unreadable header and on the
 * sink's failure.
 */
static int read_records(struct agent_import *ai, struct agentrec_reader *r,
			struct rec_recording *rr, struct err *e)
{
	struct agentrec_record rec;
	const char *why;
	int rc = 0, nr;

	r->pos = AGENTREC_PREAMBLE;
	nr = agentrec_next(r, &rec, &why);
	if (nr <= 0 || rec.type != AR_HEADER || read_header(ai, &rec, rr) < 0)
		return err_set_at(e, ERR_FORMAT, AGENTREC_PREAMBLE, "agent: %s",
				  nr < 0    ? why
				  : nr == 0 ? "no header record: the JVM died "
					      "before the agent wrote anything"
					    : "the first record is not a "
					      "readable header");
	while (r->pos < ai->stop_at &&
	       (nr = agentrec_next(r, &rec, &why)) > 0) {
		switch (rec.type) {
		case AR_CLASS:
		case AR_METHOD:
		case AR_THREAD:
		case AR_STACK:
			define(ai, &rec);
			break;
		case AR_SAMPLES:
			rc = emit_samples(ai, &rec);
			break;
		case AR_GCS:
			rc = emit_gcs(ai, &rec);
			break;
		default:
			break;
		}
		if (rc < 0)
			return err_set(e, ERR_IO, "output failed");
	}
	return 0;
}

/*
 * The warnings on what the recording lacks: a part past damage skipped
 * (its bytes into rr), no end record, samples alive at the cut, samples
 * the agent lost or did not track, damage read past, an unknown
 * sampler, records missing, GCs not recorded.  len: the file's size.
 */
static void warn_losses(struct agent_import *ai, size_t len,
			struct rec_recording *rr)
{
	if (ai->stop_why) {
		import_warnf(
			ai->env, ERR_TRUNC, ai->stop_at,
			"agent: %s; the %llu bytes from here are skipped, the "
			"%llu samples before kept",
			ai->stop_why, (unsigned long long)(len - ai->stop_at),
			(unsigned long long)ai->n_sample_entries);
		rr->bytes_skipped = len - ai->stop_at;
	} else if (!ai->ended) {
		import_warnf(
			ai->env, ERR_TRUNC, len,
			"agent: the recording has no end record: the JVM was "
			"killed or is still running; read up to its last "
			"flush");
	}
	if (ai->n_at_cut)
		import_warnf(
			ai->env, ERR_TRUNC, ERR_NO_OFFSET,
			"agent: %llu tracked samples were alive at the last "
			"flush, where the recording stops; their fate after "
			"that is unknown",
			(unsigned long long)ai->n_at_cut);
	if (ai->have_counters && ai->counters[ARC_DROPPED_BUFFER])
		import_warnf(
			ai->env, ERR_LIMIT, ERR_NO_OFFSET,
			"agent: the agent lost %llu samples when its buffer "
			"was "
			"full (buffer= option)",
			(unsigned long long)ai->counters[ARC_DROPPED_BUFFER]);
	if (ai->have_counters && ai->counters[ARC_DROPPED_UNTRACKED])
		import_warnf(
			ai->env, ERR_LIMIT, ERR_NO_OFFSET,
			"agent: %llu samples were not tracked (the tracking "
			"table was full: max_tracked= option); their liveness "
			"is unknown",
			(unsigned long long)ai->counters[ARC_DROPPED_UNTRACKED]);
	if (ai->n_damaged || ai->n_undefined)
		import_warnf(
			ai->env, ERR_FORMAT, ERR_NO_OFFSET,
			"agent: %llu damaged records and %llu references to "
			"undefined ids were read past",
			(unsigned long long)ai->n_damaged,
			(unsigned long long)ai->n_undefined);
	if (ai->sampler != AR_SAMPLER_POISSON &&
	    ai->sampler != AR_SAMPLER_SYSTEMATIC)
		import_warnf(ai->env, ERR_FORMAT, ERR_NO_OFFSET,
			     "agent: the recording does not say how the VM "
			     "sampled (sampler %u); weights assume Poisson "
			     "sampling (HotSpot)",
			     ai->sampler);
	if (ai->have_counters && !ai->stop_why &&
	    ai->counters[ARC_WRITTEN] != ai->n_sample_entries)
		import_warnf(ai->env, ERR_FORMAT, ERR_NO_OFFSET,
			     "agent: the agent counted %llu samples written, "
			     "and the file holds %llu: records are missing",
			     (unsigned long long)ai->counters[ARC_WRITTEN],
			     (unsigned long long)ai->n_sample_entries);
	if (ai->have_counters && ai->counters[ARC_GCS] > ai->n_gc_entries)
		import_warnf(ai->env, ERR_LIMIT, ERR_NO_OFFSET,
			     "agent: %llu GCs were seen and %llu recorded (the "
			     "agent's ring of them overflowed); GC counts by "
			     "time may be low",
			     (unsigned long long)ai->counters[ARC_GCS],
			     (unsigned long long)ai->n_gc_entries);
}

/* The most settings a recording gets: the header's and the counters. */
#define N_AGENT_SETTINGS (8 + AR_N_COUNTERS)

/* The recording's settings (agent#NAME) into settings, their values
 * into val, which the caller has initialised and releases.  Returns
 * how many. */
static uint32_t agent_settings(const struct agent_import *ai,
			       struct rec_setting *settings, struct buf *val)
{
	static const char *const counter_names[AR_N_COUNTERS] = {
		"samples",
		"written",
		"tracked",
		"dropped_untracked",
		"dropped_buffer",
		"deaths",
		"gcs",
		"stack_failures",
		"flushes",
		"bytes_written",
		"alive_at_end",
		NULL,
	};
	uint32_t n_set = 0, i;

	buf_addf(&val[n_set], "%llu", (unsigned long long)ai->interval);
	settings[n_set].name = "agent#interval";
	settings[n_set].value = val[n_set].data, n_set++;
	buf_addf(&val[n_set], "%u", ai->depth);
	settings[n_set].name = "agent#depth";
	settings[n_set].value = val[n_set].data, n_set++;
	buf_addf(&val[n_set], "%s", sampler_name(ai->sampler));
	settings[n_set].name = "agent#sampler";
	settings[n_set].value = val[n_set].data, n_set++;
	buf_addf(&val[n_set], "%u", ai->max_tracked);
	settings[n_set].name = "agent#max_tracked";
	settings[n_set].value = val[n_set].data, n_set++;
	buf_addf(&val[n_set], "%u", ai->pid);
	settings[n_set].name = "agent#pid";
	settings[n_set].value = val[n_set].data, n_set++;
	buf_addf(&val[n_set], "%s", ai->options ? ai->options : "");
	settings[n_set].name = "agent#options";
	settings[n_set].value = val[n_set].data, n_set++;
	buf_addf(&val[n_set], "%s", ai->ended ? "yes" : "no");
	settings[n_set].name = "agent#complete";
	settings[n_set].value = val[n_set].data, n_set++;
	for (i = 0; ai->have_counters && i < AR_N_COUNTERS; i++) {
		static char names[AR_N_COUNTERS][40];

		if (!counter_names[i])
			continue;
		snprintf(names[i], sizeof(names[i]), "agent#%s",
			 counter_names[i]);
		buf_addf(&val[n_set], "%llu",
			 (unsigned long long)ai->counters[i]);
		settings[n_set].name = names[i];
		settings[n_set].value = val[n_set].data, n_set++;
	}
	return n_set;
}

/* The recording's facts (rr holds the header's) to the sink: its
 * settings, its time range and its count of samples. */
static int emit_recording(struct agent_import *ai, struct rec_recording *rr,
			  struct err *e)
{
	struct rec_setting settings[N_AGENT_SETTINGS];
	struct buf val[N_AGENT_SETTINGS];
	struct rec_count count;
	uint32_t i;
	int rc = 0;

	for (i = 0; i < N_AGENT_SETTINGS; i++)
		buf_init(&val[i]);
	rr->settings = settings;
	rr->n_settings = agent_settings(ai, settings, val);
	rr->source = ai->env->source;
	rr->format = "agent";
	if (ai->ended && ai->end_ns > ai->last_ns)
		ai->last_ns = ai->end_ns;
	if (ai->last_death_ns > ai->last_ns)
		ai->last_ns = ai->last_death_ns;
	rr->end_ns = ai->last_ns == INT64_MIN ? rr->start_ns : ai->last_ns;
	if (ai->first_ns < rr->start_ns)
		rr->start_ns = ai->first_ns;
	rr->n_chunks = 1;
	rr->n_samples[SAMPLE_AGENT] = ai->n_sample_entries;
	count.name = "heapsift.AgentSample";
	count.n = ai->n_sample_entries;
	rr->event_types = &count;
	rr->n_event_types = 1;
	if (ai->sink->ops->recording &&
	    ai->sink->ops->recording(ai->sink->ctx, rr) < 0)
		rc = err_set(e, ERR_IO, "output failed");
	for (i = 0; i < N_AGENT_SETTINGS; i++)
		buf_release(&val[i]);
	return rc;
}

static int agent_import(struct input *in, const struct sink *sink,
			const struct import_env *env, struct err *e)
{
	struct agent_import ai;
	struct agentrec_reader r;
	struct rec_recording rr;
	const unsigned char *data;
	const char *why;
	size_t len = 0;
	uint64_t at;
	int rc;

	if (slurp(in, &data, &len, e) < 0)
		return ERR_FAIL;
	if (agentrec_open(&r, data, len, &why, &at) < 0)
		return err_set_at(e, ERR_FORMAT, at, "agent: %s", why);
	memset(&ai, 0, sizeof(ai));
	ai.sink = sink;
	ai.env = env;
	ai.first_ns = INT64_MAX;
	ai.last_ns = INT64_MIN;
	ai.last_death_ns = INT64_MIN;
	arena_init(&ai.keep, 0);
	u64map_init(&ai.classes);
	u64map_init(&ai.methods);
	u64map_init(&ai.threads);
	u64map_init(&ai.stacks);
	u64map_init(&ai.fate_index);
	memset(&rr, 0, sizeof(rr));

	pass_fates(&ai, &r);
	rc = read_records(&ai, &r, &rr, e);
	if (rc >= 0) {
		warn_losses(&ai, len, &rr);
		rc = emit_recording(&ai, &rr, e);
	}
	u64map_release(&ai.classes);
	u64map_release(&ai.methods);
	u64map_release(&ai.threads);
	u64map_release(&ai.stacks);
	u64map_release(&ai.fate_index);
	free(ai.fates);
	arena_release(&ai.keep);
	return rc;
}

const struct importer_ops importer_agent = {
	.name = "agent",
	.kind = KIND_AGENT,
	.probe_class = PROBE_SIGNATURE,
	.probe = agent_probe,
	.import = agent_import,
};
