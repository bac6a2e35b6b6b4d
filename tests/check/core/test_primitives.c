/* Core building blocks: windows, pacer, sequence unwrap, OWD, TWCC parsing,
 * and URCP's loss instance. Fixed times only. */
#define GLIB_DISABLE_DEPRECATION_WARNINGS
#include <gst/check/gstcheck.h>
#include "rc-controller.h"
#include "rc-owd.h"
#include "rc-pacer.h"
#include "rc-twcc.h"
#include "rc-window.h"

#define MS GST_MSECOND
#define S GST_SECOND

GST_START_TEST (test_avg_window)
{
  RcAvgWindow w;
  gdouble m;
  guint i;

  rc_avg_window_init (&w, 1 * S, 4);
  fail_if (rc_avg_window_mean (&w, &m));
  rc_avg_window_push (&w, 0, 1.0);
  rc_avg_window_push (&w, 100 * MS, 3.0);
  fail_unless (rc_avg_window_mean (&w, &m));
  fail_unless_equals_float (m, 2.0);
  /* Samples older than the span leave. */
  rc_avg_window_push (&w, 1050 * MS, 5.0);
  fail_unless_equals_int (rc_avg_window_len (&w), 2);
  rc_avg_window_mean (&w, &m);
  fail_unless_equals_float (m, 4.0);
  /* Bounded memory: the oldest goes when full. */
  for (i = 0; i < 10; i++)
    rc_avg_window_push (&w, 1100 * MS + i, i);
  fail_unless_equals_int (rc_avg_window_len (&w), 4);
  rc_avg_window_mean (&w, &m);
  fail_unless_equals_float (m, (6 + 7 + 8 + 9) / 4.0);
  rc_avg_window_clear (&w);
}

GST_END_TEST;

GST_START_TEST (test_rate_meter)
{
  RcRateMeter m;
  guint i;

  rc_rate_meter_init (&m, 1 * S);
  /* 1000 bytes every 10 ms = 800 kbit/s. */
  for (i = 0; i < 300; i++)
    rc_rate_meter_add (&m, i * 10 * MS, 1000);
  fail_unless (fabs (rc_rate_meter_bps (&m, 2990 * MS) - 800e3) < 0.02 * 800e3);
  /* Idle for 2 s: nothing in the window. */
  fail_unless_equals_float (rc_rate_meter_bps (&m, 5 * S), 0.0);
  rc_rate_meter_clear (&m);
}

GST_END_TEST;

GST_START_TEST (test_pacer_spacing_and_bound)
{
  RcPacer p;
  GstClockTime t = 0;
  guint i;

  rc_pacer_init (&p, 100 * MS);
  /* 1250-byte packets at 1 Mbit/s leave 10 ms apart (5 x 10 ms is within
   * the 100 ms bound, so the bound does not speed them up). */
  for (i = 0; i < 5; i++) {
    GstClockTime at = rc_pacer_next_send (&p, 0);
    fail_unless_equals_uint64 (at, i * 10 * MS);
    rc_pacer_sent (&p, at, 1250, 1000000, (5 - i) * 1250, 0);
    t = at;
  }
  /* An idle pacer sends at once and gives no burst credit. */
  fail_unless_equals_uint64 (rc_pacer_next_send (&p, t + S), t + S);
  /* 50 kB queued at 1 Mbit/s would take 400 ms; with the oldest packet's
   * deadline 100 ms away the rate rises to 4 Mbit/s instead of dropping;
   * 40 ms later, with 60 ms left, to 6.67 Mbit/s. */
  fail_unless_equals_uint64 (rc_pacer_effective_rate (&p, 1000000, 50000, 0,
          0), 4000000);
  fail_unless_equals_uint64 (rc_pacer_effective_rate (&p, 1000000, 50000, 0,
          40 * MS), 6666666);
  fail_unless_equals_uint64 (rc_pacer_queue_time (&p, 1000000, 50000, 0, 0),
      100 * MS);
}

GST_END_TEST;

/* A burst of n packets queued together at a rate far too low leaves evenly
 * spread and entirely within max_queue_time, whatever n: the bound holds
 * per packet, not only for the head (table over burst sizes). */
