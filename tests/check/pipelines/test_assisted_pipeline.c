/* Real pipelines for the receiver-assisted controllers: vp8enc ! rtpvp8pay
 * ! urcpsender controller=cnadu|r3cp ! rtpbin over UDP, through linksim (1
 * Mbit/s, 20 ms, 300 ms queue) into a stock rtpbin receiver, with and
 * without rcreceiver behind it.
 *
 * cnadu with rcreceiver: its RTCP is valid on the wire (each packet walked
 * with GstRTCPBuffer, each XR discard block and NADU block read field by
 * field against RFC 3611/7002/7243 and TS 26.234), the sender's stock
 * rtpbin takes it without an error or warning, and C-NADU decides on it.
 * Without (cnadu and r3cp): urcpsender warns that the reports the
 * controller needs are missing.
 * r3cp with rcreceiver r3cp=true: TMMBR requests on the wire (RFC 5104
 * fields), urcpsender's DLRR answers give the receiver an RTT, and the
 * sender follows the requests; with temporal-layers=2 and a stream above
 * the request, urcpsender drops non-reference frames whole, keeps the
 * sequence numbers gapless (the receiver counts no loss) and what arrives
 * decodes. */
#include <gst/check/gstcheck.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include "pipeline-util.h"
#include "gstrcencoder.h"

#define TWCC_CAPS ",extmap-1=(string)" \
  "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
#define LATENCY_MS 200

/* %s: " ! rcreceiver name=rx ..." or nothing. */
static const gchar *receiver_fmt =
    "rtpbin name=rtpbin latency=200 "
    "udpsrc name=rtp_src port=0 caps=\"application/x-rtp,media=video,"
    "clock-rate=90000,encoding-name=VP8,payload=96" TWCC_CAPS "\" ! "
    "linksim capacity=1000000 delay=20000000 queue-limit-ms=300 ! "
    "rtpbin.recv_rtp_sink_0 "
    "rtpbin. %s ! rtpvp8depay ! fakesink sync=false "
    "udpsrc name=rtcp_src port=0 ! rtpbin.recv_rtcp_sink_0 "
    "rtpbin.send_rtcp_src_0 ! udpsink name=rtcp_back host=127.0.0.1 "
    "sync=false async=false";

/* %s: the controller */
static const gchar *sender_fmt =
    "rtpbin name=rtpbin "
    "videotestsrc is-live=true pattern=snow ! "
    "video/x-raw,width=320,height=240,framerate=30/1 ! "
    "vp8enc deadline=1 ! rtpvp8pay pt=96 ! application/x-rtp" TWCC_CAPS " ! "
    "urcpsender name=rc controller=%s max-bitrate=3000000 ! "
    "rtpbin.send_rtp_sink_0 "
    "rtpbin.send_rtp_src_0 ! udpsink name=rtp_out host=127.0.0.1 sync=false "
    "rtpbin.send_rtcp_src_0 ! udpsink name=rtcp_out host=127.0.0.1 "
    "sync=false async=false "
    "udpsrc name=rtcp_in port=0 ! rtpbin.recv_rtcp_sink_0";

typedef struct
{
  GMutex lock;
  guint32 media_ssrc;           /* from the RTP packets */
  guint16 max_seq;
  gboolean have_media;
  guint discard_blocks, bytes_blocks, nadu_blocks, packets;
  guint nadu_buffered;          /* NADU blocks with a playout delay */
  guint tmmbr, rrtr;            /* TMMBR FCI entries, RRTR blocks */
  guint64 last_request;         /* bit/s, the newest TMMBR's */
  gchar *problem;               /* the first field that was wrong */
} Wire;

static void
wrong (Wire * w, gchar * what)
{
  if (!w->problem)
    w->problem = what;
  else
    g_free (what);
}

static GstPadProbeReturn
rtp_probe (GstPad * pad, GstPadProbeInfo * info, Wire * w)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  if (gst_rtp_buffer_map (GST_PAD_PROBE_INFO_BUFFER (info), GST_MAP_READ,
          &rtp)) {
    g_mutex_lock (&w->lock);
    w->media_ssrc = gst_rtp_buffer_get_ssrc (&rtp);
    if (!w->have_media || (gint16) (gst_rtp_buffer_get_seq (&rtp) -
            w->max_seq) > 0)
      w->max_seq = gst_rtp_buffer_get_seq (&rtp);
    w->have_media = TRUE;
    g_mutex_unlock (&w->lock);
    gst_rtp_buffer_unmap (&rtp);
  }
  return GST_PAD_PROBE_OK;
}

