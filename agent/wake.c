/*
 * The eventfd declared in wake.h.
 */
#include "agent/wake.h"

#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

static atomic_int wake_fd = -1;

int wake_init(void)
{
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	if (fd < 0)
		return -1;
	atomic_store(&wake_fd, fd);
	return 0;
}

void wake_post(void)
{
	uint64_t one = 1;
	int fd = atomic_load(&wake_fd);

	/* EAGAIN means the counter is saturated: a wake-up is pending */
	if (fd >= 0)
		while (write(fd, &one, sizeof(one)) < 0 && errno == EINTR)
			;
}

void wake_wait(int timeout_ms)
{
	struct pollfd p;
	uint64_t n;

	p.fd = atomic_load(&wake_fd);
	p.events = POLLIN;
	p.revents = 0;
	if (p.fd < 0)
		return;
	if (poll(&p, 1, timeout_ms) > 0 && (p.revents & POLLIN))
		while (read(p.fd, &n, sizeof(n)) < 0 && errno == EINTR)
			;
}

void wake_release(void)
{
	int fd = atomic_exchange(&wake_fd, -1);

	if (fd >= 0)
		close(fd);
}
