/* vtum: utility-maximization rate control with a variable, learned
 * congestion threshold (seed 001, sec. V), core.
 *
 * The paper (sec. V-A):
 *   rate:       dR = alpha_d        if d < d^          (AIMD)       eq. 2
 *               dR = -beta_d R      if d > d^
 *   increase:   alpha_d = a_max + (a_min - a_max) d / d^            eq. 3
 *   decrease:   beta_d = min (b_max,
 *                   b_min + (b_max - b_min) (d - d^) / (d_max - d^)) eq. 4
 * with d the observed queueing delay and d^ the operating congestion
 * point, chosen "just slightly larger than d_T", where d_T keeps the
 * delays of the congestion-free set (delays "obtained when transmitting at
 * rates which are known to be not congested, for example very low rates")
 * from being classified as congestion. Then the delay settles near the
 * link's own noise, not where a fixed k0 puts it (eq. 1, the UM baseline).
 *
 * What the paper leaves open, and what we chose:
 * - The congestion-free set is the start-up's low-rate phase (shared with
 *   URCP and UM, rc-urcp-startup.c): every packet sent at the start rate
 *   for at least `learning-time`, its delay above the lowest of them. The
 *   low phase already checks that the path carries that rate and starts
 *   over lower if not, so the set is congestion-free by the paper's own
 *   definition. The set is learned once: the paper says d^ is learned per
 *   network, not how to relearn it while a flow fills the link (see
 *   docs/vtum.md).
 * - d_T is the set's `noise-percentile` quantile (95 %): the paper picks
 *   d_T to "minimize the misclassification" of the congestion-free set
 *   (sec. V-A); a quantile is that rule with the error rate stated.
 *   d^ = `threshold-margin` x d_T (1.2: "slightly larger"), at least
 *   `threshold-min` (see DEFAULT_THRESHOLD_MIN).
 * - eq. 2 per packet, as the paper's per-measurement classification:
 *   every packet in a feedback message votes with its own delay, and the
 *   mean vote, in bit/s per second, applies over the time since the last
 *   update (so the gain does not depend on how often feedback comes).
 * - The constants of eqs. 3 and 4 are not in the paper (it takes eq. 2
 *   from its ref. [19]); ours are below, each with its reason. d_max is
 *   2 d^: eq. 4 needs d_max > d^ and d^ is learned, so a fixed d_max
 *   could fall below it.
 * - Loss: sec. V finds it a poor congestion signal on both networks, and
 *   eq. 2 uses delay alone. That relies on buffers deeper than d^ (the
 *   paper's condition, sec. IV-E) and on a delay base taken on an empty
 *   queue. Neither holds everywhere: a 10 ms buffer (noisy-ethernet) lost
 *   10 % of packets without one delay above d^, and a flow that starts
 *   behind a TCP flow's full queue (RFC 8867 5.6) 27 %. So we add a loss
 *   guard in the paper's own terms: the loss rate of the congestion-free
 *   set is learned too, and a window of 32 packets (the window of its loss
 *   plots, sec. III-A) losing more than that rate explains in 99 % of
 *   windows votes as the mildest congestion of eq. 4 (b_min). Measured:
 *   loss 10.4 -> 0.25 % and 27 -> 0.8 % on those two, the noisy profiles
 *   within a point.
 * - Start-up: the paper's flow takes 20-30 s to converge and it suggests
 *   "techniques similar to that used in TCP slow start" (sec. V-B): we use
 *   URCP's start-up ramp (rc-urcp-startup.c), as UM does.
 * Everything else (delay measure, RTT, the RTCP fallback where d is the
 * RTT above its minimum) is the engine's (rc-urcp.c).
 */
#include <math.h>
#include <stdlib.h>
#include "rc-urcp-private.h"

#define GST_CAT_DEFAULT rc_urcp_debug

/* eq. 3: the additive increase, in bit/s per second. Not in the paper.
 * a_max: on an empty queue the rate climbs 100 kbit/s per second, so the
 * paper's WiMAX flow (a 2.5 -> 5 Mbit/s share, sec. V-B Fig. 22) takes
 * 25 s, inside its reported 20-30 s; and one loop delay (about 0.35 s with
 * the encoder's response) overshoots a 300 kbit/s link by at most ~10 %.
 * a_min: a tenth of it at the threshold, so the rate creeps where the
 * queue is about to count as congestion. */
#define DEFAULT_INCREASE_MAX 100000.0
#define DEFAULT_INCREASE_MIN 10000.0
/* eq. 4: the multiplicative decrease, per second. Not in the paper.
 * With noise, AIMD settles where the increase of the packets below d^
 * balances the decrease of those above, (1 - p) a = p b R, so the share p
 * of noise above d^ and b fix the rate a noisy link lets it reach (the
 * Mathis law of TCP, with p the false congestion signals). b_min 0.1/s:
 * just above the threshold the rate falls 10 % per second. b_max 0.5/s: at
 * twice the threshold ~16 % per 0.35 s loop delay. Measured in rcsim over
 * the shipped scenarios (3 seeds; docs/vtum.md has the table): b_max 1/s
 * held clean 1 Mbit/s at 72 % and the noisy profiles at 77-81 %; 0.3/s
 * took the clean p95 delay from 41 to 68 ms for 5 points. */
