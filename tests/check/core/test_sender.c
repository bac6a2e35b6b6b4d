/* The sender session (rc-sender.h) with hand-driven time, and the
 * controller registry, through a trivial controller that this test adds
 * at run time: its file is this test, its registry line is one call, and
 * rcsim runs it from a scenario without knowing it. */
#include <gst/check/gstcheck.h>
#include "rc-sender.h"
#include "sim.h"

#define MS GST_MSECOND
#define S GST_SECOND

/* ------------------------------------------------ a trivial controller */

/* Sends at its "rate" parameter, or at what the test sets; counts what it
 * is told. */
typedef struct
{
  RcController parent;
  gdouble rate;
  guint64 fec_bps;
  guint64 pacing_cap;
  gboolean keeps_pair;
  guint sent, sent_fec, feedback, packets, reports, ticks;
  guint64 last_index;
  gboolean climb;               /* on_tick raises the rate by 10 % */
  guint fec_results;
} Trivial;

static void
trivial_free (RcController * c)
{
  g_free (c);
}

static void
trivial_on_feedback (RcController * c, const RcFeedback * fb,
    GstClockTime now)
{
  Trivial *t = (Trivial *) c;
  guint i;

  t->feedback++;
  t->packets += fb->n_packets;
  t->reports += fb->n_reports;
  for (i = 0; i < fb->n_packets; i++)
    t->fec_results += fb->packets[i].is_fec;
}

static void
trivial_on_packet_sent (RcController * c, guint64 index, guint size,
    gboolean is_fec, GstClockTime now)
{
  Trivial *t = (Trivial *) c;
  t->sent++;
  t->sent_fec += is_fec;
  t->last_index = index;
}

static void
trivial_on_tick (RcController * c, GstClockTime now)
{
  Trivial *t = (Trivial *) c;

  t->ticks++;
  if (t->climb)
    t->rate *= 1.1;
}

static void
trivial_limit_rate (RcController * c, guint64 bps, GstClockTime now)
{
  Trivial *t = (Trivial *) c;
  t->rate = MIN (t->rate, (gdouble) bps);
}

static RcDecision
trivial_get_decision (RcController * c)
{
  Trivial *t = (Trivial *) c;
  RcDecision d = { 0 };

  d.media_bps = (guint64) t->rate;
  d.fec_bps = t->fec_bps;
  d.pacing_cap_bps = t->pacing_cap;
  d.pacing_cap_keeps_pair = t->keeps_pair;
  d.phase = "fixed";
  d.reason = "a fixed rate";
  return d;
}

static GstStructure *
trivial_get_stats (RcController * c)
{
  Trivial *t = (Trivial *) c;
  return gst_structure_new ("trivial-stats", "ticks", G_TYPE_UINT, t->ticks,
      "feedback-count", G_TYPE_UINT, t->feedback, NULL);
}

static const RcControllerClass trivial_class = {
  trivial_free, trivial_on_feedback, trivial_on_packet_sent, trivial_on_tick,
  trivial_limit_rate, trivial_get_decision, trivial_get_stats
};

static const RcControllerInfo trivial_info;

static GParamSpec **
trivial_params (guint * n)
{
  static GParamSpec *specs[1];

  if (g_once_init_enter (&specs[0]))
    g_once_init_leave (&specs[0], g_param_spec_ref_sink
        (g_param_spec_double ("rate", "Rate", "The rate (bit/s)", 1000,
                1e9, 500000, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)));
  *n = 1;
  return specs;
}

static RcController *
trivial_create (const RcRateLimits * limits, const GstStructure * params)
{
  Trivial *t = g_new0 (Trivial, 1);

  t->parent.klass = &trivial_class;
  t->rate = rc_controller_param_double (&trivial_info, params, "rate");
  return &t->parent;
}

static const RcControllerInfo trivial_info = {
  "trivial", "A fixed rate (test)", trivial_params, trivial_create
};

/* The one registration line; idempotent across tests in one process. */
static void
register_trivial (void)
{
  if (!rc_controller_lookup ("trivial"))
    fail_unless (rc_controller_register (&trivial_info));
}

static Trivial *
trivial_of (RcSender * s)
{
  return (Trivial *) rc_sender_get_controller (s);
}

/* ------------------------------------------------------------ helpers */

static RcSender *
new_sender (const gchar * controller, gboolean pacing)
{
  RcSenderConfig cfg;
  RcSender *s;
  GError *err = NULL;

  rc_sender_config_init (&cfg);
  cfg.controller = rc_controller_lookup (controller);
  fail_unless (cfg.controller != NULL);
  cfg.pacing = pacing;
  cfg.limits.min_bps = 100000;
  cfg.limits.start_bps = 800000;
  /* These tests are about what the session does with feedback, not when
   * it hands it over: each message at once (test_feedback_gather checks
   * the default). */
  cfg.feedback_gather = 0;
  s = rc_sender_new (&cfg, &err);
  fail_unless (s != NULL, "%s", err ? err->message : "");
  rc_sender_config_clear (&cfg);
  return s;
}

static GArray *
actions_new (void)
{
  return g_array_new (FALSE, FALSE, sizeof (RcSenderAction));
}

/* Pushes one 1000-byte packet at `now`, pops everything due, polls. */
static guint
send_one (RcSender * s, GstClockTime now, GArray * actions)
{
  guint n = 0;

  rc_sender_push (s, GUINT_TO_POINTER (1), 1000, RC_SENDER_ITEM_MEDIA, now);
  while (rc_sender_pop (s, now, NULL, NULL))
    n++;
  g_array_set_size (actions, 0);
  rc_sender_poll (s, now, actions);
  return n;
}

/* A TWCC-style result for everything sent so far. */
static void
ack (RcSender * s, GstClockTime now)
{
  RcPacketResult r = { 0 };

  r.seq = 1;
  r.send_ts = now - 30 * MS;
  r.recv_ts = now - 10 * MS;
  r.size = 1000;
  rc_sender_on_packet_results (s, &r, 1, now);
}

/* ------------------------------------------------------------- tests */

/* No feedback at all: hold the start rate after 1 s, back off only after
 * two RTCP report intervals (10 s: the peer may be RTCP-only), then halve
 * every second down to min-bitrate, never below. */
