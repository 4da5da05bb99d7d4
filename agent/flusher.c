/*
 * The writer thread and the batches declared in flusher.h.
 *
 * Big batch records (SAMPLES, DEATHS, ALIVE) are written straight from
 * the memory that holds their entries, with writev() of frame header,
 * entries and CRC, so that flushing 64 MiB of samples needs no second
 * copy of them.  A pending chunk holds whole entries, so each chunk is
 * one SAMPLES record.
 */
#include "agent/flusher.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "agent/gcring.h"
#include "agent/msg.h"
#include "agent/recbuf.h"
#include "agent/state.h"
#include "agent/wake.h"
#include "util/crc32c.h"

#define AGENT_VERSION "heapsift-agent 1.0"
/* entries per DEATHS or ALIVE record: records stay far below the
 * format's 64 MiB */
#define BATCH_ENTRIES 65536u
/* how long VMDeath waits for the writer thread to finish its batch */
#define STOP_WAIT_S 30
/* scan this many slots between looks at the stop flag */
#define SCAN_STEP 4096u

static struct recbuf deaths; /* AR_DEATH_LEN entries not yet written */
static struct recbuf alive;  /* AR_ALIVE_LEN entries (VMDeath) */
static struct recbuf small;  /* GCS, COUNTERS, END */
static uint32_t *freed;	     /* slots to give back after a scan */
static size_t freed_cap;
static uint32_t gc_drained, gc_scanned;
static uint64_t n_flushes;

static pthread_mutex_t ctl_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ctl_cond;
static bool thread_started, thread_done, thread_abandoned;
static atomic_bool stop_asked;

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One framed record whose payload is in memory as is. */
static int put_record(uint32_t type, const void *payload, size_t len)
{
	unsigned char head[8], tail[4];
	struct iovec iov[3];
	uint32_t crc;

	le_put32(head, (uint32_t)len);
	le_put32(head + 4, type);
	crc = crc32c_update(0, head + 4, 4);
	crc = crc32c_update(crc, payload, len);
	le_put32(tail, crc);
	iov[0].iov_base = head;
	iov[0].iov_len = 8;
	iov[1].iov_base = (void *)payload;
	iov[1].iov_len = len;
	iov[2].iov_base = tail;
	iov[2].iov_len = 4;
	return writer_putv(&agent.out, iov, 3);
}

/* Entries of entry_len in buf as records of at most BATCH_ENTRIES;
 * returns the entries written. */
static uint64_t put_batches(uint32_t type, const struct recbuf *buf,
			    size_t entry_len)
{
	size_t n = buf->len / entry_len, i, k;
	uint64_t done = 0;

	for (i = 0; i < n; i += k) {
		k = n - i < BATCH_ENTRIES ? n - i : BATCH_ENTRIES;
		if (put_record(type, buf->data + i * entry_len, k * entry_len) <
		    0)
			break;
		done += k;
	}
	return done;
}

int flusher_header(const char *jvm_name, const char *jvm_version,
		   const char *jvm_vendor)
{
	unsigned char pre[AGENTREC_PREAMBLE];
	size_t start;
	int rc;

	memcpy(pre, AGENTREC_MAGIC, AGENTREC_MAGIC_LEN);
	pre[8] = AGENTREC_MAJOR;
	pre[9] = 0;
	pre[10] = AGENTREC_MINOR;
	pre[11] = 0;
	le_put32(pre + 12, 0);
	recbuf_reset(&small);
	recbuf_put(&small, pre, sizeof(pre));
	start = recbuf_begin(&small, AR_HEADER);
	recbuf_u64(&small, (uint64_t)agent.start_ns);
	recbuf_u64(&small, agent.opt.interval);
	recbuf_u32(&small, agent.opt.depth);
	recbuf_u32(&small, (uint32_t)getpid());
	recbuf_u32(&small, agent.sampler);
	recbuf_u32(&small, agent.opt.max_tracked);
	recbuf_str(&small, jvm_name, strlen(jvm_name));
	recbuf_str(&small, jvm_version, strlen(jvm_version));
	recbuf_str(&small, jvm_vendor, strlen(jvm_vendor));
	recbuf_str(&small, agent.opt.given, strlen(agent.opt.given));
	recbuf_str(&small, AGENT_VERSION, strlen(AGENT_VERSION));
	recbuf_end(&small, start);
	if (small.oom)
		return -1;
	rc = writer_put(&agent.out, small.data, small.len);
	recbuf_reset(&small);
	return rc;
}

