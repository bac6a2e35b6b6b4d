/* URCP extension: lowering R^MAX when the path delivers far less than it
 * is sent (core).
 *
 * Eq. 14 only raises R^MAX, and the paper (sec. VII-B) corrects estimates
 * only by re-probing, which lowers nothing. After a capacity fall R^MAX
 * stays at the old capacity; with R^MAX several times the capacity eq. 19
 * balances only at a deep queue, which eq. 18's loop swings through
 * (rcsim and the kernel bench alike, capacity 4 -> 1 Mbit/s: the queue
 * between ~25 and 300 ms every ~4 s; docs/urcpsender.md).
 *
 * A fall shows as overload that lasts: over OVERLOAD_SPAN of send time the
 * receiver got less than OVERLOAD_RATIO of what was sent. At that ratio the
 * bottleneck's queue grows by 0.4 s of its capacity per second, so it cannot
 * last a second without the queue passing any drop-tail limit we meet (300
 * ms) or the delay rising by hundreds of ms; noise that holds packets and
 * then releases them delivers as fast once the one long gap it leaves is set
 * aside (overloaded, below), and a shared queue at eq. 19's operating point
 * is stable (what each flow sends arrives). A second test looks at the
 * newest OVERLOAD_FAST_SPAN only, and needs a queue that stands for it: the
 * lowest delay of the packets sent in its last OVERLOAD_FLOOR_SPAN
 * OVERLOAD_RISE above the lowest of its first. Noise lifts single packets,
 * not the lowest of several, so this test can be short (RFC 8867 5.1 in
 * rcsim, seed 1, 2.5 -> 0.6 Mbit/s behind 300 ms of drop-tail queue: 75
 * packets dropped, the first test alone 96). Half a second with the first
 * test's evidence (a loss, or the last packet's delay) cut R^MAX under the
 * noise of noisy-wimax on two seeds of three (86 and 96 -> 64 and 61 %
 * utilization).
 *
 * What the path gives this flow now is the rate of the newest arrivals
 * behind that queue: R^MAX becomes that (or what arrived over the span, if
 * lower; the span's rate alone mixes in the rate before the fall, and in
 * 5.1 cut to 1.08 Mbit/s first and to 0.58 0.8 s later, the queue
 * dropping packets for 2 s, 123 of them). The rate drops to what drains
 * the queue the newest packet saw within DRAIN_TIME, and holds there,
 * eq. 18 not running, until the delay is back near delta^MIN; then it
 * restarts at OVERLOAD_DRAIN of the new R^MAX, as at the end of the
 * start-up ramp (rc-urcp-startup.c). R^AVE restarts from each new rate so
 * eq. 14 does not restore the old R^MAX; delta^MIN and the inherent loss
 * are kept. Re-probing (rc-urcp-probe.c) raises R^MAX again when the path
 * has room.
 *
 * Only a large error is corrected (R^MAX more than OVERLOAD_RMAX_FACTOR
 * times what arrives): near the operating point the delay loop does the
 * work. The first test needs the queue's evidence too (a loss, or the
 * delay up by OVERLOAD_RISE over the span), the second a standing queue.
 * An earlier rule that cut R^MAX on a standing queue alone could not tell
 * a fall from sharing and cut R^MAX in RFC 8867 5.3 and 5.5
 * (docs/urcpsender.md); both tests look at delivery,
 * which sharing at the operating point does not reduce below what is sent.
 */
#include <string.h>
#include "rc-urcp-private.h"

#define GST_CAT_DEFAULT rc_urcp_debug

#define OVERLOAD_SPAN (1 * GST_SECOND)
#define OVERLOAD_RATIO 0.6
#define OVERLOAD_RMAX_FACTOR URCP_APP_LIMIT_FACTOR
#define OVERLOAD_MIN_PKTS 10
#define OVERLOAD_RISE 0.1
#define OVERLOAD_DRAIN 0.85
#define OVERLOAD_FAST_SPAN (500 * GST_MSECOND)
#define OVERLOAD_FLOOR_SPAN (150 * GST_MSECOND)
#define OVERLOAD_FLOOR_PKTS 3
/* Not within this after a ramp (start-up or probe) ends: the ramp's exit
 * has just set R^MAX from what arrived and dropped the rate to 85 % of it,
 * and its queue is still draining. A random loss burst inside that drain
 * read as overload (noisy-wimax, a Gilbert-Elliott burst took 9 of 25
 * packets 0.8 s after a probe ramp: 135 of 480 kbit/s "arrived"). */
