/* A seeded mutation driver for the fuzz targets, for machines without
 * libFuzzer (its flags, where they mean the same):
 *
 *   fuzz_NAME [-runs=N] [-max_total_time=S] [-seed=N] [-max_len=N]
 *             (max_len: default the longest corpus input, at least 4096)
 *             CORPUS_DIR_OR_FILE...
 *   fuzz_NAME --make-seeds DIR
 *
 * Runs every corpus input once, then mutates them (bit flips, byte sets,
 * interesting values, inserts, deletes, copies, splices of two inputs)
 * until -runs or -max_total_time is reached (default: 10 s). It is not
 * coverage-guided: it finds what random damage to valid inputs finds,
 * which is what a sanitizer build needs to see. The same seed gives the
 * same inputs. A crash (signal or abort) writes the input to
 * crash-NAME-SEED-RUN in the current directory (or $FUZZ_ARTIFACT_DIR)
 * before the process dies; rerun with that file as the only corpus
 * argument and -runs=0 to reproduce. GLib criticals are fatal: one on
 * hostile input is a finding too. */
#include "fuzz.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <gst/gst.h>

static const char *prog = "fuzz";
static guint64 seed = 1, run_no;
static const uint8_t *cur_data;
static size_t cur_size;

/* Async-signal-safe enough: open/write/close and a preformatted name. */
static char crash_path[4096];

static void
on_crash (int sig)
{
  int fd = open (crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

  if (fd >= 0) {
    if (cur_data && write (fd, cur_data, cur_size) < 0) {
      /* nothing more to do in a signal handler */
    }
    close (fd);
  }
  signal (sig, SIG_DFL);
  raise (sig);
}

static void
run_one (const uint8_t * data, size_t size)
{
  const char *dir = g_getenv ("FUZZ_ARTIFACT_DIR");

  g_snprintf (crash_path, sizeof (crash_path), "%s/crash-%s-%" G_GUINT64_FORMAT
      "-%" G_GUINT64_FORMAT, dir ? dir : ".", prog, seed, run_no);
  cur_data = data;
  cur_size = size;
  LLVMFuzzerTestOneInput (data, size);
  cur_data = NULL;
  run_no++;
}

static void
add_file (GPtrArray * corpus, const char *path)
{
  gchar *data;
  gsize len;
  GError *err = NULL;

  if (!g_file_get_contents (path, &data, &len, &err)) {
    g_printerr ("%s: %s\n", prog, err->message);
    exit (2);
  }
  g_ptr_array_add (corpus, g_bytes_new_take (data, len));
}

static void
add_path (GPtrArray * corpus, const char *path)
{
  GDir *d;
  const gchar *name;
  GPtrArray *names;
  guint i;

  if (!g_file_test (path, G_FILE_TEST_IS_DIR)) {
    add_file (corpus, path);
    return;
  }
  d = g_dir_open (path, 0, NULL);
  if (!d) {
    g_printerr ("%s: cannot open %s\n", prog, path);
    exit (2);
  }
  /* Sorted, so a seed means the same inputs on every machine. */
  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (d)))
    g_ptr_array_add (names, g_build_filename (path, name, NULL));
  g_dir_close (d);
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  for (i = 0; i < names->len; i++) {
    const gchar *p = g_ptr_array_index (names, i);
    if (g_file_test (p, G_FILE_TEST_IS_REGULAR))
      add_file (corpus, p);
  }
  g_ptr_array_unref (names);
}

static const uint8_t interesting[] = { 0, 1, 0x7f, 0x80, 0xff, 0xfe, 0x40 };

/* Mutates buf (len bytes, room for max) in place; returns the new length.
 * (Random draws go into variables first: MIN() evaluates its arguments
 * twice.) */
static size_t
mutate (GRand * r, uint8_t * buf, size_t len, size_t max, GPtrArray * corpus)
{
  guint n = g_rand_int_range (r, 1, 5), k;

  for (k = 0; k < n; k++) {
    size_t pos = len ? (size_t) g_rand_int_range (r, 0, len) : 0;

    switch (g_rand_int_range (r, 0, 8)) {
      case 0:                  /* flip a bit */
        if (len)
          buf[pos] ^= 1 << g_rand_int_range (r, 0, 8);
        break;
      case 1:                  /* random byte */
        if (len)
          buf[pos] = g_rand_int_range (r, 0, 256);
        break;
      case 2:                  /* interesting byte, or a 16/32-bit one */
        if (len) {
          size_t want = 1 << g_rand_int_range (r, 0, 3);
          size_t w = MIN (len - pos, want);
          memset (buf + pos, interesting[g_rand_int_range (r, 0,
                      sizeof (interesting))], w);
        }
        break;
      case 3:                  /* insert random bytes */
        if (len < max) {
          size_t want = g_rand_int_range (r, 1, 9), i;
          size_t add = MIN (max - len, want);
          memmove (buf + pos + add, buf + pos, len - pos);
          for (i = 0; i < add; i++)
            buf[pos + i] = g_rand_int_range (r, 0, 256);
          len += add;
        }
        break;
      case 4:                  /* delete bytes */
        if (len) {
          size_t want = g_rand_int_range (r, 1, 9);
          size_t del = MIN (len - pos, want);
          memmove (buf + pos, buf + pos + del, len - pos - del);
          len -= del;
        }
        break;
      case 5:                  /* copy a chunk within */
        if (len > 1) {
          size_t from = g_rand_int_range (r, 0, len);
          size_t want = g_rand_int_range (r, 1, 17);
          size_t w = MIN (len - MAX (from, pos), want);
          memmove (buf + pos, buf + from, w);
        }
        break;
      case 6:                  /* truncate */
        len = pos;
        break;
      case 7:{                 /* splice: the tail of another input */
        GBytes *o = g_ptr_array_index (corpus, g_rand_int_range (r, 0,
                corpus->len));
        gsize olen;
        const uint8_t *od = g_bytes_get_data (o, &olen);
        if (olen) {
          size_t from = g_rand_int_range (r, 0, olen);
          size_t w = MIN (olen - from, max - pos);
          memcpy (buf + pos, od + from, w);
          len = pos + w;
        }
        break;
      }
    }
  }
  return len;
}

