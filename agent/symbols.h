/*
 * The agent's ids for classes, methods, threads and stacks, and their
 * definitions (CLASS, METHOD, THREAD, STACK records).
 *
 * Each thing gets its id the first time it is interned, and its
 * definition is appended to the caller's pending queue in the same call,
 * so that a definition always reaches the queue before any sample that
 * uses it.  Classes are interned by name (the format has nothing else to
 * tell two same-named classes apart), methods by jmethodID, stacks by
 * their (jmethodID, bci) frames and truncation flag.
 *
 * This module makes no JVMTI or JNI call: whatever needs the JVM (class
 * signatures, method names, line tables) is resolved by the caller
 * outside the agent's lock and handed in.  Every function here is called
 * with that lock held.  Out of memory returns id 0 ("none" in the
 * format) and adds nothing.
 */
#ifndef HS_AGENT_SYMBOLS_H
#define HS_AGENT_SYMBOLS_H

#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/internmap.h"

struct pending;

/* One entry of a method's line number table, sorted by start. */
struct line_entry {
	int32_t start; /* first bci of the line */
	int32_t line;
};

/* A method as the caller resolved it. */
struct method_res {
	jmethodID mid;
	uint32_t class_id;
	uint32_t flags;		  /* AR_METHOD_* */
	const char *name, *sig;	  /* borrowed */
	struct line_entry *lines; /* owned; moved into the table by
				     symbols_method() (set to NULL then) */
	uint32_t n_lines;	  /* 0: no line table */
};

struct method_entry {
	jmethodID mid;
	struct line_entry *lines;
	uint32_t n_lines;
};

struct stack_entry {
	size_t off; /* of its frames in symbols.frames */
	uint32_t n_frames, flags;
};

struct stack_frame {
	jmethodID mid;
	int32_t bci;
};

struct symbols {
	struct internmap class_map;  /* name hash -> class id */
	struct internmap method_map; /* jmethodID -> method id */
	struct internmap stack_map;  /* frames hash -> stack id */
	struct {
		size_t off; /* in names */
		uint32_t len;
	} * classes; /* [id - 1] */
	char *names;
	size_t names_len, names_cap;
	struct method_entry *methods; /* [id - 1] */
	struct stack_entry *stacks;   /* [id - 1] */
	struct stack_frame *frames;
	size_t n_frames, frames_cap;
	uint32_t n_classes, classes_cap, n_methods, methods_cap;
	uint32_t n_stacks, stacks_cap, n_threads;
};

/* Zeroed storage is an empty table. */
void symbols_release(struct symbols *s);

/* The id of the class of this name (internal form, as it goes into the
 * CLASS record). */
uint32_t symbols_class(struct symbols *s, struct pending *defs,
		       const char *name, size_t len);

/* A new thread's id; threads are not deduplicated (the caller caches the
 * id in the thread's JVMTI local storage). */
uint32_t symbols_thread(struct symbols *s, struct pending *defs,
			const char *name, size_t len, int64_t java_id,
			uint32_t flags);

/* Is this method interned? */
int symbols_has_method(const struct symbols *s, jmethodID mid);

/* Intern a resolved method (if it is not yet: then r is left alone). */
uint32_t symbols_method(struct symbols *s, struct pending *defs,
			struct method_res *r);

/* The methods of frames[0..n) not interned yet, into miss (room for n),
 * duplicates possible; returns their count. */
uint32_t symbols_missing(const struct symbols *s, const jvmtiFrameInfo *frames,
			 uint32_t n, jmethodID *miss);

/* Hash of a stack for symbols_stack(); computed outside the lock. */
uint64_t symbols_stack_hash(const jvmtiFrameInfo *frames, uint32_t n,
			    uint32_t flags);

/* The stack's id; 0 when one of its methods is not interned, or out of
 * memory.  flags: AR_STACK_*. */
uint32_t symbols_stack(struct symbols *s, struct pending *defs,
		       const jvmtiFrameInfo *frames, uint32_t n, uint32_t flags,
		       uint64_t hash);

/* The line of bci in a sorted line table: the entry with the greatest
 * start <= bci, -1 when none or no table. */
int32_t symbols_line(const struct line_entry *lines, uint32_t n, int32_t bci);

#endif
