/**
 * SECTION:element-rcreceiver
 * @title: rcreceiver
 * @see_also: urcpsender, ratecontrolrecv, fecdec
 *
 * Measures what only the receiver knows and sends it to the media sender
 * as standard RTCP, for the receiver-assisted controllers (`cnadu`; the
 * post-repair loss also serves `fractal`). Put it on the receiving side
 * between rtpbin's `recv_rtp_src_%u_%u_%u` pad and the depayloader: it
 * finds the jitterbuffer and the RTP session upstream by itself and adds
 * its blocks to every RTCP packet that session sends:
 *
 * - RFC 7002 discard count and RFC 7243 bytes discarded (XR BT 24, 26):
 *   packets that arrived after their playout time, over the interval since
 *   the previous report. The playout time of a packet is
 *   #GstRcReceiver:latency after the earliest its media could have
 *   arrived (the path's minimum delay), as seed 003 sec. V-A discards
 *   "packets arriving later than the current delay-budget". The element
 *   counts them; the video sink drops such late frames itself.
 * - 3GPP NADU (TS 26.234 sec. 6.2.3.3; APP "PSS0"): the next packet to be
 *   played out and the time left until then (seed 003 sec. IV-B).
 * - RFC 7509 post-repair loss (XR BT 33): gaps in what reaches the
 *   depayloader after FEC repair and the jitterbuffer, and the packets
 *   `fecdec` rebuilt, when `fecdec` is upstream.
 *
 * With #GstRcReceiver:adapt-interval the session's RTCP interval follows
 * C-NADU's Algorithm 1 (seed 003 sec. IV-A): 5 s while all is well,
 * shorter (x 0.67 per report, down to what 2.5 % of the receive rate
 * allows) while more than a third of the packets are lost or late, the
 * shortest when nothing arrives. Transport-wide feedback rides in the same
 * RTCP packets unless rtpsession's `twcc-feedback-interval` is set: for a
 * TWCC controller leave the interval alone (adapt-interval=false).
 *
 * With #GstRcReceiver:r3cp it also runs R^3CP^+'s receiver (seed 004): each
 * report ends a control period of one forecast RTT, RLS forecasts loss and
 * RTT, Table 1 gives the rate to ask for, and an RFC 5104 TMMBR asks the
 * sender for it; an RFC 3611 RRTR in each report lets the sender's DLRR
 * answer give the RTT (urcpsender answers; docs/r3cp.md).
 *
 * Packets are observed where they arrive, on the jitterbuffer's sink pad;
 * without a jitterbuffer upstream, where they reach this element. Without
 * an RTP session upstream nothing can be sent: the element warns once and
 * passes the stream through.
 *
 * ## Example
 * |[
 * gst-launch-1.0 udpsrc port=5000 caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=VP8,payload=96" ! rtpbin.recv_rtp_sink_0 \
 *     udpsrc port=5001 ! rtpbin.recv_rtcp_sink_0 \
 *     rtpbin name=rtpbin latency=200 ! rcreceiver ! rtpvp8depay ! vp8dec ! autovideosink \
 *     rtpbin.send_rtcp_src_0 ! udpsink host=127.0.0.1 port=5005 sync=false async=false
 * ]| (pipelines/cnadu-receiver.sh)
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/rtp/gstrtpbuffer.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include "gstrcreceiver.h"
#include "gstrcencoder.h"
#include "rc-rtcp.h"

GST_DEBUG_CATEGORY_STATIC (gst_rc_receiver_debug);
#define GST_CAT_DEFAULT gst_rc_receiver_debug

enum
{
  PROP_0,
  PROP_LATENCY,
  PROP_ADAPT_INTERVAL,
  PROP_BAD_PACKET_THRESHOLD,
  PROP_RTCP_SHARE,
  PROP_MAX_INTERVAL,
  PROP_MIN_INTERVAL,
  PROP_DISCARD_REPORTS,
  PROP_NADU_REPORTS,
  PROP_POST_REPAIR_REPORTS,
  PROP_R3CP,
  PROP_R3CP_MEMORY,
  PROP_R3CP_FORGETTING,
  PROP_R3CP_LOSS_LOW,
  PROP_R3CP_LOSS_HIGH,
  PROP_STATS,
};

#define DEFAULT_LATENCY -1
/* rtpbin's jitterbuffer default, when none is found. */
#define FALLBACK_LATENCY_MS 200
#define DEFAULT_ADAPT TRUE
#define DEFAULT_BAD_PACKET_THRESHOLD 0.33
#define DEFAULT_RTCP_SHARE 0.025
#define DEFAULT_MAX_INTERVAL 5000
#define DEFAULT_MIN_INTERVAL 100
/* While the session is missing, look again this often (at a buffer). */
#define SEARCH_AGAIN GST_SECOND

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_rc_receiver_parent_class parent_class
G_DEFINE_TYPE (GstRcReceiver, gst_rc_receiver, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (rcreceiver, "rcreceiver",
    GST_RANK_NONE, GST_TYPE_RC_RECEIVER,
    GST_DEBUG_CATEGORY_INIT (gst_rc_receiver_debug, "rcreceiver", 0,
        "receiver-side RTCP for the receiver-assisted rate controllers"));

typedef struct
{
  guint32 ssrc, ts;
  guint16 seq;
  guint payload;
} RtpInfo;

static gboolean
rtp_info (GstBuffer * buf, RtpInfo * i)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  if (!gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp))
    return FALSE;
  i->ssrc = gst_rtp_buffer_get_ssrc (&rtp);
  i->ts = gst_rtp_buffer_get_timestamp (&rtp);
  i->seq = gst_rtp_buffer_get_seq (&rtp);
  i->payload = gst_rtp_buffer_get_payload_len (&rtp);
  gst_rtp_buffer_unmap (&rtp);
  return TRUE;
}

