/* Scenario files (GKeyFile): see docs/scenarios.md for every key.
 *
 * Unknown groups and keys are errors, so a typo never silently leaves a
 * default in place. The [link] and [reverse] keys are linksim's property
 * names, so the same file can configure a real linksim. */
#include <stdio.h>
#include <string.h>
#include <math.h>
#include "scenario.h"
#include "rc-link-keys.h"

#define DEFAULT_DURATION (60 * GST_SECOND)
/* 30 frames per second, as seed 000 sec. VII-A's conferencing sequence
 * (CIF at 30 fps). */
#define DEFAULT_FPS 30.0
/* The source: vp8enc's calibrated model (encoder.h) on a scrolling test
 * pattern at 640x480, the set-up of the kernel bench and of the real-link
 * measurements (shared/findings). */
#define DEFAULT_ENCODER "vp8enc"
#define DEFAULT_CONTENT "scroll"
#define DEFAULT_WIDTH 640
#define DEFAULT_HEIGHT 480
/* RTP payload per packet (the issue's ~1200 bytes; a common WebRTC choice
 * that leaves room for SRTP and TURN overhead in a 1500-byte MTU). */
#define DEFAULT_MTU_PAYLOAD 1200
/* Per-packet feedback every 50 ms (the default; transport-wide
 * feedback is usually sent every 50-100 ms). */
#define DEFAULT_FEEDBACK_INTERVAL (50 * GST_MSECOND)
/* RTCP reports every 5 s: RFC 3550 sec. 6.2's minimum interval, which a
 * stock rtpbin keeps at video bitrates (its RRs came every 4-6 s on
 * GStreamer 1.22, docs/urcpsender.md). */
#define DEFAULT_RTCP_INTERVAL (5 * GST_SECOND)
#define DEFAULT_CBR_PACKET 1200
/* Short TCP flows (RFC 8867 sec. 5.7, model of RFC 8868): 30-50 KB
 * transfers with exponential idle times of mean 10 s, as the RFC authors'
 * ns3-rmcat implements it. */
#define DEFAULT_THINK_MEAN (10 * GST_SECOND)

static const gchar *scenario_keys[] = {
  "name", "description", "duration", "seed", NULL
};

static const gchar *flow_keys[] = {
  "kind", "count", "direction", "start", "stop", "delay-ms",
  "return-delay-ms",
  /* media */
  "controller", "min-bitrate", "start-bitrate", "max-bitrate", "fps",
  "encoder", "content", "resolution",
  "key-interval", "key-factor", "frame-noise", "encoder-lag-ms", "mtu",
  "app-limit", "feedback", "feedback-interval-ms", "feedback-messages",
  "rtcp-interval-ms",
  "receiver-reports", "adapt-rtcp-interval", "playout-latency-ms",
  "pacer-max-queue-ms", "pacing", "pacing-factor", "feedback-gather-ms",
  "clock-offset-ms", "clock-skew-ppm", "pause", "fec", "temporal-layers",
  /* and every controller's parameters, "<controller>-<parameter>" */
  /* tcp */
  "cc", "size-min", "size-max", "think-mean", "initially-on",
  /* cbr */
  "rate", "packet-size", NULL
};

const gchar *
sim_flow_kind_to_string (SimFlowKind k)
{
  switch (k) {
    case SIM_FLOW_MEDIA:
      return "media";
    case SIM_FLOW_TCP:
      return "tcp";
    case SIM_FLOW_CBR:
      return "cbr";
  }
  return "unknown";
}

gboolean
sim_flow_paused (const SimFlowConfig * c, GstClockTime t)
{
  guint i;

  for (i = 0; c->pauses && i < c->pauses->len; i++) {
    SimPeriod *p = &g_array_index (c->pauses, SimPeriod, i);
    if (t >= p->from && t < p->to)
      return TRUE;
  }
  return FALSE;
}

static gboolean
check_keys (GKeyFile * kf, const gchar * group, const gchar ** allowed,
    GError ** error)
{
  gchar **keys = g_key_file_get_keys (kf, group, NULL, NULL);
  gchar **k;

  for (k = keys; k && *k; k++) {
    if (!g_strv_contains (allowed, *k) && !(allowed == flow_keys &&
            rc_controller_find_key (*k, NULL))) {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
          "[%s]: unknown key '%s' (see docs/scenarios.md)", group, *k);
      g_strfreev (keys);
      return FALSE;
    }
  }
  g_strfreev (keys);
  return TRUE;
}