#define OVERLOAD_AFTER_RAMP (2 * GST_SECOND)
/* The drain after a cut: the standing queue the overload left (the newest
 * packet's delay above delta^MIN) goes within DRAIN_TIME, at no less than
 * DRAIN_MIN of what arrives, and eq. 18 holds still meanwhile (below). */
#define DRAIN_TIME (500 * GST_MSECOND)
#define DRAIN_MIN 0.5
#define DRAIN_HOLD_MAX (3 * GST_SECOND)
#define DRAIN_FEEDBACK_SLACK (100 * GST_MSECOND)
/* The drain is over when a message's mean delay is within this many
 * delta^MIN. */
#define DRAIN_DONE_FACTOR 2.0
/* What the path gives now: the newest arrivals, back until at least
 * OVERLOAD_RECENT_PKTS of them span OVERLOAD_RECENT of the receiver's
 * clock (ramp_rmax's window, rc-urcp-startup.c). */
#define OVERLOAD_RECENT (250 * GST_MSECOND)
#define OVERLOAD_RECENT_PKTS 10
/* Nothing arrived for this long inside the span: an outage (the path
 * comes back at its capacity), not a lower capacity, which keeps
 * delivering. Without it a 2 s outage (outage.ini) cut R^MAX to the
 * trickle around it: 92 -> 73 % utilization. */
#define OVERLOAD_GAP (OVERLOAD_SPAN / 2)

void
rc_urcp_overload_init (Urcp * u)
{
  u->ov = g_new (UrcpPkt, URCP_OV_RING);
  u->ov_head = u->ov_tail = 0;
}

void
rc_urcp_overload_clear (Urcp * u)
{
  g_free (u->ov);
}

void
rc_urcp_overload_reset (Urcp * u)
{
  u->ov_head = u->ov_tail;
}

/* A reported packet in steady state; `delta` s, meaningless if lost. */
void
rc_urcp_overload_sample (Urcp * u, const RcPacketResult * p, gdouble delta)
{
  UrcpPkt *x;

  if (!GST_CLOCK_TIME_IS_VALID (p->send_ts))
    return;
  if (u->ov_tail - u->ov_head == URCP_OV_RING)
    u->ov_head++;
  x = &u->ov[u->ov_tail++ % URCP_OV_RING];
  x->send_ts = p->send_ts;
  x->recv_ts = p->lost ? GST_CLOCK_TIME_NONE : p->recv_ts;
  x->delta = delta;
  x->size = p->size;
  x->lost = p->lost || !GST_CLOCK_TIME_IS_VALID (p->recv_ts);
  /* keep OVERLOAD_SPAN of send time */
  while (u->ov_tail - u->ov_head > 1 &&
      u->ov[u->ov_head % URCP_OV_RING].send_ts + OVERLOAD_SPAN < p->send_ts)
    u->ov_head++;
}

/* The receive rate of the newest arrivals in the ring (bit/s), or 0 when
 * they span too little. Behind the standing queue an overload leaves, they
 * arrive one service time apart: the rate the path gives this flow now. */
static gdouble
recent_recv_bps (Urcp * u)
{
  guint64 i;
  guint n = 0;
  gdouble bytes = 0, first_size = 0;
  GstClockTime r0 = GST_CLOCK_TIME_NONE, r1 = 0;

  for (i = u->ov_tail; i > u->ov_head; i--) {
    const UrcpPkt *x = &u->ov[(i - 1) % URCP_OV_RING];
    if (x->lost)
      continue;
    /* min and max: noise reorders arrivals. n arrivals span n - 1 service
     * times, each that of the packet that ends it, so the bytes of the
     * first to arrive are left out. (Leaving out the newest's instead read
     * a frame's short tail in and a full packet out: rcsim, RFC 8867 5.3,
     * 2 -> 1 Mbit/s, 931-935 kbit/s on seeds where 971 was right.) */
    bytes += x->size;
    if (x->recv_ts < r0) {
      r0 = x->recv_ts;
      first_size = x->size;
    }
    r1 = MAX (r1, x->recv_ts);
    if (++n > OVERLOAD_RECENT_PKTS && r1 >= r0 + OVERLOAD_RECENT)
      return (bytes - first_size) * 8.0 / ((gdouble) (r1 - r0) / GST_SECOND);
  }
  return 0;
}

