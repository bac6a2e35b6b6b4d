/* Receiver-side measurements (rc-receiver): the playout deadline and the
 * discards it makes, the NADU block, post-repair counting, and C-NADU's
 * Algorithm 1 for the report interval. Fixed times only. */
#include <gst/check/gstcheck.h>
#include "rc-receiver.h"

#define MS GST_MSECOND
#define S GST_SECOND
#define SSRC 0xabcd0001

/* 30 frames/s, one 1000-byte packet per frame, 90 kHz timestamps: frame
 * `i` is captured at i x 33.3 ms and, on a 40 ms path, arrives 40 ms later
 * plus `extra`. */
static gboolean
frame (RcReceiver * r, guint i, GstClockTime extra)
{
  GstClockTime capture = gst_util_uint64_scale (i, S, 30);

  return rc_receiver_on_packet (r, SSRC, (guint16) (1000 + i), 5000 + i * 3000,
      1000, 10 * S + capture + 40 * MS + extra);
}

static const RcReportBlock *
find (GArray * a, RcReportKind kind)
{
  guint i;

  for (i = 0; i < a->len; i++)
    if (g_array_index (a, RcReportBlock, i).kind == kind)
      return &g_array_index (a, RcReportBlock, i);
  return NULL;
}

static RcReceiver *
receiver (GstClockTime latency, gboolean adapt)
{
  RcReceiverConfig cfg;

  rc_receiver_config_init (&cfg);
  cfg.latency = latency;
  cfg.adapt_interval = adapt;
  return rc_receiver_new (&cfg);
}

/* Packets later than the latency above the path's minimum delay are
 * discarded, the others are not; the XR blocks count them. */
GST_START_TEST (test_discards)
{
  RcReceiver *r = receiver (100 * MS, FALSE);
  GArray *out = g_array_new (FALSE, TRUE, sizeof (RcReportBlock));
  const RcReportBlock *b;
  guint i, n;

  for (i = 0; i < 30; i++)
    fail_if (frame (r, i, (i % 3) * 30 * MS), "frame %u late", i);
  /* 99 ms above the minimum: on time; 101 ms: late; then two more late. */
  fail_if (frame (r, 30, 99 * MS));
  fail_unless (frame (r, 31, 101 * MS));
  fail_unless (frame (r, 32, 150 * MS));
  fail_unless (frame (r, 33, 400 * MS));
  fail_if (frame (r, 34, 0));

  n = rc_receiver_report (r, 12 * S, 0, out);
  fail_unless_equals_int (n, 3);        /* no post-repair: no output seen */
  fail_unless_equals_int (out->len, 3);
  b = find (out, RC_REPORT_DISCARD);
  fail_unless (b != NULL);
  fail_unless_equals_int (b->media_ssrc, SSRC);
  fail_unless_equals_int (b->discard.packets, 3);
  fail_unless_equals_int (b->discard.interval, RC_XR_INTERVAL_INTERVAL);
  b = find (out, RC_REPORT_DISCARD_BYTES);
  fail_unless_equals_int (b->discard_bytes.bytes, 3000);
  fail_if (b->discard_bytes.early);

  /* Interval values: the next report counts from zero. */
  g_array_set_size (out, 0);
  fail_if (frame (r, 35, 0));
  rc_receiver_report (r, 13 * S, 0, out);
  fail_unless_equals_int (find (out, RC_REPORT_DISCARD)->discard.packets, 0);
  g_array_unref (out);
  rc_receiver_free (r);
}

GST_END_TEST;

