/* GstHarness + GstTestClock tests for the linksim element.
 *
 * Time is the harness' test clock: linksim's running time is the test clock
 * time (a lone element has base time 0). Packets leave from linksim's task,
 * which waits on that clock for the next departure or arrival, so the tests
 * crank clock waits one by one and check the clock time at which each
 * packet came out. Buffers carry their index in GST_BUFFER_OFFSET.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/check/gsttestclock.h>

#define MS GST_MSECOND
#define US GST_USECOND
#define CAPS "application/x-test"

/* ------------------------------------------------------------- helpers */

static GstBuffer *
buf_new (guint size, guint64 index)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, size, NULL);

  gst_buffer_memset (b, 0, (guint8) index, size);
  GST_BUFFER_OFFSET (b) = index;
  return b;
}

/* linksim with `props` (gst_util_set_object_arg pairs, NULL-terminated),
 * flow 0 harnessed. Properties go on before PLAYING: the link is built at
 * READY -> PAUSED. The buffer sizes in these tests are the bytes on the
 * link: overhead 0 unless `props` say otherwise (test_overhead has the
 * default). */
static GstHarness *
linksim_harness_new (const gchar * first, ...)
{
  GstElement *e = gst_element_factory_make ("linksim", NULL);
  GstHarness *h;
  const gchar *name;
  va_list ap;

  fail_unless (e != NULL, "linksim not found; GST_PLUGIN_PATH?");
  g_object_set (e, "overhead", 0, NULL);
  va_start (ap, first);
  for (name = first; name; name = va_arg (ap, const gchar *))
    gst_util_set_object_arg (G_OBJECT (e), name, va_arg (ap, const gchar *));
  va_end (ap);
  h = gst_harness_new_with_element (e, "sink_0", "src_0");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, CAPS);
  return h;
}

static GstClockTime
clock_now (GstHarness * h)
{
  GstTestClock *c = gst_harness_get_testclock (h);
  GstClockTime t = gst_clock_get_time (GST_CLOCK (c));
  gst_object_unref (c);
  return t;
}

/* Releases the next clock wait; it must be at `want`. Then pulls the packet
 * that comes out and checks it is `index`. */
static void
crank_and_pull (GstHarness * h, GstClockTime want, guint64 index)
{
  GstBuffer *b;

  fail_unless (gst_harness_crank_single_clock_wait (h));
  fail_unless_equals_uint64 (clock_now (h), want);
  b = gst_harness_pull (h);
  fail_unless (b != NULL, "nothing came out at %" GST_TIME_FORMAT,
      GST_TIME_ARGS (want));
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), index);
  gst_buffer_unref (b);
}

static GstStructure *
get_stats (GstElement * e)
{
  GstStructure *s = NULL;

  g_object_get (e, "stats", &s, NULL);
  fail_unless (s != NULL);
  return s;
}

static guint64
stat_u64 (GstElement * e, const gchar * field)
{
  GstStructure *s = get_stats (e);
  guint64 v = 0;

  fail_unless (gst_structure_get_uint64 (s, field, &v),
      "no guint64 '%s' in %" GST_PTR_FORMAT, field, s);
  gst_structure_free (s);
  return v;
}

/* Field of flow `i` in stats.flows. */
static guint64
flow_stat_u64 (GstElement * e, guint i, const gchar * field)
{
  GstStructure *s = get_stats (e);
  const GValue *flows = gst_structure_get_value (s, "flows");
  const GstStructure *fs;
  guint64 v = 0;

  fail_unless (flows && GST_VALUE_HOLDS_ARRAY (flows));
  fail_unless (i < gst_value_array_get_size (flows));
  fs = gst_value_get_structure (gst_value_array_get_value (flows, i));
  fail_unless (gst_structure_get_uint64 (fs, field, &v), "no %s", field);
  gst_structure_free (s);
  return v;
}

/* Pulls events up to and including one of `type`; FALSE if absent. */
static gboolean
got_event (GstHarness * h, GstEventType type)
{
  GstEvent *ev;

  while ((ev = gst_harness_try_pull_event (h))) {
    gboolean hit = GST_EVENT_TYPE (ev) == type;
    gst_event_unref (ev);
    if (hit)
      return TRUE;
  }
  return FALSE;
}

