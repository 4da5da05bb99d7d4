/*
 * The agent's messages on stderr, all prefixed "heapsift-agent: " so
 * that they stand out among the application's own output.  Errors are
 * always printed; notes (start and end summaries) only without `quiet`.
 * One fprintf per message: safe from any thread, no allocation beyond
 * stdio's own.
 */
#ifndef HS_AGENT_MSG_H
#define HS_AGENT_MSG_H

#include <stdbool.h>

void msg_set_quiet(bool quiet);
void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
