/* GStreamer XOR parity FEC encoder (RFC 8627 flexible FEC, RFC 5109 ULPFEC).
 *
 * SECTION:element-fecenc
 * @title: fecenc
 * @short_description: adds XOR repair packets to an RTP stream, to repair
 * loss and to probe for bandwidth.
 *
 * `fecenc` sits after the payloader and before the network (or rtpbin's
 * `send_rtp_sink_%u`). It passes every media packet on unchanged and adds
 * repair packets:
 *
 * * `format=flexfec` (default): RFC 8627 flexible FEC on its own SSRC
 *   (#GstFecEnc:ssrc) and sequence space, payload type #GstFecEnc:pt. The
 *   `mode` chooses the parity groups: `row` (L consecutive packets),
 *   `column` (every L-th packet over D rows; repairs bursts up to L),
 *   `2d` (both; repairs most double losses), or `flexible` (bit-mask
 *   groups that end with each frame, so no repair waits for the next
 *   frame).
 * * `format=ulpfec`: RFC 5109 ULPFEC as GStreamer's rtpulpfecenc and
 *   libwebrtc send it: same SSRC, its own payload type, in the media's
 *   sequence space (media after a repair packet are renumbered), repair
 *   packets only after a frame's last packet. `rtpulpfecdec` repairs it.
 *
 * How much FEC: #GstFecEnc:overhead (percent of media packets; changeable
 * while playing) picks the group size: row L = 100/overhead, column
 * D = 100/overhead, 2-D L = D = 200/overhead, flexible groups of
 * 100/overhead. -1 uses #GstFecEnc:columns and #GstFecEnc:rows as given;
 * 0 sends no FEC. New values apply from the next group.
 *
 * ## Probe requests
 * A rate controller that wants to probe for bandwidth with FEC (FRACTaL,
 * seed paper 002, sec. 3) sends a custom event named `GstFecEncProbe` with
 * a `bitrate` field (guint, bit/s), either upstream into fecenc's src pad
 * (`GST_EVENT_CUSTOM_UPSTREAM`, from an element downstream such as the
 * controller before rtpbin) or downstream into its sink pad
 * (`GST_EVENT_CUSTOM_DOWNSTREAM` or `_OOB`). fecenc then keeps the FEC
 * rate at that bitrate: it measures the media rate over the last second
 * and sets the overhead to bitrate / media rate (at most 100 %), updating
 * it as the media rate moves. `bitrate=0` stops FEC. Setting the overhead
 * property ends probe mode. The event is consumed.
 * |[
 * gst_pad_send_event (fecenc_src_pad, gst_event_new_custom
 *     (GST_EVENT_CUSTOM_UPSTREAM, gst_structure_new ("GstFecEncProbe",
 *         "bitrate", G_TYPE_UINT, 200000, NULL)));
 * ]|
 *
 * ## Transport-wide congestion control
 * If the sink caps announce the transport-wide-cc header extension
 * (`extmap-N=...transport-wide-cc-extensions-01`), every repair packet
 * carries that extension too, so rtpsession gives it a transport-wide
 * sequence number and the sender sees the probe in its feedback.
 *
 * ## With rtpbin
 * Return fecenc from rtpbin's `request-fec-encoder` signal, or set
 * `fec-encoders='fec,0="fecenc\ overhead\=20";'`. rtpbin places it before
 * its RTP session, so repair packets get transport-wide seqnums there.
 *
 * ## Example sender (pipelines/fec-sender.sh)
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! vp8enc deadline=1 ! \
 *   rtpvp8pay pt=96 ! fecenc mode=2d columns=5 rows=5 pt=100 ! \
 *   udpsink host=127.0.0.1 port=5000
 * ]|
 * ## Example receiver (pipelines/fec-receiver.sh)
 * |[
 * gst-launch-1.0 udpsrc port=5000 caps='application/x-rtp,media=video,clock-rate=90000,encoding-name=VP8,payload=96' ! \
 *   fecdec pt=100 ! rtpjitterbuffer latency=100 ! rtpvp8depay ! vp8dec ! \
 *   videoconvert ! autovideosink
 * ]|
 *
 * ## Statistics
 * #GstFecEnc:stats has `media-packets`, `media-protected` (covered by a
 * repair packet), `fec-packets`, `fec-bytes`, `media-bytes` (all guint64),
 * `overhead` (the target now, percent; -1 for the L x D geometry),
 * `measured-overhead` (fec-bytes / media-bytes, percent), `media-bitrate`
 * and `fec-bitrate` (bit/s over the last second), `probe-bitrate` (bit/s,
 * 0 if not probing), `columns` and `rows` (L and D in force).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/rtp/gstrtpbuffer.h>
#include "gstfecenc.h"
#include "rc-twcc.h"

GST_DEBUG_CATEGORY_STATIC (gst_fec_enc_debug);
#define GST_CAT_DEFAULT gst_fec_enc_debug

enum
{
  PROP_0,
  PROP_PT,
  PROP_SSRC,
  PROP_MODE,
  PROP_COLUMNS,
  PROP_ROWS,
  PROP_OVERHEAD,
  PROP_FORMAT,
  PROP_STATS,
};

/* A dynamic payload type (RFC 3551 sec. 6). */
#define DEFAULT_PT 100
#define DEFAULT_SSRC 0
#define DEFAULT_MODE RC_FEC_MODE_ROW
/* 10 x 10: the block size of RFC 8627's and SMPTE 2022-1's examples. */
#define DEFAULT_COLUMNS 10
#define DEFAULT_ROWS 10
/* 10 %: one repair packet per ten media packets, the level FRACTaL's
 * sec. 3 gives for "one packet lost in ten". */
