/* GStreamer URCP sender-side rate controller.
 *
 * SECTION:element-urcpsender
 * @title: urcpsender
 * @short_description: learns the path's capacity from congestion feedback,
 * paces RTP packets and drives the encoder's bitrate.
 *
 * `urcpsender` sits on the RTP path just before rtpbin's `send_rtp_sink_%u`
 * pad. It reads the transport-wide congestion control feedback that the
 * sending rtpsession turns into upstream `RTPTWCCPackets` events, runs a rate
 * controller (by default URCP, Xie et al., "URCP: Universal Rate Control
 * Protocol for Real-Time Communication Applications"; or its fixed-parameter
 * `um` baseline), spreads each frame's packets at a pacing rate above the
 * target, and sets the bitrate of the encoder upstream, which it finds by
 * itself (vp8enc, vp9enc, x264enc, x265enc, openh264enc, av1enc, svtav1enc,
 * theoraenc, nvh264enc, vaapih264enc, vah264enc, qsvh264enc) or takes from
 * the #GstUrcpSender:encoder property. Applications can follow
 * #GstUrcpSender:target-bitrate (notify) instead.
 *
 * As an rtpbin aux sender: return a bin holding urcpsender, with ghost pads
 * `sink_N` and `src_N`, from rtpbin's `request-aux-sender` signal; the
 * encoder and the RTP session are then found across the bins' ghost pads
 * (tests/check/pipelines/test_urcp_pipeline.c does exactly this).
 *
 * For the feedback to exist, the payloader must write the transport-wide-cc
 * header extension: put `extmap-N=(string)"http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"`
 * in the RTP caps after the payloader (it then adds the extension by itself)
 * and in the receiver's caps (its rtpbin then sends the feedback). When the
 * peer sends no transport-wide feedback, urcpsender falls back to RTCP
 * receiver reports (fraction lost, RTT) which it gets from the rtpbin
 * session it is linked to. If no feedback comes at all it holds the rate,
 * then backs off, and posts a warning once.
 *
 * ## Example sender (pipelines/urcp-sender.sh)
 * |[
 * gst-launch-1.0 rtpbin name=rtpbin \
 *   videotestsrc is-live=true pattern=ball ! video/x-raw,width=640,height=480,framerate=30/1 ! \
 *   vp8enc deadline=1 ! rtpvp8pay pt=96 ! \
 *   'application/x-rtp,extmap-1=(string)"http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"' ! \
 *   urcpsender ! rtpbin.send_rtp_sink_0 \
 *   rtpbin.send_rtp_src_0 ! udpsink host=127.0.0.1 port=5000 \
 *   rtpbin.send_rtcp_src_0 ! udpsink host=127.0.0.1 port=5001 sync=false async=false \
 *   udpsrc port=5005 ! rtpbin.recv_rtcp_sink_0
 * ]|
 * ## Example receiver (pipelines/urcp-receiver.sh)
 * |[
 * gst-launch-1.0 rtpbin name=rtpbin \
 *   udpsrc port=5000 caps='application/x-rtp,media=video,clock-rate=90000,encoding-name=VP8,payload=96,extmap-1=(string)"http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"' ! \
 *   rtpbin.recv_rtp_sink_0 \
 *   rtpbin. ! rtpvp8depay ! vp8dec ! videoconvert ! autovideosink \
 *   udpsrc port=5001 ! rtpbin.recv_rtcp_sink_0 \
 *   rtpbin.send_rtcp_src_0 ! udpsink host=127.0.0.1 port=5005 sync=false async=false
 * ]|
 *
 * ## Statistics
 * The #GstUrcpSender:stats structure has: `controller`, `state`
 * (startup-low, startup-ramp, steady, hold, backoff), `reason`,
 * `target-bitrate` (bit/s), `delay-bitrate` and `loss-bitrate` (the two URCP
 * instances, bit/s), `r-max` (R^MAX, bit/s), `r-ave` (R^AVE, bit/s),
 * `delta-min-ms` (delta^MIN), `delta-ave-ms` (delta^AVE), `k0` (bits), `k2`
 * (1/s^2), `loss-min`, `loss-ave`, `loss-k0`, `loss-rate` (recent, 0..1),
 * `rtt-ms`, `rtt-min-ms`, `skew-ppm` (estimated receiver clock drift),
 * `feedback-count`, `packets-acked`, `packets-lost`, `owd-resets`, and from
 * the element: `twcc-events`, `twcc-rejected` (malformed entries),
 * `rr-reports`, `pacing-queue-packets`, `pacing-queue-bytes`,
 * `pacing-queue-ms`, `encoder` (name or empty).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include "gsturcpsender.h"
#include "gstrcencoder.h"

GST_DEBUG_CATEGORY_STATIC (gst_urcp_sender_debug);
#define GST_CAT_DEFAULT gst_urcp_sender_debug

enum
{
  PROP_0,
  PROP_CONTROLLER,
  PROP_MIN_BITRATE,
  PROP_START_BITRATE,
  PROP_MAX_BITRATE,
  PROP_BETA,
  PROP_M,
  PROP_PACING,
  PROP_PACING_FACTOR,
  PROP_MAX_QUEUE_TIME,
  PROP_ENCODER,
  PROP_CONFIGURE_ENCODER,
  PROP_TARGET_BITRATE,
  PROP_STATS,
};

/* Controller defaults (bitrates, beta, M, pacing factor) come from
 * rc_config_init_defaults(), where each is cited. */
#define DEFAULT_PACING TRUE
/* A key frame of ~10 average frames at 30 fps leaves within this bound. */
#define DEFAULT_MAX_QUEUE_TIME (250 * GST_MSECOND)
#define DEFAULT_CONFIGURE_ENCODER TRUE

/* Warn once if sending this long with no feedback of any kind. */
#define NO_FEEDBACK_WARN_AFTER (5 * GST_SECOND)
/* Use RTCP RR only while transport-wide feedback is absent this long. */
#define TWCC_STALE (3 * GST_SECOND)
/* Encoder updates: on a change of 2 % or more, else at most once a second,
 * so vp8enc is not reconfigured for every feedback message. */
