/* RTCP feedback in and out (core).
 *
 * Parsing reads the bytes itself. GstRTCPBuffer (1.22) was the first choice
 * for the packet walk, but its header reader rejects every packet type
 * outside its table (the minimum length of an unknown type becomes
 * UINT_MAX), so an IJ (195), AVB (208) or RSI (209) packet would hide the
 * rest of the compound; and its block accessors do not check counts
 * against the packet length: gst_rtcp_packet_get_rb() reads past the packet
 * or returns with its outputs unset when an RR claims more report blocks
 * than it holds, the XR block iterator only checks that a block starts
 * inside the packet (gst_rtcp_packet_xr_first_rb() mixes bytes and words),
 * the XR block-type accessor maps every type after RFC 3611's seven to
 * INVALID, and gst_rtcp_packet_fb_get_fci() ignores the FCI length. Here
 * each header is checked (version 2, length inside the buffer, padding
 * count), and every count and length against the packet without its
 * padding, before anything is read. The writers use GstRTCPBuffer.
 *
 * Layouts:
 *   SR/RR report block   RFC 3550 sec. 6.4.1, 24 bytes
 *   XR packet            RFC 3611 sec. 2, blocks: BT(8) type-specific(8)
 *                        block length(16, words - 1), sec. 3
 *   BT 24 discard count  RFC 7002: I(2) DT(2) resv(4); SSRC; packets
 *   BT 26 bytes discard  RFC 7243: I(2) E(1) resv(5); SSRC; bytes
 *   BT 33 post-repair    RFC 7509: resv(8); SSRC; begin_seq(16) end_seq(16);
 *                        unrepaired(16) repaired(16)
 *   BT 4 RRTR            RFC 3611 sec. 4.4: resv(8); NTP timestamp (64)
 *   BT 5 DLRR            RFC 3611 sec. 4.5: resv(8); sub-blocks of SSRC,
 *                        LRR(32), DLRR(32)
 *   TMMBR/TMMBN FCI      RFC 5104 sec. 4.2.1.1/4.2.2.1: SSRC; exp(6)
 *                        mantissa(17) overhead(9); RTPFB FMT 3 and 4
 *   NADU                 3GPP TS 26.234 sec. 6.2.3.3 (as C-NADU, seed 003
 *                        sec. IV-B, uses it): APP (RFC 3550 sec. 6.7),
 *                        subtype 0, name "PSS0"; per stream: SSRC;
 *                        playout delay ms(16) NSN(16); reserved(11)
 *                        NUN(5) FBS(16)
 */
#include <string.h>

#include "rc-rtcp.h"

/* Fixed sizes, bytes. */
#define RB_SIZE 24              /* RFC 3550 report block */
#define RR_HEADER 8             /* header + SSRC of packet sender */
#define SR_HEADER 28            /* ... + sender info */
#define XR_HEADER 8             /* header + SSRC */
#define FB_HEADER 12            /* header + sender SSRC + media SSRC */
#define TMMB_FCI_SIZE 8
#define XR_COUNT_SIZE 12        /* BT 24 and BT 26: header, SSRC, count */
#define XR_POST_REPAIR_SIZE 16
#define XR_RRTR_SIZE 12
#define DLRR_SUB_SIZE 12
#define XR_DLRR_SIZE (4 + DLRR_SUB_SIZE)        /* one sub-block, as we write */
#define APP_HEADER 12           /* header + SSRC + name */
#define NADU_BLOCK_SIZE 12
#define NADU_SUBTYPE 0
#define NADU_NAME "PSS0"

#define TMMB_MANTISSA_MAX 0x1ffff       /* 17 bits */
#define TMMB_OVERHEAD_MAX 0x1ff /* 9 bits */

/* ---------------------------------------------------------------- NTP */

guint32
rc_rtcp_ntp_short (guint64 ntp_64)
{
  return (guint32) (ntp_64 >> 16);
}

