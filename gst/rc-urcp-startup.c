/* URCP start-up (seed 000 sec. VI-A), core.
 *
 * The paper: "The initial value of delta^MIN is obtained by first sending
 * data at a low rate and averaging the delay measure for the corresponding
 * packets. The initial value of R^MAX is obtained by using a slow start
 * (exponential) ramp-up." k0 then starts at R^MAX delta^MIN (eq. 13).
 *
 * What we add, each measured on the noisy links of sec. II: the low phase
 * estimates the noise against the delay's lower envelope (so a queue other
 * flows hold is not taken for noise); the ramp's exit tests judge a median
 * of packets and confirm loss before ending (one noise spike or one
 * inherent loss must not end the ramp); the ramp only leads what the
 * encoder actually sends by one doubling; the steady state restarts below
 * what the receiver got so the ramp's queue drains.
 */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "rc-urcp-private.h"

#define GST_CAT_DEFAULT rc_urcp_debug

#define STARTUP_LOW_MIN_TIME (1 * GST_SECOND)
#define STARTUP_LOW_MIN_SAMPLES 3
#define STARTUP_MAX_SAMPLES 4096

/* Ramp doubles the rate every max(2 RTT_min, 200 ms): one RTT to see the
 * effect of a step and one for the encoder (RFC 8867 sec. 4 gives ~100 ms
 * for a codec to follow a new target). */
#define RAMP_DOUBLING_MIN (200 * GST_MSECOND)
/* Ramp exit: the delay of the last URCP_RAMP_DELAY_PKTS packets above the
 * level when the ramp began plus delta^MIN + 10 ms, or more than 10 %
 * loss. The level at the start (the low-rate phase's mean delay) counts a
 * queue other flows already hold, so a late joiner ramps until it adds
 * delay itself, not until it meets theirs. Alone on the path that level is
 * ~delta^MIN. */
#define RAMP_EXIT_DELAY_ABS_S 0.010
#define RAMP_EXIT_LOSS 0.10
/* The delay test takes the median of the newest 10 packets
 * (URCP_RAMP_DELAY_PKTS), not one feedback batch's mean: a batch holds 1-3
 * packets at the start rate, and on the noisy links of sec. II (4G: a
 * heavy tail up to 350 ms) one delayed packet exceeds the margin of
 * delta^MIN + 10 ms often, which ended the ramp at once and left R^MAX at
 * the start rate. The queue an overshooting ramp builds delays every
 * packet; a noise spike delays a few, and the median ignores up to 4 of
 * 10. It costs about 5 packets of lag. A long noise spike also holds every
 * packet behind it (in-order delivery), so the level must also exceed the
 * largest median of 10 consecutive packets that the low-rate phase saw,
 * which is noise by construction. */
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

void
rc_urcp_startup_sample (Urcp * u, GstClockTime send_ts, gdouble delta,
    gdouble raw)
{
  if (u->phase == URCP_STARTUP_LOW && u->low->len < STARTUP_MAX_SAMPLES) {
    UrcpSample ls = { send_ts, delta, raw };
    g_array_append_val (u->low, ls);
  } else if (u->phase == URCP_STARTUP_RAMP) {
    u->ramp_delays[u->ramp_n_delays++ % URCP_RAMP_DELAY_PKTS] = delta;
  }
}

static gint
double_cmp (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y;
}

/* Median of the newest URCP_RAMP_DELAY_PKTS delay samples (fewer at
 * first). */
static gdouble
ramp_median (Urcp * u)
{
  gdouble d[URCP_RAMP_DELAY_PKTS];
  guint n = MIN (u->ramp_n_delays, URCP_RAMP_DELAY_PKTS);

  if (n == 0)
    return 0;
  memcpy (d, u->ramp_delays, n * sizeof (gdouble));
  qsort (d, n, sizeof (gdouble), double_cmp);
  return n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
}

static gint
sample_cmp (gconstpointer a, gconstpointer b)
{
  GstClockTime ta = ((const UrcpSample *) a)->ts;
  GstClockTime tb = ((const UrcpSample *) b)->ts;
  return ta < tb ? -1 : ta > tb;
}

/* Mean height of the samples above their local lower envelope; see
 * URCP_ENVELOPE_HALF. Sorted by send time first (feedback may report out
 * of order), then a two-pointer sweep finds each window; O(n w) with w the
 * samples per window. Returns the samples' plain mean in *mean and the
 * mean envelope of their raw OWD (URCP_ENV_RING) in *env_mean. */