GST_START_TEST (test_pacer_burst_within_bound)
{
  static const guint sizes[] = { 2, 5, 20, 100, 1000 };
  guint k;

  for (k = 0; k < G_N_ELEMENTS (sizes); k++) {
    guint n = sizes[k], i;
    guint64 queued = (guint64) n * 1200;
    GstClockTime last = 0, prev = 0, first = 0;
    RcPacer p;

    rc_pacer_init (&p, 100 * MS);
    for (i = 0; i < n; i++) {
      GstClockTime at = rc_pacer_next_send (&p, 0);
      fail_unless (at <= 100 * MS, "n=%u: packet %u at %" GST_TIME_FORMAT,
          n, i, GST_TIME_ARGS (at));
      if (i == 0)
        first = at;
      if (i > 1)                /* even spacing, +-1 us of rounding */
        fail_unless (ABS (GST_CLOCK_DIFF (at - prev, prev - last)) <=
            GST_USECOND, "n=%u: uneven at %u", n, i);
      rc_pacer_sent (&p, at, 1200, 100000, queued, 0);
      queued -= 1200;
      last = prev;
      prev = at;
    }
    /* Spread over the bound rather than sent at once. */
    fail_unless (prev - first >= 100 * MS * (n - 1) / n - (GstClockTime) n * GST_USECOND,
        "n=%u: burst spread over only %" GST_TIME_FORMAT, n,
        GST_TIME_ARGS (prev - first));
  }
}

GST_END_TEST;

GST_START_TEST (test_seq_unwrap)
{
  RcSeqUnwrap u;
  guint64 a, b, c, d;

  rc_seq_unwrap_init (&u);
  a = rc_seq_unwrap (&u, 65534);
  b = rc_seq_unwrap (&u, 65535);
  c = rc_seq_unwrap (&u, 0);
  d = rc_seq_unwrap (&u, 65533);        /* late, from before the wrap */
  fail_unless_equals_uint64 (b, a + 1);
  fail_unless_equals_uint64 (c, a + 2);
  fail_unless_equals_uint64 (d, a - 1);
}

GST_END_TEST;

/* delta is OWD - OWD_min whatever the receiver clock's offset. */
GST_START_TEST (test_owd_offset_and_jump)
{
  static const gint64 offsets[] = { 0, 1000 * S, -(gint64) 0 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (offsets); i++) {
    RcOwd o;
    gdouble d;
    GstClockTime base = 10 * S + offsets[i];

    rc_owd_init (&o);
    rc_owd_sample (&o, 0, base + 50 * MS, 1200, &d);
    fail_unless_equals_float (d, 0.0);
    rc_owd_sample (&o, 10 * MS, base + 10 * MS + 70 * MS, 1200, &d);
    fail_unless (fabs (d - 0.020) < 1e-9);
    rc_owd_sample (&o, 20 * MS, base + 20 * MS + 45 * MS, 1200, &d);
    fail_unless_equals_float (d, 0.0);  /* new minimum */
    /* Receiver restarted: its clock steps back by an hour. */
    fail_unless_equals_int (rc_owd_sample (&o, 30 * MS, 30 * MS, 1200, &d),
        RC_OWD_RESET);
    fail_unless_equals_float (d, 0.0);
  }
}

GST_END_TEST;

/* With size_base (URCP's), a packet's base is the line through the lowest
 * OWD of any size and the lowest of a full-size packet, at its size: on a
 * link that serializes (1 Mbit/s here: 8 us a byte after the first), a
 * full packet and a short one that waited equally read the same delta, the
 * wait. Without it the base is the short packet's, and the full packet
 * reads its 8.8 ms of extra service time as delay. Where the size does not
 * show in the OWD (a shaper that hands packets on at the start of their
 * slot) the two bases are the same. */
GST_START_TEST (test_owd_size_base)
{
  guint mode;

  for (mode = 0; mode < 3; mode++) {
    gboolean size_base = mode != 0, serializes = mode != 2;
    RcOwd o;
    gdouble d_full = -1, d_short = -1, d_mid = -1;
    GstClockTime t = 0;

#define OWD_AT(size, wait) (40 * MS + (wait) + (serializes ? \
        (GstClockTime) (size) * 8 * 1000 : 0))
    rc_owd_init (&o);
    o.size_base = size_base;
    /* unqueued: a short and a full packet */
    rc_owd_sample (&o, t, t + OWD_AT (100, 0), 100, &d_short);
    t += 20 * MS;
    rc_owd_sample (&o, t, t + OWD_AT (1200, 0), 1200, &d_full);
    t += 20 * MS;
    /* each waits 5 ms; a 650-byte packet does not */
    rc_owd_sample (&o, t, t + OWD_AT (1200, 5 * MS), 1200, &d_full);
    t += 20 * MS;
    rc_owd_sample (&o, t, t + OWD_AT (100, 5 * MS), 100, &d_short);
    t += 20 * MS;
    rc_owd_sample (&o, t, t + OWD_AT (650, 0), 650, &d_mid);
