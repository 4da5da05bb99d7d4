/*
 * Waking the writer thread: an eventfd that GC-finish events and VMDeath
 * post to and the writer thread polls with its flush timeout.
 *
 * Chosen over a JVMTI raw monitor because posting is one write() of 8
 * bytes, which takes no lock: the GC-finish event runs inside the
 * safepoint, and a raw monitor that a Java thread (the writer thread)
 * may own while it is itself held up by that safepoint could deadlock
 * the pause.  A write() cannot block on anything the JVM holds.
 */
#ifndef HS_AGENT_WAKE_H
#define HS_AGENT_WAKE_H

/* 0, or -1 with errno. */
int wake_init(void);
/* Async-signal-safe. */
void wake_post(void);
/* Wait up to timeout_ms (or until posted); clears the posts. */
void wake_wait(int timeout_ms);
void wake_release(void);

#endif