#define DEFAULT_OVERHEAD 10.0
#define DEFAULT_FORMAT RC_FEC_FORMAT_FLEXFEC

/* FEC rate window: the span of the probe's media meter, so the stats'
 * media-bitrate and fec-bitrate cover the same time. */
#define RATE_SPAN RC_FEC_PROBE_RATE_SPAN
/* The RTP transport-wide-cc extension carries a 16-bit seqnum
 * (draft-holmer-rmcat-transport-wide-cc-extensions-01 sec. 2). */
#define TWCC_EXT_LEN 2

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

GType
gst_fec_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {RC_FEC_MODE_ROW, "Rows of L consecutive packets", "row"},
    {RC_FEC_MODE_COLUMN, "Columns: every L-th packet over D rows", "column"},
    {RC_FEC_MODE_2D, "Rows and columns of an L x D block", "2d"},
    {RC_FEC_MODE_FLEXIBLE, "Bit-mask groups ending with each frame",
        "flexible"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstFecMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_fec_format_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {RC_FEC_FORMAT_FLEXFEC, "RFC 8627 flexible FEC on its own SSRC",
        "flexfec"},
    {RC_FEC_FORMAT_ULPFEC, "RFC 5109 ULPFEC on the media SSRC "
          "(rtpulpfecenc/rtpulpfecdec compatible)", "ulpfec"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstFecFormat", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define gst_fec_enc_parent_class parent_class
G_DEFINE_TYPE (GstFecEnc, gst_fec_enc, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (fecenc, "fecenc", GST_RANK_NONE,
    GST_TYPE_FEC_ENC, GST_DEBUG_CATEGORY_INIT (gst_fec_enc_debug, "fecenc", 0,
        "XOR parity FEC encoder"));

/* Running time of `buf`, or of the clock if it has no timestamp. */
static GstClockTime
buffer_time (GstFecEnc * self, GstBuffer * buf, const GstSegment * seg)
{
  GstClockTime t = GST_BUFFER_PTS (buf);

  if (GST_CLOCK_TIME_IS_VALID (t) && seg->format == GST_FORMAT_TIME)
    t = gst_segment_to_running_time (seg, GST_FORMAT_TIME, t);
  if (!GST_CLOCK_TIME_IS_VALID (t))
    t = gst_element_get_current_running_time (GST_ELEMENT (self));
  return t;
}

/* Object lock held. Applies an overhead the probe arithmetic
 * (rc_fec_probe_*) derived from the FEC bitrate and the media rate. */
static void
apply_probe_locked (GstFecEnc * self, gdouble ovh, gdouble media_bps)
{
  if (self->probe.bps == 0)
    GST_DEBUG_OBJECT (self, "probe stopped: no FEC");
  else
    GST_DEBUG_OBJECT (self, "probe %u bit/s over media %.0f bit/s: "
        "overhead %.1f %%", self->probe.bps, media_bps, ovh);
  self->cfg.overhead = ovh;
  if (self->enc)
    rc_fec_encoder_set_overhead (self->enc, ovh);
}

static gboolean
handle_probe_event (GstFecEnc * self, GstEvent * event)
{
  const GstStructure *s = gst_event_get_structure (event);
  guint bps = 0;
  gdouble ovh, media_bps;

  if (!s || !gst_structure_has_name (s, GST_FEC_ENC_PROBE_EVENT))
    return FALSE;
  if (!gst_structure_get_uint (s, "bitrate", &bps)) {
    GST_WARNING_OBJECT (self, "%s event without a guint 'bitrate': %"
        GST_PTR_FORMAT, GST_FEC_ENC_PROBE_EVENT, s);
    return TRUE;
  }
  GST_OBJECT_LOCK (self);
  if (rc_fec_probe_set_bitrate (&self->probe, bps, self->cfg.overhead, &ovh,
          &media_bps))
    apply_probe_locked (self, ovh, media_bps);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* The transport-wide-cc extension id from "extmap-N" caps fields, 0 if
 * none. */
static guint8
find_twcc_ext (const GstCaps * caps)
{
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  guint i, n = gst_structure_n_fields (s);

  for (i = 0; i < n; i++) {
    const gchar *name = gst_structure_nth_field_name (s, i);
    const GValue *v = gst_structure_get_value (s, name);
    const gchar *uri = NULL;
    guint64 id;

    if (!g_str_has_prefix (name, "extmap-"))
      continue;
    if (G_VALUE_HOLDS_STRING (v))
      uri = g_value_get_string (v);
    else if (GST_VALUE_HOLDS_ARRAY (v) && gst_value_array_get_size (v) >= 2
        && G_VALUE_HOLDS_STRING (gst_value_array_get_value (v, 1)))
      uri = g_value_get_string (gst_value_array_get_value (v, 1));
    if (!uri || strcmp (uri, RC_TWCC_EXT_URI) != 0)
      continue;
    id = g_ascii_strtoull (name + 7, NULL, 10);
    /* RFC 8285 sec. 4.2/4.3: ids 1-14 one-byte, 1-255 two-byte. */
    if (id >= 1 && id <= 255)
      return (guint8) id;
  }
  return 0;
}

static void
set_ext_locked (GstFecEnc * self, guint8 id)
{
  self->twcc_ext_id = id;
  self->cfg.ext_id = id;
  self->cfg.ext_len = id ? TWCC_EXT_LEN : 0;
  self->cfg.ext_two_byte = id > 14;
  if (self->enc)
    rc_fec_encoder_reconfigure (self->enc, &self->cfg);
}

static GstFlowReturn
gst_fec_enc_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstFecEnc *self = GST_FEC_ENC (parent);
  GPtrArray *out = self->out;
  RcFecEncoderStats before, after;
  GstFlowReturn ret;
  GstClockTime now;
  gdouble ovh, media_bps;
  guint i;

  /* The segment is only touched by this streaming thread. */
  now = buffer_time (self, buf, &self->segment);
  GST_OBJECT_LOCK (self);
  if (!self->enc) {
    GST_OBJECT_UNLOCK (self);
    gst_buffer_unref (buf);
    return GST_FLOW_FLUSHING;
  }
  if (!self->checked) {
    guint8 h[RC_FEC_RTP_HEADER_LEN];
    self->checked = TRUE;
    if (gst_buffer_extract (buf, 0, h, sizeof (h)) == sizeof (h)) {
      if ((h[1] & 0x7f) == self->cfg.pt) {
        GST_OBJECT_UNLOCK (self);
        GST_ELEMENT_ERROR (self, STREAM, FORMAT,
            ("FEC payload type %u is also the media's.", self->cfg.pt),
            ("set the pt property to an unused payload type"));
        gst_buffer_unref (buf);
        return GST_FLOW_ERROR;
      }
      if (self->cfg.format == RC_FEC_FORMAT_FLEXFEC &&
          GST_READ_UINT32_BE (h + 8) == self->cfg.ssrc) {
        /* RFC 8627 sec. 4.1: the repair stream has its own SSRC. */
        self->cfg.ssrc = self->ssrc_set ? self->cfg.ssrc ^ 1 : g_random_int ();
        GST_WARNING_OBJECT (self, "FEC SSRC collides with the media's; "
            "using %08x", self->cfg.ssrc);
        rc_fec_encoder_free (self->enc);
        self->enc = rc_fec_encoder_new (&self->cfg);
      }
    }
  }
  rc_fec_encoder_get_stats (self->enc, &before);
  if (!rc_fec_encoder_push (self->enc, &buf, out))
    GST_LOG_OBJECT (self, "not an RTP packet: passed on unprotected");
  /* The codec counts the bytes: one meter sample for the media packet and
   * one for all the repair packets it let out. */
  rc_fec_encoder_get_stats (self->enc, &after);
  rc_fec_probe_add_media (&self->probe, now,
      after.media_bytes - before.media_bytes);
  if (after.fec_bytes != before.fec_bytes)
    rc_rate_meter_add (&self->fec_rate, now,
        after.fec_bytes - before.fec_bytes);
  if (rc_fec_probe_update (&self->probe, now, self->cfg.overhead, &ovh,
          &media_bps))
    apply_probe_locked (self, ovh, media_bps);
  GST_OBJECT_UNLOCK (self);

  ret = gst_pad_push (self->srcpad, buf);
  for (i = 0; i < out->len; i++) {
    if (ret == GST_FLOW_OK)
      ret = gst_pad_push (self->srcpad, out->pdata[i]);
    else
      gst_buffer_unref (out->pdata[i]);
  }
  g_ptr_array_set_size (out, 0);
  return ret;
}

static void
push_flushed (GstFecEnc * self)
{
  GPtrArray *out = g_ptr_array_new ();
  guint i;

  GST_OBJECT_LOCK (self);
  if (self->enc)
    rc_fec_encoder_flush (self->enc, out);
  GST_OBJECT_UNLOCK (self);
  for (i = 0; i < out->len; i++)
    gst_pad_push (self->srcpad, out->pdata[i]);
  g_ptr_array_unref (out);
}

static gboolean
gst_fec_enc_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstFecEnc *self = GST_FEC_ENC (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CUSTOM_DOWNSTREAM:
    case GST_EVENT_CUSTOM_DOWNSTREAM_OOB:
      if (handle_probe_event (self, event)) {
        gst_event_unref (event);
        return TRUE;
      }
      break;
    case GST_EVENT_SEGMENT:
      gst_event_copy_segment (event, &self->segment);
      break;
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      guint8 id;
      gst_event_parse_caps (event, &caps);
      id = find_twcc_ext (caps);
      GST_OBJECT_LOCK (self);
      self->checked = FALSE;
      if (id != self->twcc_ext_id) {
        GST_INFO_OBJECT (self, "repair packets carry transport-wide-cc "
            "extension id %u", id);
        set_ext_locked (self, id);
      }
      GST_OBJECT_UNLOCK (self);
      break;
    }
    case GST_EVENT_EOS:
      /* Protect the packets of an unfinished group before the end. */
      push_flushed (self);
      break;
    case GST_EVENT_FLUSH_STOP:{
      GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
          gst_buffer_unref);
      GST_OBJECT_LOCK (self);
      if (self->enc)
        rc_fec_encoder_flush (self->enc, out);
      GST_OBJECT_UNLOCK (self);
      g_ptr_array_unref (out);
      break;
    }
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

static gboolean
gst_fec_enc_src_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstFecEnc *self = GST_FEC_ENC (parent);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_UPSTREAM &&
      handle_probe_event (self, event)) {
    gst_event_unref (event);
    return TRUE;
  }
  return gst_pad_event_default (pad, parent, event);
}

