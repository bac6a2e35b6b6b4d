/* URCP extension: re-probing R^MAX (core).
 *
 * Eq. 14 raises R^MAX only when R^AVE exceeds it, and in the operating
 * point of eq. 19 R^AVE stays below R^MAX whenever delta^AVE is above
 * delta^MIN. On noisy links the low phase's delta^MIN is low (1 s at the
 * start rate: WiMAX 28-38 ms, against 47-50 ms of delay at 50-90 % load,
 * more packets waiting behind a delayed one), so a flow with an R^MAX from
 * a ramp cut short by noise never saw a higher rate again (WiMAX held at
 * 273 kbit/s of 480). Sec. VII-B: under-estimated delta^MIN or
 * over-estimated R^MAX can only be corrected by re-probing. delta^MIN stays
 * under eq. 15 (letting it rise fed a shared queue back into every flow's
 * target: 5 flows went to 120 ms); R^MAX is re-probed instead, and an R^MAX
 * above the capacity is what offsets a low delta^MIN in eq. 19.
 *
 * A probe is allowed only when the path shows no standing queue, is
 * tentative, and is undone when a standing queue appears:
 *  - Standing queue: the lower envelope of the delay (each packet's lowest
 *    neighbour within +-URCP_ENVELOPE_HALF, the low phase's estimator),
 *    averaged over the R^AVE window, above its lowest such average since
 *    the start. Noise moves fast and only adds delay, so the envelope stays
 *    near the path's floor; a queue that stands for longer than the
 *    envelope width (ours at the capacity, or other flows') lifts it. The
 *    envelope is of the raw OWD (receive minus send time; the receiver's
 *    offset cancels in every difference used), not of delta: rc-owd's base
 *    moves whenever its skew estimate does.
 *  - The window's mean, or the newest second's where that is lower: when the
 *    capacity rises, the queue our own operating point held drains at once,
 *    and a 5 s mean took 2.5-3 s to follow it (RFC 8867 5.1's rise to
 *    2.5 Mbit/s, kernel bench and rcsim, 2026-11-28). A lower newest second
 *    opens the gate if the packet pairs (below) read room too; it cannot
 *    close it, and a probe's failure needs the rise in both.
 *  - Of full-size packets only (at least ENV_FULL_SIZE of the largest
 *    seen), the floor as well. Where the link serializes (DSL, Wi-Fi,
 *    cellular, linksim and rcsim), a packet reaches the receiver its own
 *    service time after its first bit, and the floor, learned at the start
 *    rate from a frame's short tails and small frames, sat below every
 *    full packet's delay later: the gate read that offset as a standing
 *    queue (rcsim, seed 1: noisy-wifi 4.5-6.8 ms against a limit of 3.3,
 *    clean-1mbps 4.7 against 1.7, noisy-ethernet 0.67 against 0.25) and
 *    URCP at a steady rate never probed (noisy-ethernet 73 % with no probe
 *    in 120 s). When packets of a larger size class come (the largest
 *    seen was under ENV_FULL_SIZE of the new one), the floor is learned
 *    again. A shaper that releases a packet at the start of its slot
 *    (tbf) has no such offset and is not changed by this.
 */
#include <math.h>
#include <stdlib.h>
#include "rc-urcp-private.h"

#define GST_CAT_DEFAULT rc_urcp_debug

/* "No standing queue": the envelope less than 0.2 delta^MIN above its
 * floor. By eq. 19 one probe step at the capacity (R^MAX 10 % high) leaves
 * a standing queue of delta^MIN (sqrt (1.1) - 1) / (1 - beta) ~ 0.24
 * delta^MIN; less than that is no sign of a full link. */
#define NO_QUEUE_FRACTION 0.2
/*  - A probe multiplies R^MAX by 1.1. A success is kept even if the rate
 *    reaches the new R^MAX only later, so each step is bounded: by eq. 19 an
 *    R^MAX 10 % high costs at most 0.24 delta^MIN of standing queue (a gain
 *    of 1 let R^MAX reach 1.6x the capacity in the core test). After a
 *    success the rate followed, the probe ramp takes over (below).
 *  - It fails, and R^MAX returns to max(its old value, R^AVE), when the
 *    envelope rises above its value at the probe's start by
 *    NO_QUEUE_FRACTION delta^MIN plus two standard errors of that start
 *    value (one independent envelope value per envelope width). Failures
 *    double the wait before the next probe, up to 8 windows (40 s): a flow
 *    at the capacity pays at most one window of a 10 % R^MAX excess (0.24
 *    delta^MIN of queue) every 40 s.
 *  - It succeeds after one window (the R^AVE span) without that rise. */
