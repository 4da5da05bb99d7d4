/*
 * File output declared in writer.h.
 */
#include "agent/writer.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "agent/msg.h"

int writer_open(struct writer *w, const char *path)
{
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	w->failed = false;
	w->bytes = 0;
	w->path = path;
	return w->fd < 0 ? -1 : 0;
}

static void write_failed(struct writer *w, int e)
{
	if (!w->failed)
		msg_error("writing %s failed at offset %llu: %s; the recording "
			  "stops there",
			  w->path, (unsigned long long)w->bytes, strerror(e));
	w->failed = true;
}

int writer_put(struct writer *w, const void *p, size_t n)
{
	const unsigned char *c = p;

	if (w->failed || w->fd < 0)
		return -1;
	while (n) {
		ssize_t r = write(w->fd, c, n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			write_failed(w, errno);
			return -1;
		}
		if (r == 0) { /* not expected of a regular file; never spin */
			write_failed(w, ENOSPC);
			return -1;
		}
		c += r;
		n -= (size_t)r;
		w->bytes += (uint64_t)r;
	}
	return 0;
}

int writer_putv(struct writer *w, struct iovec *iov, int n_iov)
{
	if (w->failed || w->fd < 0)
		return -1;
	while (n_iov > 0) {
		ssize_t r = writev(w->fd, iov, n_iov);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			write_failed(w, errno);
			return -1;
		}
		if (r == 0) {
			write_failed(w, ENOSPC);
			return -1;
		}
		w->bytes += (uint64_t)r;
		/* a short write: skip what went out, resume mid-piece */
		while (n_iov > 0 && (size_t)r >= iov->iov_len) {
			r -= (ssize_t)iov->iov_len;
			iov++;
			n_iov--;
		}
		if (n_iov > 0) {
			iov->iov_base = (char *)iov->iov_base + r;
			iov->iov_len -= (size_t)r;
		}
	}
	return 0;
}

int writer_close(struct writer *w, bool sync)
{
	int rc = w->failed ? -1 : 0;

	if (w->fd < 0)
		return rc;
	if (sync && !w->failed && fsync(w->fd) < 0 && errno != EINVAL) {
		write_failed(w, errno);
		rc = -1;
	}
	if (close(w->fd) < 0 && errno != EINTR && !w->failed) {
		write_failed(w, errno);
		rc = -1;
	}
	w->fd = -1;
	return rc;
}