GST_START_TEST (test_no_feedback_hold_then_backoff)
{
  RcSender *s = new_sender ("urcp", FALSE);
  GArray *a = actions_new ();
  GstClockTime t;
  RcDecision d;
  gboolean warned = FALSE;
  guint i;

  for (t = 0; t <= 9 * S; t += 10 * MS) {
    send_one (s, t, a);
    for (i = 0; i < a->len; i++)
      if (g_array_index (a, RcSenderAction, i).kind ==
          RC_SENDER_WARN_NO_FEEDBACK) {
        fail_if (warned, "warned twice");
        warned = TRUE;
        fail_unless (t > 5 * S && t <= 5 * S + 10 * MS, "warned at %"
            GST_TIME_FORMAT, GST_TIME_ARGS (t));
      }
  }
  fail_unless (warned);
  d = rc_sender_get_decision (s);
  fail_unless_equals_string (d.phase, "hold");
  fail_unless_equals_int (rc_sender_get_feedback_state (s),
      RC_SENDER_FEEDBACK_HOLD);
  fail_unless_equals_uint64 (d.media_bps, 800000);
  for (; t <= 11 * S; t += 10 * MS)
    send_one (s, t, a);
  d = rc_sender_get_decision (s);
  fail_unless_equals_string (d.phase, "backoff");
  fail_unless (d.media_bps < 800000 * 0.6 && d.media_bps > 800000 * 0.4,
      "after 1 s of backoff: %" G_GUINT64_FORMAT, d.media_bps);
  /* Only the decision is capped: the controller keeps its rate, which
   * the recovery returns to. */
  fail_unless_equals_uint64 (rc_controller_get_decision
      (rc_sender_get_controller (s)).media_bps, 800000);
  for (; t <= 14 * S; t += 10 * MS)
    send_one (s, t, a);
  fail_unless_equals_string (rc_sender_get_decision (s).phase, "backoff");
  fail_unless_equals_uint64 (rc_sender_get_decision (s).media_bps, 100000);
  fail_unless_equals_uint64 (rc_sender_get_target (s), 100000);
  /* 15 s without any report: the circuit breaker (RFC 8083 sec. 4.1). */
  for (; t <= 20 * S; t += 10 * MS)
    send_one (s, t, a);
  fail_unless_equals_string (rc_sender_get_decision (s).phase,
      "circuit-breaker");
  fail_unless_equals_uint64 (rc_sender_get_decision (s).media_bps, 100000);
  g_array_unref (a);
  rc_sender_free (s);
}

GST_END_TEST;

/* Per-packet feedback, then silence while sending: hold at 1 s, back off at
 * 2 s; feedback returns: the cap doubles every 500 ms back to the
 * controller's rate, which the outage left alone. */
GST_START_TEST (test_feedback_stops_and_returns)
{
  RcSender *s;
  GArray *a = actions_new ();
  GstClockTime t;
  guint64 low;

  register_trivial ();
  s = new_sender ("trivial", FALSE);
  for (t = 0; t < 1 * S; t += 10 * MS) {
    send_one (s, t, a);
    if (t % (50 * MS) == 0 && t > 0)
      ack (s, t);
  }
  fail_unless_equals_int (rc_sender_get_feedback_state (s),
      RC_SENDER_FEEDBACK_OK);
  /* Last feedback at 950 ms. */
  for (; t <= 2550 * MS; t += 10 * MS)
    send_one (s, t, a);
  fail_unless_equals_int (rc_sender_get_feedback_state (s),
      RC_SENDER_FEEDBACK_HOLD);
  fail_unless_equals_uint64 (rc_sender_get_decision (s).media_bps, 500000);
  /* Held: a controller that climbs on its own timer is capped. */
  trivial_of (s)->climb = TRUE;
  send_one (s, t, a);
  t += 200 * MS;
  send_one (s, t, a);
  fail_unless (trivial_of (s)->rate > 500000);
  fail_unless_equals_uint64 (rc_sender_get_decision (s).media_bps, 500000);
  trivial_of (s)->climb = FALSE;
  trivial_of (s)->rate = 500000;
  for (; t <= 4 * S; t += 10 * MS)
    send_one (s, t, a);
  fail_unless_equals_int (rc_sender_get_feedback_state (s),
      RC_SENDER_FEEDBACK_BACKOFF);
  low = rc_sender_get_decision (s).media_bps;
  fail_unless (low < 500000 * 0.6, "backed off only to %" G_GUINT64_FORMAT,
      low);
  ack (s, t);
  send_one (s, t, a);
  fail_unless_equals_int (rc_sender_get_feedback_state (s),
      RC_SENDER_FEEDBACK_RECOVER);
  fail_unless_equals_string (rc_sender_get_decision (s).phase, "recover");
  fail_unless_equals_uint64 (rc_sender_get_decision (s).media_bps, low);
  fail_unless_equals_uint64 (trivial_of (s)->rate, 500000);
  /* One doubling (four quarter steps) later, with feedback flowing: twice
   * as high. */
  for (t += 10 * MS; t <= 4520 * MS; t += 10 * MS) {
    send_one (s, t, a);
    if (t % (50 * MS) == 0)
      ack (s, t);
  }
  fail_unless (rc_sender_get_decision (s).media_bps >= 2 * low * 0.97,
      "%" G_GUINT64_FORMAT " after 500 ms, from %" G_GUINT64_FORMAT,
      rc_sender_get_decision (s).media_bps, low);
  for (; t <= 6 * S; t += 10 * MS) {
    send_one (s, t, a);
    if (t % (50 * MS) == 0)
      ack (s, t);
  }
  fail_unless_equals_int (rc_sender_get_feedback_state (s),
      RC_SENDER_FEEDBACK_OK);
  fail_unless_equals_string (rc_sender_get_decision (s).phase, "fixed");
  fail_unless_equals_uint64 (rc_sender_get_decision (s).media_bps, 500000);
  g_array_unref (a);
  rc_sender_free (s);
}

GST_END_TEST;

/* A source that pauses gets no feedback because it sends nothing: that is
 * no reason to hold or back off. */
GST_START_TEST (test_pause_is_not_silence)
{
  RcSender *s;
  GArray *a = actions_new ();
  GstClockTime t;

  register_trivial ();
  s = new_sender ("trivial", FALSE);
  for (t = 0; t < 2 * S; t += 10 * MS) {
    send_one (s, t, a);
    if (t % (50 * MS) == 0 && t > 0)
      ack (s, t);
  }
  ack (s, t);                   /* covers the last packets */
  for (; t < 30 * S; t += 100 * MS) {
    g_array_set_size (a, 0);
    rc_sender_poll (s, t, a);
    fail_unless_equals_int (rc_sender_get_feedback_state (s),
        RC_SENDER_FEEDBACK_OK);
  }
  /* Sending again: the clock starts at the first new packet. */
  send_one (s, t, a);
  fail_unless_equals_int (rc_sender_get_feedback_state (s),
      RC_SENDER_FEEDBACK_OK);
  fail_unless_equals_uint64 (rc_sender_get_decision (s).media_bps, 500000);
  g_array_unref (a);
  rc_sender_free (s);
}

GST_END_TEST;

/* An RR block on stream 1234 whose extended highest sequence number is
 * `seq`. */
