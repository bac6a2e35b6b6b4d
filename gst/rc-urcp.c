/* URCP: Universal Rate Control Protocol (seed 000, Xie et al.), and the
 * fixed-parameter delay-based UM baseline (its eq. 6) as URCP with
 * adaptation off.
 *
 * Units: rates in bit/s, delays in seconds, k0 in bits, k2 in 1/s^2, so that
 * eq. 18, dR = k2 (k0 - delta R) dT, is dimensionally right. With these units
 * the paper's UM constants (k0 = 16000 bits, k2 = 0.6) and the k2 that eq. 17
 * gives (about 6 at 1 Mbit/s, 100 ms) are of the same order, which is how we
 * read the paper's units.
 *
 * Structure (Table I): two instances of the same three-stage adaptation, one
 * driven by the delay measure delta (eq. 4), one by the loss rate epsilon
 * (sec. VI-E); the rate is the minimum of the two.
 *
 * Start-up (sec. VI-A): a low-rate phase learns the initial delta^MIN as the
 * mean delay measure, then an exponential ramp finds the initial R^MAX as the
 * rate the receiver got when the delay rose; k0 starts at R^MAX delta^MIN
 * (eq. 13).
 *
 * What was actually sent: every rate that feeds R^AVE (and so R^MAX, eq. 14)
 * is min(R(t), measured send rate). An encoder that stays below its target
 * (application-limited) therefore cannot raise R^MAX, and a target the
 * encoder never reached never counts as probed.
 */
#include <math.h>
#include "rc-controller.h"
#include "rc-owd.h"
#include "rc-window.h"

GST_DEBUG_CATEGORY_STATIC (rc_urcp_debug);
#define GST_CAT_DEFAULT rc_urcp_debug

/* URCP sec. VII-A (UM baseline): k0 = 16000 bits, k2 = 0.6. */
#define UM_K0 16000.0
#define UM_K2 0.6

/* Sliding window for R^AVE, delta^AVE and epsilon^AVE. The paper gives no
 * length, only that these move on a slower timescale than R (sec. VI-A).
 * 5 s is about 50 RTTs on the 100 ms paths of its Table II and long enough
 * that the minimum of delta^AVE (eq. 15) is not the minimum of noise. */
#define WINDOW_SPAN (5 * GST_SECOND)
#define WINDOW_MAX_SAMPLES 32768
/* Estimates (eqs. 14, 15) only learn from a window holding at least this
 * much history, so a half-empty window's average does not set an extreme. */
#define WINDOW_MIN_AGE (WINDOW_SPAN / 2)

/* Loss measure for eq. 18: loss over this recent span (a per-packet 0/1 is
 * too coarse to multiply by R). */
#define LOSS_SHORT_SPAN (500 * GST_MSECOND)

/* Floors. TWCC remote times come in 250 us steps
 * (draft-holmer-rmcat-transport-wide-cc-extensions-01 sec. 3.1.5), and a
 * bottleneck serving our packets one at a time cannot show less delay than
 * one packet's service time at its capacity, so delta^MIN never goes below
 * max(1 ms, one mean packet at R^MAX). Without it k0 -> 0 and eq. 18 would
 * never raise the rate on a noiseless link. */
#define DELTA_MIN_FLOOR_S 0.001
/* Loss noise floor: half the 1 % uncorrected loss at which URCP sec. I says
 * video degrades. Without a floor a loss-free path gives k0 = 0 for the loss
 * instance and it could never rise. */
#define LOSS_MIN_FLOOR 0.005
/* RTT_min floor: k2 (eq. 17) is inversely proportional to RTT_min; on
 * loopback the RTT is ~0 and k2 would explode. */
#define RTT_MIN_FLOOR (10 * GST_MSECOND)

/* Start-up (sec. VI-A). */
#define STARTUP_LOW_MIN_TIME (1 * GST_SECOND)
#define STARTUP_LOW_MIN_SAMPLES 3
/* The low-rate phase estimates the noise as the mean distance of each delay
 * sample above the lowest sample within +-250 ms of it. A plain mean would
 * also count a queue that other flows are building (a late joiner on a full
 * link then takes delta^MIN = their queue, holds a standing queue and
 * starves them); noise moves fast, a queue moves slowly, and the local
 * lower envelope follows the queue but not the noise. */