guint64
rc_rtcp_ntp_from_unix (GstClockTime unix_time)
{
  guint64 sec = unix_time / GST_SECOND + RC_NTP_UNIX_OFFSET;
  guint64 frac = ((unix_time % GST_SECOND) << 32) / GST_SECOND;

  /* Seconds modulo 2^32: NTP era 1 begins in 2036. */
  return (sec << 32) | frac;
}

GstClockTime
rc_rtcp_ntp_short_to_time (guint32 ntp_short)
{
  return gst_util_uint64_scale (ntp_short, GST_SECOND, 65536);
}

GstClockTime
rc_rtcp_rtt (guint32 arrival_ntp_short, guint32 lsr, guint32 dlsr)
{
  guint32 diff;
  GstClockTime rtt;

  /* RFC 3550 sec. 6.4.1: LSR is 0 until the receiver has had an SR. */
  if (lsr == 0)
    return GST_CLOCK_TIME_NONE;
  /* Modulo 2^32: a negative difference comes out as 2^31 units (32768 s)
   * or more and fails the bound below. */
  diff = arrival_ntp_short - lsr - dlsr;
  rtt = rc_rtcp_ntp_short_to_time (diff);
  return rtt <= RC_RTCP_MAX_RTT ? rtt : GST_CLOCK_TIME_NONE;
}

/* ---------------------------------------------------------------- parse */

typedef struct
{
  GArray *out;
  RcRtcpParseInfo *info;
  guint32 arrival;
  gint clock_rate;
  guint budget;                 /* blocks left to examine */
} ParseCtx;

static void
note_problem (ParseCtx * c, const gchar * what)
{
  if (c->info->first_problem == NULL)
    c->info->first_problem = what;
}

static void
bad_packet (ParseCtx * c, const gchar * what)
{
  c->info->n_malformed_packets++;
  note_problem (c, what);
}

static void
bad_block (ParseCtx * c, const gchar * what)
{
  c->info->n_malformed_blocks++;
  note_problem (c, what);
}

/* Takes one block from the work budget; FALSE once it is spent. */
static gboolean
take_block (ParseCtx * c)
{
  if (c->budget == 0) {
    if (!c->info->truncated)
      note_problem (c, "more than " G_STRINGIFY (RC_RTCP_MAX_BLOCKS)
          " report blocks in one compound packet");
    c->info->truncated = TRUE;
    return FALSE;
  }
  c->budget--;
  return TRUE;
}

static void
append (ParseCtx * c, const RcReportBlock * b)
{
  g_array_append_vals (c->out, b, 1);
  c->info->n_reports++;
}

/* SR or RR at `p`: `start` is the offset of the first report block, `clen`
 * the packet's length without padding. FALSE when the budget ran out. */
static gboolean
parse_sr_rr (ParseCtx * c, const guint8 * p, gsize start, gsize clen)
{
  guint i, n = p[0] & 0x1f;
  guint32 reporter;

  if (clen < start) {
    bad_packet (c, "SR/RR shorter than its header");
    return TRUE;
  }
  if (n > (clen - start) / RB_SIZE) {
    bad_packet (c, "SR/RR claims more report blocks than its length holds");
    return TRUE;
  }
  reporter = GST_READ_UINT32_BE (p + 4);

  for (i = 0; i < n; i++) {
    const guint8 *rb = p + start + i * RB_SIZE;
    RcReportBlock b;
    guint32 lost;

    if (!take_block (c))
      return FALSE;
    memset (&b, 0, sizeof (b));
    b.kind = RC_REPORT_RR;
    b.reporter_ssrc = reporter;
    b.media_ssrc = GST_READ_UINT32_BE (rb);
    b.rr.fraction_lost = rb[4] / 256.0;
    /* 24-bit two's complement */
    lost = GST_READ_UINT32_BE (rb + 4) & 0xffffff;
    if (lost & 0x800000)
      lost |= 0xff000000u;
    b.rr.cumulative_lost = (gint32) lost;
    b.rr.ext_highest_seq = GST_READ_UINT32_BE (rb + 8);
    b.rr.jitter_units = GST_READ_UINT32_BE (rb + 12);
    b.rr.jitter = c->clock_rate > 0 ?
        gst_util_uint64_scale (b.rr.jitter_units, GST_SECOND, c->clock_rate) :
        GST_CLOCK_TIME_NONE;
    b.rr.lsr = GST_READ_UINT32_BE (rb + 16);
    b.rr.dlsr = GST_READ_UINT32_BE (rb + 20);
    b.rr.rtt = rc_rtcp_rtt (c->arrival, b.rr.lsr, b.rr.dlsr);
    append (c, &b);
  }
  return TRUE;
}