#define RMAX_PROBE_GAIN 0.1
#define RMAX_PROBE_WAIT_MAX (8 * URCP_WINDOW_SPAN)
#define PROBE_SE 2.0
/*  - Only when the encoder delivers at least 90 % of the target (frame sizes
 *    vary, +-2 % over 1 s at 30 fps; an application-limited source has
 *    nothing to probe with), the delay instance governs (the loss instance
 *    is not holding the rate), and R^MAX leads R^AVE by at most one
 *    doubling: a rate that does not follow R^MAX up stops the probing.
 *  - The first probe waits two windows after start-up (rc-urcp-startup.c):
 *    one for the ramp's queue to drain (a draining queue lowers the
 *    envelope and would pass any probe), one for a clean reference. */
#define PROBE_MIN_SENT 0.9
#define PROBE_LEAD 2.0
/*  - Never above the bottleneck's rate, where one is measured (below): a
 *    probe starts only when R^MAX is at least half a step below it, and a
 *    kept probe keeps at most that rate. The absence of a standing queue
 *    cannot tell an R^MAX a few per cent above the capacity: by eq. 19 it
 *    stands less queue than the failure threshold. On the kernel bench
 *    (kernel-1mbps, 2026-11-27) probes were kept at 1.016 Mbit/s where the
 *    link carries 0.977 Mbit/s of RTP, the rate held 0.95-0.99 of that,
 *    and each key frame's queue drained slowly (p95 61-73 ms, against
 *    19 ms for a sender held at 0.90). */
#define DISP_SEND_FACTOR 1.2
#define DISP_MIN_PAIRS 20
/* The self-queue's pairs (rc-urcp.c, SELF_QUEUE_LOAD): two packets of one
 * frame, which the pacer sends at 1.5x the target (rc-sender.c), are sent
 * faster than 1.2x our mean send rate; the gap between two frames is
 * longer. Selected by our own rate, not by R^MAX: a probe may hold R^MAX
 * above the capacity (rcsim's noisy-ethernet, 15 Mbit/s on 9.1), where
 * no frame is sent faster than 1.2x R^MAX and the bottleneck's pairs read
 * nothing. Kept from the start, before there is an R^MAX, for the start-up
 * ramp's reading (rc_urcp_startup_pairs_bps). */
#define SELFQ_PAIR_FACTOR 1.2
/*  - Kept early, from one second on, when the pairs since the probe began
 *    say the bottleneck is faster than the probed R^MAX by the factor that
 *    starts a probe ramp (DISP_SEND_FACTOR), and agree on it: their
 *    receive gaps' interquartile range within ROOM_SPREAD_MAX of the
 *    median. Pairs that were not spread by a queue arrive as they were
 *    sent. After RFC 8867 5.1's rise to 2.5 Mbit/s the probe's pairs read
 *    1.43-1.52 Mbit/s within a second, with a spread of 0.41-0.44 on the
 *    kernel bench and 0.27-0.53 in rcsim (2026-11-28); the wait for the
 *    whole window took the ramp to 8 s after the rise. Delay noise moves
 *    each packet on its own and spreads the gaps: on rcsim's WiMAX and
 *    HSPA links 1.0-1.5 and on its cellular trace 0.75-1.35 (once 0.38),
 *    where the pairs read 1.3-2.2x the link (without the spread test,
 *    early ramps cost WiMAX 4.6 points of utilization). One noisy-wifi
 *    seed read 0.49: the test separates, but not by much. */
#define PROBE_EARLY_MIN (1 * GST_SECOND)
#define ROOM_SPREAD_MAX 0.6
/* The probe ramp's ceiling (rc-urcp-startup.c): the pairs reported since
 * the ramp began, when they left the bottleneck at least PAIRS_SQUEEZED
 * times slower than they were sent (the interquartile means of their
 * receive and send gaps) and agree within PAIRS_SPREAD_MAX, read the
 * bottleneck's rate, and the ramp goes no higher. Squeezed, because pairs
 * sent slower than the bottleneck serves read their own sending rate.
 * Tighter than ROOM_SPREAD_MAX, because a reading that is wrong here ends
 * the ramp low. In rcsim (8 seeds) the squeezed pairs of the probe ramps
 * on clean links (capacity-step-up, RFC 8867 5.1 and 5.3,
 * tcp-joins-leaves) read 0-2.5 % below the link's RTP rate, with spreads
 * of 0.00-0.32. On the cellular trace's noise they read 1.04 Mbit/s of
 * 2.4-2.8 (spreads 0.45-0.56 at three ramps on seeds 1 and 3), and with
 * two flows in RFC 8867 5.2 their share, at 0.46-0.50. With 0.6 the
 * cellular trace lost 1.1 points of utilization on seed 1 and its loss
 * rose 0.19 points over the 8 seeds; with 0.35 it is unchanged. */
