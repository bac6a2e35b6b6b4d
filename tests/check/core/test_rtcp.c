/* RTCP feedback core (rc-rtcp): SR/RR report blocks built with GstRTCPBuffer,
 * RTT from LSR/DLSR across the NTP short-format wrap, XR (RFC 7002, 7243,
 * 7509) and TMMBR/TMMBN (RFC 5104) from byte arrays written after the RFC
 * layouts, writer round trips, compound packets with skipped types, and
 * malformed input, each buffer exactly as long as its bytes so that a read
 * past the end shows under valgrind. Fixed times only. */
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include "rc-rtcp.h"

#define MS GST_MSECOND
#define S GST_SECOND

/* ------------------------------------------------------------ helpers */

static GstBuffer *
bytes_buffer (const guint8 * data, gsize len)
{
  return len ? gst_buffer_new_memdup (data, len) : gst_buffer_new ();
}

/* Parses `buf` (taking it) into a new array of RcReportBlock. */
static GArray *
parse (GstBuffer * buf, guint32 arrival, gint clock_rate,
    RcRtcpParseInfo * info, gboolean * ok)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (RcReportBlock));

  *ok = rc_rtcp_parse (buf, arrival, clock_rate, out, info);
  gst_buffer_unref (buf);
  fail_unless_equals_int (out->len, info->n_reports);
  return out;
}

static GArray *
parse_bytes (const guint8 * data, gsize len, RcRtcpParseInfo * info,
    gboolean * ok)
{
  return parse (bytes_buffer (data, len), 0, 90000, info, ok);
}

#define BLK(a, i) (&g_array_index ((a), RcReportBlock, (i)))

/* Field by field, with the row and field named on failure. */
#define EQ(row, got, want) \
  fail_unless ((guint64) (got) == (guint64) (want), \
      "row %u: %s = %" G_GUINT64_FORMAT ", want %" G_GUINT64_FORMAT, \
      (guint) (row), #got, (guint64) (got), (guint64) (want))

static void
assert_block_eq (guint row, const RcReportBlock * g, const RcReportBlock * w)
{
  EQ (row, g->kind, w->kind);
  EQ (row, g->reporter_ssrc, w->reporter_ssrc);
  EQ (row, g->media_ssrc, w->media_ssrc);
  switch (w->kind) {
    case RC_REPORT_RR:
      fail_unless (g->rr.fraction_lost == w->rr.fraction_lost,
          "row %u: fraction_lost %f, want %f", row, g->rr.fraction_lost,
          w->rr.fraction_lost);
      fail_unless (g->rr.cumulative_lost == w->rr.cumulative_lost,
          "row %u: cumulative_lost %d, want %d", row, g->rr.cumulative_lost,
          w->rr.cumulative_lost);
      EQ (row, g->rr.ext_highest_seq, w->rr.ext_highest_seq);
      EQ (row, g->rr.jitter_units, w->rr.jitter_units);
      EQ (row, g->rr.jitter, w->rr.jitter);
      EQ (row, g->rr.lsr, w->rr.lsr);
      EQ (row, g->rr.dlsr, w->rr.dlsr);
      EQ (row, g->rr.rtt, w->rr.rtt);
      break;
    case RC_REPORT_DISCARD:
      EQ (row, g->discard.interval, w->discard.interval);
      EQ (row, g->discard.discard_type, w->discard.discard_type);
      EQ (row, g->discard.packets, w->discard.packets);
      break;
    case RC_REPORT_DISCARD_BYTES:
      EQ (row, g->discard_bytes.interval, w->discard_bytes.interval);
      EQ (row, ! !g->discard_bytes.early, ! !w->discard_bytes.early);
      EQ (row, g->discard_bytes.bytes, w->discard_bytes.bytes);
      break;
    case RC_REPORT_POST_REPAIR:
      EQ (row, g->post_repair.begin_seq, w->post_repair.begin_seq);
      EQ (row, g->post_repair.end_seq, w->post_repair.end_seq);
      EQ (row, g->post_repair.unrepaired, w->post_repair.unrepaired);
      EQ (row, g->post_repair.repaired, w->post_repair.repaired);
      break;
    case RC_REPORT_TMMBR:
    case RC_REPORT_TMMBN:
      EQ (row, g->tmmb.bitrate, w->tmmb.bitrate);
      EQ (row, g->tmmb.overhead, w->tmmb.overhead);
      break;
    case RC_REPORT_RRTR:
      EQ (row, g->rrtr.ntp, w->rrtr.ntp);
      break;
    case RC_REPORT_DLRR:
      EQ (row, g->dlrr.lrr, w->dlrr.lrr);
      EQ (row, g->dlrr.dlrr, w->dlrr.dlrr);
      EQ (row, g->dlrr.rtt, w->dlrr.rtt);
      break;
    case RC_REPORT_NADU:
      EQ (row, g->nadu.playout_delay_ms, w->nadu.playout_delay_ms);
      EQ (row, g->nadu.nsn, w->nadu.nsn);
      EQ (row, g->nadu.nun, w->nadu.nun);
      EQ (row, g->nadu.free_blocks, w->nadu.free_blocks);
      break;
  }
}

static void
assert_clean (const RcRtcpParseInfo * info)
{
  fail_unless_equals_int (info->n_malformed_packets, 0);
  fail_unless_equals_int (info->n_malformed_blocks, 0);
  fail_if (info->truncated);
  fail_unless (info->first_problem == NULL, "unexpected problem: %s",
      info->first_problem);
}

/* An RcReportBlock of `kind_` with its union member `member` set from the
 * remaining arguments, in field order. */
#define BLOCK(kind_, rep, med, member, ...) \
  ((RcReportBlock) { .kind = (kind_), .reporter_ssrc = (rep), \
      .media_ssrc = (med), .member = { __VA_ARGS__ } })
#define discard_block(rep, med, i, dt, packets) \
  BLOCK (RC_REPORT_DISCARD, rep, med, discard, (i), (dt), (packets))
#define bytes_block(rep, med, i, early, bytes) \
  BLOCK (RC_REPORT_DISCARD_BYTES, rep, med, discard_bytes, (i), (early), \
      (bytes))
#define post_repair_block(rep, med, begin, end, unrepaired, repaired) \
  BLOCK (RC_REPORT_POST_REPAIR, rep, med, post_repair, (begin), (end), \
      (unrepaired), (repaired))
#define tmmb_block(kind, rep, med, bitrate, overhead) \
  BLOCK (kind, rep, med, tmmb, (bitrate), (overhead))

/* `buf` holds exactly the bytes `want`. */
static void
assert_written_bytes (GstBuffer * buf, const guint8 * want, gsize len)
{
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (map.size, len);
  fail_unless (memcmp (map.data, want, len) == 0, "written bytes differ");
  gst_buffer_unmap (buf, &map);
}

/* ------------------------------------------------------------ NTP, RTT */

GST_START_TEST (test_ntp_helpers)
{
  fail_unless_equals_int (rc_rtcp_ntp_short (G_GUINT64_CONSTANT
          (0x0123456789abcdef)), 0x456789ab);
  /* The Unix epoch is 2208988800 s after the NTP epoch. */
  fail_unless_equals_uint64 (rc_rtcp_ntp_from_unix (0),
      G_GUINT64_CONSTANT (2208988800) << 32);
  /* 1.5 s: half a second is 0x80000000 in the 32-bit fraction. */
  fail_unless_equals_uint64 (rc_rtcp_ntp_from_unix (1500 * MS),
      ((G_GUINT64_CONSTANT (2208988801)) << 32) | 0x80000000u);
  /* 2036-02-07 06:28:16 UTC is NTP second 2^32: era 1 starts at 0. */
  fail_unless_equals_uint64 (rc_rtcp_ntp_from_unix ((G_GUINT64_CONSTANT
              (4294967296) - G_GUINT64_CONSTANT (2208988800)) * S + 250 * MS),
      0x40000000u);
  fail_unless_equals_uint64 (rc_rtcp_ntp_short_to_time (0x00010000), S);
  fail_unless_equals_uint64 (rc_rtcp_ntp_short_to_time (0x00008000),
      500 * MS);
  fail_unless_equals_uint64 (rc_rtcp_ntp_short_to_time (0x00000001),
      15258);                   /* 1/65536 s, rounded down */
}

GST_END_TEST;

static const struct
{
  guint32 arrival, lsr, dlsr;
  GstClockTime rtt;
} rtt_cases[] = {
  /* RFC 3550 sec. 6.4.1 example: A = 46864.500 s, LSR = 46853.125 s, DLSR
   * = 5.250 s: RTT = 6.125 s. */
  {0xb7108000u, 0xb7052000u, 0x00054000u, 6125 * MS},
  /* The 16-bit seconds wrap between the SR and the RR: LSR 65535.75 s,
   * arrival 0.25 s later in the next era, DLSR 0.125 s. */
  {0x00004000u, 0xffffc000u, 0x00002000u, 375 * MS},
  {0x00000000u, 0xffff0000u, 0x00000000u, 1 * S},
  /* Loopback: nothing left after the receiver's hold time. */
  {0x12345678u, 0x12340000u, 0x00005678u, 0},
  /* No SR received yet: LSR 0. */
  {0x00100000u, 0x00000000u, 0x00000000u, GST_CLOCK_TIME_NONE},
  /* Negative by one unit (clock steps, forged DLSR). */
  {0x00100000u, 0x000f0000u, 0x00010001u, GST_CLOCK_TIME_NONE},
  /* Negative across the wrap. */
  {0xffff0000u, 0x00010000u, 0x00000000u, GST_CLOCK_TIME_NONE},
  /* The bound: exactly RC_RTCP_MAX_RTT passes, one unit more does not. */
  {0x000b0000u, 0x00010000u, 0x00000000u, 10 * S},
  {0x000b0001u, 0x00010000u, 0x00000000u, GST_CLOCK_TIME_NONE},
  /* Hours apart: different clocks. */
  {0x80000000u, 0x00010000u, 0x00000000u, GST_CLOCK_TIME_NONE},
};

GST_START_TEST (test_rtt_table)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (rtt_cases); i++)
    EQ (i, rc_rtcp_rtt (rtt_cases[i].arrival, rtt_cases[i].lsr,
            rtt_cases[i].dlsr), rtt_cases[i].rtt);
}