#define STARTUP_ENVELOPE_HALF (250 * GST_MSECOND)
#define STARTUP_MAX_SAMPLES 4096
/* Ramp doubles the rate every max(2 RTT_min, 200 ms): one RTT to see the
 * effect of a step and one for the encoder (RFC 8867 sec. 4 gives ~100 ms
 * for a codec to follow a new target). */
#define RAMP_DOUBLING_MIN (200 * GST_MSECOND)
/* Ramp exit: mean delay of a feedback batch above the level when the ramp
 * began plus delta^MIN + 10 ms, or more than 10 % of a batch lost. The
 * level at the start (the low-rate phase's mean delay) counts a queue other
 * flows already hold, so a late joiner ramps until it adds delay itself,
 * not until it meets theirs. Alone on the path that level is ~delta^MIN. */
#define RAMP_EXIT_DELAY_ABS_S 0.010
#define RAMP_EXIT_LOSS 0.10
/* The ramp also ends when the source has stayed application-limited (the
 * target more than twice what is sent) this long: a rate the encoder never
 * reached cannot be probed, so R^MAX starts at what was received. */
#define RAMP_APP_LIMITED_TIME (1 * GST_SECOND)
/* After the ramp, restart at 85 % of what the receiver got, so the queue the
 * ramp built drains instead of standing. */
#define RAMP_EXIT_DRAIN 0.85

/* Application-limited cap: no instance's rate may exceed 1.5 x the larger of
 * R^MAX and the rate actually sent, the same bound GCC puts on its estimate
 * against the received rate (draft-ietf-rmcat-gcc-02 sec. 5.5). Keeps R from
 * climbing without bound while the encoder is idle. */
#define APP_LIMIT_FACTOR 1.5

/* Cap on dT in eq. 18: after a feedback gap one update must not apply the
 * whole gap's worth of change. */
#define MAX_DT (200 * GST_MSECOND)

/* No feedback: hold the rate for FEEDBACK_HOLD (or 4 mean feedback
 * intervals if longer, for RTCP-only peers); from twice that (before any
 * feedback at all: two report intervals) halve it every BACKOFF_HALVING
 * down to min-bitrate. */
#define FEEDBACK_HOLD (1 * GST_SECOND)
/* A peer that sends only RTCP reports reports every 5 s or so (RFC 3550
 * sec. 6.2 minimum interval, rtpsession's default); assume that until the
 * interval is measured, so the gap between two reports is not taken for
 * missing feedback. */
#define REPORT_INTERVAL_GUESS (5 * GST_SECOND)
#define BACKOFF_HALVING (1 * GST_SECOND)

#define RATE_METER_SPAN (1 * GST_SECOND)

typedef struct
{
  const gchar *signal;          /* "delay" or "loss", for logs and stats */
  gdouble floor;                /* lowest sig_min allowed */
  gdouble rate;                 /* R, bit/s */
  gdouble rmax;                 /* R^MAX */
  gdouble rave;                 /* R^AVE */
  gdouble sig_min;              /* delta^MIN (s) or epsilon^MIN */
  gdouble sig_ave;              /* delta^AVE or epsilon^AVE */
  gdouble k0, k2;
  RcAvgWindow rate_win, sig_win;
} UrcpInstance;

typedef struct
{
  GstClockTime ts;              /* send time */
  gdouble delta;                /* s */
} LowSample;

typedef struct
{
  RcController parent;
  gboolean adapt;               /* FALSE: the fixed-parameter UM baseline */

  RcState state;
  const gchar *reason;
  gdouble rate;                 /* decided media rate = min of instances */

  UrcpInstance delay, loss;

  RcOwd owd;
  RcRateMeter sent_meter;       /* everything we sent */
  RcRateMeter recv_meter;       /* acked bytes, on the receiver's clock */
  RcAvgWindow loss_short;       /* 0/1 per reported packet */

  GstClockTime rtt_min, rtt_last;
  guint64 feedback_count, packets_acked, packets_lost;
  guint64 owd_resets, bad_packets;

  /* start-up */
  GstClockTime first_sent;
  GstClockTime phase_start;
  GArray *low;                  /* LowSample, in feedback order */
  gdouble ramp_ref;             /* delay level when the ramp began, s */
  GstClockTime ramp_limited_since;
  GstClockTime last_ramp_step;

  /* timing */
  GstClockTime last_update;
  GstClockTime last_feedback;
  GstClockTime fb_interval_avg;
  gboolean reports_only;        /* no per-packet feedback seen yet */
  GstClockTime last_tick;
  gdouble mean_pkt_bytes;
} Urcp;

