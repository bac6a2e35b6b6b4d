/* encrec: records how a real video encoder, set up the way urcpsender sets
 * it up (gst/gstrcencoder.c), answers a changing target. The recordings
 * calibrate rcsim's encoder models (tools/rcsim/encoder.c;
 * docs/encoders.md). One line per input frame:
 * its time, the target in force when it went in, its size out (0 when the
 * encoder dropped it) and whether it is a key frame.
 *
 *   encrec --encoder vp8enc --content snow --targets 0:1000000,5:300000 \
 *          --duration 20 [--walk SEED] [--live] [--width W --height H]
 *
 * Content: snow (noise: fills any target), scroll (a scrolling SMPTE
 * pattern: vp8enc fills up to about 3.9 Mbit/s at 640x480), ball (a ball on
 * black: about 100 kbit/s whatever the target) and scenes (the three, cut
 * every `--scene` seconds). Targets: steps "SECONDS:BIT/S,...", and with
 * `--walk SEED` a random walk around them: every 100 ms the target is
 * multiplied by a factor drawn from a lognormal of sigma 0.05, the way a
 * controller nudges its target, kept within [0.25, 4] of the step value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <errno.h>
#include <gst/gst.h>
#include "gstrcencoder.h"

typedef struct
{
  GstClockTime at;
  guint64 bps;
} Step;

static gchar *opt_encoder = (gchar *) "vp8enc";
static gchar *opt_content = (gchar *) "snow";
static gchar *opt_targets = (gchar *) "0:1000000";
static gchar *opt_output;
static gdouble opt_duration = 20;
static gdouble opt_scene = 4;
static gint opt_width = 640, opt_height = 480, opt_fps = 30;
static gint64 opt_walk = -1;
static gboolean opt_live;
static gint opt_retarget_after = 0;

static GOptionEntry entries[] = {
  {"encoder", 'e', 0, G_OPTION_ARG_STRING, &opt_encoder,
      "Encoder factory (any that gst/gstrcencoder.c knows)", "NAME"},
  {"content", 'c', 0, G_OPTION_ARG_STRING, &opt_content,
      "snow, scroll, ball or scenes", "KIND"},
  {"targets", 't', 0, G_OPTION_ARG_STRING, &opt_targets,
      "Target steps, SECONDS:BIT/S,...", "STEPS"},
  {"walk", 'w', 0, G_OPTION_ARG_INT64, &opt_walk,
      "Random walk around the steps with this seed", "SEED"},
  {"duration", 'd', 0, G_OPTION_ARG_DOUBLE, &opt_duration, "Seconds", "S"},
  {"scene", 0, 0, G_OPTION_ARG_DOUBLE, &opt_scene,
      "Scene length for content=scenes, seconds", "S"},
  {"width", 0, 0, G_OPTION_ARG_INT, &opt_width, "Width", "PX"},
  {"height", 0, 0, G_OPTION_ARG_INT, &opt_height, "Height", "PX"},
  {"fps", 0, 0, G_OPTION_ARG_INT, &opt_fps, "Frame rate", "N"},
  {"retarget-after", 0, 0, G_OPTION_ARG_INT, &opt_retarget_after,
        "Set the target in force again before this input frame, as "
        "urcpsender's session does once the first packets pass (0: never). "
        "Any target set after the encoder started changes how vp8enc pays "
        "back its key frames (docs/encoders.md)", "N"},
  {"live", 0, 0, G_OPTION_ARG_NONE, &opt_live,
      "A live source on the wall clock (default: as fast as it goes)", NULL},
  {"output", 'o', 0, G_OPTION_ARG_FILENAME, &opt_output,
      "CSV file (default: standard output)", "FILE"},
  {NULL}
};

typedef struct
{
  GstClockTime t;
  guint64 target;
  guint bytes;
  gboolean key;
} Frame;

typedef struct
{
  GstElement *src, *enc;
  const GstRcEncoderInfo *info;
  GArray *steps;
  GRand *rand;
  gdouble walk;                 /* current random-walk factor */
  GstClockTime next_walk;
  guint64 target;               /* in force */
  gint scene;
  gboolean retargeted;
  FILE *out;
  GArray *frames;               /* Frame, one per input frame */
  guint next_out;               /* first frame not yet matched to output */
  guint64 frames_out, keys, bytes;
  guint64 unmatched;            /* output frames with no input of their time */
  GstSegment out_seg;           /* the encoder's output segment */
} Rec;

static const gchar *scene_patterns[] = { "snow", "smpte", "ball" };

static void
set_content (Rec * r, const gchar * kind)
{
  if (g_str_equal (kind, "scroll") || g_str_equal (kind, "smpte")) {
    gst_util_set_object_arg (G_OBJECT (r->src), "pattern", "smpte");
    g_object_set (r->src, "horizontal-speed", 4, NULL);
  } else {
    gst_util_set_object_arg (G_OBJECT (r->src), "pattern", kind);
    g_object_set (r->src, "horizontal-speed", 0, NULL);
  }
}

