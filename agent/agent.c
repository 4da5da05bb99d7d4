/*
 * libheapsift-agent.so: a JVMTI agent that records JEP 331 heap samples
 * and when the sampled objects die, in the format of
 * docs/formats/agent-recording.md.  docs/agent.md is the user's guide.
 *
 * This file holds the three exported entry points and the life cycle:
 * load (options, capabilities, the file and its header), VMInit (or
 * attach: the writer thread, the sampling interval, the sampling event),
 * the GC events, VMDeath (the last batch) and unload.  The work is in
 * sampler.c (the allocation callback) and flusher.c (the writer thread).
 *
 * The agent never ends the JVM: bad options fail Agent_OnLoad with a
 * message (the JVM then refuses to start, which is what a typo in a
 * command line deserves), a JVM without heap sampling gets a message
 * and runs without the agent, and everything later (out of memory, a
 * full disk) drops data, counts it and goes on.
 */
#include <errno.h>
#include <jvmti.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/flusher.h"
#include "agent/gcring.h"
#include "agent/msg.h"
#include "agent/sampler.h"
#include "agent/state.h"
#include "agent/wake.h"

struct agent_state agent = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.out = WRITER_INIT,
};

static atomic_bool loaded;
static bool started; /* flusher, interval and event are set up */

static void JNICALL on_gc_start(jvmtiEnv *jvmti)
{
	(void)jvmti;
	atomic_fetch_add(&agent.inflight, 1);
	if (!atomic_load(&agent.ended))
		gcring_start(now_ns());
	atomic_fetch_sub(&agent.inflight, 1);
}

/* Inside the GC pause: atomics and one write() to the eventfd, nothing
 * that could wait for anything (see wake.h). */
static void JNICALL on_gc_finish(jvmtiEnv *jvmti)
{
	(void)jvmti;
	atomic_fetch_add(&agent.inflight, 1);
	if (!atomic_load(&agent.ended)) {
		gcring_finish(now_ns());
		wake_post();
	}
	atomic_fetch_sub(&agent.inflight, 1);
}

/* What the callbacks need from java.lang.Thread, looked up once: the
 * `tid` field (Thread.getId() without running Java code in a callback)
 * and the class all virtual threads extend (JDK 21 and later). */
static void thread_lookups(JNIEnv *jni)
{
	jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");

	if (cls)
		agent.thread_tid = (*jni)->GetFieldID(jni, cls, "tid", "J");
	if (!agent.thread_tid)
		(*jni)->ExceptionClear(jni);
	cls = (*jni)->FindClass(jni, "java/lang/BaseVirtualThread");
	if (cls)
		agent.virtual_class = (*jni)->NewGlobalRef(jni, cls);
	else
		(*jni)->ExceptionClear(jni);
}