/* One XR packet: every block about the media checked. `p` is the packet,
 * `len` its length in bytes. */
static void
check_xr (Wire * w, const guint8 * p, guint len)
{
  guint off = 8;

  while (off + 4 <= len) {
    guint bt = p[off], blen = 4 * (GST_READ_UINT16_BE (p + off + 2) + 1);
    if (off + blen > len) {
      wrong (w, g_strdup ("XR block runs past its packet"));
      return;
    }
    if (bt == 4) {
      /* RFC 3611 sec. 4.4: block length 2, an NTP timestamp */
      w->rrtr++;
      if (blen != 12)
        wrong (w, g_strdup_printf ("RRTR: %u bytes, want 12", blen));
    }
    if (bt == 24 || bt == 26) {
      guint32 ssrc = GST_READ_UINT32_BE (p + off + 4);
      guint32 count = GST_READ_UINT32_BE (p + off + 8);
      if (blen != 12)
        wrong (w, g_strdup_printf ("BT %u: %u bytes, want 12", bt, blen));
      if (ssrc != w->media_ssrc)
        wrong (w, g_strdup_printf ("BT %u about %08x, media is %08x", bt,
                ssrc, w->media_ssrc));
      /* RFC 7002/7243: I = 2, interval values */
      if ((p[off + 1] >> 6) != 2)
        wrong (w, g_strdup_printf ("BT %u: I = %u", bt, p[off + 1] >> 6));
      if (bt == 24) {
        w->discard_blocks++;
        if (((p[off + 1] >> 4) & 3) != 0 || (p[off + 1] & 0xf))
          wrong (w, g_strdup ("BT 24: DT or reserved bits not 0"));
        if (count > 2000)
          wrong (w, g_strdup_printf ("BT 24: %u discards in one interval",
                  count));
      } else {
        w->bytes_blocks++;
        if (p[off + 1] & 0x3f)
          wrong (w, g_strdup ("BT 26: E (late) or reserved bits not 0"));
        if (count > 2000 * 1400)
          wrong (w, g_strdup_printf ("BT 26: %u bytes in one interval",
                  count));
      }
    }
    off += blen;
  }
}

static void
check_nadu (Wire * w, GstRTCPPacket * pkt)
{
  guint8 *data = gst_rtcp_packet_app_get_data (pkt);
  guint16 words = gst_rtcp_packet_app_get_data_length (pkt);
  guint i;

  if (words % 3 != 0 || words == 0) {
    wrong (w, g_strdup_printf ("NADU data of %u words", words));
    return;
  }
  for (i = 0; i < words / 3; i++) {
    const guint8 *b = data + 12 * i;
    guint32 ssrc = GST_READ_UINT32_BE (b);
    guint16 delay = GST_READ_UINT16_BE (b + 4);
    guint16 nsn = GST_READ_UINT16_BE (b + 6);
    w->nadu_blocks++;
    if (ssrc != w->media_ssrc)
      wrong (w, g_strdup_printf ("NADU about %08x, media is %08x", ssrc,
              w->media_ssrc));
    if (delay != 0xffff) {
      w->nadu_buffered++;
      if (delay > LATENCY_MS)
        wrong (w, g_strdup_printf ("NADU playout delay %u ms > %u", delay,
                LATENCY_MS));
    }
    /* the next packet to play is one received, or the next expected */
    if ((gint16) (nsn - w->max_seq) > 1 || (gint16) (w->max_seq - nsn) > 2000)
      wrong (w, g_strdup_printf ("NADU NSN %u, newest seq %u", nsn,
              w->max_seq));
    if (GST_READ_UINT16_BE (b + 8) & 0xffe0)
      wrong (w, g_strdup ("NADU reserved bits not 0"));
  }
}

