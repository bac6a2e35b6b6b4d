/* Encoder discovery, bitrate units and set-up, shared by the elements that
 * drive a video encoder (urcpsender, ratecontrolbin), and the little the
 * bins share. See gstrcencoder.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstrcencoder.h"

GST_DEBUG_CATEGORY_STATIC (gst_rc_encoder_debug);
#define GST_CAT_DEFAULT gst_rc_encoder_debug

/* How many elements away to look for the encoder (payloader, capsfilter,
 * queue, tee, ... in between) or the RTP session (fecenc, funnel, ...). */
#define SEARCH_DEPTH 10

/* Encoders we know the bitrate unit of. vp8enc, vp9enc, x264enc, x265enc,
 * openh264enc, av1enc, theoraenc and avenc_* checked with gst-inspect-1.0
 * on Debian 12 (GStreamer 1.22; test_encoder_units in
 * tests/check/elements/test_rcencoder.c);
 * the others (not packaged there) from their documentation. */
static const GstRcEncoderInfo encoder_table[] = {
  {"vp8enc", "target-bitrate", 1, GST_RC_ENCODER_SETUP_VPX, "VP8", "rtpvp8pay"},
  {"vp9enc", "target-bitrate", 1, GST_RC_ENCODER_SETUP_VPX, "VP9", "rtpvp9pay"},
  {"x264enc", "bitrate", 1000, GST_RC_ENCODER_SETUP_X264, "H264",
      "rtph264pay"},
  {"x265enc", "bitrate", 1000, GST_RC_ENCODER_SETUP_NONE, "H265",
      "rtph265pay"},
  {"openh264enc", "bitrate", 1, GST_RC_ENCODER_SETUP_OPENH264, "H264",
      "rtph264pay"},
  {"av1enc", "target-bitrate", 1000, GST_RC_ENCODER_SETUP_NONE, NULL, NULL},
  {"svtav1enc", "target-bitrate", 1000, GST_RC_ENCODER_SETUP_NONE, NULL, NULL},
  {"theoraenc", "bitrate", 1000, GST_RC_ENCODER_SETUP_NONE, "THEORA",
      "rtptheorapay"},
  {"nvh264enc", "bitrate", 1000, GST_RC_ENCODER_SETUP_NONE, "H264",
      "rtph264pay"},
  {"nvh265enc", "bitrate", 1000, GST_RC_ENCODER_SETUP_NONE, "H265",
      "rtph265pay"},
  {"vaapih264enc", "bitrate", 1000, GST_RC_ENCODER_SETUP_NONE, "H264",
      "rtph264pay"},
  {"vah264enc", "bitrate", 1000, GST_RC_ENCODER_SETUP_NONE, "H264",
      "rtph264pay"},
  {"qsvh264enc", "bitrate", 1000, GST_RC_ENCODER_SETUP_NONE, "H264",
      "rtph264pay"},
  {"avenc_h264_omx", "bitrate", 1, GST_RC_ENCODER_SETUP_NONE, "H264",
      "rtph264pay"},
  {"avenc_mpeg4", "bitrate", 1, GST_RC_ENCODER_SETUP_NONE, "MP4V-ES",
      "rtpmp4vpay"},
};

/* The category is registered on first use, so that the unit works the same
 * inside the plugin and compiled into a test. */
static void
ensure_debug_category (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gst_rc_encoder_debug, "rcencoder", 0,
        "Video encoder discovery and bitrate setting");
    g_once_init_leave (&done, 1);
  }
}

const GstRcEncoderInfo *
gst_rc_encoder_info_list (guint * n_infos)
{
  *n_infos = G_N_ELEMENTS (encoder_table);
  return encoder_table;
}

const GstRcEncoderInfo *
gst_rc_encoder_info_lookup (const gchar * factory_name)
{
  guint i;

  g_return_val_if_fail (factory_name != NULL, NULL);
  for (i = 0; i < G_N_ELEMENTS (encoder_table); i++)
    if (g_str_equal (factory_name, encoder_table[i].factory))
      return &encoder_table[i];
  return NULL;
}

const GstRcEncoderInfo *
gst_rc_encoder_info_for (GstElement * enc)
{
  GstElementFactory *f;
  const GstRcEncoderInfo *info;

  g_return_val_if_fail (GST_IS_ELEMENT (enc), NULL);
  f = gst_element_get_factory (enc);
  if (!f)
    return NULL;
  info = gst_rc_encoder_info_lookup (gst_plugin_feature_get_name
      (GST_PLUGIN_FEATURE (f)));
  if (info && !g_object_class_find_property (G_OBJECT_GET_CLASS (enc),
          info->property))
    return NULL;
  return info;
}

