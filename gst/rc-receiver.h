/* What a receiver measures for the receiver-assisted controllers, and the
 * RTCP it sends about it (core: no pads, no clock reads; times are the
 * receiver's own clock, passed in).
 *
 * One media stream. Per packet: its arrival (before the jitterbuffer) and,
 * optionally, its hand-over to the depayloader (after the jitterbuffer and
 * FEC repair). Per report: the blocks that describe the interval since the
 * last report, and the next report interval.
 *
 * Playout model. A packet is played out `latency` after the earliest time
 * its media could have arrived: base + media time + latency, where the
 * media time comes from the RTP timestamp and `base` is the smallest
 * arrival - media time seen (the path's own delay; a jitterbuffer anchors
 * its schedule the same way). A packet that arrives after its playout time
 * is discarded (seed 003 sec. V-A: "packets arriving later than the
 * current delay-budget are discarded upon reception"), and counted in the
 * RFC 7002 / RFC 7243 blocks. The next unit to play and its time left are
 * the NADU report (3GPP TS 26.234 sec. 6.2.3.3; seed 003 sec. IV-B).
 *
 * Report interval: C-NADU Algorithm 1 (seed 003 sec. IV-A), or fixed. */
#ifndef __RC_RECEIVER_H__
#define __RC_RECEIVER_H__

#include <gst/gst.h>
#include "rc-feedback.h"
#include "rc-r3cp.h"

G_BEGIN_DECLS

typedef struct
{
  GstClockTime latency;         /* playout delay budget after the path's
                                 * minimum delay (the jitterbuffer's
                                 * latency) */
  gint clock_rate;              /* RTP clock rate of the media */
  gboolean adapt_interval;      /* C-NADU Algorithm 1; else `max_interval`
                                 * is returned as the interval */
  gdouble gamma_bpr;            /* Algorithm 1's threshold on the bad
                                 * packet rate, GOP / FPS (0.33) */
  gdouble rtcp_share;           /* share of the receive rate RTCP may use:
                                 * the minimum interval (RFC 4585 sec.
                                 * 3.4; seed 003 sec. II: 2.5 %) */
  GstClockTime max_interval;    /* Std3550Interval(): 5 s (RFC 3550 sec.
                                 * 6.2, Tmin) */
  GstClockTime floor_interval;  /* never report more often than this
                                 * (the session's own floor) */
  gboolean r3cp;                /* R^3CP^+'s requests: each report is a
                                 * control period, and carries a TMMBR
                                 * and an RRTR (for the RTT); the interval
                                 * is the forecast RTT */
  RcR3cpConfig r3cp_cfg;
} RcReceiverConfig;

/* latency 200 ms (rtpbin's default), 90 kHz, Algorithm 1 with its paper
 * values, 100 ms floor. */
void rc_receiver_config_init (RcReceiverConfig * cfg);

typedef struct _RcReceiver RcReceiver;

RcReceiver *rc_receiver_new (const RcReceiverConfig * cfg);
void rc_receiver_free (RcReceiver * r);

/* A media packet arrived at `now`: sequence number, RTP timestamp and
 * payload bytes. Returns TRUE if it arrived after its playout time (a
 * discard). A packet of another SSRC than the first one's starts over
 * (a new sender). */
gboolean rc_receiver_on_packet (RcReceiver * r, guint32 ssrc, guint16 seq,
    guint32 rtp_ts, guint payload_bytes, GstClockTime now);

/* The packet `seq` was handed to the depayloader: a gap before it is a
 * packet lost after repair (RFC 7509). Optional; without it no post-repair
 * block is written. */
void rc_receiver_on_output (RcReceiver * r, guint32 ssrc, guint16 seq);

/* The report blocks for the interval since the previous report, at `now`
 * (their reporter_ssrc is 0: the caller's session fills it). Appends to
 * `out` (a GArray of RcReportBlock): an RFC 7002 discard count and an RFC
 * 7243 bytes-discarded block (interval values), an RFC 7509 post-repair
 * block if rc_receiver_on_output() saw packets (`repaired_total`: packets
 * rebuilt by FEC so far), and a NADU block; with `r3cp`, a TMMBR (the
 * requested rate) and an RRTR (`now` as its NTP time). Then runs Algorithm
 * 1 (or R^3CP^+'s period) for the next interval. Returns the number of
 * blocks appended (0 before the first packet). */
guint rc_receiver_report (RcReceiver * r, GstClockTime now,
    guint64 repaired_total, GArray * out);

/* An RTT measured at the receiver (RFC 3611 DLRR answering its RRTR),
 * for R^3CP^+'s forecast. */
void rc_receiver_on_rtt (RcReceiver * r, GstClockTime rtt);

/* Blocks parsed from an RTCP packet that reached the receiver (its own
 * SSRC `own_ssrc`): a DLRR answering its RRTR gives
 * rc_receiver_on_rtt() its RTT; the rest is not for it. */
void rc_receiver_on_reports (RcReceiver * r, guint32 own_ssrc,
    const RcReportBlock * blocks, guint n_blocks);

/* The report interval to use from now on. */
GstClockTime rc_receiver_interval (RcReceiver * r);

/* Totals and the current interval: "packets", "lost", "discarded",
 * "discarded-bytes", "reports", "interval" (ns), "playout-delay" (ns of the
 * last NADU, NONE if the buffer was empty), "min-transit" (ns); with r3cp
 * also "requested-bitrate", "desired-bitrate", "loss", "loss-forecast",
 * "rtt", "rtt-forecast" (ns), "state", "forecast". */
GstStructure *rc_receiver_get_stats (RcReceiver * r);

G_END_DECLS
#endif
