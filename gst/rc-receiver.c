/* Receiver-side measurements and reports (core). See rc-receiver.h. */
#include <string.h>
#include "rc-receiver.h"
#include "rc-rtcp.h"

/* Bytes of one report this receiver sends, IP/UDP included: RR with one
 * block (32), SDES CNAME (~24), discard and bytes-discarded XR (32), NADU
 * (24), post-repair XR (24), IPv4/UDP (28). For the bandwidth-bound minimum
 * interval of Algorithm 1 (RFC 3550 sec. 6.3.1: avg_rtcp_size). */
#define REPORT_BYTES 164
/* Algorithm 1 line 15: the interval grows by 3/2 per quiet report. */
#define GROW 1.5
/* RFC 5104 sec. 4.2.1.2: the measured overhead per packet, bytes: IPv4
 * (20), UDP (8), RTP (12). */
#define TMMBR_OVERHEAD 40
/* TS 26.234's free buffer space counts 64-byte blocks in 16 bits. This
 * receiver's buffer is bounded in time (the latency), not in bytes: it
 * reports the field's largest value. */
#define NADU_FREE_BLOCKS 0xffff

typedef struct
{
  guint64 seq;                  /* extended */
  gint64 playout;               /* receiver clock, ns */
} Pending;

struct _RcReceiver
{
  RcReceiverConfig cfg;

  /* the stream */
  gboolean have;
  guint32 ssrc;
  guint64 ext_highest;          /* extended highest sequence number */
  guint32 last_ts;              /* RTP timestamp of the newest packet */
  gint64 media_ticks;           /* its unwrapped offset from the first
                                 * packet's, RTP units */
  gint64 base;                  /* min (arrival - media time), ns */
  GArray *pending;              /* Pending, in arrival order: accepted and
                                 * not yet played out */
  guint pending_head;

  /* this interval */
  guint64 expected_prior;       /* ext_highest + 1 at the last report */
  guint64 received, discarded, discarded_bytes, received_bytes;
  GstClockTime last_report;

  /* post-repair (RFC 7509) */
  gboolean out_have;
  guint32 out_ssrc;
  guint16 out_begin, out_last;
  guint32 out_unrepaired;
  guint64 repaired_prior;
  gboolean out_resync;

  /* Algorithm 1 */
  GstClockTime interval, min_interval;

  /* R^3CP^+ */
  RcR3cpRecv r3cp;
  GstClockTime rtt;             /* measured since the last period, or NONE */

  /* totals */
  guint64 t_packets, t_lost, t_discarded, t_discarded_bytes, t_reports;
  GstClockTime last_playout_delay;
};

void
rc_receiver_config_init (RcReceiverConfig * cfg)
{
  memset (cfg, 0, sizeof (*cfg));
  cfg->latency = 200 * GST_MSECOND;
  cfg->clock_rate = 90000;
  cfg->adapt_interval = TRUE;
  /* seed 003 sec. IV-A, Algorithm 1 line 7: Gamma_bpr = GOP / FPS = 0.33 */
  cfg->gamma_bpr = 0.33;
  /* seed 003 sec. II: RTCP may use 2.5 % of the media rate per end-point
   * in a point-to-point session (RFC 4585) */
  cfg->rtcp_share = 0.025;
  /* RFC 3550 sec. 6.2: Tmin = 5 s; seed 003 sec. IV-A starts there */
  cfg->max_interval = 5 * GST_SECOND;
  cfg->floor_interval = 100 * GST_MSECOND;
}

RcReceiver *
rc_receiver_new (const RcReceiverConfig * cfg)
{
  RcReceiver *r = g_new0 (RcReceiver, 1);

  g_return_val_if_fail (cfg != NULL && cfg->clock_rate > 0, NULL);
  r->cfg = *cfg;
  r->pending = g_array_new (FALSE, FALSE, sizeof (Pending));
  r->interval = cfg->max_interval;
  r->min_interval = cfg->floor_interval;
  r->last_report = GST_CLOCK_TIME_NONE;
  r->last_playout_delay = GST_CLOCK_TIME_NONE;
  r->rtt = GST_CLOCK_TIME_NONE;
  if (cfg->r3cp) {
    rc_r3cp_recv_init (&r->r3cp, &cfg->r3cp_cfg);
    r->interval = rc_r3cp_recv_period_length (&r->r3cp, cfg->floor_interval);
  }
  return r;
}

