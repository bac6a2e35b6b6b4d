/* The sender session (core, sans-IO); see rc-sender.h. */
#include "rc-sender.h"
#include <math.h>
#include "rc-pacer.h"

GST_DEBUG_CATEGORY_STATIC (rc_sender_debug);
#define GST_CAT_DEFAULT rc_sender_debug

/* Pacing factor: above 1 so a frame leaves faster than the average rate, but
 * well below libwebrtc's 2.5, because every burst that outruns the bottleneck
 * adds self-inflicted delay that a delay-based controller then has to
 * carry. */
#define DEFAULT_PACING_FACTOR 1.5
/* A key frame of ~10 average frames at 30 fps leaves within this bound. */
#define DEFAULT_MAX_QUEUE_TIME (250 * GST_MSECOND)

/* Encoder updates: on a change of 2 % or more, else at most once a second,
 * so an encoder is not reconfigured for every feedback message. */
#define ENCODER_MIN_CHANGE 0.02
#define ENCODER_REFRESH (1 * GST_SECOND)

/* Use RTCP receiver reports only while transport-wide feedback has been
 * absent this long: it is finer, and the RR only stands in for it. */
#define TWCC_STALE (3 * GST_SECOND)
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

  /* feedback intake */
  RcSeqUnwrap twcc_unwrap;
  GArray *results;              /* scratch: RcPacketResult */
  GArray *reports;              /* scratch: RcReportBlock */
  guint32 ssrc;
  gboolean have_ssrc;
  gint media_pt;                /* -1: unknown */
  GstClockTime last_twcc;
  guint64 twcc_events, twcc_rejected, rr_reports;

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
  gboolean warned_no_feedback;

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
  g_queue_init (&s->queue);
  rc_seq_unwrap_init (&s->twcc_unwrap);
  s->results = g_array_new (FALSE, FALSE, sizeof (RcPacketResult));
  s->reports = g_array_new (FALSE, FALSE, sizeof (RcReportBlock));
  s->last_twcc = GST_CLOCK_TIME_NONE;
  s->first_sent = s->last_feedback = s->unacked_since = GST_CLOCK_TIME_NONE;
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
  rc_sender_config_clear (&s->cfg);
  g_free (s);
}

const RcSenderConfig *
rc_sender_get_config (RcSender * s)
{
  return &s->cfg;
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
  }
  return d;
}

static guint64
pacing_rate (RcSender * s, const RcDecision * d)
{
  if (d->pacing_bps > 0)
    return d->pacing_bps;
  return (guint64) ((d->media_bps + d->fec_bps) * s->cfg.pacing_factor);
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
  return s->fb_state;
}

/* ----------------------------------------------------------------- pacing */

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
    rc_pacer_sent (&s->pacer, now, size, pacing_rate (s, &d),
        s->queued_bytes, arrival);
  }
  /* Without a time (not playing) there is nothing to tell the controller:
   * it measures rates and delays. */
  if (kind == RC_SENDER_ITEM_FEC)
    s->fec_sent++;
  if (GST_CLOCK_TIME_IS_VALID (now)) {
    idx = s->next_index++;
    rc_controller_on_packet_sent (s->ctrl, idx, size,
        kind == RC_SENDER_ITEM_FEC, now);
    if (!GST_CLOCK_TIME_IS_VALID (s->first_sent))
      s->first_sent = now;
    if (!GST_CLOCK_TIME_IS_VALID (s->unacked_since))
      s->unacked_since = now;
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
  if (s->fb_state != RC_SENDER_FEEDBACK_OK)
    GST_DEBUG ("feedback resumed after %s",
        s->fb_state == RC_SENDER_FEEDBACK_HOLD ? "hold" : "back-off");
  s->fb_state = RC_SENDER_FEEDBACK_OK;
}

void
rc_sender_on_packet_results (RcSender * s, RcPacketResult * results,
    guint n, GstClockTime now)
{
  RcFeedback fb = { 0 };
  guint i;

  if (n == 0 || !GST_CLOCK_TIME_IS_VALID (now))
    return;
  /* Repair packets carry their own payload type. */
  for (i = 0; s->media_pt >= 0 && i < n; i++)
    if (results[i].pt >= 0)
      results[i].is_fec = results[i].pt != s->media_pt;
  s->last_twcc = now;
  fb.packets = results;
  fb.n_packets = n;
  feedback_arrived (s, now, TRUE);
  rc_controller_on_feedback (s->ctrl, &fb, now);
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
      if (twcc_fresh)
        continue;
      use_rr = TRUE;
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
      s->fb_state = RC_SENDER_FEEDBACK_BACKOFF;
      s->backoff_start = s->unacked_since + backoff_after;
      s->backoff_from = rc_controller_get_decision (s->ctrl).media_bps;
      GST_DEBUG ("no feedback for %" GST_TIME_FORMAT ": backing off from %"
          G_GUINT64_FORMAT " bit/s", GST_TIME_ARGS (silent), s->backoff_from);
    }
    halvings = (gdouble) (now - s->backoff_start) / BACKOFF_HALVING;
    s->backoff_cap = MAX (s->cfg.limits.min_bps,
        (guint64) (s->backoff_from * pow (0.5, halvings)));
    rc_controller_limit_rate (s->ctrl, s->backoff_cap, now);
  } else if (silent > hold && s->fb_state == RC_SENDER_FEEDBACK_OK) {
    s->hold_cap = rc_controller_get_decision (s->ctrl).media_bps;
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

  if (!GST_CLOCK_TIME_IS_VALID (s->next_tick))
    s->next_tick = now;
  if (now >= s->next_tick) {
    rc_controller_on_tick (s->ctrl, now);
    /* Keep the grid; one tick per poll however late. */
    s->next_tick += ((now - s->next_tick) / RC_CONTROLLER_TICK + 1) *
        RC_CONTROLLER_TICK;
  }
  watchdog (s, now, actions);

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
  return s->next_tick;
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
  /* The session's fields first, then the controller's. */
  st = gst_structure_new (gst_structure_get_name (ctrl),
      "controller", G_TYPE_STRING, rc_controller_name (s->ctrl),
      "state", G_TYPE_STRING, d.phase ? d.phase : "",
      "reason", G_TYPE_STRING, d.reason ? d.reason : "",
      "target-bitrate", G_TYPE_UINT64, d.media_bps,
      "fec-bitrate", G_TYPE_UINT64, d.fec_bps,
      "pacing-bitrate", G_TYPE_UINT64, pacing_rate (s, &d),
      "fec-packets-sent", G_TYPE_UINT64, s->fec_sent,
      "twcc-events", G_TYPE_UINT64, s->twcc_events,
      "twcc-rejected", G_TYPE_UINT64, s->twcc_rejected,
      "rr-reports", G_TYPE_UINT64, s->rr_reports,
      "pacing-queue-packets", G_TYPE_UINT, packets,
      "pacing-queue-bytes", G_TYPE_UINT64, bytes,
      "pacing-queue-ms", G_TYPE_DOUBLE, (gdouble) drain / GST_MSECOND, NULL);
  gst_structure_foreach (ctrl, copy_field, st);
  gst_structure_free (ctrl);
  return st;
}