static gdouble
low_phase_noise (Urcp * u, gdouble * mean, gdouble * env_mean)
{
  const UrcpSample *x;
  guint n = u->low->len, i, j, lo = 0;
  gdouble sum = 0, total = 0, env_sum = 0, raw_env;

  g_array_sort (u->low, sample_cmp);
  x = (const UrcpSample *) u->low->data;
  for (i = 0; i < n; i++) {
    gdouble env = x[i].delta;
    while (lo < i && x[lo].ts + URCP_ENVELOPE_HALF < x[i].ts)
      lo++;
    raw_env = x[i].raw;
    for (j = lo; j < n && x[j].ts <= x[i].ts + URCP_ENVELOPE_HALF; j++) {
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

/* The end of start-up: R^MAX and delta^MIN are known; eq. 13 sets k0. */
static void
enter_steady (Urcp * u, gdouble rmax, gdouble delta_min, GstClockTime now,
    const gchar * reason)
{
  gdouble r0 = rc_urcp_clamp_rate (u, rmax * RAMP_EXIT_DRAIN);

  u->delay.rmax = u->loss.rmax = rmax;
  u->delay.sig_min = MAX (delta_min, rc_urcp_delta_floor (u));
  u->loss.sig_min = rc_urcp_loss_noise (u);
  /* eq. 13: initial k0 = R^MAX delta^MIN */
  u->delay.k0 = rmax * u->delay.sig_min;
  u->loss.k0 = rmax * u->loss.sig_min;
  u->delay.rate = u->loss.rate = u->rate = r0;
  u->phase_start = now;
  rc_urcp_set_phase (u, URCP_STEADY, reason);
  u->next_probe = now + 2 * URCP_WINDOW_SPAN;
  GST_DEBUG ("%s: start-up done after %.3f s: R^MAX %.0f bit/s, "
      "delta^MIN %.2f ms, k0 %.0f bits, restart at %.0f bit/s",
      u->parent.info->name,
      (gdouble) (now - u->first_sent) / GST_SECOND, rmax,
      u->delay.sig_min * 1000, u->delay.k0, r0);
}

/* What the receiver got, on its own clock, up to its newest arrival, as
 * the start of R^MAX. */
static gdouble
ramp_rmax (Urcp * u)
{
  gdouble got = rc_rate_meter_bps (&u->recv_meter,
      rc_avg_window_newest (&u->recv_meter.w));
  return got > 0 ? MIN (got, u->rate) : u->rate;
}

static void
low_phase_step (Urcp * u, gdouble mean_delta, guint n_recv, gdouble pkts,
    gdouble lost, GstClockTime now)
{
  rc_urcp_loss_noise_add (u, pkts, lost, now);
  /* RTCP-only feedback has no per-packet samples: use report deltas. */
  if (u->low->len == 0 && n_recv > 0 && u->feedback_count >= 2)
    u->delay.sig_min = MAX (u->delay.sig_min, mean_delta);
  if (!((u->low->len >= STARTUP_LOW_MIN_SAMPLES ||
              (u->low->len == 0 && u->feedback_count >= 3)) &&
          now >= u->phase_start + STARTUP_LOW_MIN_TIME))
    return;
  if (u->low->len) {
    gdouble e;
    guint i;
    u->delay.sig_min = low_phase_noise (u, &u->ramp_ref, &e);
    rc_urcp_env_floor_add (u, e);
    /* The ramp's delay test starts from the newest low-phase packets
     * (sorted by low_phase_noise), so it never judges fewer than
     * URCP_RAMP_DELAY_PKTS. */
    for (i = 0; i < u->low->len; i++) {
      u->ramp_delays[u->ramp_n_delays++ % URCP_RAMP_DELAY_PKTS] =
          g_array_index (u->low, UrcpSample, i).delta;
      if (u->ramp_n_delays >= URCP_RAMP_DELAY_PKTS)
        u->ramp_noise_max = MAX (u->ramp_noise_max, ramp_median (u));
    }
  } else {
    u->ramp_ref = u->delay.sig_min;
  }
  u->delay.sig_min = MAX (u->delay.sig_min, u->delay.floor);
  u->phase_start = u->last_ramp_step = now;
  rc_urcp_set_phase (u, URCP_STARTUP_RAMP,
      "start-up: doubling the rate to find the capacity");
  GST_DEBUG ("%s: initial delta^MIN %.2f ms (mean delta %.2f ms) from "
      "%u packets", u->parent.info->name, u->delay.sig_min * 1000,
      u->ramp_ref * 1000, u->low->len);
  g_array_set_size (u->low, 0);
}

/* `n_pkts` packets reported in this feedback, `n_lost` of them lost, or
 * n_pkts 0 and `loss` a report's fraction lost; `pkts`, `lost`: the same
 * as counts (estimated for a report), for the inherent loss estimate. */
void
rc_urcp_startup_step (Urcp * u, gdouble mean_delta, guint n_recv,
    guint n_pkts, guint n_lost, gdouble loss, gdouble pkts, gdouble lost,
    GstClockTime now)
{
  GstClockTime dbl = MAX (2 * (GstClockTime) (rc_urcp_rtt_min_s (u) *
          GST_SECOND), RAMP_DOUBLING_MIN);
  const gchar *why = NULL;
  gboolean check_open;
  gdouble ramp_delta = mean_delta;
  guint n = MIN (u->ramp_n_delays, URCP_RAMP_DELAY_PKTS);

  if (u->phase == URCP_STARTUP_LOW) {
    low_phase_step (u, mean_delta, n_recv, pkts, lost, now);
    return;
  }

  /* URCP_STARTUP_RAMP */
  check_open = GST_CLOCK_TIME_IS_VALID (u->ramp_loss_since);
  /* Per-packet feedback: the newest URCP_RAMP_DELAY_PKTS packets' median. */
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
    why = "start-up ended: the delay rose";
  } else if (n_pkts == 0 && loss > RAMP_EXIT_LOSS) {
    /* An RTCP report's fraction lost already covers seconds of packets. */
    why = "start-up ended: packets were lost";
  } else if (check_open && now >= u->ramp_loss_since + dbl &&
      u->ramp_check_pkts >= RAMP_LOSS_CONFIRM_PKTS) {
    if (u->ramp_check_lost > RAMP_EXIT_LOSS * u->ramp_check_pkts) {
      why = "start-up ended: packets were lost";
    } else {
      GST_DEBUG ("%s: ramp loss not confirmed (%u of %u lost): inherent "
          "loss, ramp resumes", u->parent.info->name, u->ramp_check_lost,
          u->ramp_check_pkts);
      /* Then what the pause saw, and the batch that caused it, was
       * inherent loss. */
      rc_urcp_loss_noise_add (u, u->ramp_pend_pkts, u->ramp_pend_lost, now);
      u->ramp_loss_since = GST_CLOCK_TIME_NONE;
      check_open = FALSE;
    }
  } else if (!check_open && n_pkts > 0 && n_lost > RAMP_EXIT_LOSS * n_pkts) {
    u->ramp_loss_since = now;
    u->ramp_check_pkts = u->ramp_check_lost = 0;
    u->ramp_pend_pkts = pkts;
    u->ramp_pend_lost = lost;
    check_open = TRUE;
  } else if (!check_open) {
    rc_urcp_loss_noise_add (u, pkts, lost, now);
  }
  if (!why && check_open) {
    /* Hold the rate while the loss is being confirmed. */
    u->last_ramp_step = now;
    u->reason = "start-up: checking whether the loss is congestion";
    return;
  }
  if (why) {
    enter_steady (u, ramp_rmax (u), u->delay.sig_min, now, why);
    return;
  }
  if (GST_CLOCK_TIME_IS_VALID (u->ramp_limited_since) &&
      now >= u->ramp_limited_since + RAMP_APP_LIMITED_TIME) {
    enter_steady (u, ramp_rmax (u), u->delay.sig_min, now,
        "start-up ended: the encoder could not fill the rate");
    return;
  }
  if (u->rate >= u->parent.limits.max_bps) {
    enter_steady (u, u->rate, u->delay.sig_min, now,
        "start-up ended: max-bitrate reached");
    return;
  }
  {
    /* At most one doubling per update, however long since the last one
     * (RTCP-only feedback comes seconds apart). */
    gdouble dt = MIN ((gdouble) (now - u->last_ramp_step) / dbl, 1.0);
    gdouble sbps = rc_urcp_sent_bps (u, now);
    /* Only ramp while the encoder keeps up: a target it never reached must
     * not count as probed (the receive rate would read low and R^MAX with
     * it). Allow the ramp to lead the actual rate by one doubling. */
    if (sbps <= 0 || u->rate <= 2 * sbps) {
      u->rate = rc_urcp_clamp_rate (u, u->rate * pow (2.0, dt));
      u->ramp_limited_since = GST_CLOCK_TIME_NONE;
    } else if (!GST_CLOCK_TIME_IS_VALID (u->ramp_limited_since)) {
      u->ramp_limited_since = now;
    }
    u->last_ramp_step = now;
    u->reason = "start-up: doubling the rate to find the capacity";
  }
}
