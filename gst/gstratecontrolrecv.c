/**
 * SECTION:element-ratecontrolrecv
 * @title: ratecontrolrecv
 * @see_also: ratecontrolbin, fecdec
 *
 * The receiving side of `ratecontrolbin` in one element: RTP in on
 * #GstRateControlRecv:port over UDP, video out (decoded, or the encoded
 * stream with #GstRateControlRecv:decode=false). Inside: an rtpbin session
 * that sends transport-wide congestion control feedback and receiver
 * reports back to the sender (#GstRateControlRecv:sender-host, RTCP to
 * port + 5 by default, where `ratecontrolbin` listens), its jitterbuffer
 * (#GstRateControlRecv:latency), `fecdec` in rtpbin's request-fec-decoder
 * slot for the repair packets on #GstRateControlRecv:fec-pt, the
 * depayloader and the decoder for #GstRateControlRecv:encoding-name.
 *
 * Any RTP sender whose packets carry the transport-wide-cc extension as id
 * 1 gets feedback from it, e.g. pipelines/urcp-sender.sh.
 *
 * An `rcreceiver` between rtpbin and the depayloader adds its reports to
 * every RTCP packet. With #GstRateControlRecv:post-repair-reports (on by
 * default): an RFC 7509 XR post-repair loss block about the media stream:
 * over the sequence numbers since the previous one, the packets still
 * missing after FEC repair and the jitterbuffer (gaps in what reaches the
 * depayloader; packets the jitterbuffer drops as too late count as
 * missing) and those fecdec rebuilt. urcpsender's `fractal` controller
 * takes them as its loss after repair. With
 * #GstRateControlRecv:receiver-reports (on by default): late discards
 * (RFC 7002, RFC 7243) and the 3GPP NADU report, which the `cnadu`
 * controller reads. Peers that do not know a block ignore it (RFC 3611
 * sec. 2; RFC 3550 sec. 6.7 for APP). For `cnadu` also set
 * #GstRateControlRecv:adapt-rtcp-interval, for `r3cp`
 * #GstRateControlRecv:r3cp.
 *
 * #GstRateControlRecv:fec-stats is fecdec's #GstFecDec:stats: packets and
 * frames lost and rebuilt, and FRACTaL's frame recovery efficiency (`ffre`).
 *
 * ## Example
 * |[
 * gst-launch-1.0 ratecontrolrecv port=5000 ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>
#include "gstratecontrolrecv.h"
#include "gstfecenc.h"
#include "rc-fec.h"
#include "gstrcencoder.h"
#include "rc-twcc.h"
#include "rc-rtcp.h"
#include <gst/rtp/gstrtpbuffer.h>

GST_DEBUG_CATEGORY_STATIC (gst_rate_control_recv_debug);
#define GST_CAT_DEFAULT gst_rate_control_recv_debug

#define DEFAULT_PORT 5000
#define DEFAULT_SENDER_HOST "127.0.0.1"
#define DEFAULT_ENCODING "VP8"
#define DEFAULT_PT 96
#define DEFAULT_FEC_PT 100
#define DEFAULT_LATENCY 200
#define DEFAULT_DECODE TRUE
#define DEFAULT_POST_REPAIR TRUE
#define DEFAULT_RECEIVER_REPORTS TRUE
#define DEFAULT_ADAPT_RTCP_INTERVAL FALSE
#define DEFAULT_R3CP FALSE
/* rtpsession sends transport-wide feedback only in RTCP packets, and its
 * first one after a randomised 1.25-3.75 s (RFC 3550 sec. 6.3.5, half the
 * 5 s minimum): the sender ran that long with no feedback. A 100 ms
 * minimum (RFC 4585 allows any) brings the first feedback within a few
 * hundred ms and costs a receiver report of ~50 bytes each. */
#define RTCP_MIN_INTERVAL (100 * GST_MSECOND)

enum
{
  PROP_0,
  PROP_PORT,
  PROP_RTCP_PORT,
  PROP_SENDER_HOST,
  PROP_SENDER_RTCP_PORT,
  PROP_ENCODING_NAME,
  PROP_PT,
  PROP_FEC_PT,
  PROP_FEC_FORMAT,
  PROP_LATENCY,
  PROP_DECODE,
  PROP_POST_REPAIR,
  PROP_POST_REPAIR_SENT,
  PROP_FEC_STATS,
  PROP_RECEIVER_REPORTS,
  PROP_ADAPT_RTCP_INTERVAL,
  PROP_R3CP,
};

