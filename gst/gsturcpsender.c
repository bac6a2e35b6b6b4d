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
 * Protocol for Real-Time Communication Applications"; `controller` lists
 * the others), spreads each frame's packets at a pacing rate above the
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
 * session it is linked to. If no feedback comes back for the packets it
 * sends, it holds the rate, then backs off (halving it every second down
 * to min-bitrate); if none has come at all 5 s after the first packet, it
 * also posts a warning, once. #GstUrcpSender:min-bitrate and
 * #GstUrcpSender:max-bitrate may change while playing; the other
 * properties only in NULL or READY (set while running, they are ignored
 * and a warning is posted).
 *
 * Give the RTP sink after rtpbin `sync=false`: the pacer decides when a
 * packet leaves. A syncing sink holds every packet until its frame's
 * PTS, sends the frame as one burst again and adds its wait to the delay
 * the controller measures.
 *
 * Each controller's own parameters are properties named
 * `<controller>-<parameter>` (for example `urcp-beta`); they apply when
 * that controller is selected.
 *
 * ## Example sender (pipelines/urcp-sender.sh)
 * |[
 * gst-launch-1.0 rtpbin name=rtpbin \
 *   videotestsrc is-live=true pattern=ball ! video/x-raw,width=640,height=480,framerate=30/1 ! \
 *   vp8enc deadline=1 ! rtpvp8pay pt=96 ! \
 *   'application/x-rtp,extmap-1=(string)"http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"' ! \
 *   urcpsender ! rtpbin.send_rtp_sink_0 \
 *   rtpbin.send_rtp_src_0 ! udpsink host=127.0.0.1 port=5000 sync=false \
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
 * ## Circuit breaker
 * When, while media is sent, nothing confirms for 15 s that any of it
 * reaches the receiver (RFC 8083: no report, or reports that show no new
 * packets), the element drops the target to #GstUrcpSender:min-bitrate,
 * lets no more than twice that rate through, and posts a warning and an
 * element message named `urcpsender-circuit-breaker` with the fields
 * `tripped` (TRUE), `reason`, `silence` (ns), `rate-before` and `floor`
 * (bit/s) and `trips`. When media is confirmed again the same message comes
 * with `tripped` FALSE (and `silence` 0), and the target climbs back,
 * doubling every 500 ms. #GstUrcpSender:circuit-breaker turns it off.
 *
 * ## Statistics
 * #GstUrcpSender:stats is an `application/x-urcpsender-stats` structure.
 * Bit rates are guint bit/s, times guint64 nanoseconds
 * (GST_CLOCK_TIME_NONE when not known yet), counts guint64. From the sender
 * session: `controller`, `state` (the controller's phase, e.g. startup-low,
 * startup-ramp, steady; or hold and backoff while feedback is missing,
 * recover when it is back, circuit-breaker when that has tripped),
 * `reason` (why the rate is what it is), `target-bitrate` (the session's
 * current decision; the #GstUrcpSender:target-bitrate property is the value
 * last handed to the encoder, which follows it within 2 % or 1 s),
 * `fec-bitrate`, `pacing-bitrate`, `send-bitrate` (what left in the last
 * second), `acked-bitrate` (what transport-wide feedback says arrived, over
 * the last second of the receiver's clock), `fec-packets-sent` (repair
 * packets from a fecenc upstream, told apart by their SSRC or payload
 * type), `twcc-events`, `twcc-rejected` (malformed entries), `rr-reports`,
 * `pacing-queue-packets`, `pacing-queue-bytes`, `pacing-queue-time` (how
 * long the queue takes to drain), `circuit-breaker-trips`,
 * `circuit-breaker-dropped` (packets not admitted while tripped),
 * `send-cap` (the controller's cap on what media may send, 0: none; r3cp's
 * request), `selective-dropped-frames` and `selective-dropped-bytes`
 * (non-reference frames dropped under it, see
 * #GstUrcpSender:temporal-layers); from the
 * element: `encoder` and `rtp-session` (element names, empty while not
 * found); and the controller's own fields. URCP and UM: `delay-bitrate` and
 * `loss-bitrate` (the rates of the delay- and the loss-driven instance),
 * `capacity` (learned path capacity), `average-bitrate`, `delay-noise`
 * (learned inherent queueing delay of the path), `queueing-delay` (recent
 * average), `self-queue` (the queueing delay our own packets, as sent,
 * make at a bottleneck of the learned capacity, or of the rate our frames
 * arrive at where lower: the least delay-noise the rate equation uses
 * while nothing was lost for 30 s; URCP only), `operating-point` (bits)
 * and `gain` (1/s^2) of the rate equation, `standing-queue`,
 * `bottleneck-rate` (from the receive spacing of packets sent faster than
 * the path carries; 0 when none were; URCP only), `probes`,
 * `probes-failed`, `probe-ramps`,
 * `overload-cuts` (R^MAX lowered after a capacity fall), `competing`
 * (TRUE while a flow that fills the bottleneck's buffer, such as TCP,
 * shares the path and URCP follows loss, as TCP's CUBIC does, instead of
 * the delay),
 * `competitor-episodes` (times it began to), `loss-noise`,
 * `loss-average`, `loss-operating-point`, `loss-rate` (recent, 0..1),
 * `rtt`, `rtt-min`, `skew-ppm` (estimated receiver clock drift),
 * `feedback-count`, `packets-acked`, `packets-lost`, `owd-resets`.
 * docs/urcpsender.md maps them to the URCP paper's symbols.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include "gsturcpsender.h"
#include "gstrcencoder.h"
#include "gstfecenc.h"
#include "rc-rtcp.h"

GST_DEBUG_CATEGORY_STATIC (gst_urcp_sender_debug);
#define GST_CAT_DEFAULT gst_urcp_sender_debug

enum
{
  PROP_0,
  PROP_CONTROLLER,
  PROP_MIN_BITRATE,
  PROP_START_BITRATE,
  PROP_MAX_BITRATE,
  PROP_PACING,
  PROP_PACING_FACTOR,
  PROP_MAX_QUEUE_TIME,
  PROP_CIRCUIT_BREAKER,
  PROP_FEEDBACK_GATHER_TIME,
  PROP_ENCODER,
  PROP_CONFIGURE_ENCODER,
  PROP_TEMPORAL_LAYERS,
  PROP_TARGET_BITRATE,
  PROP_STATS,
  /* then one per controller parameter, see install_controller_params() */
  PROP_N_FIXED,
};

/* Bitrate, pacing and queue defaults come from rc_sender_config_init()
 * and rc_rate_limits_init(), where each is cited. */
#define DEFAULT_CONFIGURE_ENCODER TRUE
#define DEFAULT_TEMPORAL_LAYERS 1

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

/* The controller enum, built from the registry when first needed. */
GType
gst_urcp_controller_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    guint i, n;
    const RcControllerInfo *const *l = rc_controller_list (&n);
    GEnumValue *values = g_new0 (GEnumValue, n + 1);
    GType t;

    for (i = 0; i < n; i++) {
      values[i].value = i;
      values[i].value_name = l[i]->description;
      values[i].value_nick = l[i]->name;
    }
    t = g_enum_register_static ("GstUrcpController", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* Property id -> "<controller>-<parameter>", for ids >= PROP_N_FIXED. */
static GPtrArray *param_keys;

#define gst_urcp_sender_parent_class parent_class
G_DEFINE_TYPE (GstUrcpSender, gst_urcp_sender, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (urcpsender, "urcpsender",
    GST_RANK_NONE, GST_TYPE_URCP_SENDER,
    GST_DEBUG_CATEGORY_INIT (gst_urcp_sender_debug, "urcpsender", 0,
        "URCP sender-side rate controller"));

/* Only in PLAYING is there a running time to pace on. In the window
 * between the pipeline handing out its clock and this element getting its
 * base time for PLAYING, clock minus base time is no running time (an
 * unset base time of 0 gives the clock's absolute time): an event stamped
 * then was due in hours, and the pacing task waited for it with every
 * packet queued behind (seen as a queue that never drained and an EOS
 * that never came out, a few runs in a hundred). Outside PLAYING packets
 * and events pass unpaced, as without a clock. */
static GstClockTime
running_time_now (GstUrcpSender * self)
{
  if (GST_STATE (self) != GST_STATE_PLAYING)
    return GST_CLOCK_TIME_NONE;
  return gst_element_get_current_running_time (GST_ELEMENT (self));
}

/* What the session's items are: buffers and serialized events. */
static void
item_free (gpointer data)
{
  gst_mini_object_unref (GST_MINI_OBJECT_CAST (data));
}

/* The reading now of the clock rtpsession stamps TWCC local-ts with. */
static GstClockTime
system_clock_now (void)
{
  GstClock *sys = gst_system_clock_obtain ();
  GstClockTime t = gst_clock_get_time (sys);

  gst_object_unref (sys);
  return t;
}

/* ---------------------------------------------------------------- encoder */

/* Called with ctrl_lock held; returns a ref to the encoder to set, or NULL.
 * `*is_new` (may be NULL) says whether it was not the one driven before. */
static GstElement *
ensure_encoder_locked (GstUrcpSender * self, gboolean * is_new)
{
  GstElement *given, *before;

  if (is_new)
    *is_new = FALSE;
  if (self->encoder_searched)
    return self->encoder ? gst_object_ref (self->encoder) : NULL;

  GST_OBJECT_LOCK (self);
  given = self->encoder_prop ? gst_object_ref (self->encoder_prop) : NULL;
  GST_OBJECT_UNLOCK (self);

  before = self->encoder;
  self->encoder_searched = TRUE;
  self->encoder = given ? given : gst_rc_encoder_find_upstream (self->sinkpad);
  if (self->encoder) {
    self->encoder_info = gst_rc_encoder_info_for (self->encoder);
    if (!self->encoder_info) {
      GST_DEBUG_OBJECT (self, "encoder %" GST_PTR_FORMAT " has no bitrate "
          "property whose unit we know; not driving it", self->encoder);
      /* Said on the bus once the locks are released (post_discovery): a
       * bus sync handler may call back into the element. */
      if (!self->warned_unknown_encoder) {
        self->warned_unknown_encoder = TRUE;
        g_free (self->unknown_encoder);
        self->unknown_encoder = g_strdup (G_OBJECT_TYPE_NAME (self->encoder));
      }
      gst_clear_object (&self->encoder);
    } else if (self->encoder != before) {
      GST_INFO_OBJECT (self, "driving %" GST_PTR_FORMAT " property %s",
          self->encoder, self->encoder_info->property);
    }
  } else {
    GST_DEBUG_OBJECT (self, "no encoder found upstream");
  }
  if (is_new)
    *is_new = self->encoder && self->encoder != before;
  gst_clear_object (&before);
  return self->encoder ? gst_object_ref (self->encoder) : NULL;
}

/* What discovery found wrong, on the bus. Called without locks. */
static void
post_discovery (GstUrcpSender * self)
{
  gchar *name;
  gboolean none;

  g_mutex_lock (&self->ctrl_lock);
  name = self->unknown_encoder;
  self->unknown_encoder = NULL;
  none = self->post_no_encoder;
  self->post_no_encoder = FALSE;
  g_mutex_unlock (&self->ctrl_lock);
  if (name)
    GST_ELEMENT_WARNING (self, STREAM, NOT_IMPLEMENTED,
        ("The encoder upstream (%s) is not one urcpsender knows how to drive; "
            "its bitrate is not set. Connect to notify::target-bitrate and "
            "set it from the application.", name),
        ("Known encoders are listed in gst/gstrcencoder.c."));
  if (none)
    GST_ELEMENT_WARNING (self, STREAM, NOT_IMPLEMENTED,
        ("No video encoder was found upstream of urcpsender, so nothing "
            "follows its target bitrate. Set the encoder property, or "
            "connect to notify::target-bitrate and set the bitrate from the "
            "application."),
        ("Looked up to 10 elements upstream, through bins, for an element "
            "of class Encoder/Video."));
  g_free (name);
}

/* Sets the encoder to the session's target (`bps` if there is no session);
 * an encoder driven for the first time is set up for it first. Actions from
 * different threads may be carried out in any order: set what the session
 * holds now, one thread at a time, so the encoder ends at the latest
 * target. Called without locks. */
static void
drive_encoder (GstUrcpSender * self, guint64 bps)
{
  GstElement *enc;
  const GstRcEncoderInfo *info;
  gboolean conf, is_new, no_layers = FALSE;
  guint layers;

  GST_OBJECT_LOCK (self);
  conf = self->configure_encoder;
  layers = self->temporal_layers;
  GST_OBJECT_UNLOCK (self);

  g_mutex_lock (&self->enc_lock);
  g_mutex_lock (&self->ctrl_lock);
  enc = ensure_encoder_locked (self, &is_new);
  info = self->encoder_info;
  if (self->sender)
    bps = rc_sender_get_target (self->sender);
  g_mutex_unlock (&self->ctrl_lock);
  if (enc) {
    if (is_new && conf) {
      gst_rc_encoder_configure (enc, info);
      if (layers == 2 && !gst_rc_encoder_set_temporal_layers (enc, info))
        no_layers = TRUE;
    }
    gst_rc_encoder_set_bitrate (enc, info, bps);
    gst_object_unref (enc);
  }
  g_mutex_unlock (&self->enc_lock);
  post_discovery (self);
  if (no_layers)
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("temporal-layers=2 needs vp8enc; the encoder found (%s) is coded "
            "with one layer, so no frame can be dropped selectively.",
            info->factory), (NULL));
}

/* ------------------------------------------------------------- actions */

/* Polls the session at `now` (ctrl_lock held) and takes its actions into
 * `out` (a caller's stack array), to be carried out unlocked. */
static guint
poll_locked (GstUrcpSender * self, GstClockTime now, RcSenderAction * out,
    guint max)
{
  guint n;

  g_array_set_size (self->actions, 0);
  rc_sender_poll (self->sender, now, self->actions);
  n = MIN (self->actions->len, max);
  /* An array that never held an element has no data pointer (UBSan). */
  if (n)
    memcpy (out, self->actions->data, n * sizeof (RcSenderAction));
  return n;
}

/* rc_sender_poll() gives at most one action of each of its kinds. */
#define MAX_ACTIONS 6

/* The circuit breaker tripped or reset: a warning for people (gst-launch
 * prints it) and an element message for applications. */
static void
post_breaker (GstUrcpSender * self, gboolean tripped)
{
  RcSenderBreaker b = { 0 };
  GstStructure *st;

  g_mutex_lock (&self->ctrl_lock);
  if (self->sender)
    rc_sender_get_breaker (self->sender, &b);
  g_mutex_unlock (&self->ctrl_lock);
  if (tripped)
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("Circuit breaker: nothing has shown for %.0f s that media reaches "
            "the receiver; sending at %" G_GUINT64_FORMAT " kbit/s until it "
            "does.", (gdouble) b.silent / GST_SECOND, b.floor / 1000),
        ("%s (RFC 8083). The rate was %" G_GUINT64_FORMAT " bit/s. Check "
            "that RTCP (and transport-wide-cc feedback) comes back to the "
            "sender's rtpbin, and that the receiver gets the media.",
            b.reason ? b.reason : "", b.rate_before));
  st = gst_structure_new ("urcpsender-circuit-breaker",
      "tripped", G_TYPE_BOOLEAN, tripped,
      "reason", G_TYPE_STRING, tripped && b.reason ? b.reason : "",
      "silence", G_TYPE_UINT64, (guint64) b.silent,
      "rate-before", G_TYPE_UINT64, b.rate_before,
      "floor", G_TYPE_UINT64, b.floor,
      "trips", G_TYPE_UINT, b.trips, NULL);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), st));
}