/* Numeric key or default; a present but malformed value is an error. */
static gboolean
get_double (GKeyFile * kf, const gchar * g, const gchar * k, gdouble def,
    gdouble * out, GError ** error)
{
  GError *err = NULL;
  gdouble v;

  if (!g_key_file_has_key (kf, g, k, NULL)) {
    *out = def;
    return TRUE;
  }
  v = g_key_file_get_double (kf, g, k, &err);
  if (err) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] %s: %s", g, k, err->message);
    g_error_free (err);
    return FALSE;
  }
  if (!isfinite (v)) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] %s: not a finite number", g, k);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

/* A key with two values: *out TRUE for `yes` (and when absent), FALSE for
 * `no`; anything else is an error that says `what`. */
static gboolean
get_choice (GKeyFile * kf, const gchar * g, const gchar * key,
    const gchar * yes, const gchar * no, const gchar * what, gboolean * out,
    GError ** error)
{
  gchar *s = g_key_file_get_string (kf, g, key, NULL);
  gboolean ok = TRUE;

  *out = !s || !g_ascii_strcasecmp (g_strstrip (s), yes);
  if (s && !*out && g_ascii_strcasecmp (s, no)) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] %s: %s", g, key, what);
    ok = FALSE;
  }
  g_free (s);
  return ok;
}

/* true, false or auto (-1; also when absent). */
static gboolean
get_auto_bool (GKeyFile * kf, const gchar * g, const gchar * k, gint * out,
    GError ** error)
{
  gchar *s = g_key_file_get_string (kf, g, k, NULL);
  gboolean ok = TRUE;

  *out = -1;
  if (s) {
    g_strstrip (s);
    if (!g_ascii_strcasecmp (s, "true"))
      *out = 1;
    else if (!g_ascii_strcasecmp (s, "false"))
      *out = 0;
    else if (g_ascii_strcasecmp (s, "auto")) {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
          "[%s] %s: true, false or auto", g, k);
      ok = FALSE;
    }
  }
  g_free (s);
  return ok;
}

static gboolean
get_nonneg (GKeyFile * kf, const gchar * g, const gchar * k, gdouble def,
    gdouble * out, GError ** error)
{
  if (!get_double (kf, g, k, def, out, error))
    return FALSE;
  if (*out < 0) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] %s: must not be negative", g, k);
    return FALSE;
  }
  return TRUE;
}

static GstClockTime
ms (gdouble v)
{
  return (GstClockTime) llround (v * GST_MSECOND);
}

static GstClockTime
secs (gdouble v)
{
  return (GstClockTime) llround (v * GST_SECOND);
}

/* [link] and [reverse]: the keys are the rows of the link key table
 * (rc-link-keys.h), linksim's property names with its units, ranges and
 * defaults, read through the table as a linksim property would be. */
static gboolean
parse_link (GKeyFile * kf, const gchar * g, const gchar * dir,
    RcLinkConfig * cfg, GError ** error)
{
  const gchar *names[RC_LINK_N_KEYS + 1] = { NULL };
  guint i;

  rc_link_config_init (cfg);
  for (i = 0; i < RC_LINK_N_KEYS; i++)
    names[i] = rc_link_keys[i].name;
  if (!check_keys (kf, g, names, error))
    return FALSE;

  for (i = 0; i < RC_LINK_N_KEYS; i++) {
    const RcLinkKey *k = &rc_link_keys[i];
    gchar *s = g_key_file_get_string (kf, g, k->name, NULL);
    gboolean ok;

    if (!s)
      continue;
    g_strstrip (s);
    /* A trace file is found next to the scenario file. */
    if (i == RC_LINK_KEY_TRACE_FILE && !g_path_is_absolute (s)) {
      gchar *path = g_build_filename (dir, s, NULL);
      g_free (s);
      s = path;
    }
    /* `seed` is linksim's; rcsim derives every seed from the run's seed. */
    ok = rc_link_key_parse (k, s, cfg, error);
    g_free (s);
    if (!ok) {
      g_prefix_error (error, "[%s] %s: ", g, k->name);
      return FALSE;
    }
  }
  /* A loss rate alone means Bernoulli. */
  if (!g_key_file_has_key (kf, g, "loss-model", NULL) && cfg->loss.rate > 0)
    cfg->loss.kind = RC_LOSS_BERNOULLI;
  if (!rc_link_config_validate (cfg, error)) {
    g_prefix_error (error, "[%s]: ", g);
    return FALSE;
  }
  return TRUE;
}