/* What a stretch of the ring shows: the packets sent from `from` on. */
typedef struct
{
  guint64 sent, recv;           /* bytes, each but the first (sent) or first
                                 * received (recv) packet's */
  guint n_rx, n_lost;
  GstClockTime rx_min, rx_max, send0, send1;
  GstClockTime gap;             /* the longest between two arrivals */
  gdouble rise;                 /* the last arrival's delta less the first's */
  gdouble last_delta;
  gdouble floor0, floor1;       /* the lowest delta of the arrivals sent in
                                 * the first and in the last
                                 * OVERLOAD_FLOOR_SPAN, G_MAXDOUBLE if none */
  guint n_floor0, n_floor1;
} OvSpan;

static void
measure (Urcp * u, GstClockTime from, OvSpan * m)
{
  const UrcpPkt *first = NULL, *first_rx = NULL, *last_rx = NULL, *last;
  guint64 i;

  memset (m, 0, sizeof (*m));
  m->rx_min = GST_CLOCK_TIME_NONE;
  m->floor0 = m->floor1 = G_MAXDOUBLE;
  last = &u->ov[(u->ov_tail - 1) % URCP_OV_RING];
  for (i = u->ov_head; i < u->ov_tail; i++) {
    const UrcpPkt *x = &u->ov[i % URCP_OV_RING];
    if (x->send_ts < from)
      continue;
    if (!first)
      first = x;
    else
      m->sent += x->size;
    if (x->lost) {
      m->n_lost++;
      continue;
    }
    if (!first_rx)
      first_rx = x;
    else
      m->recv += x->size;
    if (last_rx && x->recv_ts > last_rx->recv_ts)
      m->gap = MAX (m->gap, x->recv_ts - last_rx->recv_ts);
    last_rx = x;
    m->rx_min = MIN (m->rx_min, x->recv_ts);
    m->rx_max = MAX (m->rx_max, x->recv_ts);
    m->n_rx++;
    if (x->send_ts < first->send_ts + OVERLOAD_FLOOR_SPAN) {
      m->floor0 = MIN (m->floor0, x->delta);
      m->n_floor0++;
    }
    if (x->send_ts + OVERLOAD_FLOOR_SPAN > last->send_ts) {
      m->floor1 = MIN (m->floor1, x->delta);
      m->n_floor1++;
    }
  }
  m->send0 = first ? first->send_ts : 0;
  m->send1 = last->send_ts;
  m->rise = first_rx ? last_rx->delta - first_rx->delta : 0;
  m->last_delta = last_rx ? last_rx->delta : 0;
}

/* The lowest delay rose by OVERLOAD_RISE from the span's start to its end:
 * a queue that stands, which noise alone does not build. */
static gboolean
standing_queue (const OvSpan * m)
{
  return m->n_floor0 >= OVERLOAD_FLOOR_PKTS &&
      m->n_floor1 >= OVERLOAD_FLOOR_PKTS &&
      m->floor1 - m->floor0 >= OVERLOAD_RISE;
}

/* The span's received rate if the path delivered far less than was sent
 * over it (OVERLOAD_RATIO, and R^MAX at least OVERLOAD_RMAX_FACTOR times
 * what arrived), else 0. `standing`: the evidence of a queue must be a
 * standing one (below). */