#define DEFAULT_DECREASE_MIN 0.1
#define DEFAULT_DECREASE_MAX 0.5
/* d_T: the 95 % quantile of the congestion-free set: with 90 % the noise
 * alone voted down often enough to hold noisy-hspa at 77 % (see above);
 * the paper's own thresholds sit near the top of the noise (3G: d^ 0.4 s
 * where "any delay above 300ms can be considered congestion", sec. V). */
#define DEFAULT_NOISE_PERCENTILE 95.0
/* d^ = 1.2 d_T: "just slightly larger than d_T" (sec. V-A). */
#define DEFAULT_THRESHOLD_MARGIN 1.2
/* Lowest d^: 10 ms. The congestion-free set is measured at the start
 * rate, where a frame is one or two packets; near the capacity our own
 * frames queue at a clean link: the pacer sends a frame at 1.5x the rate,
 * so its last packet waits up to a third of a frame interval (11 ms at
 * 30 fps), and packets of unequal size differ by up to one packet's
 * serialization (10 ms for 1200 bytes at 1 Mbit/s). Below this the flow
 * would classify its own frames as congestion. */
#define DEFAULT_THRESHOLD_MIN 0.010
/* The congestion-free set: at least 2 s at the start rate (URCP's low
 * phase lasts at least 1 s): ~60 packets at 300 kbit/s, so the 95 %
 * quantile is not the set's largest sample. */
#define DEFAULT_LEARNING_TIME 2.0

/* The loss guard (ours; see the file comment): loss counts as congestion
 * when the newest 32 reported packets (the sliding window of the paper's
 * loss plots, sec. III-A) hold at least loss_k lost ones, loss_k being the
 * least count that independent loss at the congestion-free set's rate
 * reaches in under 1 % of windows. */
#define VTUM_LOSS_WINDOW 32
#define VTUM_LOSS_TAIL 0.01

struct _Vtum
{
  /* parameters */
  gdouble a_max, a_min, b_min, b_max;
  gdouble percentile, margin, thr_min;
  /* learned */
  gdouble noise_thr;            /* d_T, s */
  gdouble thr;                  /* d^, s */
  guint set_size;               /* packets in the congestion-free set */
  /* this feedback message's votes (eq. 2 per packet), bit/s per second */
  gdouble vote_sum;
  guint votes;
  gboolean loss_voted;          /* the loss guard voted in this message */
  /* loss guard: the newest VTUM_LOSS_WINDOW reported packets, 1 = lost */
  guint32 loss_bits;
  gdouble report_loss;          /* RTCP-only: the last fraction lost */
  gdouble loss_inh;             /* the congestion-free set's loss rate */
  guint loss_k;                 /* lost packets in the window that mean
                                 * congestion */
  /* counters */
  guint64 above, below;         /* packets on each side of d^ */
  guint64 loss_votes;           /* packets that voted down for loss */
  gdouble last_delta;           /* s */
};

extern const RcControllerInfo rc_vtum_info;

/* The least k with P(Binomial (n, p) >= k) < tail. */
static guint
binomial_quantile (guint n, gdouble p, gdouble tail)
{
  gdouble pmf = pow (1 - p, n), below = 0;
  guint k;

  for (k = 0; k < n; k++) {
    below += pmf;
    if (1 - below < tail)
      return k + 1;
    pmf *= (gdouble) (n - k) / (k + 1) * p / MAX (1 - p, 1e-12);
  }
  return n;
}

static guint
window_lost (const Vtum * v)
{
  return (guint) __builtin_popcount (v->loss_bits);
}

/* eqs. 2-4 for one delay sample `d` (s) at rate `r`: dR/dt. */
static gdouble
vtum_vote (const Vtum * v, gdouble d, gdouble r)
{
  gdouble d_max = 2 * v->thr;

  if (d < v->thr)               /* eq. 3 */
    return v->a_max + (v->a_min - v->a_max) * MAX (d, 0) / v->thr;
  /* eq. 4 */
  return -MIN (v->b_max, v->b_min + (v->b_max - v->b_min) *
      (d - v->thr) / (d_max - v->thr)) * r;
}