/* NADU: the oldest packet not yet played, and its time left. */
GST_START_TEST (test_nadu)
{
  RcReceiver *r = receiver (200 * MS, FALSE);
  GArray *out = g_array_new (FALSE, TRUE, sizeof (RcReportBlock));
  const RcReportBlock *b;
  GstClockTime t9;
  guint i;

  for (i = 0; i < 10; i++)
    frame (r, i, 0);
  /* Frame 9 arrived at t9; frames 4..9 are still buffered at t9 (frame 4
   * plays at 10 s + 133.3 + 40 + 200 ms). */
  t9 = 10 * S + gst_util_uint64_scale (9, S, 30) + 40 * MS;
  rc_receiver_report (r, t9, 0, out);
  b = find (out, RC_REPORT_NADU);
  fail_unless (b != NULL);
  fail_unless_equals_int (b->nadu.nsn, 1004);
  /* 10 s + 373.3 ms - (10 s + 340 ms) */
  fail_unless_equals_int (b->nadu.playout_delay_ms, 33);
  fail_unless_equals_int (b->nadu.nun, 0);

  /* Everything played, nothing new: empty, the next expected one. */
  g_array_set_size (out, 0);
  rc_receiver_report (r, t9 + S, 0, out);
  b = find (out, RC_REPORT_NADU);
  fail_unless_equals_int (b->nadu.nsn, 1010);
  fail_unless_equals_int (b->nadu.playout_delay_ms, RC_NADU_NO_DELAY);
  g_array_unref (out);
  rc_receiver_free (r);
}

GST_END_TEST;

/* Post-repair: gaps in what reaches the depayloader are unrepaired, the
 * decoder's count since the last report is repaired. */
GST_START_TEST (test_post_repair)
{
  RcReceiver *r = receiver (200 * MS, FALSE);
  GArray *out = g_array_new (FALSE, TRUE, sizeof (RcReportBlock));
  const RcReportBlock *b;
  guint i;

  for (i = 0; i < 20; i++) {
    if (i == 5 || i == 6)
      continue;                 /* lost in the network */
    frame (r, i, 0);
  }
  /* FEC rebuilt 5; 6 stays missing. */
  for (i = 0; i < 20; i++)
    if (i != 6)
      rc_receiver_on_output (r, SSRC, 1000 + i);
  rc_receiver_report (r, 11 * S, 7, out);
  /* The first report after a new stream takes the decoder's count as its
   * origin: the counts before are another stream's. */
  b = find (out, RC_REPORT_POST_REPAIR);
  fail_unless (b != NULL);
  fail_unless_equals_int (b->post_repair.begin_seq, 1000);
  fail_unless_equals_int (b->post_repair.end_seq, 1020);
  fail_unless_equals_int (b->post_repair.unrepaired, 1);
  fail_unless_equals_int (b->post_repair.repaired, 0);

  g_array_set_size (out, 0);
  for (i = 20; i < 30; i++)
    if (i != 25)
      rc_receiver_on_output (r, SSRC, 1000 + i);
  rc_receiver_report (r, 12 * S, 9, out);
  b = find (out, RC_REPORT_POST_REPAIR);
  fail_unless_equals_int (b->post_repair.begin_seq, 1020);
  fail_unless_equals_int (b->post_repair.end_seq, 1030);
  fail_unless_equals_int (b->post_repair.unrepaired, 1);
  fail_unless_equals_int (b->post_repair.repaired, 2);
  g_array_unref (out);
  rc_receiver_free (r);
}

GST_END_TEST;

/* Algorithm 1: quiet intervals grow x 3/2 up to 5 s; a bad packet rate
 * above 0.33 shrinks x 0.67 down to the bandwidth-bound minimum; below
 * the threshold it holds; no packets at all: the minimum. */
