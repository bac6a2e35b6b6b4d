/* RTCP feedback in and out (core): parse a compound RTCP packet into
 * RcReportBlocks, write the blocks our receiver sends, NTP short-format
 * arithmetic for the RTT. No clock reads: arrival times are parameters. */
#ifndef __RC_RTCP_H__
#define __RC_RTCP_H__

#include <gst/gst.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include "rc-feedback.h"

G_BEGIN_DECLS

/* Work bound for one rc_rtcp_parse() call: report blocks examined (SR/RR
 * report blocks, XR blocks, TMMBR/TMMBN FCI entries; appended, skipped or
 * malformed alike). An MTU-sized compound (1500 bytes) holds at most 62
 * SR/RR report blocks (24 bytes), 124 discard XR blocks (12 bytes) or 186
 * FCI entries (8 bytes), so 256 only stops floods such as a 64 kB buffer of
 * empty 4-byte XR blocks. The packet walk itself is linear in the buffer
 * size. */
#define RC_RTCP_MAX_BLOCKS 256

/* Largest RTT taken from LSR/DLSR. A larger value means the two NTP clocks
 * are not the same clock (rtpsession's ntp-time-source against our arrival
 * time), a stale or forged LSR, or a negative difference; no path a real-time
 * controller can follow has a 10 s RTT (geostationary hops are ~0.6 s,
 * multi-second bufferbloat is the worst seen). Far below the 2^15 s at which
 * a negative NTP-short difference would look positive. */
#define RC_RTCP_MAX_RTT (10 * GST_SECOND)

/* Seconds from the NTP epoch (1900-01-01) to the Unix epoch (1970-01-01),
 * RFC 868. */
#define RC_NTP_UNIX_OFFSET G_GUINT64_CONSTANT (2208988800)

/* XR block types (IANA RTCP XR Block Type registry). */
#define RC_XR_BT_RRTR 4         /* RFC 3611 sec. 4.4 */
#define RC_XR_BT_DLRR 5         /* RFC 3611 sec. 4.5 */
#define RC_XR_BT_DISCARD 24     /* RFC 7002 */
#define RC_XR_BT_DISCARD_BYTES 26       /* RFC 7243 */
#define RC_XR_BT_POST_REPAIR 33 /* RFC 7509 */

typedef struct
{
  guint n_packets;              /* packets walked: version 2, length
                                 * inside the buffer */
  guint n_reports;              /* RcReportBlocks appended to `out` */
  guint n_skipped_packets;      /* well-formed packets of types not read
                                 * here: SDES, BYE, APP other than NADU,
                                 * PSFB, RTPFB other than TMMBR/TMMBN,
                                 * unknown types */
  guint n_skipped_blocks;       /* well-formed XR blocks of other types */
  guint n_malformed_packets;    /* packets dropped whole (shorter than
                                 * their type's header, block count or FCI
                                 * length against the packet length, bad
                                 * padding), an empty buffer, or bytes
                                 * after the last packet the walk could
                                 * read (bad version, length past the
                                 * buffer, anything after padding) */
  guint n_malformed_blocks;     /* XR blocks dropped: too short for their
                                 * type, or running past the packet */
  gboolean truncated;           /* stopped at RC_RTCP_MAX_BLOCKS */
  const gchar *first_problem;   /* static text for a warning, or NULL */
} RcRtcpParseInfo;

/* Walks the compound RTCP packet `compound` (SR, RR, XR, RTPFB, APP;
 * everything else skipped and counted) and appends one RcReportBlock per
 * SR/RR report block, per RFC 7002/7243/7509 and RRTR XR block, per DLRR
 * sub-block (RTT from LRR/DLRR as for an RR), per TMMBR/TMMBN FCI entry and
 * per NADU block to
 * `out` (a GArray of RcReportBlock). `arrival_ntp_short` is the middle 32
 * bits of the NTP time at which the packet arrived (rc_rtcp_ntp_short()),
 * for the RTT; `clock_rate` converts the jitter to ns (0 or less: unknown,
 * jitter NONE). Every count and length is checked against the packet;
 * malformed packets and blocks are skipped and counted in `info`. Returns
 * FALSE if `compound` holds no RTCP packet at all. */