#define ENCODER_MIN_CHANGE 0.02
#define ENCODER_REFRESH (1 * GST_SECOND)
static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

GType
gst_urcp_controller_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {RC_CONTROLLER_URCP, "URCP: learned R^MAX and delta^MIN (seed 000)",
        "urcp"},
    {RC_CONTROLLER_UM, "Delay-based utility maximization with fixed "
          "k0 = 16000 bits, k2 = 0.6 (URCP eq. 6 baseline)", "um"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstUrcpController", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define gst_urcp_sender_parent_class parent_class
G_DEFINE_TYPE (GstUrcpSender, gst_urcp_sender, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (urcpsender, "urcpsender",
    GST_RANK_NONE, GST_TYPE_URCP_SENDER,
    GST_DEBUG_CATEGORY_INIT (gst_urcp_sender_debug, "urcpsender", 0,
        "URCP sender-side rate controller"));

static GstClockTime
running_time_now (GstUrcpSender * self)
{
  return gst_element_get_current_running_time (GST_ELEMENT (self));
}

static void
queued_free (GstUrcpQueued * q)
{
  gst_mini_object_unref (q->obj);
  g_free (q);
}

/* ---------------------------------------------------------------- encoder */

/* Called with ctrl_lock held; returns a ref to the encoder to set, or NULL. */
static GstElement *
ensure_encoder_locked (GstUrcpSender * self)
{
  GstElement *given;

  if (self->encoder_searched)
    return self->encoder ? gst_object_ref (self->encoder) : NULL;

  GST_OBJECT_LOCK (self);
  given = self->encoder_prop ? gst_object_ref (self->encoder_prop) : NULL;
  GST_OBJECT_UNLOCK (self);

  self->encoder_searched = TRUE;
  self->encoder = given ? given : gst_rc_encoder_find_upstream (self->sinkpad);
  if (self->encoder) {
    self->encoder_info = gst_rc_encoder_info_for (self->encoder);
    if (!self->encoder_info) {
      GST_WARNING_OBJECT (self, "encoder %" GST_PTR_FORMAT " has no bitrate "
          "property whose unit we know; not driving it (use the "
          "target-bitrate notify instead)", self->encoder);
      gst_clear_object (&self->encoder);
    } else {
      GST_INFO_OBJECT (self, "driving %" GST_PTR_FORMAT " property %s",
          self->encoder, self->encoder_info->property);
    }
  } else {
    GST_WARNING_OBJECT (self, "no encoder found upstream; publishing "
        "target-bitrate only");
  }
  return self->encoder ? gst_object_ref (self->encoder) : NULL;
}

/* ------------------------------------------------------------ decisions */

/* After the controller changed: decide whether to publish. Called with
 * ctrl_lock; the actual publishing happens in apply_decision, unlocked. */
static gboolean
decision_changed_locked (GstUrcpSender * self, GstClockTime now,
    guint64 * out_bps)
{
  RcDecision d = rc_controller_get_decision (self->ctrl);
  guint64 old = self->target_bps;
  gboolean big = old == 0 ||
      (gdouble) (d.media_bps > old ? d.media_bps - old : old - d.media_bps)
      / old >= ENCODER_MIN_CHANGE;
  gboolean stale = !GST_CLOCK_TIME_IS_VALID (self->last_encoder_set) ||
      (GST_CLOCK_TIME_IS_VALID (now) &&
      now >= self->last_encoder_set + ENCODER_REFRESH);

  if (d.media_bps == old || !(big || stale))
    return FALSE;
  GST_DEBUG_OBJECT (self, "target %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT
      " bit/s, pacing %" G_GUINT64_FORMAT " bit/s, state %s: %s", old,
      d.media_bps, d.pacing_bps, rc_state_to_string (d.state), d.reason);
  self->target_bps = d.media_bps;
  self->last_encoder_set = now;
  *out_bps = d.media_bps;
  return TRUE;
}

static void
apply_decision (GstUrcpSender * self, guint64 bps)
{
  GstElement *enc;
  const GstRcEncoderInfo *info;

  g_mutex_lock (&self->ctrl_lock);
  enc = ensure_encoder_locked (self);
  info = self->encoder_info;
  g_mutex_unlock (&self->ctrl_lock);

  if (enc) {
    gst_rc_encoder_set_bitrate (enc, info, bps);
    gst_object_unref (enc);
  }
  g_object_notify (G_OBJECT (self), "target-bitrate");
}

/* ------------------------------------------------------------- feedback */

/* rtpsession stamps local-ts with its own GstSystemClock reading when it
 * sends the packet (seen on 1.22: ~600 s of monotonic time while the
 * running time was 2 s), not with running time. Other senders of the event
 * (older or newer rtpsession, tests, apps) may use running time. Take the
 * base the newest local-ts is closest to and move the stamps onto running
 * time, so that now - send_ts is an RTT; the OWD does not care either way. */
static void
translate_local_ts (GArray * results, GstClockTime running_now)
{
  GstClock *sys = gst_system_clock_obtain ();
  GstClockTime sys_now = gst_clock_get_time (sys);
  GstClockTimeDiff shift = GST_CLOCK_DIFF (running_now, sys_now);
  GstClockTime newest = 0;
  guint i;

  gst_object_unref (sys);
  for (i = 0; i < results->len; i++) {
    RcPacketResult *r = &g_array_index (results, RcPacketResult, i);
    if (GST_CLOCK_TIME_IS_VALID (r->send_ts))
      newest = MAX (newest, r->send_ts);
  }
  if (ABS (GST_CLOCK_DIFF (newest, running_now)) <=
      ABS (GST_CLOCK_DIFF (newest, sys_now)))
    return;                     /* already running time */

  for (i = 0; i < results->len; i++) {
    RcPacketResult *r = &g_array_index (results, RcPacketResult, i);
    if (!GST_CLOCK_TIME_IS_VALID (r->send_ts))
      continue;
    if ((GstClockTimeDiff) r->send_ts >= shift)
      r->send_ts -= shift;
    else
      r->send_ts = GST_CLOCK_TIME_NONE;  /* from before we started */
  }
}

static void
handle_twcc (GstUrcpSender * self, const GstStructure * s)
{
  RcTwccParseInfo info;
  RcFeedback fb = { 0 };
  GstClockTime now = running_time_now (self);
  guint64 bps = 0;
  gboolean publish = FALSE;

  g_mutex_lock (&self->ctrl_lock);
  g_array_set_size (self->results, 0);
  if (!rc_twcc_parse (s, &self->twcc_unwrap, self->results, &info)) {
    g_mutex_unlock (&self->ctrl_lock);
    GST_WARNING_OBJECT (self, "ignoring malformed %s event: %s",
        RC_TWCC_EVENT_NAME, info.first_problem);
    return;
  }
  self->twcc_events++;
  self->twcc_rejected += info.n_rejected;
  if (info.n_rejected)
    GST_WARNING_OBJECT (self, "%u of %u feedback entries rejected (first: %s)",
        info.n_rejected, info.n_packets, info.first_problem);
  if (info.n_backward)
    GST_INFO_OBJECT (self, "%u remote timestamps went backwards "
        "(reordering or receiver clock step)", info.n_backward);
  if (info.n_duplicates)
    GST_INFO_OBJECT (self, "%u duplicate seqnums in one report",
        info.n_duplicates);

  if (self->results->len > 0 && GST_CLOCK_TIME_IS_VALID (now)) {
    translate_local_ts (self->results, now);
    fb.packets = (const RcPacketResult *) self->results->data;
    fb.n_packets = self->results->len;
    fb.rtt = fb.jitter = GST_CLOCK_TIME_NONE;
    self->last_twcc = now;
    rc_controller_on_feedback (self->ctrl, &fb, now);
    publish = decision_changed_locked (self, now, &bps);
  }
  g_mutex_unlock (&self->ctrl_lock);
  GST_LOG_OBJECT (self, "TWCC feedback: %u entries", info.n_packets);
  if (publish)
    apply_decision (self, bps);
}

/* NTP 32.32 "middle 32 bits" of now, for RTT = A - LSR - DLSR (RFC 3550
 * sec. 6.4.1). rtpsession's default ntp-time-source is the wall clock. */
static guint32
ntp_short_now (void)
{
  guint64 us = g_get_real_time () + G_GUINT64_CONSTANT (2208988800) * 1000000;
  guint64 sec = us / 1000000, frac = ((us % 1000000) << 32) / 1000000;
  return (guint32) (((sec & 0xffff) << 16) | (frac >> 16));
}

static void
on_receiving_rtcp (GObject * session, GstBuffer * buffer, GstUrcpSender * self)
{
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;
  gboolean more;
  guint32 arrival = ntp_short_now ();
  RcFeedback fb = { 0 };
  gboolean have = FALSE, publish = FALSE;
  guint64 bps = 0;
  GstClockTime now;

  if (!gst_rtcp_buffer_map (buffer, GST_MAP_READ, &rtcp))
    return;
  g_mutex_lock (&self->ctrl_lock);
  for (more = gst_rtcp_buffer_get_first_packet (&rtcp, &pkt); more;
      more = gst_rtcp_packet_move_to_next (&pkt)) {
    GstRTCPType t = gst_rtcp_packet_get_type (&pkt);
    guint i, n;

    if (t != GST_RTCP_TYPE_RR && t != GST_RTCP_TYPE_SR)
      continue;
    n = gst_rtcp_packet_get_rb_count (&pkt);
    for (i = 0; i < n; i++) {
      guint32 ssrc, ehs, jitter, lsr, dlsr;
      guint8 fl;
      gint32 plost;
      gst_rtcp_packet_get_rb (&pkt, i, &ssrc, &fl, &plost, &ehs, &jitter,
          &lsr, &dlsr);
      if (self->have_ssrc && ssrc != self->ssrc)
        continue;
      fb.has_report = TRUE;
      fb.fraction_lost = fl / 256.0;
      fb.rtt = GST_CLOCK_TIME_NONE;
      if (lsr != 0) {
        guint32 rtt_short = arrival - lsr - dlsr;
        /* Negative or huge (clock sources differ): no RTT this time. */
        if (rtt_short < (10u << 16))
          fb.rtt = gst_util_uint64_scale (rtt_short, GST_SECOND, 65536);
      }
      fb.jitter = self->clock_rate > 0 ?
          gst_util_uint64_scale (jitter, GST_SECOND, self->clock_rate) :
          GST_CLOCK_TIME_NONE;
      have = TRUE;
    }
  }
  gst_rtcp_buffer_unmap (&rtcp);

  now = running_time_now (self);
  if (have && GST_CLOCK_TIME_IS_VALID (now)) {
    self->rr_reports++;
    self->last_rr = now;
    /* Transport-wide feedback is finer; the RR only stands in for it. */
    if (!GST_CLOCK_TIME_IS_VALID (self->last_twcc) ||
        now > self->last_twcc + TWCC_STALE) {
      GST_DEBUG_OBJECT (self, "RTCP RR: fraction lost %.3f, RTT %"
          GST_TIME_FORMAT, fb.fraction_lost, GST_TIME_ARGS (fb.rtt));
      rc_controller_on_feedback (self->ctrl, &fb, now);
      publish = decision_changed_locked (self, now, &bps);
    }
  }
  g_mutex_unlock (&self->ctrl_lock);
  if (publish)
    apply_decision (self, bps);
}

/* Finds the RTP session our src pad feeds, for the RTCP RR fallback:
 * either rtpbin's send_rtp_sink_N ghost pad (the usual place), or an
 * rtpsession element directly (as when we are inside an rtpbin
 * aux-sender bin, or used with a bare rtpsession). */
static void
connect_rtp_session (GstUrcpSender * self)
{
  GstPad *peer = gst_rc_linked_element_pad (self->srcpad, TRUE);
  GstElement *parent = NULL;
  GObject *session = NULL;
  guint id;

  if (!peer)
    return;
  parent = gst_pad_get_parent_element (peer);
  if (parent && GST_IS_GHOST_PAD (peer) &&
      g_str_equal (G_OBJECT_TYPE_NAME (parent), "GstRtpBin") &&
      sscanf (GST_PAD_NAME (peer), "send_rtp_sink_%u", &id) == 1) {
    g_signal_emit_by_name (parent, "get-internal-session", id, &session);
  } else if (parent && g_object_class_find_property (G_OBJECT_GET_CLASS
          (parent), "internal-session") &&
      g_str_equal (G_OBJECT_TYPE_NAME (parent), "GstRtpSession")) {
    g_object_get (parent, "internal-session", &session, NULL);
  }
  if (session) {
    self->rtcp_handler = g_signal_connect (session, "on-receiving-rtcp",
        G_CALLBACK (on_receiving_rtcp), self);
    self->rtp_session = session;
    GST_INFO_OBJECT (self, "listening to RTCP of %" GST_PTR_FORMAT, parent);
  } else {
    GST_INFO_OBJECT (self, "not linked to an rtpbin/rtpsession send pad: no "
        "RTCP receiver-report fallback, transport-wide feedback only");
  }
  gst_clear_object (&parent);
  gst_object_unref (peer);
}

static void
disconnect_rtp_session (GstUrcpSender * self)
{
  if (self->rtp_session) {
    g_signal_handler_disconnect (self->rtp_session, self->rtcp_handler);
    g_clear_object (&self->rtp_session);
  }
}

/* ---------------------------------------------------------------- data */

static void
check_caps (GstUrcpSender * self, GstCaps * caps)
{
  GstStructure *s = gst_caps_get_structure (caps, 0);
  guint i, n = gst_structure_n_fields (s);
  gboolean twcc = FALSE;
  guint ssrc;

  for (i = 0; i < n; i++) {
    const gchar *f = gst_structure_nth_field_name (s, i);
    const gchar *v;
    if (!g_str_has_prefix (f, "extmap-"))
      continue;
    v = gst_structure_get_string (s, f);
    if (v && g_str_equal (v, RC_TWCC_EXT_URI))
      twcc = TRUE;
  }
  g_mutex_lock (&self->ctrl_lock);
  if (!gst_structure_get_int (s, "clock-rate", &self->clock_rate))
    self->clock_rate = 0;
  if (gst_structure_get_uint (s, "ssrc", &ssrc)) {
    self->ssrc = ssrc;
    self->have_ssrc = TRUE;
  }
  if (!twcc && !self->warned_no_twcc_caps) {
    self->warned_no_twcc_caps = TRUE;
    GST_WARNING_OBJECT (self, "caps carry no transport-wide-cc extension "
        "(extmap-N=%s): only RTCP receiver reports can drive the rate",
        RC_TWCC_EXT_URI);
  }
  g_mutex_unlock (&self->ctrl_lock);
}

/* What a sent packet calls for once ctrl_lock is released. */
typedef struct
{
  gboolean publish;             /* a new target to hand to the encoder */
  guint64 bps;
  gboolean warn;                /* the one no-feedback warning is due */
} GstUrcpSentActions;

/* Records a packet as sent, ticks the controller and decides, in the same
 * critical section, whether to publish a target or warn; ctrl_lock held.
 * Carry the result out with act_after_send() once unlocked. */
static GstUrcpSentActions
note_sent_locked (GstUrcpSender * self, GstBuffer * buf, guint size,
    GstClockTime now)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  GstUrcpSentActions a = { FALSE, 0, FALSE };

  if (gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp)) {
    self->ssrc = gst_rtp_buffer_get_ssrc (&rtp);
    self->have_ssrc = TRUE;
    gst_rtp_buffer_unmap (&rtp);
  }
  if (!GST_CLOCK_TIME_IS_VALID (now))
    return a;
  if (!GST_CLOCK_TIME_IS_VALID (self->first_push))
    self->first_push = now;
  rc_controller_on_packet_sent (self->ctrl, self->sent_seq++, size, FALSE, now);
  rc_controller_on_tick (self->ctrl, now);
  a.publish = decision_changed_locked (self, now, &a.bps);
  a.warn = !self->warned_no_feedback &&
      !GST_CLOCK_TIME_IS_VALID (self->last_twcc) &&
      !GST_CLOCK_TIME_IS_VALID (self->last_rr) &&
      now > self->first_push + NO_FEEDBACK_WARN_AFTER;
  if (a.warn)
    self->warned_no_feedback = TRUE;
  return a;
}

