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
 * (eq. 13). Noise must not end the ramp (RAMP_DELAY_PKTS,
 * RAMP_LOSS_CONFIRM_PKTS), and R^MAX is re-probed in steady state (ENV_RING)
 * because the paper's estimates cannot correct a start-up that ended too
 * early. The loss instance's epsilon^MIN is the measured inherent loss
 * (LOSS_NOISE_HORIZON_S), not eq. 15.
 *
 * What was actually sent: every rate that feeds R^AVE (and so R^MAX, eq. 14)
 * is min(R(t), measured send rate). An encoder that stays below its target
 * (application-limited) therefore cannot raise R^MAX, and a target the
 * encoder never reached never counts as probed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
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
/* epsilon^MIN, the inherent loss (eq. 2) that the loss instance must not
 * treat as congestion. Eq. 15 (min of 5 s averages) does not work for loss:
 * at the 0.1-2 % bursty loss of sec. II and tens of packets per second a
 * 5 s window holds one or two loss events, so its minimum drops to 0 within
 * seconds; epsilon^MIN then sits below the inherent loss, the case sec.
 * VII-B says cannot be corrected and costs rate quadratically (the loss
 * instance held WiMAX and HSPA+ down). Instead epsilon^MIN is the loss rate
 * of the packets reported while the delay instance governs the rate (and
 * during start-up before any loss is confirmed): a drop-tail queue does not
 * overflow while the delay instance holds it near delta^MIN, so that loss
 * is inherent by eq. 2's definition. Laplace's rule of succession, (lost +
 * 1) / (packets + 2), makes a short history err high, the side eq. 15 and
 * sec. VII-B say is cheap; the counts decay with this time constant, long
 * enough to hold ~15 loss bursts at WiMAX's 1.85 % and 45 packets/s. */
#define LOSS_NOISE_HORIZON_S 60.0
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

/* Re-probing R^MAX. Eq. 14 raises R^MAX only when R^AVE exceeds it, and in
 * the operating point of eq. 19 R^AVE stays below R^MAX whenever delta^AVE
 * is above delta^MIN. On noisy links the low phase's delta^MIN is low (1 s
 * at the start rate: WiMAX 28-38 ms, against 47-50 ms of delay at 50-90 %
 * load, more packets waiting behind a delayed one), so a flow with an R^MAX
 * from a ramp cut short by noise never saw a higher rate again (WiMAX held
 * at 273 kbit/s of 480). Sec. VII-B: under-estimated delta^MIN or
 * over-estimated R^MAX can only be corrected by re-probing. delta^MIN stays
 * under eq. 15 (letting it rise fed a shared queue back into every flow's
 * target: 5 flows went to 120 ms); R^MAX is re-probed instead, and an R^MAX
 * above the capacity is what offsets a low delta^MIN in eq. 19.
 *
 * A probe is allowed only when the path shows no standing queue, is
 * tentative, and is undone when a standing queue appears:
 *  - Standing queue: the lower envelope of the delay (each packet's lowest
 *    neighbour within +-STARTUP_ENVELOPE_HALF, the low phase's estimator),
 *    averaged over the R^AVE window, above its lowest such average since
 *    the start. Noise moves fast and only adds delay, so the envelope stays
 *    near the path's floor; a queue that stands for longer than the
 *    envelope width (ours at the capacity, or other flows') lifts it. The
 *    envelope is of the raw OWD (receive minus send time; the receiver's
 *    offset cancels in every difference used), not of delta: rc-owd's base
 *    moves whenever its skew estimate does. */
#define ENV_RING 16384
/* "No standing queue": the envelope less than 0.2 delta^MIN above its
 * floor. By eq. 19 one probe step at the capacity (R^MAX 10 % high) leaves
 * a standing queue of delta^MIN (sqrt (1.1) - 1) / (1 - beta) ~ 0.24
 * delta^MIN; less than that is no sign of a full link. */