GST_END_TEST;

/* ------------------------------------------------------------ SR / RR */

#define ARRIVAL 0xb7108000u     /* the RFC 3550 example's A */

static const struct
{
  gboolean in_sr;               /* else in the RR */
  guint32 ssrc;
  guint8 fraction;
  gint32 lost;
  guint32 ehs, jitter, lsr, dlsr;
  GstClockTime rtt;
} rb_cases[] = {
  {TRUE, 0x01020304, 0, 0, 0x00010000, 9000, 0xb7052000u, 0x00054000u,
      6125 * MS},
  {TRUE, 0x0a0b0c0d, 255, -5, 0xffffffffu, 0, 0, 0, GST_CLOCK_TIME_NONE},
  {FALSE, 0xdeadbeef, 64, 0x7fffff, 12345, 45, 0xb7100000u, 0x00000001u,
      499984741},               /* 0x7fff / 65536 s, rounded down */
};

static RcReportBlock
rb_expected (guint i, gint clock_rate)
{
  RcReportBlock b = { 0 };
  b.kind = RC_REPORT_RR;
  b.reporter_ssrc = rb_cases[i].in_sr ? 0x5e5e5e5e : 0x7e7e7e7e;
  b.media_ssrc = rb_cases[i].ssrc;
  b.rr.fraction_lost = rb_cases[i].fraction / 256.0;
  b.rr.cumulative_lost = rb_cases[i].lost;
  b.rr.ext_highest_seq = rb_cases[i].ehs;
  b.rr.jitter_units = rb_cases[i].jitter;
  b.rr.jitter = clock_rate > 0 ?
      gst_util_uint64_scale (rb_cases[i].jitter, S, clock_rate) :
      GST_CLOCK_TIME_NONE;
  b.rr.lsr = rb_cases[i].lsr;
  b.rr.dlsr = rb_cases[i].dlsr;
  b.rr.rtt = rb_cases[i].rtt;
  return b;
}

/* An SR with the two in_sr blocks, then an RR with the other, built with
 * GstRTCPBuffer as rtpsession builds them. */
static GstBuffer *
sr_rr_new (void)
{
  GstBuffer *buf = gst_rtcp_buffer_new (1400);
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;
  guint i, pass;

  fail_unless (gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp));
  for (pass = 0; pass < 2; pass++) {
    gboolean sr = pass == 0;
    fail_unless (gst_rtcp_buffer_add_packet (&rtcp,
            sr ? GST_RTCP_TYPE_SR : GST_RTCP_TYPE_RR, &pkt));
    if (sr)
      gst_rtcp_packet_sr_set_sender_info (&pkt, 0x5e5e5e5e,
          G_GUINT64_CONSTANT (0xb7108000aaaa0000), 1234, 10, 10000);
    else
      gst_rtcp_packet_rr_set_ssrc (&pkt, 0x7e7e7e7e);
    for (i = 0; i < G_N_ELEMENTS (rb_cases); i++)
      if (rb_cases[i].in_sr == sr)
        fail_unless (gst_rtcp_packet_add_rb (&pkt, rb_cases[i].ssrc,
                rb_cases[i].fraction, rb_cases[i].lost, rb_cases[i].ehs,
                rb_cases[i].jitter, rb_cases[i].lsr, rb_cases[i].dlsr));
  }
  gst_rtcp_buffer_unmap (&rtcp);
  return buf;
}

GST_START_TEST (test_sr_rr_fields)
{
  static const gint rates[] = { 90000, 48000, 0, -1 };
  guint r, i;

  for (r = 0; r < G_N_ELEMENTS (rates); r++) {
    RcRtcpParseInfo info;
    gboolean ok;
    GArray *out = parse (sr_rr_new (), ARRIVAL, rates[r], &info, &ok);

    fail_unless (ok);
    assert_clean (&info);
    fail_unless_equals_int (info.n_packets, 2);
    fail_unless_equals_int (info.n_skipped_packets, 0);
    fail_unless_equals_int (out->len, G_N_ELEMENTS (rb_cases));
    for (i = 0; i < G_N_ELEMENTS (rb_cases); i++) {
      RcReportBlock want = rb_expected (i, rates[r]);
      assert_block_eq (i, BLK (out, i), &want);
    }
    g_array_unref (out);
  }
}

GST_END_TEST;

/* 9000 units at 90 kHz is 100 ms; the sign of a negative cumulative loss
 * survives. */
GST_START_TEST (test_rr_values_spot_check)
{
  RcRtcpParseInfo info;
  gboolean ok;
  GArray *out = parse (sr_rr_new (), ARRIVAL, 90000, &info, &ok);

  fail_unless_equals_uint64 (BLK (out, 0)->rr.jitter, 100 * MS);
  fail_unless_equals_uint64 (BLK (out, 0)->rr.rtt, 6125 * MS);
  fail_unless_equals_int (BLK (out, 1)->rr.cumulative_lost, -5);
  fail_unless_equals_float (BLK (out, 1)->rr.fraction_lost, 255.0 / 256.0);
  fail_unless_equals_int (BLK (out, 2)->rr.cumulative_lost, 0x7fffff);
  fail_unless_equals_uint64 (BLK (out, 2)->rr.jitter, 500 * GST_USECOND);
  g_array_unref (out);
}

GST_END_TEST;

/* ------------------------------------------------------------ XR */

/* RFC 3611 sec. 2 XR packet with one block of each type, written from the
 * RFC 7002 sec. 3, RFC 7243 sec. 3 and RFC 7509 sec. 3 figures. */
static const guint8 xr_three[] = {
  0x80, 0xcf, 0x00, 0x0b,       /* V=2 P=0 rsvd, PT=XR 207, length 11 */
  0x11, 0x22, 0x33, 0x44,       /* SSRC of the reporter */
  /* BT=24 | I=10 (interval) DT=01 resv | block length = 2 */
  24, 0x90, 0x00, 0x02,
  0xaa, 0xbb, 0xcc, 0x01,       /* SSRC of source */
  0x00, 0x00, 0x01, 0x2c,       /* 300 packets discarded */
  /* BT=26 | I=11 (cumulative) E=1 reserved | block length = 2 */
  26, 0xe0, 0x00, 0x02,
  0xaa, 0xbb, 0xcc, 0x01,
  0x00, 0x01, 0x86, 0xa0,       /* 100000 payload bytes discarded */
  /* BT=33 | reserved | block length = 3 */
  33, 0x00, 0x00, 0x03,
  0xaa, 0xbb, 0xcc, 0x02,
  0xff, 0xf0, 0x00, 0x10,       /* begin_seq 65520, end_seq 16 (wrapped) */
  0x00, 0x07, 0x00, 0x2a,       /* 7 unrepaired, 42 repaired */
};

static void
xr_three_expected (RcReportBlock * w)
{
  w[0] = discard_block (0x11223344, 0xaabbcc01, RC_XR_INTERVAL_INTERVAL, 1,
      300);
  w[1] = bytes_block (0x11223344, 0xaabbcc01, RC_XR_INTERVAL_CUMULATIVE,
      TRUE, 100000);
  w[2] = post_repair_block (0x11223344, 0xaabbcc02, 65520, 16, 7, 42);
}

