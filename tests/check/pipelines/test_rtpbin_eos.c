/* EOS sent to a live sender while it plays, as `gst-launch-1.0 -e` does on
 * Ctrl-C (gst_element_send_event (pipeline, eos), then wait for the EOS
 * message): rtpbin with fecenc in its fec-encoders slot, real vp8enc, real
 * UDP to a localhost port, RTCP in and out as in a gst-launch sender; once
 * with urcpsender before send_rtp_sink_0 as README's sender has it, once
 * without. Every run must end with the EOS message, 30 runs in a row.
 *
 * rtpbin 1.22 loses the EOS of send_rtcp_src_0 in some runs whatever sits
 * in its fec-encoders slot (docs/fec.md, "EOS and rtpbin 1.22"); the test
 * applies the application-side guard documented there, which only acts
 * after rtpsession has sent the BYE of every SSRC that left the session. A
 * sender whose EOS stops before rtpsession (in fecenc or urcpsender) sends
 * no BYE and still hangs here. */
#include <gio/gio.h>
#include "pipeline-util.h"

#define TWCC_URI \
  "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
#define RUNS 30
/* EOS normally arrives within milliseconds; 10 s means it never will. */
#define EOS_TIMEOUT (10 * GST_SECOND)

/* %s: what goes between the payloader and rtpbin; %s: the RTP udpsink's
 * sync; %d, %d: RTP and RTCP destination ports. */
static const gchar *sender_fmt =
    "rtpbin name=rtpbin fec-encoders=\"fec,0=\\\"fecenc\\ pt\\=100\\ "
    "overhead\\=25\\\";\" "
    "videotestsrc is-live=true ! "
    "video/x-raw,width=160,height=120,framerate=30/1 ! "
    "vp8enc deadline=1 ! rtpvp8pay pt=96 ! %s rtpbin.send_rtp_sink_0 "
    "rtpbin.send_rtp_src_0 ! udpsink host=127.0.0.1 port=%d sync=%s "
    "rtpbin.send_rtcp_src_0 ! udpsink host=127.0.0.1 port=%d sync=false "
    "async=false "
    "udpsrc port=0 ! rtpbin.recv_rtcp_sink_0";

/* A bound socket nobody reads: the packets have somewhere real to go. */
static GSocket *
sink_socket (gint * port)
{
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *a = g_inet_socket_address_new (lo, 0);
  GSocketAddress *bound;

  fail_unless (s && g_socket_bind (s, a, FALSE, NULL));
  bound = g_socket_get_local_address (s, NULL);
  *port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_object_unref (bound);
  g_object_unref (a);
  g_object_unref (lo);
  return s;
}

/* Runs the sender RUNS times, each PLAYING for 0.3-0.7 s before the EOS
 * (varied, so the EOS meets the RTCP timer at different points). */
static void
eos_runs (gboolean with_urcpsender)
{
  gint rtp_port, rtcp_port;
  GSocket *rtp_sock = sink_socket (&rtp_port);
  GSocket *rtcp_sock = sink_socket (&rtcp_port);
  gchar *desc = g_strdup_printf (sender_fmt, with_urcpsender ?
      "application/x-rtp,extmap-1=(string)" TWCC_URI " ! urcpsender ! " : "",
      rtp_port, with_urcpsender ? "false" : "true", rtcp_port);
  guint i;

  for (i = 0; i < RUNS; i++) {
    GError *err = NULL;
    GstElement *pipeline = gst_parse_launch (desc, &err);
    GstElement *rtpbin;
    RtcpEosGuard *guard;
    GstMessage *m;
    GstBus *bus;

    fail_unless (pipeline != NULL, "%s", err ? err->message : "");
    rtpbin = gst_bin_get_by_name (GST_BIN (pipeline), "rtpbin");
    guard = rtcp_eos_guard_new (rtpbin, 0);
    fail_unless (guard != NULL, "rtpbin has no send pads for session 0");
    bus = gst_element_get_bus (pipeline);
    fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE);
    g_usleep (300000 + (i * 137 % 400) * 1000);
    pipeline_check_no_error (pipeline);

    gst_element_send_event (pipeline, gst_event_new_eos ());
    m = gst_bus_timed_pop_filtered (bus, EOS_TIMEOUT,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    if (!m || GST_MESSAGE_TYPE (m) != GST_MESSAGE_EOS) {
      gchar *where = rtcp_eos_guard_describe (guard);
      GError *e = NULL;

      if (m)
        gst_message_parse_error (m, &e, NULL);
      fail ("run %u of %u: %s (%s)", i + 1, RUNS, e ? e->message :
          "no EOS message within 10 s", where);
    }
    gst_message_unref (m);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    rtcp_eos_guard_free (guard);
    gst_object_unref (bus);
    gst_object_unref (rtpbin);
    gst_object_unref (pipeline);
  }
  g_free (desc);
  g_object_unref (rtp_sock);
  g_object_unref (rtcp_sock);
}

GST_START_TEST (test_eos_fecenc_urcpsender)
{
  eos_runs (TRUE);
}

GST_END_TEST;

GST_START_TEST (test_eos_fecenc)
{
  eos_runs (FALSE);
}

GST_END_TEST;

static Suite *
rtpbin_eos_suite (void)
{
  Suite *s = suite_create ("rtpbin_eos");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  /* A hang fails after 10 s; a pass takes about 25 s per test. */
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_eos_fecenc_urcpsender);
  tcase_add_test (tc, test_eos_fecenc);
  return s;
}

GST_CHECK_MAIN (rtpbin_eos);