#define NO_QUEUE_FRACTION 0.2
/*  - A probe multiplies R^MAX by 1 + gain, gain 0.1 at first and doubled to
 *    0.2 after a probe the rate followed. A success is kept even if the rate
 *    reaches the new R^MAX only later, so each step is bounded: by eq. 19 an
 *    R^MAX 20 % high costs at most 0.48 delta^MIN of standing queue (a gain
 *    of 1 let R^MAX reach 1.6x the capacity in the core test).
 *  - It fails, and R^MAX returns to max(its old value, R^AVE), when the
 *    envelope rises above its value at the probe's start by
 *    NO_QUEUE_FRACTION delta^MIN plus two standard errors of that start
 *    value (one independent envelope value per envelope width). Failures
 *    double the wait before the next probe, up to 8 windows (40 s): a flow
 *    at the capacity pays at most one window of a 10 % R^MAX excess (0.24
 *    delta^MIN of queue) every 40 s.
 *  - It succeeds after one window (the R^AVE span) without that rise. */
#define RMAX_PROBE_GAIN 0.1
#define RMAX_PROBE_GAIN_MAX 0.2
#define RMAX_PROBE_WAIT_MAX (8 * WINDOW_SPAN)
#define PROBE_SE 2.0
/*  - Only when the encoder delivers at least 90 % of the target (frame sizes
 *    vary, +-2 % over 1 s at 30 fps; an application-limited source has
 *    nothing to probe with), the delay instance governs (the loss instance
 *    is not holding the rate), and R^MAX leads R^AVE by at most one
 *    doubling: a rate that does not follow R^MAX up stops the probing.
 *  - The first probe waits two windows after start-up: one for the ramp's
 *    queue to drain (a draining queue lowers the envelope and would pass
 *    any probe), one for a clean reference. */
#define PROBE_MIN_SENT 0.9
#define PROBE_LEAD 2.0
/* Ramp doubles the rate every max(2 RTT_min, 200 ms): one RTT to see the
 * effect of a step and one for the encoder (RFC 8867 sec. 4 gives ~100 ms
 * for a codec to follow a new target). */
#define RAMP_DOUBLING_MIN (200 * GST_MSECOND)
/* Ramp exit: the delay of the last RAMP_DELAY_PKTS packets above the level
 * when the ramp began plus delta^MIN + 10 ms, or more than 10 % loss. The
 * level at the start (the low-rate phase's mean delay) counts a queue other
 * flows already hold, so a late joiner ramps until it adds delay itself,
 * not until it meets theirs. Alone on the path that level is ~delta^MIN. */
#define RAMP_EXIT_DELAY_ABS_S 0.010
#define RAMP_EXIT_LOSS 0.10
/* The delay test takes the median of the newest 10 packets, not one
 * feedback batch's mean: a batch holds 1-3 packets at the start rate, and on
 * the noisy links of sec. II (4G: a heavy tail up to 350 ms) one delayed
 * packet exceeds the margin of delta^MIN + 10 ms often, which ended the
 * ramp at once and left R^MAX at the start rate. The queue an overshooting
 * ramp builds delays every packet; a noise spike delays a few, and the
 * median ignores up to 4 of 10. It costs about 5 packets of lag. A long
 * noise spike also holds every packet behind it (in-order delivery), so
 * the level must also exceed the largest median of 10 consecutive packets
 * that the low-rate phase saw, which is noise by construction. */
#define RAMP_DELAY_PKTS 10
/* Loss must be confirmed. A feedback batch holds 1-3 packets at the start
 * rate, so one inherent loss (sec. II: 0.4-1.9 % on 4G and WiMAX, in bursts)
 * is a 30-100 % batch loss. Overflow from a ramp that passed the capacity
 * persists while the rate stays above it; a burst of inherent loss does not
 * (eq. 2: inherent loss does not depend on the rate). So a lossy batch only
 * pauses the ramp; it ends by loss if the packets reported over the next
 * doubling period, and at least this many, still lose more than
 * RAMP_EXIT_LOSS. With 10 packets one lone loss is not enough. */