static void
carry_out (GstUrcpSender * self, const RcSenderAction * a, guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    switch (a[i].kind) {
      case RC_SENDER_SET_ENCODER:
        drive_encoder (self, a[i].bps);
        g_object_notify (G_OBJECT (self), "target-bitrate");
        break;
      case RC_SENDER_SET_FEC:{
        guint64 bps;

        g_mutex_lock (&self->enc_lock);
        g_mutex_lock (&self->ctrl_lock);
        bps = self->sender ? rc_sender_get_fec_rate (self->sender) : a[i].bps;
        g_mutex_unlock (&self->ctrl_lock);
        /* fecenc upstream follows it; without one nothing answers. */
        GST_DEBUG_OBJECT (self, "asking upstream FEC for %" G_GUINT64_FORMAT
            " bit/s", bps);
        gst_pad_push_event (self->sinkpad,
            gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
                gst_structure_new (GST_FEC_ENC_PROBE_EVENT, "bitrate",
                    G_TYPE_UINT, (guint) MIN (bps, G_MAXUINT), NULL)));
        g_mutex_unlock (&self->enc_lock);
        break;
      }
      case RC_SENDER_WARN_NO_FEEDBACK:
        GST_ELEMENT_WARNING (self, STREAM, FAILED,
            ("No congestion feedback received in 5 seconds; the bitrate is "
                "held and will back off."),
            ("Neither transport-wide-cc feedback nor RTCP receiver reports "
                "arrived. Put extmap-N=(string)\"%s\" in the RTP caps on both "
                "sides and make sure RTCP flows back to the sender's rtpbin.",
                RC_TWCC_EXT_URI));
        break;
      case RC_SENDER_BREAKER_TRIPPED:
      case RC_SENDER_BREAKER_RESET:
        post_breaker (self, a[i].kind == RC_SENDER_BREAKER_TRIPPED);
        break;
    }
  }
}

/* ------------------------------------------------------------- feedback */

static void schedule_feedback_locked (GstUrcpSender * self);

/* Gathered feedback is due (rc_sender_feedback_due): poll the session, so
 * it reaches the controller on time even while no packet or RTCP comes. */