static guint64
step_at (Rec * r, GstClockTime t)
{
  guint64 v = g_array_index (r->steps, Step, 0).bps;
  guint i;

  for (i = 0; i < r->steps->len; i++) {
    Step *s = &g_array_index (r->steps, Step, i);
    if (s->at > t)
      break;
    v = s->bps;
  }
  return v;
}

/* Before each raw frame: the target (and scene) in force at its time. */
static GstPadProbeReturn
on_raw (GstPad * pad, GstPadProbeInfo * pi, gpointer data)
{
  Rec *r = data;
  GstClockTime t = GST_BUFFER_PTS (GST_PAD_PROBE_INFO_BUFFER (pi));
  guint64 bps;

  if (!GST_CLOCK_TIME_IS_VALID (t))
    return GST_PAD_PROBE_OK;
  if (r->rand && t >= r->next_walk) {
    r->walk *= exp (0.05 * sqrt (-2 * log (1 - g_rand_double (r->rand))) *
        cos (2 * G_PI * g_rand_double (r->rand)));
    r->walk = CLAMP (r->walk, 0.25, 4.0);
    r->next_walk = t + 100 * GST_MSECOND;
  }
  bps = (guint64) (step_at (r, t) * r->walk);
  if (opt_retarget_after > 0 && !r->retargeted &&
      r->frames->len >= (guint) opt_retarget_after) {
    r->retargeted = TRUE;
    r->target = 0;              /* set it again, even if unchanged */
  }
  if (bps != r->target) {
    r->target = bps;
    gst_rc_encoder_set_bitrate (r->enc, r->info, bps);
  }
  {
    Frame fr = { t, r->target, 0, FALSE };
    g_array_append_val (r->frames, fr);
  }
  if (g_str_equal (opt_content, "scenes")) {
    gint scene = (gint) (t / (GstClockTime) (opt_scene * GST_SECOND)) % 3;
    if (scene != r->scene) {
      r->scene = scene;
      set_content (r, scene_patterns[scene]);
    }
  }
  return GST_PAD_PROBE_OK;
}

/* The encoder's output segment: x264enc shifts its output by 1000 hours
 * (so that DTS before PTS stays positive), so output times are compared
 * as running time. */
static GstPadProbeReturn
on_encoded_event (GstPad * pad, GstPadProbeInfo * pi, gpointer data)
{
  Rec *r = data;
  GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (pi);

  if (GST_EVENT_TYPE (ev) == GST_EVENT_SEGMENT)
    gst_event_copy_segment (ev, &r->out_seg);
  return GST_PAD_PROBE_OK;
}

/* After the encoder: the output frame goes with the input frame of its
 * time (the input's segment starts at 0, so its PTS is its running time);
 * input frames it passes over were dropped. */
static GstPadProbeReturn
on_encoded (GstPad * pad, GstPadProbeInfo * pi, gpointer data)
{
  Rec *r = data;
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (pi);
  GstClockTime t = gst_segment_to_running_time (&r->out_seg, GST_FORMAT_TIME,
      GST_BUFFER_PTS (b));
  guint i;

  if (!GST_CLOCK_TIME_IS_VALID (t))
    return GST_PAD_PROBE_OK;
  for (i = r->next_out; i < r->frames->len; i++) {
    Frame *fr = &g_array_index (r->frames, Frame, i);
    if (fr->t == t) {
      fr->bytes = gst_buffer_get_size (b);
      fr->key = !GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_DELTA_UNIT);
      r->next_out = i + 1;
      r->frames_out++;
      r->keys += fr->key;
      r->bytes += fr->bytes;
      return GST_PAD_PROBE_OK;
    }
  }
  r->unmatched++;
  return GST_PAD_PROBE_OK;
}