/* RFC 5104 sec. 4.2.1.1: FCI entries of SSRC, exp(6) mantissa(17)
 * overhead(9); header media SSRC 0. */
static void
check_tmmbr (Wire * w, GstRTCPPacket * pkt)
{
  guint8 *fci = gst_rtcp_packet_fb_get_fci (pkt);
  guint16 words = gst_rtcp_packet_fb_get_fci_length (pkt);
  guint i;

  if (words == 0 || words % 2)
    wrong (w, g_strdup_printf ("TMMBR FCI of %u words", words));
  if (gst_rtcp_packet_fb_get_media_ssrc (pkt) != 0)
    wrong (w, g_strdup ("TMMBR header media SSRC not 0"));
  for (i = 0; i < words / 2; i++) {
    const guint8 *e = fci + 8 * i;
    guint32 word = GST_READ_UINT32_BE (e + 4);
    guint64 rate = (guint64) ((word >> 9) & 0x1ffff) << (word >> 26);
    w->tmmbr++;
    w->last_request = rate;
    if (GST_READ_UINT32_BE (e) != w->media_ssrc)
      wrong (w, g_strdup_printf ("TMMBR for %08x, media is %08x",
              GST_READ_UINT32_BE (e), w->media_ssrc));
    if (rate < 50000 || rate > 3000000)
      wrong (w, g_strdup_printf ("TMMBR asks for %" G_GUINT64_FORMAT
              " bit/s", rate));
    if ((word & 0x1ff) != 40)
      wrong (w, g_strdup_printf ("TMMBR overhead %u", word & 0x1ff));
  }
}

/* Each RTCP packet the receiver sends, walked with GstRTCPBuffer. */
static GstPadProbeReturn
rtcp_probe (GstPad * pad, GstPadProbeInfo * info, Wire * w)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;
  gboolean more;

  g_mutex_lock (&w->lock);
  /* rtpsession's early packets (transport-wide feedback) are reduced-size
   * (RFC 5506): no RR first */
  if (!gst_rtcp_buffer_validate_reduced (buf)) {
    GstMapInfo map;
    GString *hex = g_string_new ("an RTCP packet that does not validate:");
    gsize i;
    gst_buffer_map (buf, &map, GST_MAP_READ);
    for (i = 0; i < map.size; i++)
      g_string_append_printf (hex, " %02x", map.data[i]);
    gst_buffer_unmap (buf, &map);
    wrong (w, g_string_free (hex, FALSE));
    g_mutex_unlock (&w->lock);
    return GST_PAD_PROBE_OK;
  }
  w->packets++;
  gst_rtcp_buffer_map (buf, GST_MAP_READ, &rtcp);
  for (more = gst_rtcp_buffer_get_first_packet (&rtcp, &pkt); more;
      more = gst_rtcp_packet_move_to_next (&pkt)) {
    const guint8 *p = rtcp.map.data + pkt.offset;
    guint len = 4 * (gst_rtcp_packet_get_length (&pkt) + 1);

    if (gst_rtcp_packet_get_type (&pkt) == GST_RTCP_TYPE_XR)
      check_xr (w, p, len);
    else if (gst_rtcp_packet_get_type (&pkt) == GST_RTCP_TYPE_RTPFB &&
        gst_rtcp_packet_fb_get_type (&pkt) == GST_RTCP_RTPFB_TYPE_TMMBR)
      check_tmmbr (w, &pkt);
    else if (gst_rtcp_packet_get_type (&pkt) == GST_RTCP_TYPE_APP &&
        gst_rtcp_packet_app_get_subtype (&pkt) == 0 &&
        memcmp (gst_rtcp_packet_app_get_name (&pkt), "PSS0", 4) == 0)
      check_nadu (w, &pkt);
  }
  gst_rtcp_buffer_unmap (&rtcp);
  g_mutex_unlock (&w->lock);
  return GST_PAD_PROBE_OK;
}

static void
add_probe (GstElement * pipeline, const gchar * name, const gchar * pad,
    GstPadProbeCallback cb, gpointer data)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPad *p = gst_element_get_static_pad (e, pad);

  gst_pad_add_probe (p, GST_PAD_PROBE_TYPE_BUFFER, cb, data, NULL);
  gst_object_unref (p);
  gst_object_unref (e);
}