/* -------------------------------------------------------- state change */

static gboolean
start (GstFecEnc * self)
{
  RcFecEncoderConfig cfg;

  GST_OBJECT_LOCK (self);
  if (!self->ssrc_set)
    self->cfg.ssrc = g_random_int ();
  self->cfg.seq_start = g_random_int_range (0, G_MAXUINT16);
  cfg = self->cfg;
  GST_OBJECT_UNLOCK (self);

  if ((cfg.mode == RC_FEC_MODE_COLUMN || cfg.mode == RC_FEC_MODE_2D) &&
      cfg.overhead < 0 && cfg.D < 2) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("mode %s needs rows >= 2 (rows is %u).",
            cfg.mode == RC_FEC_MODE_2D ? "2d" : "column", cfg.D), (NULL));
    return FALSE;
  }

  GST_OBJECT_LOCK (self);
  rc_fec_encoder_free (self->enc);
  self->enc = rc_fec_encoder_new (&self->cfg);
  rc_fec_probe_restart (&self->probe);
  rc_rate_meter_clear (&self->fec_rate);
  rc_rate_meter_init (&self->fec_rate, RATE_SPAN);
  self->checked = FALSE;
  gst_segment_init (&self->segment, GST_FORMAT_TIME);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static GstStateChangeReturn
