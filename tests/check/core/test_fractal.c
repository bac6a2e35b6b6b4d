/* FRACTaL (gst/rc-fractal.c): the state machine driven directly, and the
 * controller in rcsim's world (sender session, link model, FEC packets at
 * the rate it asks for). */
#include <gst/check/gstcheck.h>
#include "rc-controller.h"
#include "sim.h"

#define S GST_SECOND
#define MS GST_MSECOND

static RcController *
fractal_new (guint64 start_bps)
{
  const RcControllerInfo *info = rc_controller_lookup ("fractal");
  RcRateLimits limits;
  GError *err = NULL;
  RcController *c;

  fail_unless (info != NULL, "fractal is not registered");
  rc_rate_limits_init (&limits);
  limits.start_bps = start_bps;
  c = rc_controller_new (info, &limits, NULL, &err);
  fail_unless (c != NULL, "%s", err ? err->message : "?");
  return c;
}

/* A clean path for the direct tests: `bps` sent in 1200-byte packets,
 * reported every `ival` (with a tick every 100 ms in between, as the
 * sender session gives), all received `owd` later. Returns the time after
 * the last report. */
static GstClockTime
feed_every (RcController * c, GstClockTime t, GstClockTime until,
    gdouble bps, GstClockTime owd, gdouble loss_every, GstClockTime ival)
{
  static guint64 seq = 0;
  RcPacketResult r[64];

  for (; t < until; t += ival) {
    guint i, n = (guint) (bps / 8 / 1200 * ival / S);
    GstClockTime tick;
    RcFeedback fb = { 0 };
    n = CLAMP (n, 1, G_N_ELEMENTS (r));
    for (i = 0; i < n; i++) {
      GstClockTime sent = t + i * ival / n;
      rc_controller_on_packet_sent (c, seq, 1200, FALSE, sent);
      r[i].seq = seq++;
      r[i].send_ts = sent;
      r[i].recv_ts = sent + owd;
      r[i].size = 1200;
      r[i].pt = -1;
      r[i].is_fec = FALSE;
      r[i].lost = loss_every > 0 && (seq % (guint64) loss_every) == 0;
      if (r[i].lost)
        r[i].recv_ts = GST_CLOCK_TIME_NONE;
    }
    for (tick = t + owd + 100 * MS; tick < t + ival + owd; tick += 100 * MS)
      rc_controller_on_tick (c, tick);
    fb.packets = r;
    fb.n_packets = n;
    rc_controller_on_feedback (c, &fb, t + ival + owd);
  }
  return t;
}

/* Reported every 50 ms. */
static GstClockTime
feed (RcController * c, GstClockTime t, GstClockTime until, gdouble bps,
    GstClockTime owd, gdouble loss_every)
{
  return feed_every (c, t, until, bps, owd, loss_every, 50 * MS);
}

static const gchar *
phase (RcController * c)
{
  return rc_controller_get_decision (c).phase;
}

/* Algorithm 1-3 on a clean path: after settling, FEC probes (PROBE), the
 * probe passes into a higher media rate (INCREASE), which is probed
 * again; the media rate grows by the FEC rate each time. */
GST_START_TEST (test_fractal_probes_and_increases)
{
  RcController *c = fractal_new (500000);
  GstClockTime t = 0;
  RcDecision d;
  guint64 before;
  GstStructure *st;
  guint64 probes = 0, increases = 0;

  fail_unless_equals_string (phase (c), "keep");
  t = feed (c, t, 1 * S, 500000, 20 * MS, 0);
  /* Settled for 2 RTT: probing with FEC at R_snd / FEC_int. */
  d = rc_controller_get_decision (c);
  fail_unless (g_str_equal (d.phase, "probe") ||
      g_str_equal (d.phase, "increase"), "phase %s", d.phase);
  fail_unless (d.fec_bps > 0, "no FEC while probing");
  before = d.media_bps;
  t = feed (c, t, t + 10 * S, (gdouble) before, 20 * MS, 0);
  d = rc_controller_get_decision (c);
  fail_unless (d.media_bps > before, "media rate %" G_GUINT64_FORMAT
      " did not grow from %" G_GUINT64_FORMAT, d.media_bps, before);
  st = rc_controller_get_stats (c);
  gst_structure_get_uint64 (st, "probes", &probes);
  gst_structure_get_uint64 (st, "increases", &increases);
  gst_structure_free (st);
  fail_unless (probes >= 2 && increases >= 2, "probes %" G_GUINT64_FORMAT
      ", increases %" G_GUINT64_FORMAT, probes, increases);
  rc_controller_free (c);
}

