/*
 * What the profile exports (pprof, OTLP profiles) share, so that both
 * write the same sample types, frames and times for the same query:
 *
 * - the sample types a kind has, after Go's heap profiles (samples,
 *   alloc_objects, alloc_space, inuse_objects, inuse_space: names, units
 *   and the value of a query_stack for each);
 * - a string table (index 0 is "", as both formats require);
 * - the frames of the stacks: a location per site (method and line) and
 *   a function per method, numbered from 0 in the order they are met, for
 *   each writer to turn into its own messages (pprof numbers them from 1,
 *   OTLP from 1 after its zero entry);
 * - the time a profile covers.
 *
 * It knows no wire format: it includes no generated code.  Strings given
 * out (profile_strings.v[]) are owned by the table and valid until
 * profile_frames_release() (or profile_strings_release()).
 */
#ifndef HS_EXPORT_PROFILE_COMMON_H
#define HS_EXPORT_PROFILE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "query/query.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/hash.h"

enum profile_value {
	PROFILE_SAMPLES,       /* samples/count: always */
	PROFILE_OBJECTS,       /* alloc_objects/count: kinds with objects */
	PROFILE_SPACE,	       /* alloc_space/bytes: always */
	PROFILE_INUSE_OBJECTS, /* inuse_objects/count: fate and objects */
	PROFILE_INUSE_SPACE,   /* inuse_space/bytes: fate */
	PROFILE_VALUE__N
};

/* Go's name of the sample type ("alloc_space") and its unit ("bytes"). */
const char *profile_value_type(enum profile_value v);
const char *profile_value_unit(enum profile_value v);
/* Does a profile of kind k write v?  fate: query_stacks()' has_fate. */
bool profile_value_on(enum profile_value v, enum sample_kind k, bool fate);
/* v's value for one stack: object counts rounded to an integer. */
int64_t profile_value_of(enum profile_value v, const struct query_stack *st);

/* A string table: the strings in the order they were first added. */
struct profile_strings {
	struct hmap idx;
	struct arena mem;
	char **v;
	size_t n, alloc;
};

void profile_strings_init(struct profile_strings *t);
void profile_strings_release(struct profile_strings *t);
/* s's index (len bytes), added on first use. */
int64_t profile_str(struct profile_strings *t, const char *s, size_t len);
int64_t profile_strz(struct profile_strings *t, const char *s);

/* A location: one frame's method (a function) and line (0: not known). */
struct profile_loc {
	uint32_t fn;
	int64_t line;
};

/* The locations and functions of the stacks met, and the strings they
 * name. */
struct profile_frames {
	struct profile_strings strs;
	struct hmap loc_idx; /* a site label: its location */
	struct hmap fn_idx;  /* a class.method: its function */
	struct profile_loc *locs;
	int64_t *fn_name; /* a function's name: its string */
	size_t n_locs, n_fns, alloc_locs, alloc_fns;
	struct buf method;
};

void profile_frames_init(struct profile_frames *f);
void profile_frames_release(struct profile_frames *f);
/* The location (from 0) of stack node's frame, added with its function
 * on first use; *up is the caller's node (0: none).  Node 0 (samples
 * without a stack) is the "(no stack)" frame. */
uint32_t profile_frames_location(struct profile_frames *f, struct query *q,
				 uint32_t node, uint32_t *up);

/*
 * The time a profile of q covers: where the time its recordings cover
 * starts, and that time (query_covered(): their gaps left out); where
 * that is not known (a damaged store), the first sample's time and up
 * to the last.  false: no sample, no time.
 */
bool profile_time(struct query *q, const struct query_total *total,
		  int64_t *start_ns, int64_t *duration_ns);

#endif
