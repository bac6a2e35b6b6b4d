/**
 * SECTION:element-ratecontrolbin
 * @title: ratecontrolbin
 * @see_also: urcpsender, fecenc, ratecontrolrecv
 *
 * A live video sender in one element: raw video in, RTP and RTCP out to a
 * host over UDP, RTCP back in. Inside: videoconvert, the encoder
 * (#GstRateControlBin:encoder, vp8enc by default), its RTP payloader with
 * the transport-wide-cc header extension, `fecenc` (flexfec, 10 % repair
 * packets by default; #GstRateControlBin:fec-overhead=0 sends none),
 * `urcpsender` (controller and pacer; it drives the encoder) and an
 * rtpbin session. `ratecontrolrecv` decodes the repair packets.
 *
 * Every `urcpsender` property is a property of the bin under the same name
 * (controller, min/start/max-bitrate, each controller's parameters,
 * pacing, stats, target-bitrate with its notify), every `fecenc` property
 * under `fec-` (fec-format, fec-mode, fec-overhead, fec-pt, ...).
 *
 * RTP goes to #GstRateControlBin:host : #GstRateControlBin:port, RTCP to
 * port + 1 (#GstRateControlBin:rtcp-port), and the receiver's RTCP is read
 * on #GstRateControlBin:rtcp-recv-port (port + 5 by default), the ports
 * `ratecontrolrecv` and pipelines/urcp-receiver.sh use.
 *
 * EOS (`gst-launch-1.0 -e`) ends the stream with RTCP BYE and reaches the
 * bin's sinks; the bin applies the guard rtpbin 1.22 needs for that
 * (docs/fec.md, "EOS and rtpbin 1.22").
 *
 * ## Example
 * |[
 * gst-launch-1.0 ratecontrolrecv port=5000 ! videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc is-live=true ! video/x-raw,width=640,height=480 ! \
 *   ratecontrolbin host=127.0.0.1 port=5000 max-bitrate=4000000
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstratecontrolbin.h"
#include "gstrcencoder.h"
#include "gsturcpsender.h"
#include "gstfecenc.h"
#include "gstrcrtcpeos.h"
#include "rc-twcc.h"

GST_DEBUG_CATEGORY_STATIC (gst_rate_control_bin_debug);
#define GST_CAT_DEFAULT gst_rate_control_bin_debug

#define DEFAULT_ENCODER "vp8enc"
#define DEFAULT_HOST "127.0.0.1"
#define DEFAULT_PORT 5000
#define DEFAULT_PT 96
/* RTP packets at most this big: room below a 1500-byte MTU for IP/UDP, the
 * header extension and, for ULPFEC, its header. */
#define PAYLOADER_MTU 1200

enum
{
  PROP_0,
  PROP_ENCODER,
  PROP_HOST,
  PROP_PORT,
  PROP_RTCP_PORT,
  PROP_RTCP_RECV_PORT,
  PROP_URI,
  PROP_FWD_BASE,                /* then the forwarded properties */
};

/* A forwarded property: which child, under which name. */
typedef struct
{
  gboolean fec;                 /* fecenc, else urcpsender */
  const gchar *child_name;
} Forward;

static GArray *forwards;        /* Forward, index = prop_id - PROP_FWD_BASE */
static GParamSpec *target_pspec;

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw"));

G_DEFINE_TYPE (GstRateControlBin, gst_rate_control_bin, GST_TYPE_BIN);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (ratecontrolbin, "ratecontrolbin",
    GST_RANK_NONE, GST_TYPE_RATE_CONTROL_BIN,
    GST_DEBUG_CATEGORY_INIT (gst_rate_control_bin_debug, "ratecontrolbin", 0,
        "one-element rate-controlled RTP video sender"));

/* ------------------------------------------------------ property cloning */

/* A copy of `ps` named `name`, with its range, default and flags. NULL for
 * a type we do not forward. */