int
main (int argc, char **argv)
{
  GPtrArray *corpus = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  gint64 runs = -1, max_len = -1;
  gdouble max_time = 10;
  gint64 start, deadline;
  guint64 initial;
  GRand *r;
  uint8_t *buf;
  int i;

  prog = g_path_get_basename (argv[0]);
  if (argc == 3 && !strcmp (argv[1], "--make-seeds")) {
    g_mkdir_with_parents (argv[2], 0755);
    fuzz_make_seeds (argv[2]);
    return 0;
  }
  for (i = 1; i < argc; i++) {
    if (g_str_has_prefix (argv[i], "-runs="))
      runs = g_ascii_strtoll (argv[i] + 6, NULL, 10);
    else if (g_str_has_prefix (argv[i], "-max_total_time="))
      max_time = g_ascii_strtod (argv[i] + 16, NULL);
    else if (g_str_has_prefix (argv[i], "-seed="))
      seed = g_ascii_strtoull (argv[i] + 6, NULL, 10);
    else if (g_str_has_prefix (argv[i], "-max_len="))
      max_len = MAX (1, g_ascii_strtoll (argv[i] + 9, NULL, 10));
    else if (argv[i][0] == '-') {
      g_printerr ("%s: unknown option %s\n", prog, argv[i]);
      return 2;
    } else
      add_path (corpus, argv[i]);
  }
  if (corpus->len == 0)
    g_ptr_array_add (corpus, g_bytes_new (NULL, 0));
  /* As libFuzzer: by default no shorter than the longest corpus input. */
  if (max_len < 0) {
    max_len = 4096;
    for (i = 0; i < (int) corpus->len; i++)
      max_len = MAX (max_len, (gint64) g_bytes_get_size (g_ptr_array_index
              (corpus, i)));
  }

  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  signal (SIGSEGV, on_crash);
  signal (SIGABRT, on_crash);
  signal (SIGBUS, on_crash);
  signal (SIGFPE, on_crash);
  signal (SIGILL, on_crash);

  start = g_get_monotonic_time ();
  deadline = start + (gint64) (max_time * G_USEC_PER_SEC);
  for (i = 0; i < (int) corpus->len; i++) {
    gsize len;
    const uint8_t *d = g_bytes_get_data (g_ptr_array_index (corpus, i), &len);
    /* Copied, so reading past the end is caught by ASan. */
    uint8_t *copy = g_memdup2 (d, len);
    run_one (copy, MIN (len, (gsize) max_len));
    g_free (copy);
  }
  initial = run_no;

  r = g_rand_new_with_seed ((guint32) (seed ^ (seed >> 32)));
  buf = g_malloc (max_len);
  while ((runs < 0 || (gint64) (run_no - initial) < runs) &&
      (runs >= 0 || g_get_monotonic_time () < deadline)) {
    gsize olen;
    const uint8_t *od = g_bytes_get_data (g_ptr_array_index (corpus,
            g_rand_int_range (r, 0, corpus->len)), &olen);
    size_t len = MIN (olen, (gsize) max_len);
    uint8_t *exact;

    memcpy (buf, od, len);
    len = mutate (r, buf, len, max_len, corpus);
    exact = g_memdup2 (buf, len);
    run_one (exact, len);
    g_free (exact);
  }
  g_print ("%s: %" G_GUINT64_FORMAT " runs (%u corpus inputs, then "
      "%" G_GUINT64_FORMAT " mutations) in %.1f s, seed %" G_GUINT64_FORMAT
      ", no findings\n", prog, run_no, corpus->len, run_no - initial,
      (g_get_monotonic_time () - start) / 1e6, seed);
  g_free (buf);
  g_rand_free (r);
  g_ptr_array_unref (corpus);
  return 0;
}