#undef OWD_AT
    fail_unless (fabs (d_short - 0.005) < 1e-6, "mode %u: short %.3f ms",
        mode, d_short * 1000);
    if (size_base || !serializes) {
      fail_unless (fabs (d_full - 0.005) < 1e-6, "mode %u: full %.3f ms",
          mode, d_full * 1000);
      fail_unless (d_mid < 1e-6, "mode %u: mid-size %.3f ms", mode,
          d_mid * 1000);
    } else {
      fail_unless (fabs (d_full - 0.0138) < 1e-6, "mode %u: full %.3f ms",
          mode, d_full * 1000);
      fail_unless (fabs (d_mid - 0.0044) < 1e-6, "mode %u: mid-size %.3f ms",
          mode, d_mid * 1000);
    }
  }
}

GST_END_TEST;

/* Times at the ends of what TWCC parsing lets through (below 2^63): the raw
 * delay swings from +2^63 to -2^63, a jump, detected as one. The integer
 * difference used to wrap to 2 ns and pass as no jump at all. */
GST_START_TEST (test_owd_extreme_times)
{
  const GstClockTime top = (GstClockTime) G_MAXINT64;
  RcOwd o;
  gdouble d = -1;

  rc_owd_init (&o);
  fail_unless_equals_int (rc_owd_sample (&o, 0, top, 1200, &d), RC_OWD_OK);
  fail_unless_equals_float (d, 0.0);
  fail_unless_equals_int (rc_owd_sample (&o, top, 0, 1200, &d), RC_OWD_RESET);
  fail_unless_equals_float (d, 0.0);
  fail_unless_equals_int (rc_owd_sample (&o, top, 20 * MS, 1200, &d), RC_OWD_OK);
  fail_unless (fabs (d - 0.020) < 1e-6, "delta %f", d);
}

GST_END_TEST;

/* A receiver clock 100 ppm fast: after 10 minutes an all-time minimum would
 * show 60 ms of phantom delay; the drift-following base shows ~none. */
GST_START_TEST (test_owd_drift)
{
  RcOwd o;
  gdouble d = 0;
  GstClockTime t;

  rc_owd_init (&o);
  for (t = 0; t <= 600 * S; t += 20 * MS) {
    GstClockTime recv = t + 40 * MS + (GstClockTime) (t * 100e-6);
    rc_owd_sample (&o, t, recv, 1200, &d);
  }
  fail_unless (d < 0.003, "phantom delay %.1f ms", d * 1000);
  fail_unless (fabs (rc_owd_skew_ppm (&o) - 100) < 10, "skew %.1f",
      rc_owd_skew_ppm (&o));
}

GST_END_TEST;

/* The packets sent at `t` on a path whose lowest OWD moves, with a
 * receiver clock `ppm` fast: a 1 Mbit/s bottleneck that serializes, 40 ms
 * away; for the first 20 s a short packet (100 bytes: 8.8 ms less
 * serialization) before each full one, as a start at a low rate sends; and
 * 5 ms more delay until 150 s (a capacity rise then). *d gets the full
 * packet's delta. */
static void
feed_steps (RcOwd * o, GstClockTime t, gdouble ppm, gdouble * d)
{
  const guint sizes[] = { 100, 1200 };
  GstClockTime extra = t < 150 * S ? 5 * MS : 0;
  guint i;

  for (i = t < 20 * S ? 0 : 1; i < G_N_ELEMENTS (sizes); i++) {
    GstClockTime sent = t + i * MS;
    rc_owd_sample (o, sent, sent + 40 * MS + sizes[i] * 8 * 1000 + extra +
        (GstClockTime) (sent * ppm * 1e-6), sizes[i], d);
  }
}

/* No drift, only those steps. A two-point fit of all packets' minima read
 * them as drift (+250 ppm, then -83 ppm) and carried the base away from the
 * truth; the skew stays 0 and a full packet on the empty queue reads 0. */