/* "A:B[,A:B...]" into pairs of numbers; FALSE if an item is not two
 * finite numbers around a colon. */
static gboolean
parse_pairs (const gchar * text, GArray * out /* gdouble[2] */ )
{
  gchar **parts = g_strsplit_set (text, ",;", -1);
  gchar **p;
  gboolean ok = TRUE;

  for (p = parts; *p && ok; p++) {
    gchar *item = g_strstrip (*p);
    gchar *colon = strchr (item, ':'), *end1, *end2;
    gdouble pair[2];

    if (!*item)
      continue;
    if (!colon) {
      ok = FALSE;
      break;
    }
    pair[0] = g_ascii_strtod (item, &end1);
    pair[1] = g_ascii_strtod (colon + 1, &end2);
    ok = end1 == colon && !*end2 && isfinite (pair[0]) && isfinite (pair[1]);
    if (ok)
      g_array_append_vals (out, pair, 2);
  }
  g_strfreev (parts);
  return ok;
}

/* "40:60" or "40:60,80:85" (seconds). */
static gboolean
parse_pauses (const gchar * g, const gchar * text, GArray * out,
    GError ** error)
{
  GArray *v = g_array_new (FALSE, FALSE, sizeof (gdouble));
  gboolean ok = parse_pairs (text, v);
  guint i;

  for (i = 0; ok && i < v->len; i += 2) {
    gdouble a = g_array_index (v, gdouble, i), b = g_array_index (v,
        gdouble, i + 1);
    SimPeriod per = { secs (a), secs (b) };

    ok = a >= 0 && b > a && (out->len == 0 ||
        per.from >= g_array_index (out, SimPeriod, out->len - 1).to);
    if (ok)
      g_array_append_val (out, per);
  }
  g_array_unref (v);
  if (!ok)
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] pause: expected FROM:TO[,FROM:TO...] in seconds, increasing",
        g);
  return ok;
}

/* "0:300000,20:0" (seconds: value), times increasing. */
static gboolean
parse_steps (const gchar * g, const gchar * key, const gchar * text,
    GArray * out, GError ** error)
{
  GArray *v = g_array_new (FALSE, FALSE, sizeof (gdouble));
  gboolean ok = parse_pairs (text, v);
  guint i;

  for (i = 0; ok && i < v->len; i += 2) {
    gdouble a = g_array_index (v, gdouble, i), b = g_array_index (v,
        gdouble, i + 1);
    SimStep st = { secs (a), (guint64) llround (b) };

    ok = a >= 0 && b >= 0 && b <= (gdouble) G_MAXUINT64 / 2 &&
        (out->len == 0 || st.at > g_array_index (out, SimStep,
                out->len - 1).at);
    if (ok)
      g_array_append_val (out, st);
  }
  g_array_unref (v);
  if (!ok)
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] %s: expected TIME:VALUE[,TIME:VALUE...], times in seconds, "
        "increasing", g, key);
  return ok;
}

static void
flow_config_free (gpointer p)
{
  SimFlowConfig *f = p;

  g_free (f->name);
  if (f->pauses)
    g_array_unref (f->pauses);
  if (f->app_limit)
    g_array_unref (f->app_limit);
  rc_sender_config_clear (&f->sender);
  g_free (f);
}

/* The media source: an encoder model, its content and picture size; the
 * synthetic model's own keys only with encoder=synthetic. */
