/*
 * What the agent writes, and the thread that writes it.
 *
 * flusher_header() writes the preamble and HEADER when the agent loads.
 * The writer thread (a JVMTI agent thread, so a Java thread that may call
 * JNI) then wakes after every GC finish and every flush_ms: after a GC
 * it walks the tracking table for objects that died, then it appends
 * one batch: the new definitions, the new samples, the deaths, the GCs
 * and a COUNTERS record.  Nothing else writes to the file while it runs.
 * flusher_finish(), from VMDeath, stops and joins it, finds which
 * tracked objects are still alive, and writes the last batch with ALIVE
 * entries, the final COUNTERS and END.
 *
 * Each batch goes out as whole framed records; a JVM killed at any
 * moment leaves every record before the one being written readable.
 */
#ifndef HS_AGENT_FLUSHER_H
#define HS_AGENT_FLUSHER_H

#include <jvmti.h>

/* The preamble and HEADER record; 0, or -1 after a write error. */
int flusher_header(const char *jvm_name, const char *jvm_version,
		   const char *jvm_vendor);

/* Start the writer thread (live phase).  0, or -1 with a message. */
int flusher_start(jvmtiEnv *jvmti, JNIEnv *jni);

/* VMDeath, after `live` was cleared: stop the thread, last scan, last
 * batch, END, fsync, close. */
void flusher_finish(jvmtiEnv *jvmti, JNIEnv *jni);

/* Is the writer thread possibly still running (it did not stop when
 * asked)?  Then nothing it uses may be freed. */
int flusher_busy(void);

/* Free the flusher's buffers (the thread is not running). */
void flusher_release(void);

#endif