GST_START_TEST (test_owd_steps_are_not_drift)
{
  RcOwd o;
  gdouble d = 0, worst = 0;
  GstClockTime t;

  rc_owd_init (&o);
  for (t = 0; t <= 400 * S; t += 20 * MS) {
    feed_steps (&o, t, 0, &d);
    worst = MAX (worst, fabs (rc_owd_skew_ppm (&o)));
  }
  fail_unless (worst == 0, "skew read %.1f ppm", worst);
  /* the short packets and the slower path have left the 2-minute window */
  fail_unless (d < 1e-6, "delta %.3f ms", d * 1000);
}

GST_END_TEST;

/* A 100 ppm drift with the same steps: the short packets do not move the
 * estimate; while the capacity step is in the complete buckets the skew is
 * not taken (0, the base the window's minimum: up to 6 ms of phantom delay
 * here), and once it has left the window the drift is read again. */
GST_START_TEST (test_owd_drift_with_steps)
{
  RcOwd o;
  gdouble d = 0;
  GstClockTime t;

  rc_owd_init (&o);
  for (t = 0; t <= 600 * S; t += 20 * MS) {
    feed_steps (&o, t, 100, &d);
    if (t > 160 * S && t < 240 * S)
      fail_unless (rc_owd_skew_ppm (&o) == 0, "skew %.1f ppm at %.0f s "
          "with a step in the window", rc_owd_skew_ppm (&o),
          (gdouble) t / S);
  }
  fail_unless (fabs (rc_owd_skew_ppm (&o) - 100) < 10, "skew %.1f",
      rc_owd_skew_ppm (&o));
  fail_unless (d < 0.003, "phantom delay %.1f ms", d * 1000);
}

GST_END_TEST;

static GstStructure *
pkt (guint seq, guint64 local, guint64 remote, gboolean lost)
{
  return gst_structure_new ("RTPTWCCPacket", "seqnum", G_TYPE_UINT, seq,
      "local-ts", G_TYPE_UINT64, local, "remote-ts", G_TYPE_UINT64, remote,
      "payload-type", G_TYPE_UCHAR, 96, "size", G_TYPE_UINT, 1200,
      "lost", G_TYPE_BOOLEAN, lost, NULL);
}

static GstStructure *
twcc_event_struct (GstStructure ** pkts, guint n)
{
  GValueArray *arr = g_value_array_new (n);
  GstStructure *s = gst_structure_new_empty (RC_TWCC_EVENT_NAME);
  GValue v = G_VALUE_INIT;
  guint i;

  for (i = 0; i < n; i++) {
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, pkts[i]);
    g_value_array_append (arr, &v);
    g_value_unset (&v);
  }
  g_value_init (&v, G_TYPE_VALUE_ARRAY);
  g_value_take_boxed (&v, arr);
  gst_structure_take_value (s, "packets", &v);
  return s;
}

GST_START_TEST (test_twcc_parse_good)
{
  GstStructure *p[3] = {
    pkt (65535, 1 * MS, 100 * MS, FALSE),
    pkt (0, 2 * MS, GST_CLOCK_TIME_NONE, TRUE),
    pkt (1, 3 * MS, 103 * MS, FALSE),
  };
  GstStructure *s = twcc_event_struct (p, 3);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (RcPacketResult));
  RcSeqUnwrap u;
  RcTwccParseInfo info;
  RcPacketResult *r;

  rc_seq_unwrap_init (&u);
  fail_unless (rc_twcc_parse (s, &u, out, &info));
  fail_unless_equals_int (out->len, 3);
  fail_unless_equals_int (info.n_rejected, 0);
  r = (RcPacketResult *) out->data;
  fail_unless_equals_uint64 (r[1].seq, r[0].seq + 1);   /* across the wrap */
  fail_unless_equals_uint64 (r[2].seq, r[0].seq + 2);
  fail_unless (r[1].lost && !GST_CLOCK_TIME_IS_VALID (r[1].recv_ts));
  fail_unless_equals_uint64 (r[2].recv_ts, 103 * MS);
  fail_unless_equals_uint64 (r[2].send_ts, 3 * MS);
  g_array_unref (out);
  gst_structure_free (s);
}

GST_END_TEST;

/* A report as large as rtpsession makes them (one entry per packet-status
 * count, up to 65535, from a ~40-byte feedback packet), every entry twice:
 * each sequence number is kept once, the first time. The duplicate check
 * used to compare each entry with all before it (1.2 s for 65535 entries,
 * urcpsender's lock held meanwhile); GST_INFO prints the time it takes. */