static gboolean
parse_source (GKeyFile * kf, const gchar * g, SimFlowConfig * f,
    GError ** error)
{
  static const gchar *synthetic_keys[] = { "key-interval", "key-factor",
    "frame-noise", "encoder-lag-ms", NULL
  };
  SimEncoderConfig *e = &f->encoder;
  gchar *enc = g_key_file_get_string (kf, g, "encoder", NULL);
  gchar *content = g_key_file_get_string (kf, g, "content", NULL);
  gchar *res = g_key_file_get_string (kf, g, "resolution", NULL);
  gboolean ok = TRUE;
  gdouble v = 0;
  gint end = 0;
  const gchar **k;

  memset (e, 0, sizeof (*e));
  if (res)
    g_strstrip (res);
  e->fps = f->fps;
  e->width = DEFAULT_WIDTH;
  e->height = DEFAULT_HEIGHT;
  if (res && (sscanf (res, "%ux%u%n", &e->width, &e->height, &end) != 2 ||
          res[end] != '\0' || e->width < 16 || e->height < 16 || e->width > 7680 ||
          e->height > 4320)) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] resolution: WIDTHxHEIGHT, 16x16..7680x4320", g);
    ok = FALSE;
  } else if (enc && g_str_equal (g_strstrip (enc), "synthetic")) {
    if (content) {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
          "[%s] content: only with a calibrated encoder model", g);
      ok = FALSE;
    }
    ok = ok && get_nonneg (kf, g, "key-interval",
        (gdouble) SIM_SYNTHETIC_KEY_INTERVAL / GST_SECOND, &v, error);
    e->key_interval = secs (v);
    ok = ok && get_nonneg (kf, g, "key-factor", SIM_SYNTHETIC_KEY_FACTOR,
        &e->key_factor, error);
    ok = ok && get_nonneg (kf, g, "frame-noise", SIM_SYNTHETIC_FRAME_NOISE,
        &e->frame_noise, error);
    ok = ok && get_nonneg (kf, g, "encoder-lag-ms",
        (gdouble) SIM_SYNTHETIC_LAG / GST_MSECOND, &v, error);
    e->lag = ms (v);
  } else {
    const gchar *name = enc ? g_strstrip (enc) : DEFAULT_ENCODER;
    const gchar *what = content ? g_strstrip (content) : DEFAULT_CONTENT;

    e->model = sim_encoder_model_lookup (name, what);
    if (!e->model) {
      GString *have = g_string_new (NULL);
      guint i, n;
      const SimEncoderModel *m = sim_encoder_models (&n);
      for (i = 0; i < n; i++)
        g_string_append_printf (have, "%s%s/%s", i ? ", " : "",
            m[i].encoder, m[i].content);
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
          "[%s] encoder: no calibrated model of %s on %s (there are: %s; "
          "or encoder=synthetic)", g, name, what, have->str);
      g_string_free (have, TRUE);
      ok = FALSE;
    }
    for (k = synthetic_keys; ok && *k; k++)
      if (g_key_file_has_key (kf, g, *k, NULL)) {
        g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
            "[%s] %s: only with encoder=synthetic", g, *k);
        ok = FALSE;
      }
  }
  g_free (enc);
  g_free (content);
  g_free (res);
  return ok;
}