GST_END_TEST;

/* Eq. 1: a delay rise beyond median + max(2 std, 30 ms) is congestion;
 * FEC stops, the rate falls below the receive rate (undershoot,
 * Algorithm 2/3 -> REDUCE); when the delay is back, KEEP. */
GST_START_TEST (test_fractal_delay_congestion)
{
  RcController *c = fractal_new (800000);
  GstClockTime t = 0;
  RcDecision d;
  guint64 before;

  t = feed (c, t, 5 * S, 800000, 20 * MS, 0);
  before = rc_controller_get_decision (c).media_bps;
  fail_unless (before >= 800000);
  t = feed (c, t, t + 200 * MS, (gdouble) before, 120 * MS, 0);
  d = rc_controller_get_decision (c);
  fail_unless_equals_string (d.phase, "reduce");
  fail_unless_equals_uint64 (d.fec_bps, 0);
  fail_unless (d.media_bps < before, "rate %" G_GUINT64_FORMAT
      " not reduced from %" G_GUINT64_FORMAT, d.media_bps, before);
  /* One clean report: the congestion is over. */
  t = feed (c, t, t + 50 * MS, (gdouble) d.media_bps, 20 * MS, 0);
  fail_unless_equals_string (phase (c), "keep");
  rc_controller_free (c);
}

GST_END_TEST;

/* Eq. 2: loss is measured against the path's usual loss. 2 % in every
 * report (50 packets each, one lost) is that path's normal: no reduction;
 * 20 % is congestion. */
GST_START_TEST (test_fractal_loss_threshold)
{
  RcController *c = fractal_new (9600000);
  GstClockTime t = 0;
  GstStructure *st;
  guint64 undershoots = 0;

  t = feed (c, t, 10 * S, 9600000, 20 * MS, 50);
  st = rc_controller_get_stats (c);
  gst_structure_get_uint64 (st, "undershoots", &undershoots);
  gst_structure_free (st);
  fail_unless_equals_uint64 (undershoots, 0);
  t = feed (c, t, t + 200 * MS, 9600000, 20 * MS, 5);
  fail_unless_equals_string (phase (c), "reduce");
  rc_controller_free (c);
}

GST_END_TEST;

/* Eq. 2 takes the loss after repair: one media packet lost in every group
 * of 9 whose repair packet arrives (11 % before repair, above the 5 % cap)
 * is no congestion; the same without the repair packets is. */
