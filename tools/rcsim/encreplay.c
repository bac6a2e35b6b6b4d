/* encreplay: runs one of rcsim's encoder models on the targets of a
 * recording made by encrec, frame by frame, and prints what the model
 * emits in the recording's own format (t_s,target_bps,bytes,key), so the
 * two can be compared (scripts/fit_encoders.py, benchmarks).
 *
 *   encreplay RECORDING.csv [--encoder vp8enc --content scroll]
 *             [--set name=value,...] [--seed N]
 *
 * The model is the table's (encoder, content) one, or `synthetic`; --set
 * changes its parameters (the names of SimEncoderModel in encoder.h), which
 * is how the fitter tries values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "encoder.h"

static gchar *opt_encoder = (gchar *) "vp8enc";
static gchar *opt_content;
static gchar *opt_set;
static gint64 opt_seed = 1;

static GOptionEntry entries[] = {
  {"encoder", 'e', 0, G_OPTION_ARG_STRING, &opt_encoder,
      "Encoder model, or synthetic", "NAME"},
  {"content", 'c', 0, G_OPTION_ARG_STRING, &opt_content,
      "Content (default: the recording's)", "KIND"},
  {"set", 0, 0, G_OPTION_ARG_STRING, &opt_set,
      "Model parameters to change, name=value,...", "LIST"},
  {"seed", 's', 0, G_OPTION_ARG_INT64, &opt_seed, "Seed", "N"},
  {NULL}
};

/* "key=value" from the recording's "# encrec ..." header. */
static gchar *
header_field (const gchar * header, const gchar * key)
{
  gchar **parts = g_strsplit (header, " ", -1), **p, *v = NULL;
  gsize n = strlen (key);

  for (p = parts; *p && !v; p++)
    if (strncmp (*p, key, n) == 0 && (*p)[n] == '=')
      v = g_strdup (*p + n + 1);
  g_strfreev (parts);
  return v;
}

static gboolean
set_param (SimEncoderModel * m, const gchar * name, const gchar * text)
{
  gchar *end;
  gdouble v = g_ascii_strtod (text, &end);

  if (*end || end == text)
    return FALSE;
#define DBL(f) if (g_str_equal (name, #f)) { m->f = v; return TRUE; }
#define INT(f) if (g_str_equal (name, #f)) { m->f = (guint) v; return TRUE; }
  /* a delay longer than the model's delay line would be cut silently */
  if ((g_str_equal (name, "delay") || g_str_equal (name, "delay_down")) &&
      (v < 0 || v > SIM_ENCODER_MAX_DELAY))
    return FALSE;
  INT (key_interval) DBL (key_factor) INT (delay) INT (delay_down)
      DBL (gain_up)
      DBL (gain_down) DBL (sigma) DBL (payback) DBL (drop) DBL (floor_bpp)
      DBL (ceiling_bpp) DBL (key_max_bpp) DBL (key_charge) DBL (key_slow)
      DBL (key_payback)
#undef DBL
#undef INT
      return FALSE;
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new ("RECORDING.csv - an encoder "
      "model on a recording's targets");
  GError *err = NULL;
  gchar *text = NULL, **lines, **l, *w, *h, *fps, *content;
  SimEncoderConfig cfg = { 0 };
  SimEncoderModel model;
  SimEncoder *enc;
  GRand *rand;
  gboolean synthetic;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err) || argc != 2) {
    g_printerr ("encreplay: %s\n", err ? err->message :
        "one recording, please");
    return 2;
  }
  g_option_context_free (ctx);
  if (!g_file_get_contents (argv[1], &text, NULL, &err)) {
    g_printerr ("encreplay: %s\n", err->message);
    return 1;
  }
  lines = g_strsplit (text, "\n", -1);
  if (!lines[0] || !g_str_has_prefix (lines[0], "# encrec ")) {
    g_printerr ("encreplay: %s: not an encrec recording\n", argv[1]);
    return 1;
  }
  w = header_field (lines[0], "width");
  h = header_field (lines[0], "height");
  fps = header_field (lines[0], "fps");
  content = opt_content ? g_strdup (opt_content) :
      header_field (lines[0], "content");
  cfg.width = w ? atoi (w) : 640;
  cfg.height = h ? atoi (h) : 480;
  cfg.fps = fps ? g_ascii_strtod (fps, NULL) : 30;
  synthetic = g_str_equal (opt_encoder, "synthetic");
  if (synthetic) {
    cfg.key_interval = SIM_SYNTHETIC_KEY_INTERVAL;
    cfg.key_factor = SIM_SYNTHETIC_KEY_FACTOR;
    cfg.frame_noise = SIM_SYNTHETIC_FRAME_NOISE;
    cfg.lag = SIM_SYNTHETIC_LAG;
  } else {
    const SimEncoderModel *m = sim_encoder_model_lookup (opt_encoder,
        content);
    if (!m && !opt_set) {
      g_printerr ("encreplay: no model for %s on %s (give every parameter "
          "with --set to try one)\n", opt_encoder, content);
      return 2;
    }
    if (m) {
      model = *m;
    } else {
      memset (&model, 0, sizeof (model));
      model.encoder = opt_encoder;
      model.content = content;
      model.key_interval = 128;
    }
    if (opt_set) {
      gchar **kv = g_strsplit (opt_set, ",", -1), **p;
      for (p = kv; *p; p++) {
        gchar **nv = g_strsplit (*p, "=", 2);
        if (!nv[0] || !nv[1] || !set_param (&model, nv[0], nv[1])) {
          g_printerr ("encreplay: --set: bad '%s'\n", *p);
          return 2;
        }
        g_strfreev (nv);
      }
      g_strfreev (kv);
    }
    cfg.model = &model;
  }
  rand = g_rand_new_with_seed ((guint32) opt_seed);
  enc = NULL;
  printf ("%s\nt_s,target_bps,bytes,key\n", lines[0]);
  for (l = lines + 1; *l; l++) {
    gchar **f;
    gdouble t, target;
    gboolean key;
    guint bytes;

    if (!**l || g_str_has_prefix (*l, "t_s"))
      continue;
    f = g_strsplit (*l, ",", -1);
    if (g_strv_length (f) < 4) {
      g_printerr ("encreplay: %s: bad line '%s'\n", argv[1], *l);
      return 1;
    }
    t = g_ascii_strtod (f[0], NULL);
    target = g_ascii_strtod (f[1], NULL);
    if (!enc)
      enc = sim_encoder_new (&cfg, rand, target);
    bytes = sim_encoder_frame (enc, (GstClockTime) (t * GST_SECOND), target,
        FALSE, &key);
    printf ("%s,%s,%u,%d\n", f[0], f[1], bytes, key ? 1 : 0);
    g_strfreev (f);
  }
  sim_encoder_free (enc);
  g_rand_free (rand);
  g_strfreev (lines);
  g_free (text);
  g_free (w);
  g_free (h);
  g_free (fps);
  g_free (content);
  return 0;
}
