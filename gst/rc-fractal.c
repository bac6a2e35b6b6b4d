/* FRACTaL: FEC-based rate control (seed 002: Kreith, Singh, Ott, "FRACTaL:
 * FEC-based Rate Control for RTP", ACM MM 2017), core.
 *
 * The media rate R_snd is held while FEC (repair packets at a chosen rate)
 * probes the path; when the probe passed, R_snd grows by the FEC rate.
 * Congestion cues (sec. 3.1) per feedback report: the one-way delay and
 * the fractional loss of the report against thresholds from 30 s windows
 * (Eq. 1, Eq. 2), and bytes in flight against their 5 s 80th percentile
 * (the extra queued data EQD, for reductions and the pacing window). The
 * state machine is Algorithms 1-4 (KEEP, PROBE, INCREASE, REDUCE; Figure
 * 3).
 *
 * What the paper reads from RTCP (RR, XR OWD, XR discards) comes here from
 * transport-wide feedback: each feedback message is one report. Its OWD is
 * the median of its packets' relative one-way delays (rc-owd: OWD minus
 * the lowest seen, robust to clock offset and drift, as the paper's Sync &
 * Sense is); its fractional loss is that of its media packets after repair
 * (see close_group; repair packets are left out); bytes in flight are the
 * bytes sent after the newest packet it acknowledges. RTCP receiver reports alone do not drive FRACTaL.
 *
 * Where the paper is silent or ambiguous (numbered as in the notes of
 * docs/fractal.md), what we do is said beside the code. */
#include <math.h>
#include <string.h>
#include "rc-controller.h"
#include "rc-owd.h"
#include "rc-window.h"

GST_DEBUG_CATEGORY_STATIC (rc_fractal_debug);
#define GST_CAT_DEFAULT rc_fractal_debug

/* sec. 3.1, "Sliding window and aggregate metrics" */
#define OWD_FL_SPAN (30 * GST_SECOND)
#define BIF_SPAN (5 * GST_SECOND)
/* sec. 3.1: samples are admitted whatever they are while a window holds
 * fewer than this ("e.g., <10"); we also take no congestion decision on
 * fewer (Q8). */
#define MIN_SAMPLES 10
/* A sample every 20 ms for 30 s; beyond, the oldest go first. */
#define MAX_SAMPLES 1500
/* A fractional-loss sample covers at least this many media packets, over
 * as many reports as it takes (Q13): the paper's RR interval loss covers
 * a report interval's worth, while one transport-wide feedback message at
 * low rates holds one or two packets, whose loss would read as 50-100 %. */
#define FL_MIN_PACKETS 10
/* No repair group is longer (fecenc's rows are at most 100 packets;
 * FEC_int is at most 100). */
#define MAX_GROUP 128
/* sec. 4: no report for max(500 ms, 3 RTT) -> KEEP. Nor for three mean
 * report intervals (a deviation): a stock rtpbin receiver sends transport-
 * wide feedback with its RTCP, whose interval grows as the rate falls
 * (RFC 3550 sec. 6.2: 5 % of the session bandwidth), and at 50 kbit/s
 * over ratecontrolrecv reports came 0.9-1.3 s apart. Every gap between
 * two reports then read as lost feedback and ended every FEC probe, and
 * the rate stayed at min-bitrate (0 increases in 15 s, 2 runs of 2). A
 * single gap counts at most NO_FEEDBACK_IVAL_MAX in the mean, so an
 * outage does not blind the rule for long. */
#define NO_FEEDBACK_MIN (500 * GST_MSECOND)
#define NO_FEEDBACK_INTERVALS 3
#define NO_FEEDBACK_IVAL_MAX (2 * GST_SECOND)
/* Algorithm 4: heavy congestion below half R_snd; the capacity estimate
 * blends the receive rate and R_snd over 1 s; reductions take 90 %. */
#define HEAVY_FRACTION 0.5
#define BLEND_TIME (1 * GST_SECOND)
#define REDUCE_FACTOR 0.9
/* Algorithm 1: R_snd follows the OWD trend by at most 1 % per report. */
#define KEEP_CORR_MIN 0.99
#define KEEP_CORR_MAX 1.01
/* The OWD in the log ratio of Algorithm 1, in ms, plus this: relative
 * OWDs start at 0 and log10 needs values above 1 (Q12). */
#define LOG_OFFSET_MS 10.0
/* sec. 4 "Pacing": cwnd = 1.2 x BiF 80th percentile */
#define CWND_FACTOR 1.2
/* Sent packets kept for bytes in flight at most this long. */
#define SENT_KEEP (10 * GST_SECOND)
/* The receive rate (Algorithm 4) over the last: */
#define RECV_SPAN (500 * GST_MSECOND)

