/*
 * Time 0 for offsets (query_time_origin in query.h).  Kept out of
 * query.c because the CLI needs it before a query is opened: --from and
 * --to are parsed into the query's options.
 */
#include "query/query.h"

#include <stdlib.h>

#include "store/store.h"
#include "util/xalloc.h"

int query_time_origin(struct store *s, int64_t recording, int64_t *origin,
		      struct err *e)
{
	const struct store_recording *recs;
	struct store_samples sm;
	int64_t *first, best = INT64_MAX, known = INT64_MAX;
	uint32_t n, r;
	uint64_t i;

	if (store_recordings(s, &recs, &n, e) < 0 ||
	    store_samples(s, &sm, e) < 0)
		return -1;
	/* first[r]: recording r's first sample (samples are sorted by
	 * time); INT64_MAX when it has none */
	first = xcalloc(n ? n : 1, sizeof(*first));
	for (r = 0; r < n; r++)
		first[r] = INT64_MAX;
	for (i = 0; i < sm.n; i++)
		if (sm.recording[i] < n && first[sm.recording[i]] == INT64_MAX)
			first[sm.recording[i]] = sm.time_ns[i];
	for (r = 0; r < n; r++) {
		int64_t start = recs[r].start_ns != INT64_MIN ? recs[r].start_ns
							      : first[r];

		if (recording >= 0 && r != recording)
			continue;
		if (recording >= 0 || first[r] != INT64_MAX) {
			if (start < best)
				best = start;
		} else if (start < known) {
			known = start;
		}
	}
	free(first);
	if (best == INT64_MAX)
		best = known;
	*origin = best == INT64_MAX ? 0 : best;
	return 0;
}
