/*
 * Names that change from one run of a program to the next without the
 * program having changed, rewritten to a form that stays (the rules and
 * their reasons: normalize.c).  The query engine applies them to class
 * names (in frames and in top's keys) and to thread names when a query
 * asks for it (query_options.normalize); nothing here reads a store.
 *
 * Each function appends the normalised form of s to out (a buf the
 * caller owns) and returns whether it differs from s.  A name no rule
 * matches is appended as it is.
 */
#ifndef HS_QUERY_NORMALIZE_H
#define HS_QUERY_NORMALIZE_H

#include <stdbool.h>

struct buf;

/* A class name in its display form (java.lang.String, Foo$$Lambda$14/
 * 0x0000000800c03000, int[]). */
bool normalize_class(const char *s, struct buf *out);

/* A frame or a site as query.h labels it, class.method[:line]: its
 * class part by normalize_class(); "(no stack)" and other text without
 * a '.' as it is. */
bool normalize_frame(const char *s, struct buf *out);

/* A thread name (pool-3-thread-17). */
bool normalize_thread(const char *s, struct buf *out);

#endif
