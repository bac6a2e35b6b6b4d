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
 * what the receiver got so the ramp's queue drains. And, measured on slow
 * links and under heavy-tailed noise: the low phase checks that the path
 * carries its rate and starts over lower if not; the ramp doubles no faster
 * than its delay test can judge; R^MAX starts from a count of packets, and
 * never above the rate they were sent at.
 */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "rc-urcp-private.h"

#define GST_CAT_DEFAULT rc_urcp_debug

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
/* A probe ramp that ended at the bottleneck's rate its packet pairs read
 * (rc-urcp-probe.c, PAIRS_SQUEEZED) stopped before its delay test saw a
 * queue, and the encoder, which follows a new target 0.1-0.3 s late
 * (SOURCE_RESPONSE, rc-urcp.c), had not reached that rate yet: there is
 * little to drain. It restarts at eq. 19's operating point for
 * delta^AVE = delta^MIN, (1 - URCP_DELAY_HEADROOM) R^MAX, not at 85 %:
 * near that point eq. 18 closes the gap with a time constant of about
 * 2 M loop delays (60 s on a 50 ms path), and from 85 % the goodput stayed
 * under 90 % of the link for 15-20 s after a capacity rise. rcsim, 8
 * seeds: capacity-step-up 82.9 -> 85.4 %, RFC 8867 5.1 89.6 -> 92.0 %
 * (re-convergence missed after 16 of 24 changes -> 8), 5.3 87.8 ->
 * 88.8 %, p95 +1-4 ms; kernel bench +2.0 points on both of the first two
 * (docs/results.md, 2026-11-29, seventeenth session). */
#define RAMP_CEILING_RESTART (1 - URCP_DELAY_HEADROOM)
/* The low phase learns the path's noise, so it must run at a rate the path
 * carries: the paper's "low rate" takes that for granted. A start rate
 * above the capacity (300 kbit/s, urcpsender's default, on a 150 kbit/s
 * link, RFC 8867's lowest media rate) broke it: the phase took the queue it
 * built for noise (delta^MIN 81 ms) and the overflow for inherent loss
 * (35 %), and URCP then held a 250 ms queue with 7 % loss for good (rcsim,
 * every seed). The path carries the rate when the receiver gets the bytes
 * at the rate they were sent; if it gets less than LOW_DELIVERY_MIN of it
 * (overflow loss, or a queue that grows), the rate drops to half of what
 * arrived, and the phase starts over once that queue has drained, at most
 * LOW_MAX_RESTARTS times. The delay at each end of the phase is the median
 * of LOW_END_PKTS packets, so one noise spike at the end does not read as a
 * growing queue. */
#define LOW_DELIVERY_MIN 0.8
#define LOW_RESTART_FACTOR 0.5
#define LOW_MAX_RESTARTS 4
#define LOW_END_PKTS 5
/* The delay must also have risen by the middle of the phase, by at least
 * this share of its rise at the end (half, if it grew steadily). On the
 * kernel bench with noisy-hspa's Pareto noise (in-order, up to 350 ms), a
 * spike held the last packets ~230 ms with the middle at the noise floor:
 * the test read it as a growing queue, restarted at 128 kbit/s on a
 * 1.55 Mbit/s link, and URCP ended at 21 % utilization. */
#define LOW_RISE_MID 0.25
#define LOW_DELIVERY_MIN_PKTS 10
/* and over at least this much sending time, so that one noise spike at an
 * end is small against the span */
#define LOW_EARLY_SPAN (500 * GST_MSECOND)
/* The ramp's reasons, for start-up and for the probe ramp (static strings:
 * the decision's reason is not copied). */
#define RAMP_REASON(u, rest) ((u)->phase == URCP_PROBE_RAMP ? \
    "probe" rest : "start-up" rest)
/* ramp_rmax */
#define RECENT_SPAN (250 * GST_MSECOND)
#define RECENT_PKTS 10