static GParamSpec *
clone_pspec (GParamSpec * ps, const gchar * name)
{
  const gchar *nick = g_param_spec_get_nick (ps);
  const gchar *blurb = g_param_spec_get_blurb (ps);
  GParamFlags flags = ps->flags & ~(G_PARAM_STATIC_STRINGS | G_PARAM_CONSTRUCT
      | G_PARAM_CONSTRUCT_ONLY);

  if (G_IS_PARAM_SPEC_BOOLEAN (ps))
    return g_param_spec_boolean (name, nick, blurb,
        G_PARAM_SPEC_BOOLEAN (ps)->default_value, flags);
  if (G_IS_PARAM_SPEC_UINT (ps)) {
    GParamSpecUInt *p = G_PARAM_SPEC_UINT (ps);
    return g_param_spec_uint (name, nick, blurb, p->minimum, p->maximum,
        p->default_value, flags);
  }
  if (G_IS_PARAM_SPEC_INT (ps)) {
    GParamSpecInt *p = G_PARAM_SPEC_INT (ps);
    return g_param_spec_int (name, nick, blurb, p->minimum, p->maximum,
        p->default_value, flags);
  }
  if (G_IS_PARAM_SPEC_UINT64 (ps)) {
    GParamSpecUInt64 *p = G_PARAM_SPEC_UINT64 (ps);
    return g_param_spec_uint64 (name, nick, blurb, p->minimum, p->maximum,
        p->default_value, flags);
  }
  if (G_IS_PARAM_SPEC_DOUBLE (ps)) {
    GParamSpecDouble *p = G_PARAM_SPEC_DOUBLE (ps);
    return g_param_spec_double (name, nick, blurb, p->minimum, p->maximum,
        p->default_value, flags);
  }
  if (G_IS_PARAM_SPEC_ENUM (ps))
    return g_param_spec_enum (name, nick, blurb, ps->value_type,
        G_PARAM_SPEC_ENUM (ps)->default_value, flags);
  if (G_IS_PARAM_SPEC_BOXED (ps))
    return g_param_spec_boxed (name, nick, blurb, ps->value_type, flags);
  return NULL;
}

static void
forward_class_props (GObjectClass * klass, GType child_type, gboolean fec,
    guint * next_id)
{
  GObjectClass *child = g_type_class_ref (child_type);
  GParamSpec **specs;
  guint i, n;

  specs = g_object_class_list_properties (child, &n);
  for (i = 0; i < n; i++) {
    GParamSpec *ps = specs[i], *copy;
    gchar *name;
    Forward f = { fec, g_param_spec_get_name (ps) };

    /* The bin names the encoder itself and has its own name and parent. */
    if (ps->owner_type != child_type || (!fec &&
            g_str_equal (f.child_name, "encoder")))
      continue;
    name = fec ? g_strdup_printf ("fec-%s", f.child_name) :
        g_strdup (f.child_name);
    copy = clone_pspec (ps, name);
    g_free (name);
    if (!copy)
      continue;
    g_array_append_val (forwards, f);
    g_object_class_install_property (klass, (*next_id)++, copy);
    if (!fec && g_str_equal (f.child_name, "target-bitrate"))
      target_pspec = copy;
  }
  g_free (specs);
  /* The class stays referenced: the copies' defaults and enum types are
   * its. */
}

/* ------------------------------------------------------------- building */

/* The encoder and payloader for `factory`, or FALSE with a message. */
static gboolean
make_encoder (GstRateControlBin * self, const gchar * factory,
    GstElement ** enc, GstElement ** pay)
{
  const GstRcEncoderInfo *info = gst_rc_encoder_info_lookup (factory);

  *enc = *pay = NULL;
  if (!info || !info->payloader) {
    GST_ELEMENT_ERROR (self, CORE, MISSING_PLUGIN,
        ("ratecontrolbin cannot use the encoder '%s': it takes encoders "
            "whose bitrate it knows how to set and that have an RTP "
            "payloader (vp8enc, vp9enc, x264enc, x265enc, openh264enc, ...).",
            factory), ("gst/gstrcencoder.c lists them."));
    return FALSE;
  }
  *enc = gst_element_factory_make (factory, "encoder");
  *pay = gst_element_factory_make (info->payloader, "payloader");
  if (!*enc || !*pay) {
    GST_ELEMENT_ERROR (self, CORE, MISSING_PLUGIN,
        ("The %s element is not installed.", *enc ? info->payloader :
            factory), ("ratecontrolbin needs %s and %s.", factory,
            info->payloader));
    gst_clear_object (enc);
    gst_clear_object (pay);
    return FALSE;
  }
  g_object_set (*pay, "pt", DEFAULT_PT, NULL);
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (*pay), "mtu"))
    g_object_set (*pay, "mtu", PAYLOADER_MTU, NULL);
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (*pay),
          "config-interval"))
    g_object_set (*pay, "config-interval", -1, NULL);
  return TRUE;
}