/* The receiver's clock for arrivals and reports: the pipeline's running
 * time. */
static GstClockTime
now_locked (GstRcReceiver * self)
{
  return gst_element_get_current_running_time (GST_ELEMENT (self));
}

static void
ensure_rx_locked (GstRcReceiver * self)
{
  RcReceiverConfig cfg;

  if (self->rx)
    return;
  rc_receiver_config_init (&cfg);
  cfg.latency = self->latency;
  cfg.adapt_interval = self->adapt_interval;
  cfg.gamma_bpr = self->gamma_bpr;
  cfg.rtcp_share = self->rtcp_share;
  cfg.max_interval = self->max_interval_ms * GST_MSECOND;
  cfg.floor_interval = MIN (self->min_interval_ms,
      self->max_interval_ms) * GST_MSECOND;
  cfg.r3cp = self->r3cp;
  rc_r3cp_config_init (&cfg.r3cp_cfg);
  cfg.r3cp_cfg.memory = self->r3cp_memory;
  cfg.r3cp_cfg.lambda = self->r3cp_lambda;
  cfg.r3cp_cfg.p_low = self->r3cp_p_low;
  cfg.r3cp_cfg.p_high = MAX (self->r3cp_p_high, self->r3cp_p_low);
  self->rx = rc_receiver_new (&cfg);
}

/* A packet arrived at `now` (our lock held). */
static void
arrived_locked (GstRcReceiver * self, const RtpInfo * i, GstClockTime now)
{
  if (!GST_CLOCK_TIME_IS_VALID (now))
    return;
  ensure_rx_locked (self);
  if (rc_receiver_on_packet (self->rx, i->ssrc, i->seq, i->ts, i->payload,
          now))
    GST_LOG_OBJECT (self, "packet %u arrived after its playout time", i->seq);
}

/* A GstRcBufferFunc: `element` is the GstRcReceiver. */
static void
arrived (gpointer element, GstBuffer * buf)
{
  GstRcReceiver *self = element;
  RtpInfo i;

  if (!rtp_info (buf, &i))
    return;
  g_mutex_lock (&self->lock);
  arrived_locked (self, &i, now_locked (self));
  g_mutex_unlock (&self->lock);
}

static GstPadProbeReturn
arrival_probe (GstPad * pad, GstPadProbeInfo * info, GstRcReceiver * self)
{
  gst_rc_probe_foreach_buffer (info, arrived, self);
  return GST_PAD_PROBE_OK;
}