void
rc_vtum_learn (Urcp * u, const UrcpSample * x, guint n)
{
  Vtum *v = u->vtum;
  gdouble lowest = G_MAXDOUBLE;
  gdouble *d;
  guint i, k;

  if (n == 0) {
    /* RTCP-only feedback: no per-packet delays, only the reports' RTT
     * above its minimum, whose largest the low phase kept. */
    v->noise_thr = u->delay.sig_min;
  } else {
    /* Delays above the set's own lowest raw OWD: the engine's delay
     * measure still moves its base while the set is gathered. */
    d = g_new (gdouble, n);
    for (i = 0; i < n; i++)
      lowest = MIN (lowest, x[i].raw);
    for (i = 0; i < n; i++)
      d[i] = x[i].raw - lowest;
    qsort (d, n, sizeof (gdouble), rc_double_cmp);
    k = (guint) ceil (v->percentile / 100.0 * n);
    v->noise_thr = d[CLAMP (k, 1, n) - 1];
    g_free (d);
  }
  v->set_size = n;
  v->thr = MAX (v->margin * v->noise_thr, v->thr_min);
  /* The engine counted the low phase's packets and losses (after any
   * restart), the set's loss. */
  v->loss_inh = u->noise_pkts > 0 ? u->noise_lost / u->noise_pkts : 0;
  v->loss_k = binomial_quantile (VTUM_LOSS_WINDOW, v->loss_inh,
      VTUM_LOSS_TAIL);
  GST_DEBUG ("vtum: congestion-free set of %u packets: %.0f %% of them "
      "below %.2f ms; congestion threshold %.2f ms; loss %.2f %%: %u of %u "
      "lost means congestion", n, v->percentile, v->noise_thr * 1000,
      v->thr * 1000, v->loss_inh * 100, v->loss_k, VTUM_LOSS_WINDOW);
}

/* Loss above the learned level votes as the mildest congestion of eq. 4
 * (b_min): it only has to stop a rise the delay cannot see. */
static gboolean
loss_congested (const Vtum * v)
{
  return window_lost (v) >= v->loss_k ||
      v->report_loss * VTUM_LOSS_WINDOW >= v->loss_k;
}

void
rc_vtum_lost (Urcp * u)
{
  Vtum *v = u->vtum;

  v->loss_bits = (v->loss_bits << 1) | 1;
  if (loss_congested (v)) {
    v->vote_sum -= v->b_min * u->delay.rate;
    v->votes++;
    v->loss_votes++;
    v->loss_voted = TRUE;
  }
}

void
rc_vtum_report_loss (Urcp * u, gdouble fraction_lost)
{
  u->vtum->report_loss = fraction_lost;
}

void
rc_vtum_sample (Urcp * u, gdouble delta)
{
  Vtum *v = u->vtum;
  gdouble vote;

  v->loss_bits <<= 1;
  vote = vtum_vote (v, delta, u->delay.rate);
  if (loss_congested (v) && vote > -v->b_min * u->delay.rate) {
    vote = -v->b_min * u->delay.rate;
    v->loss_votes++;
    v->loss_voted = TRUE;
  }
  v->vote_sum += vote;
  v->votes++;
  v->last_delta = delta;
  if (delta < v->thr)
    v->below++;
  else
    v->above++;
}

void
rc_vtum_update (Urcp * u, gdouble dt, gdouble sent_bps)
{
  Vtum *v = u->vtum;
  gdouble r = u->delay.rate, cap;

  if (v->votes == 0)
    return;
  /* While the session sends below our rate (feedback missing, breaker
   * tripped, climbing back) the delays say nothing about our rate: the
   * rate holds, as URCP's learning does (urcp_set_capped). */
  if (!u->capped) {
    r += v->vote_sum / v->votes * dt;
    u->reason = v->vote_sum >= 0 ? "queueing delay below the learned "
        "threshold: increasing" : v->loss_voted ? "more packets lost than "
        "the learned inherent loss: decreasing" : "queueing delay above "
        "the learned threshold: decreasing";
  }
  v->vote_sum = 0;
  v->votes = 0;
  v->loss_voted = FALSE;
  /* The engine's application-limited cap: an idle encoder must not let
   * the target climb without bound. */
  cap = URCP_APP_LIMIT_FACTOR * MAX (u->delay.rmax, sent_bps);
  if (cap > 0)
    r = MIN (r, cap);
  u->delay.rate = u->loss.rate = u->rate = rc_urcp_clamp_rate (u, r);
  GST_LOG ("vtum: R %.0f bit/s, delta %.2f ms, threshold %.2f ms",
      u->rate, v->last_delta * 1000, v->thr * 1000);
}

/* ------------------------------------------------------------- registry */