static RcReportBlock
rr_seq (guint32 seq)
{
  RcReportBlock b = { 0 };

  b.kind = RC_REPORT_RR;
  b.media_ssrc = 1234;
  b.rr.ext_highest_seq = seq;
  b.rr.jitter = GST_CLOCK_TIME_NONE;
  b.rr.rtt = GST_CLOCK_TIME_NONE;
  return b;
}

typedef struct
{
  GstClockTime tripped_at, reset_at;
  guint trips, resets;
  guint64 admitted, refused;
} BreakerRun;

/* Offers one 1000-byte packet through rc_sender_admit() at `now`, sends
 * what is due, polls, and notes the breaker's actions. */
static void
offer_one (RcSender * s, GstClockTime now, GArray * a, BreakerRun * r)
{
  guint i;

  if (rc_sender_admit (s, 1000, RC_SENDER_ITEM_MEDIA, now)) {
    r->admitted++;
    send_one (s, now, a);
  } else {
    r->refused++;
    g_array_set_size (a, 0);
    rc_sender_poll (s, now, a);
  }
  for (i = 0; i < a->len; i++) {
    RcSenderAction *x = &g_array_index (a, RcSenderAction, i);
    if (x->kind == RC_SENDER_BREAKER_TRIPPED) {
      r->trips++;
      r->tripped_at = now;
    } else if (x->kind == RC_SENDER_BREAKER_RESET) {
      r->resets++;
      r->reset_at = now;
    }
  }
}

/* The time the decision first reaches `bps` at or after `from`, feeding
 * per-packet results every 50 ms; NONE if not by `until`. */
static GstClockTime
time_to_reach (RcSender * s, GstClockTime * t, GstClockTime until,
    guint64 bps, GArray * a, BreakerRun * r)
{
  for (; *t <= until; *t += 10 * MS) {
    offer_one (s, *t, a, r);
    if (*t % (50 * MS) == 0)
      ack (s, *t);
    if (rc_sender_get_decision (s).media_bps >= bps)
      return *t;
  }
  return GST_CLOCK_TIME_NONE;
}

/* Transport-wide feedback stops for 30 s (RFC 8083 sec. 4.1): the back-off
 * takes the rate down first; at 3 x 5 s the breaker trips once, the rate is
 * at the floor and packets beyond twice the floor are refused. Feedback
 * returns: the breaker resets and the rate is back to 90 % of what it was
 * within 5 s. */
GST_START_TEST (test_breaker_twcc_silence)
{
  RcSender *s;
  GArray *a = actions_new ();
  BreakerRun r = { 0 };
  RcSenderBreaker b;
  GstClockTime t, back, last_ack = 0;
  guint64 admitted = 0;

  register_trivial ();
  s = new_sender ("trivial", FALSE);
  for (t = 0; t <= 5 * S; t += 10 * MS) {
    offer_one (s, t, a, &r);
    if (t % (50 * MS) == 0 && t > 0)
      ack (s, (last_ack = t));
  }
  fail_unless_equals_uint64 (rc_sender_get_decision (s).media_bps, 500000);
  /* Silence from 5 s; the first packet not confirmed left at 5.01 s. A
   * packet of 1000 bytes every 10 ms is 800 kbit/s offered. */
  for (; t <= 35 * S; t += 10 * MS) {
    offer_one (s, t, a, &r);
    if (t == 19 * S) {
      fail_unless_equals_int (r.trips, 0);
      fail_unless_equals_uint64 (r.refused, 0);
    }
    if (t == 25 * S)
      admitted = r.admitted;
  }
  fail_unless_equals_int (r.trips, 1);
  fail_unless (r.tripped_at > last_ack + 15 * S &&
      r.tripped_at <= last_ack + 15 * S + 30 * MS, "tripped at %"
      GST_TIME_FORMAT, GST_TIME_ARGS (r.tripped_at));
  fail_unless_equals_int (rc_sender_get_feedback_state (s),
      RC_SENDER_FEEDBACK_TRIPPED);
  fail_unless_equals_uint64 (rc_sender_get_decision (s).media_bps, 100000);
  fail_unless_equals_uint64 (rc_sender_get_target (s), 100000);
  /* 25-35 s: twice the floor (200 kbit/s) of 1000-byte packets is 25/s. */
  admitted = r.admitted - admitted;
  fail_unless (admitted >= 240 && admitted <= 260, "%" G_GUINT64_FORMAT
      " admitted in 10 s", admitted);
  rc_sender_get_breaker (s, &b);
  fail_unless (b.tripped);
  fail_unless_equals_uint64 (b.rate_before, 500000);
  fail_unless_equals_uint64 (b.floor, 100000);
  fail_unless_equals_int (b.trips, 1);
  fail_unless_equals_uint64 (b.dropped_packets, r.refused);
  fail_unless (strstr (b.reason, "no reports") != NULL);
  fail_unless_equals_uint64 (b.timeout, 15 * S);

  /* Feedback is back at 35 s. */
  back = t;
  fail_unless (time_to_reach (s, &t, back + 5 * S, 450000, a, &r) !=
      GST_CLOCK_TIME_NONE, "not back at 90 %% in 5 s: %" G_GUINT64_FORMAT,
      rc_sender_get_decision (s).media_bps);
  fail_unless_equals_int (r.resets, 1);
  fail_unless (r.reset_at >= back && r.reset_at <= back + 50 * MS);
  /* From the floor to 90 % of 500 kbit/s is 2.2 doublings of 500 ms. */
  fail_unless (t - back >= 1000 * MS, "back too fast: %" GST_TIME_FORMAT,
      GST_TIME_ARGS (t - back));
  rc_sender_get_breaker (s, &b);
  fail_unless (!b.tripped);
  r.refused = 0;
  time_to_reach (s, &t, back + 8 * S, G_MAXUINT64, a, &r);
  fail_unless_equals_int (rc_sender_get_feedback_state (s),
      RC_SENDER_FEEDBACK_OK);
  fail_unless_equals_uint64 (rc_sender_get_decision (s).media_bps, 500000);
  fail_unless_equals_uint64 (r.refused, 0);
  fail_unless_equals_int (r.trips, 1);
  g_array_unref (a);
  rc_sender_free (s);
}

GST_END_TEST;

/* A peer that sends only receiver reports, every 5 s: never taken for a
 * silent one; silent for 30 s: trips 15 s after the first packet no report
 * confirmed; a report whose sequence number grew resets it. */