/* Remember slot i to give back; when that list cannot grow, give it back
 * at once. */
static void free_later(uint32_t i, size_t *n)
{
	if (*n == freed_cap) {
		size_t cap = freed_cap ? freed_cap * 2 : 1024;
		uint32_t *p = realloc(freed, cap * sizeof(*p));

		if (!p) {
			state_lock();
			track_remove(&agent.track, i);
			state_unlock();
			return;
		}
		freed = p;
		freed_cap = cap;
	}
	freed[(*n)++] = i;
}

/*
 * Look at every tracked object: a dead one gets a DEATHS entry; at the
 * end (final) a live one gets an ALIVE entry.  Either way its slot is
 * freed.  An entry that cannot be stored (out of memory) leaves the slot
 * as it is, to be tried again, so that no tracked sample ends with
 * neither entry.
 */
static void scan(JNIEnv *jni, bool final)
{
	uint32_t high = track_high(&agent.track), i;
	size_t n_freed = 0, k;

	for (i = 0; i < high; i++) {
		struct track_slot *s;
		unsigned char *e;

		if (!final && i % SCAN_STEP == 0 && atomic_load(&stop_asked))
			break;
		s = track_at(&agent.track, i);
		if (!atomic_load_explicit(&s->live, memory_order_acquire))
			continue;
		if ((*jni)->IsSameObject(jni, s->ref, NULL)) {
			uint32_t g = gcring_finished();

			e = recbuf_grow(&deaths, AR_DEATH_LEN);
			if (!e) {
				deaths.oom = 0; /* what it holds is whole */
				continue;
			}
			le_put64(e, s->sample);
			le_put64(e + 8, (uint64_t)now_ns());
			le_put32(e + 16, g);
			le_put32(e + 20, g > s->gc + 1 ? g - s->gc - 1 : 0);
		} else if (final) {
			e = recbuf_grow(&alive, AR_ALIVE_LEN);
			if (!e) {
				alive.oom = 0;
				continue;
			}
			le_put64(e, s->sample);
		} else {
			continue;
		}
		(*jni)->DeleteWeakGlobalRef(jni, s->ref);
		free_later(i, &n_freed);
	}
	if (!n_freed)
		return;
	state_lock();
	for (k = 0; k < n_freed; k++)
		track_remove(&agent.track, freed[k]);
	state_unlock();
}

/* The COUNTERS record, the last bytes of a batch except END. */
static void put_counters(void)
{
	unsigned char payload[AR_N_COUNTERS * 8];
	uint64_t v;
	int c;

	counter_add(ARC_FLUSHES, 1);
	atomic_store(&agent.counters[ARC_GCS], gcring_finished());
	/* bytes_written counts this record too: it is the offset where the
	 * record after it starts */
	atomic_store(&agent.counters[ARC_BYTES_WRITTEN],
		     agent.out.bytes + frame_size(sizeof(payload)));
	for (c = 0; c < AR_N_COUNTERS; c++) {
		v = c == ARC_RESERVED ? 0
				      : counter_get((enum agentrec_counter)c);
		le_put64(payload + c * 8, v);
	}
	put_record(AR_COUNTERS, payload, sizeof(payload));
}

/* One batch.  Everything taken from the queues is freed even when the
 * file can no longer be written, so memory does not pile up. */
static void flush(bool final)
{
	struct pending defs, samples;
	struct pending_chunk *c;
	uint64_t n;

	state_lock();
	pending_take(&agent.defs, &defs);
	pending_take(&agent.samples, &samples);
	state_unlock();

	/* definitions first: every sample below may use them */
	for (c = defs.head; c; c = c->next)
		writer_put(&agent.out, c->data, c->len);
	for (c = samples.head; c; c = c->next) {
		if (put_record(AR_SAMPLES, c->data, c->len) < 0)
			break;
		counter_add(ARC_WRITTEN, c->len / AR_SAMPLE_LEN);
	}
	pending_release(&defs);
	pending_release(&samples);

	n = put_batches(AR_DEATHS, &deaths, AR_DEATH_LEN);
	counter_add(ARC_DEATHS, n);
	recbuf_reset(&deaths);

	recbuf_reset(&small);
	gcring_drain(&gc_drained, &small);
	if (small.len && !small.oom)
		writer_put(&agent.out, small.data, small.len);
	recbuf_reset(&small);

	if (final) {
		n = put_batches(AR_ALIVE, &alive, AR_ALIVE_LEN);
		counter_add(ARC_ALIVE_AT_END, n);
		recbuf_reset(&alive);
	}
	n_flushes++;
	put_counters();
	if (final) {
		unsigned char end[8];

		le_put64(end, (uint64_t)now_ns());
		put_record(AR_END, end, sizeof(end));
	}
}