static GParamSpec *
dparam (const gchar * name, const gchar * nick, const gchar * blurb,
    gdouble min, gdouble max, gdouble def)
{
  return g_param_spec_ref_sink (g_param_spec_double (name, nick, blurb, min,
          max, def, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
}

static GParamSpec **
vtum_params (guint * n)
{
  static GParamSpec *specs[8];

  if (g_once_init_enter (&specs[7])) {
    specs[0] = dparam ("increase-max", "Increase on an empty queue",
        "Additive increase (bit/s per second) when the queueing delay is "
        "zero (seed 001 eq. 3, a_max; not in the paper: see docs/vtum.md)",
        1.0, 1e8, DEFAULT_INCREASE_MAX);
    specs[1] = dparam ("increase-min", "Increase at the threshold",
        "Additive increase (bit/s per second) when the queueing delay "
        "reaches the learned threshold (seed 001 eq. 3, a_min)", 0.0, 1e8,
        DEFAULT_INCREASE_MIN);
    specs[2] = dparam ("decrease-min", "Decrease at the threshold",
        "Multiplicative decrease (share of the rate per second) just above "
        "the learned threshold (seed 001 eq. 4, b_min)", 0.0, 100.0,
        DEFAULT_DECREASE_MIN);
    specs[3] = dparam ("decrease-max", "Decrease at twice the threshold",
        "Multiplicative decrease (share of the rate per second) at twice the "
        "learned threshold and above (seed 001 eq. 4, b_max)", 0.0, 100.0,
        DEFAULT_DECREASE_MAX);
    specs[4] = dparam ("noise-percentile", "Noise percentile",
        "Share (%) of the delays measured at the start rate (the "
        "congestion-free set) that must stay below the congestion threshold "
        "(seed 001 sec. V-A, d_T)", 50.0, 100.0, DEFAULT_NOISE_PERCENTILE);
    specs[5] = dparam ("threshold-margin", "Threshold margin",
        "The congestion threshold is this times the noise percentile's "
        "delay (seed 001 sec. V-A: 'just slightly larger')", 1.0, 10.0,
        DEFAULT_THRESHOLD_MARGIN);
    specs[6] = dparam ("threshold-min", "Lowest threshold",
        "Lowest congestion threshold (s): the queue the encoder's own "
        "frames build near full rate is not congestion", 0.0, 10.0,
        DEFAULT_THRESHOLD_MIN);
    g_once_init_leave (&specs[7], dparam ("learning-time", "Learning time",
            "Least time (s) spent at the start rate measuring the delay "
            "noise before the rate ramps up", 0.1, 60.0,
            DEFAULT_LEARNING_TIME));
  }
  *n = G_N_ELEMENTS (specs);
  return specs;
}

#define PARAM(name) rc_controller_param_double (&rc_vtum_info, params, name)

static GstStructure *
vtum_get_stats (RcController * c)
{
  Urcp *u = (Urcp *) c;
  Vtum *v = u->vtum;
  GstStructure *st = gst_structure_new ("vtum-stats",
      /* d^, d_T */
      "delay-threshold", G_TYPE_UINT64, rc_stats_time (v->thr),
      "noise-threshold", G_TYPE_UINT64, rc_stats_time (v->noise_thr),
      "noise-samples", G_TYPE_UINT, v->set_size,
      "queueing-delay", G_TYPE_UINT64, rc_stats_time (u->delay.sig_ave),
      "packets-above-threshold", G_TYPE_UINT64, v->above,
      "packets-below-threshold", G_TYPE_UINT64, v->below,
      "loss-threshold", G_TYPE_UINT, v->loss_k,
      "loss-votes", G_TYPE_UINT64, v->loss_votes,
      "capacity", G_TYPE_UINT, rc_stats_bps (u->delay.rmax), NULL);

  rc_urcp_engine_stats (u, st);
  return st;
}

static RcControllerClass vtum_class;
static gsize class_once;

static RcController *
vtum_create (const RcRateLimits * limits, const GstStructure * params)
{
  Urcp *u = rc_urcp_engine_new (limits);
  Vtum *v = g_new0 (Vtum, 1);

  if (g_once_init_enter (&class_once)) {
    vtum_class = rc_urcp_class;
    vtum_class.get_stats = vtum_get_stats;
    g_once_init_leave (&class_once, 1);
  }
  u->parent.klass = &vtum_class;
  u->adapt = FALSE;
  v->a_max = PARAM ("increase-max");
  v->a_min = PARAM ("increase-min");
  v->b_min = PARAM ("decrease-min");
  v->b_max = PARAM ("decrease-max");
  v->percentile = PARAM ("noise-percentile");
  v->margin = PARAM ("threshold-margin");
  v->thr_min = PARAM ("threshold-min");
  u->low_min_time = (GstClockTime) (PARAM ("learning-time") * GST_SECOND);
  /* Until the set is learned (never in steady state without it). */
  v->thr = v->thr_min;
  u->vtum = v;
  return &u->parent;
}

const RcControllerInfo rc_vtum_info = {
  "vtum",
  "vtum: UM with a congestion threshold learned from the delay noise "
      "(mobile links)",
  vtum_params,
  vtum_create,
};
