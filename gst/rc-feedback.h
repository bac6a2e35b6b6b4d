/* What a rate controller learns from the receiver (core: plain data).
 *
 * Two kinds of feedback reach the sender: per-packet results (transport-wide
 * congestion control, draft-holmer-rmcat-transport-wide-cc-extensions-01,
 * which GStreamer's rtpsession turns into RTPTWCCPackets events) and RTCP
 * report blocks (RFC 3550 receiver reports and the blocks the
 * receiver-assisted controllers need). This header is a leaf: it includes
 * nothing of ours, so every other file can use it without cycles.
 */
#ifndef __RC_FEEDBACK_H__
#define __RC_FEEDBACK_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* One packet's fate, as transport-wide feedback reports it. */
typedef struct
{
  guint64 seq;                  /* extended (unwrapped) transport sequence number */
  GstClockTime send_ts;         /* sender's timebase; NONE if unknown */
  GstClockTime recv_ts;         /* receiver clock (any offset); NONE if lost */
  guint size;                   /* bytes */
  gboolean lost;
  gint pt;                      /* RTP payload type; -1 if unknown */
  gboolean is_fec;              /* a repair (FEC) packet, not media; the
                                 * sender session sets it from `pt` */
} RcPacketResult;

/* Which RTCP block an RcReportBlock came from. */
typedef enum
{
  RC_REPORT_RR = 0,             /* RFC 3550 sec. 6.4.1 report block (SR or RR) */
  RC_REPORT_DISCARD,            /* RFC 7002 XR discard count, BT 24 (RFC
                                 * 7097 is the Discard RLE block, BT 25) */
  RC_REPORT_DISCARD_BYTES,      /* RFC 7243 XR bytes discarded, BT 26 */
  RC_REPORT_POST_REPAIR,        /* RFC 7509 XR post-repair loss count, BT 33 */
  RC_REPORT_TMMBR,              /* RFC 5104 sec. 4.2.1 (RTPFB FMT 3) */
  RC_REPORT_TMMBN,              /* RFC 5104 sec. 4.2.2 (RTPFB FMT 4) */
  RC_REPORT_NADU,               /* 3GPP TS 26.234 sec. 6.2.3.3 NADU: an
                                 * APP packet, name "PSS0", subtype 0 */
  RC_REPORT_RRTR,               /* RFC 3611 sec. 4.4 XR receiver reference
                                 * time, BT 4 (media_ssrc unused, 0) */
  RC_REPORT_DLRR,               /* RFC 3611 sec. 4.5 XR DLRR sub-block, BT
                                 * 5: media_ssrc is the receiver that sent
                                 * the RRTR answered */
} RcReportKind;

/* The last kind, for range checks. */
#define RC_REPORT_KIND_LAST RC_REPORT_DLRR

/* NADU playout delay meaning "no unit waiting" (TS 26.234: the buffer is
 * empty). */
#define RC_NADU_NO_DELAY 0xffff

/* Interval Metric flag, the 2-bit I field of the RFC 7002 (BT 24) and RFC
 * 7243 (BT 26) blocks. RFC 3611 has no such field, and the RFC 7097 Discard
 * RLE block has none either. */
typedef enum
{
  RC_XR_INTERVAL_RESERVED = 0,
  RC_XR_INTERVAL_SAMPLED = 1,
  RC_XR_INTERVAL_INTERVAL = 2,
  RC_XR_INTERVAL_CUMULATIVE = 3,
} RcXrIntervalFlag;

/* One report block, tagged by kind. `reporter_ssrc` sent it (the SSRC in
 * the SR/RR/XR/RTPFB header); `media_ssrc` is the SSRC inside the block: the
 * stream reported on for SR/RR/XR blocks; for TMMBR the media sender whose
 * rate is limited (RFC 5104 sec. 4.2.1.1); for TMMBN the owner of that
 * bounding-set tuple, i.e. the TMMBR sender (RFC 5104 sec. 4.2.2.1). */
typedef struct
{
  RcReportKind kind;
  guint32 reporter_ssrc;
  guint32 media_ssrc;
  union
  {
    struct
    {
      gdouble fraction_lost;    /* 0..1 since the previous report */
      gint32 cumulative_lost;   /* 24-bit signed, sign-extended */
      guint32 ext_highest_seq;
      guint32 jitter_units;     /* interarrival jitter, RTP timestamp units */
      GstClockTime jitter;      /* the same in ns; NONE if the clock rate is
                                 * unknown */
      guint32 lsr, dlsr;        /* NTP short format (16.16 s) */
      GstClockTime rtt;         /* from LSR and DLSR; NONE if not computable */
    } rr;
    struct
    {
      RcXrIntervalFlag interval;
      guint8 discard_type;      /* RFC 7002 Discard Type (DT), 2 bits,
                                 * kept as sent (0..3) */
      guint32 packets;          /* discarded packets */
    } discard;
    struct
    {
      RcXrIntervalFlag interval;
      gboolean early;           /* RFC 7243 sec. 3.1 E: early (TRUE) or late */
      guint32 bytes;            /* discarded payload bytes */
    } discard_bytes;
    struct
    {
      guint16 begin_seq, end_seq;       /* RTP sequence numbers covered,
                                         * [begin_seq, end_seq): end_seq is
                                         * one past the last (RFC 3611 sec.
                                         * 4.1 convention) */
      guint16 unrepaired;       /* lost and not repaired */
      guint16 repaired;         /* lost and repaired */
    } post_repair;
    struct
    {
      guint64 bitrate;          /* maximum total media bitrate, bit/s:
                                 * MxTBR mantissa (17 bits) << exponent (6
                                 * bits), saturated at G_MAXUINT64 */
      guint16 overhead;         /* measured overhead, bytes per packet
                                 * (9 bits) */
    } tmmb;
    struct
    {
      guint16 playout_delay_ms; /* until the next unit is played out;
                                 * RC_NADU_NO_DELAY if none is buffered */
      guint16 nsn;              /* RTP sequence number of the next unit to
                                 * decode (the next expected one if the
                                 * buffer is empty) */
      guint8 nun;               /* unit number inside that packet (5 bits) */
      guint16 free_blocks;      /* free buffer space, 64-byte blocks */
    } nadu;
    struct
    {
      guint64 ntp;              /* the receiver's NTP timestamp (32.32) */
    } rrtr;
    struct
    {
      guint32 lrr, dlrr;        /* NTP short format (16.16 s): the middle
                                 * 32 bits of the RRTR's timestamp, and
                                 * the time since it arrived */
      GstClockTime rtt;         /* at our arrival; NONE if not computable */
    } dlrr;
  };
} RcReportBlock;

/* One feedback message: per-packet results and/or report blocks. Either
 * part may be empty. */
typedef struct
{
  const RcPacketResult *packets;
  guint n_packets;
  const RcReportBlock *reports;
  guint n_reports;
} RcFeedback;

G_END_DECLS
#endif
