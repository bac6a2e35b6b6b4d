/* GStreamer XOR parity FEC decoder (RFC 8627 flexible FEC, RFC 5109 ULPFEC).
 *
 * SECTION:element-fecdec
 * @title: fecdec
 * @short_description: repairs lost RTP packets from XOR repair packets
 * (fecenc's, or rtpulpfecenc's with format=ulpfec).
 *
 * `fecdec` takes the media and the repair packets on one sink pad, passes
 * the media on, drops the repair packets and pushes every packet that a
 * parity equation can rebuild as soon as it can: when the repair packet
 * arrives after its group, or when the last other packet of a group
 * arrives after the repair packet. Rows and columns of 2-D blocks are
 * iterated, so a loss that only a column can repair in turn lets a row
 * repair another. It keeps its own window of recent packets (bounded by
 * #GstFecDec:window), so unlike `rtpulpfecdec` it needs no `rtpstorage` and
 * no jitterbuffer with `do-lost`.
 *
 * Recovered packets are pushed at once and may therefore come after later
 * packets: put fecdec before a jitterbuffer (before rtpbin's
 * `recv_rtp_sink_%u`, or `fecdec ! rtpjitterbuffer ! depayloader`), which
 * puts them back in order. Repair packets are told apart by payload type
 * (#GstFecDec:pt) and, for flexfec, by an SSRC other than the media's
 * (or exactly #GstFecDec:fec-ssrc if set). Duplicate media packets are
 * dropped.
 *
 * Malformed repair packets (truncated, impossible lengths, masks outside
 * the window, wrong SSRC, duplicates, protecting packets long gone, or not
 * matching the packets they protect) are counted in `rejected`, logged,
 * and never produce a packet.
 *
 * ## Example receiver (pipelines/fec-receiver.sh)
 * |[
 * gst-launch-1.0 udpsrc port=5000 caps='application/x-rtp,media=video,clock-rate=90000,encoding-name=VP8,payload=96' ! \
 *   fecdec pt=100 ! rtpjitterbuffer latency=100 ! rtpvp8depay ! vp8dec ! \
 *   videoconvert ! autovideosink
 * ]|
 *
 * ## Statistics
 * #GstFecDec:stats has (guint64) `media-received`, `fec-received`,
 * `recovered`, `unrecoverable` (lost media no repair rebuilt), `rejected`,
 * `duplicates`, `lost-before` and `lost-after` (lost media before and
 * after repair, counted once a packet has left the window), and (gdouble)
 * `loss-before`, `loss-after` (the same as fractions of the media
 * expected).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/rtp/gstrtpbuffer.h>
#include "gstfecdec.h"
#include "gstfecenc.h"

GST_DEBUG_CATEGORY_STATIC (gst_fec_dec_debug);
#define GST_CAT_DEFAULT gst_fec_dec_debug

enum
{
  PROP_0,
  PROP_PT,
  PROP_FORMAT,
  PROP_FEC_SSRC,
  PROP_SSRC,
  PROP_WINDOW,
  PROP_STATS,
};

/* fecenc's default payload type. */
#define DEFAULT_PT 100
#define DEFAULT_FORMAT RC_FEC_FORMAT_FLEXFEC
#define DEFAULT_FEC_SSRC 0
#define DEFAULT_SSRC 0
/* Long enough for a 10 x 10 block at ~100 packets/s (1 Mbit/s of 1200-byte
 * packets); short enough to bound memory. */