/* RFC 7509 reports stand in for the sender's own repair estimate while the
 * newest is at most this old (RTCP reports come every 5 s by default,
 * RFC 3550 sec. 6.2, so two intervals). */
#define POST_REPAIR_FRESH (10 * GST_SECOND)

#define DEFAULT_EPSILON 0.25
#define DEFAULT_FEC_INTERVAL_MIN 4.0
#define DEFAULT_FEC_INTERVAL_MAX 14.0
#define DEFAULT_OWD_THRESHOLD_MIN (30 * GST_MSECOND)
#define DEFAULT_LOSS_THRESHOLD_MAX 0.05

typedef enum
{
  KEEP,
  PROBE,
  INCREASE,
  REDUCE,
} State;

static const gchar *const state_names[] = { "keep", "probe", "increase",
  "reduce"
};

/* A time window of samples with percentiles and a standard deviation. */
typedef struct
{
  GstClockTime ts;
  gdouble v;
} Sample;

typedef struct
{
  GstClockTime span;
  GArray *s;                    /* Sample, oldest first */
  GArray *sorted;               /* scratch */
} PctWindow;

typedef struct
{
  RcController parent;

  /* parameters */
  gdouble epsilon, fec_int_min, fec_int_max, loss_thr_max;
  GstClockTime owd_thr_min;

  State state;
  gboolean congested_flag;      /* Algorithm 1's `congested` */
  gboolean fec_on;
  gboolean capped;
  gdouble rate;                 /* R_snd, bit/s */
  gdouble fec_rate;             /* while fec_on */
  gdouble c_est;                /* capacity estimate, bit/s; 0: none yet */
  GstClockTime t_cong, t_settled, t_fec, t_incr, last_report;
  GstClockTime report_ival;     /* mean time between reports; 0: none */
  GstClockTime srtt, rtt_min;
  const gchar *reason;

  /* cues */
  RcOwd owd;
  PctWindow owd_w, fl_w, bif_w;
  GArray *deltas;               /* scratch: one report's OWDs, s */
  GQueue sent;                  /* SentPkt not yet acknowledged */
  guint64 bif;                  /* their bytes */
  GstClockTime newest_acked;    /* send time of the newest acked packet */
  RcRateMeter recv_meter;
  GstClockTime last_recv_ts;
  guint fl_lost, fl_total;      /* media packets towards the next FL sample */
  guint grp_media, grp_lost;    /* the repair group still open */
  guint64 media_lost, repaired; /* totals, for stats */
  /* RFC 7509 post-repair loss reports, where the receiver sends them */
  guint pr_lost, pr_total;      /* towards the next FL sample */
  GstClockTime pr_seen;         /* the newest one's arrival */
  guint64 pr_reports, pr_unrepaired, pr_repaired;       /* totals */
  guint64 congested_delay, congested_loss;      /* reports, by cue */

  /* the last report, for stats */
  gdouble owd_last, fl_last, owd_thr, fl_thr, recv_bps, eqd;
  guint64 reports, probes, increases, undershoots;
} Fractal;

typedef struct
{
  GstClockTime ts;
  guint size;
} SentPkt;

extern const RcControllerInfo rc_fractal_info;

/* -------------------------------------------------------------- windows */

static void
pw_init (PctWindow * w, GstClockTime span)
{
  w->span = span;
  w->s = g_array_new (FALSE, FALSE, sizeof (Sample));
  w->sorted = g_array_new (FALSE, FALSE, sizeof (gdouble));
}

static void
pw_clear (PctWindow * w)
{
  g_array_unref (w->s);
  g_array_unref (w->sorted);
}

static void
pw_expire (PctWindow * w, GstClockTime now)
{
  guint drop = 0;

  while (drop < w->s->len && (w->s->len - drop > MAX_SAMPLES ||
          g_array_index (w->s, Sample, drop).ts + w->span < now))
    drop++;
  if (drop)
    g_array_remove_range (w->s, 0, drop);
}

static void
pw_push (PctWindow * w, GstClockTime ts, gdouble v)
{
  Sample s = { ts, v };

  g_array_append_val (w->s, s);
  pw_expire (w, ts);
}

/* Nearest-rank percentile `p` (0..100); 0 if empty. */
static gdouble
pw_percentile (PctWindow * w, gdouble p)
{
  guint i, n = w->s->len, rank;

  if (n == 0)
    return 0;
  g_array_set_size (w->sorted, n);
  for (i = 0; i < n; i++)
    g_array_index (w->sorted, gdouble, i) = g_array_index (w->s, Sample,
        i).v;
  g_array_sort (w->sorted, rc_double_cmp);
  rank = (guint) ceil (p / 100.0 * n);
  rank = CLAMP (rank, 1, n);
  return g_array_index (w->sorted, gdouble, rank - 1);
}