void
rc_receiver_on_rtt (RcReceiver * r, GstClockTime rtt)
{
  g_return_if_fail (r != NULL);
  if (GST_CLOCK_TIME_IS_VALID (rtt))
    r->rtt = rtt;
}

void
rc_receiver_free (RcReceiver * r)
{
  if (!r)
    return;
  g_array_unref (r->pending);
  g_free (r);
}

static void
restart (RcReceiver * r, guint32 ssrc, guint16 seq, guint32 rtp_ts)
{
  r->have = TRUE;
  r->ssrc = ssrc;
  r->ext_highest = 65536 + (guint64) seq;       /* room to go back */
  r->expected_prior = r->ext_highest;
  r->last_ts = rtp_ts;
  r->media_ticks = 0;
  r->base = G_MAXINT64;
  g_array_set_size (r->pending, 0);
  r->pending_head = 0;
  r->received = r->discarded = r->discarded_bytes = r->received_bytes = 0;
}

/* Drops what has been played out by `now`. */
static void
play_out (RcReceiver * r, gint64 now)
{
  while (r->pending_head < r->pending->len &&
      g_array_index (r->pending, Pending, r->pending_head).playout <= now)
    r->pending_head++;
  /* compact once the played part dominates: amortised O(1) */
  if (r->pending_head > 64 && r->pending_head * 2 > r->pending->len) {
    g_array_remove_range (r->pending, 0, r->pending_head);
    r->pending_head = 0;
  }
}

gboolean
rc_receiver_on_packet (RcReceiver * r, guint32 ssrc, guint16 seq,
    guint32 rtp_ts, guint payload_bytes, GstClockTime now)
{
  gint64 media, transit, playout, ticks;
  guint64 ext;
  gint16 d;
  gboolean late;

  g_return_val_if_fail (r != NULL && GST_CLOCK_TIME_IS_VALID (now), FALSE);
  if (!r->have || ssrc != r->ssrc)
    restart (r, ssrc, seq, rtp_ts);

  /* RFC 3550 appendix A.1: the extended sequence number nearest the
   * highest one. */
  d = (gint16) (seq - (guint16) r->ext_highest);
  ext = (guint64) ((gint64) r->ext_highest + d);
  if (ext > r->ext_highest)
    r->ext_highest = ext;
  /* The RTP timestamp, unwrapped against the newest one. */
  ticks = r->media_ticks + (gint32) (rtp_ts - r->last_ts);
  if (ticks > r->media_ticks) {
    r->media_ticks = ticks;
    r->last_ts = rtp_ts;
  }
  media = (gint64) gst_util_uint64_scale_int ((guint64) ABS (ticks),
      GST_SECOND, r->cfg.clock_rate);
  if (ticks < 0)
    media = -media;

  transit = (gint64) now - media;
  if (transit < r->base)
    r->base = transit;
  playout = r->base + media + (gint64) r->cfg.latency;
  late = (gint64) now > playout;

  r->received++;
  r->received_bytes += payload_bytes;
  r->t_packets++;
  if (late) {
    r->discarded++;
    r->discarded_bytes += payload_bytes;
    r->t_discarded++;
    r->t_discarded_bytes += payload_bytes;
  } else {
    Pending p = { ext, playout };
    g_array_append_val (r->pending, p);
  }
  play_out (r, (gint64) now);
  return late;
}

void
rc_receiver_on_output (RcReceiver * r, guint32 ssrc, guint16 seq)
{
  g_return_if_fail (r != NULL);
  if (!r->out_have || ssrc != r->out_ssrc) {
    /* the first packet, or a new sender: a new interval */
    r->out_have = TRUE;
    r->out_ssrc = ssrc;
    r->out_begin = r->out_last = seq;
    r->out_unrepaired = 0;
    r->out_resync = TRUE;
  } else {
    gint16 d = (gint16) (seq - r->out_last);
    if (d > 0) {
      r->out_unrepaired += d - 1;
      r->out_last = seq;
    }
  }
}

/* Algorithm 1 (seed 003 sec. IV-A) at a report, over the interval that
 * ends: `received` packets (discards included), `lost`, `discarded`, at
 * `rate` payload bit/s. */
