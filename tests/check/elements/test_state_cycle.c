/* Every element of the plugin through repeated state changes, with and
 * without data flowing, and torn down. Run under valgrind by the
 * `sanitize` suite (tests/check/meson.build), which fails on memory
 * definitely lost; here it checks that nothing errors or hangs. */
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/rtp/gstrtpbuffer.h>

#define CYCLES 5

static const struct
{
  const gchar *factory, *sink, *src;
} elements[] = {
  {"urcpsender", "sink", "src"},
  {"fecenc", "sink", "src"},
  {"fecdec", "sink", "src"},
  {"linksim", "sink_0", "src_0"},
  {"rcreceiver", "sink", "src"},
};

static GstBuffer *
rtp_packet (guint16 seq, GstClockTime pts)
{
  GstBuffer *b = gst_rtp_buffer_new_allocate (200, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_ssrc (&rtp, 0xabcd);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_set_timestamp (&rtp, seq * 3000);
  /* defined bytes: urcpsender reads a VP8 stream's payload descriptor */
  memset (gst_rtp_buffer_get_payload (&rtp), 0,
      gst_rtp_buffer_get_payload_len (&rtp));
  gst_rtp_buffer_unmap (&rtp);
  GST_BUFFER_PTS (b) = pts;
  return b;
}

/* NULL -> PLAYING -> NULL through every state, with no pads linked. */
GST_START_TEST (test_bare_state_cycles)
{
  GstElement *e = gst_element_factory_make (elements[__i__].factory, NULL);
  static const GstState up[] = { GST_STATE_READY, GST_STATE_PAUSED,
    GST_STATE_PLAYING, GST_STATE_PAUSED, GST_STATE_READY, GST_STATE_NULL
  };
  guint c, k;

  fail_unless (e != NULL);
  for (c = 0; c < CYCLES; c++)
    for (k = 0; k < G_N_ELEMENTS (up); k++)
      fail_if (gst_element_set_state (e, up[k]) == GST_STATE_CHANGE_FAILURE,
          "%s to %s", elements[__i__].factory,
          gst_element_state_get_name (up[k]));
  gst_object_unref (e);
}

GST_END_TEST;

/* In a harness: packets through, the element torn down with data queued
 * inside, again and again. */
GST_START_TEST (test_data_cycles)
{
  guint c, i;

  for (c = 0; c < CYCLES; c++) {
    GstHarness *h = gst_harness_new_with_padnames (elements[__i__].factory,
        elements[__i__].sink, elements[__i__].src);
    GstBuffer *out;

    gst_harness_set_src_caps_str (h, "application/x-rtp,media=video,"
        "clock-rate=90000,encoding-name=VP8,payload=96,ssrc=(uint)43981");
    for (i = 0; i < 40; i++) {
      gst_harness_set_time (h, i * 10 * GST_MSECOND);
      fail_unless_equals_int (gst_harness_push (h, rtp_packet (i,
                  i * 10 * GST_MSECOND)), GST_FLOW_OK);
      while ((out = gst_harness_try_pull (h)))
        gst_buffer_unref (out);
    }
    /* Half the cycles end with EOS, half with packets still inside. */
    if (c % 2)
      gst_harness_push_event (h, gst_event_new_eos ());
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

static Suite *
state_cycle_suite (void)
{
  Suite *s = suite_create ("state_cycle");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  /* valgrind is slow */
  tcase_set_timeout (tc, 300);
  tcase_add_loop_test (tc, test_bare_state_cycles, 0, G_N_ELEMENTS (elements));
  tcase_add_loop_test (tc, test_data_cycles, 0, G_N_ELEMENTS (elements));
  return s;
}

GST_CHECK_MAIN (state_cycle);
