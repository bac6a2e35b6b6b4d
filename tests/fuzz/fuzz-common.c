/* Shared by the fuzz targets (fuzz.h). */
#include "fuzz.h"
#include <stdio.h>
#include <string.h>
#include <gst/gst.h>

guint8
fuzz_u8 (FuzzIn * in)
{
  guint8 v = 0;

  if (in->n) {
    v = in->p[0];
    in->p++;
    in->n--;
  }
  return v;
}

guint16
fuzz_u16 (FuzzIn * in)
{
  return (guint16) (fuzz_u8 (in) << 8 | fuzz_u8 (in));
}

guint32
fuzz_u32 (FuzzIn * in)
{
  return (guint32) fuzz_u16 (in) << 16 | fuzz_u16 (in);
}

guint64
fuzz_u64 (FuzzIn * in)
{
  return (guint64) fuzz_u32 (in) << 32 | fuzz_u32 (in);
}

size_t
fuzz_bytes (FuzzIn * in, size_t want, const uint8_t ** out)
{
  size_t n = MIN (want, in->n);

  *out = in->p;
  in->p += n;
  in->n -= n;
  return n;
}

void
fuzz_write_seed (const char *dir, const char *name, const void *data,
    size_t size)
{
  gchar *path = g_build_filename (dir, name, NULL);
  GError *err = NULL;

  if (!g_file_set_contents (path, data, size, &err))
    g_error ("%s", err->message);
  g_free (path);
}

void
fuzz_init_gst (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    /* Hostile input makes the parsers warn by design; the log would only
     * slow the runs down. GST_DEBUG still turns it on. */
    if (!g_getenv ("GST_DEBUG"))
      gst_debug_set_default_threshold (GST_LEVEL_NONE);
    gst_init (NULL, NULL);
    g_once_init_leave (&done, 1);
  }
}