/* A packet sent before the start-up ramp began, reported after: the ramp's
 * delay test does not judge it, since it says nothing of the ramp's rates.
 * A stock rtpbin receiver's first feedback comes 1.25-3.75 s in and reports
 * the low phase in several transport-wide messages (one per frame): the low
 * phase ends on the first of them, and the ramp judged the rest, sent at
 * the start rate. Under the 4G noise on the kernel bench (cellular-trace,
 * seed 1) a noise spike among them ended the ramp within a millisecond of
 * its start in three runs of four, with R^MAX at 0.16-0.18 Mbit/s on a
 * 2.4 Mbit/s link; utilization 5.6-6.4 % before this, 6.6-12.0 % after
 * (three runs each). (The probe ramp judges the packets before it too: see
 * docs/urcpsender.md for why.) */
static gboolean
ramp_sent_before (Urcp * u, const RcPacketResult * p)
{
  return GST_CLOCK_TIME_IS_VALID (u->phase_start) &&
      p->send_ts < u->phase_start;
}

void
rc_urcp_startup_sample (Urcp * u, const RcPacketResult * p, gdouble delta,
    gdouble raw)
{
  UrcpPkt *k;

  if (!GST_CLOCK_TIME_IS_VALID (p->send_ts) ||
      (u->phase == URCP_STARTUP_LOW &&
          GST_CLOCK_TIME_IS_VALID (u->low_ignore_before) &&
          p->send_ts < u->low_ignore_before))
    return;
  k = &u->pkts[u->n_pkts++ % URCP_PKT_RING];
  k->send_ts = p->send_ts;
  k->recv_ts = p->lost ? GST_CLOCK_TIME_NONE : p->recv_ts;
  k->delta = delta;
  k->size = p->size;
  k->lost = p->lost;
  if (u->phase == URCP_STARTUP_LOW && !GST_CLOCK_TIME_IS_VALID (u->low_since))
    u->low_since = p->send_ts;
  if (p->lost)
    return;
  if (u->phase == URCP_STARTUP_LOW && u->low->len < STARTUP_MAX_SAMPLES) {
    UrcpSample ls = { p->send_ts, delta, raw, p->size };
    g_array_append_val (u->low, ls);
  } else if ((u->phase == URCP_STARTUP_RAMP && !ramp_sent_before (u, p)) ||
      u->phase == URCP_PROBE_RAMP) {
    u->ramp_delays[u->ramp_n_delays++ % URCP_RAMP_DELAY_PKTS] = delta;
  }
}