/* Puts the encoder chosen in: videoconvert ! encoder ! payloader !
 * capsfilter. Replaces the one there if the choice changed. */
static gboolean
build_encoder (GstRateControlBin * self)
{
  GstElement *enc, *pay;
  gchar *factory;
  GstPad *pad;

  GST_OBJECT_LOCK (self);
  factory = g_strdup (self->encoder_name);
  GST_OBJECT_UNLOCK (self);

  if (self->encoder && g_str_equal (self->built_encoder, factory)) {
    g_free (factory);
    return TRUE;
  }
  if (!make_encoder (self, factory, &enc, &pay)) {
    g_free (factory);
    return FALSE;
  }
  if (self->encoder) {
    gst_element_set_state (self->encoder, GST_STATE_NULL);
    gst_element_set_state (self->payloader, GST_STATE_NULL);
    gst_bin_remove_many (GST_BIN (self), self->encoder, self->payloader,
        NULL);
  }
  self->encoder = enc;
  self->payloader = pay;
  g_free (self->built_encoder);
  self->built_encoder = factory;
  gst_bin_add_many (GST_BIN (self), enc, pay, NULL);
  if (!gst_element_link_many (self->convert, enc, pay, self->rtpcaps, NULL)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Could not link %s to its payloader.", factory), (NULL));
    return FALSE;
  }
  pad = gst_element_get_static_pad (self->convert, "sink");
  gst_ghost_pad_set_target (GST_GHOST_PAD (self->sinkpad), pad);
  gst_object_unref (pad);
  GST_INFO_OBJECT (self, "encoder %s", factory);
  return TRUE;
}

static void
configure_network (GstRateControlBin * self)
{
  gchar *host;
  gint port, rtcp, back;

  GST_OBJECT_LOCK (self);
  host = g_strdup (self->host);
  port = self->port;
  rtcp = self->rtcp_port >= 0 ? self->rtcp_port : port + 1;
  back = self->rtcp_recv_port >= 0 ? self->rtcp_recv_port : port + 5;
  GST_OBJECT_UNLOCK (self);
  g_object_set (self->rtpsink, "host", host, "port", port, NULL);
  g_object_set (self->rtcpsink, "host", host, "port", rtcp, NULL);
  g_object_set (self->rtcpsrc, "port", back, NULL);
  GST_INFO_OBJECT (self, "RTP to %s:%d, RTCP to %s:%d, RTCP back on %d",
      host, port, host, rtcp, back);
  g_free (host);
}

static GstStateChangeReturn
gst_rate_control_bin_change_state (GstElement * element,
    GstStateChange transition)
{
  GstRateControlBin *self = GST_RATE_CONTROL_BIN (element);

  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    if (!build_encoder (self))
      return GST_STATE_CHANGE_FAILURE;
    configure_network (self);
  }
  return GST_ELEMENT_CLASS (gst_rate_control_bin_parent_class)->change_state
      (element, transition);
}

/* ----------------------------------------------------------- properties */

static gboolean
parse_uri (GstRateControlBin * self, const gchar * uri)
{
  GstUri *u = gst_uri_from_string (uri);
  gboolean ok = u && g_strcmp0 (gst_uri_get_scheme (u), "rtp") == 0 &&
      gst_uri_get_host (u) && gst_uri_get_port (u) != GST_URI_NO_PORT &&
      gst_uri_get_port (u) > 0 && gst_uri_get_port (u) < 65536;

  if (ok) {
    GST_OBJECT_LOCK (self);
    g_free (self->host);
    self->host = g_strdup (gst_uri_get_host (u));
    self->port = gst_uri_get_port (u);
    GST_OBJECT_UNLOCK (self);
  }
  if (u)
    gst_uri_unref (u);
  return ok;
}

static gboolean
settable_now (GstRateControlBin * self, const gchar * name)
{
  if (GST_STATE (self) <= GST_STATE_NULL)
    return TRUE;
  GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
      ("'%s' can only be set while ratecontrolbin is stopped (NULL); the "
          "new value is ignored.", name), (NULL));
  return FALSE;
}

