/*
 * The sampling callback declared in sampler.h.
 *
 * Per OS thread scratch (the frame array GetStackTrace fills, sized for
 * depth + 1 frames so that a deeper stack shows as truncated) comes from
 * a pthread key: no allocation per sample, and freed when the thread
 * ends.
 */
#include "agent/sampler.h"

#include <stdlib.h>
#include <string.h>

#include "agent/gcring.h"
#include "agent/recbuf.h"
#include "agent/state.h"

#define ACC_SYNTHETIC 0x1000 /* JVMS 4.6 */

/* The hidden-class bit kept above the class id in its JVMTI tag. */
#define TAG_HIDDEN ((jlong)1 << 32)

struct scratch {
	jvmtiFrameInfo *frames; /* depth + 1 */
	jmethodID *miss;	/* depth + 1 */
};

static pthread_key_t scratch_key;
static bool scratch_key_made;

static void scratch_free(void *p)
{
	struct scratch *sc = p;

	if (sc) {
		free(sc->frames);
		free(sc->miss);
		free(sc);
	}
}

int sampler_init(void)
{
	if (pthread_key_create(&scratch_key, scratch_free))
		return -1;
	scratch_key_made = true;
	return 0;
}

void sampler_release(void)
{
	if (scratch_key_made)
		pthread_key_delete(scratch_key);
	scratch_key_made = false;
}

static struct scratch *scratch_get(void)
{
	struct scratch *sc = pthread_getspecific(scratch_key);
	size_t n = (size_t)agent.opt.depth + 1;

	if (sc)
		return sc;
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return NULL;
	sc->frames = malloc(n * sizeof(*sc->frames));
	sc->miss = malloc(n * sizeof(*sc->miss));
	if (!sc->frames || !sc->miss || pthread_setspecific(scratch_key, sc)) {
		scratch_free(sc);
		return NULL;
	}
	return sc;
}

/*
 * "Ljava/lang/String;" -> "java/lang/String"; arrays keep their
 * descriptor ("[B", "[Ljava/lang/Object;").  A hidden class's signature
 * has a '.' before its address suffix (a '.' cannot occur in a normal
 * internal name); it becomes '+', HotSpot's internal spelling and the
 * one JFR writes, and marks the class hidden.  Works in place.
 */
static char *class_name(char *sig, size_t *len, bool *hidden)
{
	size_t n = strlen(sig), i;

	*hidden = false;
	if (n >= 2 && sig[0] == 'L' && sig[n - 1] == ';') {
		sig++;
		n -= 2;
	}
	for (i = 0; i < n; i++)
		if (sig[i] == '.') {
			sig[i] = '+';
			*hidden = true;
		}
	*len = n;
	return sig;
}

/* The class's id (0 when it cannot be had), and whether it is hidden. */
static uint32_t class_id(jvmtiEnv *jvmti, jclass klass, bool *hidden)
{
	jlong tag = 0;
	char *sig = NULL, *name;
	uint32_t id = 0;
	size_t len;

	*hidden = false;
	if (!klass)
		return 0;
	if ((*jvmti)->GetTag(jvmti, klass, &tag) == JVMTI_ERROR_NONE &&
	    tag > 0) {
		*hidden = (tag & TAG_HIDDEN) != 0;
		return (uint32_t)tag;
	}
	if ((*jvmti)->GetClassSignature(jvmti, klass, &sig, NULL) !=
		    JVMTI_ERROR_NONE ||
	    !sig)
		return 0;
	name = class_name(sig, &len, hidden);
	state_lock();
	if (atomic_load(&agent.live))
		id = symbols_class(&agent.sym, &agent.defs, name, len);
	state_unlock();
	/* racing threads may both get here; interning by name gives them
	 * the same id, and the tags they set agree */
	if (id)
		(*jvmti)->SetTag(jvmti, klass,
				 (jlong)id | (*hidden ? TAG_HIDDEN : 0));
	(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
	return id;
}

/* The thread's id, defined on first sight. */
static uint32_t thread_id(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	jvmtiThreadInfo info;
	int64_t java_id = -1;
	uint32_t flags = 0, id = 0;
	const char *name = "";
	void *p = NULL;

	if ((*jvmti)->GetThreadLocalStorage(jvmti, thread, &p) ==
		    JVMTI_ERROR_NONE &&
	    p)
		return (uint32_t)(uintptr_t)p;
	memset(&info, 0, sizeof(info));
	if ((*jvmti)->GetThreadInfo(jvmti, thread, &info) == JVMTI_ERROR_NONE) {
		if (info.name)
			name = info.name;
		if (info.thread_group)
			(*jni)->DeleteLocalRef(jni, info.thread_group);
		if (info.context_class_loader)
			(*jni)->DeleteLocalRef(jni, info.context_class_loader);
	}
	/* fields and instanceof, not method calls: no Java code runs
	 * inside the callback */
	if (agent.thread_tid)
		java_id = (*jni)->GetLongField(jni, thread, agent.thread_tid);
	if (agent.virtual_class &&
	    (*jni)->IsInstanceOf(jni, thread, agent.virtual_class))
		flags |= AR_THREAD_VIRTUAL;
	state_lock();
	if (atomic_load(&agent.live))
		id = symbols_thread(&agent.sym, &agent.defs, name, strlen(name),
				    java_id, flags);
	state_unlock();
	if (id)
		(*jvmti)->SetThreadLocalStorage(jvmti, thread,
						(void *)(uintptr_t)id);
	if (info.name)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)info.name);
	return id;
}

