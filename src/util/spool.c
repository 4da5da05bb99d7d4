/*
 * The spool declared in spool.h: memory up to a threshold, then a file
 * without a name, mapped read-only when the reader wants it whole.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_TMPFILE */
#endif
#include "util/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/env.h"
#include "util/xalloc.h"

size_t spool_mem_max(void)
{
	return env_count("HEAPSIFT_SPOOL_MEM", SPOOL_MEM_DEFAULT, 0,
			 (size_t)1 << 40);
}

const char *spool_dir(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t ? t : "/tmp";
}

int tmpfile_nameless(const char *dir)
{
	struct buf path = BUF_INIT;
	int fd, saved;

#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 ||
	    (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
#endif
	/* no O_TMPFILE here: a name, unlinked at once, with no signal
	 * between the two (xalloc.h) */
	buf_addf(&path, "%s/.heapsift-spill.XXXXXX", dir);
	{
		sigset_t old;

		die_signals_block(&old);
		fd = mkostemp(path.data, O_CLOEXEC);
		saved = errno;
		if (fd >= 0)
			unlink(path.data);
		die_signals_restore(&old);
	}
	buf_release(&path);
	errno = saved;
	return fd;
}

int spool_tmpfile(void)
{
	return tmpfile_nameless(spool_dir());
}

void spool_init(struct spool *s, size_t mem_max)
{
	memset(s, 0, sizeof(*s));
	s->mem_max = mem_max;
	s->fd = -1;
}

static void unmap(struct spool *s)
{
	if (s->map)
		munmap((void *)s->map, s->map_len);
	s->map = NULL;
	s->map_len = 0;
}

void spool_reset(struct spool *s)
{
	unmap(s);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->len = 0;
}

void spool_release(struct spool *s)
{
	spool_reset(s);
	free(s->mem);
	spool_init(s, s->mem_max);
}

static int io_err(struct err *e, const char *doing, int errnum)
{
	return err_set(e, ERR_IO, "%s a temporary file in %s (TMPDIR): %s",
		       doing, spool_dir(), err_io_reason(errnum));
}

static int write_all(int fd, const unsigned char *p, size_t len, uint64_t at,
		     struct err *e)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return io_err(e, "writing", n < 0 ? errno : ENOSPC);
		p += n;
		len -= (size_t)n;
		at += (uint64_t)n;
	}
	return 0;
}

int spool_add(struct spool *s, const void *p, size_t len, struct err *e)
{
	unmap(s);
	if (!len)
		return 0;
	if (s->fd < 0 && s->len + len <= s->mem_max) {
		if (s->len + len > s->alloc) {
			size_t want = s->alloc ? s->alloc : 64 << 10;

			while (want < s->len + len)
				want *= 2;
			if (want > s->mem_max)
				want = s->mem_max;
			s->mem = xrealloc(s->mem, want);
			s->alloc = want;
		}
		memcpy(s->mem + s->len, p, len);
		s->len += len;
		return 0;
	}
	if (s->fd < 0) {
		int fd = spool_tmpfile();

		if (fd < 0)
			return io_err(e, "creating", errno);
		if (write_all(fd, s->mem, (size_t)s->len, 0, e) < 0) {
			close(fd);
			return ERR_FAIL;
		}
		s->fd = fd;
		/* the memory goes at once: a nested archive's levels each
		 * hold a spool while the level below is read */
		free(s->mem);
		s->mem = NULL;
		s->alloc = 0;
	}
	/* a failed write leaves len as it was: what it wrote past that is
	 * written over by the next, and never read */
	if (write_all(s->fd, p, len, s->len, e) < 0)
		return ERR_FAIL;
	s->len += len;
	return 0;
}

int spool_map(struct spool *s, const unsigned char **p, struct err *e)
{
	void *m;

	if (s->fd < 0 || !s->len) {
		*p = s->mem ? s->mem : (const unsigned char *)"";
		return 0;
	}
	if (s->map) {
		*p = s->map;
		return 0;
	}
	if (s->len > SIZE_MAX)
		return err_set(e, ERR_LIMIT,
			       "%llu bytes cannot be mapped in this process",
			       (unsigned long long)s->len);
	m = mmap(NULL, (size_t)s->len, PROT_READ, MAP_SHARED, s->fd, 0);
	if (m == MAP_FAILED)
		return io_err(e, "mapping", errno);
	s->map = m;
	s->map_len = (size_t)s->len;
	*p = s->map;
	return 0;
}

void spool_drop(const struct spool *s, uint64_t from, uint64_t to)
{
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t page = ps > 0 ? (uint64_t)ps : 4096;

	if (!s->map)
		return;
	if (to > s->map_len)
		to = s->map_len;
	from = (from + page - 1) / page * page;
	to -= to % page;
	/* a shared read-only mapping of a file: the pages stay in the page
	 * cache, and a later touch maps them again */
	if (from < to)
		(void)madvise((char *)s->map + from, (size_t)(to - from),
			      MADV_DONTNEED);
}
