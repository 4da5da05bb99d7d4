/*
 * Finding the files heapsift needs at run time (the agent library, later
 * shell completion data) both in a build tree and after `make install`.
 *
 * The search order is: next to the running binary, in build/ next to it
 * (the binary sits at the repository root, its by-products in build/),
 * then LIBDIR/heapsift/ as configured at build time (HS_LIBDIR).  The
 * running binary is found through /proc/self/exe, so a copy moved
 * elsewhere still finds what sits beside it.
 */
#ifndef HS_PATHS_H
#define HS_PATHS_H

#include <stdbool.h>

struct buf;

/* Directory of the running executable, into out; false if unknown. */
bool paths_exe_dir(struct buf *out);

/*
 * Full path of the runtime file name into out (reset first); false when
 * no candidate exists, with out holding the installed location that was
 * expected, for the error message.
 */
bool paths_find_runtime(const char *name, struct buf *out);

#endif
