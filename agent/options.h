/*
 * The agent's option string, `file=OUT.hsa,interval=512k,depth=64,...`,
 * as given after `-agentpath:libheapsift-agent.so=`.
 *
 * Parsing is strict: an unknown key, a malformed or out-of-range value,
 * a key given twice or a missing file= is an error with a one-line
 * reason, so that a typo stops the JVM at start instead of silently
 * recording something else.  Values cannot contain commas (the JVM
 * passes the string as one piece and commas separate options).
 * This module does no I/O and knows nothing of JVMTI.
 */
#ifndef HS_AGENT_OPTIONS_H
#define HS_AGENT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OPT_DEFAULT_INTERVAL	(512u * 1024)
#define OPT_MAX_INTERVAL	0x7fffffffu /* SetHeapSamplingInterval takes a jint */
#define OPT_DEFAULT_DEPTH	64u
#define OPT_MAX_DEPTH		2048u
#define OPT_DEFAULT_MAX_TRACKED 1000000u
#define OPT_MAX_MAX_TRACKED	0x7fffffffu
#define OPT_DEFAULT_FLUSH_MS	1000u
#define OPT_MAX_FLUSH_MS	3600000u
#define OPT_DEFAULT_BUFFER	(64ull << 20)
#define OPT_MAX_BUFFER		(1ull << 40)

struct agent_options {
	char *file;	      /* owned; %p replaced by the pid, %% by % */
	char *given;	      /* owned; the option string exactly as given */
	uint64_t interval;    /* bytes between samples, on average */
	uint32_t depth;	      /* frames kept per stack */
	uint32_t max_tracked; /* slots of the weak-reference table */
	uint32_t flush_ms;
	uint64_t buffer; /* bytes of unflushed data before samples drop */
	bool quiet;
};

/*
 * Parse s (NULL means empty) into o, with pid for %p.  0, or -1 with a
 * reason in why (always NUL-terminated, truncated to why_size); o holds
 * nothing to release after a failure.  -2: out of memory.
 */
int options_parse(const char *s, long pid, struct agent_options *o, char *why,
		  size_t why_size);
void options_release(struct agent_options *o);

#endif