#define RAMP_LOSS_CONFIRM_PKTS 10
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
  gdouble raw;                  /* raw OWD - raw0, s (see ENV_RING) */
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
  /* standing-queue detector, see ENV_RING: raw OWD samples by send time
   * (the delta field holds raw OWD - raw0); indices count samples ever
   * added */
  LowSample *ebuf;
  guint64 *edq;                 /* monotonic deque of sample indices */
  guint64 n_added, n_done, n_right, dq_head, dq_tail;
  RcAvgWindow env_win;          /* each sample's envelope, s */
  RcAvgWindow env2_win;         /* its square, for env_se */
  gdouble env_se;               /* standard error of env_win's mean */
  gint64 raw0;                  /* first raw OWD, ns */
  gboolean have_raw0;
  gdouble env_floor;            /* lowest env_win mean; G_MAXDOUBLE: none */
  /* R^MAX probe */
  gboolean probe_pending;
  gdouble rmax_before, probe_gain, probe_env, probe_se, probe_rave;
  GstClockTime probe_at, next_probe, probe_wait;
  guint probes, probes_failed;
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
  gdouble ramp_delays[RAMP_DELAY_PKTS]; /* newest packets' delta, ring */
  guint ramp_n_delays;
  gdouble ramp_noise_max;       /* largest such median in the low phase */
  GstClockTime ramp_loss_since; /* a lossy batch paused the ramp */
  guint ramp_check_pkts, ramp_check_lost;       /* reported since then */
  gdouble ramp_pend_pkts, ramp_pend_lost;       /* the same and that batch */

  /* inherent loss: see LOSS_NOISE_HORIZON_S */
  gdouble noise_pkts, noise_lost;
  GstClockTime noise_decayed;

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

/* Add one raw OWD sample (s) to the standing-queue detector and finish
 * every sample whose +-STARTUP_ENVELOPE_HALF window is now complete: its
 * lower envelope is the head of a monotonic deque (each sample enters and
 * leaves it once), and goes into env_win. */
static void
env_add_sample (Urcp * u, GstClockTime ts, gdouble raw, GstClockTime now)
{
  const GstClockTime h = STARTUP_ENVELOPE_HALF;
  LowSample *b = u->ebuf;
  LowSample x = { ts, raw, raw };

  /* Out of order (TWCC reports in send order, so only after a clock
   * jump): drop. */
  if (u->n_added > 0 && ts < b[(u->n_added - 1) % ENV_RING].ts)
    return;
  b[u->n_added++ % ENV_RING] = x;

  while (u->n_done < u->n_added &&
      (b[u->n_done % ENV_RING].ts + h <= ts ||
          u->n_added - u->n_done > ENV_RING / 2)) {
    GstClockTime t = b[u->n_done % ENV_RING].ts;

    while (u->n_right < u->n_added && b[u->n_right % ENV_RING].ts <= t + h) {
      gdouble d = b[u->n_right % ENV_RING].delta;
      while (u->dq_tail > u->dq_head &&
          b[u->edq[(u->dq_tail - 1) % ENV_RING] % ENV_RING].delta >= d)
        u->dq_tail--;
      u->edq[u->dq_tail++ % ENV_RING] = u->n_right++;
    }
    while (u->dq_tail > u->dq_head &&
        (b[u->edq[u->dq_head % ENV_RING] % ENV_RING].ts + h < t ||
            u->edq[u->dq_head % ENV_RING] + ENV_RING / 2 < u->n_done))
      u->dq_head++;
    if (u->dq_tail > u->dq_head) {
      gdouble env = b[u->edq[u->dq_head % ENV_RING] % ENV_RING].delta;
      rc_avg_window_push (&u->env_win, now, env);
      rc_avg_window_push (&u->env2_win, now, env * env);
    }
    u->n_done++;
  }
}

/* The envelope's floor: the lowest envelope window mean since the start
 * (the low-rate phase's included). All-time, not windowed: with a 2-minute
 * floor (tried) flows sharing a long-standing queue forgot the empty queue,
 * all saw "no standing queue" and probed each other upward, the latecomer
 * problem of a forgetting base (RFC 6817 sec. 4.4). The price: a receiver
 * clock running fast raises the raw OWD (100 ppm: 6 ms a minute), which
 * can only close the gate (stop probing), never open it. */
static void
env_floor_add (Urcp * u, gdouble e)
{
  u->env_floor = MIN (u->env_floor, e);
}

/* TRUE when the envelope's window mean is within NO_QUEUE_FRACTION
 * delta^MIN of its floor (ENV_RING). Also updates env_se. */