#define PAIRS_SQUEEZED 1.2
#define PAIRS_SPREAD_MAX 0.35
/* The newest second, of the envelope (the gate above) and of the pairs (the
 * bound on a probe's start): after a rise the window's pairs held the old
 * bottleneck's rate for 2-3 s. */
#define RECENT_SPAN (1 * GST_SECOND)
/* Full-size packets, for the envelope (see the top of this file): a
 * frame's packets are full but its last. A tail that still counts brings
 * its shorter service time into the envelope, and the floor, the lowest
 * window mean, keeps the windows that had the most such tails: at 0.75,
 * rcsim's synthetic encoder (every frame the same size, so the same tail)
 * on a clean 1 Mbit/s link read 2.0 ms of standing queue against a 1.9 ms
 * limit and never probed; at 0.9 it read 0.6 ms and probed (84 -> 87 %).
 * A tenth of a packet's service time is at most 1 ms at 1 Mbit/s. With
 * vp8enc's model the shipped scenarios read the same at 0.75 and 0.9. */
#define ENV_FULL_SIZE 0.9

gboolean
rc_urcp_env_full_size (guint size, guint largest)
{
  return size >= ENV_FULL_SIZE * largest;
}

/* The envelope's samples and floor start over: after a clock jump, or
 * when a larger size class of packets comes. */
static void
env_restart (Urcp * u)
{
  u->env_floor = G_MAXDOUBLE;
  u->n_done = u->n_right = u->n_added;
  u->dq_head = u->dq_tail = 0;
  rc_avg_window_reset (&u->env_win);
  rc_avg_window_reset (&u->env2_win);
  rc_avg_window_reset (&u->envs_win);
}

void
rc_urcp_probe_init (Urcp * u)
{
  u->env_floor = G_MAXDOUBLE;
  u->ebuf = g_new (UrcpSample, URCP_ENV_RING);
  u->edq = g_new (guint64, URCP_ENV_RING);
  rc_avg_window_init (&u->env_win, URCP_WINDOW_SPAN, URCP_WINDOW_MAX_SAMPLES);
  rc_avg_window_init (&u->env2_win, URCP_WINDOW_SPAN,
      URCP_WINDOW_MAX_SAMPLES);
  rc_avg_window_init (&u->envs_win, RECENT_SPAN, URCP_WINDOW_MAX_SAMPLES);
  u->disp = g_new (UrcpSample, URCP_DISP_RING);
  u->n_disp = 0;
  u->fpairs = g_new (UrcpSample, URCP_DISP_RING);
  u->n_fpairs = 0;
  u->disp_send = u->disp_recv = GST_CLOCK_TIME_NONE;
  u->probe_wait = URCP_WINDOW_SPAN;
  u->next_probe = 0;
}

void
rc_urcp_probe_clear (Urcp * u)
{
  rc_avg_window_clear (&u->env_win);
  rc_avg_window_clear (&u->env2_win);
  rc_avg_window_clear (&u->envs_win);
  g_free (u->disp);
  g_free (u->fpairs);
  g_free (u->ebuf);
  g_free (u->edq);
}

void
rc_urcp_probe_reset (Urcp * u)
{
  u->have_raw0 = FALSE;
  env_restart (u);
  u->n_disp = 0;
  u->n_fpairs = 0;
  u->disp_send = u->disp_recv = GST_CLOCK_TIME_NONE;
}

/* The bottleneck's rate from packet pairs: two packets that reach the
 * bottleneck closer together than it serves them leave it one service
 * time apart (packet-pair dispersion: Keshav, SIGCOMM 1991; Dovrolis,
 * Ramanathan and Moore, IEEE/ACM ToN 2004). Our pacer sends a frame's
 * packets at 1.5x the target (rc-sender.c), faster than the bottleneck
 * whenever the rate is near the capacity. A pair counts when its second
 * packet was sent at more than DISP_SEND_FACTOR x R^MAX after the first (of
 * about its size): if the bottleneck is slower than that, the pair queued
 * there and its receive gap is the bottleneck's service time; if faster,
 * the receive gap is about the send gap and the estimate is at least
 * DISP_SEND_FACTOR x R^MAX, above any probe step, so it bounds nothing.
 * Selected by send gaps only, not by receive gaps. The estimate is from
 * the middle half of the pairs' receive gaps per bit over the R^AVE window
 * (the newest URCP_DISP_RING pairs at most; see rc_urcp_bottleneck_bps),
 * not their sum: a token bucket (tbf, and the shapers of access links)
 * lets its burst, two or three packets, pass at the line rate after each
 * idle moment, and the sum of the gaps read 1.00-1.04 Mbit/s on the kernel
 * bench's 0.977 Mbit/s of RTP; delay noise after the queue spreads the
 * gaps around the service time. Another flow's packets between the pair
 * widen it: with competitors the estimate is of our share, and a probe,
 * which they stop anyway (rc-urcp-compete.c), stays bounded by it. Loss
 * breaks the chain. */