/* Bytes an XR block of type `bt` needs for the fields we read; 0 for types
 * we do not read. */
static gsize
xr_layout_size (guint8 bt)
{
  switch (bt) {
    case RC_XR_BT_DISCARD:
    case RC_XR_BT_DISCARD_BYTES:
      return XR_COUNT_SIZE;
    case RC_XR_BT_POST_REPAIR:
      return XR_POST_REPAIR_SIZE;
    case RC_XR_BT_RRTR:
      return XR_RRTR_SIZE;
    case RC_XR_BT_DLRR:
      return XR_DLRR_SIZE;
    default:
      return 0;
  }
}

/* A DLRR block's sub-blocks (RFC 3611 sec. 4.5: "zero or more"), each one
 * an RcReportBlock; `len` checked to lie inside the packet. */
static void
parse_dlrr (ParseCtx * c, guint32 reporter, const guint8 * p, gsize len)
{
  gsize off;

  if ((len - 4) % DLRR_SUB_SIZE != 0) {
    bad_block (c, "DLRR block not a whole number of sub-blocks");
    return;
  }
  for (off = 4; off < len; off += DLRR_SUB_SIZE) {
    RcReportBlock b;

    /* the block itself took one from the budget */
    if (off > 4 && !take_block (c))
      return;
    memset (&b, 0, sizeof (b));
    b.kind = RC_REPORT_DLRR;
    b.reporter_ssrc = reporter;
    b.media_ssrc = GST_READ_UINT32_BE (p + off);
    b.dlrr.lrr = GST_READ_UINT32_BE (p + off + 4);
    b.dlrr.dlrr = GST_READ_UINT32_BE (p + off + 8);
    b.dlrr.rtt = rc_rtcp_rtt (c->arrival, b.dlrr.lrr, b.dlrr.dlrr);
    append (c, &b);
  }
}

/* One XR block at `p`, `len` bytes (checked to lie inside the packet). A
 * block longer than its layout is read up to the layout (a future
 * extension, or a sender that counts the length differently). */
static void
parse_xr_block (ParseCtx * c, guint32 reporter, const guint8 * p, gsize len)
{
  gsize need = xr_layout_size (p[0]);
  RcReportBlock b;

  if (p[0] == RC_XR_BT_DLRR) {
    parse_dlrr (c, reporter, p, len);
    return;
  }
  if (need == 0) {
    c->info->n_skipped_blocks++;
    return;
  }
  if (len < need) {
    bad_block (c, "XR block shorter than its type's layout");
    return;
  }
  memset (&b, 0, sizeof (b));
  b.reporter_ssrc = reporter;
  if (p[0] == RC_XR_BT_RRTR) {
    /* no SSRC: the reporter is the receiver */
    b.kind = RC_REPORT_RRTR;
    /* two words: RTCP is 32-bit aligned, not 64 */
    b.rrtr.ntp = (guint64) GST_READ_UINT32_BE (p + 4) << 32 |
        GST_READ_UINT32_BE (p + 8);
    append (c, &b);
    return;
  }
  b.media_ssrc = GST_READ_UINT32_BE (p + 4);
  switch (p[0]) {
    case RC_XR_BT_DISCARD:
      b.kind = RC_REPORT_DISCARD;
      b.discard.interval = (p[1] >> 6) & 0x3;
      b.discard.discard_type = (p[1] >> 4) & 0x3;
      b.discard.packets = GST_READ_UINT32_BE (p + 8);
      break;
    case RC_XR_BT_DISCARD_BYTES:
      b.kind = RC_REPORT_DISCARD_BYTES;
      b.discard_bytes.interval = (p[1] >> 6) & 0x3;
      b.discard_bytes.early = (p[1] >> 5) & 0x1;
      b.discard_bytes.bytes = GST_READ_UINT32_BE (p + 8);
      break;
    default:                   /* RC_XR_BT_POST_REPAIR */
      b.kind = RC_REPORT_POST_REPAIR;
      b.post_repair.begin_seq = GST_READ_UINT16_BE (p + 8);
      b.post_repair.end_seq = GST_READ_UINT16_BE (p + 10);
      b.post_repair.unrepaired = GST_READ_UINT16_BE (p + 12);
      b.post_repair.repaired = GST_READ_UINT16_BE (p + 14);
      break;
  }
  append (c, &b);
}