GST_START_TEST (test_twcc_parse_large_report)
{
  const guint n = 30000;
  GstStructure **p = g_new (GstStructure *, 2 * n);
  GstStructure *s;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (RcPacketResult));
  RcSeqUnwrap u;
  RcTwccParseInfo info;
  gint64 t0;
  guint i;

  for (i = 0; i < 2 * n; i++) {
    guint seq = (60000 + i % n) & 0xffff;       /* wraps inside the report */
    p[i] = pkt (seq, (i % n) * MS, (i % n) * MS + (i < n ? 50 : 99) * MS,
        FALSE);
  }
  s = twcc_event_struct (p, 2 * n);
  rc_seq_unwrap_init (&u);
  t0 = g_get_monotonic_time ();
  fail_unless (rc_twcc_parse (s, &u, out, &info));
  GST_INFO ("%u entries parsed in %.1f ms", 2 * n,
      (g_get_monotonic_time () - t0) / 1000.0);
  fail_unless_equals_int (out->len, n);
  fail_unless_equals_int (info.n_duplicates, n);
  for (i = 0; i < n; i++) {
    const RcPacketResult *r = &g_array_index (out, RcPacketResult, i);
    fail_unless_equals_uint64 (r->seq, g_array_index (out, RcPacketResult,
            0).seq + i);
    fail_unless_equals_uint64 (r->recv_ts, i * MS + 50 * MS);  /* the first */
  }
  g_array_unref (out);
  gst_structure_free (s);
  g_free (p);
}

GST_END_TEST;

/* Every malformed shape is skipped and counted, never trusted. */
GST_START_TEST (test_twcc_parse_malformed)
{
  struct
  {
    const gchar *desc;
    GstStructure *entry;
    guint rejected;
  } cases[] = {
    {"no seqnum", gst_structure_new ("RTPTWCCPacket", "local-ts",
              G_TYPE_UINT64, (guint64) 1, "remote-ts", G_TYPE_UINT64,
              (guint64) 2, NULL), 1},
    {"seqnum over 16 bits", gst_structure_new ("RTPTWCCPacket", "seqnum",
              G_TYPE_UINT, 70000, "local-ts", G_TYPE_UINT64, (guint64) 1,
              "remote-ts", G_TYPE_UINT64, (guint64) 2, NULL), 1},
    {"received without remote-ts", gst_structure_new ("RTPTWCCPacket",
              "seqnum", G_TYPE_UINT, 5, "local-ts", G_TYPE_UINT64,
              (guint64) 1, NULL), 1},
    {"received without local-ts", gst_structure_new ("RTPTWCCPacket",
              "seqnum", G_TYPE_UINT, 5, "remote-ts", G_TYPE_UINT64,
              (guint64) 1, NULL), 1},
    {"negative seqnum", gst_structure_new ("RTPTWCCPacket", "seqnum",
              G_TYPE_INT, -3, "local-ts", G_TYPE_UINT64, (guint64) 1,
              "remote-ts", G_TYPE_UINT64, (guint64) 2, NULL), 1},
    {"lost is a string", gst_structure_new ("RTPTWCCPacket", "seqnum",
              G_TYPE_UINT, 5, "lost", G_TYPE_STRING, "yes", NULL), 1},
    {"remote-ts beyond 2^63", gst_structure_new ("RTPTWCCPacket", "seqnum",
              G_TYPE_UINT, 5, "local-ts", G_TYPE_UINT64, (guint64) 1,
              "remote-ts", G_TYPE_UINT64, G_MAXUINT64 - 5, NULL), 1},
    {"local-ts beyond 2^63", gst_structure_new ("RTPTWCCPacket", "seqnum",
              G_TYPE_UINT, 5, "local-ts", G_TYPE_UINT64,
              (guint64) G_MAXINT64 + 7, "remote-ts", G_TYPE_UINT64,
              (guint64) 2, NULL), 1},
    {"lost without times is fine", gst_structure_new ("RTPTWCCPacket",
              "seqnum", G_TYPE_UINT, 5, "lost", G_TYPE_BOOLEAN, TRUE, NULL),
        0},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstStructure *one[1] = { cases[i].entry };
    GstStructure *s = twcc_event_struct (one, 1);
    GArray *out = g_array_new (FALSE, FALSE, sizeof (RcPacketResult));
    RcSeqUnwrap u;
    RcTwccParseInfo info;

    rc_seq_unwrap_init (&u);
    fail_unless (rc_twcc_parse (s, &u, out, &info), "%s", cases[i].desc);
    fail_unless_equals_int (info.n_rejected, cases[i].rejected);
    fail_unless_equals_int (out->len, 1 - cases[i].rejected);
    g_array_unref (out);
    gst_structure_free (s);
  }
}