static void
instance_init (UrcpInstance * in, const gchar * signal, gdouble floor,
    gdouble rate)
{
  memset (in, 0, sizeof (*in));
  in->signal = signal;
  in->floor = floor;
  in->rate = rate;
  rc_avg_window_init (&in->rate_win, WINDOW_SPAN, WINDOW_MAX_SAMPLES);
  rc_avg_window_init (&in->sig_win, WINDOW_SPAN, WINDOW_MAX_SAMPLES);
}

static void
instance_clear (UrcpInstance * in)
{
  rc_avg_window_clear (&in->rate_win);
  rc_avg_window_clear (&in->sig_win);
}

static gdouble
clamp_rate (Urcp * u, gdouble r)
{
  return CLAMP (r, (gdouble) u->parent.cfg.min_bps,
      (gdouble) u->parent.cfg.max_bps);
}

static gdouble
rtt_min_s (Urcp * u)
{
  GstClockTime r = GST_CLOCK_TIME_IS_VALID (u->rtt_min) ? u->rtt_min : 0;
  return (gdouble) MAX (r, RTT_MIN_FLOOR) / GST_SECOND;
}

static gdouble
delta_floor (Urcp * u)
{
  gdouble pkt_time = 0;
  if (u->delay.rmax > 0 && u->mean_pkt_bytes > 0)
    pkt_time = u->mean_pkt_bytes * 8.0 / u->delay.rmax;
  return MAX (DELTA_MIN_FLOOR_S, pkt_time);
}

/* Table I, first stage: add samples, then eqs. 14 and 15. */
static void
instance_add_sample (Urcp * u, UrcpInstance * in, GstClockTime now,
    gdouble sig, gdouble sent_bps)
{
  gdouble mean;

  rc_avg_window_push (&in->sig_win, now, sig);
  /* Tie R^AVE to what was sent, not only what was asked for. */
  rc_avg_window_push (&in->rate_win, now, MIN (in->rate, sent_bps));

  if (rc_avg_window_mean (&in->rate_win, &mean))
    in->rave = mean;
  if (rc_avg_window_mean (&in->sig_win, &mean))
    in->sig_ave = mean;

  if (u->adapt && rc_avg_window_age (&in->rate_win) >= WINDOW_MIN_AGE) {
    in->rmax = MAX (in->rmax, in->rave);        /* eq. 14 */
    in->sig_min = MIN (in->sig_min, in->sig_ave);       /* eq. 15 */
  }
  in->sig_min = MAX (in->sig_min, in->floor);
}

/* Table I, stages two and three: eqs. 16, 17, 18. `sig` is the current
 * congestion signal (delta in s, or epsilon). */
static void
instance_update_rate (Urcp * u, UrcpInstance * in, gdouble sig, gdouble dt,
    gdouble sent_bps)
{
  gdouble cap;

  if (u->adapt) {
    gdouble rave = MAX (in->rave, (gdouble) u->parent.cfg.min_bps);
    gdouble rmax = MAX (in->rmax, rave);
    gdouble beta = u->parent.cfg.beta;
    gdouble target;

    /* eq. 16 */
    target = sqrt (rmax / rave) * in->sig_min
        + beta * (in->sig_ave - in->sig_min);
    in->k0 = MAX (target, 0) * rave;
    /* eq. 17 */
    if (in->k0 > 0)
      in->k2 = rmax / (in->k0 * u->parent.cfg.m *
          sqrt (MAX (in->rate, 1.0) / rmax) * rtt_min_s (u));
  } else {
    in->k0 = UM_K0;
    in->k2 = UM_K2;
  }

  /* eq. 18 */
  in->rate = MAX (in->rate + in->k2 * (in->k0 - sig * in->rate) * dt, 0);

  cap = APP_LIMIT_FACTOR * MAX (in->rmax, sent_bps);
  if (cap > 0)
    in->rate = MIN (in->rate, cap);
  in->rate = clamp_rate (u, in->rate);
}