/* Population standard deviation (sec. 3.1 says "standard deviation"). */
static gdouble
pw_std (PctWindow * w)
{
  guint i, n = w->s->len;
  gdouble mean = 0, var = 0;

  if (n < 2)
    return 0;
  for (i = 0; i < n; i++)
    mean += g_array_index (w->s, Sample, i).v;
  mean /= n;
  for (i = 0; i < n; i++) {
    gdouble d = g_array_index (w->s, Sample, i).v - mean;
    var += d * d;
  }
  return sqrt (var / n);
}

/* ------------------------------------------------------------- helpers */

static gdouble
clamp_rate (Fractal * f, gdouble bps)
{
  return CLAMP (bps, (gdouble) f->parent.limits.min_bps,
      (gdouble) f->parent.limits.max_bps);
}

static GstClockTime
srtt_or (Fractal * f, GstClockTime fallback)
{
  return GST_CLOCK_TIME_IS_VALID (f->srtt) ? f->srtt : fallback;
}

/* sec. 4 "Scaling factors": C_est_off = min(((R_snd - C_est) / (C_est
 * eps))^2, 1), 1 far from the capacity estimate, 0 at it. Eq. 3 and
 * T_valid as printed weigh the minimum by (1 - C_off), which makes both
 * shortest at the capacity; the text says they are "larger ... when
 * operating near C_est". We follow the text: minimum weighted by C_off
 * (Q2; the authors' code does the same). No estimate yet: far (1). */
static gdouble
c_off (Fractal * f)
{
  gdouble x;

  if (f->c_est <= 0)
    return 1;
  x = (f->rate - f->c_est) / (f->c_est * f->epsilon);
  return MIN (x * x, 1.0);
}

static GstClockTime
t_valid_min (Fractal * f)
{
  return MAX (srtt_or (f, 0), 100 * GST_MSECOND);
}

static GstClockTime
t_valid (Fractal * f)
{
  GstClockTime tmax = MAX (5 * srtt_or (f, 0), 1500 * GST_MSECOND);
  gdouble off = c_off (f);

  return (GstClockTime) (off * t_valid_min (f) + (1 - off) * tmax);
}

/* Eq. 3: FEC_int, media packets per repair packet (Q4: the paper gives
 * neither its unit nor its bounds; the authors' code counts packets). */
static gdouble
fec_interval (Fractal * f)
{
  gdouble off = c_off (f);
  return off * f->fec_int_min + (1 - off) * f->fec_int_max;
}

/* sec. 4: EQD = max(BiF - BiF_80th, 0), bytes; as a rate over 1 s, bit/s
 * (Q14). */
static gdouble
eqd_bps (Fractal * f)
{
  return f->eqd * 8.0;
}

static void
set_state (Fractal * f, State s, const gchar * reason)
{
  if (f->state != s)
    GST_DEBUG ("fractal: %s -> %s (%s), R_snd %.0f, FEC %.0f",
        state_names[f->state], state_names[s], reason, f->rate,
        f->fec_on ? f->fec_rate : 0.0);
  f->state = s;
  f->reason = reason;
}

static void
start_fec (Fractal * f, GstClockTime now)
{
  gdouble room = (gdouble) f->parent.limits.max_bps - f->rate;

  f->fec_rate = MIN (f->rate / fec_interval (f), room);
  f->fec_on = f->fec_rate > 0;
  f->t_fec = now;
  if (f->fec_on)
    f->probes++;
}

static void
stop_fec (Fractal * f)
{
  f->fec_on = FALSE;
  f->fec_rate = 0;
}

/* sec. 4, from FBRA: R_snd = (C_est - 2 EQD / 1 s) x 0.9. C_est is what
 * the receiver gets now (Q6: the paper does not say which estimate the
 * states other than REDUCE use). */
static void
undershoot (Fractal * f)
{
  if (f->recv_bps > 0)
    f->c_est = f->recv_bps;
  if (f->c_est > 0)
    f->rate = clamp_rate (f, (f->c_est - 2 * eqd_bps (f)) * REDUCE_FACTOR);
  f->undershoots++;
}

/* ------------------------------------------------------- state machine */

