/*
 * The SampledObjectAlloc callback: turns one JEP 331 sample into a
 * SAMPLES entry (and the definitions it needs) in the pending queues.
 *
 * Everything that needs the JVM is asked outside the agent's lock: the
 * thread's name (once per thread, cached in its JVMTI thread-local
 * storage), the class's signature (once per class, cached in a JVMTI tag
 * on the class object), the stack, and for a stack not seen before the
 * names, modifiers and line tables of its new methods.  The lock is then
 * taken only to intern ids and append.  The callback never does I/O.
 */
#ifndef HS_AGENT_SAMPLER_H
#define HS_AGENT_SAMPLER_H

#include <jvmti.h>

/* Set up per-thread scratch space.  0, or -1. */
int sampler_init(void);
/* Forget it (only when no callback can be running). */
void sampler_release(void);

void JNICALL sampler_on_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
			      jobject object, jclass klass, jlong size);

#endif
