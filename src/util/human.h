/*
 * Numbers for people: the one byte formatter and the one time formatter
 * every front end uses, so that the CLI's tables, the report and the
 * browser's screens agree to the digit (the browser's tests compare
 * them).
 */
#ifndef HS_HUMAN_H
#define HS_HUMAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "812 B", "5.39 GB": powers of 1000, two decimals; returns out. */
const char *human_bytes(int64_t n, char *out, size_t size);

/*
 * An instant in ns since the epoch as ISO 8601 UTC: to the millisecond
 * ("2024-05-01T12:00:00.123Z") when digits is 3, to the nanosecond when
 * it is 9, cut down, not rounded (-0.5 s is 23:59:59.500 the day before),
 * so that a time shown is never later than the instant.
 * INT64_MIN is the stores' "not recorded": written as unset when unset is
 * not NULL (the report says "(not recorded)", the browser "?"), else as
 * the instant it is, as the CLI's dump shows raw values.  out needs
 * HUMAN_TIME_SIZE bytes; returns out.
 */
#define HUMAN_TIME_SIZE 40
const char *human_time(int64_t ns, int digits, const char *unset, char *out,
		       size_t size);

/*
 * Does the JVM version string already begin with the JVM's name?  JDK 21
 * and later record jvmVersion as "OpenJDK 64-Bit Server VM (25.0.3+9-LTS)
 * for linux-amd64 ...", older ones as "(17.0.15+6-...) for ...": a front
 * end prints "NAME VERSION" only when this is false, so the name is never
 * shown twice.
 */
bool human_version_has_name(const char *name, const char *version);

#endif