GST_START_TEST (test_breaker_rr_only)
{
  RcSender *s;
  GArray *a = actions_new ();
  BreakerRun r = { 0 };
  RcReportBlock b;
  GstClockTime t, last_report = 0;
  guint32 seq = 0;

  register_trivial ();
  s = new_sender ("trivial", FALSE);
  rc_sender_set_ssrc (s, 1234);
  for (t = 0; t <= 60 * S; t += 10 * MS) {
    offer_one (s, t, a, &r);
    seq++;
    if (t % (5 * S) == 0 && t > 0) {
      b = rr_seq (seq);
      rc_sender_on_reports (s, &b, 1, (last_report = t));
    }
  }
  fail_unless_equals_int (r.trips, 0);
  fail_unless_equals_string (rc_sender_get_decision (s).phase, "fixed");
  for (; t <= 90 * S; t += 10 * MS)
    offer_one (s, t, a, &r);
  fail_unless_equals_int (r.trips, 1);
  fail_unless (r.tripped_at > last_report + 15 * S &&
      r.tripped_at <= last_report + 15 * S + 30 * MS, "tripped at %"
      GST_TIME_FORMAT, GST_TIME_ARGS (r.tripped_at));
  fail_unless_equals_uint64 (rc_sender_get_decision (s).media_bps, 100000);
  /* Back: one report, then the ramp with none in between. */
  b = rr_seq (seq + 500);
  rc_sender_on_reports (s, &b, 1, t);
  offer_one (s, t, a, &r);
  fail_unless_equals_int (r.resets, 1);
  last_report = t;
  for (; t <= last_report + 5 * S; t += 10 * MS) {
    offer_one (s, t, a, &r);
    if (rc_sender_get_decision (s).media_bps >= 450000)
      break;
  }
  fail_unless (rc_sender_get_decision (s).media_bps >= 450000,
      "not back at 90 %% in 5 s: %" G_GUINT64_FORMAT,
      rc_sender_get_decision (s).media_bps);
  g_array_unref (a);
  rc_sender_free (s);
}

GST_END_TEST;

/* Reports keep coming but their highest sequence number stands still
 * (RFC 8083 sec. 4.2, media timeout): trips, naming that reason; per-packet
 * results that report every packet lost count the same. */
GST_START_TEST (test_breaker_media_timeout)
{
  RcSender *s;
  GArray *a = actions_new ();
  BreakerRun r = { 0 };
  RcSenderBreaker br;
  RcReportBlock b;
  RcPacketResult lost = { 0 };
  GstClockTime t;

  register_trivial ();
  s = new_sender ("trivial", FALSE);
  rc_sender_set_ssrc (s, 1234);
  for (t = 0; t <= 30 * S; t += 10 * MS) {
    offer_one (s, t, a, &r);
    if (t % (5 * S) == 0 && t > 0) {
      b = rr_seq (777);
      rc_sender_on_reports (s, &b, 1, t);
    }
  }
  fail_unless_equals_int (r.trips, 1);
  /* The first report (at 5 s) counts as media arriving. */
  fail_unless (r.tripped_at > 20 * S && r.tripped_at <= 20 * S + 30 * MS);
  rc_sender_get_breaker (s, &br);
  fail_unless (strstr (br.reason, "no media arriving") != NULL, "%s",
      br.reason);
  rc_sender_free (s);

  /* The same with transport-wide feedback that reports every packet lost. */
  r = (BreakerRun) {
  0};
  s = new_sender ("trivial", FALSE);
  lost.seq = 1;
  lost.send_ts = 0;
  lost.recv_ts = GST_CLOCK_TIME_NONE;
  lost.size = 1000;
  lost.lost = TRUE;
  for (t = 0; t <= 20 * S; t += 10 * MS) {
    offer_one (s, t, a, &r);
    if (t % (50 * MS) == 0 && t > 0)
      rc_sender_on_packet_results (s, &lost, 1, t);
  }
  fail_unless_equals_int (r.trips, 1);
  fail_unless (r.tripped_at > 15 * S && r.tripped_at <= 15 * S + 30 * MS);
  rc_sender_get_breaker (s, &br);
  fail_unless (strstr (br.reason, "no media arriving") != NULL);
  g_array_unref (a);
  rc_sender_free (s);
}

GST_END_TEST;

/* Tripped and reset between two polls: the poll reports both, in order,
 * so an application never sees a reset without the trip. */
GST_START_TEST (test_breaker_trip_and_reset_in_one_poll)
{
  RcSender *s;
  GArray *a = actions_new ();
  GstClockTime t;

  register_trivial ();
  s = new_sender ("trivial", FALSE);
  for (t = 0; t <= 15 * S; t += 10 * MS)
    send_one (s, t, a);
  fail_unless_equals_int (rc_sender_get_feedback_state (s),
      RC_SENDER_FEEDBACK_BACKOFF);
  /* The admission check trips it, feedback resets it, then the poll. */
  t += 10 * MS;
  fail_unless (rc_sender_admit (s, 1000, RC_SENDER_ITEM_MEDIA, t));
  fail_unless_equals_int (rc_sender_get_feedback_state (s),
      RC_SENDER_FEEDBACK_TRIPPED);
  ack (s, t);
  g_array_set_size (a, 0);
  rc_sender_poll (s, t, a);
  fail_unless (a->len >= 2);
  {
    gint trip = -1, reset = -1;
    guint i;
    for (i = 0; i < a->len; i++) {
      RcSenderActionKind k = g_array_index (a, RcSenderAction, i).kind;
      if (k == RC_SENDER_BREAKER_TRIPPED)
        trip = i;
      else if (k == RC_SENDER_BREAKER_RESET)
        reset = i;
    }
    fail_unless (trip >= 0 && reset > trip, "trip %d, reset %d", trip, reset);
  }
  g_array_unref (a);
  rc_sender_free (s);
}

GST_END_TEST;

/* circuit_breaker off: the back-off still takes the rate to min-bitrate,
 * but nothing trips and nothing is refused. */
GST_START_TEST (test_breaker_off)
{
  RcSenderConfig cfg;
  RcSender *s;
  GArray *a = actions_new ();
  BreakerRun r = { 0 };
  GstClockTime t;

  register_trivial ();
  rc_sender_config_init (&cfg);
  cfg.controller = rc_controller_lookup ("trivial");
  cfg.limits.min_bps = 100000;
  cfg.circuit_breaker = FALSE;
  s = rc_sender_new (&cfg, NULL);
  rc_sender_config_clear (&cfg);
  for (t = 0; t <= 40 * S; t += 10 * MS)
    offer_one (s, t, a, &r);
  fail_unless_equals_int (r.trips, 0);
  fail_unless_equals_uint64 (r.refused, 0);
  fail_unless_equals_string (rc_sender_get_decision (s).phase, "backoff");
  fail_unless_equals_uint64 (rc_sender_get_decision (s).media_bps, 100000);
  g_array_unref (a);
  rc_sender_free (s);
}

GST_END_TEST;

/* The controller lowers its rate while the recovery ramps (it saw
 * congestion): the ramp ends, and the controller goes on from what was
 * sent, not from its rate before the outage. */