static void
set_state (Urcp * u, RcState s, const gchar * reason)
{
  if (u->state != s)
    GST_DEBUG ("%s: state %s -> %s (%s)", u->parent.klass->name,
        rc_state_to_string (u->state), rc_state_to_string (s), reason);
  u->state = s;
  u->reason = reason;
}

static void
enter_steady (Urcp * u, gdouble rmax, gdouble delta_min, GstClockTime now,
    const gchar * reason)
{
  gdouble r0 = clamp_rate (u, rmax * RAMP_EXIT_DRAIN);

  u->delay.rmax = u->loss.rmax = rmax;
  u->delay.sig_min = MAX (delta_min, delta_floor (u));
  u->loss.sig_min = LOSS_MIN_FLOOR;
  /* eq. 13: initial k0 = R^MAX delta^MIN */
  u->delay.k0 = rmax * u->delay.sig_min;
  u->loss.k0 = rmax * u->loss.sig_min;
  u->delay.rate = u->loss.rate = u->rate = r0;
  u->phase_start = now;
  set_state (u, RC_STATE_STEADY, reason);
  GST_DEBUG ("%s: start-up done after %.3f s: R^MAX %.0f bit/s, "
      "delta^MIN %.2f ms, k0 %.0f bits, restart at %.0f bit/s",
      u->parent.klass->name,
      (gdouble) (now - u->first_sent) / GST_SECOND, rmax,
      u->delay.sig_min * 1000, u->delay.k0, r0);
}

static gdouble
sent_bps (Urcp * u, GstClockTime now)
{
  return rc_rate_meter_bps (&u->sent_meter, now);
}

/* One RTT sample, from TWCC timing or an RTCP report: the latest and the
 * minimum (RTT_min of eq. 17). */
static void
note_rtt (Urcp * u, GstClockTime rtt)
{
  u->rtt_last = rtt;
  if (!GST_CLOCK_TIME_IS_VALID (u->rtt_min) || rtt < u->rtt_min)
    u->rtt_min = rtt;
}

/* Per-packet part of a feedback message. Returns the number of received
 * packets; *mean_delta gets their mean delay measure. */
static guint
consume_packets (Urcp * u, const RcFeedback * fb, GstClockTime now,
    gdouble * mean_delta, guint * n_lost)
{
  guint i, n_recv = 0;
  gdouble sum = 0;
  GstClockTime newest_send = GST_CLOCK_TIME_NONE;
  gdouble sbps = sent_bps (u, now);

  *n_lost = 0;
  for (i = 0; i < fb->n_packets; i++) {
    const RcPacketResult *p = &fb->packets[i];
    gdouble delta;

    if (p->lost) {
      (*n_lost)++;
      u->packets_lost++;
      rc_avg_window_push (&u->loss_short, now, 1.0);
      if (u->state == RC_STATE_STEADY)
        instance_add_sample (u, &u->loss, now, 1.0, sbps);
      continue;
    }
    if (!GST_CLOCK_TIME_IS_VALID (p->send_ts) ||
        !GST_CLOCK_TIME_IS_VALID (p->recv_ts)) {
      u->bad_packets++;
      continue;
    }
    if (rc_owd_sample (&u->owd, p->send_ts, p->recv_ts, &delta) ==
        RC_OWD_RESET) {
      u->owd_resets++;
      GST_WARNING ("receiver clock jumped (OWD changed by more than 5 s); "
          "delay base restarted");
    }
    u->packets_acked++;
    n_recv++;
    sum += delta;
    rc_rate_meter_add (&u->recv_meter, p->recv_ts, p->size);
    rc_avg_window_push (&u->loss_short, now, 0.0);
    if (u->state == RC_STATE_STEADY) {
      instance_add_sample (u, &u->delay, now, delta, sbps);
      instance_add_sample (u, &u->loss, now, 0.0, sbps);
    } else if (u->state == RC_STATE_STARTUP_LOW &&
        u->low->len < STARTUP_MAX_SAMPLES) {
      LowSample ls = { p->send_ts, delta };
      g_array_append_val (u->low, ls);
    }
    if (!GST_CLOCK_TIME_IS_VALID (newest_send) || p->send_ts > newest_send)
      newest_send = p->send_ts;
  }

  /* RTT sample: feedback arrival minus the newest acked packet's send time.
   * It includes the receiver's feedback hold time, so it is an upper bound;
   * its minimum over time approaches the path RTT. */
  if (GST_CLOCK_TIME_IS_VALID (newest_send) && now >= newest_send) {
    note_rtt (u, now - newest_send);
  }
  *mean_delta = n_recv ? sum / n_recv : 0;
  return n_recv;
}

