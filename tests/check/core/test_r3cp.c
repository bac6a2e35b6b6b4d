/* R^3CP^+ (rc-rls, rc-r3cp, rc-receiver with r3cp): the RLS forecaster on
 * series with a known next value, Table 1's cells, the receiver's TMMBR and
 * RRTR, and the sender's controller following the requests or, with a
 * stock receiver, running Table 1 itself and saying so; selective
 * transmission under the request's cap. Fixed times only. */
#include <gst/check/gstcheck.h>
#include "rc-rls.h"
#include "rc-r3cp.h"
#include "rc-receiver.h"
#include "rc-controller.h"
#include "rc-select.h"

#define MS GST_MSECOND
#define S GST_SECOND

/* A sampled sine, x_n = 2 cos(w) x_{n-1} - x_{n-2}: RLS with 3 taps learns
 * the recursion and predicts the next value; a constant is predicted as
 * itself. */
GST_START_TEST (test_rls)
{
  RcRls r;
  gdouble x, pred = 0;
  guint i;

  rc_rls_init (&r, 3, 1.0, 100);
  fail_unless_equals_float (rc_rls_predict (&r), 0);
  for (i = 0; i < 200; i++) {
    x = sin (0.3 * i);
    if (i > 100)
      fail_unless (fabs (pred - x) < 1e-3, "step %u: predicted %f, got %f",
          i, pred, x);
    pred = rc_rls_push (&r, x);
  }
  rc_rls_init (&r, 4, 0.95, 100);
  for (i = 0; i < 30; i++)
    pred = rc_rls_push (&r, 0.03);
  fail_unless (fabs (pred - 0.03) < 1e-6, "constant predicted as %f", pred);
}

GST_END_TEST;

/* Table 1, each row: Unloaded grows by 2 packets per RTT, capped at 1.5 x
 * the desired rate; Loaded holds at most the desired rate; Congested cuts
 * the desired rate to 0.75 (forecast better) or 0.5 (forecast Congested). */
GST_START_TEST (test_table1)
{
  RcR3cpConfig cfg;
  RcR3cpRecv r;
  gdouble rho, before;
  guint i;

  rc_r3cp_config_init (&cfg);
  cfg.start_bps = 500000;
  rc_r3cp_recv_init (&r, &cfg);
  /* no loss, 100 ms RTT, receiving what is asked: + 2 x 1200 x 8 / 0.1 */
  rho = rc_r3cp_recv_period (&r, 0, 500000, 100 * MS);
  fail_unless_equals_int (r.now, RC_R3CP_UNLOADED);
  fail_unless (fabs (rho - (500000 + 192000)) < 1, "rho %f", rho);
  /* an application-limited source (sends 100 kbit/s): 150 kbit/s cap */
  rho = rc_r3cp_recv_period (&r, 0, 100000, 100 * MS);
  fail_unless (fabs (rho - 150000) < 1, "rho %f", rho);

  /* Loaded (3 % loss): at most the desired rate, 400 / (1 - p-hat) */
  rc_r3cp_recv_init (&r, &cfg);
  for (i = 0; i < 10; i++)
    rho = rc_r3cp_recv_period (&r, 0.03, 400000, 100 * MS);
  fail_unless_equals_int (r.now, RC_R3CP_LOADED);
  fail_unless (fabs (rho - 400000 / (1 - 0.03)) < 100, "rho %f", rho);

  /* Congested now, forecast not (loss every other period: the forecaster
   * learns that a lossy period is followed by a clean one): x 0.75 of the
   * desired rate */
  rc_r3cp_recv_init (&r, &cfg);
  for (i = 0; i < 40; i++)
    rho = rc_r3cp_recv_period (&r, (i % 2) ? 0.2 : 0, 500000, 100 * MS);
  fail_unless_equals_int (r.now, RC_R3CP_CONGESTED);
  fail_unless (r.forecast != RC_R3CP_CONGESTED, "forecast %f", r.p_hat);
  fail_unless (fabs (rho - MAX (0.75 * r.desired, 50000)) < 1,
      "rho %f, desired %f", rho, r.desired);
  /* Congested and forecast Congested: x 0.5 of the desired rate, and never
   * above the last request (the cell is a min with rho) */
  before = rho;
  for (i = 0; i < 10; i++) {
    gdouble prev = rho;
    rho = rc_r3cp_recv_period (&r, 0.2, 300000, 100 * MS);
    fail_unless_equals_int (r.forecast, RC_R3CP_CONGESTED);
    fail_unless (fabs (rho - MAX (MIN (0.5 * r.desired, prev), 50000)) < 1,
        "period %u: rho %f, desired %f, before %f", i, rho, r.desired, prev);
  }
  fail_unless (rho <= 0.5 * before, "rho %f after %f", rho, before);
}