static gboolean
is_encoder (GstElement * e, gpointer unused)
{
  GstElementFactory *f = gst_element_get_factory (e);
  const gchar *klass = f ? gst_element_factory_get_metadata (f,
      GST_ELEMENT_METADATA_KLASS) : NULL;
  /* Video encoders only: fecenc (Codec/Encoder/Network/RTP) sits between
   * the encoder and urcpsender in ratecontrolbin and rtpbin's
   * fec-encoders. */
  return klass && strstr (klass, "Encoder") != NULL &&
      strstr (klass, "Video") != NULL;
}

/* Into a bin through its ghost pad's target, out of the bin `pad` is in
 * through the internal pad's ghost pad and on to that ghost's peer (as when
 * urcpsender sits inside an rtpbin aux-sender bin). */
GstPad *
gst_rc_linked_element_pad (GstPad * pad)
{
  GstPad *peer = gst_pad_get_peer (pad);
  guint guard;

  for (guard = 0; peer && guard < 16; guard++) {
    GstPad *next;

    if (GST_IS_GHOST_PAD (peer)) {
      next = gst_ghost_pad_get_target (GST_GHOST_PAD (peer));
    } else if (GST_IS_PROXY_PAD (peer)) {
      GstPad *ghost =
          GST_PAD (gst_proxy_pad_get_internal (GST_PROXY_PAD (peer)));
      next = ghost ? gst_pad_get_peer (ghost) : NULL;
      gst_clear_object (&ghost);
    } else {
      return peer;
    }
    gst_object_unref (peer);
    peer = next;
  }
  gst_clear_object (&peer);
  return NULL;
}

/* The element on the far side of `pad` (crossing bins), then the first pad
 * of the other direction on it, up to SEARCH_DEPTH elements away; the first
 * element `visit` accepts is returned (a ref). */
GstElement *
gst_rc_walk_linked (GstPad * start, GstRcVisit visit, gpointer data)
{
  GstPad *pad = gst_object_ref (start);
  GstElement *found = NULL;
  guint depth;

  for (depth = 0; depth < SEARCH_DEPTH && pad; depth++) {
    GstPad *peer = gst_rc_linked_element_pad (pad);
    GstPadDirection dir = GST_PAD_DIRECTION (pad);
    GstElement *e;
    GstIterator *it;
    GValue v = G_VALUE_INIT;

    gst_clear_object (&pad);
    if (!peer)
      break;
    e = gst_pad_get_parent_element (peer);
    gst_object_unref (peer);
    if (!e)
      break;
    if (visit (e, data)) {
      found = e;
      break;
    }
    /* Walking upstream we left by a src pad and go on from a sink pad of
     * the element reached, and the other way round. */
    it = dir == GST_PAD_SINK ? gst_element_iterate_sink_pads (e) :
        gst_element_iterate_src_pads (e);
    if (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
      pad = g_value_dup_object (&v);
      g_value_unset (&v);
    }
    gst_iterator_free (it);
    gst_object_unref (e);
  }
  gst_clear_object (&pad);
  return found;
}

GstElement *
gst_rc_encoder_find_upstream (GstPad * sinkpad)
{
  g_return_val_if_fail (GST_IS_PAD (sinkpad), NULL);
  return gst_rc_walk_linked (sinkpad, is_encoder, NULL);
}

/* An rtpsession element: it exposes its RTPSession object, which emits the
 * RTCP signals. Found by what it offers, not by its type name, so a
 * subclass or a session inside any bin (rtpbin, webrtcbin) is found too. */
gboolean
gst_rc_is_rtp_session (GstElement * e, gpointer unused)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "internal-session");
  return ps && G_TYPE_IS_OBJECT (ps->value_type) &&
      g_signal_lookup ("on-receiving-rtcp", ps->value_type) != 0;
}

GObject *
gst_rc_rtp_session_find_downstream (GstPad * srcpad, GstElement ** element)
{
  GstElement *e;
  GObject *session = NULL;

  g_return_val_if_fail (GST_IS_PAD (srcpad), NULL);
  e = gst_rc_walk_linked (srcpad, gst_rc_is_rtp_session, NULL);
  if (e)
    g_object_get (e, "internal-session", &session, NULL);
  if (element)
    *element = e;
  else
    gst_clear_object (&e);
  return session;
}

typedef struct
{
  GstRcBufferFunc fn;
  gpointer data;
} ForeachBuffer;