void
rc_urcp_disp_sample (Urcp * u, const RcPacketResult * p, gdouble sent_bps,
    GstClockTime now)
{
  GstClockTime send = p->send_ts, recv = p->recv_ts;

  if (p->lost || !GST_CLOCK_TIME_IS_VALID (send) ||
      !GST_CLOCK_TIME_IS_VALID (recv)) {
    u->disp_send = u->disp_recv = GST_CLOCK_TIME_NONE;
    return;
  }
  if (GST_CLOCK_TIME_IS_VALID (u->disp_send) && send >= u->disp_send &&
      p->size > 0 && 10 * p->size >= 9 * u->disp_size &&
      10 * u->disp_size >= 9 * p->size) {
    gdouble bits = p->size * 8.0;
    gdouble gap_s = (gdouble) (send - u->disp_send) / GST_SECOND;

    /* Packets of about equal size only (a frame's, but its last): the
     * pacer spaces a packet by the one before it, the bottleneck by its
     * own size, and a full packet followed by a frame's short tail read a
     * quarter of the pacing rate on a path that never queued them (rcsim:
     * 0.43 Mbit/s on 1 Mbit/s). The receive gap signed: noise may reorder
     * a pair. */
    UrcpSample x = { now, ((gdouble) recv - (gdouble) u->disp_recv) /
          GST_SECOND / bits, gap_s / bits, 0
    };

    if (u->delay.rmax > 0 && gap_s * DISP_SEND_FACTOR * u->delay.rmax < bits)
      u->disp[u->n_disp++ % URCP_DISP_RING] = x;
    if (gap_s * SELFQ_PAIR_FACTOR * sent_bps < bits)
      u->fpairs[u->n_fpairs++ % URCP_DISP_RING] = x;
  }
  u->disp_send = send;
  u->disp_recv = recv;
  u->disp_size = p->size;
}

/* The mean of the middle half of n sorted values (interquartile mean). */
static gdouble
iq_mean (const gdouble * v, guint n)
{
  gdouble sum = 0;
  guint i;

  for (i = n / 4; i < n - n / 4; i++)
    sum += v[i];
  return sum / (n - 2 * (n / 4));
}

/* The rate that n receive gaps (s/bit) read, 1 / their interquartile
 * mean; sorts them. `spread`, if not NULL: their interquartile range over
 * the median. */
static gdouble
gaps_rate (gdouble * recv_gap, guint n, gdouble * spread)
{
  gdouble mean;

  qsort (recv_gap, n, sizeof (gdouble), rc_double_cmp);
  if (spread)
    *spread = recv_gap[n / 2] > 0 ? (recv_gap[n - 1 - n / 4] -
        recv_gap[n / 4]) / recv_gap[n / 2] : G_MAXDOUBLE;
  mean = iq_mean (recv_gap, n);
  return mean > 0 ? 1.0 / mean : 0;
}

/* The bottleneck's rate (bit/s of our packets' sizes, the unit of R) from
 * the pairs reported at or after `since`, or 0 without DISP_MIN_PAIRS of
 * them. `spread`, if not NULL: their receive gaps' interquartile range over
 * the median. `sent`, if not NULL: the rate they were sent at, from their
 * send gaps the same way.
 *
 * The interquartile mean, not the median: TWCC times receive in 250 us
 * steps (a tenth of the 2.5 ms gap of a 1200-byte packet at 4 Mbit/s,
 * 2.5 % at 1 Mbit/s), so most gaps are one of two steps and the median
 * flips between them; on the kernel bench it read 0.966 or 0.991 Mbit/s,
 * and the flip up let probes start above the link. The middle half's mean
 * is between the steps where the gaps are, and still leaves out a token
 * bucket's back-to-back burst and noise. */