#define DEFAULT_WINDOW (1 * GST_SECOND)
/* Warn about this many rejected repair packets, then log at DEBUG. */
#define MAX_WARNINGS 10

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_fec_dec_parent_class parent_class
G_DEFINE_TYPE (GstFecDec, gst_fec_dec, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (fecdec, "fecdec", GST_RANK_NONE,
    GST_TYPE_FEC_DEC, GST_DEBUG_CATEGORY_INIT (gst_fec_dec_debug, "fecdec", 0,
        "XOR parity FEC decoder"));

static GstClockTime
buffer_time (GstFecDec * self, GstBuffer * buf)
{
  GstClockTime t = GST_BUFFER_DTS_OR_PTS (buf);

  if (GST_CLOCK_TIME_IS_VALID (t) && self->segment.format == GST_FORMAT_TIME)
    t = gst_segment_to_running_time (&self->segment, GST_FORMAT_TIME, t);
  if (!GST_CLOCK_TIME_IS_VALID (t))
    t = gst_element_get_current_running_time (GST_ELEMENT (self));
  /* No timestamps and no clock: time stands still and the window is bound
   * by its seqnum capacity alone. */
  return GST_CLOCK_TIME_IS_VALID (t) ? t : 0;
}

static guint16
buf_seq (GstBuffer * b)
{
  guint8 h[4];

  if (gst_buffer_extract (b, 0, h, 4) != 4)
    return 0;
  return GST_READ_UINT16_BE (h + 2);
}

static GstFlowReturn
gst_fec_dec_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstFecDec *self = GST_FEC_DEC (parent);
  GstClockTime now = buffer_time (self, buf);
  GstFlowReturn ret = GST_FLOW_OK;
  gboolean is_fec, forward = TRUE;
  RcFecResult r;
  GPtrArray *out;
  guint i;

  GST_OBJECT_LOCK (self);
  if (!self->dec) {
    GST_OBJECT_UNLOCK (self);
    gst_buffer_unref (buf);
    return GST_FLOW_FLUSHING;
  }
  /* Only this streaming thread touches the scratch array. */
  out = self->out;
  is_fec = rc_fec_decoder_is_fec (self->dec, buf);
  if (is_fec) {
    r = rc_fec_decoder_push_fec (self->dec, buf, now, out);
    forward = FALSE;
  } else {
    r = rc_fec_decoder_push_media (self->dec, buf, now, out);
    forward = r != RC_FEC_DUPLICATE;
  }
  if (r != RC_FEC_OK && r != RC_FEC_OLD) {
    RcFecDecoderStats st;
    rc_fec_decoder_get_stats (self->dec, &st);
    if (r != RC_FEC_DUPLICATE && st.rejected <= MAX_WARNINGS)
      GST_WARNING_OBJECT (self, "%s packet seq %u dropped: %s",
          is_fec ? "repair" : "media", buf_seq (buf),
          rc_fec_result_to_string (r));
    else
      GST_DEBUG_OBJECT (self, "%s packet seq %u: %s",
          is_fec ? "repair" : "media", buf_seq (buf),
          rc_fec_result_to_string (r));
  }
  GST_OBJECT_UNLOCK (self);

  /* Recovered packets older than the one that arrived go before it. */
  if (forward) {
    guint16 seq = buf_seq (buf);
    for (i = 0; i < out->len && ret == GST_FLOW_OK; i++) {
      GstBuffer *rb = out->pdata[i];
      if (rb && (gint16) (buf_seq (rb) - seq) < 0) {
        GST_BUFFER_PTS (rb) = GST_BUFFER_PTS (buf);
        GST_LOG_OBJECT (self, "pushing recovered seq %u", buf_seq (rb));
        ret = gst_pad_push (self->srcpad, rb);
        out->pdata[i] = NULL;
      }
    }
    if (ret == GST_FLOW_OK)
      ret = gst_pad_push (self->srcpad, buf);
    else
      gst_buffer_unref (buf);
    buf = NULL;
  }
  for (i = 0; i < out->len; i++) {
    GstBuffer *rb = out->pdata[i];
    if (!rb)
      continue;
    if (ret == GST_FLOW_OK) {
      if (buf)
        GST_BUFFER_PTS (rb) = GST_BUFFER_PTS (buf);
      GST_LOG_OBJECT (self, "pushing recovered seq %u", buf_seq (rb));
      ret = gst_pad_push (self->srcpad, rb);
    } else {
      gst_buffer_unref (rb);
    }
  }
  if (buf)
    gst_buffer_unref (buf);
  g_ptr_array_set_size (out, 0);
  return ret;
}

static gboolean
gst_fec_dec_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstFecDec *self = GST_FEC_DEC (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_SEGMENT:
      gst_event_copy_segment (event, &self->segment);
      break;
    case GST_EVENT_EOS:
    case GST_EVENT_FLUSH_STOP:
      /* Settle the loss counts of what is still in the window. */
      GST_OBJECT_LOCK (self);
      if (self->dec)
        rc_fec_decoder_reset (self->dec);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

/* -------------------------------------------------------- state change */

static GstStateChangeReturn
gst_fec_dec_change_state (GstElement * element, GstStateChange transition)
{
  GstFecDec *self = GST_FEC_DEC (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    GST_OBJECT_LOCK (self);
    rc_fec_decoder_free (self->dec);
    self->dec = rc_fec_decoder_new (&self->cfg);
    GST_OBJECT_UNLOCK (self);
  }

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);

  /* The decoder (and its counts) stays until the next start, so the
   * stats can still be read after the stream ended. */
  return ret;
}

/* ---------------------------------------------------------- properties */