static void
start_pair (const gchar * controller, const gchar * behind_rtpbin,
    GstElement ** send, GstElement ** recv)
{
  GError *err = NULL;
  gchar *desc = g_strdup_printf (receiver_fmt, behind_rtpbin);

  *recv = gst_parse_launch (desc, &err);
  g_free (desc);
  fail_unless (*recv != NULL, "receiver: %s", err ? err->message : "");
  desc = g_strdup_printf (sender_fmt, controller);
  *send = gst_parse_launch (desc, &err);
  g_free (desc);
  fail_unless (*send != NULL, "sender: %s", err ? err->message : "");
  pipeline_pair_ports (*send, *recv);
}

/* Streams for `seconds`; fails on an error; returns the first warning
 * message of `send` (newly allocated) or NULL. */
static gchar *
stream_for (GstElement * send, GstElement * recv, guint seconds)
{
  GstClockTime deadline = gst_util_get_timestamp () + seconds * GST_SECOND;
  GstBus *bus = gst_element_get_bus (send);
  gchar *warning = NULL;

  fail_if (gst_element_set_state (recv, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  fail_if (gst_element_set_state (send, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  while (gst_util_get_timestamp () < deadline) {
    GstMessage *m;
    g_usleep (100000);
    pipeline_check_no_error (recv);
    /* errors and warnings in one pop: a filtered pop drops the others */
    while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING |
                GST_MESSAGE_ERROR))) {
      GError *e = NULL;
      if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
        gst_message_parse_error (m, &e, NULL);
        fail ("sender error from %s: %s", GST_MESSAGE_SRC_NAME (m),
            e->message);
      }
      gst_message_parse_warning (m, &e, NULL);
      GST_INFO ("sender warning from %s: %s", GST_MESSAGE_SRC_NAME (m),
          e->message);
      if (!warning)
        warning = g_strdup_printf ("%s: %s", GST_MESSAGE_SRC_NAME (m),
            e->message);
      g_error_free (e);
      gst_message_unref (m);
    }
  }
  gst_object_unref (bus);
  return warning;
}

static void
stop_pair (GstElement * send, GstElement * recv)
{
  gst_element_set_state (send, GST_STATE_NULL);
  gst_element_set_state (recv, GST_STATE_NULL);
  gst_object_unref (send);
  gst_object_unref (recv);
}

GST_START_TEST (test_cnadu_with_rcreceiver)
{
  GstElement *send, *recv, *rc, *rx;
  GstStructure *st, *rxst;
  Wire w = { 0 };
  guint64 reports = 0, nadu = 0, discard = 0, rx_packets = 0;
  gchar *warning;

  g_mutex_init (&w.lock);
  /* max-interval 1 s: Algorithm 1 starts at 5 s, too slow for a short
   * test */
  start_pair ("cnadu", "! rcreceiver name=rx max-interval=1000", &send,
      &recv);
  add_probe (recv, "rtp_src", "src", (GstPadProbeCallback) rtp_probe, &w);
  add_probe (recv, "rtcp_back", "sink", (GstPadProbeCallback) rtcp_probe,
      &w);
  warning = stream_for (send, recv, 12);

  rc = gst_bin_get_by_name (GST_BIN (send), "rc");
  rx = gst_bin_get_by_name (GST_BIN (recv), "rx");
  g_object_get (rc, "stats", &st, NULL);
  g_object_get (rx, "stats", &rxst, NULL);
  GST_INFO ("sender: %" GST_PTR_FORMAT, st);
  GST_INFO ("rcreceiver: %" GST_PTR_FORMAT, rxst);
  fail_unless (gst_structure_get_uint64 (st, "reports", &reports));
  fail_unless (gst_structure_get_uint64 (st, "nadu-reports", &nadu));
  fail_unless (gst_structure_get_uint64 (st, "discard-reports", &discard));
  fail_unless (gst_structure_get_uint64 (rxst, "packets", &rx_packets));

  g_mutex_lock (&w.lock);
  fail_unless (w.problem == NULL, "on the wire: %s", w.problem);
  /* RTCP from rtpsession's first report on, at least every second */
  fail_unless (w.packets >= 5, "%u RTCP packets", w.packets);
  fail_unless (w.discard_blocks >= 5 && w.bytes_blocks == w.discard_blocks,
      "%u discard, %u bytes-discarded blocks", w.discard_blocks,
      w.bytes_blocks);
  fail_unless (w.nadu_blocks == w.discard_blocks, "%u NADU blocks",
      w.nadu_blocks);
  fail_unless (w.nadu_buffered >= 1, "no NADU with a playout delay");
  g_mutex_unlock (&w.lock);
  /* the stock sender rtpbin took it without a word; C-NADU read it */
  fail_unless (warning == NULL, "sender warned: %s", warning);
  fail_unless (rx_packets > 200, "rcreceiver saw %" G_GUINT64_FORMAT
      " packets", rx_packets);
  fail_unless (nadu >= 4 && discard >= 4, "cnadu read %" G_GUINT64_FORMAT
      " NADU, %" G_GUINT64_FORMAT " discard reports", nadu, discard);
  fail_unless (reports >= 3, "cnadu decided %" G_GUINT64_FORMAT " times",
      reports);

  gst_structure_free (st);
  gst_structure_free (rxst);
  gst_object_unref (rc);
  gst_object_unref (rx);
  stop_pair (send, recv);
  g_free (w.problem);
  g_mutex_clear (&w.lock);
}