/* Algorithm 1 */
static void
keep (Fractal * f, gboolean congested, GstClockTime now)
{
  /* Algorithm 1 waits 2 RTT after settling; the prose says T_valid. We
   * take Algorithm 1, at least T_valid_min (Q3). */
  GstClockTime settle = MAX (2 * srtt_or (f, 0), t_valid_min (f));

  if (congested) {
    if (f->congested_flag) {
      undershoot (f);
      f->congested_flag = FALSE;        /* Q5: cleared on the way out */
      f->t_cong = now;
      set_state (f, REDUCE, "congestion in two reports in a row: "
          "backing off below the receive rate");
    } else {
      f->t_cong = now;
      f->congested_flag = TRUE;
      f->reason = "a hint of congestion: waiting for the next report";
    }
  } else if (f->congested_flag) {
    f->congested_flag = FALSE;
    f->t_settled = now;
    set_state (f, REDUCE, "congestion hinted once: checking");
  } else if (now < f->t_settled + settle) {
    gdouble med = pw_percentile (&f->owd_w, 50) * 1000 + LOG_OFFSET_MS;
    gdouble last = f->owd_last * 1000 + LOG_OFFSET_MS;
    gdouble corr = log10 (med) / log10 (last);

    f->rate = clamp_rate (f, f->rate * CLAMP (corr, KEEP_CORR_MIN,
            KEEP_CORR_MAX));
    f->reason = "settling: following the delay trend";
  } else if (f->rate >= f->parent.limits.max_bps) {
    f->reason = "at max-bitrate";
  } else {
    start_fec (f, now);
    set_state (f, PROBE, "probing the path with FEC");
  }
}

/* Algorithms 2 and 3 on congestion: FEC off, undershoot, REDUCE. */
static void
back_off (Fractal * f, GstClockTime now, const gchar * reason)
{
  stop_fec (f);
  undershoot (f);
  f->t_cong = now;
  set_state (f, REDUCE, reason);
}

/* Algorithm 2 */
static void
probe (Fractal * f, gboolean congested, GstClockTime now)
{
  if (congested) {
    back_off (f, now, "the FEC probe met congestion: backing off");
  } else if (now > f->t_fec + t_valid_min (f)) {
    /* The probe passed: the FEC rate becomes media rate; FEC goes on, and
     * the sum is validated in INCREASE (sec. 4). */
    f->rate = clamp_rate (f, f->rate + f->fec_rate);
    f->t_incr = now;
    f->increases++;
    set_state (f, INCREASE, "the FEC probe passed: media rate raised by it");
  }
}

/* Algorithm 3 */
static void
increase (Fractal * f, gboolean congested, GstClockTime now)
{
  if (congested) {
    back_off (f, now, "the raised rate met congestion: backing off");
  } else if (now > f->t_incr + t_valid (f)) {
    start_fec (f, now);
    set_state (f, PROBE, "the raised rate holds: probing further");
  }
}

/* Algorithm 4 */
static void
reduce (Fractal * f, gboolean congested, GstClockTime now)
{
  if (f->recv_bps > 0 && f->recv_bps < HEAVY_FRACTION * f->rate) {
    undershoot (f);
    f->t_cong = now;
    f->reason = "heavy congestion: the receiver gets under half the rate";
  } else if (congested) {
    if (!GST_CLOCK_TIME_IS_VALID (f->t_cong) || f->t_cong + BLEND_TIME < now) {
      f->c_est = f->recv_bps;
    } else {
      gdouble off = (gdouble) (now - f->t_cong) / BLEND_TIME;
      f->c_est = f->recv_bps * off + f->rate * (1 - off);
    }
    if (f->c_est > 0)
      f->rate = clamp_rate (f, (f->c_est - eqd_bps (f)) * REDUCE_FACTOR);
    f->reason = "congestion: following the receive rate";
  } else {
    f->t_settled = now;
    set_state (f, KEEP, "congestion over: keeping the rate");
  }
}

/* ------------------------------------------------------------ feedback */

static void acked_until (Fractal * f, GstClockTime t);

static void
fractal_on_packet_sent (RcController * c, guint64 index, guint size,
    gboolean is_fec, GstClockTime now)
{
  Fractal *f = (Fractal *) c;
  SentPkt *p = g_new (SentPkt, 1);

  p->ts = now;
  p->size = size;
  g_queue_push_tail (&f->sent, p);
  f->bif += size;
  /* Without per-packet feedback nothing acknowledges: keep 10 s. */
  if (now > SENT_KEEP)
    acked_until (f, now - SENT_KEEP);
}

/* Drops the packets sent at or before `t` from the bytes in flight. */
static void
acked_until (Fractal * f, GstClockTime t)
{
  SentPkt *p;

  while ((p = g_queue_peek_head (&f->sent)) && p->ts <= t) {
    f->bif -= p->size;
    g_free (g_queue_pop_head (&f->sent));
  }
}

