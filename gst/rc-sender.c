/* The sender session (core, sans-IO); see rc-sender.h. */
#include "rc-sender.h"
#include <math.h>
#include "rc-pacer.h"
#include "rc-window.h"

GST_DEBUG_CATEGORY_STATIC (rc_sender_debug);
#define GST_CAT_DEFAULT rc_sender_debug

/* Pacing factor: above 1 so a frame leaves faster than the average rate, but
 * well below libwebrtc's 2.5, because every burst that outruns the bottleneck
 * adds self-inflicted delay that a delay-based controller then has to
 * carry. */
#define DEFAULT_PACING_FACTOR 1.5
/* A key frame of ~10 average frames at 30 fps leaves within this bound. */
#define DEFAULT_MAX_QUEUE_TIME (250 * GST_MSECOND)
/* A packet queued more than this after the one before starts a frame
 * (RcDecision.pacing_cap_keeps_pair): a payloader pushes a frame's packets
 * within microseconds, and frames come 16-40 ms apart. */
#define FRAME_GAP GST_MSECOND

/* Encoder updates: on a change of 2 % or more, else at most once a second,
 * so an encoder is not reconfigured for every feedback message. */
#define ENCODER_MIN_CHANGE 0.02
#define ENCODER_REFRESH (1 * GST_SECOND)

/* Use RTCP receiver reports only while transport-wide feedback has been
 * absent this long: it is finer, and the RR only stands in for it. */
#define TWCC_STALE (3 * GST_SECOND)
/* send-bitrate and acked-bitrate in stats: over the last second. */
#define RATE_SPAN (1 * GST_SECOND)
/* Warn once if sending this long with no feedback of any kind. */
#define NO_FEEDBACK_WARN_AFTER (5 * GST_SECOND)

/* No feedback for packets sent: hold the rate for FEEDBACK_HOLD (or 4 mean
 * feedback intervals if longer, for RTCP-only peers); from twice that
 * (before any feedback at all: two report intervals) halve it every
 * BACKOFF_HALVING down to min-bitrate. The clock starts at the first packet
 * sent after the last feedback, so a source that pauses (and so gets no
 * feedback) is not backed off for the silence it caused. */
#define FEEDBACK_HOLD (1 * GST_SECOND)
/* A peer that sends only RTCP reports reports every 5 s or so (RFC 3550
 * sec. 6.2 minimum interval, rtpsession's default); assume that until the
 * interval is measured, so the gap between two reports is not taken for
 * missing feedback. */
#define REPORT_INTERVAL_GUESS (5 * GST_SECOND)
#define BACKOFF_HALVING (1 * GST_SECOND)
/* Feedback back after a back-off (or media confirmed again after a trip):
 * the cap starts where the rate was and doubles every RECOVERY_DOUBLING up
 * to the controller's own rate, which the outage did not lower. Half a
 * second is two feedback-and-encoder round trips at usual RTTs (vp8enc
 * follows a new target within ~100 ms, RFC 8867 sec. 4), and reaches any
 * rate in the default range (50 kbit/s to 20 Mbit/s: 8.6 doublings) within
 * 4.3 s, so a sender is back at 90 % of its earlier rate within 5 s (the
 * goal set after defect 8 of the hostile-input issue: 4.5 s real, 26 s in
 * rcsim while the outage lowered the controller itself). If the controller
 * lowers its rate on the way (it saw congestion), the ramp ends there. */
#define RECOVERY_DOUBLING (500 * GST_MSECOND)
/* In quarter steps (x1.19 every 125 ms), so the encoder is not given a new
 * target on every packet. */
#define RECOVERY_SUBSTEPS 4
/* The controller cut its rate by this much during the recovery: congestion.
 * Smaller moves are not: URCP's rate drifts a few per cent while the queue
 * is empty (-5 % in the first second after rcsim's feedback-blackout.ini). */
#define RECOVERY_CONGESTED 0.8

/* RFC 8083 circuit breaker. Sec. 4.1 (RTCP timeout): no report on the media
 * stream for three deterministic RTCP intervals Td, computed with the fixed
 * minimum Tmin = 5 s; sec. 4.2 (media timeout): reports come, but the
 * extended highest sequence number in them stops growing, for the same
 * time. Transport-wide feedback is RTCP too (RTPFB), and a result marked
 * received is the per-packet form of a growing sequence number, so one
 * rule covers both kinds of peer: media sent and nothing confirming that
 * any of it arrived for CB_INTERVALS x max(Tmin, the measured report
 * interval). Sec. 4.5 asks the sender to cease; we drop to a floor
 * (min-bitrate) instead, because only media sent can bring the feedback
 * that shows the path is back (a receiver reports on the sources it hears,
 * RFC 3550 sec. 6.4). */
#define CB_TMIN (5 * GST_SECOND)
#define CB_INTERVALS 3
/* While tripped: admission at twice the floor, one second deep (see
 * rc_sender_admit()). */
#define CB_ADMIT_FACTOR 2.0

/* How far the media sent may run ahead of a controller's send cap before
 * non-reference frames are dropped: the rate buffer urcpsender gives vp8enc
 * (gstrcencoder.c, 300 ms), within which the encoder's own overshoot is its
 * normal rate control. */
#define SELECT_WINDOW (300 * GST_MSECOND)

/* Transport-wide messages that arrive together reach the controller as one
 * (RcSenderConfig.feedback_gather). A stock rtpbin receiver closes one
 * message per frame and, at each RTCP time, sends the ones it has, each in
 * an RTCP packet of its own, back to back. Mostly that is one; after a
 * delay spike, which completes several frames at once, and at the first
 * feedback it is several (kernel bench, noisy-hspa, 40 s: 807 RTCP times
 * 13-79 ms apart, 88 % with one message, 10 % with 2-8, 2 % with 9-18,
 * the first with 46; spread of a batch p99 1.2 ms). Handed over one by one, the controller
 * judged the moment when only the oldest frame of a batch had arrived,
 * the most delayed one while a spike drains: URCP's start-up ramp ended on
 * it and read R^MAX from the packets the spike held back (rcsim,
 * startup-heavy-tail seed 2: R^MAX 0.15 Mbit/s on a 2 Mbit/s link). The
 * session hands over what came within feedback_gather of the first
 * message, at that time: 5 ms is four times that p99 and below the
 * shortest RTCP gap seen. */