static gboolean
foreach_in_list (GstBuffer ** buf, guint idx, gpointer user_data)
{
  ForeachBuffer *f = user_data;

  f->fn (f->data, *buf);
  return TRUE;
}

void
gst_rc_probe_foreach_buffer (GstPadProbeInfo * info, GstRcBufferFunc fn,
    gpointer data)
{
  ForeachBuffer f = { fn, data };

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER)
    fn (data, GST_PAD_PROBE_INFO_BUFFER (info));
  else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST)
    gst_buffer_list_foreach (GST_PAD_PROBE_INFO_BUFFER_LIST (info),
        foreach_in_list, &f);
}

/* Sets the integer property `prop` of `enc` to `value` unless the user
 * changed it: its value is still that of `fresh`, a new instance of the same
 * factory (NULL: none could be made, nothing is set). A new instance's value,
 * not the GParamSpec's default: vp9enc shares vp8enc's property specs
 * (default lag-in-frames 0) and sets 25 in its instance. */
static void
set_int_if_default (GstElement * enc, GstElement * fresh, const gchar * prop,
    gint value)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (enc),
      prop);
  gint v, d;

  if (!fresh || !ps || ps->value_type != G_TYPE_INT)
    return;
  g_object_get (enc, prop, &v, NULL);
  g_object_get (fresh, prop, &d, NULL);
  if (v == d)
    g_object_set (enc, prop, value, NULL);
}

void
gst_rc_encoder_configure (GstElement * enc, const GstRcEncoderInfo * info)
{
  GObjectClass *k;
  GstElementFactory *f;
  GstElement *fresh;

  g_return_if_fail (GST_IS_ELEMENT (enc) && info != NULL);
  ensure_debug_category ();
  k = G_OBJECT_GET_CLASS (enc);

  switch (info->setup) {
    case GST_RC_ENCODER_SETUP_VPX:
      /* CBR follows target-bitrate; VBR on simple content stays far below
       * or, at low targets, far above it. Deadline 1 = realtime. Frame
       * dropping lets the encoder honour a sudden low target.
       * Buffer sizes in ms. libvpx's one-pass CBR (vp8 and vp9 ratectrl.c)
       * cuts each frame's target by half the percentage that its buffer
       * model lies below the optimal level, counted in hundredths of that
       * level, at most undershoot / 2: how fast a key frame's excess is
       * paid back. With 250 ms optimal, vp8enc's 11.5 KB key frames at
       * 880 kbit/s (~70 ms of excess) cut the next 20-30 frames by only
       * 5-10 %, and on a link held 92 % full each key frame left a queue
       * that took a second to drain (kernel bench, fixed 880 kbit/s: p95
       * 46 ms); with 100 ms the first frames after it are up to 30 %
       * smaller, 84 % of the excess is paid within ten frames (42 %
       * before; the `hold` recordings, docs/encoders.md), and the same
       * run's p95 was 19 ms at the same utilization, no frame dropped
       * (docs/results.md, issue 10). 60 ms dropped frames after key
       * frames. */
      gst_util_set_object_arg (G_OBJECT (enc), "end-usage", "cbr");
      g_object_set (enc, "deadline", (gint64) 1, NULL);
      if (g_object_class_find_property (k, "buffer-size"))
        g_object_set (enc, "buffer-size", 150, "buffer-initial-size", 80,
            "buffer-optimal-size", 100, NULL);
      if (g_object_class_find_property (k, "dropframe-threshold"))
        g_object_set (enc, "dropframe-threshold", 30, NULL);
      /* A fixed speed where the user left libvpx's automatic one (0). The
       * automatic speed starts over whenever the configuration changes,
       * and we change target-bitrate several times a second: vp8enc at
       * 640x480 then took 26 ms a frame where the same target held took
       * 6.5 ms and speed 6 takes 4.5 ms either way (this machine,
       * retargets every 33 or 100 ms; docs/encoders.md), a quarter of
       * each frame's latency and most of a core. A negative cpu-used is a
       * fixed speed in libvpx's VP8 real-time mode; -6 is libwebrtc's
       * default for VP8 (its LibvpxVp8Encoder's cpu_speed_default_).
       * vp9enc: speed 6, 7 ms a frame where its automatic speed took
       * 195 ms, too slow for 30 fps. */
      f = gst_element_get_factory (enc);
      fresh = f ? gst_element_factory_create (f, NULL) : NULL;
      if (fresh)
        gst_object_ref_sink (fresh);
      set_int_if_default (enc, fresh, "cpu-used",
          g_str_equal (info->factory, "vp9enc") ? 6 : -6);
      /* vp9enc holds 25 frames back by default (its lag-in-frames), 0.8 s
       * at 30 fps; nothing real-time waits for that (vp8enc's is 0). */
      set_int_if_default (enc, fresh, "lag-in-frames", 0);
      gst_clear_object (&fresh);
      GST_INFO_OBJECT (enc, "configured %" GST_PTR_FORMAT
          " for real-time rate following (cbr, deadline 1, 150 ms buffer, "
          "frame dropping, fixed speed, no lag)", enc);
      break;
    case GST_RC_ENCODER_SETUP_OPENH264:
      /* Its default rate-control=quality ignores the bitrate property. */
      gst_util_set_object_arg (G_OBJECT (enc), "rate-control", "bitrate");
      GST_INFO_OBJECT (enc, "configured %" GST_PTR_FORMAT
          " for rate-control=bitrate", enc);
      break;
    case GST_RC_ENCODER_SETUP_X264:
      gst_util_set_object_arg (G_OBJECT (enc), "pass", "cbr");
      GST_INFO_OBJECT (enc, "configured %" GST_PTR_FORMAT " for CBR", enc);
      break;
    case GST_RC_ENCODER_SETUP_NONE:
      break;
  }
}

