/*
 * The recording file: opened once, appended to with write(), synced and
 * closed at VM death.
 *
 * A write error (disk full, EIO, a file system gone) is reported once on
 * stderr and ends writing for good: the file keeps its whole records up
 * to the failure, which is what a reader of a killed JVM's file copes
 * with anyway.  Nothing here ever ends the process.  Used by one thread
 * at a time (the writer thread, then VMDeath after it stopped), so it
 * has no lock.
 */
#ifndef HS_AGENT_WRITER_H
#define HS_AGENT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct writer {
	int fd;		  /* -1: not open */
	bool failed;	  /* a write failed; nothing more is written */
	uint64_t bytes;	  /* written so far, the preamble included */
	const char *path; /* borrowed from the options, for messages */
};

#define WRITER_INIT                \
	{                          \
		-1, false, 0, NULL \
	}

/* Create or truncate path.  0, or -1 with errno set. */
int writer_open(struct writer *w, const char *path);

/* Append all n bytes, through EINTR and short writes.  0, or -1 when
 * writing failed now or earlier. */
int writer_put(struct writer *w, const void *p, size_t n);

/* The same for several pieces, in order (fewer system calls). */
struct iovec;
int writer_putv(struct writer *w, struct iovec *iov, int n_iov);

/* fsync (when sync) and close; 0, or -1 after any failure. */
int writer_close(struct writer *w, bool sync);

#endif