GST_END_TEST;

/* A stock receiver: no NADU, no discards, no TMMBR; urcpsender says so
 * once, naming the controller. */
static const gchar *stock_cases[][2] = {
  {"cnadu", "rc: cnadu: the receiver sends no NADU"},
  {"r3cp", "rc: r3cp: the receiver sends no rate requests"},
};

GST_START_TEST (test_stock_receiver_warns)
{
  GstElement *send, *recv, *rtpbin;
  GObject *session = NULL;
  gchar *warning;

  start_pair (stock_cases[__i__][0], "", &send, &recv);
  /* an application's setting, not a receiver element: reports every
   * 0.5 s so that three arrive in a short test */
  rtpbin = gst_bin_get_by_name (GST_BIN (recv), "rtpbin");
  g_signal_emit_by_name (rtpbin, "get-internal-session", 0, &session);
  g_object_set (session, "rtcp-min-interval", (guint64) 500 * GST_MSECOND,
      NULL);
  g_object_unref (session);
  gst_object_unref (rtpbin);
  warning = stream_for (send, recv, 10);
  fail_unless (warning != NULL, "no warning from the sender");
  fail_unless (strstr (warning, stock_cases[__i__][1]) == warning,
      "warning: %s", warning);
  g_free (warning);
  stop_pair (send, recv);
}

GST_END_TEST;

/* R3CP+: the receiver asks (TMMBR), learns the RTT from urcpsender's
 * DLRR answers, and the sender follows. */