static void
act_after_send (GstUrcpSender * self, const GstUrcpSentActions * a)
{
  if (a->publish)
    apply_decision (self, a->bps);
  if (a->warn)
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("No congestion feedback received in 5 seconds; the bitrate is held "
            "and will back off."),
        ("Neither transport-wide-cc feedback nor RTCP receiver reports "
            "arrived. Put extmap-N=(string)\"%s\" in the RTP caps on both "
            "sides and make sure RTCP flows back to the sender's rtpbin.",
            RC_TWCC_EXT_URI));
}

static GstFlowReturn
gst_urcp_sender_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstUrcpSender *self = GST_URCP_SENDER (parent);
  GstClockTime now = running_time_now (self);
  guint size = gst_buffer_get_size (buf);
  gboolean pacing;
  GstFlowReturn ret;

  GST_OBJECT_LOCK (self);
  pacing = self->pacing;
  GST_OBJECT_UNLOCK (self);

  /* Without a clock (not playing) there is no time to pace on. */
  if (!pacing || !GST_CLOCK_TIME_IS_VALID (now)) {
    GstUrcpSentActions a;
    g_mutex_lock (&self->ctrl_lock);
    a = note_sent_locked (self, buf, size, now);
    g_mutex_unlock (&self->ctrl_lock);
    act_after_send (self, &a);
    return gst_pad_push (self->srcpad, buf);
  }

  g_mutex_lock (&self->ctrl_lock);
  ret = self->srcresult;
  if (ret == GST_FLOW_OK) {
    GstUrcpQueued *q = g_new0 (GstUrcpQueued, 1);
    q->obj = GST_MINI_OBJECT_CAST (buf);
    q->arrival = now;
    q->size = size;
    g_queue_push_tail (&self->queue, q);
    self->queued_bytes += size;
    g_cond_signal (&self->queue_cond);
  } else {
    gst_buffer_unref (buf);
  }
  g_mutex_unlock (&self->ctrl_lock);
  return ret;
}

