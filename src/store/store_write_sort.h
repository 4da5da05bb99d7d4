/*
 * Sorting samples by time for the store writer: the permutation that
 * puts a time column in order, ties kept in import order (stable), in
 * linear time and with little fresh memory.  Its own module so that the
 * unit tests can check it against a comparison sort.
 */
#ifndef HS_TIME_SORT_H
#define HS_TIME_SORT_H

#include <stddef.h>
#include <stdint.h>

/* order[0..n) = the indices of time[0..n) in ascending time order, equal
 * times in index order.  n <= UINT32_MAX. */
void time_sort(const int64_t *time, uint32_t *order, size_t n);

#endif
