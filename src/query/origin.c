/*
 * Time 0 for offsets (query_time_origin in query.h).  Kept out of
 * query.c because the CLI needs it before a query is opened: --from and
 * --to are parsed into the query's options.
 *
 * It reads the recordings table only, never a sample: a store of 100 M
 * samples answers at once, and a damaged sample block of a kind nobody
 * asked for cannot stop a view of another kind.  Which recordings hold
 * samples is told by their format: JFR recordings and agent recordings
 * are the sampled ones; code-heap reports and javacores never are.
 */
#include "query/query.h"

#include <string.h>

#include "store/store.h"

static bool sampled_format(const char *format)
{
	return strcmp(format, "jfr") == 0 || strcmp(format, "agent") == 0;
}

int query_time_origin(struct store *s, int64_t recording, int64_t *origin,
		      struct err *e)
{
	const struct store_recording *recs;
	int64_t best = INT64_MAX, known = INT64_MAX;
	uint32_t n, r;

	if (store_recordings(s, &recs, &n, e) < 0)
		return -1;
	for (r = 0; r < n; r++) {
		int64_t start = recs[r].start_ns;

		if (recording >= 0 && r != recording)
			continue;
		if (start == INT64_MIN)
			continue; /* a report that gives no time */
		if (recording >= 0 ||
		    sampled_format(store_str(s, recs[r].format))) {
			if (start < best)
				best = start;
		} else if (start < known) {
			known = start;
		}
	}
	if (best == INT64_MAX)
		best = known;
	*origin = best == INT64_MAX ? 0 : best;
	return 0;
}