GST_START_TEST (test_xr_from_rfc_bytes)
{
  RcReportBlock want[3];
  RcRtcpParseInfo info;
  gboolean ok;
  GArray *out = parse_bytes (xr_three, sizeof (xr_three), &info, &ok);
  guint i;

  fail_unless (ok);
  assert_clean (&info);
  fail_unless_equals_int (info.n_packets, 1);
  fail_unless_equals_int (out->len, 3);
  xr_three_expected (want);
  for (i = 0; i < 3; i++)
    assert_block_eq (i, BLK (out, i), &want[i]);
  g_array_unref (out);
}

GST_END_TEST;

/* Every I and DT value of the BT 24 header byte, and every I and E of BT
 * 26, each from bytes laid out by hand. */
GST_START_TEST (test_xr_flag_bits)
{
  guint i, v;

  for (i = 0; i < 4; i++) {
    for (v = 0; v < 4; v++) {
      guint8 d[] = {
        0x80, 0xcf, 0x00, 0x07, 0x01, 0x02, 0x03, 0x04,
        24, (guint8) ((i << 6) | (v << 4)), 0x00, 0x02,
        0x0a, 0x0b, 0x0c, 0x0d, 0xff, 0xff, 0xff, 0xfe,
        26, (guint8) ((i << 6) | ((v & 1) << 5)), 0x00, 0x02,
        0x0a, 0x0b, 0x0c, 0x0e, 0x80, 0x00, 0x00, 0x01,
      };
      RcReportBlock w0 = discard_block (0x01020304, 0x0a0b0c0d, i, v,
          0xfffffffeu);
      RcReportBlock w1 = bytes_block (0x01020304, 0x0a0b0c0e, i, v & 1,
          0x80000001u);
      RcRtcpParseInfo info;
      gboolean ok;
      GArray *out = parse_bytes (d, sizeof (d), &info, &ok);

      fail_unless (ok);
      assert_clean (&info);
      fail_unless_equals_int (out->len, 2);
      assert_block_eq (i * 4 + v, BLK (out, 0), &w0);
      assert_block_eq (i * 4 + v, BLK (out, 1), &w1);
      g_array_unref (out);
    }
  }
}

GST_END_TEST;

/* A block longer than its layout is read up to the layout; the next block
 * starts where the length says. */
GST_START_TEST (test_xr_longer_block)
{
  static const guint8 d[] = {
    0x80, 0xcf, 0x00, 0x09, 0x01, 0x02, 0x03, 0x04,
    33, 0x00, 0x00, 0x04,       /* one word more than RFC 7509's 3 */
    0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0x01, 0x00, 0x05, 0x00, 0x02, 0x00, 0x01,
    0xee, 0xee, 0xee, 0xee,
    24, 0xc0, 0x00, 0x02, 0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0x00, 0x00, 0x09,
  };
  RcReportBlock w0 = post_repair_block (0x01020304, 0x0a0b0c0d, 1, 5, 2, 1);
  RcReportBlock w1 = discard_block (0x01020304, 0x0a0b0c0d,
      RC_XR_INTERVAL_CUMULATIVE, 0, 9);
  RcRtcpParseInfo info;
  gboolean ok;
  GArray *out = parse_bytes (d, sizeof (d), &info, &ok);

  assert_clean (&info);
  fail_unless_equals_int (out->len, 2);
  assert_block_eq (0, BLK (out, 0), &w0);
  assert_block_eq (1, BLK (out, 1), &w1);
  g_array_unref (out);
}

GST_END_TEST;

/* ------------------------------------------------------------ TMMBR/N */

/* RFC 4585 sec. 6.1 RTPFB header, RFC 5104 sec. 4.2.1.1 FCI entries. */
static const guint8 tmmbr_three[] = {
  0x83, 0xcd, 0x00, 0x08,       /* V=2 P=0 FMT=3, PT=RTPFB 205, length 8 */
  0x55, 0x66, 0x77, 0x88,       /* SSRC of packet sender */
  0x00, 0x00, 0x00, 0x00,       /* SSRC of media source: unused, 0 */
  0xaa, 0xbb, 0xcc, 0x01,       /* SSRC of the limited media sender */
  0x0f, 0xd0, 0x90, 0x28,       /* exp 3, mantissa 125000, overhead 40 */
  0xaa, 0xbb, 0xcc, 0x02,
  0xff, 0xff, 0xff, 0xff,       /* exp 63, mantissa 2^17-1, overhead 511 */
  0xaa, 0xbb, 0xcc, 0x03,
  0x00, 0x00, 0x02, 0x00,       /* exp 0, mantissa 1, overhead 0 */
};

/* RFC 5104 sec. 4.2.2.1: the FCI SSRC is the owner of the tuple. */
static const guint8 tmmbn_one[] = {
  0x84, 0xcd, 0x00, 0x04,       /* FMT=4 */
  0x99, 0x99, 0x99, 0x99,
  0x00, 0x00, 0x00, 0x00,
  0x55, 0x66, 0x77, 0x88,       /* owner: the TMMBR sender above */
  0x28, 0x0f, 0xa0, 0x1c,       /* exp 10, mantissa 2000, overhead 28 */
};

GST_START_TEST (test_tmmb_from_rfc_bytes)
{
  RcReportBlock w[4];
  GByteArray *both = g_byte_array_new ();
  RcRtcpParseInfo info;
  gboolean ok;
  GArray *out;
  guint i;

  w[0] = tmmb_block (RC_REPORT_TMMBR, 0x55667788, 0xaabbcc01, 1000000, 40);
  /* (2^17 - 1) << 63 does not fit in 64 bits: saturated. */
  w[1] = tmmb_block (RC_REPORT_TMMBR, 0x55667788, 0xaabbcc02, G_MAXUINT64,
      511);
  w[2] = tmmb_block (RC_REPORT_TMMBR, 0x55667788, 0xaabbcc03, 1, 0);
  w[3] = tmmb_block (RC_REPORT_TMMBN, 0x99999999, 0x55667788, 2048000, 28);

  g_byte_array_append (both, tmmbr_three, sizeof (tmmbr_three));
  g_byte_array_append (both, tmmbn_one, sizeof (tmmbn_one));
  out = parse_bytes (both->data, both->len, &info, &ok);
  fail_unless (ok);
  assert_clean (&info);
  fail_unless_equals_int (info.n_packets, 2);
  fail_unless_equals_int (out->len, 4);
  for (i = 0; i < 4; i++)
    assert_block_eq (i, BLK (out, i), &w[i]);
  g_array_unref (out);
  g_byte_array_unref (both);
}

GST_END_TEST;

/* 3GPP TS 26.234 sec. 6.2.3.3 NADU: APP subtype 0, name "PSS0", two
 * 12-byte blocks; then an APP of another name, which is skipped. */
static const guint8 nadu_two[] = {
  0x80, 0xcc, 0x00, 0x08,       /* V=2, subtype 0, APP, 9 words */
  0x11, 0x22, 0x33, 0x44,       /* reporter */
  'P', 'S', 'S', '0',
  0xaa, 0xbb, 0xcc, 0x01,       /* media SSRC */
  0x00, 0x96, 0x12, 0x34,       /* playout delay 150 ms, NSN 0x1234 */
  0xff, 0xe3, 0x01, 0x00,       /* reserved bits set (ignored), NUN 3,
                                 * FBS 256 */
  0xaa, 0xbb, 0xcc, 0x02,
  0xff, 0xff, 0xff, 0xff,       /* no unit waiting, NSN 65535 */
  0x00, 0x00, 0x00, 0x00,
};

static const guint8 app_other[] = {
  0x80, 0xcc, 0x00, 0x03, 0x11, 0x22, 0x33, 0x44, 'A', 'B', 'C', 'D',
  0x01, 0x02, 0x03, 0x04,
};