gst_fec_enc_change_state (GstElement * element, GstStateChange transition)
{
  GstFecEnc *self = GST_FEC_ENC (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED && !start (self))
    return GST_STATE_CHANGE_FAILURE;

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    GST_OBJECT_LOCK (self);
    g_clear_pointer (&self->enc, rc_fec_encoder_free);
    GST_OBJECT_UNLOCK (self);
  }
  return ret;
}

/* ---------------------------------------------------------- properties */

static GstStructure *
get_stats (GstFecEnc * self)
{
  RcFecEncoderStats st = { 0, };
  guint L = 0, D = 0;
  GstClockTime now;
  gdouble mbps, fbps;
  GstStructure *s;

  GST_OBJECT_LOCK (self);
  if (self->enc)
    rc_fec_encoder_get_stats (self->enc, &st);
  if (!rc_fec_encoder_geometry (&self->cfg, &L, &D))
    L = D = 0;
  now = rc_avg_window_newest (&self->probe.media.w);
  mbps = self->enc ? rc_rate_meter_bps (&self->probe.media, now) : 0;
  fbps = self->enc ? rc_rate_meter_bps (&self->fec_rate, now) : 0;
  s = gst_structure_new ("application/x-fecenc-stats",
      "media-packets", G_TYPE_UINT64, st.media_packets,
      "media-protected", G_TYPE_UINT64, st.media_protected,
      "fec-packets", G_TYPE_UINT64, st.fec_packets,
      "fec-bytes", G_TYPE_UINT64, st.fec_bytes,
      "media-bytes", G_TYPE_UINT64, st.media_bytes,
      "overhead", G_TYPE_DOUBLE, self->cfg.overhead,
      "measured-overhead", G_TYPE_DOUBLE, st.media_bytes ?
      100.0 * st.fec_bytes / st.media_bytes : 0.0,
      "media-bitrate", G_TYPE_DOUBLE, mbps,
      "fec-bitrate", G_TYPE_DOUBLE, fbps,
      "probe-bitrate", G_TYPE_UINT, self->probe.bps,
      "columns", G_TYPE_UINT, L, "rows", G_TYPE_UINT, D, NULL);
  GST_OBJECT_UNLOCK (self);
  return s;
}

