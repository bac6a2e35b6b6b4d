/* R^3CP^+ (seed 004), core: the receiver's rate request (sec. 2-3, Table 1)
 * and the `r3cp` controller, which follows the requests at the sender.
 *
 * The paper streams stored video: its sender can send ahead and its
 * receiver sizes the request to keep a playout buffer of one RTT plus one
 * I-frame distance (eqs. 3-4). Live video cannot be sent ahead of its
 * capture, so what the receiver "desires" here is the rate that, after the
 * forecast loss, keeps delivering what it receives now:
 *   lambda-hat_n = gamma_n / (1 - min(p-hat_{n+1}, p_high))
 * (eq. 4's buffer terms are zero: the buffer is what the latency holds;
 * loss beyond p_high is congestion, not something to send more for).
 * Table 1's lambda-hat_max, the cap of an increase while all is well, is
 * then 1.5 lambda-hat_n (ours: an encoder that cannot fill its target would
 * otherwise see its request grow without end).
 *
 * Per control period (one forecast RTT, sec. 2.2; at least the report
 * floor):
 *   p_n: the packet loss fraction of the period. The paper's eq. 1 takes
 *        1 - gamma_n / rho_{n-1}, which counts as lost whatever a live
 *        encoder did not send of its target: we count packets instead.
 *   p-hat, d-hat: RLS forecasts (rc-rls.c) of p and of the RTT.
 *   Table 1, rows the current state, columns the forecast:
 *     Unloaded:  min(lambda-hat_max, rho + Delta_inc)  (forecast Unloaded)
 *                min(lambda-hat_max, rho + delta_inc)  (forecast Loaded)
 *                min(lambda-hat_n,   rho + delta_inc)  (forecast Congested)
 *     Loaded:    min(lambda-hat_n, rho)
 *     Congested: min(lambda-hat_n x delta_dec, rho)    (forecast not Congested)
 *                min(lambda-hat_n x Delta_dec, rho)    (forecast Congested)
 *
 * The paper gives none of M, the RLS forgetting factor, p_low, p_high,
 * Delta_inc, delta_inc, delta_dec, Delta_dec (its ref. [16] does). Ours, for
 * the "TCP-friendly" the paper aims at: increases of 2 and 1 packets per RTT
 * (TCP's congestion avoidance adds one), decreases to 0.75 and 0.5 (TCP
 * halves), p_low 1 % and p_high 5 % (the TFCC baseline's thresholds are not
 * given either), M = 4 and lambda = 0.95 (a memory of about a second at
 * 100 ms periods, 1 / (1 - lambda) = 20 periods of forgetting).
 */
#include <math.h>
#include <string.h>
#include "rc-r3cp.h"
#include "rc-controller.h"

#define DEFAULT_MEMORY 4
#define DEFAULT_LAMBDA 0.95
#define DEFAULT_P_LOW 0.01
#define DEFAULT_P_HIGH 0.05
#define DEFAULT_INC_BIG 2.0
#define DEFAULT_INC_SMALL 1.0
#define DEFAULT_DEC_MILD 0.75
#define DEFAULT_DEC_STRONG 0.5
#define DEFAULT_PACKET_BYTES 1200
/* RLS P(0) = delta I: large, the start weights are a guess. */
#define RLS_DELTA 100.0
/* Ours: lambda-hat_max / lambda-hat_n. */
#define DESIRED_MAX_FACTOR 1.5
/* Before an RTT is known (s). */
#define DEFAULT_RTT_S 0.1

void
rc_r3cp_config_init (RcR3cpConfig * c)
{
  memset (c, 0, sizeof (*c));
  c->memory = DEFAULT_MEMORY;
  c->lambda = DEFAULT_LAMBDA;
  c->p_low = DEFAULT_P_LOW;
  c->p_high = DEFAULT_P_HIGH;
  c->inc_big = DEFAULT_INC_BIG;
  c->inc_small = DEFAULT_INC_SMALL;
  c->dec_mild = DEFAULT_DEC_MILD;
  c->dec_strong = DEFAULT_DEC_STRONG;
  c->packet_bytes = DEFAULT_PACKET_BYTES;
  c->min_bps = 50000;
  c->start_bps = 300000;
  c->max_bps = 20000000;
}

const gchar *
rc_r3cp_state_name (RcR3cpState s)
{
  static const gchar *const names[] = { "unloaded", "loaded", "congested" };
  return names[s];
}

static RcR3cpState
state_of (const RcR3cpConfig * c, gdouble p)
{
  if (p < c->p_low)
    return RC_R3CP_UNLOADED;
  return p < c->p_high ? RC_R3CP_LOADED : RC_R3CP_CONGESTED;
}