GST_END_TEST;

GST_START_TEST (test_twcc_parse_unusable)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (RcPacketResult));
  RcSeqUnwrap u;
  RcTwccParseInfo info;
  GstStructure *s;

  rc_seq_unwrap_init (&u);
  s = gst_structure_new_empty (RC_TWCC_EVENT_NAME);
  fail_if (rc_twcc_parse (s, &u, out, &info));
  gst_structure_set (s, "packets", G_TYPE_STRING, "nope", NULL);
  fail_if (rc_twcc_parse (s, &u, out, &info));
  gst_structure_free (s);
  s = gst_structure_new_empty ("SomethingElse");
  fail_if (rc_twcc_parse (s, &u, out, &info));
  gst_structure_free (s);
  fail_unless_equals_int (out->len, 0);
  g_array_unref (out);
}

GST_END_TEST;

/* Sec. VI-E: with no delay signal at all, loss alone brings the rate down
 * (within 40 s of 20 % loss: eq. 17's k2 counts the encoder's response
 * time in the loop delay, so the loss instance moves about as slowly as the
 * delay one). */
GST_START_TEST (test_loss_instance_drives_rate)
{
  RcRateLimits lim;
  RcController *c;
  GstClockTime t;
  guint64 seq = 0, before = 0;
  RcPacketResult res[50] = { {0} };

  rc_rate_limits_init (&lim);
  c = rc_controller_new (rc_controller_lookup ("urcp"), &lim, NULL, NULL);
  for (t = 0; t < 60 * S; t += 50 * MS) {
    gboolean lossy = t >= 20 * S;
    guint i;
    RcFeedback fb = { 0 };

    if (t == 20 * S)
      before = rc_controller_get_decision (c).media_bps;
    for (i = 0; i < 10; i++) {
      GstClockTime st = t + i * 5 * MS;
      rc_controller_on_packet_sent (c, seq, 1000, FALSE, st);
      res[i].seq = seq++;
      res[i].send_ts = st;
      res[i].size = 1000;
      /* 20 % loss, delay constant (a policer on a noiseless path). */
      res[i].lost = lossy && i % 5 == 0;
      res[i].recv_ts = res[i].lost ? GST_CLOCK_TIME_NONE : st + 30 * MS;
    }
    fb.packets = res;
    fb.n_packets = 10;
    rc_controller_on_feedback (c, &fb, t + 60 * MS);
  }
  fail_unless (before > 0);
  fail_unless (rc_controller_get_decision (c).media_bps < before / 2,
      "rate %" G_GUINT64_FORMAT " did not fall from %" G_GUINT64_FORMAT,
      rc_controller_get_decision (c).media_bps, before);
  fail_unless_equals_string (rc_controller_get_decision (c).reason,
      "following the packet loss");
  rc_controller_free (c);
}

GST_END_TEST;

static Suite *
primitives_suite (void)
{
  Suite *s = suite_create ("primitives");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_avg_window);
  tcase_add_test (tc, test_rate_meter);
  tcase_add_test (tc, test_pacer_spacing_and_bound);
  tcase_add_test (tc, test_pacer_burst_within_bound);
  tcase_add_test (tc, test_seq_unwrap);
  tcase_add_test (tc, test_owd_offset_and_jump);
  tcase_add_test (tc, test_owd_size_base);
  tcase_add_test (tc, test_owd_extreme_times);
  tcase_add_test (tc, test_owd_drift);
  tcase_add_test (tc, test_owd_steps_are_not_drift);
  tcase_add_test (tc, test_owd_drift_with_steps);
  tcase_add_test (tc, test_twcc_parse_good);
  tcase_add_test (tc, test_twcc_parse_large_report);
  tcase_add_test (tc, test_twcc_parse_malformed);
  tcase_add_test (tc, test_twcc_parse_unusable);
  tcase_add_test (tc, test_loss_instance_drives_rate);
  return s;
}

GST_CHECK_MAIN (primitives);