static GstStructure *
get_stats (GstFecDec * self)
{
  RcFecDecoderStats st = { 0, };
  guint64 expected;

  GST_OBJECT_LOCK (self);
  if (self->dec)
    rc_fec_decoder_get_stats (self->dec, &st);
  GST_OBJECT_UNLOCK (self);
  /* Recovered packets are not in media_received: expected = received +
   * lost before repair. */
  expected = st.media_received + st.lost_before;
  return gst_structure_new ("application/x-fecdec-stats",
      "media-received", G_TYPE_UINT64, st.media_received,
      "fec-received", G_TYPE_UINT64, st.fec_received,
      "recovered", G_TYPE_UINT64, st.recovered,
      "unrecoverable", G_TYPE_UINT64, st.unrecoverable,
      "rejected", G_TYPE_UINT64, st.rejected,
      "duplicates", G_TYPE_UINT64, st.duplicates,
      "lost-before", G_TYPE_UINT64, st.lost_before,
      "lost-after", G_TYPE_UINT64, st.lost_after,
      "loss-before", G_TYPE_DOUBLE, expected ?
      (gdouble) st.lost_before / expected : 0.0,
      "loss-after", G_TYPE_DOUBLE, expected ?
      (gdouble) st.lost_after / expected : 0.0, NULL);
}

static void
gst_fec_dec_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstFecDec *self = GST_FEC_DEC (object);

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
    case PROP_FORMAT:
      self->cfg.format = g_value_get_enum (value);
      break;
    case PROP_FEC_SSRC:
      self->cfg.fec_ssrc = g_value_get_uint (value);
      self->cfg.match_fec_ssrc = self->cfg.fec_ssrc != 0;
      break;
    case PROP_SSRC:
      self->cfg.media_ssrc = g_value_get_uint (value);
      self->cfg.match_media_ssrc = self->cfg.media_ssrc != 0;
      break;
    case PROP_WINDOW:
      self->cfg.window = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_fec_dec_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstFecDec *self = GST_FEC_DEC (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, get_stats (self));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_PT:
      g_value_set_uint (value, self->cfg.pt);
      break;
    case PROP_FORMAT:
      g_value_set_enum (value, self->cfg.format);
      break;
    case PROP_FEC_SSRC:
      g_value_set_uint (value, self->cfg.fec_ssrc);
      break;
    case PROP_SSRC:
      g_value_set_uint (value, self->cfg.media_ssrc);
      break;
    case PROP_WINDOW:
      g_value_set_uint64 (value, self->cfg.window);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_fec_dec_finalize (GObject * object)
{
  GstFecDec *self = GST_FEC_DEC (object);

  rc_fec_decoder_free (self->dec);
  if (self->out)
    g_ptr_array_unref (self->out);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_fec_dec_class_init (GstFecDecClass * klass)
{
  GObjectClass *gobject_class = (GObjectClass *) klass;
  GstElementClass *element_class = (GstElementClass *) klass;
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  gobject_class->set_property = gst_fec_dec_set_property;
  gobject_class->get_property = gst_fec_dec_get_property;
  gobject_class->finalize = gst_fec_dec_finalize;
  element_class->change_state = gst_fec_dec_change_state;

  g_object_class_install_property (gobject_class, PROP_PT,
      g_param_spec_uint ("pt", "Payload type",
          "Payload type of the repair packets", 0, 127, DEFAULT_PT, rw));
  g_object_class_install_property (gobject_class, PROP_FORMAT,
      g_param_spec_enum ("format", "Format", "Repair packet format",
          GST_TYPE_FEC_FORMAT, DEFAULT_FORMAT, rw));
  g_object_class_install_property (gobject_class, PROP_FEC_SSRC,
      g_param_spec_uint ("fec-ssrc", "FEC SSRC",
          "Only accept flexfec repair packets from this SSRC (0: any)", 0,
          G_MAXUINT, DEFAULT_FEC_SSRC, rw));
  g_object_class_install_property (gobject_class, PROP_SSRC,
      g_param_spec_uint ("ssrc", "Media SSRC",
          "Only repair this media SSRC (0: any)", 0, G_MAXUINT, DEFAULT_SSRC,
          rw));
  g_object_class_install_property (gobject_class, PROP_WINDOW,
      g_param_spec_uint64 ("window", "Window",
          "How long packets are kept for repair (ns); bounds memory", 10 *
          GST_MSECOND, 10 * GST_SECOND, DEFAULT_WINDOW, rw));
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Repair and loss counts (see the element docs for the fields)",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "XOR parity FEC decoder", "Codec/Decoder/Network/RTP",
      "Repairs lost RTP packets from RFC 8627 flexible FEC or RFC 5109 "
      "ULPFEC repair packets, with no storage or jitterbuffer needed",
      "gst-ratecontrol developers");
}

static void
gst_fec_dec_init (GstFecDec * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad, gst_fec_dec_chain);
  gst_pad_set_event_function (self->sinkpad, gst_fec_dec_sink_event);
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  rc_fec_decoder_config_init (&self->cfg);
  self->cfg.pt = DEFAULT_PT;
  self->cfg.format = DEFAULT_FORMAT;
  self->cfg.window = DEFAULT_WINDOW;
  self->out = g_ptr_array_new ();
  gst_segment_init (&self->segment, GST_FORMAT_TIME);
}