/* Pacing task on the src pad: releases the head packet when the pacer
 * allows, waiting on the element clock (a test clock works). */
static void
gst_urcp_sender_loop (GstUrcpSender * self)
{
  GstUrcpQueued *q;
  GstClockTime now, at;
  GstClock *clock;
  GstFlowReturn ret;
  RcDecision d;
  GstUrcpSentActions actions;

  g_mutex_lock (&self->ctrl_lock);
  while (g_queue_is_empty (&self->queue) && !self->flushing)
    g_cond_wait (&self->queue_cond, &self->ctrl_lock);
  if (self->flushing)
    goto pause;

  q = g_queue_peek_head (&self->queue);
  if (GST_IS_EVENT (q->obj)) {
    GstEvent *ev = GST_EVENT (gst_mini_object_ref (q->obj));
    g_queue_pop_head (&self->queue);
    queued_free (q);
    g_mutex_unlock (&self->ctrl_lock);
    if (GST_EVENT_TYPE (ev) == GST_EVENT_EOS) {
      gst_pad_push_event (self->srcpad, ev);
      g_mutex_lock (&self->ctrl_lock);
      self->srcresult = GST_FLOW_EOS;
      goto pause;
    }
    gst_pad_push_event (self->srcpad, ev);
    return;
  }

  now = running_time_now (self);
  at = rc_pacer_next_send (&self->pacer, q->arrival);
  clock = gst_element_get_clock (GST_ELEMENT (self));
  if (GST_CLOCK_TIME_IS_VALID (now) && at > now && clock) {
    GstClockID id = gst_clock_new_single_shot_id (clock,
        at + gst_element_get_base_time (GST_ELEMENT (self)));
    self->clock_id = id;
    g_mutex_unlock (&self->ctrl_lock);
    gst_clock_id_wait (id, NULL);
    gst_object_unref (clock);
    g_mutex_lock (&self->ctrl_lock);
    self->clock_id = NULL;
    gst_clock_id_unref (id);
    /* Woken by a flush, or on time: either way look again. */
    g_mutex_unlock (&self->ctrl_lock);
    return;
  }
  if (clock)
    gst_object_unref (clock);

  g_queue_pop_head (&self->queue);
  d = rc_controller_get_decision (self->ctrl);
  rc_pacer_sent (&self->pacer, GST_CLOCK_TIME_IS_VALID (now) ? now : at,
      q->size, d.pacing_bps, self->queued_bytes, q->arrival);
  self->queued_bytes -= q->size;
  actions = note_sent_locked (self, GST_BUFFER (q->obj), q->size, now);
  g_mutex_unlock (&self->ctrl_lock);

  ret = gst_pad_push (self->srcpad, GST_BUFFER (gst_mini_object_ref (q->obj)));
  queued_free (q);
  act_after_send (self, &actions);

  if (ret != GST_FLOW_OK) {
    g_mutex_lock (&self->ctrl_lock);
    self->srcresult = ret;
    if (ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS) {
      g_mutex_unlock (&self->ctrl_lock);
      GST_ELEMENT_FLOW_ERROR (self, ret);
      g_mutex_lock (&self->ctrl_lock);
    }
    goto pause;
  }
  return;

pause:
  GST_DEBUG_OBJECT (self, "pausing task (%s)",
      self->flushing ? "flushing" : gst_flow_get_name (self->srcresult));
  g_mutex_unlock (&self->ctrl_lock);
  gst_pad_pause_task (self->srcpad);
}