/* Two VP8 temporal layers: the base layer's share of the bitrate. 60 %, as
 * WebRTC allocates two VP8 temporal layers. */
#define TL_BASE_SHARE 0.6

/* A GValueArray of gint (what vpxenc's temporal-scalability-* integer
 * properties take: GstValueArray strings do not deserialize into it in
 * 1.22). */
static void
set_int_array (GstElement * enc, const gchar * prop, const gint * v, guint n)
{
  GValue item = G_VALUE_INIT, arr = G_VALUE_INIT;
  GValueArray *va;
  guint i;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  va = g_value_array_new (n);
  g_value_init (&item, G_TYPE_INT);
  for (i = 0; i < n; i++) {
    g_value_set_int (&item, v[i]);
    g_value_array_append (va, &item);
  }
  g_value_init (&arr, g_value_array_get_type ());
  g_value_take_boxed (&arr, va);
  G_GNUC_END_IGNORE_DEPRECATIONS;
  g_object_set_property (G_OBJECT (enc), prop, &arr);
  g_value_unset (&arr);
  g_value_unset (&item);
}

/* The layers' cumulative targets for an overall `total` bit/s: the base
 * layer TL_BASE_SHARE of it, both layers all of it. */
static void
set_layer_targets (GstElement * enc, gint total)
{
  gint rates[2] = { (gint) (total * TL_BASE_SHARE), total };

  set_int_array (enc, "temporal-scalability-target-bitrate", rates, 2);
}

static gboolean
has_temporal_layers (GstElement * enc)
{
  gint n = 1;

  if (!g_object_class_find_property (G_OBJECT_GET_CLASS (enc),
          "temporal-scalability-number-layers"))
    return FALSE;
  g_object_get (enc, "temporal-scalability-number-layers", &n, NULL);
  return n == 2;
}

gboolean
gst_rc_encoder_set_temporal_layers (GstElement * enc,
    const GstRcEncoderInfo * info)
{
  static const gint ids[] = { 0, 1 }, decimators[] = { 2, 1 };
  gint bps = 0;

  g_return_val_if_fail (GST_IS_ELEMENT (enc) && info != NULL, FALSE);
  ensure_debug_category ();
  if (!g_str_equal (info->factory, "vp8enc"))
    return FALSE;
  /* libvpx's two-layer pattern: layer 0 (even frames) references and
   * updates only the last frame; layer 1 (odd frames) references it and
   * updates nothing, not even the entropy contexts, so dropping it costs
   * the decoder nothing. Every layer-1 frame is a layer sync (it depends
   * on layer 0 only); the sync flags must be set (vpxenc 1.22 divides by
   * their count). A running vpxenc applies each property at once, so the
   * order matters: the layers' rates, ids and pattern while it still codes
   * one layer, the number of layers last; every step is then a valid
   * configuration (any other order fails libvpx's checks, which an
   * encoder that has started reports as an error). */
  g_object_get (enc, "target-bitrate", &bps, NULL);
  set_layer_targets (enc, MAX (bps, 1000));
  set_int_array (enc, "temporal-scalability-rate-decimator", decimators, 2);
  set_int_array (enc, "temporal-scalability-layer-id", ids, 2);
  gst_util_set_object_arg (G_OBJECT (enc),
      "temporal-scalability-layer-flags",
      "<no-ref-golden+no-ref-alt+no-upd-golden+no-upd-alt,"
      "no-ref-golden+no-ref-alt+no-upd-last+no-upd-golden+no-upd-alt+"
      "no-upd-entropy>");
  gst_util_set_object_arg (G_OBJECT (enc),
      "temporal-scalability-layer-sync-flags", "<false,true>");
  g_object_set (enc, "temporal-scalability-periodicity", 2, NULL);
  g_object_set (enc, "temporal-scalability-number-layers", 2, NULL);
  GST_INFO_OBJECT (enc, "configured %" GST_PTR_FORMAT " for two temporal "
      "layers: every other frame is droppable", enc);
  return TRUE;
}