#define DEFAULT_FEEDBACK_GATHER (5 * GST_MSECOND)

typedef struct
{
  GList link;                   /* in the queue: one allocation per item */
  gpointer data;
  GstClockTime arrival;
  guint size;
  RcSenderItemKind kind;
} Item;

struct _RcSender
{
  RcSenderConfig cfg;
  RcController *ctrl;

  /* pacing */
  RcPacer pacer;
  GQueue queue;                 /* Item, linked through Item.link */
  guint64 queued_bytes;
  guint queued_packets;
  guint64 next_index;
  guint64 fec_sent;
  GstClockTime last_arrival;    /* the last packet sent: when it was queued */
  RcRateMeter send_meter;       /* every packet that left, at its send time */
  RcRateMeter acked_meter;      /* packets feedback says arrived, at their
                                 * arrival on the receiver's clock */
  GstClockTime last_recv_ts;

  /* feedback intake */
  RcSeqUnwrap twcc_unwrap;
  GArray *results;              /* scratch: RcPacketResult */
  GArray *reports;              /* scratch: RcReportBlock */
  guint32 ssrc;
  gboolean have_ssrc;
  gint media_pt;                /* -1: unknown */
  GstClockTime last_twcc;
  guint64 twcc_events, twcc_rejected, rr_reports;
  GArray *gather;               /* RcPacketResult: messages that arrived
                                 * together, not yet delivered */
  guint gather_msgs;
  GstClockTime gather_first, gather_last;       /* NONE: nothing gathered */

  /* watchdog */
  RcSenderFeedbackState fb_state;
  GstClockTime first_sent;
  GstClockTime last_feedback;
  GstClockTime fb_interval_avg;
  gboolean reports_only;        /* no per-packet feedback seen yet */
  guint64 feedback_count;
  GstClockTime unacked_since;   /* first packet sent after the last feedback */
  guint64 hold_cap;             /* the decision when the hold began */
  GstClockTime backoff_start;
  guint64 backoff_from;
  guint64 backoff_cap;
  guint64 recover_cap;
  gboolean warned_no_feedback;
  GstClockTime recover_start;
  guint64 recover_from;         /* the cap when the recovery began */
  guint64 recover_ref;          /* the controller's rate then */
  gboolean capped;              /* as last told to the controller */

  /* circuit breaker */
  GstClockTime last_report;     /* a report on the stream arrived */
  GstClockTime last_rr;
  GstClockTime rr_interval_avg;
  guint32 rr_highest;
  gboolean have_rr_highest;
  GstClockTime undelivered_since;       /* first packet sent after the last
                                         * sign that media arrived */
  gboolean tripped;
  const gchar *trip_reason;
  GstClockTime silent;
  guint64 trip_rate;
  guint trips;
  gdouble admit_tokens;         /* bits */
  GstClockTime admit_last;
  guint64 breaker_dropped;
  gboolean breaker_tripped_event, breaker_reset_event; /* for the next
                                                         * poll to report */

  /* selective transmission */
  RcSelect select;

  /* ticks and publishing */
  GstClockTime next_tick;
  guint64 target_bps;           /* last handed to the encoder */
  GstClockTime last_encoder_set;
  guint64 fec_bps;              /* last asked of the FEC encoder */
};

void
rc_sender_config_init (RcSenderConfig * cfg)
{
  cfg->controller = rc_controller_lookup ("urcp");
  cfg->params = NULL;
  rc_rate_limits_init (&cfg->limits);
  cfg->pacing = TRUE;
  cfg->pacing_factor = DEFAULT_PACING_FACTOR;
  cfg->max_queue_time = DEFAULT_MAX_QUEUE_TIME;
  cfg->circuit_breaker = TRUE;
  cfg->feedback_gather = DEFAULT_FEEDBACK_GATHER;
}

void
rc_sender_config_copy (RcSenderConfig * dst, const RcSenderConfig * src)
{
  *dst = *src;
  dst->params = src->params ? gst_structure_copy (src->params) : NULL;
}

void
rc_sender_config_clear (RcSenderConfig * cfg)
{
  if (cfg->params)
    gst_structure_free (cfg->params);
  cfg->params = NULL;
}

RcSender *
rc_sender_new (const RcSenderConfig * cfg, GError ** error)
{
  RcController *ctrl;
  GstStructure *own;
  RcSender *s;

  if (!rc_sender_debug)
    GST_DEBUG_CATEGORY_INIT (rc_sender_debug, "rcsender", 0,
        "sender session: pacing, feedback, encoder updates");
  g_return_val_if_fail (cfg->controller != NULL, NULL);
  own = rc_controller_params_extract (cfg->controller, cfg->params);
  ctrl = rc_controller_new (cfg->controller, &cfg->limits, own, error);
  gst_structure_free (own);
  if (!ctrl)
    return NULL;

  s = g_new0 (RcSender, 1);
  rc_sender_config_copy (&s->cfg, cfg);
  s->cfg.limits = ctrl->limits;
  s->ctrl = ctrl;
  rc_pacer_init (&s->pacer, cfg->max_queue_time);
  rc_select_init (&s->select);
  g_queue_init (&s->queue);
  rc_seq_unwrap_init (&s->twcc_unwrap);
  s->results = g_array_new (FALSE, FALSE, sizeof (RcPacketResult));
  s->reports = g_array_new (FALSE, FALSE, sizeof (RcReportBlock));
  s->gather = g_array_new (FALSE, FALSE, sizeof (RcPacketResult));
  s->gather_first = s->gather_last = GST_CLOCK_TIME_NONE;
  rc_rate_meter_init (&s->send_meter, RATE_SPAN);
  rc_rate_meter_init (&s->acked_meter, RATE_SPAN);
  s->last_recv_ts = GST_CLOCK_TIME_NONE;
  s->last_twcc = GST_CLOCK_TIME_NONE;
  s->first_sent = s->last_feedback = s->unacked_since = GST_CLOCK_TIME_NONE;
  s->last_arrival = GST_CLOCK_TIME_NONE;
  s->last_report = s->last_rr = s->undelivered_since = GST_CLOCK_TIME_NONE;
  s->admit_last = GST_CLOCK_TIME_NONE;
  s->reports_only = TRUE;
  s->media_pt = -1;
  s->next_tick = GST_CLOCK_TIME_NONE;
  s->target_bps = rc_controller_get_decision (ctrl).media_bps;
  s->last_encoder_set = GST_CLOCK_TIME_NONE;
  return s;
}

