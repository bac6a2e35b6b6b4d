/* XOR parity FEC codec (core): RFC 8627 flexible FEC and RFC 5109 ULPFEC.
 *
 * Sans-IO: no pads, no clock. The encoder turns media RTP packets into
 * repair packets; the decoder takes media and repair packets plus the
 * current time and hands back every packet a parity equation can rebuild.
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

typedef enum
{
  RC_FEC_MODE_ROW = 0,          /* L consecutive packets (non-interleaved) */
  RC_FEC_MODE_COLUMN = 1,       /* every L-th packet over D rows */
  RC_FEC_MODE_2D = 2,           /* rows and columns of an L x D block */
  RC_FEC_MODE_FLEXIBLE = 3,     /* bit mask: groups closed at frame ends */
} RcFecMode;

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

/* ------------------------------------------------------------ encoder */

typedef struct
{
  RcFecFormat format;
  RcFecMode mode;
  guint L;                      /* columns / row length, 1..255 */
  guint D;                      /* rows, 1..255 */
  /* Percentage of repair packets per media packet, or < 0 to use L and D
   * as given; 0 sends no FEC. See rc_fec_encoder_geometry(). */
  gdouble overhead;
  guint8 pt;                    /* payload type of repair packets */
  guint32 ssrc;                 /* flexfec: SSRC of the repair stream */
  guint16 seq_start;            /* flexfec: first repair sequence number */
  /* Header extension to carry in every repair packet (0: none), e.g. the
   * transport-wide-cc one so rtpsession numbers repair packets too. The
   * data is zeros of `ext_len` bytes; one-byte form unless `ext_two_byte`. */
  guint8 ext_id;
  guint8 ext_len;
  gboolean ext_two_byte;
} RcFecEncoderConfig;

typedef struct _RcFecEncoder RcFecEncoder;

typedef struct
{
  guint64 media_packets;        /* seen */
  guint64 media_protected;      /* covered by at least one repair packet */
  guint64 fec_packets;
  guint64 fec_bytes;            /* whole repair packets, RTP header included */
  guint64 media_bytes;
} RcFecEncoderStats;

void rc_fec_encoder_config_init (RcFecEncoderConfig * cfg);
RcFecEncoder *rc_fec_encoder_new (const RcFecEncoderConfig * cfg);
void rc_fec_encoder_free (RcFecEncoder * enc);
/* New settings; the group or block under way is finished first with the
 * old geometry (so a block never mixes two). */
void rc_fec_encoder_reconfigure (RcFecEncoder * enc,
    const RcFecEncoderConfig * cfg);
void rc_fec_encoder_set_overhead (RcFecEncoder * enc, gdouble overhead);
/* The L and D in force for `cfg`: overhead < 0 keeps L and D; > 0 picks
 * row L = 100/overhead, column D = 100/overhead (L kept), 2-D
 * L = D = 200/overhead, flexible group size 100/overhead, each clamped to
 * what the format can express. Returns FALSE if no FEC is to be sent. */
gboolean rc_fec_encoder_geometry (const RcFecEncoderConfig * cfg, guint * L,
    guint * D);

/* Feeds one media packet. For ULPFEC the packet may be replaced by a
 * writable copy with its sequence number moved past earlier repair
 * packets. Repair packets that are due after it are appended to `out`
 * (GstBuffer*, owned by the caller) in sending order. Returns FALSE if
 * `*media` is not a valid RTP packet (it is then passed on untouched). */
gboolean rc_fec_encoder_push (RcFecEncoder * enc, GstBuffer ** media,
    GPtrArray * out);
/* Protects what is pending (partial row, group or block) with flexible
 * masks, e.g. at EOS or when the stream pauses. */
void rc_fec_encoder_flush (RcFecEncoder * enc, GPtrArray * out);
void rc_fec_encoder_get_stats (RcFecEncoder * enc, RcFecEncoderStats * st);

/* ------------------------------------------------------------ decoder */

typedef struct
{
  RcFecFormat format;
  guint8 pt;                    /* payload type of repair packets */
  gboolean match_fec_ssrc;      /* flexfec: only accept repair from */
  guint32 fec_ssrc;             /*   this SSRC */
  gboolean match_media_ssrc;    /* only repair this media SSRC */
  guint32 media_ssrc;
  /* Memory bound: packets older than this are forgotten. */
  GstClockTime window;
} RcFecDecoderConfig;

