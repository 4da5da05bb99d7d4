/*
 * The first eight bytes of a heapsift agent recording (the format itself
 * is defined in docs/formats/agent-recording.md when the agent lands).
 * PNG-style: a high byte catches 7-bit transfers, CR LF and ^Z catch
 * text-mode mangling, and no text file starts this way.
 */
#ifndef HS_AGENTREC_MAGIC_H
#define HS_AGENTREC_MAGIC_H

#define AGENTREC_MAGIC	   "\x89HSA\r\n\x1a\n"
#define AGENTREC_MAGIC_LEN 8

#endif