static gdouble
overloaded (Urcp * u, const OvSpan * m, GstClockTime span, gboolean standing)
{
  gdouble send_span = (gdouble) (m->send1 - m->send0) / GST_SECOND;
  gdouble sent_bps, recv_bps;
  GstClockTime rx_span;

  /* a full span of sending, and enough arrivals to time */
  if (send_span < 0.8 * span / GST_SECOND ||
      m->n_rx < OVERLOAD_MIN_PKTS || m->rx_max <= m->rx_min ||
      m->gap > OVERLOAD_GAP)
    return 0;
  sent_bps = m->sent * 8.0 / send_span;
  /* min to max: noise reorders arrivals. Less the longest gap between
   * arrivals: delay noise that holds a packet holds those behind it in
   * order, and releases them together, so the receive span grows by the
   * hold while the same bytes arrive; a lower capacity spaces every
   * arrival, and one gap less changes its rate by one packet's share.
   * Counted whole, one hold of 406 ms read 0.24 of 1.6 Mbit/s sent as
   * arrived and cut R^MAX to 0.24 Mbit/s (rcsim, startup-heavy-tail's
   * Pareto noise run for 120 s: 6 seeds of 16 cut so, none with this). */
  rx_span = m->rx_max - m->rx_min;
  if (m->n_rx > 2 && rx_span > m->gap)
    rx_span -= m->gap;
  recv_bps = m->recv * 8.0 / ((gdouble) rx_span / GST_SECOND);
  if (recv_bps >= OVERLOAD_RATIO * sent_bps ||
      u->delay.rmax <= OVERLOAD_RMAX_FACTOR * recv_bps)
    return 0;
  if (standing) {
    if (!standing_queue (m))
      return 0;
  } else if (m->n_lost == 0 && m->rise < OVERLOAD_RISE) {
    return 0;
  }
  return recv_bps;
}

/* The instance's rate set to `rate`, and R^AVE started again from it, so
 * that eq. 14 does not restore the R^MAX of before. */
static void
restart_at (Urcp * u, UrcpInstance * in, gdouble rate)
{
  in->rate = rc_urcp_clamp_rate (u, rate);
  rc_avg_window_reset (&in->rate_win);
  in->rave = in->rate;
}

/* After a steady-state feedback message: the test, and the correction. */
void
rc_urcp_overload_check (Urcp * u, GstClockTime now)
{
  OvSpan m;
  gdouble recv_bps, now_bps;
  GstClockTime span = OVERLOAD_SPAN;

  if (u->ov_tail - u->ov_head < OVERLOAD_MIN_PKTS ||
      (GST_CLOCK_TIME_IS_VALID (u->phase_start) &&
          now < u->phase_start + OVERLOAD_AFTER_RAMP))
    return;
  measure (u, 0, &m);
  recv_bps = overloaded (u, &m, OVERLOAD_SPAN, FALSE);
  if (recv_bps <= 0) {
    GstClockTime newest = u->ov[(u->ov_tail - 1) % URCP_OV_RING].send_ts;
    span = OVERLOAD_FAST_SPAN;
    measure (u, newest > span ? newest - span : 0, &m);
    recv_bps = overloaded (u, &m, span, TRUE);
    if (recv_bps <= 0)
      return;
  }

  /* The newest arrivals' rate is the path's only behind a standing queue:
   * with noise alone it is the noise's (noisy-wimax, seed 7: a cut that
   * the first test made on 18 random losses read 111 kbit/s from them,
   * 220 over the span, of 480). */
  now_bps = standing_queue (&m) ? recent_recv_bps (u) : 0;
  if (now_bps > 0)
    recv_bps = MIN (recv_bps, now_bps);
  GST_INFO ("%s: overload: %.0f bit/s arrived of %.0f sent over %.2f s "
      "(%u lost, delay +%.0f ms, its floor +%.0f ms; newest arrivals %.0f "
      "bit/s); R^MAX %.0f -> %.0f", u->parent.info->name, recv_bps,
      m.sent * 8.0 / ((gdouble) (m.send1 - m.send0) / GST_SECOND),
      (gdouble) (m.send1 - m.send0) / GST_SECOND, m.n_lost, m.rise * 1000,
      m.floor1 < G_MAXDOUBLE && m.floor0 < G_MAXDOUBLE ?
      (m.floor1 - m.floor0) * 1000 : 0, now_bps, u->delay.rmax, recv_bps);
  {
    UrcpInstance *ins[] = { &u->delay, &u->loss };
    gdouble floor = (gdouble) u->parent.limits.min_bps;
    gdouble queue = MAX (m.last_delta - u->delay.sig_min, 0);
    gdouble frac = CLAMP (1 - queue / ((gdouble) DRAIN_TIME / GST_SECOND),
        DRAIN_MIN, OVERLOAD_DRAIN);
    /* Packets in flight at the old rate keep the queue full for a one-way
     * delay, it drains in queue / (1 - frac), and the first packet that
     * finds it empty is reported a round trip and a feedback interval
     * later: the drain shows by then, and twice that is the time limit. */
    GstClockTime hold = 2 * ((GstClockTime) (queue / (1 - frac) *
            GST_SECOND) + (GstClockTime) (rc_urcp_rtt_min_s (u) *
            GST_SECOND) + DRAIN_FEEDBACK_SLACK);
    guint k;

    for (k = 0; k < G_N_ELEMENTS (ins); k++) {
      UrcpInstance *in = ins[k];
      in->rmax = MAX (recv_bps, floor);
      restart_at (u, in, MIN (in->rate, frac * recv_bps));
    }
    u->draining = TRUE;
    u->drain_until = now + MIN (hold, DRAIN_HOLD_MAX);
    u->drain_restart = OVERLOAD_DRAIN * recv_bps;
    GST_INFO ("%s: draining %.0f ms of queue at %.0f bit/s for at most "
        "%.2f s", u->parent.info->name, queue * 1000, u->delay.rate,
        (gdouble) MIN (hold, DRAIN_HOLD_MAX) / GST_SECOND);
  }
  u->rate = MIN (u->delay.rate, u->loss.rate);
  /* The re-probe's reference is the path as it is now: at a lower
   * capacity each packet's service time is longer, so the delay's floor
   * is higher (one 1100-byte packet: 3.5 ms at 2.5 Mbit/s, 15 ms at 0.6)
   * and the old floor would read as a standing queue for good. The floor
   * is learned again once the queue has drained and a clean window has
   * passed, as after start-up (rc-urcp-probe.c). */
  u->env_floor = G_MAXDOUBLE;
  u->probe_pending = FALSE;
  u->probe_wait = URCP_WINDOW_SPAN;
  u->next_probe = now + 2 * URCP_WINDOW_SPAN;
  u->overload_cuts++;
  u->reason = "the path delivers far less than is sent: capacity fell, "
      "R^MAX taken from what arrives";
  rc_urcp_overload_reset (u);
}

