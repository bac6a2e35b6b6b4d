/* C-NADU's sender side (rc-cnadu, seed 003 Algorithm 2): each branch from
 * hand-made receiver reports, the fallback on a stock receiver, and that
 * the sender session hands it RRs while transport-wide feedback is fresh.
 * Fixed times only. */
#include <gst/check/gstcheck.h>
#include "rc-controller.h"
#include "rc-sender.h"

#define MS GST_MSECOND
#define S GST_SECOND
#define SSRC 1234

static RcController *
cnadu (guint64 start)
{
  RcRateLimits l;
  RcController *c;
  GError *err = NULL;

  rc_rate_limits_init (&l);
  l.start_bps = start;
  c = rc_controller_new (rc_controller_lookup ("cnadu"), &l, NULL, &err);
  fail_unless (c != NULL, "%s", err ? err->message : "");
  return c;
}

static gdouble
rate (RcController * c)
{
  return (gdouble) rc_controller_get_decision (c).media_bps;
}

static gdouble
stat_double (RcController * c, const gchar * f)
{
  GstStructure *st = rc_controller_get_stats (c);
  gdouble v = -1;
  guint u;
  guint64 t;

  if (!gst_structure_get_double (st, f, &v)) {
    if (gst_structure_get_uint (st, f, &u))
      v = u;
    else if (gst_structure_get_uint64 (st, f, &t))
      v = (gdouble) t;
  }
  gst_structure_free (st);
  return v;
}

/* `n` media packets of 1000 bytes sent over [t, t + dt). */
static void
sent (RcController * c, guint n, GstClockTime t, GstClockTime dt)
{
  guint i;
  static guint64 index;

  for (i = 0; i < n; i++)
    rc_controller_on_packet_sent (c, index++, 1000, FALSE, t + dt * i / n);
}

typedef struct
{
  guint32 hsn;
  gint32 cum_lost;
  gdouble fraction;
  gboolean with_receiver;       /* rcreceiver's blocks too */
  guint32 discarded, discarded_bytes;
  guint16 pd_ms, nsn;
} Report;

static void
report (RcController * c, const Report * r, GstClockTime now)
{
  RcReportBlock b[4] = { {0} };
  RcFeedback fb = { 0 };
  guint n = 1;

  b[0].kind = RC_REPORT_RR;
  b[0].media_ssrc = SSRC;
  b[0].rr.ext_highest_seq = r->hsn;
  b[0].rr.cumulative_lost = r->cum_lost;
  b[0].rr.fraction_lost = r->fraction;
  b[0].rr.rtt = 100 * MS;
  b[0].rr.jitter = GST_CLOCK_TIME_NONE;
  if (r->with_receiver) {
    b[1].kind = RC_REPORT_DISCARD;
    b[1].discard.packets = r->discarded;
    b[2].kind = RC_REPORT_DISCARD_BYTES;
    b[2].discard_bytes.bytes = r->discarded_bytes;
    b[3].kind = RC_REPORT_NADU;
    b[3].nadu.playout_delay_ms = r->pd_ms;
    b[3].nadu.nsn = r->nsn;
    n = 4;
  }
  fb.reports = b;
  fb.n_reports = n;
  rc_controller_on_feedback (c, &fb, now);
}

/* Line 18: no loss, no discards: x delay_max / delay_HSN, delay_HSN =
 * PD_NSN + BFL + RTT/2. 100 packets in 1 s: 10 ms apart; NSN 20 behind
 * HSN: BFL = 21 x 10 ms; PD 40 ms, RTT/2 50 ms: 300 ms; 400/300. */
GST_START_TEST (test_delay_step)
{
  RcController *c = cnadu (500000);
  Report r = { 1000, 0, 0, TRUE, 0, 0, 40, 980 };

  report (c, &r, 10 * S);
  fail_unless_equals_float (rate (c), 500000);  /* the first sets the base */
  sent (c, 100, 10 * S, S);
  r.hsn = 1100;
  r.nsn = 1080;
  report (c, &r, 11 * S);
  fail_unless (fabs (stat_double (c, "delay-hsn") - 300e6) < 1e3,
      "delay_HSN %f", stat_double (c, "delay-hsn"));
  fail_unless (fabs (rate (c) - 500000 * 400.0 / 300.0) < 1,
      "rate %f", rate (c));
  rc_controller_free (c);
}

GST_END_TEST;

/* Lines 4-9: discards: down to the goodput x delta, delta = goodput /
 * rate at the episode's first report; below the goodput already: x
 * sqrt(2)/2. */
GST_START_TEST (test_discards)
{
  RcController *c = cnadu (1000000);
  Report r = { 1000, 0, 0, TRUE, 0, 0, 40, 980 };
  gdouble gp;

  report (c, &r, 10 * S);
  sent (c, 100, 10 * S, S);
  /* 100 received, 20 of them late (20000 bytes): 640 kbit/s goodput */
  r.hsn = 1100;
  r.discarded = 20;
  r.discarded_bytes = 20000;
  report (c, &r, 11 * S);
  gp = 80 * 1000 * 8;
  fail_unless (fabs (stat_double (c, "goodput") - gp) < 2);
  fail_unless (fabs (rate (c) - gp * (gp / 1e6)) < 2, "rate %f", rate (c));
  /* same episode, the rate now below the goodput: x sqrt(2)/2 */
  sent (c, 100, 11 * S, S);
  r.hsn = 1200;
  r.discarded = 1;
  r.discarded_bytes = 1000;
  {
    gdouble before = rate (c);
    report (c, &r, 12 * S);
    fail_unless (fabs (rate (c) - before * G_SQRT2 / 2) < 2);
  }
  rc_controller_free (c);
}

GST_END_TEST;

