/* URCP extension: holding a share against a queue-filling (loss-based)
 * flow (core).
 *
 * Eq. 16's beta (delta^AVE - delta^MIN) term is how the paper lets URCP
 * compete with TCP (sec. VI-B): a queue that others hold raises k0. With
 * beta = 0.8 eq. 19 still balances only where sqrt (R^MAX / R) = 0.8 + 0.2
 * delta / delta^MIN, and a TCP flow holds delta at whatever its drop-tail
 * buffer allows, tens of delta^MIN: in rcsim, with CUBIC joining a URCP
 * flow on 2 Mbit/s (300 ms buffer, delta^MIN 5 ms, delta^AVE 228 ms) URCP
 * kept 26 % of its fair share; on the kernel bench in RFC 8867 5.6, 21-27 %
 * (docs/results.md, "URCP against TCP"). No delay-based rate can hold a share of a queue
 * whose owner grows it until it overflows.
 *
 * So URCP tells when such a flow is there and, while it is, follows loss
 * the way TCP does, as Copa (Arun and Balakrishnan, NSDI 2018, sec. 2.2)
 * switches to a competitive mode when the queue does not empty:
 *
 *  - Detection: overflow losses. A loss-based flow grows the queue until
 *    the buffer overflows, and our packets are lost with its own. A loss
 *    is an overflow when the queue has stood near its recent top for the
 *    last COMPETE_STOOD: the lowest delay of every feedback message in it
 *    at least COMPETE_TOP of the highest delay of the last
 *    COMPETE_PEAK_SPAN, and deep (at least COMPETE_DEPTH_MIN and
 *    COMPETE_DEPTH_DELTAS x delta^MIN, beyond what noise of delta^MIN's
 *    size holds). A loss-based flow's queue stands there for a second or
 *    more before each overflow (CUBIC's window flattens out near its last
 *    maximum); delay noise comes in spikes, which a message's lowest delay,
 *    and a second's, do not show: on noisy-hspa (Pareto noise up to
 *    350 ms, 0.37 % random loss) each message's highest delay put three
 *    random losses at the top within 15 s on 2 of 3 seeds. And few of our
 *    packets are lost (at most COMPETE_LOSS_MAX over the last 500 ms: our
 *    own overload, after a capacity fall, loses a large fraction: 1 - C/R).
 *    Losses within one round trip are one event, as TCP counts them.
 *    COMPETE_EVENTS such events within COMPETE_EVENT_SPAN mean a flow that
 *    fills the buffer again and again. Not fewer, nor faster: a media flow
 *    of ~30 packets a second loses one only in some of TCP's overflows
 *    (kernel bench, 5.6: one every 8-10 s; with 3 events in 15 s it
 *    switched at 84 s), and a single event switched on random losses in
 *    rcsim (noisy-cable, RFC 8867 5.2: p95 up 20-75 ms, means of 6 seeds).
 *    URCP flows alone overflow a buffer only if it is shallower than their
 *    operating delay (eq. 19), and then loss is all that is left to follow
 *    anyway.
 *  - While competing: the delay and loss instances of Table I wait, and
 *    the rate follows loss as CUBIC's window does (RFC 8312), with a
 *    gentler cut. At a loss event, at most once a round trip, the rate
 *    falls by COMPETE_B; between them it grows as CUBIC's window, in
 *    packets per round trip, W(t) = C' (t - K)^3 + W_max from the last cut
 *    (sec. 4.1, eqs. 1 and 2), with fast convergence (sec. 4.6: a cut
 *    below the last one's window sets W_max to (2 - B) / 2 of it), and
 *    never slower than AIMD(A, B) (sec. 4.2's TCP-friendly region).
 *    A = 4 (2B - B^2) / 3 makes AIMD(A, B) send what TCP Reno sends at the
 *    same loss-event rate and RTT (Floyd, Handley, Padhye, "A Comparison
 *    of Equation-Based and AIMD Congestion Control", 2000, sec. 2);
 *    B = 0.15 is the cut URCP makes elsewhere (GCC's 0.85,
 *    draft-ietf-rmcat-gcc-02 sec. 5.5), gentler on the picture than TCP's.
 *    C' = C B / (1 - beta_cubic), with CUBIC's C = 0.4 and beta_cubic = 0.7
 *    (sec. 5): where an overflow every T seconds hits both flows, CUBIC's
 *    window settles where its growth over T makes up its cut, at
 *    C T^3 / (1 - beta_cubic), and ours at C' T^3 / B, the same window.
 *    Why not AIMD alone (until 2026-11-29): Linux's TCP is CUBIC, which
 *    grows by time, not by round trips. Where an overflow every T seconds
 *    hits both flows, AIMD(A, B) settles at A T / (B RTT) packets, CUBIC
 *    at C T^3 / (1 - beta_cubic): in RFC 8867 5.6 on the kernel bench (a
 *    round trip of 0.36 s behind the 300 ms queue, an overflow every 3-6
 *    s), 27 packets against 85 at T = 4 s. The media held 52 +- 7 % of its
 *    fair share there (six interleaved runs, 43-61 %) and 80 % in
 *    tcp-joins-leaves (four); with the cubic 87 +- 23 % (five runs, 51-112:
 *    when it switches varies, and it may leave at a deep trough of the
 *    shared queue) and 107 % (two), rtpgccbwe 11 and 12 %. Without fast
 *    convergence 105 and 119 % (two runs each). In rcsim, whose CUBIC
 *    loses 1.7 % of its packets at the overflows against our 0.3 % (the
 *    kernel's lose 0.67 and 0.6 %), 72 -> 109 % and 87 -> 108 % (6 seeds).
 *  - Leaving: once the queue has drained (the lowest delay of every
 *    feedback message for COMPETE_DRAINED within COMPETE_DRAIN_DELTAS x
 *    delta^MIN, at least COMPETE_DRAIN_MIN, of the path's floor, and
 *    within COMPETE_DRAIN_PEAK of the recent peak), no flow holds it any
 *    more: the instances restart from the current rate. A buffer-filling
 *    flow never lets it drain; our own control, alone, does after a cut of
 *    15 %, and the cubic waits while it reads drained (rcsim,
 *    tcp-joins-leaves: the queue empty 0.4-1.2 s after TCP left, 6
 *    seeds). The floor may include a queue that was there when we
 *    started (RFC 8867 5.6: the media flow starts 5 s after TCP and never
 *    sees the empty queue): the competitor's trough then is the floor. A
 *    depth of 2 delta^MIN alone (62 ms in rcsim's 5.6, delta^MIN learned
 *    on the competitor's queue) read every trough as drained; within a
 *    fifth of the peak a trough stays for less than COMPETE_DRAINED
 *    (CUBIC's window grows fastest just after its cut). Without any
 *    overflow for COMPETE_QUIET the flow is gone too.
 */