GST_START_TEST (test_interval)
{
  RcReceiver *r = receiver (100 * MS, TRUE);
  GArray *out = g_array_new (FALSE, TRUE, sizeof (RcReportBlock));
  GstClockTime t = 10 * S, prev;
  guint i = 0, k, j;

  fail_unless_equals_uint64 (rc_receiver_interval (r), 5 * S);
  /* Quiet: stays at 5 s. */
  for (; i < 30; i++)
    frame (r, i, 0);
  rc_receiver_report (r, t + S, 0, out);
  fail_unless_equals_uint64 (rc_receiver_interval (r), 5 * S);

  /* Half the packets late: 0.5 > 0.33, shrink by 0.67 per report. */
  prev = rc_receiver_interval (r);
  for (k = 0; k < 3; k++) {
    for (j = 0; j < 30; j++, i++)
      frame (r, i, (j % 2) ? 300 * MS : 0);
    rc_receiver_report (r, 10 * S + gst_util_uint64_scale (i, S, 30) +
        40 * MS, 0, out);
    fail_unless_equals_uint64 (rc_receiver_interval (r),
        (GstClockTime) (prev * (1 - 0.33)));
    prev = rc_receiver_interval (r);
  }

  /* A few late ones (10 %): held. */
  for (j = 0; j < 30; j++, i++)
    frame (r, i, (j % 10) == 0 ? 300 * MS : 0);
  rc_receiver_report (r, 10 * S + gst_util_uint64_scale (i, S, 30) + 40 * MS,
      0, out);
  fail_unless_equals_uint64 (rc_receiver_interval (r), prev);

  /* Quiet again: x 1.5. */
  for (j = 0; j < 30; j++, i++)
    frame (r, i, 0);
  rc_receiver_report (r, 10 * S + gst_util_uint64_scale (i, S, 30) + 40 * MS,
      0, out);
  fail_unless_equals_uint64 (rc_receiver_interval (r),
      (GstClockTime) (prev * 1.5));

  /* Nothing received in an interval: the minimum. 240 kbit/s of payload
   * at a 2.5 % share: 164 bytes every 219 ms. */
  rc_receiver_report (r, 10 * S + gst_util_uint64_scale (i, S, 30) + 2 * S,
      0, out);
  fail_unless (rc_receiver_interval (r) > 150 * MS &&
      rc_receiver_interval (r) < 300 * MS, "minimum %" GST_TIME_FORMAT,
      GST_TIME_ARGS (rc_receiver_interval (r)));
  g_array_unref (out);
  rc_receiver_free (r);
}

GST_END_TEST;

/* Sequence numbers and RTP timestamps wrap; a new SSRC starts over. */
GST_START_TEST (test_wrap_and_new_sender)
{
  RcReceiver *r = receiver (100 * MS, FALSE);
  GArray *out = g_array_new (FALSE, TRUE, sizeof (RcReportBlock));
  GstStructure *st;
  guint64 lost;
  guint i;

  for (i = 0; i < 100; i++)
    fail_if (rc_receiver_on_packet (r, SSRC, (guint16) (65500 + i),
            G_MAXUINT32 - 100000 + i * 3000, 500,
            S + gst_util_uint64_scale (i, S, 30)));
  rc_receiver_report (r, 5 * S, 0, out);
  st = rc_receiver_get_stats (r);
  fail_unless (gst_structure_get_uint64 (st, "lost", &lost));
  fail_unless_equals_uint64 (lost, 0);
  gst_structure_free (st);
  fail_unless_equals_int (find (out, RC_REPORT_NADU)->nadu.nsn,
      (guint16) (65500 + 100));

  /* Another sender: its own timeline, nothing late. */
  fail_if (rc_receiver_on_packet (r, SSRC + 1, 7, 1234, 500, 6 * S));
  fail_if (rc_receiver_on_packet (r, SSRC + 1, 8, 1234 + 3000, 500,
          6 * S + 33 * MS));
  g_array_unref (out);
  rc_receiver_free (r);
}

GST_END_TEST;

static Suite *
receiver_suite (void)
{
  Suite *s = suite_create ("receiver");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_discards);
  tcase_add_test (tc, test_nadu);
  tcase_add_test (tc, test_post_repair);
  tcase_add_test (tc, test_interval);
  tcase_add_test (tc, test_wrap_and_new_sender);
  return s;
}

GST_CHECK_MAIN (receiver);
