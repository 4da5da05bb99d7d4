/*
 * libFuzzer harness for the input walker: any bytes, walked as if they
 * were a file given on the command line, with every member probed and
 * read to the end, as `heapsift scan` does.  Limits are tightened so that
 * a run stays fast; what is checked is that nothing crashes, leaks or
 * trips the sanitizers, whatever libarchive is handed.
 */
#include <stddef.h>
#include <stdint.h>

#include "importers/registry.h"
#include "input/input.h"
#include "input/walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int member(void *ctx, const struct member *m)
{
	const unsigned char *p;
	size_t avail;
	uint64_t skipped;

	(void)ctx;
	input_peek(m->in, PROBE_PREFIX, &p, &avail);
	importer_probe(p, avail, m->in->eof);
	input_skip(m->in, UINT64_MAX, &skipped);
	return 0;
}

static void problem(void *ctx, enum problem_severity sev, const struct err *e)
{
	(void)ctx;
	(void)sev;
	(void)e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct walk_ops ops = {member, problem};
	struct input_limits lim;
	struct walk_stats st = {0, 0, 0, 0};

	input_limits_default(&lim);
	lim.max_member_bytes = 4 << 20;
	lim.max_input_bytes = 16 << 20;
	lim.ratio_grace = 1 << 20;
	lim.max_members = 1000;
	walk_memory("fuzz", data, size, &lim, &ops, NULL, &st);
	return 0;
}