/* rtpsession's on-sending-rtcp (its RTCP thread, session lock not held):
 * the blocks for the interval since the last regular packet, and the
 * interval Algorithm 1 wants next ("RTCP RR timeout"). Early packets
 * (transport-wide feedback, NACKs: RFC 4585 sec. 3.5) carry none: they
 * come at the feedback's pace, not the report interval's. Returns FALSE:
 * the blocks alone are no reason to send a packet the session may
 * suppress. */
static gboolean
on_sending_rtcp (GObject * session, GstBuffer * buffer, gboolean early,
    GstRcReceiver * self)
{
  GArray *blocks, *sent;
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstElement *dec;
  GstClockTime now, interval = GST_CLOCK_TIME_NONE;
  guint recovered = 0, i;
  guint32 own_ssrc = 0;
  gboolean ok, adapt, discards, nadus, repairs;

  if (early)
    return FALSE;
  blocks = g_array_new (FALSE, TRUE, sizeof (RcReportBlock));
  sent = g_array_new (FALSE, TRUE, sizeof (RcReportBlock));
  /* fecdec's count outside our lock, which the streaming threads take */
  g_mutex_lock (&self->lock);
  dec = self->fecdec ? gst_object_ref (self->fecdec) : NULL;
  g_mutex_unlock (&self->lock);
  if (dec) {
    g_object_get (dec, "recovered", &recovered, NULL);
    gst_object_unref (dec);
  }
  g_object_get (session, "internal-ssrc", &own_ssrc, NULL);

  g_mutex_lock (&self->lock);
  now = now_locked (self);
  if (self->rx && GST_CLOCK_TIME_IS_VALID (now)) {
    rc_receiver_report (self->rx, now, recovered, blocks);
    interval = rc_receiver_interval (self->rx);
  }
  /* R3CP+ sets the interval too: its control period */
  adapt = self->adapt_interval || self->r3cp;
  discards = self->discard_reports;
  nadus = self->nadu_reports;
  repairs = self->post_repair;
  g_mutex_unlock (&self->lock);

  /* the kinds switched off stay out */
  for (i = 0; i < blocks->len; i++) {
    RcReportBlock *b = &g_array_index (blocks, RcReportBlock, i);
    if (((b->kind == RC_REPORT_DISCARD || b->kind == RC_REPORT_DISCARD_BYTES)
            && !discards) || (b->kind == RC_REPORT_POST_REPAIR && !repairs)
        || (b->kind == RC_REPORT_NADU && !nadus))
      continue;
    g_array_append_val (sent, *b);
    if (b->kind == RC_REPORT_TMMBR)
      GST_DEBUG_OBJECT (self, "asking for %" G_GUINT64_FORMAT " bit/s "
          "(TMMBR, R3CP+ Table 1)", b->tmmb.bitrate);
    else if (b->kind == RC_REPORT_NADU)
      GST_DEBUG_OBJECT (self, "report: NADU next %u, playout delay %u ms, "
          "next interval %" GST_TIME_FORMAT, b->nadu.nsn,
          b->nadu.playout_delay_ms, GST_TIME_ARGS (interval));
    else if (b->kind == RC_REPORT_DISCARD && b->discard.packets > 0)
      GST_INFO_OBJECT (self, "%u packets arrived too late for playout since "
          "the last report", b->discard.packets);
  }
  if (sent->len && gst_rtcp_buffer_map (buffer, GST_MAP_READWRITE, &rtcp)) {
    ok = rc_rtcp_write_blocks (&rtcp, own_ssrc, (RcReportBlock *) sent->data,
        sent->len);
    gst_rtcp_buffer_unmap (&rtcp);
    g_mutex_lock (&self->lock);
    self->reports_sent++;
    for (i = 0; ok && i < sent->len; i++)
      switch (g_array_index (sent, RcReportBlock, i).kind) {
        case RC_REPORT_POST_REPAIR:
          self->post_repair_sent++;
          break;
        case RC_REPORT_DISCARD:
          self->discard_sent++;
          break;
        case RC_REPORT_NADU:
          self->nadu_sent++;
          break;
        default:
          break;
      }
    g_mutex_unlock (&self->lock);
    if (!ok)
      GST_WARNING_OBJECT (self, "no room for every block in the RTCP "
          "packet; some were left out");
  }

  g_mutex_lock (&self->lock);
  adapt = adapt && GST_CLOCK_TIME_IS_VALID (interval) &&
      interval != self->set_interval;
  if (adapt)
    self->set_interval = interval;
  g_mutex_unlock (&self->lock);
  if (adapt) {
    /* rtpsession reports at the larger of this and its bandwidth-bound
     * interval, randomised over [0.5, 1.5] (RFC 3550 sec. 6.3.1). Setting
     * it makes rtpsession reconsider the report already scheduled (its
     * rtpsession.c, "trigger reconsideration"), so the new interval counts
     * from this report: no early-RTCP request (the session's send-rtcp
     * action signal) is needed for Algorithm 1 to take effect. */
    g_object_set (session, "rtcp-min-interval", (guint64) interval, NULL);
    GST_DEBUG_OBJECT (self, "RTCP interval now %" GST_TIME_FORMAT
        " (Algorithm 1)", GST_TIME_ARGS (interval));
  }
  g_array_unref (blocks);
  g_array_unref (sent);
  return FALSE;
}