#include <math.h>
#include "rc-urcp-private.h"

#define GST_CAT_DEFAULT rc_urcp_debug

#define COMPETE_PEAK_SPAN (10 * GST_SECOND)
#define COMPETE_STOOD (1 * GST_SECOND)
#define COMPETE_TOP 0.5
#define COMPETE_DEPTH_MIN 0.03
#define COMPETE_DEPTH_DELTAS 2.0
#define COMPETE_LOSS_MAX 0.1
#define COMPETE_EVENTS 2
#define COMPETE_EVENT_SPAN (30 * GST_SECOND)
#define COMPETE_B 0.15
#define COMPETE_A (4.0 * (2 * COMPETE_B - COMPETE_B * COMPETE_B) / 3.0)
#define COMPETE_C (0.4 * COMPETE_B / (1 - 0.7))
#define COMPETE_DRAINED (1 * GST_SECOND)
#define COMPETE_DRAIN_DELTAS 2.0
#define COMPETE_DRAIN_MIN 0.005
#define COMPETE_DRAIN_PEAK 0.2
#define COMPETE_QUIET (30 * GST_SECOND)
/* A loss event spans at least this, when the round trip is shorter. */
#define COMPETE_EVENT_MIN_GAP (200 * GST_MSECOND)

void
rc_urcp_compete_reset (Urcp * u)
{
  guint i;

  u->cq_have_floor = FALSE;
  for (i = 0; i < URCP_CQ_BUCKETS; i++)
    u->cq_peak[i] = -1;
  u->cq_n_events = 0;
  u->cq_n_lows = 0;
  u->cq_last_event = GST_CLOCK_TIME_NONE;
}

/* Adds a message's lowest queue; returns the lowest over COMPETE_STOOD, or
 * -1 while the ring holds less than that. */