GST_START_TEST (test_r3cp_with_rcreceiver)
{
  GstElement *send, *recv, *rc, *rx;
  GstStructure *st, *rxst;
  Wire w = { 0 };
  guint64 requests = 0, rtt = 0;
  guint target = 0, requested = 0;
  gchar *warning;

  g_mutex_init (&w.lock);
  start_pair ("r3cp", "! rcreceiver name=rx r3cp=true", &send, &recv);
  add_probe (recv, "rtp_src", "src", (GstPadProbeCallback) rtp_probe, &w);
  add_probe (recv, "rtcp_back", "sink", (GstPadProbeCallback) rtcp_probe,
      &w);
  warning = stream_for (send, recv, 12);
  rc = gst_bin_get_by_name (GST_BIN (send), "rc");
  rx = gst_bin_get_by_name (GST_BIN (recv), "rx");
  g_object_get (rc, "stats", &st, "target-bitrate", &target, NULL);
  g_object_get (rx, "stats", &rxst, NULL);
  GST_INFO ("sender: %" GST_PTR_FORMAT, st);
  GST_INFO ("rcreceiver: %" GST_PTR_FORMAT, rxst);
  fail_unless (gst_structure_get_uint64 (st, "requests", &requests));
  fail_unless (gst_structure_get_uint64 (rxst, "rtt", &rtt));
  fail_unless (gst_structure_get_uint (rxst, "requested-bitrate",
          &requested));

  g_mutex_lock (&w.lock);
  fail_unless (w.problem == NULL, "on the wire: %s", w.problem);
  fail_unless (w.tmmbr >= 10, "%u TMMBR entries", w.tmmbr);
  fail_unless (w.rrtr >= 10, "%u RRTR blocks", w.rrtr);
  g_mutex_unlock (&w.lock);
  fail_unless (warning == NULL, "sender warned: %s", warning);
  fail_unless (requests >= 10, "r3cp took %" G_GUINT64_FORMAT " requests",
      requests);
  /* the DLRR answers arrived: an RTT of the RTCP path, loopback both ways
   * here (linksim is on the RTP path only) */
  fail_unless (rtt > 0 && rtt < 100 * GST_MSECOND,
      "receiver RTT %" GST_TIME_FORMAT, GST_TIME_ARGS (rtt));
  /* the sender's target is one of the last requests (within the report
   * delay: a step of Table 1) */
  fail_unless (ABS ((gint64) target - (gint64) requested) <= requested / 2,
      "target %u, requested %u", target, requested);

  gst_structure_free (st);
  gst_structure_free (rxst);
  gst_object_unref (rc);
  gst_object_unref (rx);
  stop_pair (send, recv);
  g_free (w.problem);
  g_mutex_clear (&w.lock);
}

GST_END_TEST;

/* Selective transmission (r3cp, temporal-layers=2). The encoder in the
 * stream is given its layers and a 1.5 Mbit/s target by the test;
 * urcpsender drives a decoy encoder instead (its `encoder` property), so
 * the stream stays well above what r3cp may send (max-bitrate 400 kbit/s
 * caps the request) and the non-reference frames must go. linksim (5
 * Mbit/s) loses nothing, so every gap the receiver could see would be
 * ours. */
static const gchar *select_receiver_desc =
    "rtpbin name=rtpbin latency=200 "
    "udpsrc name=rtp_src port=0 caps=\"application/x-rtp,media=video,"
    "clock-rate=90000,encoding-name=VP8,payload=96" TWCC_CAPS "\" ! "
    "linksim capacity=5000000 delay=20000000 queue-limit-ms=300 ! "
    "rtpbin.recv_rtp_sink_0 "
    "rtpbin. ! rcreceiver r3cp=true ! rtpvp8depay ! vp8dec name=dec ! "
    "fakesink sync=false "
    "udpsrc name=rtcp_src port=0 ! rtpbin.recv_rtcp_sink_0 "
    "rtpbin.send_rtcp_src_0 ! udpsink name=rtcp_back host=127.0.0.1 "
    "sync=false async=false";

static const gchar *select_sender_desc =
    "rtpbin name=rtpbin "
    "videotestsrc is-live=true pattern=snow ! "
    "video/x-raw,width=320,height=240,framerate=30/1 ! "
    "vp8enc name=enc deadline=1 end-usage=cbr ! rtpvp8pay pt=96 ! "
    "application/x-rtp" TWCC_CAPS " ! "
    "urcpsender name=rc controller=r3cp temporal-layers=2 "
    "max-bitrate=400000 ! rtpbin.send_rtp_sink_0 "
    "rtpbin.send_rtp_src_0 ! udpsink name=rtp_out host=127.0.0.1 sync=false "
    "rtpbin.send_rtcp_src_0 ! udpsink name=rtcp_out host=127.0.0.1 "
    "sync=false async=false "
    "udpsrc name=rtcp_in port=0 ! rtpbin.recv_rtcp_sink_0";

typedef struct
{
  guint in, out;                /* packets into and out of urcpsender */
  gboolean droppable;           /* the payload's N bit */
  GstClockTime arrived;         /* first packet into urcpsender */
} Frame;

typedef struct
{
  GMutex lock;
  GHashTable *frames;           /* RTP timestamp -> Frame */
  guint16 last_seq;
  gboolean have_seq;
  guint gaps;                   /* media sequence numbers out of urcpsender
                                 * that do not follow the last */
  GString *jumps;               /* the first of them: "last -> seq" */
  guint decoded;
} Select;