/* rtpsession's on-receiving-rtcp: the sender's DLRR answering our RRTR
 * gives an RTT (RFC 3611 sec. 4.5), on the clock the RRTR came from. */
static void
on_receiving_rtcp (GObject * session, GstBuffer * buffer,
    GstRcReceiver * self)
{
  GArray *blocks = g_array_new (FALSE, TRUE, sizeof (RcReportBlock));
  guint32 own = 0;
  GstClockTime now;

  g_object_get (session, "internal-ssrc", &own, NULL);
  g_mutex_lock (&self->lock);
  now = now_locked (self);
  if (self->rx && GST_CLOCK_TIME_IS_VALID (now)) {
    rc_rtcp_parse (buffer, rc_rtcp_ntp_short (rc_rtcp_ntp_from_unix (now)),
        0, blocks, NULL);
    rc_receiver_on_reports (self->rx, own, (RcReportBlock *) blocks->data,
        blocks->len);
  }
  g_mutex_unlock (&self->lock);
  g_array_unref (blocks);
}

typedef struct
{
  GstElement *jitterbuffer;
  GstElement *fecdec;
} Found;

/* Notes the jitterbuffer and fecdec on the way; stops at the session. */
static gboolean
visit (GstElement * e, gpointer data)
{
  Found *f = data;
  GObjectClass *k = G_OBJECT_GET_CLASS (e);

  if (!f->jitterbuffer && g_object_class_find_property (k, "latency") &&
      g_object_class_find_property (k, "do-lost"))
    f->jitterbuffer = gst_object_ref (e);
  else if (!f->fecdec && g_object_class_find_property (k, "recovered") &&
      g_object_class_find_property (k, "unrecovered"))
    f->fecdec = gst_object_ref (e);
  return gst_rc_is_rtp_session (e, NULL);
}

/* Looks upstream for the jitterbuffer (arrivals, latency), fecdec and the
 * RTP session (reports). Streaming thread, our lock not held. */