void
rc_r3cp_recv_init (RcR3cpRecv * r, const RcR3cpConfig * cfg)
{
  memset (r, 0, sizeof (*r));
  r->cfg = *cfg;
  rc_rls_init (&r->loss, cfg->memory, cfg->lambda, RLS_DELTA);
  rc_rls_init (&r->rtt, cfg->memory, cfg->lambda, RLS_DELTA);
  r->rho = (gdouble) CLAMP (cfg->start_bps, cfg->min_bps, cfg->max_bps);
}

gdouble
rc_r3cp_recv_period (RcR3cpRecv * r, gdouble p, gdouble recv_bps,
    GstClockTime rtt)
{
  const RcR3cpConfig *c = &r->cfg;
  gdouble d, per_packet, desired_max, rho = r->rho, f;

  /* one push per period: CLAMP and MAX evaluate their argument more than
   * once, which fed each sample to the RLS two or three times and let a
   * forecast past 1 through (a request of max-bps, 100x what arrived) */
  r->p = CLAMP (p, 0, 1);
  f = rc_rls_push (&r->loss, r->p);
  r->p_hat = CLAMP (f, 0, 1);
  if (GST_CLOCK_TIME_IS_VALID (rtt)) {
    r->rtt_s = (gdouble) rtt / GST_SECOND;
    f = rc_rls_push (&r->rtt, r->rtt_s);
    r->rtt_hat_s = MAX (f, 0);
  }
  d = r->rtt_hat_s > 0 ? r->rtt_hat_s : DEFAULT_RTT_S;
  r->now = state_of (c, r->p);
  r->forecast = state_of (c, r->p_hat);
  /* Ours: the forecast loss made up for is at most p_high. Beyond it the
   * forecast is Congested, and sending more adds to the congestion; in the
   * Unloaded row's Congested cell, min(lambda-hat_n, rho + delta_inc), a
   * forecast of 0.9 after a clean period asked for 10x what arrived. */
  r->desired = recv_bps / MAX (1 - MIN (r->p_hat, c->p_high), 0.01);
  desired_max = DESIRED_MAX_FACTOR * r->desired;
  /* one packet per RTT, as a rate */
  per_packet = c->packet_bytes * 8.0 / d;

  switch (r->now) {
    case RC_R3CP_UNLOADED:
      if (r->forecast == RC_R3CP_UNLOADED)
        rho = MIN (desired_max, rho + c->inc_big * per_packet);
      else if (r->forecast == RC_R3CP_LOADED)
        rho = MIN (desired_max, rho + c->inc_small * per_packet);
      else
        rho = MIN (r->desired, rho + c->inc_small * per_packet);
      break;
    case RC_R3CP_LOADED:
      rho = MIN (r->desired, rho);
      break;
    case RC_R3CP_CONGESTED:
      rho = MIN (r->desired * (r->forecast == RC_R3CP_CONGESTED ?
              c->dec_strong : c->dec_mild), rho);
      break;
  }
  r->rho = CLAMP (rho, (gdouble) c->min_bps, (gdouble) c->max_bps);
  r->periods++;
  return r->rho;
}

GstClockTime
rc_r3cp_recv_period_length (RcR3cpRecv * r, GstClockTime floor)
{
  gdouble d = r->rtt_hat_s > 0 ? r->rtt_hat_s : DEFAULT_RTT_S;

  return MAX ((GstClockTime) (d * GST_SECOND), floor);
}

/* ------------------------------------------------------------ sender */

extern const RcControllerInfo rc_r3cp_info;

/* RRs without a TMMBR before the fallback is announced. */
#define PROBLEM_AFTER 3

typedef struct
{
  RcController parent;
  gdouble rate;
  guint64 tmmbr_seen, rr_seen;
  /* fallback: the receiver's Table 1 run here on the RRs */
  RcR3cpRecv fallback;
  guint64 sent_bytes;
  GstClockTime last_rr;
  const gchar *reason;
} R3cp;

static void
r3cp_on_packet_sent (RcController * c, guint64 index, guint size,
    gboolean is_fec, GstClockTime now)
{
  ((R3cp *) c)->sent_bytes += size;
}