static guint
undershoots_with_groups (gboolean with_repair, gint reported_unrepaired)
{
  RcController *c = fractal_new (2000000);
  GstClockTime t;
  guint64 seq = 0, n = 0;
  GstStructure *st;

  for (t = 0; t < 10 * S; t += 50 * MS) {
    RcPacketResult r[20];
    RcFeedback fb = { 0 };
    guint i;

    for (i = 0; i < G_N_ELEMENTS (r); i++) {
      gboolean fec = i % 10 == 9;
      GstClockTime sent = t + i * MS;
      rc_controller_on_packet_sent (c, seq, 1200, fec, sent);
      r[i].seq = seq++;
      r[i].send_ts = sent;
      r[i].recv_ts = sent + 20 * MS;
      r[i].size = 1200;
      r[i].pt = -1;
      r[i].is_fec = fec;
      r[i].lost = (!fec && i % 10 == 4) || (fec && !with_repair);
      if (r[i].lost)
        r[i].recv_ts = GST_CLOCK_TIME_NONE;
    }
    if (reported_unrepaired >= 0) {
      /* RFC 7509 from the receiver, about this batch's 18 media packets
       * (their RTP sequence numbers), as a separate RTCP message */
      RcReportBlock b = { 0 };
      RcFeedback rep = { 0 };
      b.kind = RC_REPORT_POST_REPAIR;
      b.post_repair.begin_seq = (guint16) (t / (50 * MS) * 18);
      b.post_repair.end_seq = b.post_repair.begin_seq + 18;
      b.post_repair.unrepaired = reported_unrepaired;
      b.post_repair.repaired = 2 - MIN (reported_unrepaired, 2);
      rep.reports = &b;
      rep.n_reports = 1;
      rc_controller_on_feedback (c, &rep, t + 65 * MS);
    }
    fb.packets = r;
    fb.n_packets = G_N_ELEMENTS (r);
    rc_controller_on_feedback (c, &fb, t + 70 * MS);
  }
  st = rc_controller_get_stats (c);
  if (reported_unrepaired >= 0) {
    guint64 reports = 0;
    gst_structure_get_uint64 (st, "post-repair-reports", &reports);
    fail_unless_equals_uint64 (reports, 200);
  }
  gst_structure_get_uint64 (st, "undershoots", &n);
  gst_structure_free (st);
  rc_controller_free (c);
  return (guint) n;
}

GST_START_TEST (test_fractal_loss_after_repair)
{
  fail_unless_equals_int (undershoots_with_groups (TRUE, -1), 0);
  fail_unless (undershoots_with_groups (FALSE, -1) > 0);
}

GST_END_TEST;

/* RFC 7509 post-repair loss reports, where a receiver sends them, are
 * Eq. 2's loss in place of the sender's estimate from the repair groups:
 * a receiver that says it rebuilt everything (a layout the sender's row
 * model does not know) is no congestion though the repair packets look
 * lost; one that says 2 of 18 stayed lost (11 %) is, though the sender's
 * model has them all rebuilt. */
GST_START_TEST (test_fractal_post_repair_reports)
{
  fail_unless_equals_int (undershoots_with_groups (FALSE, 0), 0);
  fail_unless (undershoots_with_groups (TRUE, 2) > 0);
}

GST_END_TEST;

/* sec. 4: no report for max(500 ms, 3 RTT) -> KEEP, FEC off. */
GST_START_TEST (test_fractal_no_feedback_keeps)
{
  RcController *c = fractal_new (500000);
  GstClockTime t;
  RcDecision d;

  t = feed (c, 0, 1 * S, 500000, 20 * MS, 0);
  fail_unless (rc_controller_get_decision (c).fec_bps > 0);
  rc_controller_on_tick (c, t + 300 * MS);
  fail_unless (rc_controller_get_decision (c).fec_bps > 0, "gave up early");
  rc_controller_on_tick (c, t + 700 * MS);
  d = rc_controller_get_decision (c);
  fail_unless_equals_string (d.phase, "keep");
  fail_unless_equals_uint64 (d.fec_bps, 0);
  rc_controller_free (c);
}

GST_END_TEST;

/* Reports as far apart as a stock receiver's RTCP at 50 kbit/s (about
 * 1 s over ratecontrolrecv): the gap between two of them is no missing
 * feedback, and FEC probes pass and raise the rate. With the paper's
 * 500 ms alone each gap ended the probe, and the rate stayed put. */