static Frame *
frame_for (Select * sel, GstBuffer * buf, gboolean * droppable, guint16 * seq)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint32 ts;
  Frame *f;

  fail_unless (gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp));
  ts = gst_rtp_buffer_get_timestamp (&rtp);
  *seq = gst_rtp_buffer_get_seq (&rtp);
  *droppable = gst_rtp_buffer_get_payload_len (&rtp) > 0 &&
      (((guint8 *) gst_rtp_buffer_get_payload (&rtp))[0] & 0x20) != 0;
  gst_rtp_buffer_unmap (&rtp);
  f = g_hash_table_lookup (sel->frames, GUINT_TO_POINTER (ts));
  if (!f) {
    f = g_new0 (Frame, 1);
    f->arrived = gst_util_get_timestamp ();
    g_hash_table_insert (sel->frames, GUINT_TO_POINTER (ts), f);
  }
  return f;
}

static GstPadProbeReturn
select_in (GstPad * pad, GstPadProbeInfo * info, Select * sel)
{
  gboolean droppable;
  guint16 seq;
  Frame *f;

  g_mutex_lock (&sel->lock);
  f = frame_for (sel, GST_PAD_PROBE_INFO_BUFFER (info), &droppable, &seq);
  f->in++;
  f->droppable = droppable;
  g_mutex_unlock (&sel->lock);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
select_out (GstPad * pad, GstPadProbeInfo * info, Select * sel)
{
  gboolean droppable;
  guint16 seq;
  Frame *f;

  g_mutex_lock (&sel->lock);
  f = frame_for (sel, GST_PAD_PROBE_INFO_BUFFER (info), &droppable, &seq);
  f->out++;
  if (sel->have_seq && seq != (guint16) (sel->last_seq + 1)) {
    if (sel->gaps++ < 8)
      g_string_append_printf (sel->jumps, " %u -> %u", sel->last_seq, seq);
  }
  sel->last_seq = seq;
  sel->have_seq = TRUE;
  g_mutex_unlock (&sel->lock);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
count_decoded (GstPad * pad, GstPadProbeInfo * info, Select * sel)
{
  g_mutex_lock (&sel->lock);
  sel->decoded++;
  g_mutex_unlock (&sel->lock);
  return GST_PAD_PROBE_OK;
}

static guint64
jitterbuffer_lost (GstElement * recv)
{
  GValue item = G_VALUE_INIT;
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (recv));
  guint64 lost = G_MAXUINT64;

  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&item);
    GstElementFactory *fac = gst_element_get_factory (e);
    if (fac && g_str_equal (GST_OBJECT_NAME (fac), "rtpjitterbuffer")) {
      GstStructure *st;
      g_object_get (e, "stats", &st, NULL);
      fail_unless (gst_structure_get_uint64 (st, "num-lost", &lost));
      gst_structure_free (st);
    }
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  return lost;
}