static void
r3cp_on_feedback (RcController * c, const RcFeedback * fb, GstClockTime now)
{
  R3cp *r = (R3cp *) c;
  const RcReportBlock *rr = NULL;
  gboolean request = FALSE;
  guint i;

  for (i = 0; i < fb->n_reports; i++) {
    const RcReportBlock *b = &fb->reports[i];
    if (b->kind == RC_REPORT_TMMBR) {
      /* RFC 5104 sec. 4.2.1: the most recent request (the bounding set of
       * one receiver is its latest) */
      r->rate = CLAMP ((gdouble) b->tmmb.bitrate,
          (gdouble) c->limits.min_bps, (gdouble) c->limits.max_bps);
      r->tmmbr_seen++;
      request = TRUE;
      r->reason = "following the receiver's request (TMMBR)";
    } else if (b->kind == RC_REPORT_RR) {
      rr = b;
    }
  }
  if (!rr || !GST_CLOCK_TIME_IS_VALID (now))
    return;
  r->rr_seen++;
  if (!request && r->tmmbr_seen == 0 && GST_CLOCK_TIME_IS_VALID (r->last_rr)
      && now > r->last_rr) {
    /* a stock receiver: Table 1 here, on the RR's fraction lost and what
     * was sent meanwhile less it */
    gdouble dt = (gdouble) (now - r->last_rr) / GST_SECOND;
    gdouble recv = r->sent_bytes * 8.0 / dt * (1 - rr->rr.fraction_lost);
    r->fallback.cfg.min_bps = c->limits.min_bps;
    r->fallback.cfg.max_bps = c->limits.max_bps;
    r->fallback.rho = r->rate;
    r->rate = rc_r3cp_recv_period (&r->fallback, rr->rr.fraction_lost, recv,
        rr->rr.rtt);
    r->reason = "no TMMBR from the receiver: Table 1 on RTCP receiver "
        "reports";
  }
  r->sent_bytes = 0;
  r->last_rr = now;
}

static void
r3cp_limit_rate (RcController * c, guint64 bps, GstClockTime now)
{
  R3cp *r = (R3cp *) c;

  r->rate = MIN (r->rate, (gdouble) bps);
}

static RcDecision
r3cp_get_decision (RcController * c)
{
  R3cp *r = (R3cp *) c;
  RcDecision d = { 0 };

  d.media_bps = (guint64) r->rate;
  /* Sec. 3: selective transmission when the requested rate is below the
   * desired one. The desired rate of a live stream is what its encoder
   * produces (the receiver's lambda-hat_n is what it receives of that):
   * capping what is sent at the request drops frames exactly when the
   * encoder's output runs above it. Only a receiver's request caps; the
   * sender's own Table 1 on receiver reports does not. */
  d.send_cap_bps = r->tmmbr_seen ? (guint64) r->rate : 0;
  d.phase = r->tmmbr_seen ? "requested" : r->rr_seen > 1 ? "fallback" :
      "start";
  d.reason = r->reason;
  return d;
}

static const gchar *
r3cp_feedback_problem (RcController * c)
{
  R3cp *r = (R3cp *) c;

  if (r->rr_seen >= PROBLEM_AFTER && r->tmmbr_seen == 0)
    return "r3cp: the receiver sends no rate requests (TMMBR); R3CP+ runs "
        "its Table 1 at the sender on RTCP receiver reports instead, "
        "without the receiver's forecasts of loss and RTT";
  return NULL;
}

static GstStructure *
r3cp_get_stats (RcController * c)
{
  R3cp *r = (R3cp *) c;

  return gst_structure_new ("r3cp-stats",
      "requests", G_TYPE_UINT64, r->tmmbr_seen,
      "receiver-reports", G_TYPE_UINT64, r->rr_seen,
      "fallback-state", G_TYPE_STRING, rc_r3cp_state_name (r->fallback.now),
      NULL);
}

static void
r3cp_free (RcController * c)
{
  g_free (c);
}

static const RcControllerClass r3cp_class = {
  r3cp_free,
  r3cp_on_feedback,
  r3cp_on_packet_sent,
  NULL,
  r3cp_limit_rate,
  r3cp_get_decision,
  r3cp_get_stats,
  NULL,
  r3cp_feedback_problem,
  TRUE,                         /* reports_always: requests ride in RTCP */
};

static RcController *
r3cp_create (const RcRateLimits * limits, const GstStructure * params)
{
  R3cp *r = g_new0 (R3cp, 1);
  RcR3cpConfig cfg;

  r->parent.klass = &r3cp_class;
  r->rate = (gdouble) limits->start_bps;
  r->last_rr = GST_CLOCK_TIME_NONE;
  r->reason = "the start rate, until the receiver asks";
  rc_r3cp_config_init (&cfg);
  cfg.min_bps = limits->min_bps;
  cfg.start_bps = limits->start_bps;
  cfg.max_bps = limits->max_bps;
  rc_r3cp_recv_init (&r->fallback, &cfg);
  return &r->parent;
}

const RcControllerInfo rc_r3cp_info = {
  "r3cp",
  "R3CP+: the receiver forecasts loss and RTT and asks for a rate (needs "
      "rcreceiver at the receiver)",
  NULL,
  r3cp_create,
  TRUE,
  TRUE,
};