GST_START_TEST (test_nadu)
{
  static const guint8 want_written[] = {
    0x80, 0xcc, 0x00, 0x08, 0x11, 0x22, 0x33, 0x44, 'P', 'S', 'S', '0',
    0xaa, 0xbb, 0xcc, 0x01, 0x00, 0x96, 0x12, 0x34, 0x00, 0x03, 0x01, 0x00,
    0xaa, 0xbb, 0xcc, 0x02, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
  };
  GByteArray *both = g_byte_array_new ();
  RcReportBlock w[2], bad;
  RcRtcpParseInfo info;
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstBuffer *buf;
  GArray *out;
  gboolean ok;
  guint i;

  w[0] = BLOCK (RC_REPORT_NADU, 0x11223344, 0xaabbcc01, nadu, 150, 0x1234, 3,
      256);
  w[1] = BLOCK (RC_REPORT_NADU, 0x11223344, 0xaabbcc02, nadu,
      RC_NADU_NO_DELAY, 0xffff, 0, 0);
  g_byte_array_append (both, nadu_two, sizeof (nadu_two));
  g_byte_array_append (both, app_other, sizeof (app_other));
  out = parse_bytes (both->data, both->len, &info, &ok);
  fail_unless (ok);
  assert_clean (&info);
  fail_unless_equals_int (info.n_packets, 2);
  fail_unless_equals_int (info.n_skipped_packets, 1);
  fail_unless_equals_int (out->len, 2);
  for (i = 0; i < 2; i++)
    assert_block_eq (i, BLK (out, i), &w[i]);
  g_array_unref (out);
  g_byte_array_unref (both);

  /* The writer: the same packet, reserved bits zero. */
  buf = gst_rtcp_buffer_new (1400);
  fail_unless (gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp));
  fail_unless (rc_rtcp_write_nadu (&rtcp, 0x11223344, w, 2));
  gst_rtcp_buffer_unmap (&rtcp);
  assert_written_bytes (buf, want_written, sizeof (want_written));
  gst_buffer_unref (buf);

  /* Refused: another kind, NUN wider than 5 bits, no block. */
  bad = w[0];
  bad.nadu.nun = 32;
  buf = gst_rtcp_buffer_new (1400);
  fail_unless (gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp));
  fail_if (rc_rtcp_write_nadu (&rtcp, 1, &bad, 1));
  bad = discard_block (0, 1, RC_XR_INTERVAL_INTERVAL, 2, 5);
  fail_if (rc_rtcp_write_nadu (&rtcp, 1, &bad, 1));
  fail_if (rc_rtcp_write_nadu (&rtcp, 1, w, 0));
  fail_unless_equals_int (gst_rtcp_buffer_get_packet_count (&rtcp), 0);
  gst_rtcp_buffer_unmap (&rtcp);
  gst_buffer_unref (buf);

  /* Malformed: data not a whole number of blocks. */
  {
    guint8 cut[sizeof (nadu_two) - 4];
    memcpy (cut, nadu_two, sizeof (cut));
    cut[3] = 0x07;
    out = parse_bytes (cut, sizeof (cut), &info, &ok);
    fail_unless_equals_int (out->len, 0);
    fail_unless_equals_int (info.n_malformed_packets, 1);
    g_array_unref (out);
  }
}

GST_END_TEST;

/* RFC 3611 sec. 4.4/4.5: an RRTR from a receiver, then a DLRR with two
 * sub-blocks from the sender; the RTT of each from the arrival, LRR and
 * DLRR as for an RR (RFC 3611 sec. 4.5: A - LRR - DLRR). */
static const guint8 rrtr_dlrr[] = {
  0x80, 0xcf, 0x00, 0x04,       /* XR, 5 words */
  0x11, 0x22, 0x33, 0x44,       /* the receiver */
  0x04, 0x00, 0x00, 0x02,       /* BT 4, length 2 */
  0xe7, 0x00, 0x12, 0x34, 0x80, 0x00, 0x00, 0x00,   /* NTP */
  0x80, 0xcf, 0x00, 0x08,       /* XR, 9 words */
  0x55, 0x66, 0x77, 0x88,       /* the sender */
  0x05, 0x00, 0x00, 0x06,       /* BT 5, two sub-blocks */
  0x11, 0x22, 0x33, 0x44,
  0x00, 0x12, 0x34, 0x80,       /* LRR: middle of the NTP above */
  0x00, 0x00, 0x80, 0x00,       /* DLRR 0.5 s */
  0x99, 0x99, 0x99, 0x99,
  0x00, 0x00, 0x00, 0x00,       /* LRR 0: no RRTR yet */
  0x00, 0x00, 0x00, 0x00,
};

GST_START_TEST (test_rrtr_dlrr)
{
  RcReportBlock w[3], wb[2];
  RcRtcpParseInfo info;
  GstBuffer *buf;
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GArray *out;
  gboolean ok;
  guint i;
  /* arrival 0.75 s after the LRR: RTT 0.25 s */
  guint32 arrival = 0x00123480 + 0xc000;

  memset (w, 0, sizeof (w));
  w[0].kind = RC_REPORT_RRTR;
  w[0].reporter_ssrc = 0x11223344;
  w[0].rrtr.ntp = G_GUINT64_CONSTANT (0xe700123480000000);
  w[1].kind = RC_REPORT_DLRR;
  w[1].reporter_ssrc = 0x55667788;
  w[1].media_ssrc = 0x11223344;
  w[1].dlrr.lrr = 0x00123480;
  w[1].dlrr.dlrr = 0x8000;
  w[1].dlrr.rtt = 250 * MS;
  w[2].kind = RC_REPORT_DLRR;
  w[2].reporter_ssrc = 0x55667788;
  w[2].media_ssrc = 0x99999999;
  w[2].dlrr.rtt = GST_CLOCK_TIME_NONE;
  out = parse (bytes_buffer (rrtr_dlrr, sizeof (rrtr_dlrr)), arrival, 90000,
      &info, &ok);
  fail_unless (ok);
  assert_clean (&info);
  fail_unless_equals_int (out->len, 3);
  for (i = 0; i < 3; i++)
    assert_block_eq (i, BLK (out, i), &w[i]);
  g_array_unref (out);

  /* Written back: one DLRR block per sub-block. */
  wb[0] = w[0];
  wb[1] = w[1];
  buf = gst_rtcp_buffer_new (1400);
  fail_unless (gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp));
  fail_unless (rc_rtcp_write_xr (&rtcp, 0x11223344, &wb[0], 1));
  fail_unless (rc_rtcp_write_xr (&rtcp, 0x55667788, &wb[1], 1));
  gst_rtcp_buffer_unmap (&rtcp);
  {
    guint8 want[20 + 24];
    static const guint8 dlrr_one[] = {
      0x80, 0xcf, 0x00, 0x05, 0x55, 0x66, 0x77, 0x88,
      0x05, 0x00, 0x00, 0x03, 0x11, 0x22, 0x33, 0x44,
      0x00, 0x12, 0x34, 0x80, 0x00, 0x00, 0x80, 0x00,
    };
    memcpy (want, rrtr_dlrr, 20);
    memcpy (want + 20, dlrr_one, sizeof (dlrr_one));
    assert_written_bytes (buf, want, sizeof (want));
  }
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* rc_rtcp_write_blocks: a receiver's mixed blocks become one TMMBR, one XR
 * and one NADU packet, read back block for block in that order; an RR is
 * refused (rtpsession writes those) while the rest is written. */
GST_START_TEST (test_write_blocks)
{
  RcReportBlock in[5], want[5], rr = { 0 };
  GstBuffer *buf = gst_rtcp_buffer_new (1400);
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  RcRtcpParseInfo info;
  GArray *out;
  gboolean ok;
  guint i;

  in[0] = discard_block (0, 0xaa, RC_XR_INTERVAL_INTERVAL, 0, 3);
  in[1] = BLOCK (RC_REPORT_NADU, 0, 0xaa, nadu, 40, 7, 0, 0xffff);
  in[2] = tmmb_block (RC_REPORT_TMMBR, 0, 0xaa, 500000, 40);
  in[3] = bytes_block (0, 0xaa, RC_XR_INTERVAL_INTERVAL, FALSE, 3000);
  memset (&in[4], 0, sizeof (in[4]));
  in[4].kind = RC_REPORT_RRTR;
  in[4].rrtr.ntp = G_GUINT64_CONSTANT (0x0102030405060708);
  want[0] = in[2];
  want[1] = in[0];
  want[2] = in[3];
  want[3] = in[4];
  want[4] = in[1];
  for (i = 0; i < 5; i++)
    want[i].reporter_ssrc = 0x77;
  fail_unless (gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp));
  fail_unless (rc_rtcp_write_blocks (&rtcp, 0x77, in, 5));
  gst_rtcp_buffer_unmap (&rtcp);
  fail_unless_equals_int (gst_buffer_get_size (buf), 20 + 8 + 12 + 12 + 12 +
      24);
  out = parse (gst_buffer_ref (buf), 0, 90000, &info, &ok);
  assert_clean (&info);
  fail_unless_equals_int (info.n_packets, 3);
  fail_unless_equals_int (out->len, 5);
  for (i = 0; i < 5; i++)
    assert_block_eq (i, BLK (out, i), &want[i]);
  g_array_unref (out);
  gst_buffer_unref (buf);

  rr.kind = RC_REPORT_RR;
  buf = gst_rtcp_buffer_new (1400);
  fail_unless (gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp));
  in[1] = rr;
  fail_if (rc_rtcp_write_blocks (&rtcp, 0x77, in, 2));
  fail_unless_equals_int (gst_rtcp_buffer_get_packet_count (&rtcp), 1);
  gst_rtcp_buffer_unmap (&rtcp);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* ------------------------------------------------------------ writers */