GST_START_TEST (test_recovery_yields_to_congestion)
{
  RcSender *s;
  GArray *a = actions_new ();
  GstClockTime t;
  guint64 cap;

  register_trivial ();
  s = new_sender ("trivial", FALSE);
  trivial_of (s)->rate = 2000000;
  for (t = 0; t < 1 * S; t += 10 * MS) {
    send_one (s, t, a);
    if (t % (50 * MS) == 0 && t > 0)
      ack (s, t);
  }
  for (; t <= 8 * S; t += 10 * MS)
    send_one (s, t, a);
  fail_unless_equals_string (rc_sender_get_decision (s).phase, "backoff");
  ack (s, t);
  send_one (s, t, a);
  cap = rc_sender_get_decision (s).media_bps;
  fail_unless (cap < 200000, "%" G_GUINT64_FORMAT, cap);
  /* Congestion seen: 2 Mbit/s -> 1.5 Mbit/s. */
  trivial_of (s)->rate = 1500000;
  t += 10 * MS;
  ack (s, t);
  send_one (s, t, a);
  fail_unless_equals_int (rc_sender_get_feedback_state (s),
      RC_SENDER_FEEDBACK_OK);
  fail_unless (trivial_of (s)->rate < 2 * cap, "controller at %.0f",
      trivial_of (s)->rate);
  fail_unless_equals_uint64 (rc_sender_get_decision (s).media_bps,
      (guint64) trivial_of (s)->rate);
  g_array_unref (a);
  rc_sender_free (s);
}

GST_END_TEST;

static guint64
find_action (GArray * a, RcSenderActionKind kind)
{
  guint i;
  for (i = 0; i < a->len; i++)
    if (g_array_index (a, RcSenderAction, i).kind == kind)
      return g_array_index (a, RcSenderAction, i).bps;
  return G_MAXUINT64;
}

/* The encoder gets a new target on a change of 2 % or more at once, a
 * smaller one at most once a second; the FEC rate on any change. */
GST_START_TEST (test_encoder_update_policy)
{
  RcSender *s;
  GArray *a = actions_new ();
  Trivial *c;

  register_trivial ();
  s = new_sender ("trivial", FALSE);
  c = trivial_of (s);
  fail_unless_equals_uint64 (rc_sender_get_target (s), 500000);
  rc_sender_poll (s, 0, a);
  fail_unless_equals_int (a->len, 0);

  /* The first change goes out whatever its size. */
  c->rate = 501000;
  g_array_set_size (a, 0);
  rc_sender_poll (s, 10 * MS, a);
  fail_unless_equals_uint64 (find_action (a, RC_SENDER_SET_ENCODER), 501000);
  /* +1 %, 100 ms later: held back. */
  c->rate = 506000;
  g_array_set_size (a, 0);
  rc_sender_poll (s, 110 * MS, a);
  fail_unless_equals_uint64 (find_action (a, RC_SENDER_SET_ENCODER),
      G_MAXUINT64);
  fail_unless_equals_uint64 (rc_sender_get_target (s), 501000);
  /* ... until a second after the last update. */
  g_array_set_size (a, 0);
  rc_sender_poll (s, 1010 * MS, a);
  fail_unless_equals_uint64 (find_action (a, RC_SENDER_SET_ENCODER), 506000);
  /* +5 %: at once. */
  c->rate = 531300;
  g_array_set_size (a, 0);
  rc_sender_poll (s, 1020 * MS, a);
  fail_unless_equals_uint64 (find_action (a, RC_SENDER_SET_ENCODER), 531300);
  /* FEC: asked for on change, once. */
  c->fec_bps = 60000;
  g_array_set_size (a, 0);
  rc_sender_poll (s, 1030 * MS, a);
  fail_unless_equals_uint64 (find_action (a, RC_SENDER_SET_FEC), 60000);
  g_array_set_size (a, 0);
  rc_sender_poll (s, 1040 * MS, a);
  fail_unless_equals_uint64 (find_action (a, RC_SENDER_SET_FEC), G_MAXUINT64);
  /* The pacing rate covers media and FEC. */
  fail_unless_equals_uint64 (rc_sender_get_pacing_rate (s),
      (guint64) ((531300 + 60000) * 1.5));
  g_array_unref (a);
  rc_sender_free (s);
}

GST_END_TEST;

/* Pacing: packets leave in order, spaced at the pacing rate; a marker keeps
 * its place and leaves as soon as it is at the head; only packets get a
 * send index and reach the controller; FEC is reported as FEC. */
GST_START_TEST (test_pacing_queue)
{
  RcSender *s;
  Trivial *c;
  RcSenderItemKind kind;
  guint64 index;
  GstClockTime at;
  guint packets;
  guint64 bytes;

  register_trivial ();
  s = new_sender ("trivial", TRUE);
  c = trivial_of (s);
  /* 500 kbit/s x 1.5: 750 kbit/s, a 1000-byte packet every 10.67 ms. */
  rc_sender_push (s, GUINT_TO_POINTER (1), 1000, RC_SENDER_ITEM_MEDIA, 0);
  rc_sender_push (s, GUINT_TO_POINTER (2), 1000, RC_SENDER_ITEM_MEDIA, 0);
  rc_sender_push (s, GUINT_TO_POINTER (3), 0, RC_SENDER_ITEM_MARKER, 0);
  rc_sender_push (s, GUINT_TO_POINTER (4), 1000, RC_SENDER_ITEM_FEC, 0);
  rc_sender_queue_info (s, 0, &packets, &bytes, NULL);
  fail_unless_equals_int (packets, 3);
  fail_unless_equals_uint64 (bytes, 3000);

  fail_unless_equals_uint64 (rc_sender_next_send (s), 0);
  fail_unless_equals_pointer (rc_sender_pop (s, 0, &kind, &index),
      GUINT_TO_POINTER (1));
  fail_unless_equals_uint64 (index, 0);
  at = rc_sender_next_send (s);
  fail_unless (at > 10 * MS && at < 11 * MS, "next at %" GST_TIME_FORMAT,
      GST_TIME_ARGS (at));
  fail_unless (rc_sender_pop (s, at - 1, NULL, NULL) == NULL);
  fail_unless_equals_pointer (rc_sender_pop (s, at, &kind, &index),
      GUINT_TO_POINTER (2));
  fail_unless_equals_uint64 (index, 1);
  /* The marker: due at once, no index, not counted. */
  fail_unless_equals_uint64 (rc_sender_next_send (s), 0);
  fail_unless_equals_pointer (rc_sender_pop (s, at, &kind, &index),
      GUINT_TO_POINTER (3));
  fail_unless_equals_int (kind, RC_SENDER_ITEM_MARKER);
  fail_unless_equals_uint64 (index, G_MAXUINT64);
  fail_unless_equals_pointer (rc_sender_pop (s, 30 * MS, &kind, &index),
      GUINT_TO_POINTER (4));
  fail_unless_equals_int (kind, RC_SENDER_ITEM_FEC);
  fail_unless_equals_uint64 (index, 2);
  fail_unless_equals_int (c->sent, 3);
  fail_unless_equals_int (c->sent_fec, 1);
  fail_unless_equals_uint64 (c->last_index, 2);
  fail_unless_equals_uint64 (rc_sender_next_send (s), GST_CLOCK_TIME_NONE);

  /* Without a time a packet leaves unreported: no index, no gap. */
  rc_sender_push (s, GUINT_TO_POINTER (6), 1000, RC_SENDER_ITEM_MEDIA, 31 * MS);
  fail_unless_equals_pointer (rc_sender_pop (s, GST_CLOCK_TIME_NONE, &kind,
          &index), GUINT_TO_POINTER (6));
  fail_unless_equals_uint64 (index, G_MAXUINT64);
  fail_unless_equals_int (c->sent, 3);
  rc_sender_push (s, GUINT_TO_POINTER (7), 1000, RC_SENDER_ITEM_MEDIA, 32 * MS);
  fail_unless (rc_sender_pop (s, 100 * MS, &kind, &index) != NULL);
  fail_unless_equals_uint64 (index, 3);

  /* Flush drops what is queued. */
  rc_sender_push (s, GUINT_TO_POINTER (5), 1000, RC_SENDER_ITEM_MEDIA, 40 * MS);
  rc_sender_flush (s, NULL);
  rc_sender_queue_info (s, 40 * MS, &packets, &bytes, NULL);
  fail_unless_equals_int (packets, 0);
  fail_unless_equals_uint64 (bytes, 0);
  rc_sender_free (s);
}