static void JNICALL thread_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
	int64_t next = mono_ms() + agent.opt.flush_ms, left;
	bool gc, sampling = true;
	uint32_t fin;

	(void)arg;
	while (!atomic_load(&stop_asked)) {
		left = next - mono_ms();
		if (left > 0)
			wake_wait(left > INT_MAX ? INT_MAX : (int)left);
		if (atomic_load(&stop_asked))
			break;
		fin = gcring_finished();
		gc = fin != gc_scanned;
		if (gc) {
			/* objects die only in GCs: no GC, nothing to look for */
			gc_scanned = fin;
			scan(jni, false);
		}
		if (gc || mono_ms() >= next) {
			flush(false);
			next = mono_ms() + agent.opt.flush_ms;
		}
		if (agent.out.failed && sampling) {
			/* nothing more can reach the file: spare the
			 * application the cost of sampling */
			(*jvmti)->SetEventNotificationMode(
				jvmti, JVMTI_DISABLE,
				JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
			sampling = false;
		}
	}
	pthread_mutex_lock(&ctl_lock);
	thread_done = true;
	pthread_cond_broadcast(&ctl_cond);
	pthread_mutex_unlock(&ctl_lock);
}

int flusher_start(jvmtiEnv *jvmti, JNIEnv *jni)
{
	pthread_condattr_t attr;
	jclass cls;
	jmethodID init;
	jstring name;
	jthread thr;
	jvmtiError e;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&ctl_cond, &attr);
	pthread_condattr_destroy(&attr);

	cls = (*jni)->FindClass(jni, "java/lang/Thread");
	init = cls ? (*jni)->GetMethodID(jni, cls, "<init>",
					 "(Ljava/lang/String;)V")
		   : NULL;
	name = init ? (*jni)->NewStringUTF(jni, "heapsift-agent writer") : NULL;
	thr = name ? (*jni)->NewObject(jni, cls, init, name) : NULL;
	if (!thr) {
		(*jni)->ExceptionClear(jni);
		msg_error("cannot create the writer thread; recording nothing");
		return -1;
	}
	e = (*jvmti)->RunAgentThread(jvmti, thr, thread_main, NULL,
				     JVMTI_THREAD_NORM_PRIORITY);
	if (e != JVMTI_ERROR_NONE) {
		msg_error("cannot start the writer thread (JVMTI error %d); "
			  "recording nothing",
			  (int)e);
		return -1;
	}
	thread_started = true;
	return 0;
}

/* Ask the writer thread to stop and wait for it, within reason: a JVM
 * must be able to exit even if the disk hangs. */
static bool stop_thread(void)
{
	struct timespec until;
	bool done;

	if (!thread_started)
		return true;
	atomic_store(&stop_asked, true);
	wake_post();
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += STOP_WAIT_S;
	pthread_mutex_lock(&ctl_lock);
	while (!thread_done)
		if (pthread_cond_timedwait(&ctl_cond, &ctl_lock, &until) ==
		    ETIMEDOUT)
			break;
	done = thread_done;
	pthread_mutex_unlock(&ctl_lock);
	return done;
}

void flusher_finish(jvmtiEnv *jvmti, JNIEnv *jni)
{
	(void)jvmti;
	if (!stop_thread()) {
		thread_abandoned = true;
		msg_error("the writer thread did not stop within %d s; %s "
			  "ends without its last batch",
			  STOP_WAIT_S, agent.opt.file);
		return;
	}
	scan(jni, true);
	flush(true);
	writer_close(&agent.out, true);
}

int flusher_busy(void)
{
	return thread_abandoned;
}

void flusher_release(void)
{
	recbuf_release(&deaths);
	recbuf_release(&alive);
	recbuf_release(&small);
	free(freed);
	freed = NULL;
	freed_cap = 0;
}
