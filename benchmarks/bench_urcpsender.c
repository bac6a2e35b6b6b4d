/* Benchmark (not a test): CPU cost per packet of urcpsender, side by side
 * with identity in the same run, through GstHarness. Each packet is one
 * 1200-byte RTP buffer; every 20th packet a TWCC feedback event for the
 * last 20 arrives, as at ~1000 packets/s with 20 ms feedback. Pacing is
 * off so the clock does not enter the figure: this is the cost of the
 * controller, the feedback parsing and the bookkeeping.
 *
 * Usage: bench_urcpsender [packets]   (GST_PLUGIN_PATH=build/gst) */
#define GLIB_DISABLE_DEPRECATION_WARNINGS
#include <gst/check/gstharness.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <sys/resource.h>
#include <stdlib.h>

#define BATCH 20

static gdouble
cpu_seconds (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static GstEvent *
twcc_event (guint first_seq, GstClockTime t0)
{
  GValueArray *arr = g_value_array_new (BATCH);
  GstStructure *s = gst_structure_new_empty ("RTPTWCCPackets");
  GValue v = G_VALUE_INIT;
  guint i;

  for (i = 0; i < BATCH; i++) {
    GstClockTime local = t0 + i * GST_MSECOND;
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, gst_structure_new ("RTPTWCCPacket",
            "seqnum", G_TYPE_UINT, (first_seq + i) & 0xffff,
            "local-ts", G_TYPE_UINT64, local,
            "remote-ts", G_TYPE_UINT64, local + 30 * GST_MSECOND,
            "payload-type", G_TYPE_UCHAR, 96, "size", G_TYPE_UINT, 1188,
            "lost", G_TYPE_BOOLEAN, FALSE, NULL));
    g_value_array_append (arr, &v);
    g_value_unset (&v);
  }
  g_value_init (&v, G_TYPE_VALUE_ARRAY);
  g_value_take_boxed (&v, arr);
  gst_structure_take_value (s, "packets", &v);
  return gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM, s);
}

static gdouble
run (const gchar * desc, guint n, gboolean feedback)
{
  GstHarness *h = gst_harness_new_parse (desc);
  GstBuffer *tmpl = gst_rtp_buffer_new_allocate (1188, 0, 0);
  gdouble t0, t;
  guint i;

  gst_harness_use_testclock (h);
  gst_harness_set_src_caps_str (h, "application/x-rtp,media=video,"
      "clock-rate=90000,encoding-name=VP8,payload=96,extmap-1=(string)"
      "\"http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\"");
  t0 = cpu_seconds ();
  for (i = 0; i < n; i++) {
    GstClockTime now = i * GST_MSECOND;
    gst_harness_set_time (h, now);
    gst_buffer_unref (gst_harness_push_and_pull (h, gst_buffer_ref (tmpl)));
    if (feedback && i % BATCH == BATCH - 1)
      gst_harness_push_upstream_event (h, twcc_event (i - (BATCH - 1),
              now - (BATCH - 1) * GST_MSECOND));
  }
  t = cpu_seconds () - t0;
  gst_buffer_unref (tmpl);
  gst_harness_teardown (h);
  return t / n * 1e9;
}

int
main (int argc, char **argv)
{
  guint n = argc > 1 ? atoi (argv[1]) : 200000;
  gdouble base, urcp;
  GstElementFactory *f;

  gst_init (&argc, &argv);
  f = gst_element_factory_find ("urcpsender");
  if (!f) {
    g_printerr ("urcpsender not found: set GST_PLUGIN_PATH=build/gst\n");
    return 1;
  }
  gst_object_unref (f);
  run ("urcpsender pacing=false", n / 10, TRUE);        /* warm-up */
  base = run ("identity", n, FALSE);
  urcp = run ("urcpsender pacing=false", n, TRUE);
  g_print ("packets: %u (1200 B; TWCC event every %u)\n", n, BATCH);
  g_print ("identity:   %7.0f ns CPU per packet\n", base);
  g_print ("urcpsender: %7.0f ns CPU per packet\n", urcp);
  g_print ("urcpsender - identity: %.0f ns per packet (%.2fx identity)\n",
      urcp - base, urcp / base);
  return 0;
}