static gboolean
parse_xr (ParseCtx * c, const guint8 * p, gsize clen)
{
  guint32 reporter;
  gsize off = XR_HEADER;

  if (clen < XR_HEADER) {
    bad_packet (c, "XR shorter than its header");
    return TRUE;
  }
  reporter = GST_READ_UINT32_BE (p + 4);
  while (off < clen) {
    gsize len;

    if (!take_block (c))
      return FALSE;
    /* `off` and `clen` are multiples of 4: the 4-byte block header is
     * there. */
    len = 4 * ((gsize) GST_READ_UINT16_BE (p + off + 2) + 1);
    if (len > clen - off) {
      /* Where the next block starts is unknown: drop the rest. */
      bad_block (c, "XR block length runs past the packet");
      break;
    }
    parse_xr_block (c, reporter, p + off, len);
    off += len;
  }
  return TRUE;
}

static guint64
tmmb_bitrate (guint32 word)
{
  guint exp = word >> 26;
  guint64 mantissa = (word >> 9) & TMMB_MANTISSA_MAX;

  /* 17 + 63 bits can exceed 64: saturate. */
  if (mantissa > (G_MAXUINT64 >> exp))
    return G_MAXUINT64;
  return mantissa << exp;
}

static gboolean
parse_tmmb (ParseCtx * c, const guint8 * p, gsize clen, RcReportKind kind)
{
  guint32 sender;
  gsize off;

  if (clen < FB_HEADER) {
    bad_packet (c, "RTPFB shorter than its header");
    return TRUE;
  }
  if ((clen - FB_HEADER) % TMMB_FCI_SIZE != 0) {
    bad_packet (c, "TMMBR/TMMBN FCI length not a multiple of 8 bytes");
    return TRUE;
  }
  /* RFC 5104 sec. 4.2.1: a TMMBR carries at least one request. A TMMBN may
   * carry none (an empty bounding set); it then yields no block. */
  if (kind == RC_REPORT_TMMBR && clen == FB_HEADER) {
    bad_packet (c, "TMMBR without an FCI entry");
    return TRUE;
  }
  sender = GST_READ_UINT32_BE (p + 4);
  for (off = FB_HEADER; off < clen; off += TMMB_FCI_SIZE) {
    RcReportBlock b;
    guint32 word;

    if (!take_block (c))
      return FALSE;
    word = GST_READ_UINT32_BE (p + off + 4);
    memset (&b, 0, sizeof (b));
    b.kind = kind;
    b.reporter_ssrc = sender;
    b.media_ssrc = GST_READ_UINT32_BE (p + off);
    b.tmmb.bitrate = tmmb_bitrate (word);
    b.tmmb.overhead = word & TMMB_OVERHEAD_MAX;
    append (c, &b);
  }
  return TRUE;
}