static void
item_free (Item * it, GDestroyNotify free_data)
{
  if (free_data && it->data)
    free_data (it->data);
  g_free (it);
}

void
rc_sender_flush (RcSender * s, GDestroyNotify free_data)
{
  GList *l;

  while ((l = g_queue_pop_head_link (&s->queue)))
    item_free (l->data, free_data);
  s->queued_bytes = 0;
  s->queued_packets = 0;
  s->last_arrival = GST_CLOCK_TIME_NONE;
  rc_pacer_reset (&s->pacer);
}

void
rc_sender_free (RcSender * s)
{
  if (!s)
    return;
  /* Items left are the caller's: it should have flushed them. */
  rc_sender_flush (s, NULL);
  rc_controller_free (s->ctrl);
  g_array_unref (s->results);
  g_array_unref (s->reports);
  g_array_unref (s->gather);
  rc_rate_meter_clear (&s->send_meter);
  rc_rate_meter_clear (&s->acked_meter);
  rc_sender_config_clear (&s->cfg);
  g_free (s);
}

const RcSenderConfig *
rc_sender_get_config (RcSender * s)
{
  return &s->cfg;
}

gboolean
rc_sender_set_limits (RcSender * s, guint64 min_bps, guint64 max_bps)
{
  if (min_bps > max_bps)
    return FALSE;
  /* Controllers clamp every decision to their limits (c->limits). */
  s->cfg.limits.min_bps = s->ctrl->limits.min_bps = min_bps;
  s->cfg.limits.max_bps = s->ctrl->limits.max_bps = max_bps;
  GST_DEBUG ("limits now %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT " bit/s",
      min_bps, max_bps);
  return TRUE;
}

RcController *
rc_sender_get_controller (RcSender * s)
{
  return s->ctrl;
}

void
rc_sender_set_ssrc (RcSender * s, guint32 ssrc)
{
  s->ssrc = ssrc;
  s->have_ssrc = TRUE;
}

void
rc_sender_set_media_pt (RcSender * s, gint pt)
{
  s->media_pt = pt;
}

/* ------------------------------------------------------------- decisions */

gboolean
rc_sender_select (RcSender * s, const RcFrameInfo * f, guint size,
    GstClockTime now)
{
  return rc_select_packet (&s->select, f, size,
      rc_sender_get_decision (s).send_cap_bps, SELECT_WINDOW, now);
}

RcDecision
rc_sender_get_decision (RcSender * s)
{
  RcDecision d = rc_controller_get_decision (s->ctrl);

  switch (s->fb_state) {
    case RC_SENDER_FEEDBACK_OK:
      break;
    case RC_SENDER_FEEDBACK_HOLD:
      d.media_bps = MIN (d.media_bps, s->hold_cap);
      d.phase = "hold";
      d.reason = "no feedback: holding the rate";
      break;
    case RC_SENDER_FEEDBACK_BACKOFF:
      d.media_bps = MIN (d.media_bps, s->backoff_cap);
      d.phase = "backoff";
      d.reason = "no feedback: backing off";
      break;
    case RC_SENDER_FEEDBACK_RECOVER:
      if (d.media_bps > s->recover_cap) {
        d.media_bps = s->recover_cap;
        d.phase = "recover";
        d.reason = "feedback is back: returning to the rate before the outage";
      }
      break;
    case RC_SENDER_FEEDBACK_TRIPPED:
      break;
  }
  if (s->tripped) {
    d.media_bps = MIN (d.media_bps, s->cfg.limits.min_bps);
    d.fec_bps = 0;
    d.pacing_bps = 0;
    d.pacing_cap_bps = 0;
    d.send_cap_bps = 0;
    d.phase = "circuit-breaker";
    d.reason = s->trip_reason;
  }
  return d;
}

static guint64
pacing_rate (RcSender * s, const RcDecision * d)
{
  guint64 r = d->pacing_bps > 0 ? d->pacing_bps :
      (guint64) ((d->media_bps + d->fec_bps) * s->cfg.pacing_factor);

  if (d->pacing_cap_bps > 0)
    r = MIN (r, d->pacing_cap_bps);
  return r;
}

guint64
rc_sender_get_pacing_rate (RcSender * s)
{
  RcDecision d = rc_sender_get_decision (s);
  return pacing_rate (s, &d);
}

guint64
rc_sender_get_target (RcSender * s)
{
  return s->target_bps;
}

guint64
rc_sender_get_fec_rate (RcSender * s)
{
  return s->fec_bps;
}

RcSenderFeedbackState
rc_sender_get_feedback_state (RcSender * s)
{
  return s->tripped ? RC_SENDER_FEEDBACK_TRIPPED : s->fb_state;
}