/* The live-phase half of starting: from VMInit, or at once on attach. */
static int start(jvmtiEnv *jvmti, JNIEnv *jni)
{
	jvmtiError e;
	int rc;

	/* on attach this runs in the attach listener thread, which does
	 * not return to Java to free our local references */
	if ((*jni)->PushLocalFrame(jni, 16) < 0) {
		(*jni)->ExceptionClear(jni);
		msg_error("out of memory at start; recording nothing");
		return -1;
	}
	thread_lookups(jni);
	rc = flusher_start(jvmti, jni);
	(*jni)->PopLocalFrame(jni, NULL);
	if (rc < 0)
		return -1;
	e = (*jvmti)->SetHeapSamplingInterval(jvmti, (jint)agent.opt.interval);
	if (e != JVMTI_ERROR_NONE) {
		msg_error("SetHeapSamplingInterval(%llu) failed with JVMTI "
			  "error %d; recording nothing",
			  (unsigned long long)agent.opt.interval, (int)e);
		return -1;
	}
	started = true;
	atomic_store(&agent.live, true);
	e = (*jvmti)->SetEventNotificationMode(
		jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
	if (e != JVMTI_ERROR_NONE) {
		msg_error("cannot enable SampledObjectAlloc (JVMTI error %d); "
			  "recording nothing",
			  (int)e);
		return -1;
	}
	msg_note("recording heap samples to %s (interval %llu bytes, depth "
		 "%u, %s sampler)",
		 agent.opt.file, (unsigned long long)agent.opt.interval,
		 agent.opt.depth,
		 agent.sampler == AR_SAMPLER_SYSTEMATIC ? "systematic"
							: "Poisson");
	return 0;
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	(void)thread;
	start(jvmti, jni);
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
	/* from here on no callback appends anything */
	state_lock();
	atomic_store(&agent.live, false);
	state_unlock();
	(*jvmti)->SetEventNotificationMode(
		jvmti, JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
	flusher_finish(jvmti, jni);
	atomic_store(&agent.ended, true);
	if (counter_get(ARC_DROPPED_BUFFER))
		msg_error("%llu samples were dropped because more than %llu "
			  "bytes waited to be written (option buffer=)",
			  (unsigned long long)counter_get(ARC_DROPPED_BUFFER),
			  (unsigned long long)agent.opt.buffer);
	if (agent.out.failed) {
		msg_error("%s is incomplete (writing failed); it holds %llu "
			  "samples",
			  agent.opt.file,
			  (unsigned long long)counter_get(ARC_WRITTEN));
		return;
	}
	msg_note("wrote %llu samples (%llu tracked: %llu died, %llu alive at "
		 "the end), %llu GCs, %llu bytes to %s",
		 (unsigned long long)counter_get(ARC_WRITTEN),
		 (unsigned long long)counter_get(ARC_TRACKED),
		 (unsigned long long)counter_get(ARC_DEATHS),
		 (unsigned long long)counter_get(ARC_ALIVE_AT_END),
		 (unsigned long long)counter_get(ARC_GCS),
		 (unsigned long long)agent.out.bytes, agent.opt.file);
}

/* A system property as a malloc'd string ("" when unknown); NULL only
 * when out of memory. */
static char *property(jvmtiEnv *jvmti, const char *name, const char *alt)
{
	char *v = NULL, *copy;

	if ((*jvmti)->GetSystemProperty(jvmti, name, &v) != JVMTI_ERROR_NONE ||
	    !v) {
		v = NULL;
		if (alt && (*jvmti)->GetSystemProperty(jvmti, alt, &v) !=
				   JVMTI_ERROR_NONE)
			v = NULL;
	}
	copy = strdup(v ? v : "");
	if (v)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)v);
	return copy;
}

/* Ask for what the agent needs; a message and false when the JVM lacks
 * any of it. */
static bool capabilities(jvmtiEnv *jvmti)
{
	jvmtiCapabilities have, want;
	char missing[256] = "";

	memset(&have, 0, sizeof(have));
	memset(&want, 0, sizeof(want));
	(*jvmti)->GetPotentialCapabilities(jvmti, &have);
	if (!have.can_generate_sampled_object_alloc_events)
		strcat(missing, " can_generate_sampled_object_alloc_events");
	if (!have.can_generate_garbage_collection_events)
		strcat(missing, " can_generate_garbage_collection_events");
	if (!have.can_tag_objects)
		strcat(missing, " can_tag_objects");
	if (!have.can_get_line_numbers)
		strcat(missing, " can_get_line_numbers");
	if (missing[0]) {
		msg_error("this JVM does not offer%s (JEP 331 heap sampling "
			  "needs JDK 11 or later)",
			  missing);
		return false;
	}
	want.can_generate_sampled_object_alloc_events = 1;
	want.can_generate_garbage_collection_events = 1;
	want.can_tag_objects = 1;
	want.can_get_line_numbers = 1;
	if ((*jvmti)->AddCapabilities(jvmti, &want) != JVMTI_ERROR_NONE) {
		msg_error(
			"the JVM refused the capabilities heap sampling needs "
			"(another agent may hold them)");
		return false;
	}
	return true;
}

static int set_callbacks(jvmtiEnv *jvmti)
{
	jvmtiEventCallbacks cb;
	jvmtiEvent ev[] = {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH,
			   JVMTI_EVENT_GARBAGE_COLLECTION_START,
			   JVMTI_EVENT_GARBAGE_COLLECTION_FINISH};
	size_t i;

	memset(&cb, 0, sizeof(cb));
	cb.VMInit = on_vm_init;
	cb.VMDeath = on_vm_death;
	cb.GarbageCollectionStart = on_gc_start;
	cb.GarbageCollectionFinish = on_gc_finish;
	cb.SampledObjectAlloc = sampler_on_alloc;
	if ((*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof(cb)) !=
	    JVMTI_ERROR_NONE)
		return -1;
	for (i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
						       ev[i], NULL) !=
		    JVMTI_ERROR_NONE)
			return -1;
	return 0;
}

