/*
 * Numbers for people: the one byte formatter every front end uses, so
 * that the CLI's tables and the browser's screens agree to the digit
 * (the browser's tests compare them).
 */
#ifndef HS_HUMAN_H
#define HS_HUMAN_H

#include <stddef.h>
#include <stdint.h>

/* "812 B", "5.39 GB": powers of 1000, two decimals; returns out. */
const char *human_bytes(int64_t n, char *out, size_t size);

#endif