static void
search (GstRcReceiver * self)
{
  Found f = { NULL, NULL };
  GstElement *sess_el;
  GObject *session = NULL;
  GstPad *jb_pad = NULL;
  gint latency_ms, jb_latency = -1;

  sess_el = gst_rc_walk_linked (self->sinkpad, visit, &f);
  if (sess_el) {
    g_object_get (sess_el, "internal-session", &session, NULL);
    gst_object_unref (sess_el);
  }
  if (f.jitterbuffer) {
    guint l = 0;
    g_object_get (f.jitterbuffer, "latency", &l, NULL);
    jb_latency = (gint) l;
    jb_pad = gst_element_get_static_pad (f.jitterbuffer, "sink");
  }

  g_mutex_lock (&self->lock);
  if (!self->searched) {
    /* the first search decides where arrivals are seen and the budget */
    self->searched = TRUE;
    latency_ms = self->latency_ms >= 0 ? self->latency_ms :
        jb_latency >= 0 ? jb_latency : FALLBACK_LATENCY_MS;
    self->latency = latency_ms * GST_MSECOND;
    if (jb_pad) {
      self->arrival_pad = gst_object_ref (jb_pad);
      self->arrival_probe = gst_pad_add_probe (jb_pad,
          GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST,
          (GstPadProbeCallback) arrival_probe, self, NULL);
    }
    gst_object_replace ((GstObject **) & self->fecdec, (GstObject *) f.fecdec);
    GST_INFO_OBJECT (self, "playout budget %d ms%s; arrivals seen at %s; "
        "%s", latency_ms, self->latency_ms >= 0 ? "" :
        jb_latency >= 0 ? " (the jitterbuffer's)" : " (no jitterbuffer "
        "found: rtpbin's default)", jb_pad ? "the jitterbuffer" :
        "this element", f.fecdec ? "fecdec found" : "no fecdec upstream");
  }
  if (session && !self->session) {
    self->session = g_object_ref (session);
    self->rtcp_handler = g_signal_connect (session, "on-sending-rtcp",
        G_CALLBACK (on_sending_rtcp), self);
    self->recv_handler = g_signal_connect (session, "on-receiving-rtcp",
        G_CALLBACK (on_receiving_rtcp), self);
    GST_INFO_OBJECT (self, "adding reports to the RTP session's RTCP");
  }
  if (!self->session) {
    self->next_search = now_locked (self);
    if (GST_CLOCK_TIME_IS_VALID (self->next_search))
      self->next_search += SEARCH_AGAIN;
  }
  g_mutex_unlock (&self->lock);

  if (!session) {
    gboolean warn;
    g_mutex_lock (&self->lock);
    warn = !self->warned_no_session;
    self->warned_no_session = TRUE;
    g_mutex_unlock (&self->lock);
    if (warn)
      GST_ELEMENT_WARNING (self, STREAM, FAILED, ("No RTP session "
              "upstream: rcreceiver cannot send its reports."),
          ("Link rcreceiver after an rtpbin's recv_rtp_src pad (or after an "
              "rtpsession); it passes the stream through meanwhile."));
  }
  g_clear_object (&session);
  gst_clear_object (&jb_pad);
  gst_clear_object (&f.jitterbuffer);
  gst_clear_object (&f.fecdec);
}

static GstFlowReturn
gst_rc_receiver_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstRcReceiver *self = GST_RC_RECEIVER (parent);
  gboolean look;
  RtpInfo i;

  g_mutex_lock (&self->lock);
  look = !self->searched || (!self->session &&
      GST_CLOCK_TIME_IS_VALID (self->next_search) &&
      now_locked (self) >= self->next_search);
  g_mutex_unlock (&self->lock);
  if (look)
    search (self);

  if (rtp_info (buf, &i)) {
    g_mutex_lock (&self->lock);
    /* without a jitterbuffer upstream, packets arrive here */
    if (!self->arrival_pad)
      arrived_locked (self, &i, now_locked (self));
    ensure_rx_locked (self);
    rc_receiver_on_output (self->rx, i.ssrc, i.seq);
    g_mutex_unlock (&self->lock);
  }
  return gst_pad_push (self->srcpad, buf);
}

/* Undoes search() and forgets the stream. */
static void
reset (GstRcReceiver * self)
{
  GstPad *pad;
  GObject *session;
  gulong probe, handler, recv_handler;

  g_mutex_lock (&self->lock);
  pad = self->arrival_pad;
  probe = self->arrival_probe;
  session = self->session;
  handler = self->rtcp_handler;
  recv_handler = self->recv_handler;
  self->arrival_pad = NULL;
  self->session = NULL;
  self->arrival_probe = self->rtcp_handler = self->recv_handler = 0;
  gst_clear_object (&self->fecdec);
  rc_receiver_free (self->rx);
  self->rx = NULL;
  self->searched = FALSE;
  self->warned_no_session = FALSE;
  self->next_search = GST_CLOCK_TIME_NONE;
  self->set_interval = GST_CLOCK_TIME_NONE;
  g_mutex_unlock (&self->lock);
  if (pad) {
    gst_pad_remove_probe (pad, probe);
    gst_object_unref (pad);
  }
  if (session) {
    g_signal_handler_disconnect (session, handler);
    g_signal_handler_disconnect (session, recv_handler);
    g_object_unref (session);
  }
}