typedef enum
{
  RC_FEC_OK = 0,                /* stored / used */
  RC_FEC_NOT_RTP,               /* not a valid RTP packet */
  RC_FEC_DUPLICATE,             /* seen before: drop it */
  RC_FEC_OLD,                   /* media older than the window: pass it */
  RC_FEC_REJECT_MALFORMED,      /* repair packet failed parsing */
  RC_FEC_REJECT_WRONG_SSRC,
  RC_FEC_REJECT_OUT_OF_WINDOW,  /* protects seqnums the window cannot hold */
  RC_FEC_REJECT_STALE,          /* protects packets already forgotten */
  RC_FEC_REJECT_INCONSISTENT,   /* does not match the packets it protects */
} RcFecResult;

typedef struct
{
  guint64 media_received;       /* distinct media packets */
  guint64 fec_received;         /* repair packets that arrived */
  guint64 recovered;
  guint64 rejected;             /* malformed, wrong SSRC, window, stale */
  guint64 duplicates;           /* media or repair seen twice */
  guint64 unrecoverable;        /* lost media no repair could rebuild */
  guint64 lost_before;          /* media never received (settled) */
  guint64 lost_after;           /* ... and not recovered either */
} RcFecDecoderStats;

typedef struct _RcFecDecoder RcFecDecoder;

void rc_fec_decoder_config_init (RcFecDecoderConfig * cfg);
RcFecDecoder *rc_fec_decoder_new (const RcFecDecoderConfig * cfg);
void rc_fec_decoder_free (RcFecDecoder * dec);
/* TRUE if `buf` is a repair packet for this decoder: by payload type (for
 * flexfec, not if it is on the configured media SSRC). push_fec() then
 * checks the SSRCs. */
gboolean rc_fec_decoder_is_fec (RcFecDecoder * dec, GstBuffer * buf);
/* Feeds a media packet (a ref is kept while it is in the window) or a
 * repair packet. Recovered packets (new GstBuffer refs, owned by the
 * caller) are appended to `out` in the order recovered. */
RcFecResult rc_fec_decoder_push_media (RcFecDecoder * dec, GstBuffer * buf,
    GstClockTime now, GPtrArray * out);
/* The same two for a packet whose fixed header the caller has read already
 * (rc_fec_read_header), so it is read once per packet. */
gboolean rc_fec_decoder_is_fec_hdr (RcFecDecoder * dec, const guint8 * hdr);
RcFecResult rc_fec_decoder_push_media_hdr (RcFecDecoder * dec,
    GstBuffer * buf, const guint8 * hdr, GstClockTime now, GPtrArray * out);
RcFecResult rc_fec_decoder_push_fec (RcFecDecoder * dec, GstBuffer * buf,
    GstClockTime now, GPtrArray * out);
typedef enum
{
  RC_FEC_SEQ_UNKNOWN = 0,       /* unknown stream, or outside the window */
  RC_FEC_SEQ_MISSING,           /* expected: neither received nor rebuilt */
  RC_FEC_SEQ_RECEIVED,          /* a media packet that arrived */
  RC_FEC_SEQ_RECOVERED,         /* rebuilt */
  RC_FEC_SEQ_REPAIR,            /* an ULPFEC repair packet's seqnum */
} RcFecSeqState;

/* What the decoder knows about seq `seq` of media SSRC `ssrc`; if it was
 * rebuilt and `recovered` is not NULL, a new ref of the packet (the
 * decoder keeps its own). For a consumer that gets the media in order
 * after a jitterbuffer while the decoder is fed ahead of it: it looks up
 * each seqnum it sees missing before it passes the next packet on. */
RcFecSeqState rc_fec_decoder_lookup (RcFecDecoder * dec, guint32 ssrc,
    guint16 seq, GstBuffer ** recovered);
/* Forgets what is older than the window; settles loss counts. */
void rc_fec_decoder_expire (RcFecDecoder * dec, GstClockTime now);
/* Forgets everything (settling loss counts), e.g. at EOS or flush. */
void rc_fec_decoder_reset (RcFecDecoder * dec);
void rc_fec_decoder_get_stats (RcFecDecoder * dec, RcFecDecoderStats * st);
/* Packets and bytes held right now (for the memory-bound test). */
guint rc_fec_decoder_held_packets (RcFecDecoder * dec);
const gchar *rc_fec_result_to_string (RcFecResult r);

G_END_DECLS
#endif