static gint
low_sample_cmp (gconstpointer a, gconstpointer b)
{
  GstClockTime ta = ((const LowSample *) a)->ts, tb = ((const LowSample *) b)->ts;
  return ta < tb ? -1 : ta > tb;
}

/* Mean height of the samples above their local lower envelope; see
 * STARTUP_ENVELOPE_HALF. Sorted by send time first (feedback may report
 * out of order), then a two-pointer sweep finds each window; O(n w) with w
 * the samples per window. Returns the samples' plain mean in *mean. */
static gdouble
low_phase_noise (Urcp * u, gdouble * mean)
{
  const LowSample *x;
  guint n = u->low->len, i, j, lo = 0;
  gdouble sum = 0, total = 0;

  g_array_sort (u->low, low_sample_cmp);
  x = (const LowSample *) u->low->data;
  for (i = 0; i < n; i++) {
    gdouble env = x[i].delta;
    while (lo < i && x[lo].ts + STARTUP_ENVELOPE_HALF < x[i].ts)
      lo++;
    for (j = lo; j < n && x[j].ts <= x[i].ts + STARTUP_ENVELOPE_HALF; j++)
      env = MIN (env, x[j].delta);
    sum += x[i].delta - env;
    total += x[i].delta;
  }
  *mean = n ? total / n : 0;
  return n ? sum / n : 0;
}

static void
startup_step (Urcp * u, gdouble mean_delta, guint n_recv, gdouble loss,
    GstClockTime now)
{
  if (u->state == RC_STATE_STARTUP_LOW) {
    /* RTCP-only feedback has no per-packet samples: use report deltas. */
    if (u->low->len == 0 && n_recv > 0 && u->feedback_count >= 2) {
      u->delay.sig_min = MAX (u->delay.sig_min, mean_delta);
    }
    if ((u->low->len >= STARTUP_LOW_MIN_SAMPLES ||
            (u->low->len == 0 && u->feedback_count >= 3)) &&
        now >= u->phase_start + STARTUP_LOW_MIN_TIME) {
      if (u->low->len) {
        u->delay.sig_min = low_phase_noise (u, &u->ramp_ref);
      } else {
        u->ramp_ref = u->delay.sig_min;
      }
      u->delay.sig_min = MAX (u->delay.sig_min, DELTA_MIN_FLOOR_S);
      u->phase_start = u->last_ramp_step = now;
      set_state (u, RC_STATE_STARTUP_RAMP, "low-rate phase done");
      GST_DEBUG ("%s: initial delta^MIN %.2f ms from %u packets",
          u->parent.klass->name, u->delay.sig_min * 1000, u->low->len);
      g_array_set_size (u->low, 0);
    }
    return;
  }

  /* RC_STATE_STARTUP_RAMP */
  {
    const gchar *why = NULL;
    if (n_recv > 0 && mean_delta > MAX (u->ramp_ref, u->delay.sig_min) +
        u->delay.sig_min + RAMP_EXIT_DELAY_ABS_S)
      why = "ramp stopped by delay";
    else if (loss > RAMP_EXIT_LOSS)
      why = "ramp stopped by loss";
    else if (GST_CLOCK_TIME_IS_VALID (u->ramp_limited_since) &&
        now >= u->ramp_limited_since + RAMP_APP_LIMITED_TIME)
      why = "ramp stopped: application-limited";
    if (why) {
      /* What the receiver got, on its own clock, up to its newest arrival. */
      gdouble got = rc_rate_meter_bps (&u->recv_meter,
          rc_avg_window_newest (&u->recv_meter.w));
      gdouble rmax = got > 0 ? MIN (got, u->rate) : u->rate;
      enter_steady (u, rmax, u->delay.sig_min, now, why);
      return;
    }
  }
  if (u->rate >= u->parent.cfg.max_bps) {
    enter_steady (u, u->rate, u->delay.sig_min, now, "ramp reached max");
    return;
  }
  {
    GstClockTime dbl = MAX (2 * (GstClockTime) (rtt_min_s (u) * GST_SECOND),
        RAMP_DOUBLING_MIN);
    /* At most one doubling per update, however long since the last one
     * (RTCP-only feedback comes seconds apart). */
    gdouble dt = MIN ((gdouble) (now - u->last_ramp_step) / dbl, 1.0);
    gdouble sbps = sent_bps (u, now);
    /* Only ramp while the encoder keeps up: a target it never reached must
     * not count as probed (the receive rate would read low and R^MAX with
     * it). Allow the ramp to lead the actual rate by one doubling. */
    if (sbps <= 0 || u->rate <= 2 * sbps) {
      u->rate = clamp_rate (u, u->rate * pow (2.0, dt));
      u->ramp_limited_since = GST_CLOCK_TIME_NONE;
    } else if (!GST_CLOCK_TIME_IS_VALID (u->ramp_limited_since)) {
      u->ramp_limited_since = now;
    }
    u->last_ramp_step = now;
    u->reason = "slow-start ramp";
  }
}