static gdouble
ring_since (const UrcpSample * ring, guint64 count, GstClockTime since,
    gdouble * spread, gdouble * sent)
{
  gdouble recv_gap[URCP_DISP_RING], send_gap[URCP_DISP_RING];
  guint64 i, first = count > URCP_DISP_RING ? count - URCP_DISP_RING : 0;
  guint n = 0;
  gdouble mean;

  for (i = first; i < count; i++) {
    const UrcpSample *x = &ring[i % URCP_DISP_RING];
    if (x->ts >= since) {
      send_gap[n] = x->raw;
      recv_gap[n++] = x->delta;
    }
  }
  if (n < DISP_MIN_PAIRS)
    return 0;
  if (sent) {
    qsort (send_gap, n, sizeof (gdouble), rc_double_cmp);
    mean = iq_mean (send_gap, n);
    *sent = mean > 0 ? 1.0 / mean : 0;
  }
  return gaps_rate (recv_gap, n, spread);
}

static gdouble
pairs_since (Urcp * u, GstClockTime since, gdouble * spread, gdouble * sent)
{
  return ring_since (u->disp, u->n_disp, since, spread, sent);
}

static gdouble
bottleneck_since (Urcp * u, GstClockTime since, gdouble * spread)
{
  return pairs_since (u, since, spread, NULL);
}

/* The probe ramp's ceiling: the bottleneck's rate that the pairs reported
 * since `since` read (PAIRS_SQUEEZED), or 0 where they do not read one. */
gdouble
rc_urcp_ramp_ceiling (Urcp * u, GstClockTime since)
{
  gdouble spread = G_MAXDOUBLE, sent = 0;
  gdouble got = pairs_since (u, since, &spread, &sent);

  return got > 0 && spread <= PAIRS_SPREAD_MAX &&
      sent >= PAIRS_SQUEEZED * got ? got : 0;
}

static GstClockTime
span_start (GstClockTime now, GstClockTime span)
{
  return now > span ? now - span : 0;
}

/* The bottleneck's rate over the R^AVE window. */
gdouble
rc_urcp_bottleneck_bps (Urcp * u, GstClockTime now)
{
  return bottleneck_since (u, span_start (now, URCP_WINDOW_SPAN), NULL);
}

gdouble
rc_urcp_frame_delivery_bps (Urcp * u, GstClockTime now, gboolean * agreed)
{
  gdouble spread = G_MAXDOUBLE, sent = 0;
  gdouble got = ring_since (u->fpairs, u->n_fpairs, span_start (now,
          URCP_WINDOW_SPAN), &spread, &sent);

  if (agreed)
    *agreed = got > 0 && spread <= PAIRS_SPREAD_MAX &&
        sent >= PAIRS_SQUEEZED * got;
  return got;
}

/* The bottleneck's rate from the start-up ramp's frame pairs reported at or
 * after `since`, or 0. There is no R^MAX yet to select them by (the
 * bottleneck's pairs above), so each pair is judged on its own: squeezed,
 * its receive gap at least PAIRS_SQUEEZED times its send gap. Those must
 * be DISP_MIN_PAIRS at least, half of the pairs at least (delay noise
 * squeezes a few pairs at random; a full bottleneck squeezes every pair
 * sent faster than it serves), and agree within PAIRS_SPREAD_MAX. */
gdouble
rc_urcp_startup_pairs_bps (Urcp * u, GstClockTime since)
{
  gdouble recv_gap[URCP_DISP_RING];
  guint64 i, first = u->n_fpairs > URCP_DISP_RING ?
      u->n_fpairs - URCP_DISP_RING : 0;
  guint n = 0, all = 0;
  gdouble spread = G_MAXDOUBLE, got;

  for (i = first; i < u->n_fpairs; i++) {
    const UrcpSample *x = &u->fpairs[i % URCP_DISP_RING];
    if (x->ts < since)
      continue;
    all++;
    if (x->delta >= PAIRS_SQUEEZED * x->raw)
      recv_gap[n++] = x->delta;
  }
  if (n < DISP_MIN_PAIRS || 2 * n < all)
    return 0;
  got = gaps_rate (recv_gap, n, &spread);
  GST_DEBUG ("%s: start-up pairs: %u of %u squeezed, %.0f bit/s, spread "
      "%.2f", u->parent.info->name, n, all, got, spread);
  return spread <= PAIRS_SPREAD_MAX ? got : 0;
}

/* Add one raw OWD sample (s) to the standing-queue detector and finish
 * every sample whose +-URCP_ENVELOPE_HALF window is now complete: its
 * lower envelope is the head of a monotonic deque (each sample enters and
 * leaves it once), and goes into env_win. */
