/* C-NADU, the sender side (seed 003 sec. IV-C, Algorithm 2), core.
 *
 * One decision per RTCP receiver report about our stream, from what the
 * receiver sends with it (rcreceiver, rc-receiver.h): the discard count
 * and bytes discarded of the interval (RFC 7002, RFC 7243) and the NADU
 * report (3GPP TS 26.234: the next packet to play, NSN, and its playout
 * delay, PD_NSN). Per-packet feedback is not used.
 *
 * Estimates (Algorithm 2 line 1), over the interval since the last report:
 *   expected = HSN - HSN_prev (RR extended highest sequence numbers),
 *   lost = the growth of the RR's cumulative loss, received = expected -
 *   lost; ReceiverRate = received x s / dt, GoodPut = (received x s -
 *   bytes discarded) / dt, with s the mean size of the media packets sent
 *   and dt the time between the two reports at the sender.
 *   delay_HSN = PD_NSN + BFL + RTT/2 + dT_HSN (sec. IV-B), BFL = (HSN - NSN
 *   + 1) packets x the mean spacing of the packets sent.
 * The paper's sender keeps a table of every packet sent since the last
 * HSN, by RTP sequence number; the controller interface numbers packets in
 * sending order only, so sizes and spacing are the means over the interval
 * instead. dT_HSN (the time from the HSN's arrival to the report) is not
 * in any report: taken as 0.
 *
 * Algorithm 2, one branch per report:
 *   the same HSN as the last report        x alpha (0.5)            line 3
 *   discards, or losses right after them   GoodPut x delta if above
 *                                          GoodPut, else x beta
 *                                          (sqrt(2)/2)          lines 4-9
 *   losses only (taken as bit errors)      ReceiverRate if below it,
 *                                          else x Psi (1.1)    lines 11-15
 *   neither                                x MIN(1000/FPS, delay_max /
 *                                          delay_HSN)               line 18
 * and, sec. IV-C "TCP Friendly Rate", while losses or discards are
 * reported a rate far above the TFRC rate (RFC 5348 sec. 3.1) is cut to it.
 *
 * Where the paper leaves a value open we chose (named beside each):
 * delta_undershoot, "in (0, 1]", is GoodPut / CurrentBw at the first report
 * of a congestion episode (undershoot by as much as the rate overshot),
 * kept until a clean report ends the episode; "much higher" than TFRC is
 * twice it. The TFRC rate takes the RR's fraction lost as the paper says
 * (not RFC 5348's loss event rate): after an overshoot it is a cut to the
 * minimum rate (rcsim clean-1mbps: 10-30 % lost in one interval, 20
 * kbit/s). Averaging the last 4 RRs' fractions instead kept the rate up
 * longer and lost 9.6 % of packets there, not 3.3 %.
 *
 * Without NADU or discard reports (a stock receiver) it falls back to the
 * RR alone: every loss is taken as congestion (no discards can tell
 * congestion from bit errors), and the playout delay is assumed to be the
 * `playout-delay` parameter; feedback_problem() says so.
 */
#include <math.h>
#include <string.h>
#include "rc-controller.h"

/* Algorithm 2, lines 3, 9, 15 (seed 003 sec. IV-C). */
#define ALPHA 0.5
#define BETA (G_SQRT2 / 2)
#define PSI 1.1
/* Ours: "much higher" than the TFRC rate. */
#define TFRC_MARGIN 2.0
/* Ours: the undershoot factor's range; (0, 1] in the paper. */
#define UNDERSHOOT_MIN 0.5
/* A report with fewer sent packets behind it says little about rates. */
#define MIN_PACKETS 4
/* RRs without NADU or discard blocks before the fallback is announced. */
#define PROBLEM_AFTER 3

/* seed 003 sec. V-A: the delay budget's upper bound, 400 ms. */
#define DEFAULT_DELAY_MAX_MS 400.0
/* sec. V-A: 15 frames/s; our encoders default to 30. Only line 18's
 * 1000/FPS term, which caps the growth per report. */
#define DEFAULT_FPS 30.0
/* Ours, for the fallback: rtpbin's jitterbuffer latency. */
#define DEFAULT_PLAYOUT_DELAY_MS 200.0

extern const RcControllerInfo rc_cnadu_info;