GST_START_TEST (test_fractal_slow_reports_probe)
{
  RcController *c = fractal_new (50000);
  GstClockTime t;
  guint64 increases = 0;
  GstStructure *st;
  guint i;

  t = feed_every (c, 0, 20 * S, 50000, 20 * MS, 0, 1 * S);
  st = rc_controller_get_stats (c);
  gst_structure_get_uint64 (st, "increases", &increases);
  gst_structure_free (st);
  fail_unless (increases >= 3, "%" G_GUINT64_FORMAT " increases in %"
      GST_TIME_FORMAT, increases, GST_TIME_ARGS (t));
  fail_unless (rc_controller_get_decision (c).media_bps > 75000);
  /* Once probing: two intervals without a report are no outage, four
   * are. The last report came at t + 20 ms. */
  for (i = 0; i < 10 && rc_controller_get_decision (c).fec_bps == 0; i++)
    t = feed_every (c, t, t + 1 * S, 50000, 20 * MS, 0, 1 * S);
  fail_unless (rc_controller_get_decision (c).fec_bps > 0, "never probing");
  rc_controller_on_tick (c, t + 20 * MS + 2 * S);
  fail_unless (rc_controller_get_decision (c).fec_bps > 0,
      "two report intervals read as missing feedback");
  rc_controller_on_tick (c, t + 20 * MS + 4 * S);
  fail_unless_equals_string (phase (c), "keep");
  fail_unless_equals_uint64 (rc_controller_get_decision (c).fec_bps, 0);
  rc_controller_free (c);
}

GST_END_TEST;

static Sim *
sim_text (const gchar * text, guint32 seed, SimScenario ** scen)
{
  GError *err = NULL;

  *scen = sim_scenario_load_data (text, "test", NULL, &err);
  fail_unless (*scen != NULL, "scenario: %s", err ? err->message : "?");
  return sim_new (*scen, seed);
}

/* In rcsim, 1 Mbit/s, 50 ms: FEC probes load the link (repair bytes in the
 * metrics), the media rate settles within the capacity with little loss,
 * and it follows a drop to 500 kbit/s within 5 s. */
GST_START_TEST (test_fractal_in_rcsim)
{
  SimScenario *scen;
  Sim *sim = sim_text ("[scenario]\nduration=90\n"
      "[link]\ncapacity=1000000\nschedule=0:1000000,60:500000\n"
      "queue-limit-ms=300\ndelay=50000000\n"
      "[flow:video]\nkind=media\nencoder=synthetic\ncontroller=fractal\n",
      1, &scen);
  SimWindow w;
  RcDecision d;

  sim_run_until (sim, 60 * S);
  sim_flow_window (sim, 0, 30 * S, 60 * S, &w);
  GST_INFO ("1 Mbit/s: goodput %.0f, qdelay %.1f ms, lost %" G_GUINT64_FORMAT
      " of %" G_GUINT64_FORMAT, w.goodput_bps, w.qdelay_mean_ms, w.lost_pkts,
      w.sent_pkts);
  fail_unless (w.goodput_bps > 0.7e6 && w.goodput_bps <= 1.0e6,
      "goodput %.0f", w.goodput_bps);
  fail_unless (w.lost_pkts <= w.sent_pkts / 100, "lost %" G_GUINT64_FORMAT
      " of %" G_GUINT64_FORMAT, w.lost_pkts, w.sent_pkts);
  sim_run_until (sim, 65 * S);
  d = rc_sender_get_decision (sim_flow_sender (sim, 0));
  fail_unless (d.media_bps + d.fec_bps < 550000, "target %" G_GUINT64_FORMAT
      " + FEC %" G_GUINT64_FORMAT " 5 s after the drop to 500 kbit/s",
      d.media_bps, d.fec_bps);
  sim_free (sim);
  sim_scenario_free (scen);
}

GST_END_TEST;

static Suite *
fractal_suite (void)
{
  Suite *s = suite_create ("fractal");
  TCase *tc = tcase_create ("fractal");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_fractal_probes_and_increases);
  tcase_add_test (tc, test_fractal_delay_congestion);
  tcase_add_test (tc, test_fractal_loss_threshold);
  tcase_add_test (tc, test_fractal_no_feedback_keeps);
  tcase_add_test (tc, test_fractal_slow_reports_probe);
  tcase_add_test (tc, test_fractal_loss_after_repair);
  tcase_add_test (tc, test_fractal_post_repair_reports);
  tcase_add_test (tc, test_fractal_in_rcsim);
  return s;
}

GST_CHECK_MAIN (fractal);
