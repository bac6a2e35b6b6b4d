/* Fuzz targets: one LLVMFuzzerTestOneInput() per file, built either with
 * libFuzzer (meson -Dfuzzing=enabled, clang) or with driver.c, a seeded
 * mutation driver that needs nothing but the C compiler (the test suite
 * `fuzz` runs that one). docs/fuzzing.md says how to run them longer. */
#ifndef __FUZZ_H__
#define __FUZZ_H__

#include <stddef.h>
#include <stdint.h>
#include <glib.h>

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

/* Writes the target's seed inputs into `dir` (driver.c's --make-seeds):
 * well-formed inputs made with our own writers and encoders, so a mutation
 * starts from something the parser accepts. */
void fuzz_make_seeds (const char *dir);
void fuzz_write_seed (const char *dir, const char *name, const void *data,
    size_t size);

/* Reads the input front to back; past its end every read gives 0. */
typedef struct
{
  const uint8_t *p;
  size_t n;
} FuzzIn;

guint8 fuzz_u8 (FuzzIn * in);
guint16 fuzz_u16 (FuzzIn * in);
guint32 fuzz_u32 (FuzzIn * in);
guint64 fuzz_u64 (FuzzIn * in);
/* Up to `want` bytes (fewer at the end); returns how many. */
size_t fuzz_bytes (FuzzIn * in, size_t want, const uint8_t ** out);

/* Once per process: GStreamer initialised, logging quiet unless GST_DEBUG
 * asks for it. */
void fuzz_init_gst (void);

#endif