GST_END_TEST;

/* A controller's pacing cap lowers the pacing rate (pacing-factor x the
 * rate) and never raises it. */
GST_START_TEST (test_pacing_cap)
{
  RcSender *s;
  Trivial *c;

  register_trivial ();
  s = new_sender ("trivial", TRUE);
  c = trivial_of (s);
  fail_unless_equals_uint64 (rc_sender_get_pacing_rate (s), 750000);
  c->pacing_cap = 600000;
  fail_unless_equals_uint64 (rc_sender_get_pacing_rate (s), 600000);
  c->pacing_cap = 1000000;
  fail_unless_equals_uint64 (rc_sender_get_pacing_rate (s), 750000);
  rc_sender_free (s);
}

GST_END_TEST;

/* A cap that keeps the pair spaces a frame's first two packets at the
 * uncapped rate and the rest at the cap; a packet queued more than 1 ms
 * after the one before starts the next frame. */
GST_START_TEST (test_pacing_cap_keeps_pair)
{
  RcSender *s;
  Trivial *c;
  GstClockTime at, frame2 = 100 * MS;
  guint i;

  register_trivial ();
  s = new_sender ("trivial", TRUE);
  c = trivial_of (s);
  /* 500 kbit/s x 1.5: a 1000-byte packet every 10.67 ms; capped at
   * 400 kbit/s, every 20 ms. */
  c->pacing_cap = 400000;
  c->keeps_pair = TRUE;
  for (i = 0; i < 3; i++)
    rc_sender_push (s, GUINT_TO_POINTER (i + 1), 1000, RC_SENDER_ITEM_MEDIA,
        i * 10 * GST_USECOND);
  fail_unless_equals_pointer (rc_sender_pop (s, 0, NULL, NULL),
      GUINT_TO_POINTER (1));
  at = rc_sender_next_send (s);
  fail_unless (at > 10 * MS && at < 11 * MS, "second at %" GST_TIME_FORMAT,
      GST_TIME_ARGS (at));
  fail_unless (rc_sender_pop (s, at, NULL, NULL) != NULL);
  fail_unless_equals_uint64 (rc_sender_next_send (s), at + 20 * MS);
  fail_unless (rc_sender_pop (s, at + 20 * MS, NULL, NULL) != NULL);

  /* The next frame: its pair at the uncapped spacing again. */
  for (i = 0; i < 2; i++)
    rc_sender_push (s, GUINT_TO_POINTER (i + 4), 1000, RC_SENDER_ITEM_MEDIA,
        frame2);
  fail_unless_equals_uint64 (rc_sender_next_send (s), frame2);
  fail_unless (rc_sender_pop (s, frame2, NULL, NULL) != NULL);
  at = rc_sender_next_send (s);
  fail_unless (at > frame2 + 10 * MS && at < frame2 + 11 * MS, "second of "
      "the next frame at %" GST_TIME_FORMAT, GST_TIME_ARGS (at));
  fail_unless (rc_sender_pop (s, at, NULL, NULL) != NULL);

  /* Without keeps_pair the cap spaces the first packet too. */
  c->keeps_pair = FALSE;
  for (i = 0; i < 2; i++)
    rc_sender_push (s, GUINT_TO_POINTER (i + 6), 1000, RC_SENDER_ITEM_MEDIA,
        2 * frame2);
  fail_unless (rc_sender_pop (s, 2 * frame2, NULL, NULL) != NULL);
  fail_unless_equals_uint64 (rc_sender_next_send (s), 2 * frame2 + 20 * MS);
  rc_sender_flush (s, NULL);
  rc_sender_free (s);
}

GST_END_TEST;

/* The controller ticks once per RC_CONTROLLER_TICK of polls at most, and
 * poll says when the next tick is due. */
GST_START_TEST (test_tick_cadence)
{
  RcSender *s;
  GArray *a = actions_new ();
  GstClockTime t, next;

  register_trivial ();
  s = new_sender ("trivial", FALSE);
  next = rc_sender_poll (s, 0, a);
  fail_unless_equals_int (trivial_of (s)->ticks, 1);
  fail_unless_equals_uint64 (next, RC_CONTROLLER_TICK);
  for (t = MS; t < 1 * S; t += MS)
    rc_sender_poll (s, t, a);
  fail_unless_equals_int (trivial_of (s)->ticks, 10);
  /* A late poll runs one tick and keeps the grid. */
  next = rc_sender_poll (s, 1550 * MS, a);
  fail_unless_equals_int (trivial_of (s)->ticks, 11);
  fail_unless_equals_uint64 (next, 1600 * MS);
  g_array_unref (a);
  rc_sender_free (s);
}

GST_END_TEST;

static RcReportBlock
rr_block (guint32 media_ssrc, gdouble fraction_lost)
{
  RcReportBlock b = { 0 };

  b.kind = RC_REPORT_RR;
  b.reporter_ssrc = 99;
  b.media_ssrc = media_ssrc;
  b.rr.fraction_lost = fraction_lost;
  b.rr.jitter_units = 900;
  b.rr.jitter = GST_CLOCK_TIME_NONE;
  b.rr.rtt = 40 * MS;
  return b;
}