/* Cranks until EOS comes out; appends every buffer to `out`. */
static void
drain_until_eos (GstHarness * h, GPtrArray * out)
{
  GstTestClock *c = gst_harness_get_testclock (h);
  gint64 end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  gboolean eos = FALSE;
  GstBuffer *b;

  while (!eos && g_get_monotonic_time () < end) {
    while ((b = gst_harness_try_pull (h)))
      g_ptr_array_add (out, b);
    eos = got_event (h, GST_EVENT_EOS);
    if (eos)
      break;
    if (gst_test_clock_peek_id_count (c) > 0)
      gst_harness_crank_single_clock_wait (h);
    else
      g_usleep (500);
  }
  while ((b = gst_harness_try_pull (h)))
    g_ptr_array_add (out, b);
  fail_unless (eos, "no EOS");
  gst_object_unref (c);
}

/* ============================================================ timing */

/* 1250 B at 1 Mbit/s take 10 ms each; with 20 ms of propagation delay three
 * packets pushed at 0 come out at 30, 40 and 50 ms, one per clock wait, as
 * the very same buffers (timestamp=false: untouched). */
GST_START_TEST (test_packets_leave_at_link_times)
{
  GstHarness *h = linksim_harness_new ("capacity", "1000000",
      "delay", "20000000", "timestamp", "false", NULL);
  GstBuffer *in[3];
  guint i;

  for (i = 0; i < 3; i++) {
    in[i] = buf_new (1250, i);
    gst_buffer_ref (in[i]);
    fail_unless_equals_int (gst_harness_push (h, in[i]), GST_FLOW_OK);
  }
  fail_unless (gst_harness_wait_for_clock_id_waits (h, 1, 5));
  fail_unless (gst_harness_try_pull (h) == NULL);
  for (i = 0; i < 3; i++) {
    GstBuffer *b;
    fail_unless (gst_harness_crank_single_clock_wait (h));
    fail_unless_equals_uint64 (clock_now (h), (30 + 10 * i) * MS);
    b = gst_harness_pull (h);
    fail_unless (b == in[i], "packet %u copied or out of order", i);
    gst_buffer_unref (b);
    gst_buffer_unref (in[i]);
  }
  fail_unless (gst_harness_try_pull (h) == NULL);
  /* The link is idle again: a packet at 100 ms leaves at 130 ms. */
  gst_harness_set_time (h, 100 * MS);
  fail_unless_equals_int (gst_harness_push (h, buf_new (1250, 9)),
      GST_FLOW_OK);
  crank_and_pull (h, 130 * MS, 9);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* By default each packet leaves stamped with its arrival running time (PTS
 * and DTS), whatever it carried in, as udpsrc stamps a received packet: an
 * rtpbin after linksim must see the emulated arrivals. */
GST_START_TEST (test_arrival_timestamps)
{
  GstHarness *h = linksim_harness_new ("capacity", "1000000",
      "delay", "20000000", NULL);
  guint i;

  for (i = 0; i < 2; i++) {
    GstBuffer *in = buf_new (1250, i);
    GST_BUFFER_PTS (in) = GST_BUFFER_DTS (in) = 5 * GST_SECOND;
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }
  for (i = 0; i < 2; i++) {
    GstBuffer *b;
    fail_unless (gst_harness_crank_single_clock_wait (h));
    b = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), i);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), (30 + 10 * i) * MS);
    fail_unless_equals_uint64 (GST_BUFFER_DTS (b), (30 + 10 * i) * MS);
    gst_buffer_unref (b);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* overhead adds bytes on the link: 1222 + 28 = 1250 B, 10 ms. 28 (IPv4 +
 * UDP headers) is the default. */