GST_START_TEST (test_r3cp_selective_transmission)
{
  GstElement *send, *recv, *rc, *enc, *decoy;
  const GstRcEncoderInfo *info;
  GstStructure *st;
  GHashTableIter iter;
  gpointer key, value;
  GstClockTime end;
  guint64 dropped = 0, lost, cb_trips = 0, cb_dropped = 0;
  guint cap = 0, sent_frames = 0, dropped_frames = 0, partial = 0,
      wrong = 0;
  gint layers = 0;
  GError *err = NULL;
  gchar *warning;
  Select sel = { 0 };

  g_mutex_init (&sel.lock);
  sel.frames = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  sel.jumps = g_string_new (NULL);
  recv = gst_parse_launch (select_receiver_desc, &err);
  fail_unless (recv != NULL, "receiver: %s", err ? err->message : "");
  send = gst_parse_launch (select_sender_desc, &err);
  fail_unless (send != NULL, "sender: %s", err ? err->message : "");
  pipeline_pair_ports (send, recv);

  enc = gst_bin_get_by_name (GST_BIN (send), "enc");
  info = gst_rc_encoder_info_for (enc);
  fail_unless (gst_rc_encoder_set_temporal_layers (enc, info));
  gst_rc_encoder_set_bitrate (enc, info, 1500000);
  decoy = gst_element_factory_make ("vp8enc", NULL);
  fail_unless (decoy != NULL);
  gst_object_ref_sink (decoy);
  rc = gst_bin_get_by_name (GST_BIN (send), "rc");
  g_object_set (rc, "encoder", decoy, NULL);
  add_probe (send, "rc", "sink", (GstPadProbeCallback) select_in, &sel);
  add_probe (send, "rc", "src", (GstPadProbeCallback) select_out, &sel);
  add_probe (recv, "dec", "src", (GstPadProbeCallback) count_decoded, &sel);

  warning = stream_for (send, recv, 10);
  end = gst_util_get_timestamp ();
  g_object_get (rc, "stats", &st, NULL);
  GST_INFO ("sender: %" GST_PTR_FORMAT, st);
  fail_unless (gst_structure_get_uint (st, "send-cap", &cap));
  fail_unless (gst_structure_get_uint64 (st, "selective-dropped-frames",
          &dropped));
  fail_unless (gst_structure_get_uint64 (st, "circuit-breaker-trips",
          &cb_trips));
  fail_unless (gst_structure_get_uint64 (st, "circuit-breaker-dropped",
          &cb_dropped));
  lost = jitterbuffer_lost (recv);
  g_object_get (decoy, "temporal-scalability-number-layers", &layers, NULL);
  stop_pair (send, recv);

  fail_unless (warning == NULL, "sender warned: %s", warning);
  /* urcpsender gave the encoder it drives two layers */
  fail_unless_equals_int (layers, 2);
  fail_unless (cap > 0 && cap <= 400000, "send cap %u", cap);
  /* The frames that left a second before the end (none still queued):
   * whole or not at all, and only droppable ones not at all. */
  g_hash_table_iter_init (&iter, sel.frames);
  while (g_hash_table_iter_next (&iter, &key, &value)) {
    Frame *f = value;
    if (f->arrived + GST_SECOND > end || f->in == 0)
      continue;
    if (f->out == 0) {
      dropped_frames++;
      if (!f->droppable)
        wrong++;
    } else {
      sent_frames++;
      if (f->out != f->in)
        partial++;
    }
  }
  GST_INFO ("frames sent %u, dropped %u (stats: %" G_GUINT64_FORMAT
      "), decoded %u, receiver lost %" G_GUINT64_FORMAT, sent_frames,
      dropped_frames, dropped, sel.decoded, lost);
  fail_unless_equals_int (wrong, 0);
  fail_unless_equals_int (partial, 0);
  /* The base layer alone (900 kbit/s) is above the cap: after the first
   * window every droppable frame goes, about half of all. */
  fail_unless (dropped_frames * 3 > sent_frames,
      "%u frames dropped, %u sent", dropped_frames, sent_frames);
  fail_unless (dropped >= dropped_frames);
  /* no gap in the sequence numbers, so the receiver counts no loss, and
   * what it gets decodes */
  fail_unless (sel.gaps == 0, "%u gaps in the sequence numbers out of "
      "urcpsender:%s (circuit breaker: %" G_GUINT64_FORMAT " trips, %"
      G_GUINT64_FORMAT " packets dropped)", sel.gaps, sel.jumps->str,
      cb_trips, cb_dropped);
  fail_unless_equals_uint64 (lost, 0);
  fail_unless (sel.decoded > sent_frames / 2, "decoded %u of %u frames",
      sel.decoded, sent_frames);

  gst_structure_free (st);
  gst_object_unref (rc);
  gst_object_unref (enc);
  gst_object_unref (decoy);
  g_hash_table_destroy (sel.frames);
  g_string_free (sel.jumps, TRUE);
  g_mutex_clear (&sel.lock);
}

GST_END_TEST;

static Suite *
assisted_pipeline_suite (void)
{
  Suite *s = suite_create ("assisted_pipeline");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cnadu_with_rcreceiver);
  tcase_add_loop_test (tc, test_stock_receiver_warns, 0,
      G_N_ELEMENTS (stock_cases));
  tcase_add_test (tc, test_r3cp_with_rcreceiver);
  tcase_add_test (tc, test_r3cp_selective_transmission);
  return s;
}

GST_CHECK_MAIN (assisted_pipeline);
