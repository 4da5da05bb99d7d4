/* Every importer's ops, defined one per file in src/importers/. */
#ifndef HS_IMPORTERS_LIST_H
#define HS_IMPORTERS_LIST_H

#include "importers/importer.h"

extern const struct importer_ops importer_jfr;
extern const struct importer_ops importer_agent;
extern const struct importer_ops importer_codeheap;
extern const struct importer_ops importer_javacore;

#endif