/* Receiver reports only stand in for transport-wide feedback: ignored
 * while it is fresh (3 s), used when it is not; blocks about another
 * stream are dropped; other blocks pass. */
GST_START_TEST (test_report_arbitration)
{
  RcSender *s;
  Trivial *c;
  RcReportBlock b[3];
  GstStructure *st;
  guint64 rr;

  register_trivial ();
  s = new_sender ("trivial", FALSE);
  c = trivial_of (s);
  rc_sender_set_ssrc (s, 1234);
  b[0] = rr_block (1234, 0.1);
  b[1] = rr_block (4321, 0.5);
  b[2] = rr_block (1234, 0.0);
  b[2].kind = RC_REPORT_POST_REPAIR;

  ack (s, 1 * S);
  fail_unless_equals_int (c->feedback, 1);
  rc_sender_on_reports (s, b, 3, 2 * S);
  /* TWCC fresh: the RR is dropped, the XR block passes. */
  fail_unless_equals_int (c->feedback, 2);
  fail_unless_equals_int (c->reports, 1);
  rc_sender_on_reports (s, b, 2, 2500 * MS);
  fail_unless_equals_int (c->feedback, 2);
  /* TWCC stale: our RR is used, the other stream's is not. */
  rc_sender_on_reports (s, b, 3, 5 * S);
  fail_unless_equals_int (c->feedback, 3);
  fail_unless_equals_int (c->reports, 3);
  st = rc_sender_get_stats (s, 5 * S);
  fail_unless (gst_structure_get_uint64 (st, "rr-reports", &rr));
  fail_unless_equals_uint64 (rr, 3);
  gst_structure_free (st);
  /* A TMMBN names the owner of its entry, not our stream: it passes. */
  b[0].kind = RC_REPORT_TMMBN;
  b[0].media_ssrc = 99;
  rc_sender_on_reports (s, b, 1, 6 * S);
  fail_unless_equals_int (c->reports, 4);
  rc_sender_free (s);
}

GST_END_TEST;

/* Transport-wide messages that arrive together (a stock rtpbin receiver
 * sends one per frame, several at once) reach the controller as one, at
 * the end of the gather time after the first: poll says when. One that
 * comes later starts the next batch; one that comes after an unpolled due
 * time first hands over the batch before it. */
GST_START_TEST (test_feedback_gather)
{
  RcSenderConfig cfg;
  RcSender *s;
  RcPacketResult r[3] = { {0} };
  GArray *a = actions_new ();
  guint i;

  register_trivial ();
  rc_sender_config_init (&cfg);
  cfg.controller = rc_controller_lookup ("trivial");
  fail_unless_equals_uint64 (cfg.feedback_gather, 5 * MS);
  s = rc_sender_new (&cfg, NULL);
  rc_sender_config_clear (&cfg);
  for (i = 0; i < 3; i++) {
    r[i].seq = i;
    r[i].send_ts = i * 10 * MS;
    r[i].recv_ts = 40 * MS + i * 10 * MS;
    r[i].size = 1000;
  }
  fail_unless_equals_uint64 (rc_sender_feedback_due (s), GST_CLOCK_TIME_NONE);
  rc_sender_on_packet_results (s, r, 2, 100 * MS);
  rc_sender_on_packet_results (s, r + 2, 1, 100 * MS + 300 * GST_USECOND);
  fail_unless_equals_int (trivial_of (s)->feedback, 0);
  fail_unless_equals_uint64 (rc_sender_feedback_due (s), 105 * MS);
  /* Not due yet: poll says when to come back. */
  fail_unless (rc_sender_poll (s, 104 * MS, a) <= 105 * MS);
  fail_unless_equals_int (trivial_of (s)->feedback, 0);
  rc_sender_poll (s, 105 * MS, a);
  fail_unless_equals_int (trivial_of (s)->feedback, 1);
  fail_unless_equals_int (trivial_of (s)->packets, 3);
  fail_unless_equals_uint64 (rc_sender_feedback_due (s), GST_CLOCK_TIME_NONE);

  /* Nobody polls at 155 ms: the message at 160 ms hands over the one from
   * 150 ms first, and waits itself. */
  rc_sender_on_packet_results (s, r, 1, 150 * MS);
  rc_sender_on_packet_results (s, r + 1, 1, 160 * MS);
  fail_unless_equals_int (trivial_of (s)->feedback, 2);
  fail_unless_equals_int (trivial_of (s)->packets, 4);
  fail_unless_equals_uint64 (rc_sender_feedback_due (s), 165 * MS);
  rc_sender_poll (s, 170 * MS, a);
  fail_unless_equals_int (trivial_of (s)->feedback, 3);
  rc_sender_free (s);

  /* feedback_gather 0: each message at once. */
  rc_sender_config_init (&cfg);
  cfg.controller = rc_controller_lookup ("trivial");
  cfg.feedback_gather = 0;
  s = rc_sender_new (&cfg, NULL);
  rc_sender_config_clear (&cfg);
  rc_sender_on_packet_results (s, r, 2, 100 * MS);
  rc_sender_on_packet_results (s, r + 2, 1, 100 * MS);
  fail_unless_equals_int (trivial_of (s)->feedback, 2);
  fail_unless_equals_uint64 (rc_sender_feedback_due (s), GST_CLOCK_TIME_NONE);
  g_array_unref (a);
  rc_sender_free (s);
}

GST_END_TEST;

/* Per-packet results of another payload type than the media's are repair
 * packets. */
GST_START_TEST (test_fec_results_marked)
{
  RcSender *s;
  RcPacketResult r[3] = { {0} };
  guint i;

  register_trivial ();
  s = new_sender ("trivial", FALSE);
  for (i = 0; i < 3; i++) {
    r[i].seq = i;
    r[i].send_ts = 0;
    r[i].recv_ts = 20 * MS;
    r[i].size = 1000;
  }
  r[0].pt = 96;
  r[1].pt = 100;
  r[2].pt = -1;
  /* Media payload type unknown: nothing is marked. */
  rc_sender_on_packet_results (s, r, 3, 50 * MS);
  fail_unless_equals_int (trivial_of (s)->fec_results, 0);
  rc_sender_set_media_pt (s, 96);
  rc_sender_on_packet_results (s, r, 3, 100 * MS);
  fail_unless_equals_int (trivial_of (s)->fec_results, 1);
  fail_unless (r[1].is_fec && !r[0].is_fec && !r[2].is_fec);
  rc_sender_free (s);
}

GST_END_TEST;

/* rtpsession stamps local-ts on the system clock: moved onto the caller's
 * timebase. Send times before it began become NONE. */