/* The fractional loss of Eq. 2 is taken after repair (a deviation: the
 * paper's RR loss is before it). A loss the repair packets rebuilt cost
 * the receiver nothing and says the probe worked; counting it as
 * congestion undershoots in the middle of a probe that passed. Measured in
 * rcsim it changes little (docs/fractal.md). A repair packet is taken to
 * protect the media packets sent since the one before it (fecenc's row
 * groups, its default), and to rebuild one lost packet of them if it
 * arrived itself, as XOR parity does; transport-wide results come in
 * sending order. `repair_arrived`: the group is closed by a repair packet
 * that arrived. */
static void
close_group (Fractal * f, gboolean repair_arrived, guint * media,
    guint * lost)
{
  guint unrepaired = f->grp_lost;

  if (repair_arrived && f->grp_lost == 1) {
    unrepaired = 0;
    f->repaired++;
  }
  f->media_lost += f->grp_lost;
  *media += f->grp_media;
  *lost += unrepaired;
  f->grp_media = f->grp_lost = 0;
}

/* RFC 7509 post-repair loss (XR BT 33), from a receiver that sends it:
 * what it lost and did not rebuild, over an interval of our sequence
 * numbers. Where such reports come, they are the loss of Eq. 2 (taken
 * after repair, see close_group), and the sender's own estimate from the
 * repair groups stands down (fractal_on_feedback): the receiver knows what
 * it rebuilt, whatever the FEC layout. A block claiming more unrepaired
 * packets than its interval holds is ignored. */
static void
post_repair_reports (Fractal * f, const RcFeedback * fb, GstClockTime now)
{
  guint i;

  for (i = 0; i < fb->n_reports; i++) {
    const RcReportBlock *b = &fb->reports[i];
    guint16 n;

    if (b->kind != RC_REPORT_POST_REPAIR)
      continue;
    n = b->post_repair.end_seq - b->post_repair.begin_seq;
    if (n == 0 || b->post_repair.unrepaired > n ||
        b->post_repair.repaired > n - b->post_repair.unrepaired)
      continue;
    f->pr_lost += b->post_repair.unrepaired;
    f->pr_total += n;
    f->pr_seen = now;
    f->pr_reports++;
    f->pr_unrepaired += b->post_repair.unrepaired;
    f->pr_repaired += b->post_repair.repaired;
  }
}