static gboolean
parse_steps (const gchar * text, GArray * out)
{
  gchar **parts = g_strsplit (text, ",", -1), **p;
  gboolean ok = TRUE;

  for (p = parts; *p && ok; p++) {
    gchar *colon = strchr (*p, ':'), *end;
    Step s;
    gdouble a;

    if (!colon) {
      ok = FALSE;
      break;
    }
    a = g_ascii_strtod (*p, &end);
    s.at = (GstClockTime) (a * GST_SECOND);
    s.bps = g_ascii_strtoull (colon + 1, NULL, 10);
    ok = end == colon && a >= 0 && s.bps > 0 && (out->len == 0 ||
        s.at > g_array_index (out, Step, out->len - 1).at);
    if (ok)
      g_array_append_val (out, s);
  }
  g_strfreev (parts);
  return ok && out->len > 0;
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new ("- record an encoder's answer "
      "to its target");
  GError *err = NULL;
  GstElement *pipe;
  GstPad *pad;
  GstBus *bus;
  GstMessage *msg;
  gchar *desc;
  Rec r = { 0 };
  gint ret = 0;

  gst_init (&argc, &argv);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("encrec: %s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  r.steps = g_array_new (FALSE, FALSE, sizeof (Step));
  if (!parse_steps (opt_targets, r.steps)) {
    g_printerr ("encrec: --targets: SECONDS:BIT/S[,SECONDS:BIT/S...], "
        "times increasing\n");
    return 2;
  }
  if (!g_strv_contains ((const gchar *[]) {
          "snow", "scroll", "ball", "scenes", NULL}, opt_content)) {
    g_printerr ("encrec: --content: snow, scroll, ball or scenes\n");
    return 2;
  }
  r.info = gst_rc_encoder_info_lookup (opt_encoder);
  if (!r.info) {
    g_printerr ("encrec: %s: not an encoder gst/gstrcencoder.c knows\n",
        opt_encoder);
    return 2;
  }
  desc = g_strdup_printf ("videotestsrc name=src is-live=%s num-buffers=%d ! "
      "video/x-raw,format=I420,width=%d,height=%d,framerate=%d/1 ! "
      "%s name=enc %s ! fakesink sync=false", opt_live ? "true" : "false",
      (gint) (opt_duration * opt_fps), opt_width, opt_height, opt_fps,
      opt_encoder, g_str_equal (opt_encoder, "x264enc") ?
      /* what anyone sending live H.264 sets: no look-ahead or B-frames */
      "tune=zerolatency" : "");
  pipe = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipe) {
    g_printerr ("encrec: %s\n", err->message);
    return 1;
  }
  r.src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  r.enc = gst_bin_get_by_name (GST_BIN (pipe), "enc");
  r.walk = 1.0;
  r.rand = opt_walk >= 0 ? g_rand_new_with_seed ((guint32) opt_walk) : NULL;
  r.frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  r.scene = -1;
  set_content (&r, g_str_equal (opt_content, "scenes") ? "snow" : opt_content);
  /* Exactly as urcpsender sets it up, then the first target. */
  gst_rc_encoder_configure (r.enc, r.info);
  r.target = step_at (&r, 0);
  gst_rc_encoder_set_bitrate (r.enc, r.info, r.target);

  r.out = opt_output ? fopen (opt_output, "w") : stdout;
  if (!r.out) {
    g_printerr ("encrec: %s: %s\n", opt_output, g_strerror (errno));
    return 1;
  }
  fprintf (r.out, "# encrec encoder=%s content=%s width=%d height=%d "
      "fps=%d live=%d targets=%s walk=%" G_GINT64_FORMAT " scene=%g "
      "retarget-after=%d\n",
      opt_encoder, opt_content, opt_width, opt_height, opt_fps, opt_live,
      opt_targets, opt_walk, opt_scene, MAX (opt_retarget_after, 0));

  pad = gst_element_get_static_pad (r.enc, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_raw, &r, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (r.enc, "src");
  gst_segment_init (&r.out_seg, GST_FORMAT_TIME);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_encoded_event,
      &r, NULL);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_encoded, &r, NULL);
  gst_object_unref (pad);

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  bus = gst_element_get_bus (pipe);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    g_printerr ("encrec: %s\n", err->message);
    ret = 1;
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  fprintf (r.out, "t_s,target_bps,bytes,key\n");
  for (guint i = 0; i < r.frames->len; i++) {
    Frame *fr = &g_array_index (r.frames, Frame, i);
    fprintf (r.out, "%.4f,%" G_GUINT64_FORMAT ",%u,%d\n",
        (gdouble) fr->t / GST_SECOND, fr->target, fr->bytes, fr->key ? 1 : 0);
  }
  g_printerr ("encrec: %s on %s: %u frames in, %" G_GUINT64_FORMAT
      " out, %" G_GUINT64_FORMAT " key, %.0f kbit/s\n",
      opt_encoder, opt_content, r.frames->len, r.frames_out, r.keys,
      r.bytes * 8.0 / opt_duration / 1000);
  /* A recording whose output could not be matched to its input would
   * calibrate a model on frames that look dropped. */
  if (ret == 0 && (r.unmatched > 0 || r.frames_out == 0)) {
    g_printerr ("encrec: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
        " output frames matched no input frame's time: not a usable "
        "recording\n", r.unmatched, r.unmatched + r.frames_out);
    ret = 1;
  }
  if (opt_output)
    fclose (r.out);
  gst_object_unref (r.src);
  gst_object_unref (r.enc);
  gst_object_unref (pipe);
  g_array_unref (r.steps);
  g_array_unref (r.frames);
  if (r.rand)
    g_rand_free (r.rand);
  return ret;
}
