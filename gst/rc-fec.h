/* XOR parity FEC wire format (core): RFC 8627 flexible FEC and RFC 5109
 * ULPFEC repair packets, what both sides of the codec share.
 *
 * rc-fec-enc.h (encoder) and rc-fec-dec.h (decoder) build on this header;
 * it knows nothing of either. Sans-IO: no pads, no clock.
 *
 * Both formats protect the same "bit string" of each media packet (RFC 8627
 * sec. 6.2, RFC 5109 sec. 10.2): the first 8 bytes of the RTP header (with
 * the sequence number left out of the recovery fields), a 16-bit length
 * (packet length minus the 12-byte fixed header) and everything after the
 * fixed header: CSRC list, header extension, payload and padding. A
 * recovered packet therefore comes back with its CSRCs and extensions.
 */
#ifndef __RC_FEC_H__
#define __RC_FEC_H__

#include <gst/gst.h>
#include <gst/rtp/gstrtpbuffer.h>

G_BEGIN_DECLS

typedef enum
{
  RC_FEC_FORMAT_FLEXFEC = 0,    /* RFC 8627: own SSRC and sequence space */
  RC_FEC_FORMAT_ULPFEC = 1,     /* RFC 5109: same SSRC, shared seq space */
} RcFecFormat;


/* RTP fixed header (RFC 3550 sec. 5.1). */
#define RC_FEC_RTP_HEADER_LEN 12
/* RFC 8627 sec. 4.2.2: the L and D fields are 8 bits wide. */
#define RC_FEC_MAX_LD 255
/* Protected packets one repair packet can list: the largest of RFC 8627's
 * 110-bit mask (sec. 4.2.2.1), its 255-wide rows/columns (sec. 4.2.2.2) and
 * ULPFEC's 48-bit mask (RFC 5109 sec. 7.4). */
#define RC_FEC_MAX_PROTECTED 256
/* Largest media packet we protect: a jumbo frame's worth. Bigger ones pass
 * unprotected (the FEC would not fit any sane path either). */
#define RC_FEC_MAX_PACKET 9000

/*
 * RFC 8627 FEC header, after the repair packet's RTP header (whose CSRC
 * list carries the protected SSRC, sec. 4.1). R = 0 always here (R = 1 is
 * retransmission, sec. 4.2.1).
 *
 * Flexible mask, F = 0 (sec. 4.2.2.1):
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |R|F|P|X|  CC   |M| PT recovery |        length recovery        |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                          TS recovery                          |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |           SN base_i           |k|          Mask [0-14]        |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |k|                   Mask [15-45] (optional)                   |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                     Mask [46-109] (optional)                  |
 *   |                                                               |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                      repair payload ...                       |
 *
 * k = 1 ends the mask: 15, 46 or 110 bits; mask bit i protects
 * SN base + i.
 *
 * Fixed L/D, F = 1 (sec. 4.2.2.2):
 *   |R|F|P|X|  CC   |M| PT recovery |        length recovery        |
 *   |                          TS recovery                          |
 *   |           SN base_i           |  L (columns)  |    D (rows)   |
 *
 * L > 0, D = 0: row FEC over SN base .. SN base + L - 1 (1-D);
 * L > 0, D = 1: the same row, and column FEC follows (2-D);
 * L > 0, D > 1: column FEC over SN base + i * L, i = 0 .. D - 1;
 * L = 0: reserved.
 */
typedef struct
{
  guint8 rec0;                  /* R, F, then P X CC recovery (sec. 4.2.2) */
  guint8 rec1;                  /* M, PT recovery (sec. 4.2.2) */
  guint16 len_rec;              /* length recovery (sec. 4.2.2) */
  guint32 ts_rec;               /* TS recovery (sec. 4.2.2) */
  guint16 sn_base;              /* SN base_i (sec. 4.2.2.1 / 4.2.2.2) */
} RcFlexFecHeader;