static void
fractal_on_feedback (RcController * c, const RcFeedback * fb,
    GstClockTime now)
{
  Fractal *f = (Fractal *) c;
  GstClockTime newest = GST_CLOCK_TIME_NONE;
  guint i, media_lost = 0, media = 0;
  gboolean congested = FALSE, have_owd, have_fl;
  gdouble owd_t = 0, fl_t = 0;

  post_repair_reports (f, fb, now);
  if (fb->n_packets == 0)
    return;                     /* receiver reports: not FRACTaL's cue */
  g_array_set_size (f->deltas, 0);
  for (i = 0; i < fb->n_packets; i++) {
    const RcPacketResult *r = &fb->packets[i];
    /* Loss after repair (deviation, see close_group): a media packet
     * counts once its repair group is closed. */
    if (!r->is_fec) {
      f->grp_media++;
      if (r->lost)
        f->grp_lost++;
      /* Twice the group asked for and no repair packet: none is coming
       * (nothing upstream makes them, or it was lost in a way feedback
       * does not show). */
      if (f->grp_media >= MIN (MAX_GROUP, 2 * fec_interval (f) + 2))
        close_group (f, FALSE, &media, &media_lost);
    } else {
      close_group (f, !r->lost, &media, &media_lost);
    }
    if (r->lost || !GST_CLOCK_TIME_IS_VALID (r->send_ts) ||
        !GST_CLOCK_TIME_IS_VALID (r->recv_ts))
      continue;
    if (!GST_CLOCK_TIME_IS_VALID (newest) || r->send_ts > newest)
      newest = r->send_ts;
    rc_rate_meter_add (&f->recv_meter, r->recv_ts, r->size);
    if (!GST_CLOCK_TIME_IS_VALID (f->last_recv_ts) ||
        r->recv_ts > f->last_recv_ts)
      f->last_recv_ts = r->recv_ts;
    {
      gdouble d;
      if (rc_owd_sample (&f->owd, r->send_ts, r->recv_ts, r->size, &d) ==
          RC_OWD_RESET) {
        /* The receiver's clock jumped: old delays mean nothing. */
        g_array_set_size (f->owd_w.s, 0);
      }
      g_array_append_val (f->deltas, d);
    }
  }
  if (GST_CLOCK_TIME_IS_VALID (newest)) {
    GstClockTime rtt;
    acked_until (f, newest);
    if (newest > f->newest_acked || !GST_CLOCK_TIME_IS_VALID (f->newest_acked))
      f->newest_acked = newest;
    /* RTT as the sender sees it: feedback arrival minus the newest
     * acknowledged packet's send time (includes the receiver's hold). */
    rtt = now > newest ? now - newest : 0;
    f->srtt = GST_CLOCK_TIME_IS_VALID (f->srtt) ? (7 * f->srtt + rtt) / 8 :
        rtt;
    if (!GST_CLOCK_TIME_IS_VALID (f->rtt_min) || rtt < f->rtt_min)
      f->rtt_min = rtt;
  }
  if (GST_CLOCK_TIME_IS_VALID (f->last_report) && now > f->last_report) {
    GstClockTime ival = MIN (now - f->last_report, NO_FEEDBACK_IVAL_MAX);
    f->report_ival = f->report_ival ? (7 * f->report_ival + ival) / 8 : ival;
  }
  f->last_report = now;
  f->reports++;
  if (GST_CLOCK_TIME_IS_VALID (f->last_recv_ts))
    f->recv_bps = rc_rate_meter_bps (&f->recv_meter, f->last_recv_ts);
  if (!GST_CLOCK_TIME_IS_VALID (f->t_settled))
    f->t_settled = now;

  have_owd = f->deltas->len > 0;
  if (have_owd) {
    g_array_sort (f->deltas, rc_double_cmp);
    owd_t = g_array_index (f->deltas, gdouble, f->deltas->len / 2);
    f->owd_last = owd_t;
  }
  /* Without FEC running no repair packet will close the group. */
  if (!f->fec_on)
    close_group (f, FALSE, &media, &media_lost);
  if (GST_CLOCK_TIME_IS_VALID (f->pr_seen) && now < f->pr_seen +
      POST_REPAIR_FRESH) {
    f->fl_lost += f->pr_lost;
    f->fl_total += f->pr_total;
  } else {
    f->fl_lost += media_lost;
    f->fl_total += media;
  }
  f->pr_lost = f->pr_total = 0;
  have_fl = f->fl_total >= FL_MIN_PACKETS;
  if (have_fl) {
    fl_t = (gdouble) f->fl_lost / f->fl_total;
    f->fl_last = fl_t;
    f->fl_lost = f->fl_total = 0;
  }

  /* Eq. 1 and Eq. 2 on the windows before this report, then the report
   * against them (sec. 3.1). */
  pw_expire (&f->owd_w, now);
  pw_expire (&f->fl_w, now);
  pw_expire (&f->bif_w, now);
  f->owd_thr = pw_percentile (&f->owd_w, 50) + MAX (2 * pw_std (&f->owd_w),
      (gdouble) f->owd_thr_min / GST_SECOND);
  f->fl_thr = MIN (pw_percentile (&f->fl_w, 10) + 2 * pw_std (&f->fl_w),
      f->loss_thr_max);
  if (f->owd_w.s->len >= MIN_SAMPLES && have_owd && owd_t > f->owd_thr) {
    congested = TRUE;
    f->congested_delay++;
  }
  if (f->fl_w.s->len >= MIN_SAMPLES && have_fl && fl_t > f->fl_thr) {
    congested = TRUE;
    f->congested_loss++;
  }

  /* sec. 3.1: admitted unless an outlier, or while the window is short.
   * The paper does not define an outlier (Q1): we take a sample beyond
   * its threshold. Under lasting congestion the window ages down to fewer
   * than MIN_SAMPLES and the new level is admitted, as the paper wants
   * ("what were outliers before turn into regular observations"). */
  if (have_owd && (f->owd_w.s->len < MIN_SAMPLES || owd_t <= f->owd_thr))
    pw_push (&f->owd_w, now, owd_t);
  if (have_fl && (f->fl_w.s->len < MIN_SAMPLES || fl_t <= f->fl_thr))
    pw_push (&f->fl_w, now, fl_t);
  pw_push (&f->bif_w, now, (gdouble) f->bif);
  f->eqd = MAX ((gdouble) f->bif - pw_percentile (&f->bif_w, 80), 0.0);

  /* While the session caps the rate (missing feedback, circuit breaker),
   * the receive rate says nothing about the path. */
  if (f->capped)
    return;
  switch (f->state) {
    case KEEP:
      keep (f, congested, now);
      break;
    case PROBE:
      probe (f, congested, now);
      break;
    case INCREASE:
      increase (f, congested, now);
      break;
    case REDUCE:
      reduce (f, congested, now);
      break;
  }
}

/* sec. 4: no report for max(500 ms, 3 RTT), or three report intervals
 * (see NO_FEEDBACK_MIN): assume congestion, KEEP. The paper does not say
 * what happens to the rate (Q9): FEC stops and the rate stays; the sender
 * session holds and backs off the rate on its own when feedback stays
 * away. */