static gboolean
feedback_due_cb (GstClock * clock, GstClockTime time, GstClockID id,
    gpointer user_data)
{
  GstUrcpSender *self = user_data;
  RcSenderAction a[MAX_ACTIONS];
  GstClockTime now = running_time_now (self);
  guint n = 0;

  g_mutex_lock (&self->ctrl_lock);
  if (self->fb_clock_id != id) {
    g_mutex_unlock (&self->ctrl_lock);
    return TRUE;                /* superseded or unscheduled */
  }
  gst_clock_id_unref (self->fb_clock_id);
  self->fb_clock_id = NULL;
  if (self->sender && GST_CLOCK_TIME_IS_VALID (now)) {
    n = poll_locked (self, now, a, MAX_ACTIONS);
    /* Woken a little early by the clock: wait again. */
    schedule_feedback_locked (self);
  }
  g_mutex_unlock (&self->ctrl_lock);
  carry_out (self, a, n);
  return TRUE;
}

static void
unschedule_feedback_locked (GstUrcpSender * self)
{
  if (!self->fb_clock_id)
    return;
  gst_clock_id_unschedule (self->fb_clock_id);
  gst_clock_id_unref (self->fb_clock_id);
  self->fb_clock_id = NULL;
}

/* A one-shot wait on the element clock for the session's gathered
 * feedback, unless one waits for it already. Without a clock (not
 * PLAYING) the next poll delivers it. ctrl_lock held. */
static void
schedule_feedback_locked (GstUrcpSender * self)
{
  GstClockTime due = self->sender ?
      rc_sender_feedback_due (self->sender) : GST_CLOCK_TIME_NONE;
  GstClock *clock;

  if (!GST_CLOCK_TIME_IS_VALID (due) ||
      (self->fb_clock_id && self->fb_clock_due == due))
    return;
  unschedule_feedback_locked (self);
  clock = gst_element_get_clock (GST_ELEMENT (self));
  if (!clock)
    return;
  self->fb_clock_id = gst_clock_new_single_shot_id (clock,
      due + gst_element_get_base_time (GST_ELEMENT (self)));
  self->fb_clock_due = due;
  if (gst_clock_id_wait_async (self->fb_clock_id, feedback_due_cb,
          gst_object_ref (self), gst_object_unref) != GST_CLOCK_OK)
    unschedule_feedback_locked (self);
  gst_object_unref (clock);
}

static void
handle_twcc (GstUrcpSender * self, const GstStructure * s)
{
  RcTwccParseInfo info;
  RcSenderAction a[MAX_ACTIONS];
  GstClockTime now = running_time_now (self), local_now = system_clock_now ();
  gboolean have, ok = FALSE;
  guint n = 0;

  g_mutex_lock (&self->ctrl_lock);
  have = self->sender != NULL;
  if (have)
    ok = rc_sender_on_twcc (self->sender, s, now, local_now, &info);
  if (ok) {
    n = poll_locked (self, now, a, MAX_ACTIONS);
    schedule_feedback_locked (self);
  }
  g_mutex_unlock (&self->ctrl_lock);
  if (!have)
    return;
  if (!ok) {
    GST_WARNING_OBJECT (self, "ignoring malformed %s event: %s",
        RC_TWCC_EVENT_NAME, info.first_problem);
    return;
  }
  if (info.n_rejected)
    GST_WARNING_OBJECT (self, "%u of %u feedback entries rejected (first: %s)",
        info.n_rejected, info.n_packets, info.first_problem);
  if (info.n_backward)
    GST_INFO_OBJECT (self, "%u remote timestamps went backwards "
        "(reordering or receiver clock step)", info.n_backward);
  if (info.n_duplicates)
    GST_INFO_OBJECT (self, "%u duplicate seqnums in one report",
        info.n_duplicates);
  GST_LOG_OBJECT (self, "TWCC feedback: %u entries", info.n_packets);
  carry_out (self, a, n);
}

/* NTP 32.32 "middle 32 bits" of now, for RTT = A - LSR - DLSR (RFC 3550
 * sec. 6.4.1), used only when rtpsession's own RTT cannot be had (see
 * on_ssrc_active): it assumes rtpsession's default ntp-time-source, the
 * wall clock. */
static guint32
ntp_short_now (void)
{
  return rc_rtcp_ntp_short (rc_rtcp_ntp_from_unix (g_get_real_time () *
          GST_USECOND));
}

/* Hands the reports waiting for rtpsession's RTT to the session as they
 * are. ctrl_lock held; returns the number of actions put in `a`. */
static guint
deliver_pending_locked (GstUrcpSender * self, GstClockTime now,
    RcSenderAction * a, guint max)
{
  guint n = 0;

  if (self->sender && self->pending_reports->len) {
    rc_sender_on_reports (self->sender,
        (const RcReportBlock *) self->pending_reports->data,
        self->pending_reports->len, now);
    n = poll_locked (self, now, a, max);
  }
  g_array_set_size (self->pending_reports, 0);
  return n;
}

/* A receiver's RRTR (RFC 3611 sec. 4.4) waits for our next RTCP packet,
 * which answers it with a DLRR (sec. 4.5) so that the receiver has an RTT
 * (R^3CP^+'s forecast needs one). One per receiver, the newest. ctrl_lock
 * held. */
static void
note_rrtr_locked (GstUrcpSender * self, const RcReportBlock * b,
    GstClockTime now)
{
  RcReportBlock d = { 0 };
  guint i;

  if (!GST_CLOCK_TIME_IS_VALID (now))
    return;
  d.kind = RC_REPORT_DLRR;
  d.media_ssrc = b->reporter_ssrc;
  d.dlrr.lrr = rc_rtcp_ntp_short (b->rrtr.ntp);
  for (i = 0; i < self->rrtr->len; i++)
    if (g_array_index (self->rrtr, RcReportBlock, i).media_ssrc ==
        d.media_ssrc)
      break;
  if (i == self->rrtr->len) {
    if (i >= 16)
      return;                   /* a flood: answer the first 16 */
    g_array_append_val (self->rrtr, d);
    g_array_append_val (self->rrtr_at, now);
  } else {
    g_array_index (self->rrtr, RcReportBlock, i) = d;
    g_array_index (self->rrtr_at, GstClockTime, i) = now;
  }
}

/* Once per sender: the controller lacks the feedback it is built on (a
 * receiver without the reports it reads) and falls back to less. */
static void
warn_feedback_problem (GstUrcpSender * self)
{
  const gchar *problem = NULL;

  g_mutex_lock (&self->ctrl_lock);
  if (self->sender && !self->warned_feedback) {
    problem = rc_controller_feedback_problem (rc_sender_get_controller
        (self->sender));
    self->warned_feedback = problem != NULL;
  }
  g_mutex_unlock (&self->ctrl_lock);
  if (problem)
    GST_ELEMENT_WARNING (self, STREAM, FAILED, ("%s", problem),
        ("Put rcreceiver (or ratecontrolrecv) on the receiving side."));
}

/* Emitted before rtpsession processes the packet. Report blocks about our
 * stream wait for on_ssrc_active, which comes after rtpsession has worked
 * out their RTT in its own NTP time base; the rest goes on at once. */
static void
on_receiving_rtcp (GObject * session, GstBuffer * buffer, GstUrcpSender * self)
{
  RcRtcpParseInfo info;
  RcSenderAction a[MAX_ACTIONS];
  guint32 arrival = ntp_short_now ();
  GstClockTime now = running_time_now (self);
  gboolean wait = FALSE;
  guint i, n;

  g_mutex_lock (&self->ctrl_lock);
  /* A packet whose reports never got on_ssrc_active (none may come). */
  n = deliver_pending_locked (self, now, a, MAX_ACTIONS);
  g_array_set_size (self->reports, 0);
  rc_rtcp_parse (buffer, arrival, self->clock_rate, self->reports, &info);
  for (i = 0; i < self->reports->len; i++) {
    const RcReportBlock *b = &g_array_index (self->reports, RcReportBlock, i);
    GST_LOG_OBJECT (self, "report block kind %d from %08x about %08x (ours "
        "%08x)", b->kind, b->reporter_ssrc, b->media_ssrc, self->media_ssrc);
    if (b->kind == RC_REPORT_RRTR)
      note_rrtr_locked (self, b, now);
    if (b->kind == RC_REPORT_RR && b->rr.lsr != 0 && self->have_media_ssrc &&
        b->media_ssrc == self->media_ssrc)
      wait = TRUE;
  }
  g_array_append_vals (self->pending_reports, self->reports->data,
      self->reports->len);
  if (!wait)
    n += deliver_pending_locked (self, now, a + n, MAX_ACTIONS - n);
  g_mutex_unlock (&self->ctrl_lock);
  if (info.first_problem)
    GST_INFO_OBJECT (self, "RTCP packet partly unreadable: %s",
        info.first_problem);
  carry_out (self, a, n);
  warn_feedback_problem (self);
}

/* rtpsession has processed an SR/RR from `source`: its stats hold the RTT
 * of the last report block about our stream, measured on the session's
 * ntp-time-source (whatever the application chose), which is the clock the
 * LSR in that block came from. Taken for the waiting blocks it belongs to
 * (same reporter, SSRC, LSR and DLSR); others keep the wall-clock RTT. */