/* 3 Td. Td is Tmin (5 s) for every peer at video rates (RTCP's 5 % share
 * of 50 kbit/s already allows a report every 0.3 s). Report intervals are
 * drawn from [0.5, 1.5] Td (RFC 3550 sec. 6.3.1), so a measured mean a
 * little over 5 s is that spread, not a longer Td; only a mean above
 * 1.5 Tmin, which a 5 s Td cannot give, is taken for the peer's Td. */
static GstClockTime
breaker_timeout (RcSender * s)
{
  GstClockTime td = s->rr_interval_avg > CB_TMIN * 3 / 2 ?
      s->rr_interval_avg : CB_TMIN;
  return CB_INTERVALS * td;
}

void
rc_sender_get_breaker (RcSender * s, RcSenderBreaker * out)
{
  out->tripped = s->tripped;
  out->reason = s->trip_reason;
  out->timeout = breaker_timeout (s);
  out->silent = s->silent;
  out->rate_before = s->trip_rate;
  out->floor = s->cfg.limits.min_bps;
  out->trips = s->trips;
  out->dropped_packets = s->breaker_dropped;
}

/* ----------------------------------------------------------------- pacing */

static void breaker_check (RcSender * s, GstClockTime now);

gboolean
rc_sender_admit (RcSender * s, guint size, RcSenderItemKind kind,
    GstClockTime now)
{
  gdouble rate, depth;

  if (GST_CLOCK_TIME_IS_VALID (now))
    breaker_check (s, now);
  if (!s->tripped || kind == RC_SENDER_ITEM_MARKER ||
      !GST_CLOCK_TIME_IS_VALID (now))
    return TRUE;
  rate = CB_ADMIT_FACTOR * s->cfg.limits.min_bps;
  depth = rate;                 /* one second's worth */
  if (GST_CLOCK_TIME_IS_VALID (s->admit_last) && now > s->admit_last)
    s->admit_tokens = MIN (depth, s->admit_tokens +
        rate * (now - s->admit_last) / GST_SECOND);
  s->admit_last = MAX (now, s->admit_last);
  /* One packet may overdraw, so a packet larger than the bucket passes
   * now and then rather than never. */
  if (s->admit_tokens <= 0) {
    s->breaker_dropped++;
    return FALSE;
  }
  s->admit_tokens -= 8.0 * size;
  return TRUE;
}

void
rc_sender_push (RcSender * s, gpointer data, guint size,
    RcSenderItemKind kind, GstClockTime now)
{
  Item *it = g_new0 (Item, 1);

  it->link.data = it;
  it->data = data;
  it->size = kind == RC_SENDER_ITEM_MARKER ? 0 : size;
  it->kind = kind;
  it->arrival = now;
  g_queue_push_tail_link (&s->queue, &it->link);
  s->queued_bytes += it->size;
  if (kind != RC_SENDER_ITEM_MARKER)
    s->queued_packets++;
}

GstClockTime
rc_sender_next_send (RcSender * s)
{
  Item *it = g_queue_peek_head (&s->queue);

  if (!it)
    return GST_CLOCK_TIME_NONE;
  if (!s->cfg.pacing || it->kind == RC_SENDER_ITEM_MARKER ||
      !GST_CLOCK_TIME_IS_VALID (it->arrival))
    return GST_CLOCK_TIME_IS_VALID (it->arrival) ? it->arrival : 0;
  return rc_pacer_next_send (&s->pacer, it->arrival);
}

/* A packet left at `now`: the pacer, the controller and the watchdog hear
 * of it. `queued_bytes` counts it if it came from the queue. */
static guint64
sent (RcSender * s, guint size, RcSenderItemKind kind, GstClockTime arrival,
    GstClockTime now)
{
  guint64 idx = G_MAXUINT64;

  if (s->cfg.pacing && GST_CLOCK_TIME_IS_VALID (now) &&
      GST_CLOCK_TIME_IS_VALID (arrival)) {
    RcDecision d = rc_sender_get_decision (s);
    /* A frame's packets are queued together (the payloader pushes them
     * back to back) and frames a frame interval apart. */
    gboolean frame_start = !GST_CLOCK_TIME_IS_VALID (s->last_arrival) ||
        arrival > s->last_arrival + FRAME_GAP;

    /* The spacing after a frame's first packet is its second's. */
    if (d.pacing_cap_keeps_pair && frame_start)
      d.pacing_cap_bps = 0;
    rc_pacer_sent (&s->pacer, now, size, pacing_rate (s, &d),
        s->queued_bytes, arrival);
    s->last_arrival = arrival;
  }
  /* Without a time (not playing) there is nothing to tell the controller:
   * it measures rates and delays. */
  if (kind == RC_SENDER_ITEM_FEC)
    s->fec_sent++;
  if (GST_CLOCK_TIME_IS_VALID (now)) {
    rc_rate_meter_add (&s->send_meter, now, size);
    idx = s->next_index++;
    rc_controller_on_packet_sent (s->ctrl, idx, size,
        kind == RC_SENDER_ITEM_FEC, now);
    if (!GST_CLOCK_TIME_IS_VALID (s->first_sent))
      s->first_sent = now;
    if (!GST_CLOCK_TIME_IS_VALID (s->unacked_since))
      s->unacked_since = now;
    if (!GST_CLOCK_TIME_IS_VALID (s->undelivered_since))
      s->undelivered_since = now;
  }
  return idx;
}

gpointer
rc_sender_pop (RcSender * s, GstClockTime now, RcSenderItemKind * kind,
    guint64 * index)
{
  Item *it = g_queue_peek_head (&s->queue);
  gpointer data;
  guint64 idx = G_MAXUINT64;

  if (!it || (GST_CLOCK_TIME_IS_VALID (now) && rc_sender_next_send (s) > now))
    return NULL;
  g_queue_pop_head_link (&s->queue);
  if (it->kind != RC_SENDER_ITEM_MARKER) {
    idx = sent (s, it->size, it->kind, it->arrival, now);
    s->queued_packets--;
  }
  s->queued_bytes -= it->size;
  if (kind)
    *kind = it->kind;
  if (index)
    *index = idx;
  data = it->data;
  g_free (it);
  return data;
}

