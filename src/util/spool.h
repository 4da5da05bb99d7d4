/*
 * A spool: bytes gathered from a stream that a reader needs whole (a zip
 * member, whose central directory is at its end; a JFR chunk, whose
 * metadata and constant pools come after the events that use them).
 * Up to a threshold they are held in memory; past it they go to a
 * temporary file without a name, so that the memory an input costs
 * follows heapsift's budget (docs/design/memory.md), not the sizes an
 * input declares or decompresses to, and nothing is left behind however
 * the process ends.
 *
 * It does not read streams itself, nor decide thresholds: callers pass
 * the bytes and the threshold (spool_mem_max() gives the default and its
 * knob).
 */
#ifndef HS_SPOOL_H
#define HS_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* The default threshold: bytes held in memory before a spool goes to a
 * file.  HEAPSIFT_SPOOL_MEM=N overrides it (0: every byte to a file,
 * which the tests use to take the file's path on small inputs). */
#define SPOOL_MEM_DEFAULT ((size_t)16 << 20)
size_t spool_mem_max(void);

/*
 * A file with no name in dir, opened for reading and writing: O_TMPFILE,
 * or a name (".heapsift-spill.XXXXXX") made there and unlinked at once,
 * with the fatal signals blocked in between, where the file system has
 * no O_TMPFILE.  Either way no name is left behind, whatever ends the
 * process.  Returns the descriptor, or -1 with errno.  The spool's and
 * the store writer's spills both use it.
 */
int tmpfile_nameless(const char *dir);

/* tmpfile_nameless() in $TMPDIR, else /tmp. */
int spool_tmpfile(void);

/* The directory spool_tmpfile() uses (borrowed; for messages). */
const char *spool_dir(void);

struct spool {
	unsigned char *mem; /* the bytes while they are in memory */
	size_t alloc;
	size_t mem_max;		  /* more than this goes to the file */
	int fd;			  /* the file, once past mem_max; else -1 */
	uint64_t len;		  /* bytes added */
	const unsigned char *map; /* spool_map()'s mapping of the file */
	size_t map_len;
};

void spool_init(struct spool *s, size_t mem_max);
/* Back to empty (the memory buffer kept for the next use; the file and
 * its mapping gone). */
void spool_reset(struct spool *s);
void spool_release(struct spool *s);

/* Append len bytes.  <0 where the file cannot be made or written (e
 * says why and where); the spool then holds what it held before. */
int spool_add(struct spool *s, const void *p, size_t len, struct err *e);

/*
 * Every byte added, contiguous and read-only: the memory buffer, or the
 * file mapped.  Borrowed until the next spool_add(), spool_reset() or
 * spool_release().  <0 where the file cannot be mapped.
 */
int spool_map(struct spool *s, const unsigned char **p, struct err *e);

/*
 * Let the mapping's whole pages in [from, to) go (a reader that is past
 * them: they are read again from the file if touched), so that resident
 * memory follows the reader, not the bytes spooled.  Nothing where the
 * bytes are in memory.  Another thread may call it, not at once with
 * the other calls.
 */
void spool_drop(const struct spool *s, uint64_t from, uint64_t to);

/* The file's descriptor once the bytes went to it (borrowed; for
 * pread), else -1: the bytes are spool_map()'s memory. */
static inline int spool_fd(const struct spool *s)
{
	return s->fd;
}

#endif