static void
on_ssrc_active (GObject * session, GObject * source, GstUrcpSender * self)
{
  RcSenderAction a[MAX_ACTIONS];
  GstStructure *st = NULL;
  gboolean have_rb = FALSE;
  guint reporter = 0, rb_ssrc = 0, lsr = 0, dlsr = 0, rtt = 0;
  GstClockTime now = running_time_now (self);
  guint i, n;

  g_object_get (source, "ssrc", &reporter, "stats", &st, NULL);
  if (st) {
    gst_structure_get (st, "have-rb", G_TYPE_BOOLEAN, &have_rb,
        "rb-ssrc", G_TYPE_UINT, &rb_ssrc, "rb-lsr", G_TYPE_UINT, &lsr,
        "rb-dlsr", G_TYPE_UINT, &dlsr, "rb-round-trip", G_TYPE_UINT, &rtt,
        NULL);
    gst_structure_free (st);
  }

  g_mutex_lock (&self->ctrl_lock);
  for (i = 0; have_rb && i < self->pending_reports->len; i++) {
    RcReportBlock *b = &g_array_index (self->pending_reports, RcReportBlock,
        i);
    GstClockTime t;

    if (b->kind != RC_REPORT_RR || b->reporter_ssrc != reporter ||
        b->media_ssrc != rb_ssrc || b->rr.lsr != lsr || b->rr.dlsr != dlsr)
      continue;
    /* rtpsession leaves 0 when A <= LSR + DLSR. */
    t = rtt ? rc_rtcp_ntp_short_to_time (rtt) : GST_CLOCK_TIME_NONE;
    if (GST_CLOCK_TIME_IS_VALID (t) && t > RC_RTCP_MAX_RTT)
      t = GST_CLOCK_TIME_NONE;
    GST_LOG_OBJECT (self, "RTT from rtpsession %" GST_TIME_FORMAT
        " (wall clock: %" GST_TIME_FORMAT ")", GST_TIME_ARGS (t),
        GST_TIME_ARGS (b->rr.rtt));
    b->rr.rtt = t;
  }
  n = deliver_pending_locked (self, now, a, MAX_ACTIONS);
  g_mutex_unlock (&self->ctrl_lock);
  carry_out (self, a, n);
  warn_feedback_problem (self);
}

static void
disconnect_session (GObject * session, gulong h1, gulong h2, gulong h3)
{
  if (!session)
    return;
  g_signal_handler_disconnect (session, h1);
  g_signal_handler_disconnect (session, h2);
  g_signal_handler_disconnect (session, h3);
  g_object_unref (session);
}

/* rtpsession's on-sending-rtcp: the DLRR answers, if any RRTR waits. */
static gboolean
on_sending_rtcp (GObject * session, GstBuffer * buffer, gboolean early,
    GstUrcpSender * self)
{
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstClockTime now = running_time_now (self);
  guint32 own = 0;
  GArray *answers;
  guint i;

  g_mutex_lock (&self->ctrl_lock);
  if (self->rrtr->len == 0 || !GST_CLOCK_TIME_IS_VALID (now)) {
    g_mutex_unlock (&self->ctrl_lock);
    return FALSE;
  }
  answers = g_array_copy (self->rrtr);
  for (i = 0; i < answers->len; i++) {
    GstClockTime at = g_array_index (self->rrtr_at, GstClockTime, i);
    g_array_index (answers, RcReportBlock, i).dlrr.dlrr = (guint32)
        gst_util_uint64_scale (now > at ? now - at : 0, 65536, GST_SECOND);
  }
  g_array_set_size (self->rrtr, 0);
  g_array_set_size (self->rrtr_at, 0);
  g_mutex_unlock (&self->ctrl_lock);

  g_object_get (session, "internal-ssrc", &own, NULL);
  if (gst_rtcp_buffer_map (buffer, GST_MAP_READWRITE, &rtcp)) {
    if (!rc_rtcp_write_xr (&rtcp, own, (RcReportBlock *) answers->data,
            answers->len))
      GST_DEBUG_OBJECT (self, "no room for the DLRR in this RTCP packet");
    gst_rtcp_buffer_unmap (&rtcp);
  }
  g_array_unref (answers);
  return FALSE;
}

/* Finds the RTP session our src pad feeds, for the RTCP receiver-report
 * fallback and rtpsession's RTT: through rtpbin's send_rtp_sink_N, an
 * aux-sender bin (rtpbin's or webrtcbin's), fecenc in fec-encoders, or a
 * bare rtpsession. Keeps the one it has if it finds the same. */
static void
connect_rtp_session (GstUrcpSender * self)
{
  GstElement *elem = NULL;
  GObject *session = gst_rc_rtp_session_find_downstream (self->srcpad, &elem);
  GObject *old;
  gulong h1, h2, h3;

  g_mutex_lock (&self->ctrl_lock);
  if (session == self->rtp_session) {
    g_mutex_unlock (&self->ctrl_lock);
    gst_clear_object (&session);
    gst_clear_object (&elem);
    return;
  }
  old = self->rtp_session;
  h1 = self->rtcp_handler;
  h2 = self->ssrc_active_handler;
  h3 = self->sending_handler;
  self->rtp_session = session;
  g_free (self->rtp_session_name);
  self->rtp_session_name = elem ? gst_object_get_name (GST_OBJECT (elem)) :
      NULL;
  if (session) {
    self->rtcp_handler = g_signal_connect (session, "on-receiving-rtcp",
        G_CALLBACK (on_receiving_rtcp), self);
    self->ssrc_active_handler = g_signal_connect (session, "on-ssrc-active",
        G_CALLBACK (on_ssrc_active), self);
    self->sending_handler = g_signal_connect (session, "on-sending-rtcp",
        G_CALLBACK (on_sending_rtcp), self);
  }
  g_array_set_size (self->pending_reports, 0);
  g_array_set_size (self->rrtr, 0);
  g_array_set_size (self->rrtr_at, 0);
  g_mutex_unlock (&self->ctrl_lock);
  disconnect_session (old, h1, h2, h3);

  if (session)
    GST_INFO_OBJECT (self, "listening to RTCP of %" GST_PTR_FORMAT, elem);
  else
    GST_INFO_OBJECT (self, "no rtpsession downstream (yet): no RTCP "
        "receiver-report fallback, transport-wide feedback only");
  gst_clear_object (&elem);
}

static void
disconnect_rtp_session (GstUrcpSender * self)
{
  GObject *old;
  gulong h1, h2, h3;

  g_mutex_lock (&self->ctrl_lock);
  old = self->rtp_session;
  h1 = self->rtcp_handler;
  h2 = self->ssrc_active_handler;
  h3 = self->sending_handler;
  self->rtp_session = NULL;
  g_clear_pointer (&self->rtp_session_name, g_free);
  g_array_set_size (self->pending_reports, 0);
  g_array_set_size (self->rrtr, 0);
  g_array_set_size (self->rrtr_at, 0);
  g_mutex_unlock (&self->ctrl_lock);
  disconnect_session (old, h1, h2, h3);
}

#define REDISCOVER_ENCODER 1
#define REDISCOVER_SESSION 2
#define DISCOVERY_RETRY GST_SECOND

/* Looks again for the encoder and the RTP session where a pad was relinked
 * or caps changed, and once a second for whichever is still missing. The
 * first buffer is the first time both paths must be linked, so an encoder
 * not found then is said on the bus. Called from the chain function
 * without locks. */
static void
discover (GstUrcpSender * self, GstClockTime now)
{
  guint bits = (guint) g_atomic_int_and (&self->rediscover, 0);
  gboolean due, enc, sess, listened;

  g_mutex_lock (&self->ctrl_lock);
  due = self->sender && (bits || ((!self->encoder || !self->rtp_session) &&
          GST_CLOCK_TIME_IS_VALID (now) &&
          (!GST_CLOCK_TIME_IS_VALID (self->next_discovery) ||
              now >= self->next_discovery)));
  if (!due) {
    g_mutex_unlock (&self->ctrl_lock);
    return;
  }
  if (GST_CLOCK_TIME_IS_VALID (now))
    self->next_discovery = now + DISCOVERY_RETRY;
  enc = (bits & REDISCOVER_ENCODER) || !self->encoder;
  sess = (bits & REDISCOVER_SESSION) || !self->rtp_session;
  if (enc)
    self->encoder_searched = FALSE;
  g_mutex_unlock (&self->ctrl_lock);

  if (enc) {
    drive_encoder (self, 0);
    /* An application that follows target-bitrate itself needs no
     * encoder here. */
    listened = g_signal_has_handler_pending (self, g_signal_lookup ("notify",
            G_TYPE_OBJECT), g_quark_from_static_string ("target-bitrate"),
        FALSE);
    g_mutex_lock (&self->ctrl_lock);
    if (!self->encoder && !self->warned_unknown_encoder &&
        !self->warned_no_encoder && !listened) {
      self->warned_no_encoder = TRUE;
      self->post_no_encoder = TRUE;
    }
    g_mutex_unlock (&self->ctrl_lock);
    post_discovery (self);
  }
  if (sess)
    connect_rtp_session (self);
}