guint64
rc_sender_send_now (RcSender * s, guint size, RcSenderItemKind kind,
    GstClockTime now)
{
  g_return_val_if_fail (kind != RC_SENDER_ITEM_MARKER, G_MAXUINT64);
  g_return_val_if_fail (g_queue_is_empty (&s->queue), G_MAXUINT64);
  return sent (s, size, kind, GST_CLOCK_TIME_NONE, now);
}

void
rc_sender_queue_info (RcSender * s, GstClockTime now, guint * packets,
    guint64 * bytes, GstClockTime * drain_time)
{
  GList *l;
  GstClockTime oldest = GST_CLOCK_TIME_NONE;

  for (l = s->queue.head; l; l = l->next) {
    Item *it = l->data;
    if (it->kind != RC_SENDER_ITEM_MARKER) {
      oldest = it->arrival;
      break;
    }
  }
  if (packets)
    *packets = s->queued_packets;
  if (bytes)
    *bytes = s->queued_bytes;
  if (drain_time) {
    *drain_time = 0;
    if (s->queued_packets && GST_CLOCK_TIME_IS_VALID (oldest)) {
      GstClockTime t = GST_CLOCK_TIME_IS_VALID (now) ? MAX (now, oldest) :
          oldest;
      *drain_time = rc_pacer_queue_time (&s->pacer,
          rc_sender_get_pacing_rate (s), s->queued_bytes, oldest, t);
    }
  }
}

/* --------------------------------------------------------------- feedback */

static void
recover_begin (RcSender * s, guint64 from, GstClockTime now)
{
  s->fb_state = RC_SENDER_FEEDBACK_RECOVER;
  s->recover_start = now;
  s->recover_from = s->recover_cap = MAX (from, 1);
  s->recover_ref = rc_controller_get_decision (s->ctrl).media_bps;
}

/* Feedback reached the controller at `now`: the watchdog starts over. */
static void
feedback_arrived (RcSender * s, GstClockTime now, gboolean per_packet)
{
  if (GST_CLOCK_TIME_IS_VALID (s->last_feedback) && now > s->last_feedback) {
    GstClockTime ival = now - s->last_feedback;
    s->fb_interval_avg = s->fb_interval_avg ?
        (7 * s->fb_interval_avg + ival) / 8 : ival;
  }
  if (per_packet)
    s->reports_only = FALSE;
  s->feedback_count++;
  s->last_feedback = now;
  s->unacked_since = GST_CLOCK_TIME_NONE;
  switch (s->fb_state) {
    case RC_SENDER_FEEDBACK_HOLD:
      /* Held where it was; the controller may have climbed on its timers
       * meanwhile, or the hold may have cut a recovery short. */
      GST_DEBUG ("feedback resumed after a hold");
      if (rc_controller_get_decision (s->ctrl).media_bps > s->hold_cap)
        recover_begin (s, s->hold_cap, now);
      else
        s->fb_state = RC_SENDER_FEEDBACK_OK;
      break;
    case RC_SENDER_FEEDBACK_BACKOFF:
      GST_DEBUG ("feedback resumed after a back-off to %" G_GUINT64_FORMAT
          " bit/s: recovering", s->backoff_cap);
      recover_begin (s, s->backoff_cap, now);
      break;
    default:
      break;
  }
}

/* The breaker's evidence at `now`: a report on the stream arrived, and
 * whether it showed media arriving. */
static void
breaker_evidence (RcSender * s, GstClockTime now, gboolean delivered)
{
  s->last_report = now;
  if (!delivered)
    return;
  s->undelivered_since = GST_CLOCK_TIME_NONE;
  s->silent = 0;
  if (s->tripped) {
    s->tripped = FALSE;
    s->breaker_reset_event = TRUE;
    s->admit_tokens = 0;
    s->admit_last = GST_CLOCK_TIME_NONE;
    GST_INFO ("circuit breaker reset: media reaches the receiver again; "
        "recovering from %" G_GUINT64_FORMAT " towards %" G_GUINT64_FORMAT
        " bit/s", s->cfg.limits.min_bps, s->trip_rate);
    recover_begin (s, s->cfg.limits.min_bps, now);
  }
}

/* An RR block on our stream (RFC 3550 sec. 6.4.1): media arrived if the
 * extended highest sequence number grew (sec. 4.2 of RFC 8083). */
static void
breaker_rr (RcSender * s, const RcReportBlock * b, GstClockTime now)
{
  gboolean grew = !s->have_rr_highest ||
      (gint32) (b->rr.ext_highest_seq - s->rr_highest) > 0;

  if (GST_CLOCK_TIME_IS_VALID (s->last_rr) && now > s->last_rr) {
    /* A gap while the source paused is no report interval: bounded, so
     * the timeout stays under a minute. */
    GstClockTime ival = MIN (now - s->last_rr, 4 * CB_TMIN);
    s->rr_interval_avg = s->rr_interval_avg ?
        (15 * s->rr_interval_avg + ival) / 16 : ival;
  }
  s->last_rr = now;
  if (grew) {
    s->rr_highest = b->rr.ext_highest_seq;
    s->have_rr_highest = TRUE;
  }
  breaker_evidence (s, now, grew);
}

