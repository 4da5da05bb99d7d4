/*
 * Counts from the environment: the tuning and test knobs (HEAPSIFT_*)
 * that the man page lists.  A knob that is not a plain decimal number in
 * its range is ignored, never an error: the import goes on with its
 * default, as though the variable were not set.
 */
#ifndef HS_ENV_H
#define HS_ENV_H

#include <stddef.h>

/* The number in the environment's name when it is from min to max,
 * else def. */
size_t env_count(const char *name, size_t def, size_t min, size_t max);

#endif