typedef struct
{
  RcController parent;

  gdouble delay_max, fps, playout_fallback;     /* parameters (s, 1/s, s) */
  gdouble rate;                 /* CurrentBw */

  /* sent since the last report */
  guint64 int_packets, int_bytes;
  gdouble mean_size;            /* bytes, media, the last interval's */

  /* the last report */
  gboolean have_prev;
  guint32 hsn_prev;
  gint32 cum_lost_prev;
  GstClockTime t_prev;
  gboolean discards_prev;       /* the last interval had discards */
  GstClockTime rtt;             /* the latest valid RTT */

  /* congestion episode */
  gboolean in_episode;
  gdouble undershoot;

  /* what the receiver sends */
  guint64 rr_seen, nadu_seen, discard_seen;

  /* last estimates, for stats and debugging */
  gdouble recv_bps, goodput_bps, tfrc_bps, delay_hsn, pd_nsn, bfl, factor;
  guint64 last_discards, last_lost;
  guint64 reports, n_alpha, n_congested, n_losses_only, n_delay, n_tfrc;
  const gchar *phase, *reason;
} Cnadu;

static gdouble
clamp_rate (Cnadu * c, gdouble bps)
{
  return CLAMP (bps, (gdouble) c->parent.limits.min_bps,
      (gdouble) c->parent.limits.max_bps);
}

/* RFC 5348 sec. 3.1: X = s / (R sqrt(2bp/3) + t_RTO (3 sqrt(3bp/8)) p (1 +
 * 32p^2)), b = 1, t_RTO = 4R; bit/s. */
static gdouble
tfrc_bps (gdouble s, gdouble r, gdouble p)
{
  gdouble d;

  if (!(p > 0) || !(r > 0) || !(s > 0))
    return G_MAXDOUBLE;
  d = r * sqrt (2 * p / 3) + 4 * r * (3 * sqrt (3 * p / 8)) * p *
      (1 + 32 * p * p);
  return 8 * s / d;
}

static void
cnadu_on_packet_sent (RcController * ctrl, guint64 index, guint size,
    gboolean is_fec, GstClockTime now)
{
  Cnadu *c = (Cnadu *) ctrl;

  if (is_fec)
    return;
  c->int_packets++;
  c->int_bytes += size;
}

