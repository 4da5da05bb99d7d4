/*
 * The agent's one shared state, and the rules for touching it.
 *
 * There is one agent per JVM (a second load is refused), so the state
 * is a single static object.  `lock` is a plain pthread mutex that
 * guards the pending queues, the symbol tables, the tracking table's
 * free list and the sample numbering.  It is only ever held for a few
 * appends: no JNI or JVMTI call and no I/O happens under it, so a thread
 * holding it never waits for a safepoint and the lock cannot be part of
 * a deadlock with the JVM.
 *
 * `live` says that callbacks may record.  It is set once everything is
 * ready (VMInit, or attach) and cleared at VMDeath under the lock, after
 * which nothing more is appended.  `inflight` counts callbacks running
 * our code: Agent_OnUnload frees the heap state only when it is zero,
 * since a daemon thread may still be inside a callback when the JVM
 * unloads agents (a callback that starts after `live` is cleared touches
 * only static atomics before it returns).
 */
#ifndef HS_AGENT_STATE_H
#define HS_AGENT_STATE_H

#include <jvmti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "agent/options.h"
#include "agent/pending.h"
#include "agent/symbols.h"
#include "agent/track.h"
#include "agent/writer.h"
#include "formats/agentrec/agentrec.h"

struct agent_state {
	struct agent_options opt;
	jvmtiEnv *jvmti;
	JavaVM *vm;

	pthread_mutex_t lock;
	/* under lock */
	struct pending defs;	/* framed CLASS/METHOD/THREAD/STACK records */
	struct pending samples; /* AR_SAMPLE_LEN entries */
	struct symbols sym;
	struct track track;
	uint64_t n_samples; /* ids handed out */

	atomic_bool live;
	atomic_bool ended; /* VMDeath is done: GC events do nothing */
	atomic_int inflight;
	_Atomic uint64_t counters[AR_N_COUNTERS];

	/* set before `live` and constant after */
	jfieldID thread_tid;  /* java.lang.Thread.tid, or NULL */
	jclass virtual_class; /* global ref to BaseVirtualThread, or NULL */
	uint32_t sampler;     /* AR_SAMPLER_* */
	int64_t start_ns;

	/* the file: the writer thread's alone while it runs, then VMDeath's */
	struct writer out;
};

extern struct agent_state agent;

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void counter_add(enum agentrec_counter c, uint64_t n)
{
	atomic_fetch_add_explicit(&agent.counters[c], n, memory_order_relaxed);
}

static inline uint64_t counter_get(enum agentrec_counter c)
{
	return atomic_load_explicit(&agent.counters[c], memory_order_relaxed);
}

/* A callback starts: false when it must return at once. */
static inline bool state_enter(void)
{
	atomic_fetch_add(&agent.inflight, 1);
	if (!atomic_load(&agent.live)) {
		atomic_fetch_sub(&agent.inflight, 1);
		return false;
	}
	return true;
}

static inline void state_leave(void)
{
	atomic_fetch_sub(&agent.inflight, 1);
}

static inline void state_lock(void)
{
	pthread_mutex_lock(&agent.lock);
}

static inline void state_unlock(void)
{
	pthread_mutex_unlock(&agent.lock);
}

#endif
