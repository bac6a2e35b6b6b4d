/* Fuzz target: a compound RTCP packet from the network, as urcpsender gets
 * it from rtpsession's on-receiving-rtcp: rc_rtcp_parse() (SR, RR, XR,
 * RTPFB, PSFB, APP, SDES, BYE, anything), then the blocks into a sender
 * session running URCP, whose decision must stay within its limits. */
#include "fuzz.h"
#include <string.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include "rc-rtcp.h"
#include "rc-sender.h"

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  GstBuffer *buf;
  GArray *out;
  RcRtcpParseInfo info;
  RcSenderConfig cfg;
  RcSender *s;
  GArray *actions;
  RcDecision d;
  guint i;

  fuzz_init_gst ();
  buf = size ? gst_buffer_new_memdup (data, size) : gst_buffer_new ();
  out = g_array_new (FALSE, FALSE, sizeof (RcReportBlock));
  memset (&info, 0, sizeof (info));
  rc_rtcp_parse (buf, 0x12345678, size ? 90000 : 0, out, &info);

  /* What the parser promises. */
  g_assert_cmpuint (out->len, ==, info.n_reports);
  g_assert_cmpuint (out->len, <=, RC_RTCP_MAX_BLOCKS);
  for (i = 0; i < out->len; i++) {
    const RcReportBlock *b = &g_array_index (out, RcReportBlock, i);
    g_assert_cmpint (b->kind, >=, RC_REPORT_RR);
    g_assert_cmpint (b->kind, <=, RC_REPORT_KIND_LAST);
    if (b->kind == RC_REPORT_RR) {
      g_assert (b->rr.fraction_lost >= 0 && b->rr.fraction_lost <= 1);
      g_assert (!GST_CLOCK_TIME_IS_VALID (b->rr.rtt) ||
          b->rr.rtt <= RC_RTCP_MAX_RTT);
    }
  }

  rc_sender_config_init (&cfg);
  s = rc_sender_new (&cfg, NULL);
  g_assert (s);
  actions = g_array_new (FALSE, FALSE, sizeof (RcSenderAction));
  rc_sender_send_now (s, 1200, RC_SENDER_ITEM_MEDIA, 1 * GST_SECOND);
  rc_sender_on_reports (s, (const RcReportBlock *) out->data, out->len,
      2 * GST_SECOND);
  rc_sender_poll (s, 2 * GST_SECOND, actions);
  /* The same reports again later: the controller sees a second round. */
  rc_sender_on_reports (s, (const RcReportBlock *) out->data, out->len,
      7 * GST_SECOND);
  rc_sender_poll (s, 7 * GST_SECOND, actions);
  d = rc_sender_get_decision (s);
  g_assert_cmpuint (d.media_bps, >=, cfg.limits.min_bps);
  g_assert_cmpuint (d.media_bps, <=, cfg.limits.max_bps);
  gst_structure_free (rc_sender_get_stats (s, 7 * GST_SECOND));

  g_array_unref (actions);
  rc_sender_free (s);
  rc_sender_config_clear (&cfg);
  g_array_unref (out);
  gst_buffer_unref (buf);
  return 0;
}

/* ---------------------------------------------------------------- seeds */

static void
write_buffer (const char *dir, const char *name, GstBuffer * buf)
{
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_READ);
  fuzz_write_seed (dir, name, map.data, map.size);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
}

static void
add_rr (GstRTCPBuffer * rtcp, gboolean sr)
{
  GstRTCPPacket p;

  gst_rtcp_buffer_add_packet (rtcp, sr ? GST_RTCP_TYPE_SR : GST_RTCP_TYPE_RR,
      &p);
  if (sr)
    gst_rtcp_packet_sr_set_sender_info (&p, 0x1111, G_GUINT64_CONSTANT
        (0xe0000000a0000000), 90000, 100, 120000);
  else
    gst_rtcp_packet_rr_set_ssrc (&p, 0x2222);
  gst_rtcp_packet_add_rb (&p, 0xabcd, 25, 12, 4000, 30, 0x12340000, 0x8000);
  gst_rtcp_packet_add_rb (&p, 0xabce, 0, 0, 100, 3, 0, 0);
}