GST_END_TEST;

/* Sporadic loss bursts (one period in 12 loses up to 30 %) at a steady
 * 900 kbit/s and a loopback RTT: each period is one sample for each
 * forecaster, the loss forecast stays a fraction, and the request stays near
 * what arrives. Pushing a sample inside CLAMP () fed it to the RLS two or
 * three times, and a forecast of 10 once asked for max-bps (seen as a
 * 20 Mbit/s TMMBR in the pipeline test). */
GST_START_TEST (test_forecast_once_per_period)
{
  RcR3cpConfig cfg;
  RcR3cpRecv r;
  GRand *rand = g_rand_new_with_seed (4);
  gdouble rho, top = 0;
  guint i;

  rc_r3cp_config_init (&cfg);
  rc_r3cp_recv_init (&r, &cfg);
  for (i = 0; i < 600; i++) {
    gdouble p = g_rand_int_range (rand, 0, 12) == 0 ?
        g_rand_int_range (rand, 0, 30) / 100.0 : 0;
    rho = rc_r3cp_recv_period (&r, p, 900000, 300 * GST_USECOND);
    fail_unless (r.p_hat >= 0 && r.p_hat <= 1, "period %u: forecast %f", i,
        r.p_hat);
    top = MAX (top, rho);
  }
  fail_unless_equals_uint64 (r.loss.n, 600);
  fail_unless_equals_uint64 (r.rtt.n, 600);
  /* Unloaded's cap, 1.5 x 900 kbit/s, and what a forecast of p_high (5 %)
   * adds to it */
  fail_unless (top <= 1.5 * 900000 / (1 - cfg.p_high), "asked for %f", top);
  g_rand_free (rand);
}

GST_END_TEST;

/* Heavy loss every other period (90 %) at a loopback RTT: after each
 * clean period the state is Unloaded and the forecast Congested, Table 1's
 * min(lambda-hat_n, rho + delta_inc). lambda-hat_n compensated the whole
 * forecast loss, gamma / (1 - 0.9): a request of 10x what arrived (8.7
 * Mbit/s on a 1 Mbit/s link in pipelines/assisted_pipeline). It makes up
 * for at most p_high of it, so no request is far above what arrives. */
GST_START_TEST (test_forecast_loss_compensated_up_to_p_high)
{
  RcR3cpConfig cfg;
  RcR3cpRecv r;
  gdouble rho, top = 0;
  guint i;

  rc_r3cp_config_init (&cfg);
  rc_r3cp_recv_init (&r, &cfg);
  for (i = 0; i < 100; i++) {
    rho = rc_r3cp_recv_period (&r, (i % 2) ? 0.9 : 0, 800000,
        GST_MSECOND);
    if (r.now == RC_R3CP_UNLOADED && r.forecast == RC_R3CP_CONGESTED)
      top = MAX (top, rho);
  }
  fail_unless (top > 0, "never Unloaded with a Congested forecast");
  fail_unless (top <= 800000 / (1 - cfg.p_high) + 1, "asked for %.0f", top);
}

GST_END_TEST;

/* The receiver with r3cp: each report after the first carries a TMMBR
 * about the stream and an RRTR; the interval is the forecast RTT, once a
 * DLRR about this receiver gave one (another receiver's is not its RTT). */
GST_START_TEST (test_receiver_requests)
{
  RcReceiverConfig cfg;
  RcReceiver *rx;
  GArray *out = g_array_new (FALSE, TRUE, sizeof (RcReportBlock));
  gboolean tmmbr = FALSE, rrtr = FALSE;
  guint i, k;

  rc_receiver_config_init (&cfg);
  cfg.r3cp = TRUE;
  rc_r3cp_config_init (&cfg.r3cp_cfg);
  rx = rc_receiver_new (&cfg);
  for (k = 0; k < 3; k++) {
    g_array_set_size (out, 0);
    for (i = 0; i < 30; i++)
      rc_receiver_on_packet (rx, 7, (guint16) (k * 30 + i), (k * 30 + i) *
          3000, 1000, 10 * S + k * S + i * 33 * MS);
    if (k == 1) {
      /* the sender's DLRRs: ours (SSRC 99) and another receiver's */
      RcReportBlock d[2] = { {0} };
      d[0].kind = d[1].kind = RC_REPORT_DLRR;
      d[0].media_ssrc = 98;
      d[0].dlrr.rtt = 900 * MS;
      d[1].media_ssrc = 99;
      d[1].dlrr.rtt = 250 * MS;
      rc_receiver_on_reports (rx, 99, d, 2);
    }
    rc_receiver_report (rx, 10 * S + (k + 1) * S, 0, out);
  }
  for (i = 0; i < out->len; i++) {
    RcReportBlock *b = &g_array_index (out, RcReportBlock, i);
    if (b->kind == RC_REPORT_TMMBR) {
      tmmbr = TRUE;
      fail_unless_equals_int (b->media_ssrc, 7);
      fail_unless (b->tmmb.bitrate > 300000, "asked for %" G_GUINT64_FORMAT,
          b->tmmb.bitrate);
    }
    if (b->kind == RC_REPORT_RRTR) {
      rrtr = TRUE;
      fail_unless_equals_uint64 (b->rrtr.ntp >> 32, 2208988800u + 13);
    }
  }
  fail_unless (tmmbr && rrtr);
  fail_unless_equals_uint64 (rc_receiver_interval (rx), 250 * MS);
  g_array_unref (out);
  rc_receiver_free (rx);
}