/*
 * RFC 5109 ULPFEC, as GStreamer's rtpulpfecenc/rtpulpfecdec and libwebrtc
 * send it: on the media SSRC with its own payload type, in the media's
 * sequence space (the sender renumbers media around each FEC packet). FEC
 * header (sec. 7.3), then one level-0 ULP header (sec. 7.4):
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |E|L|P|X|  CC   |M| PT recovery |            SN base            |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                          TS recovery                          |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |        length recovery        |       Protection Length       |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |             mask              |  mask cont. (present if L = 1) |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |  mask cont. (L = 1)           |    repair payload ...         |
 *
 * E = 0 (sec. 7.3: reserved for extension); L = 1 selects the 48-bit mask
 * (sec. 7.3); mask bit i, from the most significant, protects SN base + i
 * (sec. 7.4); Protection Length is the length of the repair payload.
 */
typedef struct
{
  guint8 rec0;                  /* E, L, then P X CC recovery (sec. 7.3) */
  guint8 rec1;                  /* M, PT recovery (sec. 7.3) */
  guint16 sn_base;              /* SN base (sec. 7.3) */
  guint32 ts_rec;               /* TS recovery (sec. 7.3) */
  guint16 len_rec;              /* length recovery (sec. 7.3) */
  guint16 prot_len;             /* Protection Length (sec. 7.4) */
} RcUlpFecHeader;

#define RC_FLEXFEC_HEADER_FIXED_LEN 12  /* RFC 8627 sec. 4.2.2.2 */
#define RC_ULPFEC_HEADER_LEN 10 /* RFC 5109 sec. 7.3 */
#define RC_ULPFEC_LEVEL_HEADER_SHORT 4  /* RFC 5109 sec. 7.4, L = 0 */
#define RC_ULPFEC_LEVEL_HEADER_LONG 8   /* RFC 5109 sec. 7.4, L = 1 */

/* A repair packet parsed into one form for both formats. The protected
 * set is { sn_base + stride * i : bit i of mask set }. */
typedef struct
{
  RcFecFormat format;
  guint32 fec_ssrc;             /* the repair packet's own RTP SSRC */
  guint16 fec_seq;              /* its RTP sequence number */
  guint8 fec_pt;
  guint32 protected_ssrc;
  guint16 sn_base;
  guint16 stride;               /* 1, or L for a fixed column */
  guint64 mask[RC_FEC_MAX_PROTECTED / 64];      /* bit i: LSB-first words */
  guint n_protected;
  guint span;                   /* last protected offset + 1, in seqnums */
  gboolean fixed;               /* F = 1 (flexfec only) */
  guint8 L, D;                  /* fixed only */
  guint mask_bits;              /* 15/46/110 (flexfec), 16/48 (ulpfec) */
  /* Recovery fields: byte 0 (P X CC in its low 6 bits), byte 1 (M PT),
   * TS and length. */
  guint8 rec0, rec1;
  guint32 ts_rec;
  guint16 len_rec;
  const guint8 *payload;        /* repair payload (points into the map) */
  guint payload_len;
} RcFecPacketInfo;

typedef enum
{
  RC_FEC_PARSE_OK = 0,
  RC_FEC_PARSE_TRUNCATED,       /* shorter than its headers say */
  RC_FEC_PARSE_BAD_LENGTH,      /* impossible length / protection length */
  RC_FEC_PARSE_BAD_HEADER,      /* reserved bits, R = 1, L = 0, no SSRC */
  RC_FEC_PARSE_EMPTY_MASK,      /* protects nothing */
} RcFecParseResult;

/* Parses a repair packet of `format` from a mapped RTP buffer. `info`
 * points into the mapping and is valid while it is. */
RcFecParseResult rc_fec_parse (RcFecFormat format, GstRTPBuffer * rtp,
    RcFecPacketInfo * info);
const gchar *rc_fec_parse_result_to_string (RcFecParseResult r);

/* dst ^= src over n bytes, word-wide. */
void rc_fec_xor (guint8 * dst, const guint8 * src, gsize n);
/* Copies a packet's fixed RTP header (RC_FEC_RTP_HEADER_LEN bytes) to
 * `hdr`; FALSE if the packet is shorter. */
gboolean rc_fec_read_header (GstBuffer * buf, guint8 * hdr);

G_END_DECLS
#endif