static void
gst_rate_control_bin_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRateControlBin *self = GST_RATE_CONTROL_BIN (object);

  if (prop_id >= PROP_FWD_BASE) {
    Forward *f = &g_array_index (forwards, Forward, prop_id - PROP_FWD_BASE);
    g_object_set_property (G_OBJECT (f->fec ? self->fecenc : self->sender),
        f->child_name, value);
    return;
  }
  if (!settable_now (self, pspec->name))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ENCODER:
      g_free (self->encoder_name);
      self->encoder_name = g_value_dup_string (value);
      if (!self->encoder_name)
        self->encoder_name = g_strdup (DEFAULT_ENCODER);
      break;
    case PROP_HOST:
      g_free (self->host);
      self->host = g_value_dup_string (value);
      if (!self->host)
        self->host = g_strdup (DEFAULT_HOST);
      break;
    case PROP_PORT:
      self->port = g_value_get_int (value);
      break;
    case PROP_RTCP_PORT:
      self->rtcp_port = g_value_get_int (value);
      break;
    case PROP_RTCP_RECV_PORT:
      self->rtcp_recv_port = g_value_get_int (value);
      break;
    case PROP_URI:{
      const gchar *uri = g_value_get_string (value);
      GST_OBJECT_UNLOCK (self);
      if (uri && !parse_uri (self, uri))
        GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
            ("'%s' is not an rtp://host:port URI; host and port unchanged.",
                uri), (NULL));
      return;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_rate_control_bin_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstRateControlBin *self = GST_RATE_CONTROL_BIN (object);

  if (prop_id >= PROP_FWD_BASE) {
    Forward *f = &g_array_index (forwards, Forward, prop_id - PROP_FWD_BASE);
    g_object_get_property (G_OBJECT (f->fec ? self->fecenc : self->sender),
        f->child_name, value);
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ENCODER:
      g_value_set_string (value, self->encoder_name);
      break;
    case PROP_HOST:
      g_value_set_string (value, self->host);
      break;
    case PROP_PORT:
      g_value_set_int (value, self->port);
      break;
    case PROP_RTCP_PORT:
      g_value_set_int (value, self->rtcp_port);
      break;
    case PROP_RTCP_RECV_PORT:
      g_value_set_int (value, self->rtcp_recv_port);
      break;
    case PROP_URI:
      g_value_take_string (value, g_strdup_printf ("rtp://%s:%d", self->host,
              self->port));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
on_target (GObject * sender, GParamSpec * pspec, GstRateControlBin * self)
{
  g_object_notify_by_pspec (G_OBJECT (self), target_pspec);
}

static void
gst_rate_control_bin_finalize (GObject * object)
{
  GstRateControlBin *self = GST_RATE_CONTROL_BIN (object);

  if (self->eos_guard)
    gst_rc_rtcp_eos_guard_free (self->eos_guard);
  g_free (self->encoder_name);
  g_free (self->built_encoder);
  g_free (self->host);
  G_OBJECT_CLASS (gst_rate_control_bin_parent_class)->finalize (object);
}

static void
gst_rate_control_bin_class_init (GstRateControlBinClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
  guint next_id = PROP_FWD_BASE;

  gobject_class->set_property = gst_rate_control_bin_set_property;
  gobject_class->get_property = gst_rate_control_bin_get_property;
  gobject_class->finalize = gst_rate_control_bin_finalize;
  element_class->change_state = gst_rate_control_bin_change_state;

  g_object_class_install_property (gobject_class, PROP_ENCODER,
      g_param_spec_string ("encoder", "Encoder",
          "Encoder factory: vp8enc, vp9enc, x264enc, x265enc, openh264enc, "
          "theoraenc, ... (any whose bitrate urcpsender sets and that has "
          "an RTP payloader); changeable in NULL", DEFAULT_ENCODER, rw));
  g_object_class_install_property (gobject_class, PROP_HOST,
      g_param_spec_string ("host", "Host",
          "Receiver's address; changeable in NULL", DEFAULT_HOST, rw));
  g_object_class_install_property (gobject_class, PROP_PORT,
      g_param_spec_int ("port", "Port", "Receiver's RTP port; changeable in "
          "NULL", 1, 65535, DEFAULT_PORT, rw));
  g_object_class_install_property (gobject_class, PROP_RTCP_PORT,
      g_param_spec_int ("rtcp-port", "RTCP port",
          "Receiver's RTCP port (-1: port + 1); changeable in NULL", -1,
          65535, -1, rw));
  g_object_class_install_property (gobject_class, PROP_RTCP_RECV_PORT,
      g_param_spec_int ("rtcp-recv-port", "RTCP receive port",
          "Local port the receiver's RTCP (and its transport-wide feedback) "
          "comes back to (-1: port + 5); changeable in NULL", -1, 65535, -1,
          rw));
  g_object_class_install_property (gobject_class, PROP_URI,
      g_param_spec_string ("uri", "URI",
          "rtp://host:port, sets host and port; changeable in NULL",
          "rtp://" DEFAULT_HOST ":5000", rw));

  forwards = g_array_new (FALSE, FALSE, sizeof (Forward));
  forward_class_props (gobject_class, GST_TYPE_URCP_SENDER, FALSE, &next_id);
  forward_class_props (gobject_class, GST_TYPE_FEC_ENC, TRUE, &next_id);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class,
      "Rate-controlled RTP video sender", "Sink/Network/RTP",
      "Encodes raw video at the rate the path carries and sends it as RTP "
      "over UDP: encoder, payloader, FEC, urcpsender and rtpbin in one",
      "gst-ratecontrol developers");
}