static void
clear_queue_locked (GstUrcpSender * self)
{
  g_queue_clear_full (&self->queue, (GDestroyNotify) queued_free);
  self->queued_bytes = 0;
  rc_pacer_reset (&self->pacer);
}

static void
set_flushing (GstUrcpSender * self, gboolean flushing)
{
  g_mutex_lock (&self->ctrl_lock);
  self->flushing = flushing;
  if (flushing) {
    self->srcresult = GST_FLOW_FLUSHING;
    if (self->clock_id)
      gst_clock_id_unschedule (self->clock_id);
    g_cond_signal (&self->queue_cond);
  } else {
    clear_queue_locked (self);
    self->srcresult = GST_FLOW_OK;
  }
  g_mutex_unlock (&self->ctrl_lock);
}

static gboolean
gst_urcp_sender_src_activate_mode (GstPad * pad, GstObject * parent,
    GstPadMode mode, gboolean active)
{
  GstUrcpSender *self = GST_URCP_SENDER (parent);

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;
  if (active) {
    set_flushing (self, FALSE);
    return gst_pad_start_task (pad, (GstTaskFunction) gst_urcp_sender_loop,
        self, NULL);
  }
  set_flushing (self, TRUE);
  return gst_pad_stop_task (pad);
}

static gboolean
gst_urcp_sender_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstUrcpSender *self = GST_URCP_SENDER (parent);
  gboolean pacing;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      gst_event_parse_caps (event, &caps);
      check_caps (self, caps);
      break;
    }
    case GST_EVENT_FLUSH_START:
      set_flushing (self, TRUE);
      gst_pad_push_event (self->srcpad, event);
      gst_pad_pause_task (self->srcpad);
      return TRUE;
    case GST_EVENT_FLUSH_STOP:{
      gboolean ret = gst_pad_push_event (self->srcpad, event);
      set_flushing (self, FALSE);
      gst_pad_start_task (self->srcpad,
          (GstTaskFunction) gst_urcp_sender_loop, self, NULL);
      return ret;
    }
    default:
      break;
  }

  GST_OBJECT_LOCK (self);
  pacing = self->pacing;
  GST_OBJECT_UNLOCK (self);

  /* Serialized events keep their place among the paced buffers. */
  if (pacing && GST_EVENT_IS_SERIALIZED (event) &&
      GST_PAD_MODE (self->srcpad) == GST_PAD_MODE_PUSH) {
    g_mutex_lock (&self->ctrl_lock);
    if (self->srcresult != GST_FLOW_OK && GST_EVENT_TYPE (event) !=
        GST_EVENT_EOS) {
      g_mutex_unlock (&self->ctrl_lock);
      gst_event_unref (event);
      return FALSE;
    }
    {
      GstUrcpQueued *q = g_new0 (GstUrcpQueued, 1);
      q->obj = GST_MINI_OBJECT_CAST (event);
      g_queue_push_tail (&self->queue, q);
      g_cond_signal (&self->queue_cond);
    }
    g_mutex_unlock (&self->ctrl_lock);
    return TRUE;
  }
  return gst_pad_event_default (pad, parent, event);
}

