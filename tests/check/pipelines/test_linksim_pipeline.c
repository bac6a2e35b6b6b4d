/* A real pipeline through linksim: vp8enc ! rtpvp8pay ! urcpsender !
 * rtpbin, whose RTP and RTCP both go through one linksim (two flows, one
 * queue, gst-launch request-pad syntax) to a stock rtpbin receiver over UDP
 * on loopback; the receiver's TWCC feedback comes back directly. linksim is
 * the bottleneck (400 kbit/s, 300 ms queue), so the controller must find
 * it.
 *
 * What is asserted is what must hold whatever the timing: packets of both
 * flows get through; linksim never delivers more than its capacity allows;
 * the queue builds (URCP's start-up probes past the capacity); urcpsender
 * learns a capacity near linksim's and keeps its target near it. No
 * throughput-equals-capacity assert: that is a measurement for the
 * benchmark, not a test. */
#include <gst/check/gstcheck.h>
#include "pipeline-util.h"

#define TWCC_URI \
  "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
#define TWCC_CAPS ",extmap-1=(string)" TWCC_URI
#define CAPACITY 400000

static const gchar *receiver_desc =
    "rtpbin name=rtpbin "
    "udpsrc name=rtp_src port=0 caps=\"application/x-rtp,media=video,"
    "clock-rate=90000,encoding-name=VP8,payload=96" TWCC_CAPS "\" ! "
    "rtpbin.recv_rtp_sink_0 "
    "rtpbin. ! rtpvp8depay ! vp8dec ! fakesink name=vsink sync=false "
    "udpsrc name=rtcp_src port=0 ! rtpbin.recv_rtcp_sink_0 "
    "rtpbin.send_rtcp_src_0 ! udpsink name=rtcp_back host=127.0.0.1 "
    "sync=false async=false";

/* %u: linksim capacity. */
static const gchar *sender_fmt =
    "rtpbin name=rtpbin "
    "videotestsrc is-live=true pattern=snow ! "
    "video/x-raw,width=320,height=240,framerate=30/1 ! "
    "vp8enc name=enc deadline=1 ! rtpvp8pay pt=96 ! "
    "application/x-rtp" TWCC_CAPS " ! "
    "urcpsender name=rc ! rtpbin.send_rtp_sink_0 "
    "linksim name=link capacity=%u delay=20000000 queue-limit-ms=300 "
    "rtpbin.send_rtp_src_0 ! link.sink_0  link.src_0 ! "
    "udpsink name=rtp_out host=127.0.0.1 sync=false async=false "
    "rtpbin.send_rtcp_src_0 ! link.sink_1  link.src_1 ! "
    "udpsink name=rtcp_out host=127.0.0.1 sync=false async=false "
    "udpsrc name=rtcp_in port=0 ! rtpbin.recv_rtcp_sink_0";

static guint64
flow_u64 (const GstStructure * stats, guint i, const gchar * field)
{
  const GValue *flows = gst_structure_get_value (stats, "flows");
  const GstStructure *fs;
  guint64 v = 0;

  fail_unless (flows && gst_value_array_get_size (flows) > i);
  fs = gst_value_get_structure (gst_value_array_get_value (flows, i));
  fail_unless (gst_structure_get_uint64 (fs, field, &v));
  return v;
}