/* The property's range in its own unit, negative bounds taken as 0 (a
 * bitrate is not negative). FALSE for a property that is not an integer. */
static gboolean
property_range (GParamSpec * ps, guint64 * lo, guint64 * hi)
{
  gint64 smin, smax;

  if (G_IS_PARAM_SPEC_UINT (ps)) {
    *lo = G_PARAM_SPEC_UINT (ps)->minimum;
    *hi = G_PARAM_SPEC_UINT (ps)->maximum;
    return TRUE;
  } else if (G_IS_PARAM_SPEC_UINT64 (ps)) {
    *lo = G_PARAM_SPEC_UINT64 (ps)->minimum;
    *hi = G_PARAM_SPEC_UINT64 (ps)->maximum;
    return TRUE;
  } else if (G_IS_PARAM_SPEC_ULONG (ps)) {
    *lo = G_PARAM_SPEC_ULONG (ps)->minimum;
    *hi = G_PARAM_SPEC_ULONG (ps)->maximum;
    return TRUE;
  } else if (G_IS_PARAM_SPEC_INT (ps)) {
    smin = G_PARAM_SPEC_INT (ps)->minimum;
    smax = G_PARAM_SPEC_INT (ps)->maximum;
  } else if (G_IS_PARAM_SPEC_INT64 (ps)) {
    smin = G_PARAM_SPEC_INT64 (ps)->minimum;
    smax = G_PARAM_SPEC_INT64 (ps)->maximum;
  } else if (G_IS_PARAM_SPEC_LONG (ps)) {
    smin = G_PARAM_SPEC_LONG (ps)->minimum;
    smax = G_PARAM_SPEC_LONG (ps)->maximum;
  } else {
    return FALSE;
  }
  *lo = MAX (smin, 0);
  *hi = MAX (smax, 0);
  return TRUE;
}

void
gst_rc_encoder_set_bitrate (GstElement * enc, const GstRcEncoderInfo * info,
    guint64 bps)
{
  GParamSpec *ps;
  GValue v64 = G_VALUE_INIT, v = G_VALUE_INIT;
  guint64 val, lo, hi;

  g_return_if_fail (GST_IS_ELEMENT (enc) && info != NULL);
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (enc),
      info->property);
  val = bps / info->divisor;
  if (!ps)
    return;
  /* Clamp into the property's own range rather than have GLib refuse, and
   * before converting, so that a value too large for a 32-bit property
   * does not wrap around. */
  if (property_range (ps, &lo, &hi) && (val < lo || val > hi)) {
    ensure_debug_category ();
    GST_DEBUG_OBJECT (enc, "%s %" G_GUINT64_FORMAT " outside %"
        G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ", clamped", info->property,
        val, lo, hi);
    val = CLAMP (val, lo, hi);
  }
  g_value_init (&v64, G_TYPE_UINT64);
  g_value_set_uint64 (&v64, val);
  g_value_init (&v, ps->value_type);
  if (g_value_transform (&v64, &v)) {
    g_param_value_validate (ps, &v);
    g_object_set_property (G_OBJECT (enc), info->property, &v);
  }
  g_value_unset (&v);
  g_value_unset (&v64);
  /* With layers, vp8enc's overall target is what its layers' cumulative
   * targets say (libvpx takes the layers' rates; target-bitrate alone
   * changes nothing: measured on 1.22). */
  if (has_temporal_layers (enc))
    set_layer_targets (enc, (gint) MIN (bps, (guint64) G_MAXINT));
}

GstElement *
gst_rc_bin_add_new (GstBin * bin, const gchar * factory, const gchar * name)
{
  GstElement *e = gst_element_factory_make (factory, name);

  ensure_debug_category ();
  if (e)
    gst_bin_add (bin, e);
  else
    GST_ERROR_OBJECT (bin, "no %s element", factory);
  return e;
}