static void
urcp_on_feedback (RcController * c, const RcFeedback * fb, GstClockTime now)
{
  Urcp *u = (Urcp *) c;
  gdouble mean_delta = 0, dt, batch_loss = 0;
  guint n_recv = 0, n_lost = 0;
  gdouble sbps;

  if (fb->n_packets == 0 && !fb->has_report)
    return;

  u->feedback_count++;
  if (fb->n_packets)
    u->reports_only = FALSE;
  if (GST_CLOCK_TIME_IS_VALID (u->last_feedback) && now > u->last_feedback) {
    GstClockTime ival = now - u->last_feedback;
    u->fb_interval_avg = u->fb_interval_avg ?
        (7 * u->fb_interval_avg + ival) / 8 : ival;
  }
  u->last_feedback = now;
  if (u->state == RC_STATE_HOLD || u->state == RC_STATE_BACKOFF)
    set_state (u, u->delay.rmax > 0 ? RC_STATE_STEADY : RC_STATE_STARTUP_LOW,
        "feedback resumed");
  if (!GST_CLOCK_TIME_IS_VALID (u->phase_start))
    u->phase_start = now;

  if (fb->n_packets) {
    n_recv = consume_packets (u, fb, now, &mean_delta, &n_lost);
    batch_loss = (gdouble) n_lost / fb->n_packets;
  }

  sbps = sent_bps (u, now);
  if (fb->has_report) {
    /* RTCP RR fallback: RTT above its minimum is the delay measure (URCP
     * sec. II allows RTT as the delay measure), fraction lost the loss. */
    if (GST_CLOCK_TIME_IS_VALID (fb->rtt)) {
      note_rtt (u, fb->rtt);
      if (fb->n_packets == 0) {
        mean_delta = (gdouble) (fb->rtt - u->rtt_min) / GST_SECOND;
        n_recv = 1;
        if (u->state == RC_STATE_STEADY)
          instance_add_sample (u, &u->delay, now, mean_delta, sbps);
      }
    }
    if (fb->n_packets == 0) {
      gdouble fl = CLAMP (fb->fraction_lost, 0.0, 1.0);
      rc_avg_window_push (&u->loss_short, now, fl);
      if (u->state == RC_STATE_STEADY)
        instance_add_sample (u, &u->loss, now, fl, sbps);
      batch_loss = fl;
      n_lost = fl > 0;
    }
  }

  if (u->state == RC_STATE_STARTUP_LOW || u->state == RC_STATE_STARTUP_RAMP) {
    startup_step (u, mean_delta, n_recv, batch_loss, now);
    u->delay.rate = u->loss.rate = u->rate;
    u->last_update = now;
    return;
  }

  dt = GST_CLOCK_TIME_IS_VALID (u->last_update) && now > u->last_update ?
      (gdouble) MIN (now - u->last_update, MAX_DT) / GST_SECOND : 0;
  u->last_update = now;

  if (n_recv > 0) {
    /* delta^MIN floor follows R^MAX; see DELTA_MIN_FLOOR_S. */
    u->delay.floor = delta_floor (u);
    instance_update_rate (u, &u->delay, mean_delta, dt, sbps);
  }
  if (n_recv + n_lost > 0) {
    gdouble eps = 0;
    rc_avg_window_expire (&u->loss_short, now);
    rc_avg_window_mean (&u->loss_short, &eps);
    instance_update_rate (u, &u->loss, eps, dt, sbps);
  }
  /* URCP sec. VI-E: the rate is the minimum over the congestion signals. */
  u->rate = MIN (u->delay.rate, u->loss.rate);
  u->reason = u->delay.rate <= u->loss.rate ? "delay (eq. 18)" :
      "loss (eq. 18, sec. VI-E)";
  GST_LOG ("%s: R %.0f (delay %.0f, loss %.0f) delta %.2f ms k0 %.0f "
      "k2 %.3f R^MAX %.0f delta^MIN %.2f ms delta^AVE %.2f ms",
      c->klass->name, u->rate, u->delay.rate, u->loss.rate,
      mean_delta * 1000, u->delay.k0, u->delay.k2, u->delay.rmax,
      u->delay.sig_min * 1000, u->delay.sig_ave * 1000);
}