static GstStateChangeReturn
gst_rc_receiver_change_state (GstElement * element, GstStateChange transition)
{
  GstRcReceiver *self = GST_RC_RECEIVER (element);
  GstStateChangeReturn ret;

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    reset (self);
  return ret;
}

static GstStructure *
stats (GstRcReceiver * self)
{
  GstStructure *s;

  g_mutex_lock (&self->lock);
  if (self->rx) {
    s = rc_receiver_get_stats (self->rx);
    gst_structure_set_name (s, "rcreceiver-stats");
  } else {
    s = gst_structure_new_empty ("rcreceiver-stats");
  }
  gst_structure_set (s, "rtcp-packets", G_TYPE_UINT64, self->reports_sent,
      "discard-sent", G_TYPE_UINT64, self->discard_sent,
      "nadu-sent", G_TYPE_UINT64, self->nadu_sent,
      "post-repair-sent", G_TYPE_UINT64, self->post_repair_sent,
      "latency", G_TYPE_UINT64, (guint64) self->latency,
      "have-session", G_TYPE_BOOLEAN, self->session != NULL, NULL);
  g_mutex_unlock (&self->lock);
  return s;
}

static void
gst_rc_receiver_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstRcReceiver *self = GST_RC_RECEIVER (object);

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_LATENCY:
      self->latency_ms = g_value_get_int (value);
      break;
    case PROP_ADAPT_INTERVAL:
      self->adapt_interval = g_value_get_boolean (value);
      break;
    case PROP_BAD_PACKET_THRESHOLD:
      self->gamma_bpr = g_value_get_double (value);
      break;
    case PROP_RTCP_SHARE:
      self->rtcp_share = g_value_get_double (value);
      break;
    case PROP_MAX_INTERVAL:
      self->max_interval_ms = g_value_get_uint (value);
      break;
    case PROP_MIN_INTERVAL:
      self->min_interval_ms = g_value_get_uint (value);
      break;
    case PROP_DISCARD_REPORTS:
      self->discard_reports = g_value_get_boolean (value);
      break;
    case PROP_NADU_REPORTS:
      self->nadu_reports = g_value_get_boolean (value);
      break;
    case PROP_POST_REPAIR_REPORTS:
      self->post_repair = g_value_get_boolean (value);
      break;
    case PROP_R3CP:
      self->r3cp = g_value_get_boolean (value);
      break;
    case PROP_R3CP_MEMORY:
      self->r3cp_memory = g_value_get_uint (value);
      break;
    case PROP_R3CP_FORGETTING:
      self->r3cp_lambda = g_value_get_double (value);
      break;
    case PROP_R3CP_LOSS_LOW:
      self->r3cp_p_low = g_value_get_double (value);
      break;
    case PROP_R3CP_LOSS_HIGH:
      self->r3cp_p_high = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (&self->lock);
}

static void
gst_rc_receiver_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstRcReceiver *self = GST_RC_RECEIVER (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, stats (self));
    return;
  }
  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_LATENCY:
      g_value_set_int (value, self->latency_ms);
      break;
    case PROP_ADAPT_INTERVAL:
      g_value_set_boolean (value, self->adapt_interval);
      break;
    case PROP_BAD_PACKET_THRESHOLD:
      g_value_set_double (value, self->gamma_bpr);
      break;
    case PROP_RTCP_SHARE:
      g_value_set_double (value, self->rtcp_share);
      break;
    case PROP_MAX_INTERVAL:
      g_value_set_uint (value, self->max_interval_ms);
      break;
    case PROP_MIN_INTERVAL:
      g_value_set_uint (value, self->min_interval_ms);
      break;
    case PROP_DISCARD_REPORTS:
      g_value_set_boolean (value, self->discard_reports);
      break;
    case PROP_NADU_REPORTS:
      g_value_set_boolean (value, self->nadu_reports);
      break;
    case PROP_POST_REPAIR_REPORTS:
      g_value_set_boolean (value, self->post_repair);
      break;
    case PROP_R3CP:
      g_value_set_boolean (value, self->r3cp);
      break;
    case PROP_R3CP_MEMORY:
      g_value_set_uint (value, self->r3cp_memory);
      break;
    case PROP_R3CP_FORGETTING:
      g_value_set_double (value, self->r3cp_lambda);
      break;
    case PROP_R3CP_LOSS_LOW:
      g_value_set_double (value, self->r3cp_p_low);
      break;
    case PROP_R3CP_LOSS_HIGH:
      g_value_set_double (value, self->r3cp_p_high);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  g_mutex_unlock (&self->lock);
}