GST_START_TEST (test_urcp_through_linksim)
{
  GError *err = NULL;
  gchar *desc = g_strdup_printf (sender_fmt, CAPACITY);
  GstElement *recv = gst_parse_launch (receiver_desc, &err);
  GstElement *send, *link, *rc, *rtcp_back;
  GstStructure *ls, *rs;
  GstClockTime deadline, running;
  guint64 bytes_out, rtp_out, rtcp_out;
  gdouble qmax;
  guint64 qmax_ns;
  guint rmax;
  guint target;

  fail_unless (recv != NULL, "receiver: %s", err ? err->message : "");
  send = gst_parse_launch (desc, &err);
  g_free (desc);
  fail_unless (send != NULL, "sender: %s", err ? err->message : "");
  link = gst_bin_get_by_name (GST_BIN (send), "link");
  rc = gst_bin_get_by_name (GST_BIN (send), "rc");

  fail_unless (gst_element_set_state (recv, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_set_state (send, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  pipeline_set_port (send, "rtp_out", pipeline_bound_port (recv, "rtp_src"));
  pipeline_set_port (send, "rtcp_out", pipeline_bound_port (recv, "rtcp_src"));
  rtcp_back = gst_bin_get_by_name (GST_BIN (recv), "rtcp_back");
  g_object_set (rtcp_back, "port", pipeline_bound_port (send, "rtcp_in"), NULL);
  gst_object_unref (rtcp_back);
  fail_if (gst_element_set_state (recv, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  fail_if (gst_element_set_state (send, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);

  deadline = gst_util_get_timestamp () + 10 * GST_SECOND;
  while (gst_util_get_timestamp () < deadline) {
    g_usleep (100000);
    pipeline_check_no_error (send);
    pipeline_check_no_error (recv);
  }

  g_object_get (link, "stats", &ls, NULL);
  running = gst_element_get_current_running_time (link);
  g_object_get (rc, "stats", &rs, "target-bitrate", &target, NULL);
  GST_INFO ("after 10 s (running time %" GST_TIME_FORMAT "): linksim %"
      GST_PTR_FORMAT, GST_TIME_ARGS (running), ls);
  GST_INFO ("urcpsender target %u: %" GST_PTR_FORMAT, target, rs);

  /* Both flows got through the one queue. */
  rtp_out = flow_u64 (ls, 0, "packets-out");
  rtcp_out = flow_u64 (ls, 1, "packets-out");
  fail_unless (rtp_out >= 200, "only %" G_GUINT64_FORMAT " RTP packets",
      rtp_out);
  fail_unless (rtcp_out >= 1, "no RTCP through linksim");
  /* It is a bottleneck: it never delivered more than capacity x time (the
   * model's invariant; the stats are read after the running time, so this
   * holds exactly). */
  fail_unless (gst_structure_get_uint64 (ls, "bytes-out", &bytes_out));
  fail_unless (GST_CLOCK_TIME_IS_VALID (running));
  fail_unless (bytes_out * 8 <= gst_util_uint64_scale (CAPACITY, running,
          GST_SECOND) + 1500 * 8, "%" G_GUINT64_FORMAT " bytes out in %"
      GST_TIME_FORMAT, bytes_out, GST_TIME_ARGS (running));
  /* The queue built when the sender went past the capacity. */
  fail_unless (gst_structure_get_uint64 (ls, "qdelay-max", &qmax_ns));
  qmax = (gdouble) qmax_ns / GST_MSECOND;
  fail_unless (qmax >= 100.0, "queue never built: max %.1f ms", qmax);
  fail_unless (qmax <= 300.0 + 30.0, "queue above its limit: %.1f ms", qmax);
  /* The controller found the bottleneck: its capacity estimate and its
   * target are near linksim's capacity, not near its 20 Mbit/s maximum. */
  fail_unless (gst_structure_get_uint (rs, "capacity", &rmax));
  fail_unless (rmax > 0.5 * CAPACITY && rmax < 1.5 * CAPACITY,
      "capacity %u bit/s for a %d bit/s link", rmax, CAPACITY);
  fail_unless (target < 1.5 * CAPACITY, "target %u on a %d bit/s link",
      target, CAPACITY);

  gst_structure_free (ls);
  gst_structure_free (rs);
  gst_object_unref (link);
  gst_object_unref (rc);
  gst_element_set_state (send, GST_STATE_NULL);
  gst_element_set_state (recv, GST_STATE_NULL);
  gst_object_unref (send);
  gst_object_unref (recv);
}

GST_END_TEST;

static Suite *
linksim_pipeline_suite (void)
{
  Suite *s = suite_create ("linksim_pipeline");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_urcp_through_linksim);
  return s;
}

GST_CHECK_MAIN (linksim_pipeline);