GST_END_TEST;

static RcController *
r3cp (void)
{
  RcRateLimits l;

  rc_rate_limits_init (&l);
  return rc_controller_new (rc_controller_lookup ("r3cp"), &l, NULL, NULL);
}

static void
feed (RcController * c, RcReportKind kind, guint64 bitrate, gdouble fraction,
    GstClockTime now)
{
  RcReportBlock b = { 0 };
  RcFeedback fb = { 0 };

  b.kind = kind;
  b.media_ssrc = 7;
  b.tmmb.bitrate = bitrate;
  if (kind == RC_REPORT_RR) {
    b.rr.fraction_lost = fraction;
    b.rr.rtt = 100 * MS;
    b.rr.jitter = GST_CLOCK_TIME_NONE;
  }
  fb.reports = &b;
  fb.n_reports = 1;
  rc_controller_on_feedback (c, &fb, now);
}

/* The sender follows the receiver's requests. */
GST_START_TEST (test_controller_follows)
{
  RcController *c = r3cp ();
  guint i;

  fail_unless_equals_uint64 (rc_controller_get_decision (c).media_bps,
      300000);
  /* no request yet: no cap on what media may send */
  fail_unless_equals_uint64 (rc_controller_get_decision (c).send_cap_bps, 0);
  feed (c, RC_REPORT_TMMBR, 777000, 0, S);
  fail_unless_equals_uint64 (rc_controller_get_decision (c).media_bps,
      777000);
  /* sec. 3: what is sent above the request may lose droppable frames */
  fail_unless_equals_uint64 (rc_controller_get_decision (c).send_cap_bps,
      777000);
  for (i = 0; i < 5; i++)
    feed (c, RC_REPORT_RR, 0, 0, (2 + i) * S);
  fail_unless_equals_uint64 (rc_controller_get_decision (c).media_bps,
      777000);
  fail_unless (rc_controller_feedback_problem (c) == NULL);
  rc_controller_free (c);
}

GST_END_TEST;

/* A stock receiver: Table 1 on the RRs at the sender, and a warning. */
GST_START_TEST (test_controller_fallback)
{
  RcController *c = r3cp ();
  guint i, j;

  for (i = 0; i < 4; i++) {
    for (j = 0; j < 100; j++)
      rc_controller_on_packet_sent (c, i * 100 + j, 1000, FALSE, i * S);
    feed (c, RC_REPORT_RR, 0, 0, (i + 1) * S);
  }
  /* 800 kbit/s sent, no loss: grew past the start rate */
  fail_unless (rc_controller_get_decision (c).media_bps > 300000);
  fail_unless (rc_controller_feedback_problem (c) != NULL);
  /* the sender's own Table 1 requests nothing: no cap */
  fail_unless_equals_uint64 (rc_controller_get_decision (c).send_cap_bps, 0);
  /* 20 % lost: cut */
  {
    guint64 before = rc_controller_get_decision (c).media_bps;
    for (j = 0; j < 100; j++)
      rc_controller_on_packet_sent (c, 400 + j, 1000, FALSE, 5 * S);
    feed (c, RC_REPORT_RR, 0, 0.2, 6 * S);
    fail_unless (rc_controller_get_decision (c).media_bps < before);
  }
  rc_controller_free (c);
}

GST_END_TEST;

/* RFC 7741 sec. 4.2's first octet: X R N S R PID. */
GST_START_TEST (test_vp8_frame_info)
{
  RcFrameInfo f;
  const guint8 start[] = { 0x90, 0x80 }, start_n[] = { 0xb0 },
      cont_n[] = { 0xa0 }, part1[] = { 0x11 };

  fail_unless (rc_vp8_frame_info (start, 2, &f));
  fail_unless (f.frame_start && !f.droppable);
  fail_unless (rc_vp8_frame_info (start_n, 1, &f));
  fail_unless (f.frame_start && f.droppable);
  fail_unless (rc_vp8_frame_info (cont_n, 1, &f));
  fail_unless (!f.frame_start && f.droppable);
  /* S set on partition 1: not the frame's first packet */
  fail_unless (rc_vp8_frame_info (part1, 1, &f));
  fail_unless (!f.frame_start);
  fail_if (rc_vp8_frame_info (start, 0, &f));
}