static gboolean
parse_flow (SimScenario * sc, GKeyFile * kf, const gchar * g,
    GstClockTime default_delay, GError ** error)
{
  SimFlowConfig base = { 0 };
  gchar *s;
  gdouble v;
  gint64 count = 1, on = -1, i;

  if (!check_keys (kf, g, flow_keys, error))
    return FALSE;

  s = g_key_file_get_string (kf, g, "kind", NULL);
  if (!s || !g_ascii_strcasecmp (s, "media"))
    base.kind = SIM_FLOW_MEDIA;
  else if (!g_ascii_strcasecmp (s, "tcp"))
    base.kind = SIM_FLOW_TCP;
  else if (!g_ascii_strcasecmp (s, "cbr"))
    base.kind = SIM_FLOW_CBR;
  else {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] kind: unknown '%s' (media, tcp, cbr)", g, s);
    g_free (s);
    return FALSE;
  }
  g_free (s);

  if (!get_double (kf, g, "count", 1, &v, error))
    return FALSE;
  /* Range first: casting a double beyond gint64 is undefined (found by
   * the scenario fuzz target). */
  if (!(v >= 1 && v <= RC_LINK_MAX_FLOWS) || v != floor (v)) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] count: must be an integer in 1..%d", g, RC_LINK_MAX_FLOWS);
    return FALSE;
  }
  count = (gint64) v;

  s = g_key_file_get_string (kf, g, "direction", NULL);
  if (s && !g_ascii_strcasecmp (s, "reverse"))
    base.reverse = TRUE;
  else if (s && g_ascii_strcasecmp (s, "forward")) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] direction: forward or reverse", g);
    g_free (s);
    return FALSE;
  }
  g_free (s);

  if (!get_nonneg (kf, g, "start", 0, &v, error))
    return FALSE;
  base.start = secs (v);
  if (!get_nonneg (kf, g, "stop", (gdouble) sc->duration / GST_SECOND, &v,
          error))
    return FALSE;
  base.stop = secs (v);
  if (base.stop <= base.start) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s]: stop must be after start", g);
    return FALSE;
  }
  if (!get_nonneg (kf, g, "delay-ms", (gdouble) default_delay / GST_MSECOND,
          &v, error))
    return FALSE;
  base.delay = ms (v);
  if (!get_nonneg (kf, g, "return-delay-ms", v, &v, error))
    return FALSE;
  base.return_delay = ms (v);

  /* media: the sender session as urcpsender configures it */
  rc_sender_config_init (&base.sender);
  base.sender.params = gst_structure_new_empty ("controller-parameters");
  base.pauses = g_array_new (FALSE, FALSE, sizeof (SimPeriod));
  base.app_limit = g_array_new (FALSE, FALSE, sizeof (SimStep));
  s = g_key_file_get_string (kf, g, "controller", NULL);
  if (s && !(base.sender.controller = rc_controller_lookup (g_strstrip (s)))) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] controller: unknown '%s'", g, s);
    g_free (s);
    goto fail;
  }
  g_free (s);
  {
    gchar **keys = g_key_file_get_keys (kf, g, NULL, NULL), **k;
    gboolean ok = TRUE;

    for (k = keys; ok && k && *k; k++) {
      GError *err = NULL;
      gchar *text;
      if (!rc_controller_find_key (*k, NULL))
        continue;
      text = g_key_file_get_string (kf, g, *k, NULL);
      ok = rc_controller_params_set_key_string (base.sender.params, *k,
          g_strstrip (text), &err);
      if (!ok) {
        g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
            "[%s] %s", g, err->message);
        g_error_free (err);
      }
      g_free (text);
    }
    g_strfreev (keys);
    if (!ok)
      goto fail;
  }
  if (!get_nonneg (kf, g, "min-bitrate",
          (gdouble) base.sender.limits.min_bps, &v, error))
    goto fail;
  base.sender.limits.min_bps = (guint64) llround (v);
  if (!get_nonneg (kf, g, "start-bitrate",
          (gdouble) base.sender.limits.start_bps, &v, error))
    goto fail;
  base.sender.limits.start_bps = (guint64) llround (v);
  if (!get_nonneg (kf, g, "max-bitrate",
          (gdouble) base.sender.limits.max_bps, &v, error))
    goto fail;
  base.sender.limits.max_bps = (guint64) llround (v);
  if (base.sender.limits.min_bps > base.sender.limits.max_bps ||
      base.sender.limits.max_bps == 0) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s]: need 0 < min-bitrate <= max-bitrate", g);
    goto fail;
  }
  if (!get_double (kf, g, "fps", DEFAULT_FPS, &base.fps, error))
    goto fail;
  if (base.fps <= 0 || base.fps > 1000) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] fps: must be in (0, 1000]", g);
    goto fail;
  }
  if (!parse_source (kf, g, &base, error))
    goto fail;
  if (!get_double (kf, g, "temporal-layers", 1, &v, error))
    goto fail;
  if (v != 1 && v != 2) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] temporal-layers: must be 1 or 2", g);
    goto fail;
  }
  base.temporal_layers = (guint) v;
  if (!get_double (kf, g, "mtu", DEFAULT_MTU_PAYLOAD, &v, error))
    goto fail;
  if (v < 100 || v > 9000) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] mtu: RTP payload bytes, 100..9000", g);
    goto fail;
  }
  base.mtu_payload = (guint) v;
  if (!get_nonneg (kf, g, "feedback-interval-ms",
          (gdouble) DEFAULT_FEEDBACK_INTERVAL / GST_MSECOND, &v, error))
    goto fail;
  base.feedback_interval = ms (v);
  if (base.feedback_interval < GST_MSECOND) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] feedback-interval-ms: at least 1", g);
    goto fail;
  }
  if (!get_choice (kf, g, "feedback-messages", "frame", "interval",
          "frame (one per frame, as a stock rtpbin receiver) or interval "
          "(one per feedback interval)", &base.feedback_per_frame, error) ||
      !get_choice (kf, g, "feedback", "twcc", "rtcp",
          "twcc (per-packet, with RTCP reports) or rtcp (reports only)",
          &base.twcc, error))
    goto fail;
  if (!get_nonneg (kf, g, "rtcp-interval-ms",
          (gdouble) DEFAULT_RTCP_INTERVAL / GST_MSECOND, &v, error))
    goto fail;
  base.rtcp_interval = ms (v);
  if (base.rtcp_interval < 10 * GST_MSECOND) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] rtcp-interval-ms: at least 10", g);
    goto fail;
  }
  if (!get_auto_bool (kf, g, "receiver-reports", &base.receiver_reports,
          error) || !get_auto_bool (kf, g, "adapt-rtcp-interval",
          &base.adapt_rtcp_interval, error))
    goto fail;
  if (!get_nonneg (kf, g, "playout-latency-ms", 200, &v, error))
    goto fail;
  base.playout_latency = ms (v);
  if (!get_nonneg (kf, g, "pacer-max-queue-ms",
          (gdouble) base.sender.max_queue_time / GST_MSECOND, &v, error))
    goto fail;
  base.sender.max_queue_time = ms (v);
  if (!get_nonneg (kf, g, "feedback-gather-ms",
          (gdouble) base.sender.feedback_gather / GST_MSECOND, &v, error))
    goto fail;
  base.sender.feedback_gather = ms (v);
  if (g_key_file_has_key (kf, g, "pacing", NULL)) {
    GError *err = NULL;
    base.sender.pacing = g_key_file_get_boolean (kf, g, "pacing", &err);
    if (err) {
      g_propagate_prefixed_error (error, err, "[%s] pacing: ", g);
      goto fail;
    }
  }
  if (!get_double (kf, g, "pacing-factor", base.sender.pacing_factor, &v,
          error))
    goto fail;
  if (v < 1.0 || v > 10.0) {
    /* urcpsender's pacing-factor range */
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] pacing-factor: from 1 to 10 (a multiple of the target)", g);
    goto fail;
  }
  base.sender.pacing_factor = v;
  if (!get_double (kf, g, "clock-offset-ms", 0, &v, error))
    goto fail;
  /* A negative offset is folded into a large positive one: only
   * differences of receive times mean anything. */
  base.clock_offset = v >= 0 ? ms (v) : 1000 * GST_SECOND - ms (-v);
  if (!get_double (kf, g, "clock-skew-ppm", 0, &base.clock_skew_ppm, error))
    goto fail;
  if (fabs (base.clock_skew_ppm) > 10000) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] clock-skew-ppm: |skew| <= 10000", g);
    goto fail;
  }
  s = g_key_file_get_string (kf, g, "pause", NULL);
  if (s) {
    gboolean ok = parse_pauses (g, s, base.pauses, error);
    g_free (s);
    if (!ok)
      goto fail;
  }
  s = g_key_file_get_string (kf, g, "app-limit", NULL);
  if (s) {
    gboolean ok = parse_steps (g, "app-limit", s, base.app_limit, error);
    g_free (s);
    if (!ok)
      goto fail;
  }
  s = g_key_file_get_string (kf, g, "fec", NULL);
  base.fec_overhead = 0;
  if (s) {
    gchar *end = NULL;
    gdouble ovh;

    g_strstrip (s);
    ovh = g_ascii_strtod (s, &end);
    if (!g_ascii_strcasecmp (s, "none"))
      base.fec_overhead = -1;
    else if (!g_ascii_strcasecmp (s, "probe"))
      base.fec_overhead = 0;
    else if (end && end != s && *end == '\0' && ovh > 0 && ovh <= 100)
      base.fec_overhead = ovh;
    else {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
          "[%s] fec: '%s' is not none, probe or an overhead in percent "
          "(0 < x <= 100)", g, s);
      g_free (s);
      goto fail;
    }
  }
  g_free (s);

  /* tcp */
  s = g_key_file_get_string (kf, g, "cc", NULL);
  if (!s || !g_ascii_strcasecmp (g_strstrip (s), "cubic"))
    base.cc = SIM_TCP_CUBIC;
  else if (!g_ascii_strcasecmp (s, "newreno") || !g_ascii_strcasecmp (s,
          "reno"))
    base.cc = SIM_TCP_NEWRENO;
  else {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] cc: cubic or newreno", g);
    g_free (s);
    goto fail;
  }
  g_free (s);
  if (!get_nonneg (kf, g, "size-min", 0, &v, error))
    goto fail;
  base.size_min = (guint64) llround (v);
  if (!get_nonneg (kf, g, "size-max", (gdouble) base.size_min, &v, error))
    goto fail;
  base.size_max = (guint64) llround (v);
  if (base.size_max < base.size_min) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s]: size-max < size-min", g);
    goto fail;
  }
  if (!get_nonneg (kf, g, "think-mean",
          (gdouble) DEFAULT_THINK_MEAN / GST_SECOND, &v, error))
    goto fail;
  base.think_mean = secs (v);
  if (!get_double (kf, g, "initially-on", (gdouble) count, &v, error))
    goto fail;
  /* Only i < on matters: clamp before the cast (the count at most). */
  on = (gint64) CLAMP (v, -1.0, (gdouble) count);

  /* cbr */
  if (!get_nonneg (kf, g, "rate", 0, &v, error))
    goto fail;
  base.rate_bps = (guint64) llround (v);
  if (base.kind == SIM_FLOW_CBR && base.rate_bps == 0) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s]: a cbr flow needs rate (bit/s)", g);
    goto fail;
  }
  if (!get_double (kf, g, "packet-size", DEFAULT_CBR_PACKET, &v, error))
    goto fail;
  if (v < 40 || v > 65535) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[%s] packet-size: 40..65535 bytes", g);
    goto fail;
  }
  base.packet_size = (guint) v;

  for (i = 0; i < count; i++) {
    SimFlowConfig *f = g_new (SimFlowConfig, 1);

    *f = base;
    f->name = count == 1 ? g_strdup (g + strlen ("flow:")) :
        g_strdup_printf ("%s-%" G_GINT64_FORMAT, g + strlen ("flow:"), i + 1);
    f->pauses = g_array_copy (base.pauses);
    f->app_limit = g_array_copy (base.app_limit);
    rc_sender_config_copy (&f->sender, &base.sender);
    f->initially_on = i < on;
    g_ptr_array_add (sc->flows, f);
  }
  g_array_unref (base.pauses);
  g_array_unref (base.app_limit);
  rc_sender_config_clear (&base.sender);
  return TRUE;