static gboolean
no_standing_queue (Urcp * u)
{
  gdouble env, env2, se;
  GstClockTime age = rc_avg_window_age (&u->env_win);

  if (u->env_floor == G_MAXDOUBLE || age < WINDOW_MIN_AGE ||
      !rc_avg_window_mean (&u->env_win, &env) ||
      !rc_avg_window_mean (&u->env2_win, &env2))
    return FALSE;
  /* standard error of the window mean: neighbours share their envelope, so
   * count one independent value per envelope width */
  se = sqrt (MAX (env2 - env * env, 0) * 2 * STARTUP_ENVELOPE_HALF / age);
  u->env_se = se;
  return env - u->env_floor < NO_QUEUE_FRACTION * u->delay.sig_min;
}

/* Re-probing R^MAX: see ENV_RING and the constants after it. Called with
 * every delay sample once the R^AVE window is old enough. */
static void
rmax_probe (Urcp * u, GstClockTime now, gdouble sent)
{
  UrcpInstance *in = &u->delay;
  gboolean clear = no_standing_queue (u);
  gdouble env = 0;

  if (rc_avg_window_age (&u->env_win) >= WINDOW_MIN_AGE &&
      rc_avg_window_mean (&u->env_win, &env))
    env_floor_add (u, env);
  if (u->probe_pending) {
    if (env - u->probe_env > NO_QUEUE_FRACTION * in->sig_min +
        PROBE_SE * u->probe_se) {
      /* Failed: the link was full. Back to what was known, or what was
       * got meanwhile, and wait longer before the next probe. */
      in->rmax = MAX (u->rmax_before, in->rave);
      u->probe_pending = FALSE;
      u->probe_gain = RMAX_PROBE_GAIN;
      u->probe_wait = MIN (2 * u->probe_wait, RMAX_PROBE_WAIT_MAX);
      u->next_probe = now + u->probe_wait;
      u->probes_failed++;
    } else if (now >= u->probe_at + WINDOW_SPAN) {
      /* A window without a standing queue: keep it. Go faster only if
       * the rate followed. */
      u->probe_pending = FALSE;
      if (in->rave >= u->probe_rave * (1 + u->probe_gain / 2))
        u->probe_gain = MIN (2 * u->probe_gain, RMAX_PROBE_GAIN_MAX);
      u->probe_wait = WINDOW_SPAN;
      u->next_probe = now;
    }
    return;
  }
  if (clear && now >= u->next_probe &&
      in->rave * PROBE_LEAD >= in->rmax &&
      sent >= PROBE_MIN_SENT * in->rate && u->delay.rate <= u->loss.rate &&
      in->rmax < u->parent.cfg.max_bps) {
    u->rmax_before = in->rmax;
    u->probe_env = env;
    u->probe_se = u->env_se;
    u->probe_rave = in->rave;
    in->rmax = MAX (in->rmax, in->rave) * (1 + u->probe_gain);
    u->probe_pending = TRUE;
    u->probe_at = now;
    u->probes++;
  }
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
    if (in == &u->delay) {
      in->sig_min = MIN (in->sig_min, in->sig_ave);     /* eq. 15 */
      rmax_probe (u, now, sent_bps);
    }
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

/* Count reported packets towards the inherent loss estimate. */
static void
loss_noise_add (Urcp * u, gdouble pkts, gdouble lost, GstClockTime now)
{
  if (GST_CLOCK_TIME_IS_VALID (u->noise_decayed) && now > u->noise_decayed) {
    gdouble f = exp (-(gdouble) (now - u->noise_decayed) / GST_SECOND /
        LOSS_NOISE_HORIZON_S);
    u->noise_pkts *= f;
    u->noise_lost *= f;
  }
  u->noise_decayed = now;
  u->noise_pkts += pkts;
  u->noise_lost += lost;
}

static gdouble
loss_noise (Urcp * u)
{
  return MAX ((u->noise_lost + 1) / (u->noise_pkts + 2), LOSS_MIN_FLOOR);
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
  u->loss.sig_min = loss_noise (u);
  /* eq. 13: initial k0 = R^MAX delta^MIN */
  u->delay.k0 = rmax * u->delay.sig_min;
  u->loss.k0 = rmax * u->loss.sig_min;
  u->delay.rate = u->loss.rate = u->rate = r0;
  u->phase_start = now;
  set_state (u, RC_STATE_STEADY, reason);
  u->next_probe = now + 2 * WINDOW_SPAN;
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
    gdouble delta, raw_s;
    gint64 raw;

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
      u->have_raw0 = FALSE;
      u->env_floor = G_MAXDOUBLE;
      u->n_done = u->n_right = u->n_added;
      u->dq_head = u->dq_tail = 0;
      rc_avg_window_reset (&u->env_win);
      rc_avg_window_reset (&u->env2_win);
      GST_WARNING ("receiver clock jumped (OWD changed by more than 5 s); "
          "delay base restarted");
    }
    raw = (gint64) p->recv_ts - (gint64) p->send_ts;
    if (!u->have_raw0) {
      u->raw0 = raw;
      u->have_raw0 = TRUE;
    }
    raw_s = (gdouble) (raw - u->raw0) / GST_SECOND;
    u->packets_acked++;
    n_recv++;
    sum += delta;
    rc_rate_meter_add (&u->recv_meter, p->recv_ts, p->size);
    rc_avg_window_push (&u->loss_short, now, 0.0);
    if (u->state == RC_STATE_STEADY) {
      env_add_sample (u, p->send_ts, raw_s, now);
      instance_add_sample (u, &u->delay, now, delta, sbps);
      instance_add_sample (u, &u->loss, now, 0.0, sbps);
    } else if (u->state == RC_STATE_STARTUP_LOW &&
        u->low->len < STARTUP_MAX_SAMPLES) {
      LowSample ls = { p->send_ts, delta, raw_s };
      g_array_append_val (u->low, ls);
    } else if (u->state == RC_STATE_STARTUP_RAMP) {
      u->ramp_delays[u->ramp_n_delays++ % RAMP_DELAY_PKTS] = delta;
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
double_cmp (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y;
}

/* Median of the newest RAMP_DELAY_PKTS delay samples (fewer at first). */
static gdouble
ramp_median (Urcp * u)
{
  gdouble d[RAMP_DELAY_PKTS];
  guint n = MIN (u->ramp_n_delays, RAMP_DELAY_PKTS);

  if (n == 0)
    return 0;
  memcpy (d, u->ramp_delays, n * sizeof (gdouble));
  qsort (d, n, sizeof (gdouble), double_cmp);
  return n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
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
 * the samples per window. Returns the samples' plain mean in *mean and the
 * mean envelope of their raw OWD (ENV_RING) in *env_mean. */
static gdouble
low_phase_noise (Urcp * u, gdouble * mean, gdouble * env_mean)
{
  const LowSample *x;
  guint n = u->low->len, i, j, lo = 0;
  gdouble sum = 0, total = 0, env_sum = 0, raw_env;

  g_array_sort (u->low, low_sample_cmp);
  x = (const LowSample *) u->low->data;
  for (i = 0; i < n; i++) {
    gdouble env = x[i].delta;
    while (lo < i && x[lo].ts + STARTUP_ENVELOPE_HALF < x[i].ts)
      lo++;
    raw_env = x[i].raw;
    for (j = lo; j < n && x[j].ts <= x[i].ts + STARTUP_ENVELOPE_HALF; j++) {
      env = MIN (env, x[j].delta);
      raw_env = MIN (raw_env, x[j].raw);
    }
    sum += x[i].delta - env;
    total += x[i].delta;
    env_sum += raw_env;
  }
  *mean = n ? total / n : 0;
  *env_mean = n ? env_sum / n : 0;
  return n ? sum / n : 0;
}

/* `n_pkts` packets reported in this feedback, `n_lost` of them lost, or
 * n_pkts 0 and `loss` a report's fraction lost; `pkts`, `lost`: the same
 * as counts (estimated for a report), for the inherent loss estimate. */
static void
startup_step (Urcp * u, gdouble mean_delta, guint n_recv, guint n_pkts,
    guint n_lost, gdouble loss, gdouble pkts, gdouble lost, GstClockTime now)
{
  GstClockTime dbl = MAX (2 * (GstClockTime) (rtt_min_s (u) * GST_SECOND),
      RAMP_DOUBLING_MIN);

  if (u->state == RC_STATE_STARTUP_LOW) {
    loss_noise_add (u, pkts, lost, now);
    /* RTCP-only feedback has no per-packet samples: use report deltas. */
    if (u->low->len == 0 && n_recv > 0 && u->feedback_count >= 2) {
      u->delay.sig_min = MAX (u->delay.sig_min, mean_delta);
    }
    if ((u->low->len >= STARTUP_LOW_MIN_SAMPLES ||
            (u->low->len == 0 && u->feedback_count >= 3)) &&
        now >= u->phase_start + STARTUP_LOW_MIN_TIME) {
      if (u->low->len) {
        gdouble e;
        guint i;
        u->delay.sig_min = low_phase_noise (u, &u->ramp_ref, &e);
        env_floor_add (u, e);
        /* The ramp's delay test starts from the newest low-phase packets
         * (sorted by low_phase_noise), so it never judges fewer than
         * RAMP_DELAY_PKTS. */
        for (i = 0; i < u->low->len; i++) {
          u->ramp_delays[u->ramp_n_delays++ % RAMP_DELAY_PKTS] =
              g_array_index (u->low, LowSample, i).delta;
          if (u->ramp_n_delays >= RAMP_DELAY_PKTS)
            u->ramp_noise_max = MAX (u->ramp_noise_max, ramp_median (u));
        }
      } else {
        u->ramp_ref = u->delay.sig_min;
      }
      u->delay.sig_min = MAX (u->delay.sig_min, DELTA_MIN_FLOOR_S);
      u->phase_start = u->last_ramp_step = now;
      set_state (u, RC_STATE_STARTUP_RAMP, "low-rate phase done");
      GST_DEBUG ("%s: initial delta^MIN %.2f ms (mean delta %.2f ms) from "
          "%u packets", u->parent.klass->name, u->delay.sig_min * 1000,
          u->ramp_ref * 1000, u->low->len);
      g_array_set_size (u->low, 0);
    }
    return;
  }

  /* RC_STATE_STARTUP_RAMP */
  {
    const gchar *why = NULL;
    gboolean check_open = GST_CLOCK_TIME_IS_VALID (u->ramp_loss_since);
    gdouble ramp_delta = mean_delta;
    guint n = MIN (u->ramp_n_delays, RAMP_DELAY_PKTS);

    /* Per-packet feedback: the newest RAMP_DELAY_PKTS packets' median. */
    if (n_pkts > 0 && n > 0)
      ramp_delta = ramp_median (u);
    if (check_open) {
      u->ramp_check_pkts += n_pkts;
      u->ramp_check_lost += n_lost;
      u->ramp_pend_pkts += pkts;
      u->ramp_pend_lost += lost;
    }
    if (n_recv > 0 && ramp_delta > MAX (MAX (u->ramp_ref, u->delay.sig_min) +
            u->delay.sig_min, u->ramp_noise_max) + RAMP_EXIT_DELAY_ABS_S) {
      why = "ramp stopped by delay";
    } else if (n_pkts == 0 && loss > RAMP_EXIT_LOSS) {
      /* An RTCP report's fraction lost already covers seconds of packets. */
      why = "ramp stopped by loss";
    } else if (check_open && now >= u->ramp_loss_since + dbl &&
        u->ramp_check_pkts >= RAMP_LOSS_CONFIRM_PKTS) {
      if (u->ramp_check_lost > RAMP_EXIT_LOSS * u->ramp_check_pkts) {
        why = "ramp stopped by loss";
      } else {
        GST_DEBUG ("%s: ramp loss not confirmed (%u of %u lost): inherent "
            "loss, ramp resumes", u->parent.klass->name, u->ramp_check_lost,
            u->ramp_check_pkts);
        /* Then what the pause saw, and the batch that caused it, was
         * inherent loss. */
        loss_noise_add (u, u->ramp_pend_pkts, u->ramp_pend_lost, now);
        u->ramp_loss_since = GST_CLOCK_TIME_NONE;
        check_open = FALSE;
      }
    } else if (!check_open && n_pkts > 0 &&
        n_lost > RAMP_EXIT_LOSS * n_pkts) {
      u->ramp_loss_since = now;
      u->ramp_check_pkts = u->ramp_check_lost = 0;
      u->ramp_pend_pkts = pkts;
      u->ramp_pend_lost = lost;
      check_open = TRUE;
    } else if (!check_open) {
      loss_noise_add (u, pkts, lost, now);
    }
    if (!why && check_open) {
      /* Hold the rate while the loss is being confirmed. */
      u->last_ramp_step = now;
      u->reason = "slow-start ramp: confirming loss";
      return;
    }
    if (why) {
      /* What the receiver got, on its own clock, up to its newest arrival. */
      gdouble got = rc_rate_meter_bps (&u->recv_meter,
          rc_avg_window_newest (&u->recv_meter.w));
      gdouble rmax = got > 0 ? MIN (got, u->rate) : u->rate;
      enter_steady (u, rmax, u->delay.sig_min, now, why);
      return;
    }
    if (GST_CLOCK_TIME_IS_VALID (u->ramp_limited_since) &&
        now >= u->ramp_limited_since + RAMP_APP_LIMITED_TIME) {
      gdouble got = rc_rate_meter_bps (&u->recv_meter,
          rc_avg_window_newest (&u->recv_meter.w));
      enter_steady (u, got > 0 ? MIN (got, u->rate) : u->rate,
          u->delay.sig_min, now, "ramp stopped: application-limited");
      return;
    }
  }
  if (u->rate >= u->parent.cfg.max_bps) {
    enter_steady (u, u->rate, u->delay.sig_min, now, "ramp reached max");
    return;
  }
  {
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
  gdouble sbps, noise_pkts = 0, noise_lost = 0;

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

  if (fb->n_packets) {
    noise_pkts = fb->n_packets;
    noise_lost = n_lost;
  } else if (fb->has_report && u->mean_pkt_bytes > 0) {
    /* A report covers the packets sent since the last one. */
    noise_pkts = sbps * u->fb_interval_avg / GST_SECOND /
        (8 * u->mean_pkt_bytes);
    noise_lost = batch_loss * noise_pkts;
  }

  if (u->state == RC_STATE_STARTUP_LOW || u->state == RC_STATE_STARTUP_RAMP) {
    startup_step (u, mean_delta, n_recv, fb->n_packets, n_lost, batch_loss,
        noise_pkts, noise_lost, now);
    u->delay.rate = u->loss.rate = u->rate;
    u->last_update = now;
    return;
  }

  dt = GST_CLOCK_TIME_IS_VALID (u->last_update) && now > u->last_update ?
      (gdouble) MIN (now - u->last_update, MAX_DT) / GST_SECOND : 0;
  u->last_update = now;

  /* Inherent loss: what is lost while the delay instance governs (see
   * LOSS_NOISE_HORIZON_S). */
  if (u->adapt && noise_pkts > 0 && u->delay.rate <= u->loss.rate) {
    loss_noise_add (u, noise_pkts, noise_lost, now);
    u->loss.sig_min = loss_noise (u);
  }

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
  gdouble loss = 0, env = 0;

  rc_avg_window_mean (&u->loss_short, &loss);
  rc_avg_window_mean (&u->env_win, &env);
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
      "standing-queue-ms", G_TYPE_DOUBLE, u->env_floor < G_MAXDOUBLE ?
      (env - u->env_floor) * 1000 : 0.0,
      "probes", G_TYPE_UINT, u->probes,
      "probes-failed", G_TYPE_UINT, u->probes_failed,
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
  rc_avg_window_clear (&u->env_win);
  rc_avg_window_clear (&u->env2_win);
  g_free (u->ebuf);
  g_free (u->edq);
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
  u->env_floor = G_MAXDOUBLE;
  u->ebuf = g_new (LowSample, ENV_RING);
  u->edq = g_new (guint64, ENV_RING);
  rc_avg_window_init (&u->env_win, WINDOW_SPAN, WINDOW_MAX_SAMPLES);
  rc_avg_window_init (&u->env2_win, WINDOW_SPAN, WINDOW_MAX_SAMPLES);
  u->probe_gain = RMAX_PROBE_GAIN;
  u->probe_wait = WINDOW_SPAN;
  u->next_probe = 0;
  u->reports_only = TRUE;
  u->state = RC_STATE_STARTUP_LOW;
  u->reason = "start-up: low-rate phase";
  u->rtt_min = u->rtt_last = GST_CLOCK_TIME_NONE;
  u->first_sent = u->phase_start = GST_CLOCK_TIME_NONE;
  u->last_update = u->last_feedback = u->last_tick = GST_CLOCK_TIME_NONE;
  u->last_ramp_step = u->ramp_limited_since = GST_CLOCK_TIME_NONE;
  u->ramp_loss_since = u->noise_decayed = GST_CLOCK_TIME_NONE;
  return &u->parent;
}