/* An APP packet: NADU blocks if it is one, else skipped. */
static gboolean
parse_app (ParseCtx * c, const guint8 * p, gsize clen)
{
  guint32 reporter;
  gsize off;

  if (clen < APP_HEADER) {
    bad_packet (c, "APP shorter than its header");
    return TRUE;
  }
  if ((p[0] & 0x1f) != NADU_SUBTYPE || memcmp (p + 8, NADU_NAME, 4) != 0) {
    c->info->n_skipped_packets++;
    return TRUE;
  }
  if ((clen - APP_HEADER) % NADU_BLOCK_SIZE != 0) {
    bad_packet (c, "NADU data length not a multiple of 12 bytes");
    return TRUE;
  }
  reporter = GST_READ_UINT32_BE (p + 4);
  for (off = APP_HEADER; off < clen; off += NADU_BLOCK_SIZE) {
    RcReportBlock b;

    if (!take_block (c))
      return FALSE;
    memset (&b, 0, sizeof (b));
    b.kind = RC_REPORT_NADU;
    b.reporter_ssrc = reporter;
    b.media_ssrc = GST_READ_UINT32_BE (p + off);
    b.nadu.playout_delay_ms = GST_READ_UINT16_BE (p + off + 4);
    b.nadu.nsn = GST_READ_UINT16_BE (p + off + 6);
    b.nadu.nun = GST_READ_UINT16_BE (p + off + 8) & 0x1f;
    b.nadu.free_blocks = GST_READ_UINT16_BE (p + off + 10);
    append (c, &b);
  }
  return TRUE;
}

/* One packet of `plen` bytes (inside the buffer); FALSE stops the walk
 * (budget spent). */
static gboolean
parse_packet (ParseCtx * c, const guint8 * p, gsize plen)
{
  gsize clen = plen;

  /* RFC 3550 sec. 6.4.1: the last octet counts the padding octets,
   * itself included, a multiple of 4. */
  if (p[0] & 0x20) {
    guint pad = p[plen - 1];
    if (pad == 0 || (pad & 0x3) || pad > plen - 4) {
      bad_packet (c, "bad RTCP padding count");
      return TRUE;
    }
    clen -= pad;
  }

  switch (p[1]) {
    case GST_RTCP_TYPE_SR:
      return parse_sr_rr (c, p, SR_HEADER, clen);
    case GST_RTCP_TYPE_RR:
      return parse_sr_rr (c, p, RR_HEADER, clen);
    case GST_RTCP_TYPE_XR:
      return parse_xr (c, p, clen);
    case GST_RTCP_TYPE_APP:
      return parse_app (c, p, clen);
    case GST_RTCP_TYPE_RTPFB:
      /* RFC 4585 sec. 6.1: FMT in the count bits */
      switch (p[0] & 0x1f) {
        case GST_RTCP_RTPFB_TYPE_TMMBR:
          return parse_tmmb (c, p, clen, RC_REPORT_TMMBR);
        case GST_RTCP_RTPFB_TYPE_TMMBN:
          return parse_tmmb (c, p, clen, RC_REPORT_TMMBN);
        default:
          break;
      }
      break;
    default:
      break;
  }
  c->info->n_skipped_packets++;
  return TRUE;
}