GST_START_TEST (test_write_xr_rfc_bytes)
{
  RcReportBlock b[3];
  GstBuffer *buf = gst_rtcp_buffer_new (1400);
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;

  xr_three_expected (b);
  fail_unless (gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp));
  fail_unless (rc_rtcp_write_xr (&rtcp, 0x11223344, b, 3));
  gst_rtcp_buffer_unmap (&rtcp);
  assert_written_bytes (buf, xr_three, sizeof (xr_three));
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_write_tmmb_rfc_bytes)
{
  /* The first and last entries of tmmbr_three (the saturated one cannot be
   * written back as it was sent). */
  static const guint8 want_r[] = {
    0x83, 0xcd, 0x00, 0x06, 0x55, 0x66, 0x77, 0x88, 0x00, 0x00, 0x00, 0x00,
    0xaa, 0xbb, 0xcc, 0x01, 0x0f, 0xd0, 0x90, 0x28,
    0xaa, 0xbb, 0xcc, 0x03, 0x00, 0x00, 0x02, 0x00,
  };
  static const guint8 want_n[] = {
    0x84, 0xcd, 0x00, 0x04, 0x99, 0x99, 0x99, 0x99, 0x00, 0x00, 0x00, 0x00,
    0x55, 0x66, 0x77, 0x88, 0x13, 0xe8, 0x00, 0x1c,
  };
  RcReportBlock r[2], n;
  GstBuffer *buf;
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;

  r[0] = tmmb_block (RC_REPORT_TMMBR, 0, 0xaabbcc01, 1000000, 40);
  r[1] = tmmb_block (RC_REPORT_TMMBR, 0, 0xaabbcc03, 1, 0);
  buf = gst_rtcp_buffer_new (1400);
  fail_unless (gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp));
  fail_unless (rc_rtcp_write_tmmb (&rtcp, RC_REPORT_TMMBR, 0x55667788, r,
          2));
  gst_rtcp_buffer_unmap (&rtcp);
  assert_written_bytes (buf, want_r, sizeof (want_r));
  gst_buffer_unref (buf);

  /* tmmbn_one's 2048000 bit/s as 2000 << 10; the writer takes the smallest
   * exponent, 128000 << 4: other bytes, the same value. */
  n = tmmb_block (RC_REPORT_TMMBN, 0, 0x55667788, 2048000, 28);
  buf = gst_rtcp_buffer_new (1400);
  fail_unless (gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp));
  fail_unless (rc_rtcp_write_tmmb (&rtcp, RC_REPORT_TMMBN, 0x99999999, &n,
          1));
  gst_rtcp_buffer_unmap (&rtcp);
  assert_written_bytes (buf, want_n, sizeof (want_n));
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* XR blocks of every kind and edge value, written into one XR packet after
 * an RR, parsed back, compared field by field. */
GST_START_TEST (test_xr_round_trip)
{
  GArray *want = g_array_new (FALSE, TRUE, sizeof (RcReportBlock));
  GstBuffer *buf = gst_rtcp_buffer_new (1400);
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;
  RcRtcpParseInfo info;
  RcReportBlock b;
  gboolean ok;
  GArray *out;
  guint i, dt;

  for (i = 0; i < 4; i++) {
    for (dt = 0; dt < 4; dt++) {
      b = discard_block (0xfeedf00d, 0x1000 + i, i, dt, i * 1000 + dt);
      g_array_append_val (want, b);
    }
    b = bytes_block (0xfeedf00d, 0x2000 + i, i, i & 1, G_MAXUINT32 - i);
    g_array_append_val (want, b);
  }
  b = post_repair_block (0xfeedf00d, 0x3000, 0, 0, 0, 0);
  g_array_append_val (want, b);
  b = post_repair_block (0xfeedf00d, 0x3001, 65000, 1000, 65535, 65535);
  g_array_append_val (want, b);

  fail_unless (gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp));
  fail_unless (gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_RR, &pkt));
  gst_rtcp_packet_rr_set_ssrc (&pkt, 0xfeedf00d);
  fail_unless (rc_rtcp_write_xr (&rtcp, 0xfeedf00d,
          (RcReportBlock *) want->data, want->len));
  gst_rtcp_buffer_unmap (&rtcp);
  fail_unless (gst_rtcp_buffer_validate (buf));

  out = parse (buf, 0, 90000, &info, &ok);
  fail_unless (ok);
  assert_clean (&info);
  fail_unless_equals_int (info.n_packets, 2);
  fail_unless_equals_int (out->len, want->len);
  for (i = 0; i < want->len; i++)
    assert_block_eq (i, BLK (out, i), BLK (want, i));
  g_array_unref (out);
  g_array_unref (want);
}

GST_END_TEST;

static const struct
{
  guint64 bitrate, parsed;      /* parsed: rounded down to the encoding */
} tmmb_rates[] = {
  {0, 0},
  {1, 1},
  {131071, 131071},             /* largest mantissa, exponent 0 */
  {131072, 131072},             /* exponent 1 */
  {131073, 131072},
  {1000000, 1000000},
  {1000001, 1000000},
  {2500000, 2500000},
  {1000000000, 999997440},      /* 122070 << 13 */
  {G_GUINT64_CONSTANT (1) << 40, G_GUINT64_CONSTANT (1) << 40},
  {G_MAXUINT64, G_GUINT64_CONSTANT (0x1ffff) << 47},
};

GST_START_TEST (test_tmmb_round_trip)
{
  static const RcReportKind kinds[] = { RC_REPORT_TMMBR, RC_REPORT_TMMBN };
  static const guint16 overheads[] = { 0, 40, 511 };
  guint k, i;

  for (k = 0; k < G_N_ELEMENTS (kinds); k++) {
    RcReportBlock in[G_N_ELEMENTS (tmmb_rates)];
    GstBuffer *buf = gst_rtcp_buffer_new (1400);
    GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
    RcRtcpParseInfo info;
    gboolean ok;
    GArray *out;

    for (i = 0; i < G_N_ELEMENTS (tmmb_rates); i++)
      in[i] = tmmb_block (kinds[k], 0, 0xc0de0000 + i, tmmb_rates[i].bitrate,
          overheads[i % G_N_ELEMENTS (overheads)]);
    fail_unless (gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp));
    fail_unless (rc_rtcp_write_tmmb (&rtcp, kinds[k], 0x0b0b0b0b, in,
            G_N_ELEMENTS (in)));
    gst_rtcp_buffer_unmap (&rtcp);

    out = parse (buf, 0, 90000, &info, &ok);
    fail_unless (ok);
    assert_clean (&info);
    fail_unless_equals_int (out->len, G_N_ELEMENTS (in));
    for (i = 0; i < G_N_ELEMENTS (in); i++) {
      RcReportBlock w = in[i];
      w.reporter_ssrc = 0x0b0b0b0b;
      w.tmmb.bitrate = tmmb_rates[i].parsed;
      assert_block_eq (i, BLK (out, i), &w);
    }
    g_array_unref (out);
  }
}

GST_END_TEST;