void
fuzz_make_seeds (const char *dir)
{
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket p;
  RcReportBlock xr[3] = { {0}, {0}, {0} }, tmmb = { 0 };
  GstBuffer *buf;

  fuzz_init_gst ();

  buf = gst_rtcp_buffer_new (1400);
  gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp);
  add_rr (&rtcp, TRUE);
  gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_SDES, &p);
  gst_rtcp_packet_sdes_add_item (&p, 0x1111);
  gst_rtcp_packet_sdes_add_entry (&p, GST_RTCP_SDES_CNAME, 5,
      (const guint8 *) "fuzz@");
  gst_rtcp_buffer_unmap (&rtcp);
  write_buffer (dir, "sr-sdes", buf);

  buf = gst_rtcp_buffer_new (1400);
  gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp);
  add_rr (&rtcp, FALSE);
  xr[0].kind = RC_REPORT_DISCARD;
  xr[0].media_ssrc = 0xabcd;
  xr[0].discard.interval = RC_XR_INTERVAL_INTERVAL;
  xr[0].discard.packets = 7;
  xr[1].kind = RC_REPORT_DISCARD_BYTES;
  xr[1].media_ssrc = 0xabcd;
  xr[1].discard_bytes.interval = RC_XR_INTERVAL_CUMULATIVE;
  xr[1].discard_bytes.bytes = 9000;
  xr[2].kind = RC_REPORT_POST_REPAIR;
  xr[2].media_ssrc = 0xabcd;
  xr[2].post_repair.begin_seq = 100;
  xr[2].post_repair.end_seq = 200;
  xr[2].post_repair.unrepaired = 2;
  xr[2].post_repair.repaired = 5;
  g_assert (rc_rtcp_write_xr (&rtcp, 0x2222, xr, 3));
  gst_rtcp_buffer_unmap (&rtcp);
  write_buffer (dir, "rr-xr", buf);

  buf = gst_rtcp_buffer_new (1400);
  gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp);
  add_rr (&rtcp, FALSE);
  tmmb.kind = RC_REPORT_TMMBR;
  tmmb.media_ssrc = 0xabcd;
  tmmb.tmmb.bitrate = 750000;
  tmmb.tmmb.overhead = 40;
  g_assert (rc_rtcp_write_tmmb (&rtcp, RC_REPORT_TMMBR, 0x2222, &tmmb, 1));
  tmmb.kind = RC_REPORT_TMMBN;
  g_assert (rc_rtcp_write_tmmb (&rtcp, RC_REPORT_TMMBN, 0x2222, &tmmb, 1));
  gst_rtcp_buffer_unmap (&rtcp);
  write_buffer (dir, "rr-tmmbr-tmmbn", buf);

  /* Packets the parser skips: PSFB PLI, APP, BYE, and a transport-wide
   * feedback RTPFB (FMT 15) with one status chunk. */
  buf = gst_rtcp_buffer_new (1400);
  gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp);
  add_rr (&rtcp, FALSE);
  gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_PSFB, &p);
  gst_rtcp_packet_fb_set_type (&p, GST_RTCP_PSFB_TYPE_PLI);
  gst_rtcp_packet_fb_set_sender_ssrc (&p, 0x2222);
  gst_rtcp_packet_fb_set_media_ssrc (&p, 0xabcd);
  gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_APP, &p);
  gst_rtcp_packet_app_set_ssrc (&p, 0x2222);
  gst_rtcp_packet_app_set_name (&p, "FUZZ");
  gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_RTPFB, &p);
  gst_rtcp_packet_fb_set_type (&p, GST_RTCP_RTPFB_TYPE_TWCC);
  gst_rtcp_packet_fb_set_sender_ssrc (&p, 0x2222);
  gst_rtcp_packet_fb_set_media_ssrc (&p, 0xabcd);
  if (gst_rtcp_packet_fb_set_fci_length (&p, 3)) {
    static const guint8 fci[12] = { 0x00, 0x10, 0x00, 0x02, 0x00, 0x00,
      0x01, 0x05, 0x20, 0x02, 0x04, 0x08
    };
    memcpy (gst_rtcp_packet_fb_get_fci (&p), fci, sizeof (fci));
  }
  gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_BYE, &p);
  gst_rtcp_packet_bye_add_ssrc (&p, 0x2222);
  gst_rtcp_buffer_unmap (&rtcp);
  write_buffer (dir, "rr-psfb-app-twcc-bye", buf);
}