static void
next_interval (RcReceiver * r, guint64 received, guint64 lost,
    guint64 discarded, gdouble rate)
{
  const RcReceiverConfig *c = &r->cfg;
  GstClockTime prev = r->interval, next;

  if (!c->adapt_interval) {
    r->interval = c->max_interval;
    return;
  }
  /* line 3: Min4585RTCPInterval(), what the RTCP share of the receive
   * rate allows (RFC 3550 sec. 6.3.1 with RFC 4585's minimum of 0);
   * kept from the last interval with media for line 18 */
  if (rate > 0 && c->rtcp_share > 0)
    r->min_interval = CLAMP ((GstClockTime) (REPORT_BYTES * 8.0 /
            (c->rtcp_share * rate) * GST_SECOND), c->floor_interval,
        c->max_interval);
  if (lost > 0 || discarded > 0) {
    /* lines 5-13 */
    gdouble good = (gdouble) (received - MIN (discarded, received)) /
        (gdouble) (received + lost);
    next = prev;
    if (1.0 - good > c->gamma_bpr)
      next = MAX ((GstClockTime) (prev * (1.0 - c->gamma_bpr)),
          r->min_interval);
  } else {
    /* line 15 */
    next = MIN ((GstClockTime) (prev * GROW), c->max_interval);
  }
  /* lines 17-19 */
  if (received == 0)
    next = r->min_interval;
  r->interval = MAX (next, c->floor_interval);
}

guint
rc_receiver_report (RcReceiver * r, GstClockTime now, guint64 repaired_total,
    GArray * out)
{
  RcReportBlock b;
  guint64 expected, lost;
  gdouble rate = 0;
  guint n = 0;

  g_return_val_if_fail (r != NULL && out != NULL, 0);
  g_return_val_if_fail (g_array_get_element_size (out) ==
      sizeof (RcReportBlock), 0);

  if (!r->have) {
    next_interval (r, 0, 0, 0, 0);
    return 0;
  }
  expected = r->ext_highest + 1 - r->expected_prior;
  lost = expected > r->received ? expected - r->received : 0;
  if (GST_CLOCK_TIME_IS_VALID (r->last_report) && now > r->last_report)
    rate = r->received_bytes * 8.0 * GST_SECOND / (gdouble) (now -
        r->last_report);

  memset (&b, 0, sizeof (b));
  b.kind = RC_REPORT_DISCARD;
  b.media_ssrc = r->ssrc;
  b.discard.interval = RC_XR_INTERVAL_INTERVAL;
  /* The count holds late arrivals only: this receiver never discards a
   * packet for arriving early (its buffer is bounded in time). Discard
   * type 0 is the one that does not single out duplicates or early
   * packets, as we read RFC 7002 sec. 3.1. */
  b.discard.discard_type = 0;
  b.discard.packets = (guint32) MIN (r->discarded, G_MAXUINT32);
  g_array_append_val (out, b);
  n++;

  memset (&b, 0, sizeof (b));
  b.kind = RC_REPORT_DISCARD_BYTES;
  b.media_ssrc = r->ssrc;
  b.discard_bytes.interval = RC_XR_INTERVAL_INTERVAL;
  b.discard_bytes.early = FALSE;        /* RFC 7243 sec. 3.1: E = 0, late */
  b.discard_bytes.bytes = (guint32) MIN (r->discarded_bytes, G_MAXUINT32);
  g_array_append_val (out, b);
  n++;

  if (r->out_have) {
    guint n_seq;
    if (r->out_resync) {
      /* a new stream (or a restart): repairs count from here */
      r->repaired_prior = repaired_total;
      r->out_resync = FALSE;
    }
    n_seq = (guint16) (r->out_last + 1 - r->out_begin);
    if (n_seq > 0) {
      memset (&b, 0, sizeof (b));
      b.kind = RC_REPORT_POST_REPAIR;
      b.media_ssrc = r->out_ssrc;
      b.post_repair.begin_seq = r->out_begin;
      b.post_repair.end_seq = r->out_last + 1;
      b.post_repair.unrepaired = MIN (r->out_unrepaired, n_seq);
      b.post_repair.repaired = MIN (repaired_total - r->repaired_prior,
          n_seq - b.post_repair.unrepaired);
      g_array_append_val (out, b);
      n++;
      r->out_begin = r->out_last + 1;
      r->out_unrepaired = 0;
      r->repaired_prior = repaired_total;
    }
  }

  /* NADU: the next packet to be played out and the time left until then;
   * an empty buffer names the next expected packet, with no delay. */
  play_out (r, (gint64) now);
  memset (&b, 0, sizeof (b));
  b.kind = RC_REPORT_NADU;
  b.media_ssrc = r->ssrc;
  b.nadu.free_blocks = NADU_FREE_BLOCKS;
  if (r->pending_head < r->pending->len) {
    const Pending *p = &g_array_index (r->pending, Pending, r->pending_head);
    gint64 left = MAX (p->playout - (gint64) now, 0);
    b.nadu.nsn = (guint16) p->seq;
    b.nadu.playout_delay_ms = (guint16) MIN (left / GST_MSECOND,
        RC_NADU_NO_DELAY - 1);
    r->last_playout_delay = (GstClockTime) left;
  } else {
    b.nadu.nsn = (guint16) (r->ext_highest + 1);
    b.nadu.playout_delay_ms = RC_NADU_NO_DELAY;
    r->last_playout_delay = GST_CLOCK_TIME_NONE;
  }
  g_array_append_val (out, b);
  n++;

  if (r->cfg.r3cp) {
    /* a control period ended (the first report only opens one): the
     * request for the next */
    if (rate > 0) {
      gdouble p = expected ? (gdouble) lost / expected : 0;
      gdouble rho = rc_r3cp_recv_period (&r->r3cp, p, rate, r->rtt);
      memset (&b, 0, sizeof (b));
      b.kind = RC_REPORT_TMMBR;
      b.media_ssrc = r->ssrc;
      b.tmmb.bitrate = (guint64) rho;
      b.tmmb.overhead = TMMBR_OVERHEAD;
      g_array_append_val (out, b);
      n++;
    }
    memset (&b, 0, sizeof (b));
    b.kind = RC_REPORT_RRTR;
    b.rrtr.ntp = rc_rtcp_ntp_from_unix (now);
    g_array_append_val (out, b);
    n++;
    r->rtt = GST_CLOCK_TIME_NONE;
    r->interval = rc_r3cp_recv_period_length (&r->r3cp,
        r->cfg.floor_interval);
  } else {
    next_interval (r, r->received, lost, r->discarded, rate);
  }
  r->t_lost += lost;
  r->t_reports++;
  r->expected_prior = r->ext_highest + 1;
  r->received = r->discarded = r->discarded_bytes = r->received_bytes = 0;
  r->last_report = now;
  return n;
}