/* What the writers refuse leaves the buffer as it was. */
GST_START_TEST (test_writers_refuse)
{
  RcReportBlock ok_xr = discard_block (0, 1, RC_XR_INTERVAL_INTERVAL, 1, 1);
  RcReportBlock bad_i = discard_block (0, 1, 4, 1, 1);
  RcReportBlock bad_dt = discard_block (0, 1, RC_XR_INTERVAL_INTERVAL, 4, 1);
  RcReportBlock bad_bi = bytes_block (0, 1, 7, TRUE, 1);
  RcReportBlock rr = { 0 };
  RcReportBlock r = tmmb_block (RC_REPORT_TMMBR, 0, 1, 1000, 511);
  RcReportBlock r_oh = tmmb_block (RC_REPORT_TMMBR, 0, 1, 1000, 512);
  RcReportBlock n = tmmb_block (RC_REPORT_TMMBN, 0, 1, 1000, 0);
  RcReportBlock big[4];
  GstBuffer *buf = gst_rtcp_buffer_new (1400), *small;
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  guint i;

  rr.kind = RC_REPORT_RR;
  fail_unless (gst_rtcp_buffer_map (buf, GST_MAP_READWRITE, &rtcp));
  fail_if (rc_rtcp_write_xr (&rtcp, 1, &ok_xr, 0));
  fail_if (rc_rtcp_write_xr (&rtcp, 1, &bad_i, 1));
  fail_if (rc_rtcp_write_xr (&rtcp, 1, &bad_dt, 1));
  fail_if (rc_rtcp_write_xr (&rtcp, 1, &bad_bi, 1));
  fail_if (rc_rtcp_write_xr (&rtcp, 1, &rr, 1));
  fail_if (rc_rtcp_write_xr (&rtcp, 1, &r, 1));
  fail_if (rc_rtcp_write_tmmb (&rtcp, RC_REPORT_TMMBR, 1, &r, 0));
  fail_if (rc_rtcp_write_tmmb (&rtcp, RC_REPORT_TMMBR, 1, &r_oh, 1));
  fail_if (rc_rtcp_write_tmmb (&rtcp, RC_REPORT_TMMBR, 1, &n, 1));
  fail_if (rc_rtcp_write_tmmb (&rtcp, RC_REPORT_RR, 1, &rr, 1));
  fail_unless_equals_int (rtcp.map.size, 0);
  /* An empty TMMBN is a valid notification. */
  fail_unless (rc_rtcp_write_tmmb (&rtcp, RC_REPORT_TMMBN, 1, NULL, 0));
  fail_unless_equals_int (rtcp.map.size, 12);
  gst_rtcp_buffer_unmap (&rtcp);
  gst_buffer_unref (buf);

  /* No room: 8 + 4 x 12 bytes of XR, or 12 + 4 x 8 of TMMBR, in 40. */
  small = gst_rtcp_buffer_new (40);
  fail_unless (gst_rtcp_buffer_map (small, GST_MAP_READWRITE, &rtcp));
  for (i = 0; i < 4; i++)
    big[i] = ok_xr;
  fail_if (rc_rtcp_write_xr (&rtcp, 1, big, 4));
  fail_unless_equals_int (rtcp.map.size, 0);
  for (i = 0; i < 4; i++)
    big[i] = r;
  fail_if (rc_rtcp_write_tmmb (&rtcp, RC_REPORT_TMMBR, 1, big, 4));
  fail_unless_equals_int (rtcp.map.size, 0);
  fail_unless (rc_rtcp_write_tmmb (&rtcp, RC_REPORT_TMMBR, 1, big, 2));
  gst_rtcp_buffer_unmap (&rtcp);
  gst_buffer_unref (small);
}

GST_END_TEST;

/* ------------------------------------------------------------ compound */

static const guint8 compound_mixed[] = {
  /* RR, one block: SSRC 0x0a0b0c0d, 1/4 lost, cumulative -1, EHS 70000,
   * jitter 180, LSR/DLSR from the RFC 3550 example */
  0x81, 0xc9, 0x00, 0x07, 0x12, 0x12, 0x12, 0x12,
  0x0a, 0x0b, 0x0c, 0x0d, 0x40, 0xff, 0xff, 0xff,
  0x00, 0x01, 0x11, 0x70, 0x00, 0x00, 0x00, 0xb4,
  0xb7, 0x05, 0x20, 0x00, 0x00, 0x05, 0x40, 0x00,
  /* SDES: one chunk, CNAME "abc" */
  0x81, 0xca, 0x00, 0x03, 0x12, 0x12, 0x12, 0x12,
  0x01, 0x03, 'a', 'b', 'c', 0x00, 0x00, 0x00,
  /* XR: BT 24, BT 4 (RRT, RFC 3611 sec. 4.4), unknown BT 99 (empty) */
  0x80, 0xcf, 0x00, 0x08, 0x12, 0x12, 0x12, 0x12,
  24, 0xb0, 0x00, 0x02, 0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0x00, 0x00, 0x03,
  4, 0x00, 0x00, 0x02, 0xb7, 0x10, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00,
  99, 0x00, 0x00, 0x00,
  /* TMMBR: 256 kbit/s (exp 1, mantissa 128000), overhead 60 */
  0x83, 0xcd, 0x00, 0x04, 0x12, 0x12, 0x12, 0x12, 0x00, 0x00, 0x00, 0x00,
  0x0a, 0x0b, 0x0c, 0x0d, 0x07, 0xe8, 0x00, 0x3c,
  /* RTPFB generic NACK (FMT 1): PID 100, BLP 0 */
  0x81, 0xcd, 0x00, 0x03, 0x12, 0x12, 0x12, 0x12, 0x0a, 0x0b, 0x0c, 0x0d,
  0x00, 0x64, 0x00, 0x00,
  /* PSFB PLI (FMT 1) */
  0x81, 0xce, 0x00, 0x02, 0x12, 0x12, 0x12, 0x12, 0x0a, 0x0b, 0x0c, 0x0d,
  /* APP "TEST" */
  0x80, 0xcc, 0x00, 0x02, 0x12, 0x12, 0x12, 0x12, 'T', 'E', 'S', 'T',
  /* packet type 210, no body */
  0x80, 0xd2, 0x00, 0x00,
  /* BYE */
  0x81, 0xcb, 0x00, 0x01, 0x12, 0x12, 0x12, 0x12,
};

GST_START_TEST (test_compound_mixed)
{
  RcReportBlock w[4] = { {0} };
  RcRtcpParseInfo info;
  gboolean ok;
  GArray *out = parse (bytes_buffer (compound_mixed, sizeof (compound_mixed)),
      ARRIVAL, 90000, &info, &ok);
  guint i;

  w[0].kind = RC_REPORT_RR;
  w[0].reporter_ssrc = 0x12121212;
  w[0].media_ssrc = 0x0a0b0c0d;
  w[0].rr.fraction_lost = 0.25;
  w[0].rr.cumulative_lost = -1;
  w[0].rr.ext_highest_seq = 70000;
  w[0].rr.jitter_units = 180;
  w[0].rr.jitter = 2 * MS;
  w[0].rr.lsr = 0xb7052000u;
  w[0].rr.dlsr = 0x00054000u;
  w[0].rr.rtt = 6125 * MS;
  w[1] = discard_block (0x12121212, 0x0a0b0c0d, RC_XR_INTERVAL_INTERVAL, 3,
      3);
  w[2].kind = RC_REPORT_RRTR;
  w[2].reporter_ssrc = 0x12121212;
  w[2].rrtr.ntp = G_GUINT64_CONSTANT (0xb710800000000000);
  w[3] = tmmb_block (RC_REPORT_TMMBR, 0x12121212, 0x0a0b0c0d, 256000, 60);

  fail_unless (ok);
  assert_clean (&info);
  fail_unless_equals_int (info.n_packets, 9);
  /* SDES, NACK, PLI, APP, type 210, BYE */
  fail_unless_equals_int (info.n_skipped_packets, 6);
  /* BT 99 */
  fail_unless_equals_int (info.n_skipped_blocks, 1);
  fail_unless_equals_int (out->len, 4);
  for (i = 0; i < 4; i++)
    assert_block_eq (i, BLK (out, i), &w[i]);
  g_array_unref (out);
}

GST_END_TEST;

/* Output is appended to what the array holds. */
GST_START_TEST (test_parse_appends)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (RcReportBlock));
  GstBuffer *buf = bytes_buffer (xr_three, sizeof (xr_three));
  RcRtcpParseInfo info;

  fail_unless (rc_rtcp_parse (buf, 0, 0, out, &info));
  fail_unless (rc_rtcp_parse (buf, 0, 0, out, NULL));
  fail_unless_equals_int (out->len, 6);
  fail_unless_equals_int (BLK (out, 5)->kind, RC_REPORT_POST_REPAIR);
  gst_buffer_unref (buf);
  g_array_unref (out);
}

GST_END_TEST;

/* ------------------------------------------------------------ malformed */

/* RR with RC=2 whose length holds one block: GStreamer's header checks
 * accept it and gst_rtcp_packet_get_rb() then leaves block 2's outputs
 * unset, which urcpsender's own RR parsing read. */