static int cmp_line(const void *a, const void *b)
{
	const struct line_entry *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* A sorted copy of the method's line table; NULL when it has none. */
static struct line_entry *line_table(jvmtiEnv *jvmti, jmethodID mid,
				     uint32_t *n)
{
	jvmtiLineNumberEntry *tab = NULL;
	struct line_entry *lines = NULL;
	jint count = 0, i;

	*n = 0;
	if ((*jvmti)->GetLineNumberTable(jvmti, mid, &count, &tab) !=
		    JVMTI_ERROR_NONE ||
	    count <= 0 || !tab)
		goto out;
	lines = malloc((size_t)count * sizeof(*lines));
	if (!lines)
		goto out;
	for (i = 0; i < count; i++) {
		lines[i].start =
			tab[i].start_location < 0 ||
					tab[i].start_location > INT32_MAX
				? INT32_MAX
				: (int32_t)tab[i].start_location;
		lines[i].line = tab[i].line_number;
	}
	qsort(lines, (size_t)count, sizeof(*lines), cmp_line);
	*n = (uint32_t)count;
out:
	if (tab)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)tab);
	return lines;
}

/* Resolve one method and intern it.  A method the JVM can no longer
 * describe (its class unloaded) is interned as "unknown" so that the
 * stacks through it can still be recorded. */
static void resolve_method(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID mid)
{
	struct method_res r;
	char *name = NULL, *sig = NULL;
	jclass klass = NULL;
	jint mods = 0;
	bool hidden = false;

	memset(&r, 0, sizeof(r));
	r.mid = mid;
	if ((*jvmti)->GetMethodName(jvmti, mid, &name, &sig, NULL) !=
	    JVMTI_ERROR_NONE)
		name = sig = NULL;
	if ((*jvmti)->GetMethodDeclaringClass(jvmti, mid, &klass) ==
		    JVMTI_ERROR_NONE &&
	    klass) {
		r.class_id = class_id(jvmti, klass, &hidden);
		(*jni)->DeleteLocalRef(jni, klass);
	}
	if ((*jvmti)->GetMethodModifiers(jvmti, mid, &mods) ==
		    JVMTI_ERROR_NONE &&
	    (mods & ACC_SYNTHETIC))
		hidden = true;
	if (hidden)
		r.flags |= AR_METHOD_HIDDEN;
	r.lines = line_table(jvmti, mid, &r.n_lines);
	r.name = name ? name : "unknown";
	r.sig = sig ? sig : "";
	state_lock();
	if (atomic_load(&agent.live))
		symbols_method(&agent.sym, &agent.defs, &r);
	state_unlock();
	free(r.lines); /* NULL when the table took it */
	if (name)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)name);
	if (sig)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (const jmethodID *)a;
	uintptr_t y = (uintptr_t) * (const jmethodID *)b;

	return (x > y) - (x < y);
}