GST_END_TEST;

/* 30 frames/s of 3 packets each, every other frame droppable; reference
 * frames 3600 bytes (432 kbit/s), droppable ones 2400 (288 kbit/s). Sends
 * `secs` seconds from `t0` under `cap`; returns the bytes sent and counts
 * frames partly sent and reference frames dropped. */
static guint64
run_frames (RcSelect * s, guint64 cap, GstClockTime t0, guint secs,
    guint * partial, guint * ref_dropped, guint * dropped)
{
  guint64 sent = 0;
  guint i, k;

  for (i = 0; i < 30 * secs; i++) {
    gboolean droppable = i % 2 == 1;
    guint size = droppable ? 800 : 1200, out = 0;
    GstClockTime t = t0 + i * GST_SECOND / 30;
    for (k = 0; k < 3; k++) {
      RcFrameInfo f = { k == 0, droppable };
      if (rc_select_packet (s, &f, size, cap, 300 * MS, t + k * MS)) {
        out++;
        sent += size;
      }
    }
    if (out != 0 && out != 3)
      (*partial)++;
    if (out == 0 && !droppable)
      (*ref_dropped)++;
    if (out == 0)
      (*dropped)++;
  }
  return sent;
}

/* Selective transmission: no cap, nothing dropped; a cap between the
 * reference frames' rate and the whole stream's, the sent rate settles at
 * the cap; a cap below the reference frames, every droppable frame goes
 * and no reference frame; frames go whole. */
GST_START_TEST (test_select)
{
  RcSelect s;
  guint partial = 0, ref_dropped = 0, dropped = 0;
  guint64 sent;

  rc_select_init (&s);
  sent = run_frames (&s, 0, 0, 10, &partial, &ref_dropped, &dropped);
  fail_unless_equals_uint64 (sent, 10 * 90000);
  fail_unless_equals_int (dropped, 0);

  /* 600 kbit/s of 720: over 10 s, the cap plus the 300 ms window it
   * starts with, within a frame */
  sent = run_frames (&s, 600000, 10 * S, 10, &partial, &ref_dropped,
      &dropped);
  fail_unless (dropped > 0);
  fail_unless (sent * 8 <= 600000 * 103 / 10 + 8 * 3600,
      "%" G_GUINT64_FORMAT " bit/s sent", sent * 8 / 10);
  fail_unless (sent * 8 >= 600000 * 10 - 8 * 3600,
      "%" G_GUINT64_FORMAT " bit/s sent", sent * 8 / 10);
  fail_unless_equals_uint64 (s.dropped_frames, dropped);

  /* 300 kbit/s, below the reference frames' 432: all droppable frames go
   * (bar the first window), the reference frames stay */
  dropped = 0;
  sent = run_frames (&s, 300000, 20 * S, 10, &partial, &ref_dropped,
      &dropped);
  fail_unless (dropped >= 148, "%u dropped", dropped);
  fail_unless_equals_int (ref_dropped, 0);
  fail_unless_equals_int (partial, 0);

  /* the cap lifted in the middle of a dropped frame: the rest of that
   * frame still goes (half a frame is no use), the next is sent */
  {
    RcFrameInfo first = { TRUE, TRUE }, rest = { FALSE, TRUE };
    rc_select_init (&s);
    fail_unless (rc_select_packet (&s, &first, 100000, 1000000, 300 * MS,
            0));
    fail_if (rc_select_packet (&s, &first, 1000, 1000000, 300 * MS, MS));
    fail_if (rc_select_packet (&s, &rest, 1000, 0, 300 * MS, 2 * MS));
    fail_unless (rc_select_packet (&s, &first, 1000, 0, 300 * MS, 3 * MS));
  }
}

GST_END_TEST;

static Suite *
r3cp_suite (void)
{
  Suite *s = suite_create ("r3cp");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_rls);
  tcase_add_test (tc, test_table1);
  tcase_add_test (tc, test_forecast_once_per_period);
  tcase_add_test (tc, test_forecast_loss_compensated_up_to_p_high);
  tcase_add_test (tc, test_receiver_requests);
  tcase_add_test (tc, test_controller_follows);
  tcase_add_test (tc, test_controller_fallback);
  tcase_add_test (tc, test_vp8_frame_info);
  tcase_add_test (tc, test_select);
  return s;
}

GST_CHECK_MAIN (r3cp);