static void
urcp_on_packet_sent (RcController * c, guint64 seq, guint size,
    gboolean is_fec, GstClockTime now)
{
  Urcp *u = (Urcp *) c;

  if (!GST_CLOCK_TIME_IS_VALID (now))
    return;
  if (!GST_CLOCK_TIME_IS_VALID (u->first_sent))
    u->first_sent = now;
  rc_rate_meter_add (&u->sent_meter, now, size);
  u->mean_pkt_bytes = u->mean_pkt_bytes > 0 ?
      0.99 * u->mean_pkt_bytes + 0.01 * size : size;
}

static void
urcp_on_tick (RcController * c, GstClockTime now)
{
  Urcp *u = (Urcp *) c;
  GstClockTime ref, hold, backoff_after;

  if (!GST_CLOCK_TIME_IS_VALID (now))
    return;
  ref = GST_CLOCK_TIME_IS_VALID (u->last_feedback) ? u->last_feedback :
      u->first_sent;
  if (!GST_CLOCK_TIME_IS_VALID (ref) || now <= ref) {
    u->last_tick = now;
    return;
  }
  hold = MAX (FEEDBACK_HOLD, 4 * (u->fb_interval_avg ? u->fb_interval_avg :
          (u->reports_only && u->feedback_count ? REPORT_INTERVAL_GUESS : 0)));
  /* Before any feedback we cannot tell a TWCC peer from one whose first
   * RTCP report is seconds away: hold the (low) start rate for two report
   * intervals before backing off. */
  backoff_after = u->feedback_count ? 2 * hold : 2 * REPORT_INTERVAL_GUESS;
  if (now - ref > backoff_after) {
    GstClockTime since = GST_CLOCK_TIME_IS_VALID (u->last_tick) &&
        u->last_tick > ref + backoff_after ? now - u->last_tick :
        now - (ref + backoff_after);
    u->rate = clamp_rate (u, u->rate *
        pow (0.5, (gdouble) since / BACKOFF_HALVING));
    u->delay.rate = u->loss.rate = u->rate;
    set_state (u, RC_STATE_BACKOFF, "no feedback: backing off");
  } else if (now - ref > hold && u->state != RC_STATE_BACKOFF) {
    set_state (u, RC_STATE_HOLD, "no feedback: holding");
  }
  u->last_tick = now;
}

static RcDecision
urcp_get_decision (RcController * c)
{
  Urcp *u = (Urcp *) c;
  RcDecision d;
  guint64 r = (guint64) clamp_rate (u, u->rate);

  d.media_bps = r;
  d.fec_bps = 0;
  d.pacing_bps = (guint64) (r * c->cfg.pacing_factor);
  d.state = u->state;
  d.reason = u->reason;
  return d;
}