static GstPadLinkReturn
gst_urcp_sender_pad_link (GstPad * pad, GstObject * parent, GstPad * peer)
{
  GstUrcpSender *self = GST_URCP_SENDER (parent);

  g_atomic_int_or (&self->rediscover, pad == self->sinkpad ?
      REDISCOVER_ENCODER : REDISCOVER_SESSION);
  return GST_PAD_LINK_OK;
}

/* Called with the pad's lock held: only flag it. */
static void
gst_urcp_sender_pad_unlink (GstPad * pad, GstObject * parent)
{
  GstUrcpSender *self = GST_URCP_SENDER (parent);

  g_atomic_int_or (&self->rediscover, pad == self->sinkpad ?
      REDISCOVER_ENCODER : REDISCOVER_SESSION);
}

/* ---------------------------------------------------------------- data */

static void
check_caps (GstUrcpSender * self, GstCaps * caps)
{
  GstStructure *s = gst_caps_get_structure (caps, 0);
  guint i, n = gst_structure_n_fields (s);
  gboolean twcc = FALSE, warn_twcc = FALSE;
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
  if (!gst_structure_get_int (s, "payload", &self->media_pt))
    self->media_pt = -1;
  self->media_vp8 = g_strcmp0 (gst_structure_get_string (s,
          "encoding-name"), "VP8") == 0;
  if (gst_structure_get_uint (s, "ssrc", &ssrc)) {
    self->media_ssrc = ssrc;
    self->have_media_ssrc = TRUE;
  }
  if (self->sender) {
    rc_sender_set_media_pt (self->sender, self->media_pt);
    if (self->have_media_ssrc)
      rc_sender_set_ssrc (self->sender, self->media_ssrc);
  }
  if (!twcc && !self->warned_no_twcc_caps) {
    self->warned_no_twcc_caps = TRUE;
    warn_twcc = TRUE;
  }
  g_mutex_unlock (&self->ctrl_lock);
  if (warn_twcc)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("The RTP caps carry no transport-wide-cc header extension, so only "
            "RTCP receiver reports (every few seconds) can drive the rate."),
        ("Put extmap-N=(string)\"%s\" in the RTP caps on both sides (the "
            "payloader's and the receiver's) to get per-packet feedback.",
            RC_TWCC_EXT_URI));
}

/* Media or a repair packet? Repair packets from a fecenc upstream carry
 * their own SSRC (flexfec) or payload type (ULPFEC). The media stream's
 * SSRC (caps, else the first packet) tells the session which RTCP blocks
 * are about us. In the same look, a VP8 stream's payload descriptor goes
 * to `frame` (for select_locked); *have_frame says whether it was read.
 * ctrl_lock held. */
static RcSenderItemKind
classify_locked (GstUrcpSender * self, GstBuffer * buf, RcFrameInfo * frame,
    gboolean * have_frame)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  RcSenderItemKind kind = RC_SENDER_ITEM_MEDIA;
  guint32 ssrc;
  gint pt;

  *have_frame = FALSE;
  if (!gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp))
    return kind;
  ssrc = gst_rtp_buffer_get_ssrc (&rtp);
  pt = gst_rtp_buffer_get_payload_type (&rtp);
  if (self->media_vp8)
    *have_frame = rc_vp8_frame_info (gst_rtp_buffer_get_payload (&rtp),
        gst_rtp_buffer_get_payload_len (&rtp), frame);
  gst_rtp_buffer_unmap (&rtp);
  if (!self->have_media_ssrc) {
    self->media_ssrc = ssrc;
    self->have_media_ssrc = TRUE;
    rc_sender_set_ssrc (self->sender, ssrc);
  }
  if (ssrc != self->media_ssrc || (self->media_pt >= 0 &&
          pt != self->media_pt))
    kind = RC_SENDER_ITEM_FEC;
  return kind;
}

/* Selective transmission (rc-select.h): whether a packet goes on. A media
 * packet of a VP8 stream (its descriptor read into `frame`, if
 * `have_frame`) may be dropped, whole frames at a time; the sequence
 * numbers after a drop are moved down so the stream stays gapless. `buf`
 * may be replaced by a writable copy. ctrl_lock held. */
static gboolean
select_locked (GstUrcpSender * self, GstBuffer ** buf, guint size,
    RcSenderItemKind kind, const RcFrameInfo * frame, gboolean have_frame,
    GstClockTime now)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  if (kind == RC_SENDER_ITEM_FEC && !self->seen_fec) {
    self->seen_fec = TRUE;
    if (self->seq_shift)
      GST_WARNING_OBJECT (self, "repair packets after frames were dropped "
          "selectively: they cover sequence numbers the receiver no longer "
          "sees, so they will not repair");
    GST_INFO_OBJECT (self, "the stream carries repair packets: no "
        "selective transmission from here on");
  }
  if (kind != RC_SENDER_ITEM_MEDIA || !have_frame || self->seen_fec)
    return TRUE;
  if (!rc_sender_select (self->sender, frame, size, now)) {
    self->seq_shift++;
    GST_LOG_OBJECT (self, "selective transmission: dropping %u bytes of a "
        "non-reference frame", size);
    return FALSE;
  }
  if (self->seq_shift) {
    *buf = gst_buffer_make_writable (*buf);
    if (gst_rtp_buffer_map (*buf, GST_MAP_WRITE, &rtp)) {
      gst_rtp_buffer_set_seq (&rtp,
          gst_rtp_buffer_get_seq (&rtp) - self->seq_shift);
      gst_rtp_buffer_unmap (&rtp);
    }
  }
  return TRUE;
}

/* The pacing queue's bound. max-queue-time keeps it short while packets can
 * leave; when downstream blocks (or no clock runs) nothing leaves, and
 * without a bound it grew to 100k packets, 196 MB. At the bound the chain
 * function waits, so upstream blocks as it would behind any full queue;
 * nothing is dropped. 8192 packets is 0.8 s at 100 Mbit/s of 1200-byte
 * packets, far above max-queue-time's reach at any rate we pace. */
#define QUEUE_MAX_PACKETS 8192
#define QUEUE_MAX_BYTES (16 << 20)

static gboolean
queue_full_locked (GstUrcpSender * self)
{
  guint packets = 0;
  guint64 bytes = 0;

  rc_sender_queue_info (self->sender, GST_CLOCK_TIME_NONE, &packets, &bytes,
      NULL);
  return packets >= QUEUE_MAX_PACKETS || bytes >= QUEUE_MAX_BYTES;
}

static GstFlowReturn
gst_urcp_sender_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstUrcpSender *self = GST_URCP_SENDER (parent);
  GstClockTime now = running_time_now (self);
  guint size = gst_buffer_get_size (buf);
  RcSenderAction a[MAX_ACTIONS];
  RcSenderItemKind kind;
  RcFrameInfo frame;
  gboolean pacing, have_frame;
  GstFlowReturn ret;
  guint n = 0;

  discover (self, now);
  g_mutex_lock (&self->ctrl_lock);
  if (!self->sender) {
    g_mutex_unlock (&self->ctrl_lock);
    gst_buffer_unref (buf);
    return GST_FLOW_FLUSHING;
  }
  kind = classify_locked (self, buf, &frame, &have_frame);
  if (!rc_sender_admit (self->sender, size, kind, now)) {
    /* The circuit breaker has tripped and this is above its floor. */
    g_mutex_unlock (&self->ctrl_lock);
    GST_LOG_OBJECT (self, "circuit breaker: dropping %u bytes", size);
    gst_buffer_unref (buf);
    return GST_FLOW_OK;
  }
  if (!select_locked (self, &buf, size, kind, &frame, have_frame, now)) {
    g_mutex_unlock (&self->ctrl_lock);
    gst_buffer_unref (buf);
    return GST_FLOW_OK;
  }
  pacing = rc_sender_get_config (self->sender)->pacing;
  /* Without a clock (not playing) there is no time to pace on: pass it,
   * unless packets are still queued. Those wait behind a sink that
   * prerolls (PLAYING to PAUSED while the live source still pushes), and
   * one passed now would overtake them (pipelines/assisted_pipeline saw
   * a sequence gap out of urcpsender, the overtaken ones then dropped at
   * READY). Queued, it leaves after them: an item queued without a time
   * is due at once. */
  if (!GST_CLOCK_TIME_IS_VALID (rc_sender_next_send (self->sender)) &&
      (!pacing || !GST_CLOCK_TIME_IS_VALID (now))) {
    if (GST_CLOCK_TIME_IS_VALID (now)) {
      rc_sender_send_now (self->sender, size, kind, now);
      n = poll_locked (self, now, a, MAX_ACTIONS);
    }
    g_mutex_unlock (&self->ctrl_lock);
    carry_out (self, a, n);
    return gst_pad_push (self->srcpad, buf);
  }

  while (self->srcresult == GST_FLOW_OK && self->sender &&
      queue_full_locked (self)) {
    GST_DEBUG_OBJECT (self, "pacing queue full: waiting for it to drain");
    g_cond_wait (&self->space_cond, &self->ctrl_lock);
  }
  ret = self->sender ? self->srcresult : GST_FLOW_FLUSHING;
  if (ret == GST_FLOW_OK) {
    rc_sender_push (self->sender, buf, size, kind, now);
    g_cond_signal (&self->queue_cond);
  } else {
    gst_buffer_unref (buf);
  }
  g_mutex_unlock (&self->ctrl_lock);
  return ret;
}