fail:
  g_array_unref (base.pauses);
  g_array_unref (base.app_limit);
  rc_sender_config_clear (&base.sender);
  return FALSE;
}

/* `path` names the scenario (a file path or a name for text); relative
 * trace files are found in `dir`. Takes `kf`. */
static SimScenario *
scenario_from_keyfile (GKeyFile * kf, const gchar * path, gchar * dir,
    GError ** error)
{
  SimScenario *sc = g_new0 (SimScenario, 1);
  gchar **groups = NULL, **g;
  GstClockTime default_delay = 0;
  gdouble v;

  sc->path = g_strdup (path);
  sc->flows = g_ptr_array_new_with_free_func (flow_config_free);
  rc_link_config_init (&sc->link);
  rc_link_config_init (&sc->reverse);

  if (g_key_file_has_group (kf, "scenario") &&
      !check_keys (kf, "scenario", scenario_keys, error))
    goto fail;
  sc->name = g_key_file_get_string (kf, "scenario", "name", NULL);
  if (!sc->name) {
    gchar *base = g_path_get_basename (path);
    gchar *dot = strrchr (base, '.');
    if (dot)
      *dot = '\0';
    sc->name = base;
  }
  sc->description = g_key_file_get_string (kf, "scenario", "description",
      NULL);
  if (!get_double (kf, "scenario", "duration",
          (gdouble) DEFAULT_DURATION / GST_SECOND, &v, error))
    goto fail;
  if (v <= 0 || v > 1e6) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[scenario] duration: seconds, > 0");
    goto fail;
  }
  sc->duration = secs (v);
  if (!get_nonneg (kf, "scenario", "seed", 1, &v, error))
    goto fail;
  if (v > G_MAXUINT32 || v != floor (v)) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "[scenario] seed: an integer in 0..%u", G_MAXUINT32);
    goto fail;
  }
  sc->seed = (guint32) v;

  if (!parse_link (kf, "link", dir, &sc->link, error))
    goto fail;
  default_delay = sc->link.delay;
  if (g_key_file_has_group (kf, "reverse")) {
    sc->has_reverse = TRUE;
    if (!parse_link (kf, "reverse", dir, &sc->reverse, error))
      goto fail;
  } else {
    /* No [reverse]: an uncongested return path (feedback and ACKs see
     * only their propagation delay) with [link]'s overhead. */
    sc->reverse.capacity_bps = G_GUINT64_CONSTANT (10000000000);
    sc->reverse.queue_limit_time = 0;
    sc->reverse.queue_limit_bytes = 0;
    sc->reverse.overhead = sc->link.overhead;
  }

  groups = g_key_file_get_groups (kf, NULL);
  for (g = groups; *g; g++) {
    if (!strcmp (*g, "scenario") || !strcmp (*g, "link") ||
        !strcmp (*g, "reverse"))
      continue;
    if (!g_str_has_prefix (*g, "flow:") || !(*g)[5]) {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_GROUP_NOT_FOUND,
          "unknown group [%s] (scenario, link, reverse, flow:NAME)", *g);
      goto fail;
    }
    if (!parse_flow (sc, kf, *g, default_delay, error))
      goto fail;
  }
  if (sc->flows->len == 0) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_GROUP_NOT_FOUND,
        "no [flow:NAME] section");
    goto fail;
  }
  if (sc->flows->len > RC_LINK_MAX_FLOWS) {
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
        "%u flows; at most %d", sc->flows->len, RC_LINK_MAX_FLOWS);
    goto fail;
  }
  g_strfreev (groups);
  g_key_file_free (kf);
  g_free (dir);
  return sc;

