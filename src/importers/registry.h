/*
 * The table of importers and the auction that picks one for a stream.
 * Nothing here reads input: callers peek a prefix and pass it in.
 */
#ifndef HS_REGISTRY_H
#define HS_REGISTRY_H

#include <stddef.h>

#include "importers/importer.h"

/* NULL-terminated, signature probes before text probes. */
extern const struct importer_ops *const importer_table[];

struct probe_result {
	const struct importer_ops *ops; /* NULL: nobody bid */
	enum import_kind kind;		/* KIND_UNKNOWN when ops is NULL */
	int score;			/* 0..100 */
};

struct probe_result importer_probe(const unsigned char *prefix, size_t len,
				   int complete);

#endif
