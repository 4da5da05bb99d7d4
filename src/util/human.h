/*
 * Numbers for people: the one byte formatter every front end uses, so
 * that the CLI's tables and the browser's screens agree to the digit
 * (the browser's tests compare them).
 */
#ifndef HS_HUMAN_H
#define HS_HUMAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "812 B", "5.39 GB": powers of 1000, two decimals; returns out. */
const char *human_bytes(int64_t n, char *out, size_t size);

/*
 * Does the JVM version string already begin with the JVM's name?  JDK 21
 * and later record jvmVersion as "OpenJDK 64-Bit Server VM (25.0.3+9-LTS)
 * for linux-amd64 ...", older ones as "(17.0.15+6-...) for ...": a front
 * end prints "NAME VERSION" only when this is false, so the name is never
 * shown twice.
 */
bool human_version_has_name(const char *name, const char *version);

#endif