/* Pacing task on the src pad: releases the head item when the session
 * allows, waiting on the element clock (a test clock works). */
static void
gst_urcp_sender_loop (GstUrcpSender * self)
{
  GstClockTime now, at;
  GstClock *clock;
  GstFlowReturn ret;
  RcSenderItemKind kind;
  RcSenderAction a[MAX_ACTIONS];
  gpointer item;
  guint n;

  g_mutex_lock (&self->ctrl_lock);
  while (!self->flushing && (!self->sender ||
          !GST_CLOCK_TIME_IS_VALID (rc_sender_next_send (self->sender)))) {
    /* Nothing to send: poll on the controller's tick anyway. The session
     * polls with every packet, and an encoder held low (vp8enc at
     * min-bitrate on hard content) sends a frame now and then: the
     * recovery after missing feedback, the watchdog and the controller's
     * timers stood still until it did (1.8 s after a breaker reset on
     * loopback), and the encoder waited for the target that would let it
     * send. */
    gint64 until = g_get_monotonic_time () +
        RC_CONTROLLER_TICK / GST_USECOND;
    if (!g_cond_wait_until (&self->queue_cond, &self->ctrl_lock, until) &&
        !self->flushing && self->sender) {
      now = running_time_now (self);
      if (GST_CLOCK_TIME_IS_VALID (now)) {
        n = poll_locked (self, now, a, MAX_ACTIONS);
        g_mutex_unlock (&self->ctrl_lock);
        carry_out (self, a, n);
        return;
      }
    }
  }
  if (self->flushing)
    goto pause;

  now = running_time_now (self);
  at = rc_sender_next_send (self->sender);
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

  item = rc_sender_pop (self->sender, now, &kind, NULL);
  g_cond_signal (&self->space_cond);
  if (!item) {
    g_mutex_unlock (&self->ctrl_lock);
    return;
  }
  if (kind == RC_SENDER_ITEM_MARKER) {
    GstEvent *ev = GST_EVENT (item);
    g_mutex_unlock (&self->ctrl_lock);
    if (GST_EVENT_TYPE (ev) == GST_EVENT_EOS) {
      gst_pad_push_event (self->srcpad, ev);
      g_mutex_lock (&self->ctrl_lock);
      self->srcresult = GST_FLOW_EOS;
      g_cond_broadcast (&self->space_cond);
      goto pause;
    }
    gst_pad_push_event (self->srcpad, ev);
    return;
  }
  n = poll_locked (self, now, a, MAX_ACTIONS);
  g_mutex_unlock (&self->ctrl_lock);

  ret = gst_pad_push (self->srcpad, GST_BUFFER (item));
  carry_out (self, a, n);

  if (ret != GST_FLOW_OK) {
    g_mutex_lock (&self->ctrl_lock);
    self->srcresult = ret;
    g_cond_broadcast (&self->space_cond);
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
  if (self->sender)
    rc_sender_flush (self->sender, item_free);
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
    unschedule_feedback_locked (self);
    g_cond_signal (&self->queue_cond);
    g_cond_broadcast (&self->space_cond);
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
      /* New caps may come from a new encoder upstream. */
      g_atomic_int_or (&self->rediscover, REDISCOVER_ENCODER);
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

  /* The running session's setting, the one the chain function follows. */
  g_mutex_lock (&self->ctrl_lock);
  pacing = self->sender && rc_sender_get_config (self->sender)->pacing;
  g_mutex_unlock (&self->ctrl_lock);

  /* Serialized events keep their place among the paced buffers. */
  if (pacing && GST_EVENT_IS_SERIALIZED (event) &&
      GST_PAD_MODE (self->srcpad) == GST_PAD_MODE_PUSH) {
    g_mutex_lock (&self->ctrl_lock);
    if (!self->sender || (self->srcresult != GST_FLOW_OK &&
            GST_EVENT_TYPE (event) != GST_EVENT_EOS)) {
      g_mutex_unlock (&self->ctrl_lock);
      gst_event_unref (event);
      return FALSE;
    }
    rc_sender_push (self->sender, event, 0, RC_SENDER_ITEM_MARKER,
        running_time_now (self));
    g_cond_signal (&self->queue_cond);
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
    pacing = self->cfg.pacing;
    mq = self->cfg.max_queue_time;
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
  RcSenderConfig cfg;
  RcSender *sender;
  GError *err = NULL;

  GST_OBJECT_LOCK (self);
  rc_sender_config_copy (&cfg, &self->cfg);
  GST_OBJECT_UNLOCK (self);

  sender = rc_sender_new (&cfg, &err);
  if (!sender) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("%s.", err->message),
        (NULL));
    g_error_free (err);
    rc_sender_config_clear (&cfg);
    return FALSE;
  }
  g_mutex_lock (&self->ctrl_lock);
  if (self->sender) {
    rc_sender_flush (self->sender, item_free);
    rc_sender_free (self->sender);
  }
  self->sender = sender;
  rc_sender_set_media_pt (sender, self->media_pt);
  if (self->have_media_ssrc)
    rc_sender_set_ssrc (sender, self->media_ssrc);
  self->warned_no_twcc_caps = FALSE;
  self->warned_no_encoder = FALSE;
  self->warned_feedback = FALSE;
  self->warned_unknown_encoder = FALSE;
  self->post_no_encoder = FALSE;
  self->next_discovery = GST_CLOCK_TIME_NONE;
  g_atomic_int_set (&self->rediscover, 0);
  self->encoder_searched = FALSE;
  gst_clear_object (&self->encoder);
  g_mutex_unlock (&self->ctrl_lock);
  GST_INFO_OBJECT (self, "controller %s, bitrate %" G_GUINT64_FORMAT "..%"
      G_GUINT64_FORMAT " start %" G_GUINT64_FORMAT ", parameters %"
      GST_PTR_FORMAT, cfg.controller->name, cfg.limits.min_bps,
      cfg.limits.max_bps, cfg.limits.start_bps, cfg.params);
  rc_sender_config_clear (&cfg);
  return TRUE;
}

static GstStateChangeReturn
gst_urcp_sender_change_state (GstElement * element, GstStateChange transition)
{
  GstUrcpSender *self = GST_URCP_SENDER (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    if (!start (self))
      return GST_STATE_CHANGE_FAILURE;
    drive_encoder (self, 0);
    connect_rtp_session (self);
  }

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    disconnect_rtp_session (self);
    g_mutex_lock (&self->ctrl_lock);
    clear_queue_locked (self);
    gst_clear_object (&self->encoder);
    self->encoder_searched = FALSE;
    /* The stream's identity comes again with the next stream's caps or
     * first packet; an old SSRC kept would make a new stream's packets
     * look like repair packets. */
    self->have_media_ssrc = FALSE;
    self->media_pt = -1;
    self->clock_rate = 0;
    self->media_vp8 = FALSE;
    self->seq_shift = 0;
    self->seen_fec = FALSE;
    g_mutex_unlock (&self->ctrl_lock);
  }
  return ret;
}

/* ---------------------------------------------------------- properties */

static GstStructure *
get_stats (GstUrcpSender * self)
{
  GstStructure *s;
  GstClockTime now = running_time_now (self);

  g_mutex_lock (&self->ctrl_lock);
  if (self->sender) {
    s = rc_sender_get_stats (self->sender, now);
  } else {
    /* Not started: what a sender with this configuration would report
     * (an invalid range is reported as if max were min). */
    RcSenderConfig cfg;
    RcSender *tmp;

    GST_OBJECT_LOCK (self);
    rc_sender_config_copy (&cfg, &self->cfg);
    GST_OBJECT_UNLOCK (self);
    cfg.limits.max_bps = MAX (cfg.limits.max_bps, cfg.limits.min_bps);
    tmp = rc_sender_new (&cfg, NULL);
    s = rc_sender_get_stats (tmp, GST_CLOCK_TIME_NONE);
    rc_sender_free (tmp);
    rc_sender_config_clear (&cfg);
  }
  gst_structure_set_name (s, "application/x-urcpsender-stats");
  gst_structure_set (s, "encoder", G_TYPE_STRING, self->encoder ?
      GST_OBJECT_NAME (self->encoder) : "", "rtp-session", G_TYPE_STRING,
      self->rtp_session_name ? self->rtp_session_name : "", NULL);
  g_mutex_unlock (&self->ctrl_lock);
  return s;
}