/* Depayloader and decoders (the first one installed) per encoding. */
typedef struct
{
  const gchar *encoding;
  const gchar *depay;
  const gchar *decoders[3];
} Codec;

static const Codec codecs[] = {
  {"VP8", "rtpvp8depay", {"vp8dec", NULL}},
  {"VP9", "rtpvp9depay", {"vp9dec", NULL}},
  {"H264", "rtph264depay", {"avdec_h264", "openh264dec", NULL}},
  {"H265", "rtph265depay", {"avdec_h265", NULL}},
  {"THEORA", "rtptheoradepay", {"theoradec", NULL}},
  {"MP4V-ES", "rtpmp4vdepay", {"avdec_mpeg4", NULL}},
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

G_DEFINE_TYPE (GstRateControlRecv, gst_rate_control_recv, GST_TYPE_BIN);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (ratecontrolrecv, "ratecontrolrecv",
    GST_RANK_NONE, GST_TYPE_RATE_CONTROL_RECV,
    GST_DEBUG_CATEGORY_INIT (gst_rate_control_recv_debug, "ratecontrolrecv",
        0, "one-element RTP video receiver sending congestion feedback"));

static const Codec *
codec_for (const gchar * encoding)
{
  guint i;

  for (i = 0; encoding && i < G_N_ELEMENTS (codecs); i++)
    if (g_ascii_strcasecmp (encoding, codecs[i].encoding) == 0)
      return &codecs[i];
  return NULL;
}

/* The media caps, with the transport-wide-cc extension so that the session
 * sends feedback. Object lock held. */
static GstCaps *
media_caps_locked (GstRateControlRecv * self)
{
  return gst_caps_new_simple ("application/x-rtp",
      "media", G_TYPE_STRING, "video", "clock-rate", G_TYPE_INT, 90000,
      "encoding-name", G_TYPE_STRING, self->encoding_name,
      "payload", G_TYPE_INT, self->pt, "extmap-1", G_TYPE_STRING,
      RC_TWCC_EXT_URI, NULL);
}

static GstCaps *
on_pt_map (GstElement * rtpbin, guint session, guint pt,
    GstRateControlRecv * self)
{
  GstCaps *caps = NULL;

  GST_OBJECT_LOCK (self);
  if ((gint) pt == self->pt)
    caps = media_caps_locked (self);
  else if ((gint) pt == self->fec_pt)
    /* is-fec: rtpbin's payload demuxer drops the repair packets after
     * fecdec has used them. */
    caps = gst_caps_new_simple ("application/x-rtp", "media", G_TYPE_STRING,
        "video", "clock-rate", G_TYPE_INT, 90000, "encoding-name",
        G_TYPE_STRING, "FEC", "payload", G_TYPE_INT, pt, "is-fec",
        G_TYPE_BOOLEAN, TRUE, NULL);
  GST_OBJECT_UNLOCK (self);
  return caps;
}

static GstElement *
on_fec_decoder (GstElement * rtpbin, guint session, GstRateControlRecv * self)
{
  GstElement *dec;
  gint pt, format;

  GST_OBJECT_LOCK (self);
  pt = self->fec_pt;
  format = self->fec_format;
  GST_OBJECT_UNLOCK (self);
  if (pt < 0)
    return NULL;
  dec = gst_element_factory_make ("fecdec", NULL);
  if (dec) {
    g_object_set (dec, "pt", (guint) pt, "format", format, NULL);
    GST_OBJECT_LOCK (self);
    gst_object_replace ((GstObject **) & self->fecdec, GST_OBJECT (dec));
    GST_OBJECT_UNLOCK (self);
  }
  return dec;
}

static void
on_pad_added (GstElement * rtpbin, GstPad * pad, GstRateControlRecv * self)
{
  GstPad *sink;
  guint session, ssrc, pt;

  if (sscanf (GST_PAD_NAME (pad), "recv_rtp_src_%u_%u_%u", &session, &ssrc,
          &pt) != 3 || !self->depay || !self->report)
    return;
  sink = gst_element_get_static_pad (self->report, "sink");
  if (gst_pad_is_linked (sink)) {
    GST_WARNING_OBJECT (self, "a second stream (SSRC %08x, pt %u) is not "
        "played: the depayloader already has one", ssrc, pt);
  } else if (gst_pad_link (pad, sink) != GST_PAD_LINK_OK) {
    GST_ELEMENT_WARNING (self, CORE, NEGOTIATION,
        ("The received stream (payload type %u) does not fit the %s "
            "depayloader; check encoding-name and pt.", pt,
            GST_OBJECT_NAME (self->depay)), (NULL));
  } else {
    GST_INFO_OBJECT (self, "playing SSRC %08x, pt %u", ssrc, pt);
  }
  gst_object_unref (sink);
}

/* Depayloader and decoder for the encoding chosen, linked to the src
 * pad. */
static gboolean
build (GstRateControlRecv * self)
{
  const Codec *c;
  GstElement *dec = NULL;
  GstElement *last;
  GstCaps *caps;
  gchar *encoding;
  gboolean decode, post_repair, reports, adapt, r3cp;
  gint port, rtcp, back, latency;
  gchar *host;
  GstPad *pad;
  guint i;

  GST_OBJECT_LOCK (self);
  encoding = g_strdup (self->encoding_name);
  decode = self->decode;
  port = self->port;
  rtcp = self->rtcp_port >= 0 ? self->rtcp_port : port + 1;
  back = self->sender_rtcp_port >= 0 ? self->sender_rtcp_port : port + 5;
  host = g_strdup (self->sender_host);
  latency = self->latency;
  caps = media_caps_locked (self);
  post_repair = self->post_repair;
  reports = self->receiver_reports;
  adapt = self->adapt_rtcp_interval;
  r3cp = self->r3cp;
  GST_OBJECT_UNLOCK (self);

  /* not under our lock: a child's property change notifies its parents */
  if (self->report)
    g_object_set (self->report, "post-repair-reports", post_repair,
        "discard-reports", reports, "nadu-reports", reports,
        "adapt-interval", adapt, "r3cp", r3cp, NULL);

  g_object_set (self->rtpsrc, "port", port, "caps", caps, NULL);
  g_object_set (self->rtcpsrc, "port", rtcp, NULL);
  g_object_set (self->rtcpsink, "host", host, "port", back, NULL);
  g_object_set (self->rtpbin, "latency", (guint) latency, NULL);
  gst_caps_unref (caps);
  GST_INFO_OBJECT (self, "RTP on %d, RTCP on %d, RTCP back to %s:%d", port,
      rtcp, host, back);
  g_free (host);

  if (self->depay) {
    g_free (encoding);
    return TRUE;                /* built at an earlier start */
  }
  c = codec_for (encoding);
  if (!c) {
    GST_ELEMENT_ERROR (self, CORE, MISSING_PLUGIN,
        ("ratecontrolrecv does not know the encoding '%s' (it knows VP8, "
            "VP9, H264, H265, THEORA, MP4V-ES).", encoding), (NULL));
    g_free (encoding);
    return FALSE;
  }
  g_free (encoding);
  self->depay = gst_element_factory_make (c->depay, "depay");
  for (i = 0; decode && !dec && c->decoders[i]; i++)
    dec = gst_element_factory_make (c->decoders[i], "decoder");
  if (!self->depay || (decode && !dec)) {
    GST_ELEMENT_ERROR (self, CORE, MISSING_PLUGIN,
        ("No %s for %s is installed.", self->depay ? "decoder" :
            "depayloader", c->encoding),
        ("Looked for %s and %s; decode=false gives the encoded stream.",
            c->depay, c->decoders[0]));
    gst_clear_object (&self->depay);
    gst_clear_object (&dec);
    return FALSE;
  }
  gst_bin_add (GST_BIN (self), self->depay);
  if (self->report)
    gst_element_link (self->report, self->depay);
  last = self->depay;
  if (dec) {
    gst_bin_add (GST_BIN (self), dec);
    gst_element_link (self->depay, dec);
    last = dec;
  }
  pad = gst_element_get_static_pad (last, "src");
  gst_ghost_pad_set_target (GST_GHOST_PAD (self->srcpad), pad);
  gst_object_unref (pad);
  return TRUE;
}

static GstStateChangeReturn
gst_rate_control_recv_change_state (GstElement * element,
    GstStateChange transition)
{
  GstRateControlRecv *self = GST_RATE_CONTROL_RECV (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY && !build (self))
    return GST_STATE_CHANGE_FAILURE;
  ret = GST_ELEMENT_CLASS (gst_rate_control_recv_parent_class)->change_state
      (element, transition);
  /* Live: nothing to preroll until the first packet. */
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED &&
      ret == GST_STATE_CHANGE_SUCCESS)
    ret = GST_STATE_CHANGE_NO_PREROLL;
  return ret;
}