static void resolve_methods(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID *miss,
			    uint32_t n)
{
	uint32_t i;

	/* a recursive stack names the same method many times */
	qsort(miss, n, sizeof(*miss), cmp_ptr);
	for (i = 0; i < n; i++)
		if (i == 0 || miss[i] != miss[i - 1])
			resolve_method(jvmti, jni, miss[i]);
}

static void put_sample(unsigned char *e, uint64_t id, int64_t t, uint64_t size,
		       uint32_t thread, uint32_t klass, uint32_t stack,
		       uint32_t gc, uint32_t flags)
{
	le_put64(e, id);
	le_put64(e + 8, (uint64_t)t);
	le_put64(e + 16, size);
	le_put32(e + 24, thread);
	le_put32(e + 28, klass);
	le_put32(e + 32, stack);
	le_put32(e + 36, gc);
	le_put32(e + 40, flags);
	le_put32(e + 44, 0);
}

void JNICALL sampler_on_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
			      jobject object, jclass klass, jlong size)
{
	uint32_t tid, cid, sid = 0, gc, flags = 0, n = 0, sflags = 0;
	uint32_t attempt, n_miss;
	uint64_t hash = 0, id;
	struct scratch *sc;
	unsigned char *e;
	jweak weak = NULL;
	bool hidden, want_track;
	jint count = 0;
	int64_t t;

	if (!state_enter())
		return;
	t = now_ns();
	gc = gcring_finished();
	tid = thread_id(jvmti, jni, thread);
	cid = class_id(jvmti, klass, &hidden);
	sc = scratch_get();
	if (sc &&
	    (*jvmti)->GetStackTrace(jvmti, thread, 0, (jint)agent.opt.depth + 1,
				    sc->frames, &count) == JVMTI_ERROR_NONE) {
		n = count > 0 ? (uint32_t)count : 0;
		if (n > agent.opt.depth) {
			n = agent.opt.depth;
			sflags = AR_STACK_TRUNCATED;
		}
		hash = symbols_stack_hash(sc->frames, n, sflags);
	} else {
		counter_add(ARC_STACK_FAILURES, 1);
	}
	/* a full table is known without the lock, closely enough to skip
	 * a weak reference that would only be deleted again */
	want_track = agent.opt.max_tracked &&
		     track_count(&agent.track) < agent.opt.max_tracked;
	if (want_track)
		weak = (*jni)->NewWeakGlobalRef(jni, object);

	for (attempt = 0;; attempt++) {
		state_lock();
		if (!atomic_load(&agent.live)) {
			state_unlock();
			goto out;
		}
		if (n == 0)
			break;
		sid = symbols_stack(&agent.sym, &agent.defs, sc->frames, n,
				    sflags, hash);
		if (sid || attempt == 2)
			break;
		n_miss = symbols_missing(&agent.sym, sc->frames, n, sc->miss);
		if (!n_miss)
			break; /* out of memory: no stack */
		state_unlock();
		resolve_methods(jvmti, jni, sc->miss, n_miss);
	}
	/* locked */
	if (n && !sid)
		counter_add(ARC_STACK_FAILURES, 1);
	counter_add(ARC_SAMPLES, 1);
	if (agent.defs.bytes + agent.samples.bytes >= agent.opt.buffer ||
	    !(e = pending_reserve(&agent.samples, AR_SAMPLE_LEN))) {
		counter_add(ARC_DROPPED_BUFFER, 1);
		state_unlock();
		goto out;
	}
	id = ++agent.n_samples;
	if (weak && track_add(&agent.track, weak, id, gc) == 0) {
		weak = NULL; /* the table's now */
		flags |= AR_SAMPLE_TRACKED;
		counter_add(ARC_TRACKED, 1);
	} else if (agent.opt.max_tracked && (weak || !want_track)) {
		flags |= AR_SAMPLE_TABLE_FULL;
		counter_add(ARC_DROPPED_UNTRACKED, 1);
	}
	put_sample(e, id, t, size < 0 ? 0 : (uint64_t)size, tid, cid, sid, gc,
		   flags);
	state_unlock();
out:
	if (weak)
		(*jni)->DeleteWeakGlobalRef(jni, weak);
	state_leave();
}