void
rc_receiver_on_reports (RcReceiver * r, guint32 own_ssrc,
    const RcReportBlock * blocks, guint n_blocks)
{
  guint i;

  g_return_if_fail (r != NULL && (blocks != NULL || n_blocks == 0));
  for (i = 0; i < n_blocks; i++)
    if (blocks[i].kind == RC_REPORT_DLRR && blocks[i].media_ssrc == own_ssrc)
      rc_receiver_on_rtt (r, blocks[i].dlrr.rtt);
}

GstClockTime
rc_receiver_interval (RcReceiver * r)
{
  g_return_val_if_fail (r != NULL, GST_CLOCK_TIME_NONE);
  return r->interval;
}

GstStructure *
rc_receiver_get_stats (RcReceiver * r)
{
  GstStructure *s;

  g_return_val_if_fail (r != NULL, NULL);
  s = gst_structure_new ("rc-receiver",
      "packets", G_TYPE_UINT64, r->t_packets,
      "lost", G_TYPE_UINT64, r->t_lost,
      "discarded", G_TYPE_UINT64, r->t_discarded,
      "discarded-bytes", G_TYPE_UINT64, r->t_discarded_bytes,
      "reports", G_TYPE_UINT64, r->t_reports,
      "interval", G_TYPE_UINT64, (guint64) r->interval,
      "playout-delay", G_TYPE_UINT64, (guint64) r->last_playout_delay,
      "min-transit", G_TYPE_UINT64, (guint64) (r->have &&
          r->base != G_MAXINT64 && r->base >= 0 ? r->base : 0), NULL);
  if (r->cfg.r3cp)
    gst_structure_set (s,
        "requested-bitrate", G_TYPE_UINT, (guint) MIN (r->r3cp.rho,
            G_MAXUINT),
        "desired-bitrate", G_TYPE_UINT, (guint) MIN (r->r3cp.desired,
            G_MAXUINT),
        "loss", G_TYPE_DOUBLE, r->r3cp.p,
        "loss-forecast", G_TYPE_DOUBLE, r->r3cp.p_hat,
        "rtt", G_TYPE_UINT64, (guint64) (r->r3cp.rtt_s * GST_SECOND),
        "rtt-forecast", G_TYPE_UINT64, (guint64) (r->r3cp.rtt_hat_s *
            GST_SECOND),
        "state", G_TYPE_STRING, rc_r3cp_state_name (r->r3cp.now),
        "forecast", G_TYPE_STRING, rc_r3cp_state_name (r->r3cp.forecast),
        NULL);
  return s;
}