GST_START_TEST (test_twcc_translation)
{
  GArray *r = g_array_new (FALSE, TRUE, sizeof (RcPacketResult));
  RcPacketResult p = { 0 };
  GstClockTime sys_now = 600 * S, now = 2 * S;

  p.send_ts = sys_now - 50 * MS;
  g_array_append_val (r, p);
  p.send_ts = sys_now - 3 * S;  /* before running time 0 */
  g_array_append_val (r, p);
  rc_twcc_translate_send_ts (r, now, sys_now);
  fail_unless_equals_uint64 (g_array_index (r, RcPacketResult, 0).send_ts,
      now - 50 * MS);
  fail_unless_equals_uint64 (g_array_index (r, RcPacketResult, 1).send_ts,
      GST_CLOCK_TIME_NONE);
  /* Already on running time: untouched. */
  g_array_index (r, RcPacketResult, 0).send_ts = now - 20 * MS;
  g_array_set_size (r, 1);
  rc_twcc_translate_send_ts (r, now, sys_now);
  fail_unless_equals_uint64 (g_array_index (r, RcPacketResult, 0).send_ts,
      now - 20 * MS);
  g_array_unref (r);
}

GST_END_TEST;

/* Registry: one table, names unique and usable as prefixes, parameters
 * found by their "<controller>-<parameter>" keys and range-checked. */
GST_START_TEST (test_registry)
{
  const RcControllerInfo *const *l;
  const RcControllerInfo *info = NULL;
  static const RcControllerInfo bad_name = {
    "Bad-Name", "", NULL, trivial_create
  };
  GstStructure *all = gst_structure_new_empty ("p"), *own;
  GError *err = NULL;
  GValue v = G_VALUE_INIT;
  guint n, i, j;
  gboolean found = FALSE;

  register_trivial ();
  fail_if (rc_controller_register (&trivial_info), "registered twice");
  fail_if (rc_controller_register (&bad_name));
  l = rc_controller_list (&n);
  fail_unless (n >= 3);
  fail_unless_equals_string (l[0]->name, "urcp");
  for (i = 0; i < n; i++) {
    found |= l[i] == &trivial_info;
    for (j = 0; j < i; j++)
      fail_if (g_ascii_strcasecmp (l[i]->name, l[j]->name) == 0);
  }
  fail_unless (found);
  fail_unless (rc_controller_lookup ("TRIVIAL") == &trivial_info);
  fail_unless (rc_controller_lookup ("nosuch") == NULL);

  fail_unless (rc_controller_find_key ("trivial-rate", &info) != NULL);
  fail_unless (info == &trivial_info);
  fail_unless (rc_controller_find_key ("urcp-beta", &info) != NULL);
  fail_unless (rc_controller_find_key ("urcp-rate", NULL) == NULL);
  fail_unless (rc_controller_params_set_key_string (all, "trivial-rate",
          "250000", &err));
  fail_unless (rc_controller_params_set_key_string (all, "urcp-beta", "0.5",
          &err));
  fail_if (rc_controller_params_set_key_string (all, "urcp-beta", "2.0",
          &err));
  fail_unless (err && strstr (err->message, "out of range"));
  g_clear_error (&err);
  g_value_init (&v, G_TYPE_STRING);
  g_value_set_string (&v, "fast");
  fail_if (rc_controller_params_set_key (all, "trivial-rate", &v, &err));
  g_clear_error (&err);
  g_value_unset (&v);
  own = rc_controller_params_extract (&trivial_info, all);
  fail_unless_equals_int (gst_structure_n_fields (own), 1);
  fail_unless_equals_float (rc_controller_param_double (&trivial_info, own,
          "rate"), 250000);
  fail_unless_equals_float (rc_controller_param_double (&trivial_info, NULL,
          "rate"), 500000);
  gst_structure_free (own);
  gst_structure_free (all);
}

GST_END_TEST;

/* The trivial controller runs in rcsim from a scenario, with its
 * parameter from the scenario's key, like any built-in one. */
GST_START_TEST (test_registered_controller_in_rcsim)
{
  const gchar *text = "[scenario]\nduration=20\n"
      "[link]\ncapacity=2000000\ndelay=20000000\n"
      "[flow:video]\ncontroller=trivial\ntrivial-rate=400000\n";
  SimScenario *scen;
  GError *err = NULL;
  Sim *sim;
  SimWindow w;
  GString *json = g_string_new (NULL);

  register_trivial ();
  scen = sim_scenario_load_data (text, "trivial", NULL, &err);
  fail_unless (scen != NULL, "%s", err ? err->message : "");
  sim = sim_new (scen, 1);
  sim_run_until (sim, 20 * S);
  sim_flow_window (sim, 0, 5 * S, 20 * S, &w);
  /* 400 kbit/s of media plus RTP and IP/UDP overhead on the wire. */
  fail_unless (w.goodput_bps > 380000 && w.goodput_bps < 440000,
      "goodput %.0f", w.goodput_bps);
  fail_unless (trivial_of (sim_flow_sender (sim, 0))->packets > 0);
  fail_unless (trivial_of (sim_flow_sender (sim, 0))->ticks >= 190);
  sim_run (sim);
  sim_metrics_write_json (sim_get_metrics (sim), json);
  fail_unless (strstr (json->str, "\"controller\": \"trivial\""));
  g_string_free (json, TRUE);
  sim_free (sim);
  sim_scenario_free (scen);
}

GST_END_TEST;

static Suite *
sender_suite (void)
{
  Suite *s = suite_create ("sender");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_no_feedback_hold_then_backoff);
  tcase_add_test (tc, test_feedback_stops_and_returns);
  tcase_add_test (tc, test_pause_is_not_silence);
  tcase_add_test (tc, test_breaker_twcc_silence);
  tcase_add_test (tc, test_breaker_rr_only);
  tcase_add_test (tc, test_breaker_media_timeout);
  tcase_add_test (tc, test_breaker_trip_and_reset_in_one_poll);
  tcase_add_test (tc, test_breaker_off);
  tcase_add_test (tc, test_recovery_yields_to_congestion);
  tcase_add_test (tc, test_encoder_update_policy);
  tcase_add_test (tc, test_pacing_queue);
  tcase_add_test (tc, test_pacing_cap);
  tcase_add_test (tc, test_pacing_cap_keeps_pair);
  tcase_add_test (tc, test_tick_cadence);
  tcase_add_test (tc, test_report_arbitration);
  tcase_add_test (tc, test_feedback_gather);
  tcase_add_test (tc, test_fec_results_marked);
  tcase_add_test (tc, test_twcc_translation);
  tcase_add_test (tc, test_registry);
  tcase_add_test (tc, test_registered_controller_in_rcsim);
  return s;
}

GST_CHECK_MAIN (sender);