static void
cnadu_on_feedback (RcController * ctrl, const RcFeedback * fb,
    GstClockTime now)
{
  Cnadu *c = (Cnadu *) ctrl;
  const RcReportBlock *rr = NULL, *nadu = NULL;
  gboolean have_discard = FALSE;
  guint64 discarded = 0, discarded_bytes = 0;
  gdouble dt, s, spacing, rtt_s, next;
  guint32 expected;
  gint64 lost;
  guint64 received;
  gboolean losses, discards, congested;
  guint i;

  for (i = 0; i < fb->n_reports; i++) {
    const RcReportBlock *b = &fb->reports[i];
    switch (b->kind) {
      case RC_REPORT_RR:
        rr = b;
        break;
      case RC_REPORT_NADU:
        nadu = b;
        break;
      case RC_REPORT_DISCARD:
        have_discard = TRUE;
        discarded += b->discard.packets;
        break;
      case RC_REPORT_DISCARD_BYTES:
        discarded_bytes += b->discard_bytes.bytes;
        break;
      default:
        break;
    }
  }
  /* Algorithm 2 "Ensure: reception of latest RR" */
  if (!rr || !GST_CLOCK_TIME_IS_VALID (now))
    return;
  c->rr_seen++;
  if (nadu)
    c->nadu_seen++;
  if (have_discard)
    c->discard_seen++;
  if (GST_CLOCK_TIME_IS_VALID (rr->rr.rtt) && rr->rr.rtt > 0)
    c->rtt = rr->rr.rtt;

  if (!c->have_prev) {
    c->have_prev = TRUE;
    c->hsn_prev = rr->rr.ext_highest_seq;
    c->cum_lost_prev = rr->rr.cumulative_lost;
    c->t_prev = now;
    c->int_packets = c->int_bytes = 0;
    c->reason = "first receiver report: the next one gives rates";
    return;
  }
  if (now <= c->t_prev)
    return;
  dt = (gdouble) (now - c->t_prev) / GST_SECOND;
  expected = rr->rr.ext_highest_seq - c->hsn_prev;
  lost = MAX ((gint64) rr->rr.cumulative_lost - c->cum_lost_prev, 0);
  received = expected > lost ? expected - (guint64) lost : 0;
  if (c->int_packets >= MIN_PACKETS)
    c->mean_size = (gdouble) c->int_bytes / c->int_packets;
  s = c->mean_size;
  spacing = c->int_packets ? dt / c->int_packets : 0;

  /* line 1 */
  c->recv_bps = received * s * 8 / dt;
  c->goodput_bps = MAX ((gdouble) received * s - (gdouble) discarded_bytes,
      0) * 8 / dt;
  rtt_s = GST_CLOCK_TIME_IS_VALID (c->rtt) ? (gdouble) c->rtt / GST_SECOND :
      0;
  if (nadu && nadu->nadu.playout_delay_ms != RC_NADU_NO_DELAY) {
    guint16 pib = (guint16) ((guint16) rr->rr.ext_highest_seq -
        nadu->nadu.nsn + 1);
    c->pd_nsn = nadu->nadu.playout_delay_ms / 1000.0;
    c->bfl = pib * spacing;
  } else if (nadu) {
    /* nothing buffered: the next packet plays as it arrives */
    c->pd_nsn = c->bfl = 0;
  } else {
    c->pd_nsn = c->playout_fallback;
    c->bfl = 0;
  }
  c->delay_hsn = c->pd_nsn + c->bfl + rtt_s / 2;

  losses = lost > 0;
  discards = discarded > 0;
  /* sec. IV-C "Loss": losses right after discards are congestion too;
   * with no discard reports at all, every loss is (fallback) */
  congested = discards || (losses && (c->discards_prev || !have_discard));
  c->last_discards = discarded;
  c->last_lost = (guint64) lost;
  c->reports++;

  if (expected == 0 && c->int_packets > 0) {
    /* lines 2-3: nothing new arrived over a whole interval */
    next = c->rate * ALPHA;
    c->n_alpha++;
    c->phase = "decrease";
    c->reason = "nothing arrived since the last report: halved";
  } else if (congested) {
    /* lines 4-9 */
    if (!c->in_episode) {
      c->in_episode = TRUE;
      c->undershoot = c->rate > 0 ? CLAMP (c->goodput_bps / c->rate,
          UNDERSHOOT_MIN, 1.0) : 1.0;
    }
    if (c->rate > c->goodput_bps)
      next = c->goodput_bps * c->undershoot;
    else
      next = c->rate * BETA;
    c->n_congested++;
    c->phase = "decrease";
    c->reason = discards ? "packets arrived too late for playout: down to "
        "the goodput" : "losses after late packets: down to the goodput";
  } else if (losses) {
    /* lines 11-15: taken as bit errors */
    next = c->rate < c->recv_bps ? c->recv_bps : c->rate * PSI;
    c->n_losses_only++;
    c->phase = "increase";
    c->reason = "losses without late packets (bit errors): probing up";
  } else {
    /* line 18 */
    gdouble f = 1000.0 / c->fps;
    if (c->delay_hsn > 0)
      f = MIN (f, c->delay_max / c->delay_hsn);
    c->factor = f;
    next = c->rate * f;
    c->n_delay++;
    c->phase = f >= 1 ? "increase" : "decrease";
    c->reason = "no loss, no late packets: scaled by the playout delay "
        "left";
  }
  if (!congested && !losses)
    c->in_episode = FALSE;

  /* sec. IV-C "TCP Friendly Rate" */
  c->tfrc_bps = tfrc_bps (s, rtt_s, rr->rr.fraction_lost);
  if ((losses || discards) && c->rate > TFRC_MARGIN * c->tfrc_bps &&
      next > c->tfrc_bps) {
    next = c->tfrc_bps;
    c->n_tfrc++;
    c->reason = "far above the TCP-friendly rate while losing: cut to it";
  }

  c->rate = clamp_rate (c, next);
  c->discards_prev = discards;
  c->hsn_prev = rr->rr.ext_highest_seq;
  c->cum_lost_prev = rr->rr.cumulative_lost;
  c->t_prev = now;
  c->int_packets = c->int_bytes = 0;
}

static void
cnadu_limit_rate (RcController * ctrl, guint64 bps, GstClockTime now)
{
  Cnadu *c = (Cnadu *) ctrl;

  c->rate = clamp_rate (c, MIN (c->rate, (gdouble) bps));
}

static RcDecision
cnadu_get_decision (RcController * ctrl)
{
  Cnadu *c = (Cnadu *) ctrl;
  RcDecision d = { 0 };

  d.media_bps = (guint64) c->rate;
  d.phase = c->phase;
  d.reason = c->reason;
  return d;
}

static const gchar *
cnadu_feedback_problem (RcController * ctrl)
{
  Cnadu *c = (Cnadu *) ctrl;

  if (c->rr_seen >= PROBLEM_AFTER && (c->nadu_seen == 0 ||
          c->discard_seen == 0))
    return "cnadu: the receiver sends no NADU or discard reports; C-NADU "
        "falls back to RTCP receiver reports alone, takes every loss as "
        "congestion and assumes the playout delay given by "
        "cnadu-playout-delay";
  return NULL;
}