/* The median of `n` > 0 values, sorting them in place. */
static gdouble
median_in_place (gdouble * d, guint n)
{
  qsort (d, n, sizeof (gdouble), rc_double_cmp);
  return n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
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
  return median_in_place (d, n);
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
 * mean envelope of the raw OWD of the full-size ones (rc-urcp-probe.c) in
 * *env_mean. */
static gdouble
low_phase_noise (Urcp * u, gdouble * mean, gdouble * env_mean)
{
  const UrcpSample *x;
  guint n = u->low->len, i, j, lo = 0, n_env = 0, largest = 0;
  gdouble sum = 0, total = 0, env_sum = 0, raw_env;

  g_array_sort (u->low, sample_cmp);
  x = (const UrcpSample *) u->low->data;
  for (i = 0; i < n; i++)
    largest = MAX (largest, x[i].size);
  for (i = 0; i < n; i++) {
    gdouble env = x[i].delta;
    gboolean full = rc_urcp_env_full_size (x[i].size, largest);
    while (lo < i && x[lo].ts + URCP_ENVELOPE_HALF < x[i].ts)
      lo++;
    raw_env = x[i].raw;
    for (j = lo; j < n && x[j].ts <= x[i].ts + URCP_ENVELOPE_HALF; j++) {
      env = MIN (env, x[j].delta);
      if (rc_urcp_env_full_size (x[j].size, largest))
        raw_env = MIN (raw_env, x[j].raw);
    }
    sum += x[i].delta - env;
    total += x[i].delta;
    /* the re-probe's floor, of its full-size packets (rc-urcp-probe.c) */
    if (full) {
      env_sum += raw_env;
      n_env++;
    }
  }
  u->env_size = MAX (u->env_size, largest);
  *mean = n ? total / n : 0;
  *env_mean = n_env ? env_sum / n_env : 0;
  return n ? sum / n : 0;
}

static GstClockTime ramp_doubling (Urcp * u);

/* The bottleneck's rate that the start-up ramp's squeezed frame pairs
 * reported over its last two doubling periods read, or 0
 * (rc_urcp_startup_pairs_bps). */
static gdouble
ramp_pairs_bps (Urcp * u, GstClockTime now)
{
  GstClockTime span = 2 * ramp_doubling (u);

  return rc_urcp_startup_pairs_bps (u, MAX (u->phase_start,
          now > span ? now - span : 0));
}

/* The end of start-up: R^MAX and delta^MIN are known; eq. 13 sets k0. The
 * rate restarts at `restart` times R^MAX. */
static void
enter_steady_at (Urcp * u, gdouble rmax, gdouble delta_min, GstClockTime now,
    gdouble restart, const gchar * reason)
{
  gdouble r0;

  if (u->phase == URCP_STARTUP_RAMP && u->adapt && !u->vtum) {
    /* A ramp that reached max-bitrate: what its newest packets delivered
     * is no reading of the capacity. A frame leaves the pacer at 1.5x the
     * target and the link is idle between frames, so a delay test that
     * ends the ramp on one frame's queue (a key frame's) reads the mean
     * rate sent: 2.17-2.29 Mbit/s of the 2.44 of RTP that 2.5 Mbit/s
     * carries (rcsim, max-bitrate 3 Mbit/s, 25-150 ms one way), and
     * eq. 18 then climbs the rest at its slow pace. The frames' packet
     * pairs, squeezed by the bottleneck, read it
     * (rc_urcp_startup_pairs_bps). Only after max-bitrate: elsewhere an
     * R^MAX read 2-5 % low stays as it was, since with it at the link's
     * rate eq. 19's balance moved with the delay base (clean-1mbps 94.2
     * -> 91.6 %, rcsim, 8 seeds), and one read more than a probe step low
     * cost TCP its share in test_urcp_tcp_competitor (docs/results.md,
     * fifteenth session). */
    if (GST_CLOCK_TIME_IS_VALID (u->ramp_max_since)) {
      gdouble pairs = ramp_pairs_bps (u, now);
      GST_DEBUG ("%s: the ramp reached max-bitrate: R^MAX %.0f bit/s from "
          "what arrived, %.0f from the squeezed packet pairs (0: none)",
          u->parent.info->name, rmax, pairs);
      rmax = MAX (rmax, MIN (pairs, u->rate));
    }
    /* The steady state's frame pairs, and the delivery rate read from
     * them, start empty, as before start-up kept any. */
    u->n_fpairs = 0;
    u->selfq_delivery = 0;
    u->selfq_delivery_agreed = FALSE;
  }
  if (u->phase == URCP_PROBE_RAMP) {
    /* What was delivered before the probe ramp, with no standing queue,
     * the path still carries: a noise spike that ends the ramp at once
     * does not lower R^MAX below it. */
    rmax = MAX (rmax, u->delay.rave);
    /* Nor below what the packet pairs read when they started it
     * (rc-urcp-probe.c, PROBE_EARLY_MIN): at 0.5 Mbit/s on the kernel
     * bench the pairs read the link's 486 kbit/s and the ramp's newest
     * 14 packets, some from before its queue formed, 383 (capacity-step-up,
     * 2026-11-28). */
    rmax = MAX (rmax, u->ramp_rmax_floor);
  }
  r0 = rc_urcp_clamp_rate (u, rmax * restart);
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
  GST_DEBUG ("%s: %s: R^MAX %.0f bit/s, delta^MIN %.2f ms, k0 %.0f bits, "
      "restart at %.0f bit/s", u->parent.info->name, reason, rmax,
      u->delay.sig_min * 1000, u->delay.k0, r0);
}

/* The end of a ramp that may have left a queue: restart at RAMP_EXIT_DRAIN
 * of R^MAX. */
static void
enter_steady (Urcp * u, gdouble rmax, gdouble delta_min, GstClockTime now,
    const gchar * reason)
{
  enter_steady_at (u, rmax, delta_min, now, RAMP_EXIT_DRAIN, reason);
}

/* The probe ramp (rc-urcp-probe.c says when): the start-up ramp again from
 * the current rate. Its delay test starts from the queueing delay of the
 * last window (delta^AVE), so it ends once the ramp adds delay of its own;
 * delta^MIN and the inherent loss stay as learned. */
void
rc_urcp_probe_ramp (Urcp * u, GstClockTime now, gdouble rmax_floor)
{
  u->ramp_rmax_floor = rmax_floor;
  u->ramp_ref = u->delay.sig_ave;
  u->ramp_n_delays = 0;
  u->ramp_loss_since = u->ramp_limited_since = GST_CLOCK_TIME_NONE;
  u->ramp_max_since = GST_CLOCK_TIME_NONE;
  u->phase_start = u->last_ramp_step = now;
  u->probe_pending = FALSE;
  u->probe_ramps++;
  u->ramp_first_pkt = u->n_pkts;
  rc_urcp_set_phase (u, URCP_PROBE_RAMP,
      "probe: the path has room; doubling the rate to find the capacity");
}

/* The start of R^MAX: what the receiver got over its newest packets, back
 * until at least RECENT_PKTS of them span RECENT_SPAN of its clock: their
 * bytes over their receive span, at most over their send span, and at
 * most what we asked for. Counting packets, a slow link does not read one
 * packet more or less in a window as 25 % (a 150 kbit/s link delivers 4
 * packets in 250 ms; R^MAX started 30 % high there and, as nothing lowers
 * R^MAX (eq. 14), eq. 19 then held a 250 ms queue). The send span bounds
 * what a delay spike releases at once: the receiver cannot get packets
 * faster than they were sent over the same stretch, and a 250 ms window of
 * its clock read 4.3 Mbit/s on a 2 Mbit/s link with Pareto noise.
 *
 * The span starts at a packet no more delayed than the median of those
 * after it. Noise that holds a packet holds those behind it and releases
 * them together (in-order delivery), so a span that starts at a held
 * packet loses the hold from its receive time while keeping the bytes
 * that arrived during it: on startup-heavy-tail (rcsim, seed 3) the newest
 * 84 packets read 2.51 Mbit/s on a 2 Mbit/s link, URCP took that for
 * R^MAX, and eq. 19 then held the 300 ms queue full for the rest of the
 * run (3 % loss). Three packets further back, where the hold began, they
 * read 1.91. A queue that grows delays the newer packets more, so a
 * ramp's span without noise starts where it did. When no such packet is
 * found within as many packets again, the first span's reading stands.
 *
 * A probe ramp reads only packets reported since it began: the ring still
 * holds the first start-up's, and a short probe ramp once reached back 50 s
 * into them ("R^MAX from 29 packets: 4714 bit/s"). Without enough of its
 * own it returns 0, so enter_steady keeps R^AVE, never the ramp's untested
 * target. */
static gdouble
ramp_rmax (Urcp * u)
{
  gboolean probe = u->phase == URCP_PROBE_RAMP;
  guint64 i, first = u->n_pkts > URCP_PKT_RING ? u->n_pkts - URCP_PKT_RING : 0;
  GstClockTime r1 = GST_CLOCK_TIME_NONE, s0 = GST_CLOCK_TIME_NONE, s1 = 0;
  gdouble bytes = 0, got = 0, first_got = 0;
  gdouble *later = u->rmax_deltas;      /* delta of the packets after k */
  guint n = 0, n_later = 0, n_first = 0;

  if (probe)
    first = MAX (first, u->ramp_first_pkt);
  for (i = u->n_pkts; i > first; i--) {
    const UrcpPkt *k = &u->pkts[(i - 1) % URCP_PKT_RING];
    if (!GST_CLOCK_TIME_IS_VALID (k->recv_ts))
      continue;
    if (!GST_CLOCK_TIME_IS_VALID (r1)) {
      r1 = k->recv_ts;
      s0 = s1 = k->send_ts;
      bytes = k->size;
      later[n_later++] = k->delta;
      continue;
    }
    /* k is the oldest so far: the span starts at it, its bytes are not in
     * the span's */
    s0 = MIN (s0, k->send_ts);
    s1 = MAX (s1, k->send_ts);
    if (++n >= RECENT_PKTS && r1 > k->recv_ts + RECENT_SPAN) {
      got = bytes * 8.0 / ((gdouble) (r1 - k->recv_ts) / GST_SECOND);
      if (s1 > s0)
        got = MIN (got, bytes * 8.0 / ((gdouble) (s1 - s0) / GST_SECOND));
      if (first_got <= 0) {
        first_got = got;
        n_first = n;
      }
      /* the median sorts `later` in place; its order does not matter */
      if (k->delta <= median_in_place (later, n_later))
        break;
      got = 0;
      /* A hold is part of a span, so the packet is near: no further back
       * than the first span again (3 and 6 packets past 84 and 122 on the
       * heavy-tail seeds that needed it). Without a bound, where each
       * packet waited longer than those after it (a queue that drains),
       * the search would walk the whole ring, sorting at every packet. */
      if (n >= 2 * n_first)
        break;
    }
    bytes += k->size;
    later[n_later++] = k->delta;
  }
  if (got <= 0 && first_got > 0) {
    got = first_got;
    n = n_first;
  }
  GST_DEBUG ("%s: R^MAX from %u packets: %.0f bit/s (from the newest %u: "
      "%.0f; rate %.0f)", u->parent.info->name, n, got, n_first, first_got,
      u->rate);
  if (got > 0)
    return MIN (got, u->rate);
  return probe ? 0 : u->rate;
}

/* Median delta of `n` samples from `x` on. */
static gdouble
median_delta (const UrcpSample * x, guint n)
{
  gdouble d[LOW_END_PKTS];
  guint i;

  for (i = 0; i < n; i++)
    d[i] = x[i].delta;
  return median_in_place (d, n);
}

/* The share of the sent rate that the receiver got, over the low phase's
 * packets sent from `since` on (see LOW_DELIVERY_MIN): bytes received over
 * bytes sent, times the send span over the receive span, which is the send
 * span plus the rise of the delay between the ends (the median of
 * LOW_END_PKTS received packets at each, and none if the middle did not
 * rise with them). 1 when there is too little to judge. `*queue`: the
 * delay at the end, s; `*got`: the received rate, bit/s. */
static gdouble
delivery_since (Urcp * u, GstClockTime since, gdouble * queue, gdouble * got)
{
  guint64 i, first = u->n_pkts > URCP_PKT_RING ? u->n_pkts - URCP_PKT_RING : 0;
  guint64 sent = 0, recvd = 0, n = 0;
  GstClockTime t0 = GST_CLOCK_TIME_NONE, t1 = 0;
  GArray *d = g_array_new (FALSE, FALSE, sizeof (UrcpSample));
  gdouble span, rise, share = 1;

  *queue = *got = 0;
  for (i = first; i < u->n_pkts; i++) {
    const UrcpPkt *k = &u->pkts[i % URCP_PKT_RING];
    if (k->send_ts < since)
      continue;
    n++;
    sent += k->size;
    t0 = MIN (t0, k->send_ts);
    t1 = MAX (t1, k->send_ts);
    if (!k->lost) {
      UrcpSample x = { k->send_ts, k->delta, 0 };
      recvd += k->size;
      g_array_append_val (d, x);
    }
  }
  if (n >= LOW_DELIVERY_MIN_PKTS && d->len >= 2 * LOW_END_PKTS && t1 > t0) {
    const UrcpSample *x;
    gdouble head, mid;
    g_array_sort (d, sample_cmp);
    x = (const UrcpSample *) d->data;
    head = median_delta (x, LOW_END_PKTS);
    mid = median_delta (x + (d->len - LOW_END_PKTS) / 2, LOW_END_PKTS);
    *queue = median_delta (x + d->len - LOW_END_PKTS, LOW_END_PKTS);
    rise = *queue - head;
    /* A queue that an overload builds grows all along the phase; a noise
     * spike at its end does not show in its middle (LOW_RISE_MID). */
    if (mid - head < LOW_RISE_MID * rise)
      rise = 0;
    span = (gdouble) (t1 - t0) / GST_SECOND;
    share = (gdouble) recvd / sent * span / MAX (span + rise, 1e-3);
    *got = sent * 8.0 / span * share;
  }
  g_array_unref (d);
  return share;
}

static void
low_phase_restart (Urcp * u, gdouble delivered, gdouble got, gdouble queue,
    GstClockTime now)
{
  gdouble old = u->rate;
  /* At half the capacity the queue drains at half a second per second. */
  GstClockTime drain = (GstClockTime) (2 * queue * GST_SECOND) +
      (GstClockTime) (rc_urcp_rtt_min_s (u) * GST_SECOND);

  u->rate = rc_urcp_clamp_rate (u, LOW_RESTART_FACTOR * got);
  u->low_restarts++;
  u->low_ignore_before = now + drain;
  u->low_since = GST_CLOCK_TIME_NONE;
  u->phase_start = now + drain;
  g_array_set_size (u->low, 0);
  /* What was lost was overflow, not the path's inherent loss. */
  u->noise_pkts = u->noise_lost = 0;
  u->reason = "start-up: the start rate was above the capacity; "
      "measuring again lower";
  GST_DEBUG ("%s: the low phase got %.0f %% of its %.0f bit/s through "
      "(%.0f bit/s, queue %.0f ms): restarting it at %.0f bit/s after "
      "%.0f ms", u->parent.info->name, delivered * 100, old, got,
      queue * 1000, u->rate, (gdouble) drain / GST_MSECOND);
}

/* URCP, when the first feedback came only after low_min_time of sending:
 * the low phase has low_min_time of packets by their send times. A stock
 * rtpbin receiver sends its first TWCC feedback 1.25-3.75 s after the start
 * (its first RTCP packet, docs/urcpsender.md), and it reports every packet
 * sent until then: they are the low phase's packets as much as later ones.
 * Counting the phase's time from that first feedback only, URCP stayed at
 * the start rate for 4 s on the kernel bench (1 Mbit/s: the first 10 s used
 * 66 % of the link, the next 50 s 96 %). With prompt feedback the phase is
 * timed as before: ending it a round trip earlier there changed only which
 * noisy-link seeds lost the start-up lottery (rcsim, 12 seeds:
 * startup-heavy-tail 75.6 -> 69.0 %, sd 25-29). UM and vtum keep their
 * phase as it was. */
static gboolean
low_spans_min (Urcp * u)
{
  return u->adapt && !u->vtum && u->low->len &&
      GST_CLOCK_TIME_IS_VALID (u->low_since) &&
      GST_CLOCK_TIME_IS_VALID (u->phase_start) &&
      u->phase_start >= u->low_since + u->low_min_time &&
      g_array_index (u->low, UrcpSample, u->low->len - 1).ts >=
      u->low_since + u->low_min_time;
}

static void
low_phase_step (Urcp * u, gdouble mean_delta, guint n_recv, gdouble pkts,
    gdouble lost, GstClockTime now)
{
  /* Overflow behind a start rate that was too high is not inherent loss. */
  if (!GST_CLOCK_TIME_IS_VALID (u->low_ignore_before) ||
      now >= u->low_ignore_before + (GstClockTime) (rc_urcp_rtt_min_s (u) *
          GST_SECOND))
    rc_urcp_loss_noise_add (u, pkts, lost, now);
  /* RTCP-only feedback has no per-packet samples: use report deltas. */
  if (u->low->len == 0 && n_recv > 0 && u->feedback_count >= 2)
    u->delay.sig_min = MAX (u->delay.sig_min, mean_delta);
  /* The delivery test runs from LOW_EARLY_SPAN of packets on, not only at
   * the end: each overloaded moment at the start rate costs overflow. */
  if (u->low->len && u->low_restarts < LOW_MAX_RESTARTS &&
      u->rate > u->parent.limits.min_bps &&
      GST_CLOCK_TIME_IS_VALID (u->low_since) &&
      g_array_index (u->low, UrcpSample, u->low->len - 1).ts >=
      u->low_since + LOW_EARLY_SPAN) {
    gdouble queue, got, delivered = delivery_since (u, u->low_since, &queue,
        &got);
    if (delivered < LOW_DELIVERY_MIN) {
      low_phase_restart (u, delivered, got, queue, now);
      return;
    }
  }
  if (!((u->low->len >= STARTUP_LOW_MIN_SAMPLES ||
              (u->low->len == 0 && u->feedback_count >= 3)) &&
          (now >= u->phase_start + u->low_min_time || low_spans_min (u))))
    return;
  if (u->low->len) {
    gdouble e;
    guint i;
    u->delay.sig_min = low_phase_noise (u, &u->ramp_ref, &e);
    if (u->vtum)
      rc_vtum_learn (u, (const UrcpSample *) u->low->data, u->low->len);
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
    if (u->vtum)
      rc_vtum_learn (u, NULL, 0);
  }
  u->delay.sig_min = MAX (u->delay.sig_min, u->delay.floor);
  u->phase_start = u->last_ramp_step = now;
  u->ramp_max_since = GST_CLOCK_TIME_NONE;
  rc_urcp_set_phase (u, URCP_STARTUP_RAMP,
      "start-up: doubling the rate to find the capacity");
  GST_DEBUG ("%s: initial delta^MIN %.2f ms (mean delta %.2f ms) from "
      "%u packets", u->parent.info->name, u->delay.sig_min * 1000,
      u->ramp_ref * 1000, u->low->len);
  g_array_set_size (u->low, 0);
}

/* The ramp's doubling period: max(2 RTT_min, 200 ms), and at least the
 * time to send the URCP_RAMP_DELAY_PKTS packets its delay test judges: at
 * 150 kbit/s ten 1200-byte packets take 0.65 s, and a ramp that doubled
 * every 2 RTT outran its own test: its target reached 2.6x such a link
 * before the delay of ten packets could show it (1.75x with this). */
static GstClockTime
ramp_doubling (Urcp * u)
{
  GstClockTime dbl = MAX (2 * (GstClockTime) (rc_urcp_rtt_min_s (u) *
          GST_SECOND), RAMP_DOUBLING_MIN);

  if (u->mean_pkt_bytes > 0 && u->rate > 0)
    dbl = MAX (dbl, (GstClockTime) (URCP_RAMP_DELAY_PKTS *
            u->mean_pkt_bytes * 8 / u->rate * GST_SECOND));
  return dbl;
}

/* `n_pkts` packets reported in this feedback, `n_lost` of them lost, or
 * n_pkts 0 and `loss` a report's fraction lost; `pkts`, `lost`: the same
 * as counts (estimated for a report), for the inherent loss estimate. */
void
rc_urcp_startup_step (Urcp * u, gdouble mean_delta, guint n_recv,
    guint n_pkts, guint n_lost, gdouble loss, gdouble pkts, gdouble lost,
    GstClockTime now)
{
  GstClockTime dbl = ramp_doubling (u);
  const gchar *why = NULL;
  gboolean check_open;
  gdouble ramp_delta = mean_delta, ceiling = 0;
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
    why = RAMP_REASON (u, " ended: the delay rose");
  } else if (n_pkts == 0 && loss > RAMP_EXIT_LOSS) {
    /* An RTCP report's fraction lost already covers seconds of packets. */
    why = RAMP_REASON (u, " ended: packets were lost");
  } else if (check_open && now >= u->ramp_loss_since + dbl &&
      u->ramp_check_pkts >= RAMP_LOSS_CONFIRM_PKTS) {
    if (u->ramp_check_lost > RAMP_EXIT_LOSS * u->ramp_check_pkts) {
      why = RAMP_REASON (u, " ended: packets were lost");
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
    u->reason = RAMP_REASON (u, ": checking whether the loss is congestion");
    return;
  }
  if (why) {
    enter_steady (u, ramp_rmax (u), u->delay.sig_min, now, why);
    return;
  }
  if (u->capped) {
    /* The session sends below our rate (a recovery after missing
     * feedback, or the circuit breaker's floor): a rate not sent is not
     * the encoder failing to fill it, and not probed either. The ramp
     * holds; a delay rise or loss above still ends it. Without this, a
     * breaker reset on an RR-only peer whose next report came while the
     * recovery was still climbing ended the ramp "application-limited" at
     * 85 % of the rate before the outage: most likely the RR-only blackout
     * failure of pipelines/urcp_pipeline in CI (vp8enc at 257 kbit/s, 0.85
     * of ~300, against a goal of 270). */
    u->ramp_limited_since = GST_CLOCK_TIME_NONE;
    u->last_ramp_step = now;
    u->reason = RAMP_REASON (u, ": held while the session caps the rate");
    return;
  }
  if (GST_CLOCK_TIME_IS_VALID (u->ramp_limited_since) &&
      now >= u->ramp_limited_since + RAMP_APP_LIMITED_TIME) {
    enter_steady (u, ramp_rmax (u), u->delay.sig_min, now,
        RAMP_REASON (u, " ended: the encoder could not fill the rate"));
    return;
  }
  /* At max-bitrate the ramp holds until what it sent there is reported.
   * If the delay or loss test ends it meanwhile, R^MAX is what the
   * receiver got, as at any other end of the ramp (and enter_steady reads
   * the pairs); if not, the path carried max-bitrate.
   * Ending at once with R^MAX at max-bitrate took a rate the path had not
   * been seen to carry: the delay test hears of a queue an RTT late, and
   * the ramp, doubling every 2 RTT, reached a max-bitrate 20 % above the
   * capacity first on 25, 50 and 150 ms paths (rcsim: R^MAX 3 Mbit/s on
   * 2.5, max-bitrate-above-capacity.ini; 30 Mbit/s on 20,
   * high-rate-long-path.ini; the default 20 Mbit/s on a 15 Mbit/s, 150 ms
   * path). Eq. 14 never lowers R^MAX: eq. 19 then held the rate with a
   * standing queue (p95 18 ms against 6), and on the 20 Mbit/s path the
   * restart at 0.85 of it filled the queue, lost 60 packets, and eq. 18
   * cut to 0.75 of the link.
   * The hold: a doubling period (at least 2 RTT_min) and the span
   * ramp_rmax reads. URCP only: UM and vtum end at once with R^MAX at
   * max-bitrate, as they did. */
  if (u->rate >= u->parent.limits.max_bps) {
    gboolean hold = u->adapt && !u->vtum;

    if (!GST_CLOCK_TIME_IS_VALID (u->ramp_max_since))
      u->ramp_max_since = now;
    if (!hold || now >= u->ramp_max_since + dbl + RECENT_SPAN) {
      /* Held without a sign of congestion: the path carries max-bitrate,
       * unless the pairs read a bottleneck slower than it. One within
       * 1.25x of it fills a queue too slowly for the delay test to see
       * within the hold; the pacer's pairs, at 1.5x, are squeezed by it. */
      gdouble pairs = hold ? ramp_pairs_bps (u, now) : 0;

      u->ramp_max_since = GST_CLOCK_TIME_NONE;
      enter_steady (u, pairs > 0 ? MIN (pairs, u->rate) : u->rate,
          u->delay.sig_min, now,
          RAMP_REASON (u, " ended: max-bitrate reached"));
    } else {
      u->last_ramp_step = now;
      u->reason = RAMP_REASON (u, ": at max-bitrate, waiting for what the "
          "receiver gets there");
    }
    return;
  }
  /* A probe ramp goes no higher than the bottleneck's rate that its
   * packet pairs read, where they read one (rc-urcp-probe.c,
   * PAIRS_SQUEEZED), and ends there with R^MAX at that rate. Its delay
   * test sees a queue only once the median of 10 packets has risen by
   * delta^MIN + 10 ms above the level the ramp began at, later than the
   * pairs, and much later where delta^MIN's floor, one packet's service
   * time at R^MAX, is large: 84 ms at 0.1 Mbit/s, where the test asked for
   * 178 ms of queue while the rate doubled every 0.25-0.4 s, and on the
   * kernel bench (low-capacity-150k, 2026-11-28) probe ramps went to
   * 4-5.5 times the link. With the ceiling, in rcsim (8 seeds): RFC 8867
   * 5.3's p95 62 -> 34 ms, 5.1's 36 -> 29 ms (+0.8 points), and on the
   * kernel bench 5.1 +0.8 points; after 1 -> 2 Mbit/s the target peaks at
   * 1.22-1.36x the link instead of 1.56-1.68x. At 0.1-0.2 Mbit/s the ramp
   * ends on its delay test before DISP_MIN_PAIRS of its pairs are
   * reported, so the ceiling does not act there yet (docs/results.md). The
   * start-up ramp has no pairs to read (they are selected against
   * R^MAX). */
  if (u->phase == URCP_PROBE_RAMP)
    ceiling = rc_urcp_ramp_ceiling (u, u->phase_start);
  if (ceiling > 0 && u->rate >= ceiling) {
    enter_steady_at (u, ceiling, u->delay.sig_min, now,
        RAMP_CEILING_RESTART, "probe ended: the rate reached the "
        "bottleneck's rate that its packet pairs read");
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
      if (ceiling > 0)
        u->rate = MIN (u->rate, ceiling);
      u->ramp_limited_since = GST_CLOCK_TIME_NONE;
    } else if (!GST_CLOCK_TIME_IS_VALID (u->ramp_limited_since)) {
      u->ramp_limited_since = now;
    }
    u->last_ramp_step = now;
    u->reason = RAMP_REASON (u, ": doubling the rate to find the capacity");
  }
}
