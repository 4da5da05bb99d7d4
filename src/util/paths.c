/*
 * Runtime file lookup declared in paths.h.
 */
#include "util/paths.h"

#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"

#ifndef HS_LIBDIR
#define HS_LIBDIR "/usr/local/lib"
#endif

bool paths_exe_dir(struct buf *out)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	char *slash;

	if (n <= 0 || (size_t)n >= sizeof(path) - 1)
		return false;
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash)
		return false;
	buf_reset(out);
	buf_add(out, path, slash == path ? 1 : (size_t)(slash - path));
	return true;
}

bool paths_find_runtime(const char *name, struct buf *out)
{
	struct buf dir = BUF_INIT;
	static const char *const sub[] = {"", "/build"};
	size_t i;

	if (paths_exe_dir(&dir)) {
		for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
			buf_reset(out);
			buf_addf(out, "%s%s/%s", dir.data, sub[i], name);
			if (access(out->data, R_OK) == 0) {
				buf_release(&dir);
				return true;
			}
		}
	}
	buf_release(&dir);
	buf_reset(out);
	buf_addf(out, "%s/heapsift/%s", HS_LIBDIR, name);
	return access(out->data, R_OK) == 0;
}