static GstStructure *
cnadu_get_stats (RcController * ctrl)
{
  Cnadu *c = (Cnadu *) ctrl;

  return gst_structure_new ("cnadu-stats",
      "receiver-bitrate", G_TYPE_UINT, rc_stats_bps (c->recv_bps),
      "goodput", G_TYPE_UINT, rc_stats_bps (c->goodput_bps),
      "tfrc-bitrate", G_TYPE_UINT, rc_stats_bps (c->tfrc_bps),
      "playout-delay", G_TYPE_UINT64, rc_stats_time (c->pd_nsn),
      "buffered-media", G_TYPE_UINT64, rc_stats_time (c->bfl),
      "delay-hsn", G_TYPE_UINT64, rc_stats_time (c->delay_hsn),
      "rtt", G_TYPE_UINT64, (guint64) c->rtt,
      "last-factor", G_TYPE_DOUBLE, c->factor,
      "undershoot", G_TYPE_DOUBLE, c->in_episode ? c->undershoot : 1.0,
      "last-discarded", G_TYPE_UINT64, c->last_discards,
      "last-lost", G_TYPE_UINT64, c->last_lost,
      "reports", G_TYPE_UINT64, c->reports,
      "nadu-reports", G_TYPE_UINT64, c->nadu_seen,
      "discard-reports", G_TYPE_UINT64, c->discard_seen,
      "halvings", G_TYPE_UINT64, c->n_alpha,
      "congestion-decreases", G_TYPE_UINT64, c->n_congested,
      "loss-only-increases", G_TYPE_UINT64, c->n_losses_only,
      "delay-steps", G_TYPE_UINT64, c->n_delay,
      "tfrc-cuts", G_TYPE_UINT64, c->n_tfrc, NULL);
}

static void
cnadu_free (RcController * ctrl)
{
  g_free (ctrl);
}

static const RcControllerClass cnadu_class = {
  cnadu_free,
  cnadu_on_feedback,
  cnadu_on_packet_sent,
  NULL,
  cnadu_limit_rate,
  cnadu_get_decision,
  cnadu_get_stats,
  NULL,
  cnadu_feedback_problem,
  TRUE,                         /* reports_always: built on RTCP reports */
};

static GParamSpec **
cnadu_params (guint * n)
{
  static GParamSpec *specs[3];

  if (g_once_init_enter (&specs[2])) {
    GParamFlags fl = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
    specs[0] = g_param_spec_ref_sink (g_param_spec_double ("delay-max",
            "Delay budget", "delay_max (ms): the capture-to-display budget "
            "the playout delay is scaled against (Algorithm 2 line 18; seed "
            "003 sec. V-A: 400 ms)", 10.0, 10000.0, DEFAULT_DELAY_MAX_MS,
            fl));
    specs[1] = g_param_spec_ref_sink (g_param_spec_double ("fps",
            "Frame rate", "FPS_curr of Algorithm 2 line 18: the growth per "
            "report is at most 1000/FPS", 1.0, 240.0, DEFAULT_FPS, fl));
    g_once_init_leave (&specs[2], g_param_spec_ref_sink
        (g_param_spec_double ("playout-delay", "Assumed playout delay",
                "Playout delay (ms) assumed when the receiver sends no NADU "
                "report (a stock receiver); ours: rtpbin's jitterbuffer "
                "latency", 0.0, 10000.0, DEFAULT_PLAYOUT_DELAY_MS, fl)));
  }
  *n = G_N_ELEMENTS (specs);
  return specs;
}

static RcController *
cnadu_create (const RcRateLimits * limits, const GstStructure * params)
{
  Cnadu *c = g_new0 (Cnadu, 1);

  c->parent.klass = &cnadu_class;
  c->delay_max = rc_controller_param_double (&rc_cnadu_info, params,
      "delay-max") / 1000.0;
  c->fps = rc_controller_param_double (&rc_cnadu_info, params, "fps");
  c->playout_fallback = rc_controller_param_double (&rc_cnadu_info, params,
      "playout-delay") / 1000.0;
  c->rate = (gdouble) limits->start_bps;
  c->rtt = GST_CLOCK_TIME_NONE;
  c->factor = 1.0;
  c->undershoot = 1.0;
  c->phase = "start";
  c->reason = "the start rate, until two receiver reports";
  return &c->parent;
}

const RcControllerInfo rc_cnadu_info = {
  "cnadu",
  "C-NADU: RTCP-report rate control with receiver discards and playout "
      "delay (needs rcreceiver at the receiver)",
  cnadu_params,
  cnadu_create,
  TRUE,
};