static void
gst_rc_receiver_finalize (GObject * object)
{
  GstRcReceiver *self = GST_RC_RECEIVER (object);

  reset (self);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_rc_receiver_class_init (GstRcReceiverClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  /* Read when the first packet arrives (a stream's start). */
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;
  /* Read at each report. */
  const GParamFlags live = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_rc_receiver_set_property;
  gobject_class->get_property = gst_rc_receiver_get_property;
  gobject_class->finalize = gst_rc_receiver_finalize;
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_rc_receiver_change_state);

  g_object_class_install_property (gobject_class, PROP_LATENCY,
      g_param_spec_int ("latency", "Playout budget",
          "Playout delay budget (ms) above the path's minimum delay: a "
          "packet later than that is counted as discarded (seed 003 sec. "
          "V-A's delay budget). -1: the upstream jitterbuffer's latency "
          "(200 if there is none)", -1, 10000, DEFAULT_LATENCY, rw));
  g_object_class_install_property (gobject_class, PROP_ADAPT_INTERVAL,
      g_param_spec_boolean ("adapt-interval", "Adapt the RTCP interval",
          "Set the RTP session's RTCP interval by C-NADU's Algorithm 1 "
          "(seed 003 sec. IV-A); off: leave it as the session has it "
          "(what transport-wide feedback needs)", DEFAULT_ADAPT, rw));
  g_object_class_install_property (gobject_class, PROP_BAD_PACKET_THRESHOLD,
      g_param_spec_double ("bad-packet-threshold", "Bad packet threshold",
          "Algorithm 1's Gamma_bpr: above this share of lost and late "
          "packets in an interval, the next is shorter by this share (seed "
          "003 sec. IV-A: GOP / FPS = 0.33)", 0.01, 0.99,
          DEFAULT_BAD_PACKET_THRESHOLD, rw));
  g_object_class_install_property (gobject_class, PROP_RTCP_SHARE,
      g_param_spec_double ("rtcp-share", "RTCP share",
          "Share of the receive rate RTCP may take: Algorithm 1's shortest "
          "interval (RFC 4585; seed 003 sec. II: 2.5 %)", 0.001, 1.0,
          DEFAULT_RTCP_SHARE, rw));
  g_object_class_install_property (gobject_class, PROP_MAX_INTERVAL,
      g_param_spec_uint ("max-interval", "Longest RTCP interval",
          "Algorithm 1's Std3550Interval() (ms; RFC 3550 sec. 6.2: 5 s) "
          "and its first interval", 100, 60000, DEFAULT_MAX_INTERVAL, rw));
  g_object_class_install_property (gobject_class, PROP_MIN_INTERVAL,
      g_param_spec_uint ("min-interval", "Shortest RTCP interval",
          "Never ask for reports more often than this (ms), whatever the "
          "rate allows", 10, 60000, DEFAULT_MIN_INTERVAL, rw));
  g_object_class_install_property (gobject_class, PROP_DISCARD_REPORTS,
      g_param_spec_boolean ("discard-reports", "Discard reports",
          "Send RFC 7002 discard count and RFC 7243 bytes discarded blocks "
          "(XR)", TRUE, live));
  g_object_class_install_property (gobject_class, PROP_NADU_REPORTS,
      g_param_spec_boolean ("nadu-reports", "NADU reports",
          "Send the 3GPP NADU report (APP \"PSS0\", TS 26.234 sec. "
          "6.2.3.3): next packet to play and its playout delay", TRUE, live));
  g_object_class_install_property (gobject_class, PROP_POST_REPAIR_REPORTS,
      g_param_spec_boolean ("post-repair-reports", "Post-repair reports",
          "Send RFC 7509 post-repair loss blocks (XR) about what reaches "
          "the depayloader", TRUE, live));
  g_object_class_install_property (gobject_class, PROP_R3CP,
      g_param_spec_boolean ("r3cp", "R3CP+ rate requests",
          "Ask the sender for a rate (RFC 5104 TMMBR) by R^3CP^+ (seed 004): "
          "RLS forecasts of loss and RTT (the RTT from RFC 3611 RRTR/DLRR), "
          "Table 1; each report is a control period of one forecast RTT. "
          "For urcpsender controller=r3cp", FALSE, rw));
  g_object_class_install_property (gobject_class, PROP_R3CP_MEMORY,
      g_param_spec_uint ("r3cp-memory", "R3CP+ memory",
          "M_loss (= M_rtt): the RLS predictors' taps (seed 004 sec. 2.1; "
          "the paper gives no value)", 1, RC_RLS_MAX_M, 4, rw));
  g_object_class_install_property (gobject_class, PROP_R3CP_FORGETTING,
      g_param_spec_double ("r3cp-forgetting-factor", "R3CP+ forgetting",
          "The RLS forgetting factor lambda (Haykin; not in the paper): the "
          "weight of a sample n periods old is lambda^n", 0.5, 1.0, 0.95,
          rw));
  g_object_class_install_property (gobject_class, PROP_R3CP_LOSS_LOW,
      g_param_spec_double ("r3cp-loss-low", "R3CP+ p_low",
          "Loss below which the path is Unloaded (seed 004 sec. 3.2's "
          "p_low; no value given)", 0.0, 1.0, 0.01, rw));
  g_object_class_install_property (gobject_class, PROP_R3CP_LOSS_HIGH,
      g_param_spec_double ("r3cp-loss-high", "R3CP+ p_high",
          "Loss from which the path is Congested (seed 004 sec. 3.2's "
          "p_high; no value given)", 0.0, 1.0, 0.05, rw));
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "packets, lost, discarded, discarded-bytes, reports (intervals "
          "reported), interval (ns, Algorithm 1's), playout-delay (ns, the "
          "last NADU's; NONE: nothing buffered), min-transit (ns), "
          "rtcp-packets (carrying our blocks), discard-sent, nadu-sent, "
          "post-repair-sent (RTCP packets with that report), latency (ns, "
          "the playout budget in use), have-session", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Receiver reports for rate control", "Filter/Network/RTP",
      "Counts late (discarded) packets, playout delay and loss after repair "
      "on an RTP receiver and sends them to the sender as RTCP XR and NADU "
      "reports, adapting the RTCP interval (C-NADU)",
      "gst-ratecontrol developers");
}

static void
gst_rc_receiver_init (GstRcReceiver * self)
{
  g_mutex_init (&self->lock);
  self->latency_ms = DEFAULT_LATENCY;
  self->latency = FALLBACK_LATENCY_MS * GST_MSECOND;
  self->adapt_interval = DEFAULT_ADAPT;
  self->gamma_bpr = DEFAULT_BAD_PACKET_THRESHOLD;
  self->rtcp_share = DEFAULT_RTCP_SHARE;
  self->max_interval_ms = DEFAULT_MAX_INTERVAL;
  self->min_interval_ms = DEFAULT_MIN_INTERVAL;
  self->discard_reports = self->nadu_reports = self->post_repair = TRUE;
  self->r3cp_memory = 4;
  self->r3cp_lambda = 0.95;
  self->r3cp_p_low = 0.01;
  self->r3cp_p_high = 0.05;
  self->next_search = self->set_interval = GST_CLOCK_TIME_NONE;

  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad,
      GST_DEBUG_FUNCPTR (gst_rc_receiver_chain));
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}
