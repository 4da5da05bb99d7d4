/*
 * Sorting 64-bit keys in place, ascending: the query layer sorts keys
 * that pack two 32-bit ids (a site and a trie node, a node and an
 * index), where the order of equal keys cannot matter.
 *
 * Many keys go to a radix sort (11 bits a pass, least significant digit
 * first, the digits that every key shares skipped); a few, to a
 * quicksort finished by insertion.  qsort's call through a comparison
 * for every step was a fifth of the browser's inverted-tree count.
 */
#ifndef HS_SORT_U64_H
#define HS_SORT_U64_H

#include <stddef.h>
#include <stdint.h>

void sort_u64(uint64_t *k, size_t n);

#endif