fail:
  g_prefix_error (error, "%s: ", path);
  g_strfreev (groups);
  g_key_file_free (kf);
  g_free (dir);
  sim_scenario_free (sc);
  return NULL;
}

SimScenario *
sim_scenario_load (const gchar * path, GError ** error)
{
  GKeyFile *kf = g_key_file_new ();

  if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, error)) {
    g_prefix_error (error, "%s: ", path);
    g_key_file_free (kf);
    return NULL;
  }
  return scenario_from_keyfile (kf, path, g_path_get_dirname (path), error);
}

SimScenario *
sim_scenario_load_data (const gchar * text, const gchar * name,
    const gchar * dir, GError ** error)
{
  GKeyFile *kf = g_key_file_new ();

  if (!g_key_file_load_from_data (kf, text, -1, G_KEY_FILE_NONE, error)) {
    g_prefix_error (error, "%s: ", name);
    g_key_file_free (kf);
    return NULL;
  }
  return scenario_from_keyfile (kf, name, g_strdup (dir ? dir : "."), error);
}

void
sim_scenario_free (SimScenario * s)
{
  if (!s)
    return;
  g_free (s->path);
  g_free (s->name);
  g_free (s->description);
  rc_link_config_clear (&s->link);
  rc_link_config_clear (&s->reverse);
  g_ptr_array_unref (s->flows);
  g_free (s);
}

gboolean
sim_scenario_set_controller (SimScenario * s, const gchar * name,
    GError ** error)
{
  const RcControllerInfo *info = rc_controller_lookup (name);
  guint i;

  if (!info) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "unknown controller '%s' (rcsim --list-controllers)", name);
    return FALSE;
  }
  for (i = 0; i < s->flows->len; i++) {
    SimFlowConfig *f = g_ptr_array_index (s->flows, i);
    if (f->kind == SIM_FLOW_MEDIA)
      f->sender.controller = info;
  }
  return TRUE;
}

void
sim_scenario_set_duration (SimScenario * s, GstClockTime duration)
{
  GstClockTime old = s->duration;
  guint i;

  s->duration = duration;
  for (i = 0; i < s->flows->len; i++) {
    SimFlowConfig *f = g_ptr_array_index (s->flows, i);
    /* A flow that ran to the end runs to the new end (a soak). */
    if (f->stop > duration || (f->stop == old && duration > old))
      f->stop = duration;
  }
}