/* Hands `n` results to the controller at `now`. */
static void
deliver_results (RcSender * s, RcPacketResult * results, guint n,
    GstClockTime now)
{
  RcFeedback fb = { 0 };
  gboolean delivered = FALSE;
  guint i;

  for (i = 0; i < n; i++) {
    if (results[i].lost)
      continue;
    delivered = TRUE;
    if (!GST_CLOCK_TIME_IS_VALID (results[i].recv_ts))
      continue;
    rc_rate_meter_add (&s->acked_meter, results[i].recv_ts, results[i].size);
    if (!GST_CLOCK_TIME_IS_VALID (s->last_recv_ts) ||
        results[i].recv_ts > s->last_recv_ts)
      s->last_recv_ts = results[i].recv_ts;
  }
  fb.packets = results;
  fb.n_packets = n;
  feedback_arrived (s, now, TRUE);
  breaker_evidence (s, now, delivered);
  rc_controller_on_feedback (s->ctrl, &fb, now);
}

/* The gathered messages, as one, at `now`. */
static void
deliver_gathered (RcSender * s, GstClockTime now)
{
  GST_LOG ("%u feedback messages (%u packets) arrived over %.3f ms from %"
      GST_TIME_FORMAT "; delivered at %" GST_TIME_FORMAT, s->gather_msgs,
      s->gather->len, (gdouble) (s->gather_last - s->gather_first) /
      GST_MSECOND, GST_TIME_ARGS (s->gather_first), GST_TIME_ARGS (now));
  /* The controller reads the array during the call only, as it did the
   * caller's array when messages were delivered one by one. */
  deliver_results (s, (RcPacketResult *) s->gather->data, s->gather->len,
      now);
  g_array_set_size (s->gather, 0);
  s->gather_msgs = 0;
  s->gather_first = s->gather_last = GST_CLOCK_TIME_NONE;
}

void
rc_sender_on_packet_results (RcSender * s, RcPacketResult * results,
    guint n, GstClockTime now)
{
  GstClockTime g = s->cfg.feedback_gather;
  guint i;

  if (n == 0 || !GST_CLOCK_TIME_IS_VALID (now))
    return;
  /* Repair packets carry their own payload type. */
  for (i = 0; s->media_pt >= 0 && i < n; i++)
    if (results[i].pt >= 0)
      results[i].is_fec = results[i].pt != s->media_pt;
  s->last_twcc = now;
  if (g == 0) {
    deliver_results (s, results, n, now);
    return;
  }
  /* Nobody polled at the due time: the earlier batch first. */
  if (s->gather->len && now >= rc_sender_feedback_due (s))
    deliver_gathered (s, now);
  if (s->gather->len == 0)
    s->gather_first = now;
  g_array_append_vals (s->gather, results, n);
  s->gather_msgs++;
  s->gather_last = now;
}

GstClockTime
rc_sender_feedback_due (RcSender * s)
{
  return s->gather->len ? s->gather_first + s->cfg.feedback_gather :
      GST_CLOCK_TIME_NONE;
}

gboolean
rc_sender_on_twcc (RcSender * s, const GstStructure * event,
    GstClockTime now, GstClockTime local_now, RcTwccParseInfo * info)
{
  RcTwccParseInfo tmp;

  if (!info)
    info = &tmp;
  g_array_set_size (s->results, 0);
  if (!rc_twcc_parse (event, &s->twcc_unwrap, s->results, info))
    return FALSE;
  s->twcc_events++;
  s->twcc_rejected += info->n_rejected;
  if (s->results->len == 0 || !GST_CLOCK_TIME_IS_VALID (now))
    return TRUE;
  rc_twcc_translate_send_ts (s->results, now, local_now);
  rc_sender_on_packet_results (s, (RcPacketResult *) s->results->data,
      s->results->len, now);
  return TRUE;
}

void
rc_sender_on_reports (RcSender * s, const RcReportBlock * blocks, guint n,
    GstClockTime now)
{
  RcFeedback fb = { 0 };
  gboolean twcc_fresh = GST_CLOCK_TIME_IS_VALID (s->last_twcc) &&
      GST_CLOCK_TIME_IS_VALID (now) && now <= s->last_twcc + TWCC_STALE;
  gboolean have_rr = FALSE, use_rr = FALSE;
  guint i;

  g_array_set_size (s->reports, 0);
  for (i = 0; i < n; i++) {
    RcReportBlock b = blocks[i];

    /* A TMMBN's SSRC is the owner of the bounding-set entry (RFC 5104
     * sec. 4.2.2.1), not the stream: it is about us whatever it says. */
    if (s->have_ssrc && b.kind != RC_REPORT_TMMBN && b.media_ssrc != s->ssrc)
      continue;
    if (b.kind == RC_REPORT_RR) {
      have_rr = TRUE;
      if (GST_CLOCK_TIME_IS_VALID (now))
        breaker_rr (s, &b, now);
      if (twcc_fresh && !s->ctrl->klass->reports_always)
        continue;
      use_rr = !twcc_fresh;
    }
    g_array_append_val (s->reports, b);
  }
  if (have_rr)
    s->rr_reports++;
  if (s->reports->len == 0 || !GST_CLOCK_TIME_IS_VALID (now))
    return;
  if (use_rr) {
    const RcReportBlock *rr = &g_array_index (s->reports, RcReportBlock, 0);
    GST_DEBUG ("RTCP report: fraction lost %.3f, RTT %" GST_TIME_FORMAT,
        rr->rr.fraction_lost, GST_TIME_ARGS (rr->rr.rtt));
    feedback_arrived (s, now, FALSE);
  }
  fb.reports = (const RcReportBlock *) s->reports->data;
  fb.n_reports = s->reports->len;
  rc_controller_on_feedback (s->ctrl, &fb, now);
}

/* ----------------------------------------------------------------- poll */

/* RECOVER: the cap doubles each RECOVERY_DOUBLING until the controller's
 * own rate is below it. */