/* While the queue an overload cut found drains (see rc_urcp_overload_check),
 * TRUE: the caller holds the rate, and eq. 18 does not run. Eq. 18 reads
 * that queue as congestion and cuts again on top of the cut that already
 * drains it: RFC 8867 5.1 (rcsim), 2.5 -> 0.6 Mbit/s, the rate went to
 * 0.25 Mbit/s (0.42 of the capacity) and took 20 s to climb back. When the
 * delay is back near delta^MIN, or DRAIN_HOLD_MAX after the cut, the rate
 * restarts at OVERLOAD_DRAIN of what arrived, with R^AVE's window started
 * again there and the delay's window too: the samples of the overload's
 * queue are not the path's state now. */
gboolean
rc_urcp_overload_draining (Urcp * u, gdouble mean_delta, guint n_recv,
    GstClockTime now)
{
  UrcpInstance *ins[] = { &u->delay, &u->loss };
  guint k;

  if (!u->draining)
    return FALSE;
  /* delta^MIN's floor at the R^MAX the cut set: one packet's service
   * time at the lower capacity is in every delay now */
  if (now < u->drain_until && !(n_recv > 0 && mean_delta <=
          DRAIN_DONE_FACTOR * MAX (u->delay.sig_min,
              rc_urcp_delta_floor (u))))
    return TRUE;
  u->draining = FALSE;
  for (k = 0; k < G_N_ELEMENTS (ins); k++) {
    UrcpInstance *in = ins[k];
    restart_at (u, in, u->drain_restart);
  }
  rc_avg_window_reset (&u->delay.sig_win);
  u->rate = MIN (u->delay.rate, u->loss.rate);
  GST_INFO ("%s: queue drained (delay %.1f ms%s): restarting at %.0f bit/s",
      u->parent.info->name, mean_delta * 1000,
      now >= u->drain_until ? ", time up" : "", u->rate);
  return FALSE;
}