void
rc_urcp_env_add_sample (Urcp * u, GstClockTime ts, gdouble raw, guint size,
    GstClockTime now)
{
  const GstClockTime h = URCP_ENVELOPE_HALF;
  UrcpSample *b = u->ebuf;
  UrcpSample x = { ts, raw, raw, size };

  /* Out of order (TWCC reports in send order, so only after a clock
   * jump): drop. */
  if (u->n_added > 0 && ts < b[(u->n_added - 1) % URCP_ENV_RING].ts)
    return;
  if (size > u->env_size) {
    if (!rc_urcp_env_full_size (u->env_size, size)) {
      GST_DEBUG ("%s: the envelope's packets are now %u bytes (were %u): "
          "its floor is learned again", u->parent.info->name, size,
          u->env_size);
      env_restart (u);
      /* A probe under way has lost its reference: undone, not failed,
       * and the next one waits for a clean window, as after start-up. */
      if (u->probe_pending) {
        u->delay.rmax = MAX (u->rmax_before, u->delay.rave);
        u->probe_pending = FALSE;
      }
      u->next_probe = MAX (u->next_probe, now + 2 * URCP_WINDOW_SPAN);
    }
    u->env_size = size;
  }
  if (!rc_urcp_env_full_size (size, u->env_size))
    return;
  b[u->n_added++ % URCP_ENV_RING] = x;

  while (u->n_done < u->n_added &&
      (b[u->n_done % URCP_ENV_RING].ts + h <= ts ||
          u->n_added - u->n_done > URCP_ENV_RING / 2)) {
    GstClockTime t = b[u->n_done % URCP_ENV_RING].ts;

    while (u->n_right < u->n_added &&
        b[u->n_right % URCP_ENV_RING].ts <= t + h) {
      gdouble d = b[u->n_right % URCP_ENV_RING].delta;
      while (u->dq_tail > u->dq_head &&
          b[u->edq[(u->dq_tail - 1) % URCP_ENV_RING] % URCP_ENV_RING].delta
          >= d)
        u->dq_tail--;
      u->edq[u->dq_tail++ % URCP_ENV_RING] = u->n_right++;
    }
    while (u->dq_tail > u->dq_head &&
        (b[u->edq[u->dq_head % URCP_ENV_RING] % URCP_ENV_RING].ts + h < t ||
            u->edq[u->dq_head % URCP_ENV_RING] + URCP_ENV_RING / 2 <
            u->n_done))
      u->dq_head++;
    if (u->dq_tail > u->dq_head) {
      gdouble env =
          b[u->edq[u->dq_head % URCP_ENV_RING] % URCP_ENV_RING].delta;
      rc_avg_window_push (&u->env_win, now, env);
      rc_avg_window_push (&u->env2_win, now, env * env);
      rc_avg_window_push (&u->envs_win, now, env);
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
void
rc_urcp_env_floor_add (Urcp * u, gdouble e)
{
  u->env_floor = MIN (u->env_floor, e);
}

gdouble
rc_urcp_standing_queue (Urcp * u)
{
  gdouble env = 0;

  rc_avg_window_mean (&u->env_win, &env);
  return u->env_floor < G_MAXDOUBLE ? env - u->env_floor : 0.0;
}

/* TRUE when the envelope's window mean is within NO_QUEUE_FRACTION
 * delta^MIN of its floor. Also updates env_se. */
static gboolean
no_standing_queue (Urcp * u)
{
  gdouble env, env2, se;
  GstClockTime age = rc_avg_window_age (&u->env_win);

  if (u->env_floor == G_MAXDOUBLE || age < URCP_WINDOW_MIN_AGE ||
      !rc_avg_window_mean (&u->env_win, &env) ||
      !rc_avg_window_mean (&u->env2_win, &env2))
    return FALSE;
  /* standard error of the window mean: neighbours share their envelope, so
   * count one independent value per envelope width */
  se = sqrt (MAX (env2 - env * env, 0) * 2 * URCP_ENVELOPE_HALF / age);
  u->env_se = se;
  return env - u->env_floor < NO_QUEUE_FRACTION * u->delay.sig_min;
}

void
rc_urcp_rmax_probe (Urcp * u, GstClockTime now, gdouble sent)
{
  UrcpInstance *in = &u->delay;
  gboolean clear = no_standing_queue (u);
  gdouble env = 0, recent, spread = G_MAXDOUBLE;
  gdouble cap;
  gboolean bounded, have_env, recent_clear = FALSE;

  /* a competitor holds the queue (rc-urcp-compete.c): nothing to probe */
  if (u->competing)
    return;

  have_env = rc_avg_window_age (&u->env_win) >= URCP_WINDOW_MIN_AGE &&
      rc_avg_window_mean (&u->env_win, &env);
  if (have_env)
    rc_urcp_env_floor_add (u, env);
  /* the newest second, where lower (see the top of this file); raw OWD is
   * relative to the first sample's and may be negative, so only against a
   * window mean that was read */
  if (have_env && u->env_floor < G_MAXDOUBLE &&
      rc_avg_window_age (&u->envs_win) >= RECENT_SPAN / 2 &&
      rc_avg_window_mean (&u->envs_win, &recent) && recent < env) {
    env = recent;
    recent_clear = env - u->env_floor < NO_QUEUE_FRACTION * in->sig_min;
  }
  if (u->probe_pending) {
    if (env - u->probe_env > NO_QUEUE_FRACTION * in->sig_min +
        PROBE_SE * u->probe_se) {
      /* Failed: the link was full. Back to what was known, or what was
       * got meanwhile, and wait longer before the next probe. */
      in->rmax = MAX (u->rmax_before, in->rave);
      u->probe_pending = FALSE;
      u->probe_wait = MIN (2 * u->probe_wait, RMAX_PROBE_WAIT_MAX);
      u->next_probe = now + u->probe_wait;
      u->probes_failed++;
      GST_DEBUG ("%s: R^MAX probe failed: the delay's envelope rose %.1f ms; "
          "R^MAX back to %.0f bit/s, next probe in %.0f s",
          u->parent.info->name, (env - u->probe_env) * 1000, in->rmax,
          (gdouble) u->probe_wait / GST_SECOND);
    } else if (now >= u->probe_at + PROBE_EARLY_MIN &&
        sent >= PROBE_MIN_SENT * in->rate &&
        (cap = bottleneck_since (u, u->probe_at, &spread)) >=
        DISP_SEND_FACTOR * in->rmax && spread <= ROOM_SPREAD_MAX) {
      /* The pairs read room (see PROBE_EARLY_MIN): ramp now. */
      u->probe_wait = URCP_WINDOW_SPAN;
      u->next_probe = now;
      GST_DEBUG ("%s: R^MAX probe kept after %.1f s: %.0f bit/s (R^AVE %.0f, "
          "the pairs since the probe read %.0f, spread %.2f)",
          u->parent.info->name, (gdouble) (now - u->probe_at) / GST_SECOND,
          in->rmax, in->rave, cap, spread);
      rc_urcp_probe_ramp (u, now, cap);
    } else if (now >= u->probe_at + URCP_WINDOW_SPAN) {
      u->probe_pending = FALSE;
      if (sent < PROBE_MIN_SENT * in->rate) {
        /* The source no longer sends what it is asked (application-
         * limited): a rate it could not send was not probed. Seen when
         * eq. 17's smaller k2 (SOURCE_RESPONSE) let the rate creep through
         * the 90 % gate of an encoder capped at 400 kbit/s. */
        in->rmax = MAX (u->rmax_before, in->rave);
        u->probe_wait = MIN (2 * u->probe_wait, RMAX_PROBE_WAIT_MAX);
        u->next_probe = now + u->probe_wait;
        u->probes_failed++;
        return;
      }
      /* A window without a standing queue: keep it. If the rate followed
       * R^MAX up and still no queue stands, the path has room that steps
       * of 10 % per window take minutes to fill: eq. 18 climbs at about
       * R^MAX / (M x loop delay) per second (rcsim, capacity 0.5 -> 4
       * Mbit/s: 0.37 -> 0.96 Mbit/s in 40 s). Ramp as at start-up
       * (rc-urcp-startup.c): 0.47 -> 3.3 Mbit/s in 2 s. */
      u->probe_wait = URCP_WINDOW_SPAN;
      u->next_probe = now;
      cap = rc_urcp_bottleneck_bps (u, now);
      bounded = cap > 0 && cap < in->rmax;
      if (bounded)
        in->rmax = MAX (u->rmax_before, cap);
      GST_DEBUG ("%s: R^MAX probe kept: %.0f bit/s (R^AVE %.0f, bottleneck "
          "%.0f)", u->parent.info->name, in->rmax, in->rave, cap);
      /* A probe cut back to the bottleneck's rate found no room to ramp
       * into. R^AVE rising is no sign of room when it only recovers from
       * a restart at 85 % (after start-up or a ramp) or from a cut: on the
       * kernel bench (kernel-1mbps, 2026-11-27) such a probe, kept at the
       * bottleneck's 0.966 Mbit/s, started a ramp to 2.0 Mbit/s that
       * queued 25 KB (200 ms) and restarted the rate at 0.81 Mbit/s.
       * Nor is there room when the pairs read a bottleneck at all: a
       * reading below DISP_SEND_FACTOR x R^MAX is the bottleneck's rate,
       * and all a ramp could find above R^MAX is what separates them; a
       * faster path reads at least that factor. On the kernel bench
       * (low-capacity-150k, 2026-11-28) a probe kept at 144.6 kbit/s with
       * the bottleneck read at 146.4 started a ramp to 745 kbit/s, five
       * times the link: 17 packets lost and 318 ms of queue.
       * And the rate itself must have risen by half a step since the probe
       * began, not only R^AVE: R^AVE lags the rate by half a window, so
       * after a cut it rises for 5 s whatever the probe found. In rcsim's
       * cbr-cross-traffic (the envelope of full-size packets, 2026-11-28)
       * a probe began 8 s after the CBR arrived, with the rate back at
       * 1.43 Mbit/s and R^AVE at 1.32; the rate stayed, R^AVE reached 1.41,
       * and the ramp beside the CBR queued 162 ms.
       * Where the bottleneck's pairs read nothing because R^MAX is already
       * above 1/1.2 of the pacer's rate (probes kept under noise, or the
       * link at capacity), our frames' own pairs still do
       * (rc_urcp_frame_delivery_bps): when they agree that our frames
       * leave the bottleneck at less than DISP_SEND_FACTOR times the rate,
       * the link is about full, and a ramp can only fill its buffer. On
       * rcsim's noisy-ethernet (9.1 Mbit/s, 10 ms buffer; 8 seeds) such
       * ramps doubled 7.8 Mbit/s into loss about every 45 s once delta no
       * longer carried each packet's service time (rc-owd.c's size_base),
       * each ending with R^MAX at what arrived and the rate restarted at
       * 85 % of it: 75.8 %, 0.62 % lost; with this test 88.5 %, 0.20 %
       * (84.8 % and 0.16 % before both). On start-of-slot delivery,
       * where the service time never showed, 76.2 -> 89.2 %. */
      if (!bounded && (cap <= 0 || cap >= DISP_SEND_FACTOR * in->rmax) &&
          in->rave >= u->probe_rave * (1 + RMAX_PROBE_GAIN / 2) &&
          in->rate >= u->probe_rate * (1 + RMAX_PROBE_GAIN / 2)) {
        gboolean agreed = FALSE;
        gdouble fd = cap > 0 ? 0 :
            rc_urcp_frame_delivery_bps (u, now, &agreed);
        if (agreed && fd < DISP_SEND_FACTOR * in->rate)
          GST_DEBUG ("%s: no probe ramp: our frames leave the bottleneck at "
              "%.0f bit/s", u->parent.info->name, fd);
        else
          rc_urcp_probe_ramp (u, now, 0);
      }
    }
    return;
  }
  if (now < u->next_probe)
    return;
  /* read only when all else allows a probe: a sort of up to 256 pairs.
   * The newest second's envelope opens the gate only with a reading that
   * shows room: under HSPA-like Pareto noise (rcsim, 1.55 Mbit/s) its dips
   * let probes through that the noise then kept, R^MAX went to 2.4 Mbit/s,
   * and a probe ramp to 4.3 Mbit/s filled the queue. */
  cap = -1;
  if ((clear || recent_clear) && in->rave * PROBE_LEAD >= in->rmax &&
      sent >= PROBE_MIN_SENT * in->rate && u->delay.rate <= u->loss.rate &&
      in->rmax < u->parent.limits.max_bps &&
      ((cap = MAX (rc_urcp_bottleneck_bps (u, now), bottleneck_since (u,
                      span_start (now, RECENT_SPAN), NULL))) <= 0 ? clear :
          in->rmax * (1 + RMAX_PROBE_GAIN / 2) <= cap)) {
    u->rmax_before = in->rmax;
    u->probe_env = env;
    u->probe_se = u->env_se;
    u->probe_rave = in->rave;
    u->probe_rate = in->rate;
    in->rmax = MAX (in->rmax, in->rave) * (1 + RMAX_PROBE_GAIN);
    u->probe_pending = TRUE;
    u->probe_at = now;
    u->probes++;
    GST_DEBUG ("%s: R^MAX probe: %.0f -> %.0f bit/s", u->parent.info->name,
        u->rmax_before, in->rmax);
  } else {
    /* Held by the bottleneck's rate: read it again in a second, not with
     * every packet. */
    if (cap > 0)
      u->next_probe = now + GST_SECOND;
    GST_LOG ("%s: no probe: standing queue %.1f ms (limit %.1f), R^AVE %.0f "
        "R^MAX %.0f, sent %.0f of %.0f, delay rate %.0f loss rate %.0f, "
        "bottleneck %.0f (-1: not read)", u->parent.info->name,
        (env - u->env_floor) * 1000,
        NO_QUEUE_FRACTION * u->delay.sig_min * 1000, in->rave, in->rmax,
        sent, in->rate, u->delay.rate, u->loss.rate, cap);
  }
}