static GstStructure *
urcp_get_stats (RcController * c)
{
  Urcp *u = (Urcp *) c;
  gdouble loss = 0;

  rc_avg_window_mean (&u->loss_short, &loss);
  return gst_structure_new ("urcp-stats",
      "controller", G_TYPE_STRING, c->klass->name,
      "state", G_TYPE_STRING, rc_state_to_string (u->state),
      "reason", G_TYPE_STRING, u->reason ? u->reason : "",
      "target-bitrate", G_TYPE_UINT64, (guint64) u->rate,
      "delay-bitrate", G_TYPE_UINT64, (guint64) u->delay.rate,
      "loss-bitrate", G_TYPE_UINT64, (guint64) u->loss.rate,
      "r-max", G_TYPE_DOUBLE, u->delay.rmax,
      "r-ave", G_TYPE_DOUBLE, u->delay.rave,
      "delta-min-ms", G_TYPE_DOUBLE, u->delay.sig_min * 1000,
      "delta-ave-ms", G_TYPE_DOUBLE, u->delay.sig_ave * 1000,
      "k0", G_TYPE_DOUBLE, u->delay.k0,
      "k2", G_TYPE_DOUBLE, u->delay.k2,
      "loss-min", G_TYPE_DOUBLE, u->loss.sig_min,
      "loss-ave", G_TYPE_DOUBLE, u->loss.sig_ave,
      "loss-k0", G_TYPE_DOUBLE, u->loss.k0,
      "loss-rate", G_TYPE_DOUBLE, loss,
      "rtt-ms", G_TYPE_DOUBLE, GST_CLOCK_TIME_IS_VALID (u->rtt_last) ?
      (gdouble) u->rtt_last / GST_MSECOND : -1.0,
      "rtt-min-ms", G_TYPE_DOUBLE, GST_CLOCK_TIME_IS_VALID (u->rtt_min) ?
      (gdouble) u->rtt_min / GST_MSECOND : -1.0,
      "skew-ppm", G_TYPE_DOUBLE, rc_owd_skew_ppm (&u->owd),
      "feedback-count", G_TYPE_UINT64, u->feedback_count,
      "packets-acked", G_TYPE_UINT64, u->packets_acked,
      "packets-lost", G_TYPE_UINT64, u->packets_lost,
      "owd-resets", G_TYPE_UINT64, u->owd_resets, NULL);
}

static void
urcp_free (RcController * c)
{
  Urcp *u = (Urcp *) c;

  instance_clear (&u->delay);
  instance_clear (&u->loss);
  rc_rate_meter_clear (&u->sent_meter);
  rc_rate_meter_clear (&u->recv_meter);
  rc_avg_window_clear (&u->loss_short);
  g_array_unref (u->low);
  g_free (u);
}

static const RcControllerClass urcp_class = {
  "urcp", urcp_free, urcp_on_feedback, urcp_on_packet_sent, urcp_on_tick,
  urcp_get_decision, urcp_get_stats
};

static const RcControllerClass um_class = {
  "um", urcp_free, urcp_on_feedback, urcp_on_packet_sent, urcp_on_tick,
  urcp_get_decision, urcp_get_stats
};

RcController *
rc_urcp_controller_new (const RcConfig * cfg)
{
  Urcp *u = g_new0 (Urcp, 1);

  if (!rc_urcp_debug)
    GST_DEBUG_CATEGORY_INIT (rc_urcp_debug, "rcurcp", 0, "URCP controller");

  u->adapt = cfg->kind != RC_CONTROLLER_UM;
  u->parent.klass = u->adapt ? &urcp_class : &um_class;
  u->parent.cfg = *cfg;
  u->rate = clamp_rate (u, cfg->start_bps);
  instance_init (&u->delay, "delay", DELTA_MIN_FLOOR_S, u->rate);
  instance_init (&u->loss, "loss", LOSS_MIN_FLOOR, u->rate);
  rc_owd_init (&u->owd);
  rc_rate_meter_init (&u->sent_meter, RATE_METER_SPAN);
  /* Short: at ramp exit it must read the bottleneck rate, not the ramp. */
  rc_rate_meter_init (&u->recv_meter, RATE_METER_SPAN / 4);
  rc_avg_window_init (&u->loss_short, LOSS_SHORT_SPAN, 8192);
  u->low = g_array_new (FALSE, FALSE, sizeof (LowSample));
  u->reports_only = TRUE;
  u->state = RC_STATE_STARTUP_LOW;
  u->reason = "start-up: low-rate phase";
  u->rtt_min = u->rtt_last = GST_CLOCK_TIME_NONE;
  u->first_sent = u->phase_start = GST_CLOCK_TIME_NONE;
  u->last_update = u->last_feedback = u->last_tick = GST_CLOCK_TIME_NONE;
  u->last_ramp_step = u->ramp_limited_since = GST_CLOCK_TIME_NONE;
  return &u->parent;
}