static gboolean
gst_urcp_sender_src_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstUrcpSender *self = GST_URCP_SENDER (parent);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CUSTOM_UPSTREAM) {
    const GstStructure *s = gst_event_get_structure (event);
    if (s && gst_structure_has_name (s, RC_TWCC_EVENT_NAME))
      handle_twcc (self, s);
  }
  return gst_pad_event_default (pad, parent, event);
}

static gboolean
gst_urcp_sender_src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstUrcpSender *self = GST_URCP_SENDER (parent);
  gboolean ret = gst_pad_query_default (pad, parent, query);

  if (ret && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    gboolean live;
    GstClockTime min, max;
    gboolean pacing;
    GstClockTime mq;

    GST_OBJECT_LOCK (self);
    pacing = self->pacing;
    mq = self->max_queue_time;
    GST_OBJECT_UNLOCK (self);
    gst_query_parse_latency (query, &live, &min, &max);
    /* Pacing may hold a packet up to max-queue-time. */
    if (pacing && GST_CLOCK_TIME_IS_VALID (max))
      max += mq;
    gst_query_set_latency (query, live, min, max);
  }
  return ret;
}

/* -------------------------------------------------------- state change */

static gboolean
start (GstUrcpSender * self)
{
  RcConfig cfg;
  GstClockTime mq;

  GST_OBJECT_LOCK (self);
  cfg = self->cfg;
  mq = self->max_queue_time;
  GST_OBJECT_UNLOCK (self);

  if (cfg.min_bps > cfg.max_bps) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("min-bitrate (%" G_GUINT64_FORMAT ") is above max-bitrate (%"
            G_GUINT64_FORMAT ").", cfg.min_bps, cfg.max_bps), (NULL));
    return FALSE;
  }
  cfg.start_bps = CLAMP (cfg.start_bps, cfg.min_bps, cfg.max_bps);

  g_mutex_lock (&self->ctrl_lock);
  rc_controller_free (self->ctrl);
  self->ctrl = rc_controller_new (&cfg);
  rc_pacer_init (&self->pacer, mq);
  rc_seq_unwrap_init (&self->twcc_unwrap);
  self->sent_seq = 0;
  self->first_push = self->last_twcc = self->last_rr = GST_CLOCK_TIME_NONE;
  self->last_encoder_set = GST_CLOCK_TIME_NONE;
  self->warned_no_feedback = self->warned_no_twcc_caps = FALSE;
  self->twcc_events = self->twcc_rejected = self->rr_reports = 0;
  self->have_ssrc = FALSE;
  self->target_bps = 0;
  self->encoder_searched = FALSE;
  gst_clear_object (&self->encoder);
  g_mutex_unlock (&self->ctrl_lock);
  GST_INFO_OBJECT (self, "controller %s, bitrate %" G_GUINT64_FORMAT "..%"
      G_GUINT64_FORMAT " start %" G_GUINT64_FORMAT ", beta %.2f, M %.0f",
      rc_controller_kind_to_string (cfg.kind), cfg.min_bps, cfg.max_bps,
      cfg.start_bps, cfg.beta, cfg.m);
  return TRUE;
}

static void
prepare_encoder (GstUrcpSender * self)
{
  GstElement *enc;
  gboolean conf;
  guint64 bps;

  GST_OBJECT_LOCK (self);
  conf = self->configure_encoder;
  GST_OBJECT_UNLOCK (self);

  g_mutex_lock (&self->ctrl_lock);
  enc = ensure_encoder_locked (self);
  bps = rc_controller_get_decision (self->ctrl).media_bps;
  self->target_bps = bps;
  if (enc && conf)
    gst_rc_encoder_configure (enc, self->encoder_info);
  g_mutex_unlock (&self->ctrl_lock);
  if (enc) {
    gst_rc_encoder_set_bitrate (enc, self->encoder_info, bps);
    gst_object_unref (enc);
  }
}

static GstStateChangeReturn
gst_urcp_sender_change_state (GstElement * element, GstStateChange transition)
{
  GstUrcpSender *self = GST_URCP_SENDER (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    if (!start (self))
      return GST_STATE_CHANGE_FAILURE;
    prepare_encoder (self);
    connect_rtp_session (self);
  }

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    disconnect_rtp_session (self);
    g_mutex_lock (&self->ctrl_lock);
    clear_queue_locked (self);
    gst_clear_object (&self->encoder);
    self->encoder_searched = FALSE;
    g_mutex_unlock (&self->ctrl_lock);
  }
  return ret;
}

/* ---------------------------------------------------------- properties */

/* Buffers (not events) in the pacing queue, and the oldest one's arrival;
 * ctrl_lock held. */