GST_START_TEST (test_overhead)
{
  GstElement *fresh = gst_element_factory_make ("linksim", NULL);
  GstHarness *h;
  guint def = 0;

  g_object_get (fresh, "overhead", &def, NULL);
  fail_unless_equals_int (def, 28);
  gst_object_unref (fresh);
  h = linksim_harness_new ("capacity", "1000000", "overhead", "28", NULL);

  fail_unless_equals_int (gst_harness_push (h, buf_new (1222, 0)),
      GST_FLOW_OK);
  crank_and_pull (h, 10 * MS, 0);
  fail_unless_equals_uint64 (stat_u64 (h->element, "bytes-out"), 1250);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A capacity change while playing applies from that moment, also to the
 * rest of the queue: 4 x 1250 B at 1 Mbit/s; after the first (10 ms) the
 * link goes to 2 Mbit/s: 5 ms each. */
GST_START_TEST (test_capacity_change_while_playing)
{
  GstHarness *h = linksim_harness_new ("capacity", "1000000", NULL);
  guint i;

  for (i = 0; i < 4; i++)
    fail_unless_equals_int (gst_harness_push (h, buf_new (1250, i)),
        GST_FLOW_OK);
  crank_and_pull (h, 10 * MS, 0);
  g_object_set (h->element, "capacity", (guint64) 2000000, NULL);
  fail_unless_equals_uint64 (stat_u64 (h->element, "capacity"), 2000000);
  for (i = 1; i < 4; i++)
    crank_and_pull (h, (10 + 5 * i) * MS, i);
  /* And the delay too: 40 ms more for what leaves from now on. */
  g_object_set (h->element, "delay", (guint64) 40 * MS, NULL);
  fail_unless_equals_int (gst_harness_push (h, buf_new (1250, 4)),
      GST_FLOW_OK);
  crank_and_pull (h, 25 * MS + 5 * MS + 40 * MS, 4);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* schedule "0:1000000,0.015:2000000": the second packet is half served at
 * 1 Mbit/s (10-15 ms), the rest at 2 Mbit/s (2.5 ms). */
GST_START_TEST (test_schedule)
{
  GstHarness *h = linksim_harness_new ("schedule", "0:1000000,0.015:2000000",
      NULL);
  guint i;

  for (i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, buf_new (1250, i)),
        GST_FLOW_OK);
  crank_and_pull (h, 10 * MS, 0);
  crank_and_pull (h, 17500 * US, 1);
  crank_and_pull (h, 22500 * US, 2);
  fail_unless_equals_uint64 (stat_u64 (h->element, "capacity"), 2000000);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A Mahimahi trace "5 10": 1500 B opportunities at 5, 10, 15, 20 ms... */
GST_START_TEST (test_trace_file)
{
  gchar *path;
  gint fd = g_file_open_tmp ("linksim-XXXXXX.trace", &path, NULL);
  GstHarness *h;

  fail_unless (fd >= 0);
  fail_unless (write (fd, "5\n10\n", 5) == 5);
  close (fd);
  h = linksim_harness_new ("trace-file", path, NULL);
  fail_unless_equals_int (gst_harness_push (h, buf_new (1500, 0)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, buf_new (1500, 1)),
      GST_FLOW_OK);
  /* Two small ones share the opportunity at 15 ms. */
  fail_unless_equals_int (gst_harness_push (h, buf_new (700, 2)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, buf_new (700, 3)),
      GST_FLOW_OK);
  crank_and_pull (h, 5 * MS, 0);
  crank_and_pull (h, 10 * MS, 1);
  crank_and_pull (h, 15 * MS, 2);
  {
    GstBuffer *b = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), 3);
    gst_buffer_unref (b);
  }
  /* The rate of the next 200 ms: an opportunity every 5 ms. */
  fail_unless_equals_uint64 (stat_u64 (h->element, "capacity"), 2400000);
  gst_harness_teardown (h);
  g_unlink (path);
  g_free (path);
}

GST_END_TEST;

/* An outage in the schedule, "0:1000000,0.010:0,0.030:1000000": a packet
 * entering at 12 ms waits for the capacity to come back at 30 ms. */