static gdouble
lows_add (Urcp * u, gdouble q, GstClockTime now)
{
  guint64 i;
  gdouble lo = q;
  gboolean full = FALSE;

  u->cq_lows[u->cq_n_lows % URCP_CQ_LOWS] = q;
  u->cq_lows_t[u->cq_n_lows % URCP_CQ_LOWS] = now;
  u->cq_n_lows++;
  for (i = u->cq_n_lows; i-- > 0 && i + URCP_CQ_LOWS >= u->cq_n_lows;) {
    if (u->cq_lows_t[i % URCP_CQ_LOWS] + COMPETE_STOOD < now) {
      full = TRUE;
      break;
    }
    lo = MIN (lo, u->cq_lows[i % URCP_CQ_LOWS]);
  }
  return full ? lo : -1;
}

/* The highest queue in the last COMPETE_PEAK_SPAN, in 1 s buckets. */
static gdouble
peak_add (Urcp * u, gdouble q, GstClockTime now)
{
  guint64 sec = now / GST_SECOND;
  guint i, b = sec % URCP_CQ_BUCKETS;
  gdouble peak = q;

  if (u->cq_peak_sec[b] != sec || u->cq_peak[b] < 0) {
    u->cq_peak_sec[b] = sec;
    u->cq_peak[b] = q;
  } else
    u->cq_peak[b] = MAX (u->cq_peak[b], q);
  for (i = 0; i < URCP_CQ_BUCKETS; i++)
    if (u->cq_peak[i] >= 0 && u->cq_peak_sec[i] + URCP_CQ_BUCKETS > sec)
      peak = MAX (peak, u->cq_peak[i]);
  return peak;
}

static gdouble
depth_min (Urcp * u)
{
  return MAX (COMPETE_DEPTH_MIN, COMPETE_DEPTH_DELTAS * u->delay.sig_min);
}

static void
enter (Urcp * u, GstClockTime now)
{
  u->competing = TRUE;
  u->competitor_episodes++;
  u->cq_drained_since = GST_CLOCK_TIME_NONE;
  u->cq_last_cut = u->cq_last_event;
  u->probe_pending = FALSE;
  /* the cubic starts at the current rate (K = 0), as CUBIC's does on
   * entering congestion avoidance with no earlier maximum; its epoch is
   * cq_last_cut, this event's time */
  u->cq_wmax = -1;
  u->cq_wlast = 0;
  u->cq_k = 0;
  GST_DEBUG ("%s: %u overflow losses in %.0f s at a queue of over %.0f ms: "
      "a flow that fills the buffer shares the path; following loss as "
      "CUBIC does, at %.0f bit/s", u->parent.info->name, u->cq_n_events,
      (gdouble) COMPETE_EVENT_SPAN / GST_SECOND, depth_min (u) * 1000,
      u->rate);
}

static void
leave (Urcp * u, GstClockTime now, const gchar * why)
{
  u->competing = FALSE;
  u->cq_n_events = 0;
  u->delay.rate = u->loss.rate = u->rate;
  /* re-probing starts afresh: the queue just drained */
  u->next_probe = now + URCP_WINDOW_SPAN;
  GST_DEBUG ("%s: %s: back to Table I at %.0f bit/s", u->parent.info->name,
      why, u->rate);
}

