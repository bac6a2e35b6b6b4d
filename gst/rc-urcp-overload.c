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
 * receiver got less than OVERLOAD_RATIO of what was sent. At that ratio
 * the bottleneck's queue grows by 0.4 s of its capacity per second, so it
 * cannot last a second without the queue passing any drop-tail limit we
 * meet (300 ms) or the delay rising by hundreds of ms; noise that holds
 * packets and then releases them delivers faster, not slower, once they are
 * reported, and a shared queue at eq. 19's operating point is stable (what
 * each flow sends arrives). What the receiver got over that span, with the
 * queue never empty, is what the path gives this flow now: R^MAX becomes
 * that, and the rate drops to OVERLOAD_DRAIN of it so the queue drains, as
 * at the end of the start-up ramp (rc-urcp-startup.c). R^AVE restarts
 * from the new rate so eq. 14 does not restore the old R^MAX; delta^MIN and
 * the inherent loss are kept. Re-probing (rc-urcp-probe.c) raises R^MAX
 * again when the path has room.
 *
 * Only a large error is corrected (R^MAX more than OVERLOAD_RMAX_FACTOR
 * times what arrives): near the operating point the delay loop does the
 * work. The test needs the queue's evidence too (a loss, or the delay up
 * by OVERLOAD_RISE over the span). An earlier rule that cut R^MAX on a
 * standing queue alone could not tell a fall from sharing and cut R^MAX in
 * RFC 8867 5.3 and 5.5 (docs/urcpsender.md); this one looks at delivery,
 * which sharing at the operating point does not reduce below what is sent.
 */
#include "rc-urcp-private.h"

#define GST_CAT_DEFAULT rc_urcp_debug

#define OVERLOAD_SPAN (1 * GST_SECOND)
#define OVERLOAD_RATIO 0.6
#define OVERLOAD_RMAX_FACTOR URCP_APP_LIMIT_FACTOR
#define OVERLOAD_MIN_PKTS 10
#define OVERLOAD_RISE 0.1
#define OVERLOAD_DRAIN 0.85
/* Not within this after a ramp (start-up or probe) ends: the ramp's exit
 * has just set R^MAX from what arrived and dropped the rate to 85 % of it,
 * and its queue is still draining. A random loss burst inside that drain
 * read as overload (noisy-wimax, a Gilbert-Elliott burst took 9 of 25
 * packets 0.8 s after a probe ramp: 135 of 480 kbit/s "arrived"). */
#define OVERLOAD_AFTER_RAMP (2 * GST_SECOND)
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

/* After a steady-state feedback message: the test, and the correction. */
void
rc_urcp_overload_check (Urcp * u, GstClockTime now)
{
  const UrcpPkt *first = NULL, *first_rx = NULL, *last_rx = NULL, *last;
  guint64 i, sent = 0, recv = 0;
  guint n_rx = 0, n_lost = 0;
  GstClockTime rx_min = GST_CLOCK_TIME_NONE, rx_max = 0, gap = 0;
  gdouble send_span, recv_span, sent_bps, recv_bps, rise;

  if (u->ov_tail - u->ov_head < OVERLOAD_MIN_PKTS ||
      (GST_CLOCK_TIME_IS_VALID (u->phase_start) &&
          now < u->phase_start + OVERLOAD_AFTER_RAMP))
    return;
  for (i = u->ov_head; i < u->ov_tail; i++) {
    const UrcpPkt *x = &u->ov[i % URCP_OV_RING];
    if (!first)
      first = x;
    else
      sent += x->size;
    if (x->lost) {
      n_lost++;
      continue;
    }
    if (!first_rx)
      first_rx = x;
    else
      recv += x->size;
    if (last_rx && x->recv_ts > last_rx->recv_ts)
      gap = MAX (gap, x->recv_ts - last_rx->recv_ts);
    last_rx = x;
    rx_min = MIN (rx_min, x->recv_ts);
    rx_max = MAX (rx_max, x->recv_ts);
    n_rx++;
  }
  last = &u->ov[(u->ov_tail - 1) % URCP_OV_RING];
  send_span = (gdouble) (last->send_ts - first->send_ts) / GST_SECOND;
  /* a full span of sending, and enough arrivals to time */
  if (send_span < 0.8 * OVERLOAD_SPAN / GST_SECOND ||
      n_rx < OVERLOAD_MIN_PKTS || rx_max <= rx_min || gap > OVERLOAD_GAP)
    return;
  /* min to max: noise reorders arrivals */
  recv_span = (gdouble) (rx_max - rx_min) / GST_SECOND;
  sent_bps = sent * 8.0 / send_span;
  recv_bps = recv * 8.0 / recv_span;
  rise = last_rx->delta - first_rx->delta;
  if (recv_bps >= OVERLOAD_RATIO * sent_bps ||
      u->delay.rmax <= OVERLOAD_RMAX_FACTOR * recv_bps ||
      (n_lost == 0 && rise < OVERLOAD_RISE))
    return;

  GST_INFO ("%s: overload: %.0f bit/s arrived of %.0f sent over %.2f s "
      "(%u lost, delay +%.0f ms); R^MAX %.0f -> %.0f", u->parent.info->name,
      recv_bps, sent_bps, send_span, n_lost, rise * 1000, u->delay.rmax,
      recv_bps);
  {
    UrcpInstance *ins[] = { &u->delay, &u->loss };
    gdouble floor = (gdouble) u->parent.limits.min_bps;
    guint k;

    for (k = 0; k < G_N_ELEMENTS (ins); k++) {
      UrcpInstance *in = ins[k];
      in->rmax = MAX (recv_bps, floor);
      in->rate = rc_urcp_clamp_rate (u, MIN (in->rate,
              OVERLOAD_DRAIN * recv_bps));
      rc_avg_window_reset (&in->rate_win);
      in->rave = in->rate;
    }
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