/* Index of `info` in the registry = its enum value. */
static gint
controller_value (const RcControllerInfo * info)
{
  guint i, n;
  const RcControllerInfo *const *l = rc_controller_list (&n);

  for (i = 0; i < n; i++)
    if (l[i] == info)
      return i;
  return 0;
}

static void
gst_urcp_sender_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstUrcpSender *self = GST_URCP_SENDER (object);

  gboolean new_limits = FALSE;
  guint64 min_bps = 0, max_bps = 0;

  GST_OBJECT_LOCK (self);
  /* Writable properties are GST_PARAM_MUTABLE_READY but for min-bitrate and
   * max-bitrate: the session is built at READY->PAUSED, and switching
   * pacing with packets queued would reorder them. Said on the bus, since
   * the value is not taken. */
  if ((pspec->flags & GST_PARAM_MUTABLE_READY) &&
      GST_STATE (self) > GST_STATE_READY) {
    GST_OBJECT_UNLOCK (self);
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("Property '%s' can only be changed in the NULL or READY state; the "
            "new value is ignored.", pspec->name), (NULL));
    return;
  }
  if (prop_id >= PROP_N_FIXED) {
    const gchar *key = g_ptr_array_index (param_keys, prop_id - PROP_N_FIXED);
    GError *err = NULL;
    if (!rc_controller_params_set_key (self->cfg.params, key, value, &err)) {
      GST_WARNING_OBJECT (self, "%s", err->message);
      g_error_free (err);
    }
    GST_OBJECT_UNLOCK (self);
    return;
  }
  switch (prop_id) {
    case PROP_CONTROLLER:{
      guint n;
      const RcControllerInfo *const *l = rc_controller_list (&n);
      gint v = g_value_get_enum (value);
      if (v >= 0 && (guint) v < n)
        self->cfg.controller = l[v];
      break;
    }
    case PROP_MIN_BITRATE:
      self->cfg.limits.min_bps = g_value_get_uint (value);
      new_limits = TRUE;
      break;
    case PROP_START_BITRATE:
      self->cfg.limits.start_bps = g_value_get_uint (value);
      break;
    case PROP_MAX_BITRATE:
      self->cfg.limits.max_bps = g_value_get_uint (value);
      new_limits = TRUE;
      break;
    case PROP_PACING:
      self->cfg.pacing = g_value_get_boolean (value);
      break;
    case PROP_PACING_FACTOR:
      self->cfg.pacing_factor = g_value_get_double (value);
      break;
    case PROP_MAX_QUEUE_TIME:
      self->cfg.max_queue_time = g_value_get_uint64 (value);
      break;
    case PROP_CIRCUIT_BREAKER:
      self->cfg.circuit_breaker = g_value_get_boolean (value);
      break;
    case PROP_FEEDBACK_GATHER_TIME:
      self->cfg.feedback_gather = g_value_get_uint64 (value);
      break;
    case PROP_ENCODER:
      gst_clear_object (&self->encoder_prop);
      self->encoder_prop = g_value_dup_object (value);
      break;
    case PROP_CONFIGURE_ENCODER:
      self->configure_encoder = g_value_get_boolean (value);
      break;
    case PROP_TEMPORAL_LAYERS:
      self->temporal_layers = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  min_bps = self->cfg.limits.min_bps;
  max_bps = self->cfg.limits.max_bps;
  GST_OBJECT_UNLOCK (self);

  /* While running, the limits apply from the next decision. ctrl_lock is
   * taken without the object lock (get_stats takes them the other way). */
  if (new_limits) {
    gboolean ok = TRUE;

    g_mutex_lock (&self->ctrl_lock);
    if (self->sender)
      ok = rc_sender_set_limits (self->sender, min_bps, max_bps);
    g_mutex_unlock (&self->ctrl_lock);
    if (!ok)
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
          ("min-bitrate (%" G_GUINT64_FORMAT ") is above max-bitrate (%"
              G_GUINT64_FORMAT "); the running limits are kept until both "
              "agree.", min_bps, max_bps), (NULL));
  }
}