static void
fractal_on_tick (RcController * c, GstClockTime now)
{
  Fractal *f = (Fractal *) c;
  GstClockTime limit = MAX (MAX (NO_FEEDBACK_MIN, 3 * srtt_or (f, 0)),
      NO_FEEDBACK_INTERVALS * f->report_ival);

  if (!GST_CLOCK_TIME_IS_VALID (f->last_report) ||
      now <= f->last_report + limit)
    return;
  if (f->state != KEEP || f->fec_on) {
    stop_fec (f);
    f->congested_flag = FALSE;
    f->t_settled = now;
    set_state (f, KEEP, "no feedback: keeping the rate");
  }
}

static void
fractal_limit_rate (RcController * c, guint64 bps, GstClockTime now)
{
  Fractal *f = (Fractal *) c;

  f->rate = clamp_rate (f, MIN (f->rate, (gdouble) bps));
  stop_fec (f);
  f->congested_flag = FALSE;
  f->t_settled = now;
  set_state (f, KEEP, "limited by the sender session");
}

static void
fractal_set_capped (RcController * c, gboolean capped, GstClockTime now)
{
  Fractal *f = (Fractal *) c;

  f->capped = capped;
  if (capped)
    stop_fec (f);
  else
    f->t_settled = now;
}

static RcDecision
fractal_get_decision (RcController * c)
{
  Fractal *f = (Fractal *) c;
  RcDecision d = { 0 };
  gdouble total;

  d.media_bps = (guint64) f->rate;
  d.fec_bps = f->fec_on ? (guint64) f->fec_rate : 0;
  total = (gdouble) (d.media_bps + d.fec_bps);
  /* sec. 4 "Pacing": cwnd = 1.2 x BiF 80th percentile, drained over the
   * RTT (Q7: the paper does not say how the pacer uses it). Never below
   * the rate asked for, never above three times it. */
  if (GST_CLOCK_TIME_IS_VALID (f->srtt) && f->srtt > 0 &&
      f->bif_w.s->len >= MIN_SAMPLES) {
    gdouble cwnd = CWND_FACTOR * pw_percentile (&f->bif_w, 80);
    gdouble pace = cwnd * 8.0 * GST_SECOND / f->srtt;
    d.pacing_bps = (guint64) CLAMP (pace, total, 3 * total);
  }
  d.phase = state_names[f->state];
  d.reason = f->reason;
  return d;
}

static GstStructure *
fractal_get_stats (RcController * c)
{
  Fractal *f = (Fractal *) c;

  return gst_structure_new ("fractal-stats",
      "capacity-estimate", G_TYPE_UINT, rc_stats_bps (f->c_est),
      "receive-bitrate", G_TYPE_UINT, rc_stats_bps (f->recv_bps),
      "fec-probe-bitrate", G_TYPE_UINT, rc_stats_bps (f->fec_on ?
          f->fec_rate : 0),
      "fec-interval", G_TYPE_DOUBLE, fec_interval (f),
      "validation-time", G_TYPE_UINT64, (guint64) t_valid (f),
      "owd", G_TYPE_UINT64, rc_stats_time (f->owd_last),
      "owd-threshold", G_TYPE_UINT64, rc_stats_time (f->owd_thr),
      "loss", G_TYPE_DOUBLE, f->fl_last,
      "loss-threshold", G_TYPE_DOUBLE, f->fl_thr,
      "bytes-in-flight", G_TYPE_UINT64, f->bif,
      "extra-queued-bytes", G_TYPE_UINT64, (guint64) f->eqd,
      "rtt", G_TYPE_UINT64, (guint64) f->srtt,
      "rtt-min", G_TYPE_UINT64, (guint64) f->rtt_min,
      "reports", G_TYPE_UINT64, f->reports,
      "probes", G_TYPE_UINT64, f->probes,
      "increases", G_TYPE_UINT64, f->increases,
      "undershoots", G_TYPE_UINT64, f->undershoots,
      "congested-by-delay", G_TYPE_UINT64, f->congested_delay,
      "congested-by-loss", G_TYPE_UINT64, f->congested_loss,
      "media-lost", G_TYPE_UINT64, f->media_lost,
      "repaired", G_TYPE_UINT64, f->repaired,
      /* the FEC recovery efficiency, in packets (the paper's FFRE, from
       * FBRA, counts frames): repaired / lost, 0 before any loss */
      "fec-recovery", G_TYPE_DOUBLE, f->media_lost ?
      (gdouble) f->repaired / f->media_lost : 0.0,
      "post-repair-reports", G_TYPE_UINT64, f->pr_reports,
      "post-repair-unrepaired", G_TYPE_UINT64, f->pr_unrepaired,
      "post-repair-repaired", G_TYPE_UINT64, f->pr_repaired, NULL);
}