GST_START_TEST (test_schedule_outage)
{
  GstHarness *h = linksim_harness_new ("schedule",
      "0:1000000,0.010:0,0.030:1000000", NULL);

  fail_unless_equals_int (gst_harness_push (h, buf_new (1250, 0)),
      GST_FLOW_OK);
  crank_and_pull (h, 10 * MS, 0);
  gst_harness_set_time (h, 12 * MS);
  fail_unless_equals_int (gst_harness_push (h, buf_new (1250, 1)),
      GST_FLOW_OK);
  fail_unless_equals_uint64 (stat_u64 (h->element, "capacity"), 0);
  /* 300 ms at the 1 Mbit/s before the outage: 37500 B; 1250 are queued. */
  fail_unless_equals_uint64 (stat_u64 (h->element, "queue-bytes"), 1250);
  fail_unless_equals_int (gst_harness_push (h, buf_new (36250, 2)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, buf_new (1, 3)), GST_FLOW_OK);
  fail_unless_equals_uint64 (stat_u64 (h->element, "dropped-queue"), 1);
  crank_and_pull (h, 40 * MS, 1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* loss-episodes "0.005:0.015": the packets entering from 5 to 15 ms of
 * running time are lost after the queue. */
GST_START_TEST (test_loss_episodes)
{
  GstHarness *h = linksim_harness_new ("loss-episodes", "0.005:0.015",
      NULL);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  guint i;

  /* 125 B at 1 Mbit/s: 1 ms each, one per ms, packet i at i + 1 ms. */
  for (i = 0; i < 20; i++) {
    gst_harness_set_time (h, (i + 1) * MS);
    fail_unless_equals_int (gst_harness_push (h, buf_new (125, i)),
        GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  drain_until_eos (h, out);
  fail_unless_equals_int (out->len, 10);
  for (i = 0; i < out->len; i++) {
    guint64 k = GST_BUFFER_OFFSET (g_ptr_array_index (out, i));
    fail_unless (k < 4 || k > 13, "packet %" G_GUINT64_FORMAT " came out",
        k);
  }
  fail_unless_equals_uint64 (stat_u64 (h->element, "dropped-loss"), 10);
  g_ptr_array_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ========================================================= flows */

/* Two flows share the queue: flow 1's packet waits behind flow 0's (leaves
 * at 20 ms) but has no propagation delay (pad property), so it arrives
 * before flow 0's, which has the element's 30 ms. */
GST_START_TEST (test_two_flows_share_queue)
{
  GstHarness *h0 = linksim_harness_new ("capacity", "1000000",
      "delay", "30000000", NULL);
  GstHarness *h1 = gst_harness_new_with_element (h0->element, "sink_1",
      "src_1");
  GstPad *sink1 = gst_element_get_static_pad (h0->element, "sink_1");
  GstBuffer *b;

  fail_unless (sink1 != NULL);
  g_object_set (sink1, "delay", (gint64) 0, NULL);
  gst_object_unref (sink1);
  gst_harness_set_src_caps_str (h1, CAPS);

  fail_unless_equals_int (gst_harness_push (h0, buf_new (1250, 0)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h1, buf_new (1250, 100)),
      GST_FLOW_OK);
  fail_unless (gst_harness_crank_single_clock_wait (h0));
  fail_unless_equals_uint64 (clock_now (h0), 20 * MS);
  b = gst_harness_pull (h1);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), 100);
  gst_buffer_unref (b);
  fail_unless (gst_harness_try_pull (h0) == NULL);
  crank_and_pull (h0, 40 * MS, 0);

  fail_unless_equals_uint64 (flow_stat_u64 (h0->element, 0, "packets-out"),
      1);
  fail_unless_equals_uint64 (flow_stat_u64 (h0->element, 1, "packets-out"),
      1);
  fail_unless_equals_uint64 (stat_u64 (h0->element, "packets-out"), 2);
  gst_harness_teardown (h1);
  gst_harness_teardown (h0);
}

GST_END_TEST;

/* Tail drop at the queue limit is counted, and is not an error upstream:
 * 5000 bytes hold 4 x 1250 B; the 5th and 6th are dropped. */
GST_START_TEST (test_tail_drop_counted)
{
  GstHarness *h = linksim_harness_new ("capacity", "1000000",
      "queue-limit-bytes", "5000", NULL);
  guint i;

  for (i = 0; i < 6; i++)
    fail_unless_equals_int (gst_harness_push (h, buf_new (1250, i)),
        GST_FLOW_OK);
  fail_unless_equals_uint64 (stat_u64 (h->element, "dropped-queue"), 2);
  fail_unless_equals_uint64 (flow_stat_u64 (h->element, 0, "dropped-queue"),
      2);
  fail_unless_equals_uint64 (stat_u64 (h->element, "packets-in"), 6);
  fail_unless_equals_uint64 (stat_u64 (h->element, "queue-bytes"), 5000);
  for (i = 0; i < 4; i++)
    crank_and_pull (h, (i + 1) * 10 * MS, i);
  fail_unless_equals_uint64 (stat_u64 (h->element, "packets-out"), 4);
  fail_unless_equals_uint64 (stat_u64 (h->element, "bytes-out"), 5000);
  fail_unless_equals_uint64 (stat_u64 (h->element, "queue-bytes"), 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* queue-limit-ms at the current capacity: 40 ms at 1 Mbit/s = 5000 B. */
GST_START_TEST (test_tail_drop_time_limit)
{
  GstHarness *h = linksim_harness_new ("capacity", "1000000",
      "queue-limit-ms", "40", NULL);
  guint i;

  for (i = 0; i < 5; i++)
    fail_unless_equals_int (gst_harness_push (h, buf_new (1000, i)),
        GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, buf_new (1, 5)), GST_FLOW_OK);
  fail_unless_equals_uint64 (stat_u64 (h->element, "dropped-queue"), 1);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Random loss after the queue: counted, nothing comes out. */
GST_START_TEST (test_loss_counted)
{
  GstHarness *h = linksim_harness_new ("loss-model", "bernoulli",
      "loss-rate", "1.0", NULL);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  guint i;

  for (i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, buf_new (500, i)),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  drain_until_eos (h, out);
  fail_unless_equals_int (out->len, 0);
  fail_unless_equals_uint64 (stat_u64 (h->element, "dropped-loss"), 3);
  fail_unless_equals_uint64 (stat_u64 (h->element, "packets-out"), 0);
  g_ptr_array_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Heavy-tailed, correlated noise and a bursty loss model through the
 * element: the packets that get through come out in order. */
GST_START_TEST (test_noise_keeps_order)
{
  GstHarness *h = linksim_harness_new ("capacity", "5000000",
      "delay", "10000000", "noise-distribution", "pareto",
      "noise-mean", "30000000", "noise-shape", "1.5",
      "noise-correlation", "0.3", "loss-model", "gilbert-elliott",
      "ge-p", "0.05", "ge-r", "0.5", "seed", "7", NULL);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  guint i;

  for (i = 0; i < 60; i++) {
    gst_harness_set_time (h, clock_now (h) + 1 * MS);
    fail_unless_equals_int (gst_harness_push (h, buf_new (300, i)),
        GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  drain_until_eos (h, out);
  fail_unless (out->len > 30 && out->len < 60, "%u out", out->len);
  for (i = 1; i < out->len; i++)
    fail_unless (GST_BUFFER_OFFSET (g_ptr_array_index (out, i)) >
        GST_BUFFER_OFFSET (g_ptr_array_index (out, i - 1)));
  fail_unless_equals_uint64 (stat_u64 (h->element, "dropped-loss"),
      60 - out->len);
  g_ptr_array_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ======================================================== events */

/* stream-start, caps, segment come out on the paired pad; a caps event
 * pushed after a packet does not overtake it; EOS leaves once the flow's
 * packets are out, and the flow then refuses data. */
GST_START_TEST (test_events_in_order)
{
  GstHarness *h = linksim_harness_new ("capacity", "1000000", NULL);
  GstCaps *caps;
  GstEvent *ev;

  fail_unless_equals_int (gst_harness_push (h, buf_new (1250, 0)),
      GST_FLOW_OK);
  ev = gst_harness_pull_event (h);
  fail_unless_equals_int (GST_EVENT_TYPE (ev), GST_EVENT_STREAM_START);
  gst_event_unref (ev);
  ev = gst_harness_pull_event (h);
  fail_unless_equals_int (GST_EVENT_TYPE (ev), GST_EVENT_CAPS);
  gst_event_unref (ev);
  ev = gst_harness_pull_event (h);
  fail_unless_equals_int (GST_EVENT_TYPE (ev), GST_EVENT_SEGMENT);
  gst_event_unref (ev);

  caps = gst_caps_from_string (CAPS ",x=(int)2");
  fail_unless (gst_harness_push_event (h, gst_event_new_caps (caps)));
  gst_caps_unref (caps);
  fail_unless_equals_int (gst_harness_push (h, buf_new (1250, 1)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (gst_harness_wait_for_clock_id_waits (h, 1, 5));
  fail_if (got_event (h, GST_EVENT_CAPS), "caps overtook a packet");

  crank_and_pull (h, 10 * MS, 0);
  ev = gst_harness_pull_event (h);
  fail_unless_equals_int (GST_EVENT_TYPE (ev), GST_EVENT_CAPS);
  gst_event_unref (ev);
  fail_if (got_event (h, GST_EVENT_EOS), "EOS overtook a packet");
  crank_and_pull (h, 20 * MS, 1);
  ev = gst_harness_pull_event (h);
  fail_unless_equals_int (GST_EVENT_TYPE (ev), GST_EVENT_EOS);
  gst_event_unref (ev);
  fail_unless_equals_int (gst_harness_push (h, buf_new (10, 2)),
      GST_FLOW_EOS);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A flush empties the flow's part of the link; afterwards data flows. */
GST_START_TEST (test_flush)
{
  GstHarness *h = linksim_harness_new ("capacity", "1000000", NULL);
  GstSegment seg;
  guint i;

  for (i = 0; i < 5; i++)
    fail_unless_equals_int (gst_harness_push (h, buf_new (1250, i)),
        GST_FLOW_OK);
  crank_and_pull (h, 10 * MS, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless_equals_int (gst_harness_push (h, buf_new (1250, 50)),
      GST_FLOW_FLUSHING);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  fail_unless_equals_uint64 (stat_u64 (h->element, "flushed"), 4);
  fail_unless_equals_uint64 (stat_u64 (h->element, "queue-bytes"), 0);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  /* The link is free: a new packet leaves 10 ms after now (10 ms). */
  fail_unless_equals_int (gst_harness_push (h, buf_new (1250, 9)),
      GST_FLOW_OK);
  crank_and_pull (h, 20 * MS, 9);
  fail_unless (gst_harness_try_pull (h) == NULL);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Going to NULL while the task waits on the clock must not hang or leak. */
GST_START_TEST (test_teardown_while_waiting)
{
  GstHarness *h = linksim_harness_new ("capacity", "100000", NULL);
  guint i;

  for (i = 0; i < 10; i++)
    gst_harness_push (h, buf_new (1000, i));
  fail_unless (gst_harness_wait_for_clock_id_waits (h, 1, 5));
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The latency query adds the flow's propagation delay. */
GST_START_TEST (test_latency_query)
{
  GstHarness *h = linksim_harness_new ("delay", "50000000", NULL);
  GstQuery *q = gst_query_new_latency ();
  GstClockTime min, max;
  gboolean live;

  fail_unless (gst_pad_peer_query (h->sinkpad, q));
  gst_query_parse_latency (q, &live, &min, &max);
  fail_unless_equals_uint64 (min, 50 * MS);
  gst_query_unref (q);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ==================================================== configuration */

typedef struct
{
  const gchar *props[6];        /* name, value pairs; NULL-terminated */
  const gchar *want;            /* in the error message */
} BadCase;

static gchar *garbage_trace, *empty_trace;

static const BadCase bad_cases[] = {
  {{"schedule", "garbage"}, "schedule"},
  {{"schedule", "0:1000000,40:abc"}, "rate"},
  {{"schedule", "40:1000000,20:2000000"}, "not after"},
  {{"schedule", "-1:1000000"}, "negative"},
  {{"trace-file", "/nonexistent/linksim.trace"}, "trace"},
  {{"trace-file", "@garbage"}, "not a non-negative integer"},
  {{"trace-file", "@empty"}, "no entries"},
  {{"noise-distribution", "pareto", "noise-shape", "1.0"}, "Pareto"},
  {{"noise-distribution", "pareto", "noise-shape", "0.5"}, "above 1"},
  {{"schedule", "0:1000", "trace-file", "/tmp/x"}, "Both"},
  {{"schedule", "0:1000000,5:0"}, "outage"},
  {{"loss-episodes", "5:3"}, "loss-episodes"},
  {{"loss-episodes", "1:2:7"}, "FROM:TO[:RATE]"},
};

/* Bad settings fail READY -> PAUSED with an error saying what is wrong. */
GST_START_TEST (test_bad_config_fails_state_change)
{
  const BadCase *c = &bad_cases[__i__];
  GstElement *e = gst_element_factory_make ("linksim", NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *m;
  GError *err = NULL;
  gchar *dbg = NULL;
  guint i;

  {
    gint fd = g_file_open_tmp ("linksim-bad-XXXXXX", &garbage_trace, NULL);
    fail_unless (write (fd, "1\n2\nthree\n", 10) == 10);
    close (fd);
    fd = g_file_open_tmp ("linksim-empty-XXXXXX", &empty_trace, NULL);
    close (fd);
  }
  for (i = 0; c->props[i]; i += 2) {
    const gchar *v = c->props[i + 1];
    if (g_str_equal (v, "@garbage"))
      v = garbage_trace;
    else if (g_str_equal (v, "@empty"))
      v = empty_trace;
    gst_util_set_object_arg (G_OBJECT (e), c->props[i], v);
  }
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "no error message");
  gst_message_parse_error (m, &err, &dbg);
  GST_INFO ("case %d: %s", __i__, err->message);
  fail_unless (strstr (err->message, c->want) != NULL,
      "error \"%s\" does not say \"%s\"", err->message, c->want);
  g_error_free (err);
  g_free (dbg);
  gst_message_unref (m);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  g_unlink (garbage_trace);
  g_unlink (empty_trace);
  g_clear_pointer (&garbage_trace, g_free);
  g_clear_pointer (&empty_trace, g_free);
}

GST_END_TEST;

/* Every documented stats field, before and while running. */
GST_START_TEST (test_stats_fields)
{
  /* Times are guint64 ns like the rest: the flow's first seven fields, the
   * totals' all. */
  static const gchar *u64_fields[] = { "packets-in", "bytes-in",
    "packets-out", "bytes-out", "dropped-queue", "dropped-loss", "flushed",
    "qdelay-mean", "qdelay-max", "capacity", "queue-bytes", "queue-delay"
  };
  GstHarness *h = linksim_harness_new ("capacity", "1000000", NULL);
  GstElement *idle = gst_element_factory_make ("linksim", NULL);
  GstElement *els[2] = { idle, h->element };
  guint i, k;

  fail_unless_equals_int (gst_harness_push (h, buf_new (1250, 0)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, buf_new (1250, 1)),
      GST_FLOW_OK);
  crank_and_pull (h, 10 * MS, 0);
  for (k = 0; k < 2; k++) {
    GstStructure *s = get_stats (els[k]);
    const GValue *flows;
    for (i = 0; i < G_N_ELEMENTS (u64_fields); i++)
      fail_unless (gst_structure_has_field_typed (s, u64_fields[i],
              G_TYPE_UINT64), "%s", u64_fields[i]);
    flows = gst_structure_get_value (s, "flows");
    fail_unless (flows && GST_VALUE_HOLDS_ARRAY (flows));
    if (k == 1) {
      const GstStructure *fs;
      guint64 d;
      fail_unless_equals_int (gst_value_array_get_size (flows), 1);
      fs = gst_value_get_structure (gst_value_array_get_value (flows, 0));
      fail_unless_equals_string (gst_structure_get_string (fs, "pad"),
          "sink_0");
      for (i = 0; i < G_N_ELEMENTS (u64_fields) - 3; i++)
        fail_unless (gst_structure_has_field_typed (fs, u64_fields[i],
                G_TYPE_UINT64), "flow %s", u64_fields[i]);
      fail_unless (gst_structure_get_uint64 (fs, "delay", &d));
      fail_unless (gst_structure_get_uint64 (fs, "qdelay-max", &d));
      fail_unless_equals_uint64 (d, 10 * MS);
      /* Mid-way: the second packet has 10 ms of serialization left. */
      fail_unless (gst_structure_get_uint64 (s, "queue-delay", &d));
      fail_unless_equals_uint64 (d, 10 * MS);
    } else {
      fail_unless_equals_int (gst_value_array_get_size (flows), 0);
    }
    gst_structure_free (s);
  }
  gst_object_unref (idle);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* gst-launch forms: the short one-flow form links sink_0 and src_0; named
 * pads; a pad's delay set as l.sink_1::delay through the child proxy. */
GST_START_TEST (test_launch_forms)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch ("fakesrc num-buffers=1 ! linksim name=l "
      "! fakesink", &err);
  GstElement *l;
  GstPad *pad;
  gint64 d = 0;

  fail_unless (p != NULL, "%s", err ? err->message : "");
  l = gst_bin_get_by_name (GST_BIN (p), "l");
  pad = gst_element_get_static_pad (l, "src_0");
  fail_unless (pad && gst_pad_is_linked (pad));
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (l, "sink_0");
  fail_unless (pad && gst_pad_is_linked (pad));
  gst_object_unref (pad);
  gst_object_unref (l);
  gst_object_unref (p);

  p = gst_parse_launch ("linksim name=l sink_1::delay=80000000 "
      "fakesrc ! l.sink_0  l.src_0 ! fakesink "
      "fakesrc ! l.sink_1  l.src_1 ! fakesink", &err);
  fail_unless (p != NULL, "%s", err ? err->message : "");
  l = gst_bin_get_by_name (GST_BIN (p), "l");
  pad = gst_element_get_static_pad (l, "sink_1");
  fail_unless (pad != NULL);
  g_object_get (pad, "delay", &d, NULL);
  fail_unless_equals_int64 (d, 80 * MS);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (l, "sink_0");
  g_object_get (pad, "delay", &d, NULL);
  fail_unless_equals_int64 (d, -1);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (l, "src_1");
  fail_unless (pad && gst_pad_is_linked (pad));
  gst_object_unref (pad);
  gst_object_unref (l);
  gst_object_unref (p);
}

GST_END_TEST;

/* Releasing pads, in either order, and requesting them again. */
GST_START_TEST (test_request_release)
{
  GstElement *e = gst_element_factory_make ("linksim", NULL);
  GstPad *src = gst_element_request_pad_simple (e, "src_%u");
  GstPad *sink, *again;

  fail_unless (src != NULL);
  fail_unless_equals_string (GST_OBJECT_NAME (src), "src_0");
  /* Its partner came with it. */
  sink = gst_element_get_static_pad (e, "sink_0");
  fail_unless (sink != NULL);
  fail_unless (GST_IS_PAD (sink) && GST_PAD_IS_SINK (sink));
  gst_element_release_request_pad (e, src);
  gst_object_unref (src);
  again = gst_element_request_pad_simple (e, "src_0");
  fail_unless (again != NULL);
  gst_element_release_request_pad (e, sink);
  gst_element_release_request_pad (e, again);
  gst_object_unref (sink);
  gst_object_unref (again);
  fail_unless_equals_int (e->numpads, 0);
  gst_object_unref (e);
}

GST_END_TEST;

static Suite *
linksim_suite (void)
{
  Suite *s = suite_create ("linksim");
  TCase *tc;

  tc = tcase_create ("timing");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_packets_leave_at_link_times);
  tcase_add_test (tc, test_arrival_timestamps);
  tcase_add_test (tc, test_overhead);
  tcase_add_test (tc, test_capacity_change_while_playing);
  tcase_add_test (tc, test_schedule);
  tcase_add_test (tc, test_trace_file);
  tcase_add_test (tc, test_schedule_outage);
  tcase_add_test (tc, test_loss_episodes);

  tc = tcase_create ("flows");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_two_flows_share_queue);
  tcase_add_test (tc, test_tail_drop_counted);
  tcase_add_test (tc, test_tail_drop_time_limit);
  tcase_add_test (tc, test_loss_counted);
  tcase_add_test (tc, test_noise_keeps_order);

  tc = tcase_create ("events");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_events_in_order);
  tcase_add_test (tc, test_flush);
  tcase_add_test (tc, test_teardown_while_waiting);
  tcase_add_test (tc, test_latency_query);

  tc = tcase_create ("config");
  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_bad_config_fails_state_change, 0,
      G_N_ELEMENTS (bad_cases));
  tcase_add_test (tc, test_stats_fields);
  tcase_add_test (tc, test_launch_forms);
  tcase_add_test (tc, test_request_release);
  return s;
}

GST_CHECK_MAIN (linksim);