static void
gst_fec_enc_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstFecEnc *self = GST_FEC_ENC (object);
  gboolean geometry = FALSE;

  GST_OBJECT_LOCK (self);
  if ((pspec->flags & GST_PARAM_MUTABLE_READY) &&
      GST_STATE (self) > GST_STATE_READY) {
    GST_OBJECT_UNLOCK (self);
    GST_WARNING_OBJECT (self, "property '%s' can only be changed in the "
        "NULL or READY state; ignored", pspec->name);
    return;
  }
  switch (prop_id) {
    case PROP_PT:
      self->cfg.pt = g_value_get_uint (value);
      break;
    case PROP_SSRC:
      self->cfg.ssrc = g_value_get_uint (value);
      self->ssrc_set = self->cfg.ssrc != 0;
      break;
    case PROP_MODE:
      self->cfg.mode = g_value_get_enum (value);
      geometry = TRUE;
      break;
    case PROP_COLUMNS:
      self->cfg.L = g_value_get_uint (value);
      geometry = TRUE;
      break;
    case PROP_ROWS:
      self->cfg.D = g_value_get_uint (value);
      geometry = TRUE;
      break;
    case PROP_OVERHEAD:
      self->cfg.overhead = g_value_get_double (value);
      /* An explicit overhead ends probe mode. */
      rc_fec_probe_stop (&self->probe);
      if (self->enc)
        rc_fec_encoder_set_overhead (self->enc, self->cfg.overhead);
      break;
    case PROP_FORMAT:
      self->cfg.format = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  if (geometry && self->enc)
    rc_fec_encoder_reconfigure (self->enc, &self->cfg);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_fec_enc_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstFecEnc *self = GST_FEC_ENC (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, get_stats (self));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_PT:
      g_value_set_uint (value, self->cfg.pt);
      break;
    case PROP_SSRC:
      g_value_set_uint (value, self->cfg.ssrc);
      break;
    case PROP_MODE:
      g_value_set_enum (value, self->cfg.mode);
      break;
    case PROP_COLUMNS:
      g_value_set_uint (value, self->cfg.L);
      break;
    case PROP_ROWS:
      g_value_set_uint (value, self->cfg.D);
      break;
    case PROP_OVERHEAD:
      g_value_set_double (value, self->cfg.overhead);
      break;
    case PROP_FORMAT:
      g_value_set_enum (value, self->cfg.format);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_fec_enc_finalize (GObject * object)
{
  GstFecEnc *self = GST_FEC_ENC (object);

  rc_fec_encoder_free (self->enc);
  rc_fec_probe_clear (&self->probe);
  rc_rate_meter_clear (&self->fec_rate);
  g_ptr_array_unref (self->out);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_fec_enc_class_init (GstFecEncClass * klass)
{
  GObjectClass *gobject_class = (GObjectClass *) klass;
  GstElementClass *element_class = (GstElementClass *) klass;
  const GParamFlags rw_ready = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;
  const GParamFlags rw_playing = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_fec_enc_set_property;
  gobject_class->get_property = gst_fec_enc_get_property;
  gobject_class->finalize = gst_fec_enc_finalize;
  element_class->change_state = gst_fec_enc_change_state;

  g_object_class_install_property (gobject_class, PROP_PT,
      g_param_spec_uint ("pt", "Payload type",
          "Payload type of the repair packets", 0, 127, DEFAULT_PT,
          rw_ready));
  g_object_class_install_property (gobject_class, PROP_SSRC,
      g_param_spec_uint ("ssrc", "SSRC",
          "SSRC of the flexfec repair stream (0: random)", 0, G_MAXUINT,
          DEFAULT_SSRC, rw_ready));
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode", "Parity groups", GST_TYPE_FEC_MODE,
          DEFAULT_MODE, rw_playing));
  g_object_class_install_property (gobject_class, PROP_COLUMNS,
      g_param_spec_uint ("columns", "Columns (L)",
          "Row length / number of columns L (used as given when overhead "
          "is -1; column mode keeps it as the interleave width)", 1,
          RC_FEC_MAX_LD, DEFAULT_COLUMNS, rw_playing));
  g_object_class_install_property (gobject_class, PROP_ROWS,
      g_param_spec_uint ("rows", "Rows (D)",
          "Rows D of a column or 2-D block (used as given when overhead "
          "is -1)", 1, RC_FEC_MAX_LD, DEFAULT_ROWS, rw_playing));
  g_object_class_install_property (gobject_class, PROP_OVERHEAD,
      g_param_spec_double ("overhead", "Overhead",
          "Repair packets per media packet (percent); -1: L x D geometry as "
          "given; 0: no FEC. Changeable while playing; applies from the "
          "next group", -1.0, 100.0, DEFAULT_OVERHEAD, rw_playing));
  g_object_class_install_property (gobject_class, PROP_FORMAT,
      g_param_spec_enum ("format", "Format", "Repair packet format",
          GST_TYPE_FEC_FORMAT, DEFAULT_FORMAT, rw_ready));
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Packets protected, repair packets and bytes, overhead: an "
          "application/x-fecenc-stats structure (fields: "
          "docs/elements/fecenc.md)", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "XOR parity FEC encoder", "Codec/Encoder/Network/RTP",
      "Adds RFC 8627 flexible FEC or RFC 5109 ULPFEC repair packets; "
      "the amount follows an overhead or a probe bitrate",
      "gst-ratecontrol developers");
  gst_type_mark_as_plugin_api (GST_TYPE_FEC_MODE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_FEC_FORMAT, 0);
}

static void
gst_fec_enc_init (GstFecEnc * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad, gst_fec_enc_chain);
  gst_pad_set_event_function (self->sinkpad, gst_fec_enc_sink_event);
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_event_function (self->srcpad, gst_fec_enc_src_event);
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  rc_fec_encoder_config_init (&self->cfg);
  self->cfg.pt = DEFAULT_PT;
  self->cfg.mode = DEFAULT_MODE;
  self->cfg.L = DEFAULT_COLUMNS;
  self->cfg.D = DEFAULT_ROWS;
  self->cfg.overhead = DEFAULT_OVERHEAD;
  self->cfg.format = DEFAULT_FORMAT;
  rc_fec_probe_init (&self->probe);
  rc_rate_meter_init (&self->fec_rate, RATE_SPAN);
  gst_segment_init (&self->segment, GST_FORMAT_TIME);
  self->out = g_ptr_array_new ();
}