/* Lines 11-15: losses without discards are bit errors: x 1.1, or up to
 * the receiver rate when below it; losses right after discards are
 * congestion. */
GST_START_TEST (test_losses_only)
{
  RcController *c = cnadu (500000);
  Report r = { 1000, 0, 0.02, TRUE, 0, 0, 40, 980 };

  report (c, &r, 10 * S);
  sent (c, 100, 10 * S, S);
  r.hsn = 1100;
  r.cum_lost = 2;               /* 98 received: 784 kbit/s > 500 */
  report (c, &r, 11 * S);
  fail_unless (fabs (rate (c) - 98 * 8000) < 2, "rate %f", rate (c));
  sent (c, 100, 11 * S, S);
  r.hsn = 1200;
  r.cum_lost = 4;               /* 784 kbit/s again: x 1.1 */
  report (c, &r, 12 * S);
  fail_unless (fabs (rate (c) - 98 * 8000 * 1.1) < 2, "rate %f", rate (c));
  fail_unless_equals_float (stat_double (c, "loss-only-increases"), 2);

  /* a discard, then a loss alone in the next interval: both congestion */
  sent (c, 100, 12 * S, S);
  r.hsn = 1300;
  r.discarded = 3;
  r.discarded_bytes = 3000;
  report (c, &r, 13 * S);
  sent (c, 100, 13 * S, S);
  r.hsn = 1400;
  r.cum_lost = 6;
  r.discarded = r.discarded_bytes = 0;
  report (c, &r, 14 * S);
  fail_unless_equals_float (stat_double (c, "congestion-decreases"), 2);
  rc_controller_free (c);
}

GST_END_TEST;

/* Line 3: the same HSN as the last report: halved. */
GST_START_TEST (test_same_hsn)
{
  RcController *c = cnadu (800000);
  Report r = { 1000, 0, 0, TRUE, 0, 0, 40, 980 };

  report (c, &r, 10 * S);
  sent (c, 50, 10 * S, S);
  report (c, &r, 11 * S);
  fail_unless_equals_float (rate (c), 400000);
  rc_controller_free (c);
}

GST_END_TEST;

/* A stock receiver (RR only): losses are congestion, the playout delay
 * is the assumed one, and feedback_problem says so; with rcreceiver's
 * blocks it says nothing. */
GST_START_TEST (test_stock_receiver)
{
  RcController *c = cnadu (1000000);
  Report r = { 1000, 0, 0.05, FALSE, 0, 0, 0, 0 };
  guint i;

  report (c, &r, 10 * S);
  fail_unless (rc_controller_feedback_problem (c) == NULL);
  sent (c, 100, 10 * S, S);
  r.hsn = 1100;
  r.cum_lost = 5;
  report (c, &r, 11 * S);
  fail_unless_equals_float (stat_double (c, "congestion-decreases"), 1);
  fail_unless (rate (c) < 1000000);
  sent (c, 100, 11 * S, S);
  r.hsn = 1200;
  report (c, &r, 12 * S);
  fail_unless (rc_controller_feedback_problem (c) != NULL);
  /* no loss: line 18 with the assumed 200 ms + RTT/2 */
  fail_unless (fabs (stat_double (c, "delay-hsn") - 250e6) < 1e3);
  rc_controller_free (c);

  c = cnadu (1000000);
  r.with_receiver = TRUE;
  for (i = 0; i < 5; i++) {
    sent (c, 100, (10 + i) * S, S);
    r.hsn = 1000 + 100 * i;
    report (c, &r, (10 + i) * S);
  }
  fail_unless (rc_controller_feedback_problem (c) == NULL);
  rc_controller_free (c);
}

GST_END_TEST;

/* The sender session hands C-NADU every RR, even while transport-wide
 * feedback is fresh (other controllers get RRs only when it is stale). */
GST_START_TEST (test_session_passes_reports)
{
  RcSenderConfig cfg;
  RcSender *s;
  RcReportBlock b = { 0 };
  RcPacketResult res = { 0 };
  GstStructure *st;
  guint64 reports = 0;

  rc_sender_config_init (&cfg);
  cfg.controller = rc_controller_lookup ("cnadu");
  s = rc_sender_new (&cfg, NULL);
  rc_sender_config_clear (&cfg);
  rc_sender_set_ssrc (s, SSRC);
  res.seq = 1;
  res.send_ts = 900 * MS;
  res.recv_ts = 950 * MS;
  res.size = 1000;
  rc_sender_on_packet_results (s, &res, 1, 1 * S);
  b.kind = RC_REPORT_RR;
  b.media_ssrc = SSRC;
  b.rr.rtt = GST_CLOCK_TIME_NONE;
  b.rr.jitter = GST_CLOCK_TIME_NONE;
  rc_sender_on_reports (s, &b, 1, 1100 * MS);
  b.rr.ext_highest_seq = 10;
  rc_sender_on_reports (s, &b, 1, 1200 * MS);
  st = rc_controller_get_stats (rc_sender_get_controller (s));
  fail_unless (gst_structure_get_uint64 (st, "reports", &reports));
  /* the first RR sets the base, the second is a decision */
  fail_unless_equals_uint64 (reports, 1);
  gst_structure_free (st);
  rc_sender_free (s);
}

GST_END_TEST;

static Suite *
cnadu_suite (void)
{
  Suite *s = suite_create ("cnadu");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_delay_step);
  tcase_add_test (tc, test_discards);
  tcase_add_test (tc, test_losses_only);
  tcase_add_test (tc, test_same_hsn);
  tcase_add_test (tc, test_stock_receiver);
  tcase_add_test (tc, test_session_passes_reports);
  return s;
}

GST_CHECK_MAIN (cnadu);
