/*
 * The JFR chunk header's signature (docs: ../shared/reference/jfr-format.md,
 * section 3): "FLR\0", then a big-endian u16 major and u16 minor version.
 * JDK 11+ write major 2 (minor 0 or 1); major 1 is JDK 7/8's different
 * format, recognised only to be refused clearly.
 */
#ifndef HS_JFR_MAGIC_H
#define HS_JFR_MAGIC_H

#define JFR_MAGIC	    "FLR\0"
#define JFR_MAGIC_LEN	    4
#define JFR_MAJOR_SUPPORTED 2

#endif