gboolean rc_rtcp_parse (GstBuffer * compound, guint32 arrival_ntp_short,
    gint clock_rate, GArray * out, RcRtcpParseInfo * info);

/* Appends one XR packet from `reporter_ssrc` carrying `blocks` (kinds
 * RC_REPORT_DISCARD, RC_REPORT_DISCARD_BYTES, RC_REPORT_POST_REPAIR,
 * RC_REPORT_RRTR, RC_REPORT_DLRR (one sub-block per DLRR block); their
 * reporter_ssrc is not used) to `rtcp`, mapped for writing. FALSE, and
 * nothing written, if a block is of another kind or a field does not fit
 * its wire width, or the buffer has no room. */
gboolean rc_rtcp_write_xr (GstRTCPBuffer * rtcp, guint32 reporter_ssrc,
    const RcReportBlock * blocks, guint n_blocks);

/* Appends one RTPFB packet, TMMBR (FMT 3) or TMMBN (FMT 4) after `kind`,
 * from `sender_ssrc` with one FCI entry per element of `entries` (all of
 * that kind). The bitrate is encoded as mantissa << exponent with the
 * smallest exponent that fits, rounding down (a request never asks for more
 * than given). A TMMBN may have no entry (an empty bounding set); a TMMBR
 * needs one. FALSE, and nothing written, on a bad kind, an overhead above
 * 511, or no room. */
gboolean rc_rtcp_write_tmmb (GstRTCPBuffer * rtcp, RcReportKind kind,
    guint32 sender_ssrc, const RcReportBlock * entries, guint n_entries);

/* Appends one NADU APP packet (3GPP TS 26.234 sec. 6.2.3.3: subtype 0,
 * name "PSS0") from `reporter_ssrc` with one 12-byte block per element of
 * `blocks` (kind RC_REPORT_NADU, 1 to 31). FALSE, and nothing written, on
 * another kind, a NUN above 31, or no room. */
gboolean rc_rtcp_write_nadu (GstRTCPBuffer * rtcp, guint32 reporter_ssrc,
    const RcReportBlock * blocks, guint n_blocks);

/* Appends `blocks`, of any kinds the writers above take, as the fewest
 * packets: a TMMBR and a TMMBN packet with the entries of each, one XR
 * packet with every XR block, one NADU packet. FALSE if a block was not
 * written (an RR, a field out of range, no room); the packets that fit
 * stay. */
gboolean rc_rtcp_write_blocks (GstRTCPBuffer * rtcp, guint32 reporter_ssrc,
    const RcReportBlock * blocks, guint n_blocks);

/* The middle 32 bits of a 64-bit NTP timestamp (RFC 3550 sec. 4): 16.16
 * seconds, as in LSR and DLSR. */
guint32 rc_rtcp_ntp_short (guint64 ntp_64);

/* A time in ns since the Unix epoch as a 64-bit NTP timestamp (32.32 s
 * since 1900). */
guint64 rc_rtcp_ntp_from_unix (GstClockTime unix_time);

/* A duration in NTP short format (1/65536 s units) in ns. */
GstClockTime rc_rtcp_ntp_short_to_time (guint32 ntp_short);

/* RFC 3550 sec. 6.4.1: RTT = A - LSR - DLSR, all NTP short, modulo 2^32
 * (so across the 16-bit seconds wrap). GST_CLOCK_TIME_NONE if LSR is 0 (no
 * SR received yet), or the difference is negative or above
 * RC_RTCP_MAX_RTT. */
GstClockTime rc_rtcp_rtt (guint32 arrival_ntp_short, guint32 lsr,
    guint32 dlsr);

G_END_DECLS
#endif
