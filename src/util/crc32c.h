/*
 * CRC32C (Castagnoli), the checksum of the store's sections.
 *
 * Chosen over zlib's CRC32 because it has hardware support: on x86-64
 * with SSE 4.2 (checked at run time) the crc32 instruction is used, and
 * elsewhere a portable slicing-by-8 table.
 * crc32c_update(0, p, n) is the checksum of p; feeding a buffer in pieces,
 * passing the previous result each time, gives the same value.
 */
#ifndef HS_CRC32C_H
#define HS_CRC32C_H

#include <stddef.h>
#include <stdint.h>

uint32_t crc32c_update(uint32_t crc, const void *data, size_t len);
/* The table-driven version, whatever the CPU (for tests). */
uint32_t crc32c_portable(uint32_t crc, const void *data, size_t len);

#endif