static guint
count_queued_buffers_locked (GstUrcpSender * self, GstClockTime * oldest)
{
  GList *l;
  guint n = 0;

  *oldest = GST_CLOCK_TIME_NONE;
  for (l = self->queue.head; l; l = l->next) {
    GstUrcpQueued *q = l->data;
    if (!GST_IS_BUFFER (q->obj))
      continue;
    if (n++ == 0)
      *oldest = q->arrival;
  }
  return n;
}

static GstStructure *
get_stats (GstUrcpSender * self)
{
  GstStructure *s;
  RcDecision d;
  GstClockTime now = running_time_now (self), oldest;
  guint n_buffers;

  g_mutex_lock (&self->ctrl_lock);
  n_buffers = count_queued_buffers_locked (self, &oldest);
  if (!GST_CLOCK_TIME_IS_VALID (now))
    now = oldest;
  if (!self->ctrl) {
    RcController *c;
    RcConfig cfg;
    GST_OBJECT_LOCK (self);
    cfg = self->cfg;
    GST_OBJECT_UNLOCK (self);
    cfg.max_bps = MAX (cfg.max_bps, cfg.min_bps);
    cfg.start_bps = CLAMP (cfg.start_bps, cfg.min_bps, cfg.max_bps);
    c = rc_controller_new (&cfg);
    s = rc_controller_get_stats (c);
    d = rc_controller_get_decision (c);
    rc_controller_free (c);
  } else {
    s = rc_controller_get_stats (self->ctrl);
    d = rc_controller_get_decision (self->ctrl);
  }
  gst_structure_set (s,
      "twcc-events", G_TYPE_UINT64, self->twcc_events,
      "twcc-rejected", G_TYPE_UINT64, self->twcc_rejected,
      "rr-reports", G_TYPE_UINT64, self->rr_reports,
      "pacing-queue-packets", G_TYPE_UINT, n_buffers,
      "pacing-queue-bytes", G_TYPE_UINT64, self->queued_bytes,
      "pacing-queue-ms", G_TYPE_DOUBLE, n_buffers == 0 ? 0.0 :
      (gdouble) rc_pacer_queue_time (&self->pacer, d.pacing_bps,
          self->queued_bytes, oldest, MAX (now, oldest)) / GST_MSECOND,
      "encoder", G_TYPE_STRING, self->encoder ?
      GST_OBJECT_NAME (self->encoder) : "", NULL);
  g_mutex_unlock (&self->ctrl_lock);
  return s;
}