gboolean
rc_rtcp_parse (GstBuffer * compound, guint32 arrival_ntp_short,
    gint clock_rate, GArray * out, RcRtcpParseInfo * info)
{
  RcRtcpParseInfo local;
  GstMapInfo map;
  ParseCtx c;
  gsize off = 0;

  g_return_val_if_fail (GST_IS_BUFFER (compound), FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  g_return_val_if_fail (g_array_get_element_size (out) ==
      sizeof (RcReportBlock), FALSE);

  if (info == NULL)
    info = &local;
  memset (info, 0, sizeof (*info));
  c.out = out;
  c.info = info;
  c.arrival = arrival_ntp_short;
  c.clock_rate = clock_rate;
  c.budget = RC_RTCP_MAX_BLOCKS;

  if (!gst_buffer_map (compound, &map, GST_MAP_READ)) {
    info->first_problem = "buffer not readable";
    return FALSE;
  }
  if (map.size == 0)
    bad_packet (&c, "empty buffer");
  /* RFC 3550 sec. 6.1: V=2, length in 32-bit words minus one; padding
   * only in the last packet. */
  while (map.size - off >= 4) {
    const guint8 *p = map.data + off;
    gsize plen = 4 + 4 * (gsize) GST_READ_UINT16_BE (p + 2);

    if ((p[0] >> 6) != 2 || plen > map.size - off)
      break;
    info->n_packets++;
    if (!parse_packet (&c, p, plen))
      break;
    off += plen;
    if (p[0] & 0x20)
      break;
  }
  /* Bytes the walk could not read as a packet: a bad version, a length
   * past the buffer, a short tail, or anything after a padded packet. */
  if (!info->truncated && off < map.size)
    bad_packet (&c, off == 0 ? "no valid RTCP packet header" :
        "bytes after the last valid RTCP packet");
  gst_buffer_unmap (compound, &map);
  return info->n_packets > 0;
}

/* ---------------------------------------------------------------- write */

/* The XR block type `b` is written as, or 0 if it cannot be written
 * (another kind, or a field wider than its bits). */
static guint8
xr_block_type (const RcReportBlock * b)
{
  switch (b->kind) {
    case RC_REPORT_DISCARD:
      return (guint) b->discard.interval <= 3 &&
          b->discard.discard_type <= 3 ? RC_XR_BT_DISCARD : 0;
    case RC_REPORT_DISCARD_BYTES:
      return (guint) b->discard_bytes.interval <= 3 ?
          RC_XR_BT_DISCARD_BYTES : 0;
    case RC_REPORT_POST_REPAIR:
      return RC_XR_BT_POST_REPAIR;
    case RC_REPORT_RRTR:
      return RC_XR_BT_RRTR;
    case RC_REPORT_DLRR:
      return RC_XR_BT_DLRR;
    default:
      return 0;
  }
}

static void
write_xr_block (guint8 * p, const RcReportBlock * b, guint8 bt, gsize size)
{
  p[0] = bt;
  p[1] = 0;
  GST_WRITE_UINT16_BE (p + 2, size / 4 - 1);
  if (bt == RC_XR_BT_RRTR) {
    GST_WRITE_UINT32_BE (p + 4, (guint32) (b->rrtr.ntp >> 32));
    GST_WRITE_UINT32_BE (p + 8, (guint32) b->rrtr.ntp);
    return;
  }
  GST_WRITE_UINT32_BE (p + 4, b->media_ssrc);
  switch (bt) {
    case RC_XR_BT_DLRR:
      GST_WRITE_UINT32_BE (p + 8, b->dlrr.lrr);
      GST_WRITE_UINT32_BE (p + 12, b->dlrr.dlrr);
      break;
    case RC_XR_BT_DISCARD:
      p[1] = (b->discard.interval << 6) | (b->discard.discard_type << 4);
      GST_WRITE_UINT32_BE (p + 8, b->discard.packets);
      break;
    case RC_XR_BT_DISCARD_BYTES:
      p[1] = (b->discard_bytes.interval << 6) |
          (b->discard_bytes.early ? 0x20 : 0);
      GST_WRITE_UINT32_BE (p + 8, b->discard_bytes.bytes);
      break;
    default:                   /* RC_XR_BT_POST_REPAIR */
      GST_WRITE_UINT16_BE (p + 8, b->post_repair.begin_seq);
      GST_WRITE_UINT16_BE (p + 10, b->post_repair.end_seq);
      GST_WRITE_UINT16_BE (p + 12, b->post_repair.unrepaired);
      GST_WRITE_UINT16_BE (p + 14, b->post_repair.repaired);
      break;
  }
}

gboolean
rc_rtcp_write_xr (GstRTCPBuffer * rtcp, guint32 reporter_ssrc,
    const RcReportBlock * blocks, guint n_blocks)
{
  GstRTCPPacket pkt;
  gsize size = XR_HEADER, off;
  guint8 *p;
  guint i;

  g_return_val_if_fail (rtcp != NULL, FALSE);
  g_return_val_if_fail (blocks != NULL || n_blocks == 0, FALSE);

  if (n_blocks == 0)
    return FALSE;
  for (i = 0; i < n_blocks; i++) {
    guint8 bt = xr_block_type (&blocks[i]);
    if (bt == 0)
      return FALSE;
    size += xr_layout_size (bt);
    if (size > 4 * ((gsize) G_MAXUINT16 + 1))
      return FALSE;
  }
  if (!gst_rtcp_buffer_add_packet (rtcp, GST_RTCP_TYPE_XR, &pkt))
    return FALSE;
  if (pkt.offset + size > rtcp->map.maxsize) {
    rtcp->map.size = pkt.offset;        /* take the empty XR back out */
    return FALSE;
  }
  p = rtcp->map.data + pkt.offset;
  GST_WRITE_UINT16_BE (p + 2, size / 4 - 1);
  GST_WRITE_UINT32_BE (p + 4, reporter_ssrc);
  for (i = 0, off = XR_HEADER; i < n_blocks; i++) {
    guint8 bt = xr_block_type (&blocks[i]);
    gsize bs = xr_layout_size (bt);
    write_xr_block (p + off, &blocks[i], bt, bs);
    off += bs;
  }
  rtcp->map.size = pkt.offset + size;
  return TRUE;
}

gboolean
rc_rtcp_write_tmmb (GstRTCPBuffer * rtcp, RcReportKind kind,
    guint32 sender_ssrc, const RcReportBlock * entries, guint n_entries)
{
  GstRTCPPacket pkt;
  guint8 *fci;
  guint i;

  g_return_val_if_fail (rtcp != NULL, FALSE);
  g_return_val_if_fail (entries != NULL || n_entries == 0, FALSE);

  if (kind != RC_REPORT_TMMBR && kind != RC_REPORT_TMMBN)
    return FALSE;
  if (kind == RC_REPORT_TMMBR && n_entries == 0)
    return FALSE;
  if (n_entries > (G_MAXUINT16 - 2) / 2)
    return FALSE;
  for (i = 0; i < n_entries; i++)
    if (entries[i].kind != kind ||
        entries[i].tmmb.overhead > TMMB_OVERHEAD_MAX)
      return FALSE;

  if (!gst_rtcp_buffer_add_packet (rtcp, GST_RTCP_TYPE_RTPFB, &pkt))
    return FALSE;
  gst_rtcp_packet_fb_set_type (&pkt, kind == RC_REPORT_TMMBR ?
      GST_RTCP_RTPFB_TYPE_TMMBR : GST_RTCP_RTPFB_TYPE_TMMBN);
  gst_rtcp_packet_fb_set_sender_ssrc (&pkt, sender_ssrc);
  /* RFC 5104 sec. 4.2.1/4.2.2: the header's media SSRC is unused, 0; the
   * SSRCs are in the FCI entries. */
  gst_rtcp_packet_fb_set_media_ssrc (&pkt, 0);
  if (!gst_rtcp_packet_fb_set_fci_length (&pkt, 2 * n_entries)) {
    rtcp->map.size = pkt.offset;
    return FALSE;
  }
  fci = rtcp->map.data + pkt.offset + FB_HEADER;
  for (i = 0; i < n_entries; i++, fci += TMMB_FCI_SIZE) {
    guint64 bitrate = entries[i].tmmb.bitrate;
    guint exp = 0;

    /* Smallest exponent that fits the mantissa; the shift rounds down. */
    while ((bitrate >> exp) > TMMB_MANTISSA_MAX)
      exp++;
    GST_WRITE_UINT32_BE (fci, entries[i].media_ssrc);
    GST_WRITE_UINT32_BE (fci + 4, ((guint32) exp << 26) |
        ((guint32) (bitrate >> exp) << 9) | entries[i].tmmb.overhead);
  }
  return TRUE;
}

gboolean
rc_rtcp_write_nadu (GstRTCPBuffer * rtcp, guint32 reporter_ssrc,
    const RcReportBlock * blocks, guint n_blocks)
{
  GstRTCPPacket pkt;
  gsize size;
  guint8 *p;
  guint i;

  g_return_val_if_fail (rtcp != NULL, FALSE);
  g_return_val_if_fail (blocks != NULL || n_blocks == 0, FALSE);

  if (n_blocks == 0 || n_blocks > 31)
    return FALSE;
  for (i = 0; i < n_blocks; i++)
    if (blocks[i].kind != RC_REPORT_NADU || blocks[i].nadu.nun > 0x1f)
      return FALSE;
  size = APP_HEADER + NADU_BLOCK_SIZE * (gsize) n_blocks;
  if (!gst_rtcp_buffer_add_packet (rtcp, GST_RTCP_TYPE_APP, &pkt))
    return FALSE;
  if (pkt.offset + size > rtcp->map.maxsize) {
    rtcp->map.size = pkt.offset;        /* take the empty APP back out */
    return FALSE;
  }
  p = rtcp->map.data + pkt.offset;
  p[0] = (p[0] & 0xe0) | NADU_SUBTYPE;
  GST_WRITE_UINT16_BE (p + 2, size / 4 - 1);
  GST_WRITE_UINT32_BE (p + 4, reporter_ssrc);
  memcpy (p + 8, NADU_NAME, 4);
  for (i = 0; i < n_blocks; i++) {
    guint8 *b = p + APP_HEADER + NADU_BLOCK_SIZE * i;
    GST_WRITE_UINT32_BE (b, blocks[i].media_ssrc);
    GST_WRITE_UINT16_BE (b + 4, blocks[i].nadu.playout_delay_ms);
    GST_WRITE_UINT16_BE (b + 6, blocks[i].nadu.nsn);
    GST_WRITE_UINT16_BE (b + 8, blocks[i].nadu.nun & 0x1f);
    GST_WRITE_UINT16_BE (b + 10, blocks[i].nadu.free_blocks);
  }
  rtcp->map.size = pkt.offset + size;
  return TRUE;
}

/* Those of `blocks` of `kind`, or (kind < 0) of the XR kinds, into `tmp`. */
static void
pick (GArray * tmp, const RcReportBlock * blocks, guint n, gint kind)
{
  guint i;

  g_array_set_size (tmp, 0);
  for (i = 0; i < n; i++)
    if (kind < 0 ? xr_block_type (&blocks[i]) != 0 :
        blocks[i].kind == (RcReportKind) kind)
      g_array_append_val (tmp, blocks[i]);
}

gboolean
rc_rtcp_write_blocks (GstRTCPBuffer * rtcp, guint32 reporter_ssrc,
    const RcReportBlock * blocks, guint n_blocks)
{
  GArray *tmp = g_array_new (FALSE, FALSE, sizeof (RcReportBlock));
  guint i, written = 0;
  gboolean ok = TRUE;

  g_return_val_if_fail (rtcp != NULL, FALSE);
  g_return_val_if_fail (blocks != NULL || n_blocks == 0, FALSE);

  for (i = 0; i < n_blocks; i++)
    if (blocks[i].kind == RC_REPORT_RR)
      ok = FALSE;               /* rtpsession writes those */
  pick (tmp, blocks, n_blocks, RC_REPORT_TMMBR);
  if (tmp->len && rc_rtcp_write_tmmb (rtcp, RC_REPORT_TMMBR, reporter_ssrc,
          (RcReportBlock *) tmp->data, tmp->len))
    written += tmp->len;
  pick (tmp, blocks, n_blocks, RC_REPORT_TMMBN);
  if (tmp->len && rc_rtcp_write_tmmb (rtcp, RC_REPORT_TMMBN, reporter_ssrc,
          (RcReportBlock *) tmp->data, tmp->len))
    written += tmp->len;
  pick (tmp, blocks, n_blocks, -1);
  if (tmp->len && rc_rtcp_write_xr (rtcp, reporter_ssrc,
          (RcReportBlock *) tmp->data, tmp->len))
    written += tmp->len;
  pick (tmp, blocks, n_blocks, RC_REPORT_NADU);
  if (tmp->len && rc_rtcp_write_nadu (rtcp, reporter_ssrc,
          (RcReportBlock *) tmp->data, tmp->len))
    written += tmp->len;
  g_array_unref (tmp);
  return ok && written == n_blocks;
}