void
rc_urcp_compete_step (Urcp * u, gdouble raw_lo, gdouble raw_hi,
    guint n_recv, guint n_lost, gdouble dt, GstClockTime now)
{
  gdouble q_hi, q_lo, stood, peak, loss = 0, rtt, pkt_bits, w;
  GstClockTime rtt_t, gap;

  if (n_recv == 0)
    return;
  if (!u->cq_have_floor || raw_lo < u->cq_floor) {
    u->cq_floor = raw_lo;
    u->cq_have_floor = TRUE;
  }
  q_hi = raw_hi - u->cq_floor;
  q_lo = raw_lo - u->cq_floor;
  peak = peak_add (u, q_hi, now);
  stood = lows_add (u, q_lo, now);
  rtt_t = GST_CLOCK_TIME_IS_VALID (u->rtt_avg) ? u->rtt_avg : 0;
  gap = MAX (rtt_t, COMPETE_EVENT_MIN_GAP);
  rc_avg_window_mean (&u->loss_short, &loss);

  if (n_lost > 0 && stood >= COMPETE_TOP * peak && stood >= depth_min (u) &&
      loss <= COMPETE_LOSS_MAX &&
      (!GST_CLOCK_TIME_IS_VALID (u->cq_last_event) ||
          now >= u->cq_last_event + gap)) {
    guint i, k = 0;

    u->cq_last_event = now;
    if (u->cq_n_events == URCP_CQ_EVENTS)
      u->cq_n_events--;
    for (i = u->cq_n_events; i > 0; i--)
      u->cq_events[i] = u->cq_events[i - 1];
    u->cq_events[0] = now;
    u->cq_n_events++;
    for (i = 0; i < u->cq_n_events; i++)
      if (u->cq_events[i] + COMPETE_EVENT_SPAN >= now)
        k++;
    u->cq_n_events = k;
    GST_LOG ("%s: overflow loss: the queue stood at %.0f ms or more for "
        "%.1f s (peak %.0f), %u in %.0f s", u->parent.info->name,
        stood * 1000, (gdouble) COMPETE_STOOD / GST_SECOND, peak * 1000, k,
        (gdouble) COMPETE_EVENT_SPAN / GST_SECOND);
    if (!u->competing && k >= COMPETE_EVENTS)
      enter (u, now);
  }
  if (!u->competing)
    return;

  /* Leaving: the queue drained and stayed so, or no overflow for long. */
  if (q_lo > MIN (MAX (COMPETE_DRAIN_MIN,
              COMPETE_DRAIN_DELTAS * u->delay.sig_min),
          COMPETE_DRAIN_PEAK * peak))
    u->cq_drained_since = GST_CLOCK_TIME_NONE;
  else if (!GST_CLOCK_TIME_IS_VALID (u->cq_drained_since))
    u->cq_drained_since = now;
  if (GST_CLOCK_TIME_IS_VALID (u->cq_drained_since) &&
      now >= u->cq_drained_since + COMPETE_DRAINED) {
    leave (u, now, "the queue drained: no flow holds it");
    return;
  }
  if (now >= u->cq_last_event + COMPETE_QUIET) {
    leave (u, now, "no overflow loss for 30 s");
    return;
  }

  /* A cut per loss event, else CUBIC's growth, or A packets per round
   * trip where that is faster (see the top of this file). The round
   * trip is the path's: its minimum and the queue (delta^AVE); a sample
   * also holds the receiver's wait for its next feedback (rtpbin sends
   * transport-wide feedback with its RTCP, about 9 times a second), which
   * no TCP flow's round trip has. */
  rtt = rc_urcp_rtt_min_s (u) + MAX (u->delay.sig_ave, 0);
  pkt_bits = 8 * MAX (u->mean_pkt_bytes, 1.0);
  w = u->rate * rtt / pkt_bits;
  if (u->cq_wmax < 0)
    u->cq_wmax = w;
  if (n_lost > 0 && (!GST_CLOCK_TIME_IS_VALID (u->cq_last_cut) ||
          now >= u->cq_last_cut + gap)) {
    u->cq_last_cut = now;
    if (w < u->cq_wlast)
      u->cq_wmax = w * (2 - COMPETE_B) / 2;
    else
      u->cq_wmax = w;
    u->cq_wlast = w;
    u->cq_k = cbrt (MAX (u->cq_wmax - w * (1 - COMPETE_B), 0) / COMPETE_C);
    u->rate *= 1 - COMPETE_B;
    GST_DEBUG ("%s: competing: loss event, rate cut to %.0f bit/s (round "
        "trip %.0f ms)", u->parent.info->name, u->rate, rtt * 1000);
    u->reason = "competing with a flow that fills the buffer: loss event, "
        "rate cut";
  } else {
    /* t - K of RFC 8312 eq. 1 */
    gdouble t = (gdouble) (now - u->cq_last_cut) / GST_SECOND - u->cq_k;

    u->rate += COMPETE_A * pkt_bits * dt / (rtt * rtt);
    /* Not while the queue reads drained: that is the sign that the
     * competitor left, and the cubic, convex past W_max, filled the queue
     * again before COMPETE_DRAINED had passed (rcsim, tcp-joins-leaves,
     * seed 1: an empty queue 7.8 s after TCP left, not 1.2 s; the short
     * TCP flows of RFC 8867 5.7: p95 171 -> 188 ms over 6 seeds, and
     * unchanged with this). */
    if (!GST_CLOCK_TIME_IS_VALID (u->cq_drained_since))
      u->rate = MAX (u->rate, (COMPETE_C * t * t * t + u->cq_wmax) *
          pkt_bits / rtt);
    u->reason = "competing with a flow that fills the buffer: growing as "
        "CUBIC's window";
  }
  u->rate = MIN (u->rate, URCP_APP_LIMIT_FACTOR * MAX (u->delay.rmax,
          rc_urcp_sent_bps (u, now)));
  u->rate = rc_urcp_clamp_rate (u, u->rate);
  u->delay.rate = u->loss.rate = u->rate;
}