static void
gst_urcp_sender_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstUrcpSender *self = GST_URCP_SENDER (object);

  GST_OBJECT_LOCK (self);
  /* Every writable property is GST_PARAM_MUTABLE_READY: the controller,
   * pacer and encoder set-up are built at READY->PAUSED, and switching
   * pacing with packets queued would reorder them. */
  if ((pspec->flags & GST_PARAM_MUTABLE_READY) &&
      GST_STATE (self) > GST_STATE_READY) {
    GST_OBJECT_UNLOCK (self);
    GST_WARNING_OBJECT (self, "property '%s' can only be changed in the "
        "NULL or READY state; ignored", pspec->name);
    return;
  }
  switch (prop_id) {
    case PROP_CONTROLLER:
      self->cfg.kind = g_value_get_enum (value);
      break;
    case PROP_MIN_BITRATE:
      self->cfg.min_bps = g_value_get_uint (value);
      break;
    case PROP_START_BITRATE:
      self->cfg.start_bps = g_value_get_uint (value);
      break;
    case PROP_MAX_BITRATE:
      self->cfg.max_bps = g_value_get_uint (value);
      break;
    case PROP_BETA:
      self->cfg.beta = g_value_get_double (value);
      break;
    case PROP_M:
      self->cfg.m = g_value_get_double (value);
      break;
    case PROP_PACING:
      self->pacing = g_value_get_boolean (value);
      break;
    case PROP_PACING_FACTOR:
      self->cfg.pacing_factor = g_value_get_double (value);
      break;
    case PROP_MAX_QUEUE_TIME:
      self->max_queue_time = g_value_get_uint64 (value);
      break;
    case PROP_ENCODER:
      gst_clear_object (&self->encoder_prop);
      self->encoder_prop = g_value_dup_object (value);
      break;
    case PROP_CONFIGURE_ENCODER:
      self->configure_encoder = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_urcp_sender_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstUrcpSender *self = GST_URCP_SENDER (object);

  switch (prop_id) {
    case PROP_TARGET_BITRATE:
      g_mutex_lock (&self->ctrl_lock);
      g_value_set_uint (value, (guint) MIN (self->target_bps, G_MAXUINT));
      g_mutex_unlock (&self->ctrl_lock);
      return;
    case PROP_STATS:
      g_value_take_boxed (value, get_stats (self));
      return;
    default:
      break;
  }

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_CONTROLLER:
      g_value_set_enum (value, self->cfg.kind);
      break;
    case PROP_MIN_BITRATE:
      g_value_set_uint (value, self->cfg.min_bps);
      break;
    case PROP_START_BITRATE:
      g_value_set_uint (value, self->cfg.start_bps);
      break;
    case PROP_MAX_BITRATE:
      g_value_set_uint (value, self->cfg.max_bps);
      break;
    case PROP_BETA:
      g_value_set_double (value, self->cfg.beta);
      break;
    case PROP_M:
      g_value_set_double (value, self->cfg.m);
      break;
    case PROP_PACING:
      g_value_set_boolean (value, self->pacing);
      break;
    case PROP_PACING_FACTOR:
      g_value_set_double (value, self->cfg.pacing_factor);
      break;
    case PROP_MAX_QUEUE_TIME:
      g_value_set_uint64 (value, self->max_queue_time);
      break;
    case PROP_ENCODER:
      g_value_set_object (value, self->encoder_prop);
      break;
    case PROP_CONFIGURE_ENCODER:
      g_value_set_boolean (value, self->configure_encoder);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_urcp_sender_finalize (GObject * object)
{
  GstUrcpSender *self = GST_URCP_SENDER (object);

  disconnect_rtp_session (self);
  clear_queue_locked (self);
  rc_controller_free (self->ctrl);
  g_array_unref (self->results);
  gst_clear_object (&self->encoder);
  gst_clear_object (&self->encoder_prop);
  g_mutex_clear (&self->ctrl_lock);
  g_cond_clear (&self->queue_cond);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_urcp_sender_class_init (GstUrcpSenderClass * klass)
{
  GObjectClass *gobject_class = (GObjectClass *) klass;
  GstElementClass *element_class = (GstElementClass *) klass;
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;
  RcConfig def;

  rc_config_init_defaults (&def);

  gobject_class->set_property = gst_urcp_sender_set_property;
  gobject_class->get_property = gst_urcp_sender_get_property;
  gobject_class->finalize = gst_urcp_sender_finalize;
  element_class->change_state = gst_urcp_sender_change_state;

  g_object_class_install_property (gobject_class, PROP_CONTROLLER,
      g_param_spec_enum ("controller", "Controller",
          "Rate control algorithm", GST_TYPE_URCP_CONTROLLER,
          def.kind, rw));
  g_object_class_install_property (gobject_class, PROP_MIN_BITRATE,
      g_param_spec_uint ("min-bitrate", "Minimum bitrate",
          "Lowest target the controller may set (bit/s)", 1000, G_MAXUINT,
          def.min_bps, rw));
  g_object_class_install_property (gobject_class, PROP_START_BITRATE,
      g_param_spec_uint ("start-bitrate", "Start bitrate",
          "Rate of the low-rate start-up phase (bit/s); clamped to "
          "min-bitrate..max-bitrate", 1000, G_MAXUINT,
          def.start_bps, rw));
  g_object_class_install_property (gobject_class, PROP_MAX_BITRATE,
      g_param_spec_uint ("max-bitrate", "Maximum bitrate",
          "Highest target the controller may set (bit/s)", 1000, G_MAXUINT,
          def.max_bps, rw));
  g_object_class_install_property (gobject_class, PROP_BETA,
      g_param_spec_double ("beta", "Beta",
          "URCP beta (sec. VI-B): weight of delta^AVE - delta^MIN in the "
          "target operating delay; higher competes harder, lower keeps delay "
          "lower", 0.0, 0.99, def.beta, rw));
  g_object_class_install_property (gobject_class, PROP_M,
      g_param_spec_double ("m", "M",
          "URCP M (sec. VI-C): about how many minimum RTTs it takes to reach "
          "R^MAX; higher is slower and steadier", 1.0, 10000.0, def.m,
          rw));
  g_object_class_install_property (gobject_class, PROP_PACING,
      g_param_spec_boolean ("pacing", "Pacing",
          "Spread packets at pacing-factor x target instead of sending each "
          "frame as a burst", DEFAULT_PACING, rw));
  g_object_class_install_property (gobject_class, PROP_PACING_FACTOR,
      g_param_spec_double ("pacing-factor", "Pacing factor",
          "Pacing rate as a multiple of the target bitrate", 1.0, 10.0,
          def.pacing_factor, rw));
  g_object_class_install_property (gobject_class, PROP_MAX_QUEUE_TIME,
      g_param_spec_uint64 ("max-queue-time", "Maximum pacing queue time",
          "Longest a packet may wait in the pacing queue (ns); a burst too "
          "big for the pacing rate is spread over this time, never dropped", GST_MSECOND,
          10 * GST_SECOND, DEFAULT_MAX_QUEUE_TIME, rw));
  g_object_class_install_property (gobject_class, PROP_ENCODER,
      g_param_spec_object ("encoder", "Encoder",
          "Encoder whose bitrate to set; NULL: find it upstream",
          GST_TYPE_ELEMENT, rw));
  g_object_class_install_property (gobject_class, PROP_CONFIGURE_ENCODER,
      g_param_spec_boolean ("configure-encoder", "Configure encoder",
          "Set the encoder up for real-time rate following (vp8enc/vp9enc: "
          "end-usage=cbr, deadline=1, 300 ms buffer, frame dropping; "
          "openh264enc: rate-control=bitrate; x264enc: pass=cbr)", DEFAULT_CONFIGURE_ENCODER, rw));
  g_object_class_install_property (gobject_class, PROP_TARGET_BITRATE,
      g_param_spec_uint ("target-bitrate", "Target bitrate",
          "Current media target (bit/s); notifies on change", 0, G_MAXUINT,
          0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Controller state and learned parameters (see the element docs "
          "for the fields)", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "URCP rate controller", "Filter/Network/RTP",
      "Sender-side rate control (URCP) from transport-wide congestion "
      "feedback: paces RTP and sets the encoder's bitrate",
      "gst-ratecontrol developers");
  gst_type_mark_as_plugin_api (GST_TYPE_URCP_CONTROLLER, 0);
}

static void
gst_urcp_sender_init (GstUrcpSender * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad, gst_urcp_sender_chain);
  gst_pad_set_event_function (self->sinkpad, gst_urcp_sender_sink_event);
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_event_function (self->srcpad, gst_urcp_sender_src_event);
  gst_pad_set_query_function (self->srcpad, gst_urcp_sender_src_query);
  gst_pad_set_activatemode_function (self->srcpad,
      gst_urcp_sender_src_activate_mode);
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  rc_config_init_defaults (&self->cfg);
  self->pacing = DEFAULT_PACING;
  self->max_queue_time = DEFAULT_MAX_QUEUE_TIME;
  self->configure_encoder = DEFAULT_CONFIGURE_ENCODER;

  g_mutex_init (&self->ctrl_lock);
  g_cond_init (&self->queue_cond);
  g_queue_init (&self->queue);
  self->results = g_array_new (FALSE, FALSE, sizeof (RcPacketResult));
  self->srcresult = GST_FLOW_FLUSHING;
  self->first_push = self->last_twcc = self->last_rr = GST_CLOCK_TIME_NONE;
  self->last_encoder_set = GST_CLOCK_TIME_NONE;
}