static void
gst_rate_control_recv_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRateControlRecv *self = GST_RATE_CONTROL_RECV (object);

  if (GST_STATE (self) > GST_STATE_NULL) {
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("'%s' can only be set while ratecontrolrecv is stopped (NULL); the "
            "new value is ignored.", pspec->name), (NULL));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_PORT:
      self->port = g_value_get_int (value);
      break;
    case PROP_RTCP_PORT:
      self->rtcp_port = g_value_get_int (value);
      break;
    case PROP_SENDER_HOST:
      g_free (self->sender_host);
      self->sender_host = g_value_dup_string (value);
      if (!self->sender_host)
        self->sender_host = g_strdup (DEFAULT_SENDER_HOST);
      break;
    case PROP_SENDER_RTCP_PORT:
      self->sender_rtcp_port = g_value_get_int (value);
      break;
    case PROP_ENCODING_NAME:
      g_free (self->encoding_name);
      self->encoding_name = g_value_dup_string (value);
      if (!self->encoding_name)
        self->encoding_name = g_strdup (DEFAULT_ENCODING);
      /* Another encoding needs another depayloader: rebuilt at start. */
      if (self->depay) {
        GstElement *depay = self->depay;
        self->depay = NULL;
        GST_OBJECT_UNLOCK (self);
        gst_ghost_pad_set_target (GST_GHOST_PAD (self->srcpad), NULL);
        gst_bin_remove (GST_BIN (self), depay);
        {
          GstElement *dec = gst_bin_get_by_name (GST_BIN (self), "decoder");
          if (dec) {
            gst_bin_remove (GST_BIN (self), dec);
            gst_object_unref (dec);
          }
        }
        return;
      }
      break;
    case PROP_PT:
      self->pt = g_value_get_int (value);
      break;
    case PROP_FEC_PT:
      self->fec_pt = g_value_get_int (value);
      break;
    case PROP_FEC_FORMAT:
      self->fec_format = g_value_get_enum (value);
      break;
    case PROP_LATENCY:
      self->latency = g_value_get_int (value);
      break;
    case PROP_DECODE:
      self->decode = g_value_get_boolean (value);
      break;
    case PROP_POST_REPAIR:
      self->post_repair = g_value_get_boolean (value);
      break;
    case PROP_RECEIVER_REPORTS:
      self->receiver_reports = g_value_get_boolean (value);
      break;
    case PROP_ADAPT_RTCP_INTERVAL:
      self->adapt_rtcp_interval = g_value_get_boolean (value);
      break;
    case PROP_R3CP:
      self->r3cp = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rate_control_recv_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstRateControlRecv *self = GST_RATE_CONTROL_RECV (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_PORT:
      g_value_set_int (value, self->port);
      break;
    case PROP_RTCP_PORT:
      g_value_set_int (value, self->rtcp_port);
      break;
    case PROP_SENDER_HOST:
      g_value_set_string (value, self->sender_host);
      break;
    case PROP_SENDER_RTCP_PORT:
      g_value_set_int (value, self->sender_rtcp_port);
      break;
    case PROP_ENCODING_NAME:
      g_value_set_string (value, self->encoding_name);
      break;
    case PROP_PT:
      g_value_set_int (value, self->pt);
      break;
    case PROP_FEC_PT:
      g_value_set_int (value, self->fec_pt);
      break;
    case PROP_FEC_FORMAT:
      g_value_set_enum (value, self->fec_format);
      break;
    case PROP_LATENCY:
      g_value_set_int (value, self->latency);
      break;
    case PROP_DECODE:
      g_value_set_boolean (value, self->decode);
      break;
    case PROP_POST_REPAIR:
      g_value_set_boolean (value, self->post_repair);
      break;
    case PROP_RECEIVER_REPORTS:
      g_value_set_boolean (value, self->receiver_reports);
      break;
    case PROP_ADAPT_RTCP_INTERVAL:
      g_value_set_boolean (value, self->adapt_rtcp_interval);
      break;
    case PROP_R3CP:
      g_value_set_boolean (value, self->r3cp);
      break;
    case PROP_POST_REPAIR_SENT:{
      GstStructure *st = NULL;
      guint64 n = 0;
      if (self->report)
        g_object_get (self->report, "stats", &st, NULL);
      if (st)
        gst_structure_get_uint64 (st, "post-repair-sent", &n);
      g_value_set_uint64 (value, n);
      if (st)
        gst_structure_free (st);
      break;
    }
    case PROP_FEC_STATS:{
      GstStructure *st = NULL;
      if (self->fecdec)
        g_object_get (self->fecdec, "stats", &st, NULL);
      g_value_take_boxed (value, st);
      break;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rate_control_recv_finalize (GObject * object)
{
  GstRateControlRecv *self = GST_RATE_CONTROL_RECV (object);

  g_free (self->sender_host);
  g_free (self->encoding_name);
  gst_clear_object (&self->fecdec);
  G_OBJECT_CLASS (gst_rate_control_recv_parent_class)->finalize (object);
}

static void
gst_rate_control_recv_class_init (GstRateControlRecvClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = gst_rate_control_recv_set_property;
  gobject_class->get_property = gst_rate_control_recv_get_property;
  gobject_class->finalize = gst_rate_control_recv_finalize;
  element_class->change_state = gst_rate_control_recv_change_state;

  g_object_class_install_property (gobject_class, PROP_PORT,
      g_param_spec_int ("port", "Port", "Local RTP port; changeable in NULL",
          1, 65535, DEFAULT_PORT, rw));
  g_object_class_install_property (gobject_class, PROP_RTCP_PORT,
      g_param_spec_int ("rtcp-port", "RTCP port",
          "Local RTCP port (-1: port + 1); changeable in NULL", -1, 65535, -1,
          rw));
  g_object_class_install_property (gobject_class, PROP_SENDER_HOST,
      g_param_spec_string ("sender-host", "Sender host",
          "Where RTCP and the congestion feedback go; changeable in NULL",
          DEFAULT_SENDER_HOST, rw));
  g_object_class_install_property (gobject_class, PROP_SENDER_RTCP_PORT,
      g_param_spec_int ("sender-rtcp-port", "Sender RTCP port",
          "The sender's port for RTCP and feedback (-1: port + 5, "
          "ratecontrolbin's rtcp-recv-port default); changeable in NULL", -1,
          65535, -1, rw));
  g_object_class_install_property (gobject_class, PROP_ENCODING_NAME,
      g_param_spec_string ("encoding-name", "Encoding name",
          "RTP encoding of the stream: VP8, VP9, H264, H265, THEORA, "
          "MP4V-ES; changeable in NULL", DEFAULT_ENCODING, rw));
  g_object_class_install_property (gobject_class, PROP_PT,
      g_param_spec_int ("pt", "Payload type", "Payload type of the media; "
          "changeable in NULL", 0, 127, DEFAULT_PT, rw));
  g_object_class_install_property (gobject_class, PROP_FEC_PT,
      g_param_spec_int ("fec-pt", "FEC payload type",
          "Payload type of the repair packets (-1: no FEC decoding); "
          "changeable in NULL", -1, 127, DEFAULT_FEC_PT, rw));
  g_object_class_install_property (gobject_class, PROP_FEC_FORMAT,
      g_param_spec_enum ("fec-format", "FEC format",
          "Format of the repair packets (the sender's fec-format); "
          "changeable in NULL", GST_TYPE_FEC_FORMAT, RC_FEC_FORMAT_FLEXFEC,
          rw));
  g_object_class_install_property (gobject_class, PROP_LATENCY,
      g_param_spec_int ("latency", "Latency",
          "Jitterbuffer latency (ms); changeable in NULL", 0, 10000,
          DEFAULT_LATENCY, rw));
  g_object_class_install_property (gobject_class, PROP_DECODE,
      g_param_spec_boolean ("decode", "Decode",
          "Output decoded video (else the encoded stream, depayloaded); "
          "changeable in NULL", DEFAULT_DECODE, rw));

  g_object_class_install_property (gobject_class, PROP_POST_REPAIR,
      g_param_spec_boolean ("post-repair-reports", "Post-repair reports",
          "Add an RFC 7509 post-repair loss block (XR) about the media to "
          "every RTCP packet; changeable in NULL", DEFAULT_POST_REPAIR, rw));
  g_object_class_install_property (gobject_class, PROP_POST_REPAIR_SENT,
      g_param_spec_uint64 ("post-repair-sent", "Post-repair blocks sent",
          "RFC 7509 blocks sent so far", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_FEC_STATS,
      g_param_spec_boxed ("fec-stats", "FEC statistics",
          "fecdec's stats (packets and frames lost and rebuilt, ffre: "
          "docs/elements/fecdec.md); NULL until rtpbin has made the decoder "
          "or with fec-pt=-1", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_RECEIVER_REPORTS,
      g_param_spec_boolean ("receiver-reports", "Receiver reports",
          "Add rcreceiver's late-discard (RFC 7002, RFC 7243) and NADU "
          "reports to every RTCP packet, for the cnadu controller; "
          "changeable in NULL", DEFAULT_RECEIVER_REPORTS, rw));
  g_object_class_install_property (gobject_class, PROP_ADAPT_RTCP_INTERVAL,
      g_param_spec_boolean ("adapt-rtcp-interval", "Adapt the RTCP interval",
          "Let the RTCP interval follow C-NADU's Algorithm 1 (up to 5 s "
          "while all is well): for cnadu. Off (the default), RTCP, and the "
          "transport-wide feedback in it, goes every 100 ms or so, which "
          "the TWCC controllers need; changeable in NULL",
          DEFAULT_ADAPT_RTCP_INTERVAL, rw));
  g_object_class_install_property (gobject_class, PROP_R3CP,
      g_param_spec_boolean ("r3cp", "R3CP+ rate requests",
          "Ask the sender for a rate by R3CP+ (rcreceiver r3cp=true: TMMBR "
          "requests, RTCP every forecast RTT): for the r3cp controller; "
          "changeable in NULL", DEFAULT_R3CP, rw));

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Rate-controlled RTP video receiver", "Source/Network/RTP",
      "Receives RTP video over UDP, repairs it with FEC and sends the "
      "sender transport-wide congestion feedback: ratecontrolbin's peer",
      "gst-ratecontrol developers");
}

static void
gst_rate_control_recv_init (GstRateControlRecv * self)
{
  self->port = DEFAULT_PORT;
  self->rtcp_port = self->sender_rtcp_port = -1;
  self->sender_host = g_strdup (DEFAULT_SENDER_HOST);
  self->encoding_name = g_strdup (DEFAULT_ENCODING);
  self->pt = DEFAULT_PT;
  self->fec_pt = DEFAULT_FEC_PT;
  self->latency = DEFAULT_LATENCY;
  self->decode = DEFAULT_DECODE;
  self->fec_format = RC_FEC_FORMAT_FLEXFEC;
  self->post_repair = DEFAULT_POST_REPAIR;
  self->receiver_reports = DEFAULT_RECEIVER_REPORTS;
  self->adapt_rtcp_interval = DEFAULT_ADAPT_RTCP_INTERVAL;
  self->r3cp = DEFAULT_R3CP;

  self->srcpad = gst_ghost_pad_new_no_target_from_template ("src",
      gst_static_pad_template_get (&src_template));
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  self->rtpsrc = gst_rc_bin_add_new (GST_BIN (self), "udpsrc", "rtpsrc");
  self->rtcpsrc = gst_rc_bin_add_new (GST_BIN (self), "udpsrc", "rtcpsrc");
  self->rtpbin = gst_rc_bin_add_new (GST_BIN (self), "rtpbin", "rtpbin");
  self->rtcpsink = gst_rc_bin_add_new (GST_BIN (self), "udpsink", "rtcpsink");
  /* between rtpbin and the depayloader: discards, NADU, post-repair loss */
  self->report = gst_rc_bin_add_new (GST_BIN (self), "rcreceiver", "report");
  if (!self->rtpsrc || !self->rtcpsrc || !self->rtpbin || !self->rtcpsink ||
      !self->report)
    return;
  g_object_set (self->rtcpsink, "sync", FALSE, "async", FALSE, NULL);
  g_signal_connect (self->rtpbin, "request-pt-map", G_CALLBACK (on_pt_map),
      self);
  g_signal_connect (self->rtpbin, "request-fec-decoder",
      G_CALLBACK (on_fec_decoder), self);
  g_signal_connect (self->rtpbin, "pad-added", G_CALLBACK (on_pad_added),
      self);
  gst_element_link_pads (self->rtpsrc, "src", self->rtpbin,
      "recv_rtp_sink_0");
  gst_element_link_pads (self->rtcpsrc, "src", self->rtpbin,
      "recv_rtcp_sink_0");
  gst_element_link_pads (self->rtpbin, "send_rtcp_src_0", self->rtcpsink,
      "sink");
  {
    GObject *session = NULL;
    g_signal_emit_by_name (self->rtpbin, "get-internal-session", 0, &session);
    if (session) {
      g_object_set (session, "rtcp-min-interval", RTCP_MIN_INTERVAL, NULL);
      g_object_unref (session);
    }
  }
}