static void
gst_rate_control_bin_init (GstRateControlBin * self)
{
  GstCaps *caps;
  GstPad *pad;

  self->encoder_name = g_strdup (DEFAULT_ENCODER);
  self->host = g_strdup (DEFAULT_HOST);
  self->port = DEFAULT_PORT;
  self->rtcp_port = self->rtcp_recv_port = -1;

  self->sinkpad = gst_ghost_pad_new_no_target_from_template ("sink",
      gst_static_pad_template_get (&sink_template));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  /* Everything but the encoder and payloader, which come with the
   * encoder property at NULL->READY. */
  self->convert = gst_rc_bin_add_new (GST_BIN (self), "videoconvert", "convert");
  self->rtpcaps = gst_rc_bin_add_new (GST_BIN (self), "capsfilter", "rtpcaps");
  self->fecenc = gst_rc_bin_add_new (GST_BIN (self), "fecenc", "fecenc");
  self->sender = gst_rc_bin_add_new (GST_BIN (self), "urcpsender", "urcpsender");
  self->rtpbin = gst_rc_bin_add_new (GST_BIN (self), "rtpbin", "rtpbin");
  self->rtpsink = gst_rc_bin_add_new (GST_BIN (self), "udpsink", "rtpsink");
  self->rtcpsink = gst_rc_bin_add_new (GST_BIN (self), "udpsink", "rtcpsink");
  self->rtcpsrc = gst_rc_bin_add_new (GST_BIN (self), "udpsrc", "rtcpsrc");
  if (!self->convert || !self->rtpcaps || !self->fecenc || !self->sender ||
      !self->rtpbin || !self->rtpsink || !self->rtcpsink || !self->rtcpsrc)
    return;                     /* NULL->READY fails: no encoder built */

  /* The payloader writes the transport-wide sequence number extension
   * urcpsender's feedback needs (RTP header extension from caps). */
  caps = gst_caps_new_simple ("application/x-rtp", "extmap-1", G_TYPE_STRING,
      RC_TWCC_EXT_URI, NULL);
  g_object_set (self->rtpcaps, "caps", caps, NULL);
  gst_caps_unref (caps);
  /* The pacer decides when packets leave: no sync on the RTP sink. */
  g_object_set (self->rtpsink, "sync", FALSE, "async", FALSE, NULL);
  g_object_set (self->rtcpsink, "sync", FALSE, "async", FALSE, NULL);

  gst_element_link_many (self->rtpcaps, self->fecenc, self->sender, NULL);
  pad = gst_element_request_pad_simple (self->rtpbin, "send_rtp_sink_0");
  gst_element_link_pads (self->sender, "src", self->rtpbin,
      GST_PAD_NAME (pad));
  gst_object_unref (pad);
  gst_element_link_pads (self->rtpbin, "send_rtp_src_0", self->rtpsink,
      "sink");
  gst_element_link_pads (self->rtpbin, "send_rtcp_src_0", self->rtcpsink,
      "sink");
  gst_element_link_pads (self->rtcpsrc, "src", self->rtpbin,
      "recv_rtcp_sink_0");
  g_signal_connect (self->sender, "notify::target-bitrate",
      G_CALLBACK (on_target), self);
  /* rtpbin 1.22 can lose the RTCP side's EOS (docs/fec.md), and with it
   * `gst-launch-1.0 -e` waits for ever: the guard sends it. */
  self->eos_guard = gst_rc_rtcp_eos_guard_new (self->rtpbin, 0);
}