/*
 * The file, its header, the tables.  0; -1 after a message when the
 * JVM should not start (the file cannot be created: as good as a bad
 * file= option); 1 after a message when the header could not be written
 * (a write error: the JVM runs, without the agent).
 */
static int open_recording(jvmtiEnv *jvmti)
{
	char *name = property(jvmti, "java.vm.name", NULL);
	char *version =
		property(jvmti, "java.vm.version", "java.runtime.version");
	char *vendor = property(jvmti, "java.vm.vendor", NULL);
	int rc = -1;

	if (!name || !version || !vendor) {
		msg_error("out of memory at start");
		goto out;
	}
	agent.sampler =
		strstr(name, "J9") ? AR_SAMPLER_SYSTEMATIC : AR_SAMPLER_POISSON;
	agent.start_ns = now_ns();
	if (sampler_init() < 0 || wake_init() < 0 ||
	    track_init(&agent.track, agent.opt.max_tracked) < 0) {
		msg_error("out of memory at start");
		goto out;
	}
	if (writer_open(&agent.out, agent.opt.file) < 0) {
		msg_error("cannot create %s: %s", agent.opt.file,
			  strerror(errno));
		goto out;
	}
	rc = flusher_header(name, version, vendor) < 0 ? 1 : 0;
out:
	free(name);
	free(version);
	free(vendor);
	return rc;
}

static jint load(JavaVM *vm, const char *options, bool attach)
{
	char why[512];
	jvmtiEnv *jvmti = NULL;
	JNIEnv *jni = NULL;
	int rc;

	if (atomic_exchange(&loaded, true)) {
		msg_error("already loaded in this JVM; the second copy is "
			  "refused");
		return JNI_ERR;
	}
	rc = options_parse(options, (long)getpid(), &agent.opt, why,
			   sizeof(why));
	if (rc < 0) {
		msg_error("%s",
			  rc == -2 ? "out of memory reading the options" : why);
		return JNI_ERR;
	}
	msg_set_quiet(agent.opt.quiet);
	agent.vm = vm;
	if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_11) != JNI_OK ||
	    !jvmti) {
		msg_error("this JVM has no JVMTI 11 (JEP 331 heap sampling "
			  "needs JDK 11 or later); the agent is disabled");
		return attach ? JNI_ERR : JNI_OK;
	}
	agent.jvmti = jvmti;
	if (!capabilities(jvmti)) {
		msg_error("the agent is disabled; the application runs "
			  "without it");
		(*jvmti)->DisposeEnvironment(jvmti);
		agent.jvmti = NULL;
		return attach ? JNI_ERR : JNI_OK;
	}
	/* the file is never removed on failure: file= may name something
	 * that was there before, such as /dev/full */
	rc = open_recording(jvmti);
	if (rc > 0) {
		writer_close(&agent.out, false);
		msg_error("the agent is disabled; the application runs "
			  "without it");
		return attach ? JNI_ERR : JNI_OK;
	}
	if (rc < 0 || set_callbacks(jvmti) < 0) {
		writer_close(&agent.out, false);
		return JNI_ERR;
	}
	if (attach) {
		if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_6) !=
			    JNI_OK ||
		    start(jvmti, jni) < 0)
			return JNI_ERR;
	}
	return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	(void)reserved;
	return load(vm, options, false);
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
	(void)reserved;
	return load(vm, options, true);
}

/*
 * The JVM is going away.  Without a VMDeath (a JVM that failed to start)
 * the file is closed as it is.  The heap state is freed only when no
 * callback is inside our code and the writer thread has stopped;
 * otherwise it is left to the process's end, which is near.
 */
JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
	(void)vm;
	atomic_store(&agent.live, false);
	atomic_store(&agent.ended, true);
	if (flusher_busy())
		return; /* the writer thread may still be using all of it */
	if (agent.out.fd >= 0)
		writer_close(&agent.out, true);
	if (atomic_load(&agent.inflight))
		return;
	pending_release(&agent.defs);
	pending_release(&agent.samples);
	symbols_release(&agent.sym);
	track_release(&agent.track);
	flusher_release();
	sampler_release();
	wake_release();
	options_release(&agent.opt);
}