static void
recover (RcSender * s, GstClockTime now)
{
  guint64 ctrl = rc_controller_get_decision (s->ctrl).media_bps;
  gdouble steps = now > s->recover_start ?
      floor ((gdouble) (now - s->recover_start) * RECOVERY_SUBSTEPS /
      RECOVERY_DOUBLING) / RECOVERY_SUBSTEPS : 0;

  s->recover_cap = (guint64) MIN (s->recover_from * pow (2.0, steps),
      (gdouble) G_MAXUINT64 / 2);
  if (ctrl < RECOVERY_CONGESTED * s->recover_ref) {
    /* The controller lowered its rate: it saw congestion on the way back.
     * Its rate and what it starts from next go no higher than what is
     * sent; a controller that cannot be lowered is simply capped until
     * the ramp meets it. */
    GST_DEBUG ("recovery: the controller lowered its rate to %"
        G_GUINT64_FORMAT " bit/s at %" G_GUINT64_FORMAT, ctrl, s->recover_cap);
    if (rc_controller_limit_rate (s->ctrl, s->recover_cap, now))
      ctrl = rc_controller_get_decision (s->ctrl).media_bps;
    s->recover_ref = ctrl;
  }
  if (ctrl <= s->recover_cap) {
    GST_DEBUG ("recovered: %" G_GUINT64_FORMAT " bit/s", ctrl);
    s->fb_state = RC_SENDER_FEEDBACK_OK;
  }
}

/* Trips the breaker if media has gone unconfirmed too long. Runs on every
 * poll and before every admission, so the first packet after the timeout
 * already meets a tripped breaker even where polls come only with packets
 * (urcpsender, whose encoder sends little at the floor). */
static void
breaker_check (RcSender * s, GstClockTime now)
{
  gboolean reports;

  s->silent = GST_CLOCK_TIME_IS_VALID (s->undelivered_since) &&
      now > s->undelivered_since ? now - s->undelivered_since : 0;
  if (!s->cfg.circuit_breaker || s->tripped ||
      s->silent <= breaker_timeout (s))
    return;
  reports = GST_CLOCK_TIME_IS_VALID (s->last_report) &&
      s->last_report > s->undelivered_since;
  /* The controller's rate: what the recovery returns to. */
  s->trip_rate = rc_controller_get_decision (s->ctrl).media_bps;
  s->tripped = TRUE;
  s->trips++;
  s->breaker_tripped_event = TRUE;
  s->admit_tokens = CB_ADMIT_FACTOR * s->cfg.limits.min_bps;
  s->admit_last = now;
  s->trip_reason = reports ?
      "reports come but show no media arriving: circuit breaker" :
      "no reports on the stream: circuit breaker";
  GST_WARNING ("circuit breaker tripped after %" GST_TIME_FORMAT
      " (%s, RFC 8083 sec. %s): %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT
      " bit/s", GST_TIME_ARGS (s->silent), reports ? "media timeout" :
      "RTCP timeout", reports ? "4.2" : "4.1", s->trip_rate,
      s->cfg.limits.min_bps);
}

static void
breaker (RcSender * s, GstClockTime now, GArray * actions)
{
  RcSenderAction a = { RC_SENDER_BREAKER_TRIPPED, s->cfg.limits.min_bps };

  breaker_check (s, now);
  /* Both, in this order, if it tripped and reset between two polls. */
  if (s->breaker_tripped_event)
    g_array_append_val (actions, a);
  if (s->breaker_reset_event) {
    a.kind = RC_SENDER_BREAKER_RESET;
    a.bps = s->trip_rate;
    g_array_append_val (actions, a);
  }
  s->breaker_tripped_event = s->breaker_reset_event = FALSE;
}

static void
watchdog (RcSender * s, GstClockTime now, GArray * actions)
{
  GstClockTime hold, backoff_after, silent;

  if (!s->warned_no_feedback && s->feedback_count == 0 &&
      GST_CLOCK_TIME_IS_VALID (s->first_sent) &&
      now > s->first_sent + NO_FEEDBACK_WARN_AFTER) {
    RcSenderAction a = { RC_SENDER_WARN_NO_FEEDBACK, 0 };
    s->warned_no_feedback = TRUE;
    g_array_append_val (actions, a);
  }
  breaker (s, now, actions);
  if (s->fb_state == RC_SENDER_FEEDBACK_RECOVER)
    recover (s, now);
  if (!GST_CLOCK_TIME_IS_VALID (s->unacked_since) || now <= s->unacked_since)
    return;
  silent = now - s->unacked_since;
  hold = MAX (FEEDBACK_HOLD, 4 * (s->fb_interval_avg ? s->fb_interval_avg :
          (s->reports_only && s->feedback_count ? REPORT_INTERVAL_GUESS : 0)));
  /* Before any feedback we cannot tell a TWCC peer from one whose first
   * RTCP report is seconds away: hold the (low) start rate for two report
   * intervals before backing off. */
  backoff_after = s->feedback_count ? 2 * hold : 2 * REPORT_INTERVAL_GUESS;

  if (silent > backoff_after) {
    gdouble halvings;
    if (s->fb_state != RC_SENDER_FEEDBACK_BACKOFF) {
      /* From what was sent (a hold or a recovery may cap it), not from
       * the controller's rate. */
      s->backoff_from = rc_sender_get_decision (s).media_bps;
      s->fb_state = RC_SENDER_FEEDBACK_BACKOFF;
      s->backoff_start = s->unacked_since + backoff_after;
      GST_DEBUG ("no feedback for %" GST_TIME_FORMAT ": backing off from %"
          G_GUINT64_FORMAT " bit/s", GST_TIME_ARGS (silent), s->backoff_from);
    }
    /* Only the decision is capped: the controller keeps its rate, which
     * the recovery heads back to once feedback returns. */
    halvings = (gdouble) (now - s->backoff_start) / BACKOFF_HALVING;
    s->backoff_cap = MAX (s->cfg.limits.min_bps,
        (guint64) (s->backoff_from * pow (0.5, halvings)));
  } else if (silent > hold && (s->fb_state == RC_SENDER_FEEDBACK_OK ||
          s->fb_state == RC_SENDER_FEEDBACK_RECOVER)) {
    s->hold_cap = rc_sender_get_decision (s).media_bps;
    s->fb_state = RC_SENDER_FEEDBACK_HOLD;
    GST_DEBUG ("no feedback for %" GST_TIME_FORMAT ": holding the rate",
        GST_TIME_ARGS (silent));
  }
}

