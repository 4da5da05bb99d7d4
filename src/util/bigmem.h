/*
 * Large growable arrays: the store writer's sample columns and the
 * buffers its commit sorts and gathers through.
 *
 * Above BIGMEM_MIN bytes an array is an anonymous mapping advised for
 * transparent huge pages (Linux's default THP mode is "madvise": malloc'd
 * memory gets none) and grown with mremap, which moves page tables, never
 * bytes.  Importing 2.5 million samples faults in ~100 MB; with 4 KiB
 * pages that was a fifth of the import's time.
 *
 * Below the threshold, on systems without mremap and under
 * AddressSanitizer (so that it still checks these arrays) it is plain
 * malloc.  The caller passes the current size back on every call: the
 * size, not a header, says which kind of memory a pointer is.  Failure
 * is fatal, as for xalloc.h.
 */
#ifndef HS_BIGMEM_H
#define HS_BIGMEM_H

#include <stddef.h>

#define BIGMEM_MIN ((size_t)1 << 21) /* one huge page */

/* p (of old_size bytes, NULL when 0) resized to new_size; contents up to
 * the smaller size kept, the rest undefined. */
void *big_realloc(void *p, size_t old_size, size_t new_size);
void big_free(void *p, size_t size);

#endif