static const guint8 rr_claims_two[] = {
  0x82, 0xc9, 0x00, 0x07, 0x01, 0x01, 0x01, 0x01,
  0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* The same, then a good XR: the bad packet does not take the rest down. */
static const guint8 rr_claims_two_then_xr[] = {
  0x82, 0xc9, 0x00, 0x07, 0x01, 0x01, 0x01, 0x01,
  0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x80, 0xcf, 0x00, 0x04, 0x01, 0x01, 0x01, 0x01,
  26, 0x80, 0x00, 0x02, 0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0x00, 0x04, 0x00,
};

/* RC=1 and no room at all; SR with RC=31 and no blocks. */
static const guint8 rr_count_no_room[] = {
  0x81, 0xc9, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01,
};

static const guint8 sr_claims_31[] = {
  0x9f, 0xc8, 0x00, 0x06, 0x01, 0x01, 0x01, 0x01,
  0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5,
};

/* XR: BT 24 with block length 1 (8 bytes, too short for its 12), then a
 * good BT 26. */
static const guint8 xr_block_short[] = {
  0x80, 0xcf, 0x00, 0x06, 0x01, 0x01, 0x01, 0x01,
  24, 0x80, 0x00, 0x01, 0x0a, 0x0b, 0x0c, 0x0d,
  26, 0x80, 0x00, 0x02, 0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0x00, 0x00, 0x05,
};

/* XR: BT 33 claims 65536 words; the packet ends 12 bytes in. A BYE
 * follows and is still walked. */
static const guint8 xr_block_past_packet[] = {
  0x80, 0xcf, 0x00, 0x05, 0x01, 0x01, 0x01, 0x01,
  33, 0x00, 0xff, 0xff, 0x0a, 0x0b, 0x0c, 0x0d,
  0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04,
  0x81, 0xcb, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01,
};

/* XR: a good BT 24, then BT 26 claiming 3 words where 2 remain. */
static const guint8 xr_second_block_past[] = {
  0x80, 0xcf, 0x00, 0x07, 0x01, 0x01, 0x01, 0x01,
  24, 0x80, 0x00, 0x02, 0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0x00, 0x00, 0x05,
  26, 0x80, 0x00, 0x03, 0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0x00, 0x00, 0x05,
};

/* TMMBR with 12 bytes of FCI (one entry and half of another). */
static const guint8 tmmbr_fci_12[] = {
  0x83, 0xcd, 0x00, 0x05, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00,
  0x0a, 0x0b, 0x0c, 0x0d, 0x0f, 0xd0, 0x90, 0x28, 0x0a, 0x0b, 0x0c, 0x0e,
};

static const guint8 tmmbr_no_fci[] = {
  0x83, 0xcd, 0x00, 0x02, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00,
};

static const guint8 tmmbn_empty[] = {
  0x84, 0xcd, 0x00, 0x02, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00,
};

static const guint8 three_bytes[] = { 0x81, 0xc9, 0x00 };

/* RR whose length field is 0: no room for its SSRC. */
static const guint8 rr_len0[] = { 0x80, 0xc9, 0x00, 0x00 };

/* A good SR without blocks, then an RR with length 0. */
static const guint8 sr_then_rr_len0[] = {
  0x80, 0xc8, 0x00, 0x06, 0x01, 0x01, 0x01, 0x01,
  0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5,
  0x80, 0xc9, 0x00, 0x00,
};

/* XR with no room for its SSRC, then a BYE that is still read. */
static const guint8 xr_len0[] = {
  0x80, 0xcf, 0x00, 0x00, 0x81, 0xcb, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01,
};

/* TMMBR without its media SSRC word. */
static const guint8 tmmbr_len1[] = {
  0x83, 0xcd, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01,
};

/* Not malformed: an empty packet of a type we do not know (GstRTCPBuffer
 * would stop its walk here), then a BYE. */
static const guint8 unknown_len0_then_bye[] = {
  0x80, 0xd2, 0x00, 0x00, 0x81, 0xcb, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01,
};

static const guint8 garbage_text[] = "hello world!";        /* version 1 */

/* RR claiming 100 words in a 32-byte buffer. */
static const guint8 rr_len_past_buffer[] = {
  0x81, 0xc9, 0x00, 0x64, 0x01, 0x01, 0x01, 0x01,
  0x0a, 0x0b, 0x0c, 0x0d, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0,
};

/* Padding bit set with a count of 0, of 3, larger than the packet. */
static const guint8 pad_zero[] = {
  0xa0, 0xc9, 0x00, 0x02, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00,
};

static const guint8 pad_three[] = {
  0xa0, 0xc9, 0x00, 0x02, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x03,
};

static const guint8 pad_too_big[] = {
  0xa0, 0xc9, 0x00, 0x02, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x0c,
};

/* Good: an RR with one block and 4 bytes of padding. */
static const guint8 rr_padded[] = {
  0xa1, 0xc9, 0x00, 0x08, 0x01, 0x01, 0x01, 0x01,
  0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x04,
};

/* The block fits the length only if the padding is counted as block. */
static const guint8 rr_block_in_padding[] = {
  0xa1, 0xc9, 0x00, 0x07, 0x01, 0x01, 0x01, 0x01,
  0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04,
};

/* Padding is only allowed in the last packet: the BYE after it is
 * trailing garbage. */
static const guint8 padded_then_bye[] = {
  0xa1, 0xc9, 0x00, 0x08, 0x01, 0x01, 0x01, 0x01,
  0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x04,
  0x81, 0xcb, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01,
};

/* A good BYE, then a packet of RTP version 1. */
static const guint8 second_version1[] = {
  0x81, 0xcb, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01,
  0x41, 0xc9, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01,
};

/* Two stray bytes after a good BYE. */
static const guint8 trailing_bytes[] = {
  0x81, 0xcb, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01, 0x80, 0xc9,
};

typedef struct
{
  const gchar *name;
  const guint8 *data;
  gsize len;
  gboolean ok;
  guint packets, reports, skipped_packets, skipped_blocks, bad_packets,
      bad_blocks;
} BadCase;

#define CASE(d) #d, d, sizeof (d)

static const BadCase bad_cases[] = {
  {CASE (rr_claims_two), TRUE, 1, 0, 0, 0, 1, 0},
  {CASE (rr_claims_two_then_xr), TRUE, 2, 1, 0, 0, 1, 0},
  {CASE (rr_count_no_room), TRUE, 1, 0, 0, 0, 1, 0},
  {CASE (sr_claims_31), TRUE, 1, 0, 0, 0, 1, 0},
  {CASE (xr_block_short), TRUE, 1, 1, 0, 0, 0, 1},
  {CASE (xr_block_past_packet), TRUE, 2, 0, 1, 0, 0, 1},
  {CASE (xr_second_block_past), TRUE, 1, 1, 0, 0, 0, 1},
  {CASE (tmmbr_fci_12), TRUE, 1, 0, 0, 0, 1, 0},
  {CASE (tmmbr_no_fci), TRUE, 1, 0, 0, 0, 1, 0},
  {"empty buffer", NULL, 0, FALSE, 0, 0, 0, 0, 1, 0},
  {CASE (three_bytes), FALSE, 0, 0, 0, 0, 1, 0},
  {CASE (rr_len0), TRUE, 1, 0, 0, 0, 1, 0},
  {CASE (sr_then_rr_len0), TRUE, 2, 0, 0, 0, 1, 0},
  {CASE (xr_len0), TRUE, 2, 0, 1, 0, 1, 0},
  {CASE (tmmbr_len1), TRUE, 1, 0, 0, 0, 1, 0},
  {CASE (unknown_len0_then_bye), TRUE, 2, 0, 2, 0, 0, 0},
  {"garbage_text", garbage_text, sizeof (garbage_text) - 1, FALSE, 0, 0, 0,
      0, 1, 0},
  {CASE (rr_len_past_buffer), FALSE, 0, 0, 0, 0, 1, 0},
  {CASE (pad_zero), TRUE, 1, 0, 0, 0, 1, 0},
  {CASE (pad_three), TRUE, 1, 0, 0, 0, 1, 0},
  {CASE (pad_too_big), TRUE, 1, 0, 0, 0, 1, 0},
  {CASE (rr_block_in_padding), TRUE, 1, 0, 0, 0, 1, 0},
  {CASE (padded_then_bye), TRUE, 1, 1, 0, 0, 1, 0},
  {CASE (second_version1), TRUE, 1, 0, 1, 0, 1, 0},
  {CASE (trailing_bytes), TRUE, 1, 0, 1, 0, 1, 0},
  /* Not malformed: an empty bounding set, a padded RR. */
  {CASE (tmmbn_empty), TRUE, 1, 0, 0, 0, 0, 0},
  {CASE (rr_padded), TRUE, 1, 1, 0, 0, 0, 0},
};

GST_START_TEST (test_malformed)
{
  const BadCase *c = &bad_cases[__i__];
  RcRtcpParseInfo info;
  gboolean ok;
  GArray *out = parse_bytes (c->data, c->len, &info, &ok);
  gboolean bad = c->bad_packets || c->bad_blocks;

  GST_INFO ("case %s: %s", c->name, info.first_problem);
  fail_unless (ok == c->ok, "%s: returned %d", c->name, ok);
  fail_unless_equals_int (info.n_packets, c->packets);
  fail_unless_equals_int (info.n_reports, c->reports);
  fail_unless_equals_int (info.n_skipped_packets, c->skipped_packets);
  fail_unless_equals_int (info.n_skipped_blocks, c->skipped_blocks);
  fail_unless_equals_int (info.n_malformed_packets, c->bad_packets);
  fail_unless_equals_int (info.n_malformed_blocks, c->bad_blocks);
  fail_if (info.truncated);
  fail_unless ((info.first_problem != NULL) == bad, "%s: problem '%s'",
      c->name, GST_STR_NULL (info.first_problem));
  g_array_unref (out);
}

GST_END_TEST;

/* What the good parts of the malformed cases still yield. */
GST_START_TEST (test_malformed_keeps_good_parts)
{
  RcRtcpParseInfo info;
  gboolean ok;
  GArray *out;

  out = parse_bytes (rr_claims_two_then_xr, sizeof (rr_claims_two_then_xr),
      &info, &ok);
  fail_unless_equals_int (BLK (out, 0)->kind, RC_REPORT_DISCARD_BYTES);
  fail_unless_equals_int (BLK (out, 0)->discard_bytes.bytes, 1024);
  fail_unless_equals_string (info.first_problem,
      "SR/RR claims more report blocks than its length holds");
  g_array_unref (out);

  out = parse_bytes (xr_block_short, sizeof (xr_block_short), &info, &ok);
  fail_unless_equals_int (BLK (out, 0)->kind, RC_REPORT_DISCARD_BYTES);
  fail_unless_equals_int (BLK (out, 0)->discard_bytes.bytes, 5);
  g_array_unref (out);

  out = parse_bytes (xr_second_block_past, sizeof (xr_second_block_past),
      &info, &ok);
  fail_unless_equals_int (BLK (out, 0)->kind, RC_REPORT_DISCARD);
  fail_unless_equals_int (BLK (out, 0)->discard.packets, 5);
  g_array_unref (out);

  out = parse_bytes (rr_padded, sizeof (rr_padded), &info, &ok);
  fail_unless_equals_int (BLK (out, 0)->kind, RC_REPORT_RR);
  fail_unless_equals_int (BLK (out, 0)->media_ssrc, 0x0a0b0c0d);
  fail_unless_equals_int (BLK (out, 0)->rr.ext_highest_seq, 16);
  g_array_unref (out);
}

GST_END_TEST;

/* RC_RTCP_MAX_BLOCKS bounds the work: 300 empty XR blocks, 300 TMMBR
 * entries. Nothing after the cap is read. */
GST_START_TEST (test_block_cap)
{
  GByteArray *d = g_byte_array_new ();
  static const guint8 xr_head[] = { 0x80, 0xcf, 0x01, 0x2d, 1, 1, 1, 1 };
  static const guint8 empty_block[] = { 99, 0, 0, 0 };
  static const guint8 tmmbr_head[] = {
    0x83, 0xcd, 0x02, 0x5a, 1, 1, 1, 1, 0, 0, 0, 0
  };
  static const guint8 entry[] = { 0, 0, 0, 1, 0x00, 0x00, 0x02, 0x00 };
  RcRtcpParseInfo info;
  gboolean ok;
  GArray *out;
  guint i;

  /* length 0x12d = 301 words: SSRC + 300 blocks */
  g_byte_array_append (d, xr_head, sizeof (xr_head));
  for (i = 0; i < 300; i++)
    g_byte_array_append (d, empty_block, sizeof (empty_block));
  g_byte_array_append (d, rr_padded, sizeof (rr_padded));
  out = parse_bytes (d->data, d->len, &info, &ok);
  fail_unless (ok);
  fail_unless (info.truncated);
  fail_unless_equals_int (info.n_skipped_blocks, RC_RTCP_MAX_BLOCKS);
  fail_unless_equals_int (info.n_packets, 1);
  fail_unless_equals_int (out->len, 0);
  fail_unless_equals_int (info.n_malformed_packets, 0);
  fail_unless (info.first_problem != NULL);
  g_array_unref (out);

  /* length 0x25a = 602 words: 2 + 300 x 2 */
  g_byte_array_set_size (d, 0);
  g_byte_array_append (d, tmmbr_head, sizeof (tmmbr_head));
  for (i = 0; i < 300; i++)
    g_byte_array_append (d, entry, sizeof (entry));
  out = parse_bytes (d->data, d->len, &info, &ok);
  fail_unless (info.truncated);
  fail_unless_equals_int (out->len, RC_RTCP_MAX_BLOCKS);
  fail_unless_equals_int (BLK (out, RC_RTCP_MAX_BLOCKS - 1)->tmmb.bitrate, 1);
  g_array_unref (out);
  g_byte_array_unref (d);
}

GST_END_TEST;

/* Random bytes, random headers over random bodies, and single-byte
 * mutations of a good compound: never a crash or a read out of bounds
 * (valgrind), and the counts always agree with the output. */
GST_START_TEST (test_fuzz_no_crash)
{
  GRand *rand = g_rand_new_with_seed (20260704);
  static const guint8 types[] = { 200, 201, 205, 206, 207, 202, 203, 204 };
  guint iter;

  for (iter = 0; iter < 3000; iter++) {
    guint8 d[sizeof (compound_mixed)];
    gsize len, i;
    RcRtcpParseInfo info;
    gboolean ok;
    GArray *out;

    switch (iter % 3) {
      case 0:                  /* noise */
        len = g_rand_int_range (rand, 0, 97);
        for (i = 0; i < len; i++)
          d[i] = g_rand_int_range (rand, 0, 256);
        break;
      case 1:                  /* plausible headers, noise inside */
        len = 4 * g_rand_int_range (rand, 1, 25);
        for (i = 0; i < len; i++)
          d[i] = g_rand_int_range (rand, 0, 256);
        for (i = 0; i + 4 <= len;) {
          guint words = g_rand_int_range (rand, 0, 8);
          d[i] = 0x80 | g_rand_int_range (rand, 0, 32);
          d[i + 1] = types[g_rand_int_range (rand, 0, G_N_ELEMENTS (types))];
          d[i + 2] = 0;
          d[i + 3] = words;
          i += 4 + 4 * words;
        }
        break;
      default:                 /* the good compound with one byte changed */
        len = sizeof (compound_mixed);
        memcpy (d, compound_mixed, len);
        d[g_rand_int_range (rand, 0, len)] = g_rand_int_range (rand, 0, 256);
        len -= g_rand_int_range (rand, 0, 2) * g_rand_int_range (rand, 0, 9);
        break;
    }
    out = parse_bytes (d, len, &info, &ok);
    fail_unless (ok == (info.n_packets > 0));
    fail_unless (out->len <= RC_RTCP_MAX_BLOCKS);
    for (i = 0; i < out->len; i++)
      fail_unless (BLK (out, i)->kind <= RC_REPORT_KIND_LAST);
    if (info.n_malformed_packets + info.n_malformed_blocks == 0 &&
        !info.truncated)
      fail_unless (info.first_problem == NULL);
    else
      fail_unless (info.first_problem != NULL);
    g_array_unref (out);
  }
  g_rand_free (rand);
}

GST_END_TEST;

static Suite *
rtcp_suite (void)
{
  Suite *s = suite_create ("rtcp");
  TCase *tc;

  tc = tcase_create ("ntp");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_ntp_helpers);
  tcase_add_test (tc, test_rtt_table);

  tc = tcase_create ("parse");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_sr_rr_fields);
  tcase_add_test (tc, test_rr_values_spot_check);
  tcase_add_test (tc, test_xr_from_rfc_bytes);
  tcase_add_test (tc, test_xr_flag_bits);
  tcase_add_test (tc, test_xr_longer_block);
  tcase_add_test (tc, test_tmmb_from_rfc_bytes);
  tcase_add_test (tc, test_nadu);
  tcase_add_test (tc, test_rrtr_dlrr);
  tcase_add_test (tc, test_write_blocks);
  tcase_add_test (tc, test_compound_mixed);
  tcase_add_test (tc, test_parse_appends);

  tc = tcase_create ("write");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_write_xr_rfc_bytes);
  tcase_add_test (tc, test_write_tmmb_rfc_bytes);
  tcase_add_test (tc, test_xr_round_trip);
  tcase_add_test (tc, test_tmmb_round_trip);
  tcase_add_test (tc, test_writers_refuse);

  tc = tcase_create ("robustness");
  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_malformed, 0, G_N_ELEMENTS (bad_cases));
  tcase_add_test (tc, test_malformed_keeps_good_parts);
  tcase_add_test (tc, test_block_cap);
  tcase_add_test (tc, test_fuzz_no_crash);
  return s;
}

GST_CHECK_MAIN (rtcp);