GstClockTime
rc_sender_poll (RcSender * s, GstClockTime now, GArray * actions)
{
  RcDecision d;
  guint64 old;

  if (!GST_CLOCK_TIME_IS_VALID (now))
    return GST_CLOCK_TIME_NONE;

  if (s->gather->len && now >= rc_sender_feedback_due (s))
    deliver_gathered (s, now);
  if (!GST_CLOCK_TIME_IS_VALID (s->next_tick))
    s->next_tick = now;
  if (now >= s->next_tick) {
    rc_controller_on_tick (s->ctrl, now);
    /* Keep the grid; one tick per poll however late. */
    s->next_tick += ((now - s->next_tick) / RC_CONTROLLER_TICK + 1) *
        RC_CONTROLLER_TICK;
  }
  watchdog (s, now, actions);
  {
    gboolean capped = s->tripped || s->fb_state != RC_SENDER_FEEDBACK_OK;
    if (capped != s->capped) {
      s->capped = capped;
      rc_controller_set_capped (s->ctrl, capped, now);
    }
  }

  d = rc_sender_get_decision (s);
  old = s->target_bps;
  if (d.media_bps != old) {
    gboolean big = old == 0 ||
        (gdouble) (d.media_bps > old ? d.media_bps - old : old - d.media_bps)
        / old >= ENCODER_MIN_CHANGE;
    gboolean stale = !GST_CLOCK_TIME_IS_VALID (s->last_encoder_set) ||
        now >= s->last_encoder_set + ENCODER_REFRESH;
    if (big || stale) {
      RcSenderAction a = { RC_SENDER_SET_ENCODER, d.media_bps };
      GST_DEBUG ("target %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT
          " bit/s, FEC %" G_GUINT64_FORMAT " bit/s, pacing %" G_GUINT64_FORMAT
          " bit/s, %s: %s", old, d.media_bps, d.fec_bps, pacing_rate (s, &d),
          d.phase, d.reason);
      s->target_bps = d.media_bps;
      s->last_encoder_set = now;
      g_array_append_val (actions, a);
    }
  }
  if (d.fec_bps != s->fec_bps) {
    RcSenderAction a = { RC_SENDER_SET_FEC, d.fec_bps };
    s->fec_bps = d.fec_bps;
    g_array_append_val (actions, a);
  }
  return s->gather->len ? MIN (s->next_tick, rc_sender_feedback_due (s)) :
      s->next_tick;
}

/* ----------------------------------------------------------------- stats */

static gboolean
copy_field (GQuark field, const GValue * value, gpointer out)
{
  gst_structure_id_set_value (out, field, value);
  return TRUE;
}

GstStructure *
rc_sender_get_stats (RcSender * s, GstClockTime now)
{
  GstStructure *ctrl = rc_controller_get_stats (s->ctrl), *st;
  RcDecision d = rc_sender_get_decision (s);
  guint packets;
  guint64 bytes;
  GstClockTime drain;

  rc_sender_queue_info (s, now, &packets, &bytes, &drain);
  /* The session's fields first, then the controller's. Bit rates are
   * guint like the element's bitrate properties, times guint64 ns
   * (GST_CLOCK_TIME_NONE: unknown), counts guint64. */
  st = gst_structure_new (gst_structure_get_name (ctrl),
      "controller", G_TYPE_STRING, rc_controller_name (s->ctrl),
      "state", G_TYPE_STRING, d.phase ? d.phase : "",
      "reason", G_TYPE_STRING, d.reason ? d.reason : "",
      "target-bitrate", G_TYPE_UINT, rc_stats_bps (d.media_bps),
      "fec-bitrate", G_TYPE_UINT, rc_stats_bps (d.fec_bps),
      "pacing-bitrate", G_TYPE_UINT, rc_stats_bps (pacing_rate (s, &d)),
      "send-bitrate", G_TYPE_UINT, GST_CLOCK_TIME_IS_VALID (now) ?
      rc_stats_bps (rc_rate_meter_bps (&s->send_meter, now)) : 0,
      "acked-bitrate", G_TYPE_UINT, GST_CLOCK_TIME_IS_VALID (s->last_recv_ts)
      ? rc_stats_bps (rc_rate_meter_bps (&s->acked_meter, s->last_recv_ts)) :
      0,
      "fec-packets-sent", G_TYPE_UINT64, s->fec_sent,
      "twcc-events", G_TYPE_UINT64, s->twcc_events,
      "twcc-rejected", G_TYPE_UINT64, s->twcc_rejected,
      "rr-reports", G_TYPE_UINT64, s->rr_reports,
      "pacing-queue-packets", G_TYPE_UINT, packets,
      "pacing-queue-bytes", G_TYPE_UINT64, bytes,
      "pacing-queue-time", G_TYPE_UINT64, (guint64) drain,
      "circuit-breaker-trips", G_TYPE_UINT64, (guint64) s->trips,
      "circuit-breaker-dropped", G_TYPE_UINT64, s->breaker_dropped,
      "send-cap", G_TYPE_UINT, rc_stats_bps (d.send_cap_bps),
      "selective-dropped-frames", G_TYPE_UINT64, s->select.dropped_frames,
      "selective-dropped-bytes", G_TYPE_UINT64, s->select.dropped_bytes,
      NULL);
  gst_structure_foreach (ctrl, copy_field, st);
  gst_structure_free (ctrl);
  return st;
}