static void
gst_urcp_sender_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstUrcpSender *self = GST_URCP_SENDER (object);

  switch (prop_id) {
    case PROP_TARGET_BITRATE:
      g_mutex_lock (&self->ctrl_lock);
      g_value_set_uint (value, self->sender ?
          (guint) MIN (rc_sender_get_target (self->sender), G_MAXUINT) : 0);
      g_mutex_unlock (&self->ctrl_lock);
      return;
    case PROP_STATS:
      g_value_take_boxed (value, get_stats (self));
      return;
    default:
      break;
  }

  GST_OBJECT_LOCK (self);
  if (prop_id >= PROP_N_FIXED) {
    const gchar *key = g_ptr_array_index (param_keys, prop_id - PROP_N_FIXED);
    const GValue *v = gst_structure_get_value (self->cfg.params, key);
    g_param_value_set_default (pspec, value);
    if (v)
      g_value_transform (v, value);
    GST_OBJECT_UNLOCK (self);
    return;
  }
  switch (prop_id) {
    case PROP_CONTROLLER:
      g_value_set_enum (value, controller_value (self->cfg.controller));
      break;
    case PROP_MIN_BITRATE:
      g_value_set_uint (value, self->cfg.limits.min_bps);
      break;
    case PROP_START_BITRATE:
      g_value_set_uint (value, self->cfg.limits.start_bps);
      break;
    case PROP_MAX_BITRATE:
      g_value_set_uint (value, self->cfg.limits.max_bps);
      break;
    case PROP_PACING:
      g_value_set_boolean (value, self->cfg.pacing);
      break;
    case PROP_PACING_FACTOR:
      g_value_set_double (value, self->cfg.pacing_factor);
      break;
    case PROP_MAX_QUEUE_TIME:
      g_value_set_uint64 (value, self->cfg.max_queue_time);
      break;
    case PROP_CIRCUIT_BREAKER:
      g_value_set_boolean (value, self->cfg.circuit_breaker);
      break;
    case PROP_FEEDBACK_GATHER_TIME:
      g_value_set_uint64 (value, self->cfg.feedback_gather);
      break;
    case PROP_ENCODER:
      g_value_set_object (value, self->encoder_prop);
      break;
    case PROP_CONFIGURE_ENCODER:
      g_value_set_boolean (value, self->configure_encoder);
      break;
    case PROP_TEMPORAL_LAYERS:
      g_value_set_uint (value, self->temporal_layers);
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
  if (self->sender) {
    rc_sender_flush (self->sender, item_free);
    rc_sender_free (self->sender);
  }
  rc_sender_config_clear (&self->cfg);
  g_array_unref (self->actions);
  g_array_unref (self->reports);
  g_array_unref (self->pending_reports);
  g_array_unref (self->rrtr);
  g_array_unref (self->rrtr_at);
  gst_clear_object (&self->encoder);
  gst_clear_object (&self->encoder_prop);
  g_free (self->unknown_encoder);
  g_mutex_clear (&self->ctrl_lock);
  g_mutex_clear (&self->enc_lock);
  g_cond_clear (&self->queue_cond);
  g_cond_clear (&self->space_cond);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* A controller's parameter spec under the property name `name`, with the
 * blurb saying which controller it belongs to. */
static GParamSpec *
param_property (const RcControllerInfo * info, GParamSpec * ps,
    const gchar * name, GParamFlags flags)
{
  const gchar *nick = g_intern_string (g_param_spec_get_nick (ps));
  gchar *b = g_strdup_printf ("%s (controller=%s)",
      g_param_spec_get_blurb (ps), info->name);
  const gchar *blurb = g_intern_string (b);
  GParamSpec *out = NULL;

  g_free (b);
  name = g_intern_string (name);
  flags |= G_PARAM_STATIC_STRINGS;
  if (G_IS_PARAM_SPEC_DOUBLE (ps)) {
    GParamSpecDouble *d = G_PARAM_SPEC_DOUBLE (ps);
    out = g_param_spec_double (name, nick, blurb, d->minimum, d->maximum,
        d->default_value, flags);
  } else if (G_IS_PARAM_SPEC_UINT (ps)) {
    GParamSpecUInt *u = G_PARAM_SPEC_UINT (ps);
    out = g_param_spec_uint (name, nick, blurb, u->minimum, u->maximum,
        u->default_value, flags);
  } else if (G_IS_PARAM_SPEC_INT (ps)) {
    GParamSpecInt *i = G_PARAM_SPEC_INT (ps);
    out = g_param_spec_int (name, nick, blurb, i->minimum, i->maximum,
        i->default_value, flags);
  } else if (G_IS_PARAM_SPEC_UINT64 (ps)) {
    GParamSpecUInt64 *u = G_PARAM_SPEC_UINT64 (ps);
    out = g_param_spec_uint64 (name, nick, blurb, u->minimum, u->maximum,
        u->default_value, flags);
  } else if (G_IS_PARAM_SPEC_BOOLEAN (ps)) {
    out = g_param_spec_boolean (name, nick, blurb,
        G_PARAM_SPEC_BOOLEAN (ps)->default_value, flags);
  } else {
    g_critical ("controller %s: parameter %s has a type urcpsender cannot "
        "show (%s)", info->name, g_param_spec_get_name (ps),
        g_type_name (ps->value_type));
  }
  return out;
}

/* One property per parameter of every registered controller. */
static void
install_controller_params (GObjectClass * gobject_class, GParamFlags flags)
{
  guint i, j, n, np;
  const RcControllerInfo *const *l = rc_controller_list (&n);

  param_keys = g_ptr_array_new ();
  for (i = 0; i < n; i++) {
    GParamSpec **specs = l[i]->params ? l[i]->params (&np) : NULL;
    for (j = 0; specs && j < np; j++) {
      gchar *key = g_strdup_printf ("%s-%s", l[i]->name,
          g_param_spec_get_name (specs[j]));
      GParamSpec *ps = param_property (l[i], specs[j], key, flags);
      if (ps) {
        g_object_class_install_property (gobject_class,
            PROP_N_FIXED + param_keys->len, ps);
        g_ptr_array_add (param_keys, (gpointer) g_intern_string (key));
      }
      g_free (key);
    }
  }
}

static void
gst_urcp_sender_class_init (GstUrcpSenderClass * klass)
{
  GObjectClass *gobject_class = (GObjectClass *) klass;
  GstElementClass *element_class = (GstElementClass *) klass;
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;
  const GParamFlags rw_playing = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;
  RcSenderConfig def;

  rc_sender_config_init (&def);

  gobject_class->set_property = gst_urcp_sender_set_property;
  gobject_class->get_property = gst_urcp_sender_get_property;
  gobject_class->finalize = gst_urcp_sender_finalize;
  element_class->change_state = gst_urcp_sender_change_state;

  g_object_class_install_property (gobject_class, PROP_CONTROLLER,
      g_param_spec_enum ("controller", "Controller",
          "Rate control algorithm", GST_TYPE_URCP_CONTROLLER,
          controller_value (def.controller), rw));
  g_object_class_install_property (gobject_class, PROP_MIN_BITRATE,
      g_param_spec_uint ("min-bitrate", "Minimum bitrate",
          "Lowest target the controller may set (bit/s); may change while "
          "playing", 1000, G_MAXUINT, def.limits.min_bps, rw_playing));
  g_object_class_install_property (gobject_class, PROP_START_BITRATE,
      g_param_spec_uint ("start-bitrate", "Start bitrate",
          "Target before any feedback (bit/s); clamped to "
          "min-bitrate..max-bitrate", 1000, G_MAXUINT,
          def.limits.start_bps, rw));
  g_object_class_install_property (gobject_class, PROP_MAX_BITRATE,
      g_param_spec_uint ("max-bitrate", "Maximum bitrate",
          "Highest target the controller may set (bit/s); may change while "
          "playing", 1000, G_MAXUINT, def.limits.max_bps, rw_playing));
  g_object_class_install_property (gobject_class, PROP_PACING,
      g_param_spec_boolean ("pacing", "Pacing",
          "Spread packets at pacing-factor x target instead of sending each "
          "frame as a burst", def.pacing, rw));
  g_object_class_install_property (gobject_class, PROP_PACING_FACTOR,
      g_param_spec_double ("pacing-factor", "Pacing factor",
          "Pacing rate as a multiple of the target bitrate (plus FEC), when "
          "the controller does not set one; urcp may cap it nearer the rate "
          "the bottleneck delivers its frames at", 1.0, 10.0,
          def.pacing_factor, rw));
  g_object_class_install_property (gobject_class, PROP_MAX_QUEUE_TIME,
      g_param_spec_uint64 ("max-queue-time", "Maximum pacing queue time",
          "Longest a packet may wait in the pacing queue (ns); a burst too "
          "big for the pacing rate is spread over this time, never dropped. "
          "If nothing can leave (downstream blocks), the queue stops at 8192 "
          "packets or 16 MiB and blocks upstream",
          GST_MSECOND, 10 * GST_SECOND, def.max_queue_time, rw));
  g_object_class_install_property (gobject_class, PROP_FEEDBACK_GATHER_TIME,
      g_param_spec_uint64 ("feedback-gather-time", "Feedback gather time",
          "Transport-wide feedback messages that arrive within this time "
          "after the first of them reach the controller as one, at the end "
          "of it (ns): a stock rtpbin receiver sends one per frame, several "
          "at once. 0: each message at once", 0, 100 * GST_MSECOND,
          def.feedback_gather, rw));
  g_object_class_install_property (gobject_class, PROP_CIRCUIT_BREAKER,
      g_param_spec_boolean ("circuit-breaker", "Circuit breaker",
          "RFC 8083 circuit breaker: when nothing confirms for 15 s (3 RTCP "
          "intervals, at least 5 s each) that media reaches the receiver, "
          "drop to min-bitrate, discard media above twice that rate, and "
          "post a warning and a 'urcpsender-circuit-breaker' element message; "
          "recover when media is confirmed again",
          def.circuit_breaker, rw));
  g_object_class_install_property (gobject_class, PROP_ENCODER,
      g_param_spec_object ("encoder", "Encoder",
          "Encoder whose bitrate to set; NULL: find it upstream",
          GST_TYPE_ELEMENT, rw));
  g_object_class_install_property (gobject_class, PROP_CONFIGURE_ENCODER,
      g_param_spec_boolean ("configure-encoder", "Configure encoder",
          "Set the encoder up for real-time rate following (vp8enc/vp9enc: "
          "end-usage=cbr, deadline=1, 150 ms buffer (100 ms optimal), "
          "frame dropping, and where left at their defaults cpu-used=-6 "
          "(vp9enc: 6), a fixed speed, and lag-in-frames=0; openh264enc: "
          "rate-control=bitrate; x264enc: pass=cbr)",
          DEFAULT_CONFIGURE_ENCODER, rw));
  g_object_class_install_property (gobject_class, PROP_TEMPORAL_LAYERS,
      g_param_spec_uint ("temporal-layers", "Temporal layers",
          "2: with configure-encoder, vp8enc codes every other frame as a "
          "non-reference frame of a second temporal layer (the base layer "
          "gets 60 % of the bitrate), which urcpsender drops, whole and "
          "without a gap in the sequence numbers, while the media it sends "
          "runs above the controller's send cap (r3cp's selective "
          "transmission, docs/r3cp.md). Costs some coding efficiency. "
          "vp8enc only", 1, 2, DEFAULT_TEMPORAL_LAYERS, rw));
  g_object_class_install_property (gobject_class, PROP_TARGET_BITRATE,
      g_param_spec_uint ("target-bitrate", "Target bitrate",
          "Current media target (bit/s); notifies on change", 0, G_MAXUINT,
          0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Controller state and learned parameters, an "
          "application/x-urcpsender-stats structure (fields: "
          "docs/urcpsender.md)", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  install_controller_params (gobject_class, G_PARAM_READWRITE |
      GST_PARAM_MUTABLE_READY);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "URCP rate controller", "Filter/Network/RTP",
      "Sender-side rate control from transport-wide congestion feedback: "
      "paces RTP and sets the encoder's bitrate",
      "gst-ratecontrol developers");
  gst_type_mark_as_plugin_api (GST_TYPE_URCP_CONTROLLER, 0);
}

static void
gst_urcp_sender_init (GstUrcpSender * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad, gst_urcp_sender_chain);
  gst_pad_set_event_function (self->sinkpad, gst_urcp_sender_sink_event);
  gst_pad_set_link_function (self->sinkpad, gst_urcp_sender_pad_link);
  gst_pad_set_unlink_function (self->sinkpad, gst_urcp_sender_pad_unlink);
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_event_function (self->srcpad, gst_urcp_sender_src_event);
  gst_pad_set_query_function (self->srcpad, gst_urcp_sender_src_query);
  gst_pad_set_link_function (self->srcpad, gst_urcp_sender_pad_link);
  gst_pad_set_unlink_function (self->srcpad, gst_urcp_sender_pad_unlink);
  gst_pad_set_activatemode_function (self->srcpad,
      gst_urcp_sender_src_activate_mode);
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  rc_sender_config_init (&self->cfg);
  self->cfg.params = gst_structure_new_empty ("controller-parameters");
  self->configure_encoder = DEFAULT_CONFIGURE_ENCODER;
  self->temporal_layers = DEFAULT_TEMPORAL_LAYERS;

  g_mutex_init (&self->ctrl_lock);
  g_mutex_init (&self->enc_lock);
  g_cond_init (&self->queue_cond);
  g_cond_init (&self->space_cond);
  self->media_pt = -1;
  self->actions = g_array_new (FALSE, FALSE, sizeof (RcSenderAction));
  self->reports = g_array_new (FALSE, FALSE, sizeof (RcReportBlock));
  self->pending_reports = g_array_new (FALSE, FALSE, sizeof (RcReportBlock));
  self->rrtr = g_array_new (FALSE, FALSE, sizeof (RcReportBlock));
  self->rrtr_at = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  self->next_discovery = GST_CLOCK_TIME_NONE;
  self->srcresult = GST_FLOW_FLUSHING;
}