static void
fractal_free (RcController * c)
{
  Fractal *f = (Fractal *) c;

  pw_clear (&f->owd_w);
  pw_clear (&f->fl_w);
  pw_clear (&f->bif_w);
  g_array_unref (f->deltas);
  g_queue_clear_full (&f->sent, g_free);
  rc_rate_meter_clear (&f->recv_meter);
  g_free (f);
}

static const RcControllerClass fractal_class = {
  fractal_free,
  fractal_on_feedback,
  fractal_on_packet_sent,
  fractal_on_tick,
  fractal_limit_rate,
  fractal_get_decision,
  fractal_get_stats,
  fractal_set_capped,
};

/* ----------------------------------------------------------- registry */

static GParamSpec **
fractal_params (guint * n)
{
  static GParamSpec *specs[5];

  if (g_once_init_enter (&specs[4])) {
    GParamFlags fl = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
    specs[0] = g_param_spec_ref_sink (g_param_spec_double ("epsilon",
            "Epsilon", "How close to the capacity estimate, as a fraction of "
            "it, probing becomes slow and careful (smaller FEC steps, "
            "longer validation)", 0.01, 1.0, DEFAULT_EPSILON, fl));
    specs[1] = g_param_spec_ref_sink (g_param_spec_double
        ("fec-interval-min", "FEC interval far from capacity",
            "Media packets per repair packet when probing far below the "
            "capacity estimate: the largest probe step", 1.0, 100.0,
            DEFAULT_FEC_INTERVAL_MIN, fl));
    specs[2] = g_param_spec_ref_sink (g_param_spec_double
        ("fec-interval-max", "FEC interval at capacity",
            "Media packets per repair packet when probing at the capacity "
            "estimate: the smallest probe step", 1.0, 100.0,
            DEFAULT_FEC_INTERVAL_MAX, fl));
    specs[3] = g_param_spec_ref_sink (g_param_spec_double
        ("loss-threshold-max", "Loss threshold cap",
            "Loss (0..1, before repair) above which a report always counts "
            "as congested, however lossy the path usually is", 0.0, 1.0,
            DEFAULT_LOSS_THRESHOLD_MAX, fl));
    g_once_init_leave (&specs[4], g_param_spec_ref_sink (g_param_spec_uint64
            ("owd-threshold-min", "Delay threshold floor",
                "Least one-way delay above its usual level (ns) that counts "
                "as congestion, however steady the delay usually is", 0,
                10 * GST_SECOND, DEFAULT_OWD_THRESHOLD_MIN, fl)));
  }
  *n = G_N_ELEMENTS (specs);
  return specs;
}

static RcController *
fractal_create (const RcRateLimits * limits, const GstStructure * params)
{
  Fractal *f = g_new0 (Fractal, 1);
  guint64 owd_min = DEFAULT_OWD_THRESHOLD_MIN;

  if (!rc_fractal_debug)
    GST_DEBUG_CATEGORY_INIT (rc_fractal_debug, "rcfractal", 0,
        "FRACTaL rate controller");
  f->parent.klass = &fractal_class;
  f->epsilon = rc_controller_param_double (&rc_fractal_info, params,
      "epsilon");
  f->fec_int_min = rc_controller_param_double (&rc_fractal_info, params,
      "fec-interval-min");
  f->fec_int_max = rc_controller_param_double (&rc_fractal_info, params,
      "fec-interval-max");
  f->loss_thr_max = rc_controller_param_double (&rc_fractal_info, params,
      "loss-threshold-max");
  if (params)
    gst_structure_get_uint64 (params, "owd-threshold-min", &owd_min);
  f->owd_thr_min = owd_min;
  /* Q8: the paper gives no initial state or rate: KEEP at the start
   * rate. */
  f->state = KEEP;
  f->reason = "start: keeping the start rate until feedback settles";
  f->rate = (gdouble) limits->start_bps;
  f->t_cong = f->t_settled = f->t_fec = f->t_incr = f->last_report =
      GST_CLOCK_TIME_NONE;
  f->srtt = f->rtt_min = f->newest_acked = f->last_recv_ts = f->pr_seen =
      GST_CLOCK_TIME_NONE;
  rc_owd_init (&f->owd);
  pw_init (&f->owd_w, OWD_FL_SPAN);
  pw_init (&f->fl_w, OWD_FL_SPAN);
  pw_init (&f->bif_w, BIF_SPAN);
  f->deltas = g_array_new (FALSE, FALSE, sizeof (gdouble));
  g_queue_init (&f->sent);
  rc_rate_meter_init (&f->recv_meter, RECV_SPAN);
  return &f->parent;
}

const RcControllerInfo rc_fractal_info = {
  "fractal",
  "FRACTaL: probes the path with FEC and raises the rate by what passed",
  fractal_params,
  fractal_create,
};
