/* TCP cross traffic for rcsim: a segment-level sender and receiver whose
 * data goes through the same bottleneck queue as the media and whose ACKs
 * come back over the return path, so the window is ACK-clocked by the
 * bottleneck exactly as a real one is.
 *
 * Window growth and decrease, chosen by `cc`:
 *  - newreno: slow start and congestion avoidance (RFC 5681 sec. 3.1) with
 *    appropriate byte counting L = 2 (RFC 3465), halving on loss;
 *  - cubic: RFC 8312 window growth with its TCP-friendly region and fast
 *    convergence, beta 0.7 (Linux's default congestion control).
 * Loss recovery is SACK-based for both, as in Linux: the receiver's ACK
 * names the segment that triggered it (the first SACK block, RFC 2018
 * sec. 4), the sender keeps a scoreboard and recovers with RFC 6675
 * (DupThresh 3, pipe, retransmit the holes first). Without SACK a
 * slow-start overshoot that loses dozens of segments takes NewReno one RTT
 * per hole (RFC 6582) and would make the cross traffic unrepresentative.
 * Retransmission timer per RFC 6298 with Linux's 200 ms minimum; initial
 * window 10 segments (RFC 6928); RTT sampled from the timestamp echo
 * (RFC 7323 sec. 4). Not modelled: HyStart, delayed ACKs (the RFC 8867
 * authors' ns3-rmcat setup disables them too), the receive window, the
 * handshake.
 *
 * Long-lived flows send from start to stop. Short (web-like) flows are a
 * sequence of transfers, each a fresh connection (new window, new RTT
 * estimate) of a size drawn uniformly from [size-min, size-max], separated
 * by exponential idle times (RFC 8867 sec. 5.7 with RFC 8868's short-TCP
 * model, as the RFC authors' ns3-rmcat implements it). */
#include <math.h>
#include <string.h>
#include "sim-private.h"

/* RFC 6928: initial window of 10 segments. */
#define IW 10.0
/* RFC 6298 sec. 2.1: initial RTO 1 s; sec. 2.5 allows a maximum >= 60 s.
 * Minimum 200 ms as Linux (TCP_RTO_MIN), not RFC 6298's conservative 1 s. */
#define RTO_INIT (1 * GST_SECOND)
#define RTO_MIN (200 * GST_MSECOND)
#define RTO_MAX (60 * GST_SECOND)
/* RFC 6298 sec. 2.3: clock granularity G. */
#define RTO_G (1 * GST_MSECOND)
/* RFC 8312 sec. 5: C = 0.4, beta_cubic = 0.7. */
#define CUBIC_C 0.4
#define CUBIC_BETA 0.7
/* RFC 3465 sec. 2.2: slow start grows by at most L = 2 segments per ACK. */
#define ABC_L 2
/* RFC 6675 sec. 2: DupThresh. */
#define DUP_THRESH 3
/* No receive-window limit, but a sane bound on the window. */
#define CWND_MAX 100000.0

#define SB_SACKED 1
#define SB_RETX 2

struct _TcpState
{
  guint32 gen;                  /* transfer number; 0 = none yet */
  gboolean sending;             /* a transfer is in progress */
  guint64 limit;                /* segments in the transfer */
  guint last_size;              /* payload of the last segment */

  guint64 snd_una, snd_nxt, snd_max;
  gdouble cwnd, ssthresh;
  guint dupacks;
  gboolean in_recovery;
  guint64 recover;              /* RFC 6675 RecoveryPoint */

  /* Scoreboard: flags of segments [sb_base, sb_base + sb_len). */
  guint8 *sb;
  guint64 sb_base;
  gsize sb_len, sb_cap;

  gboolean have_rtt;
  gdouble srtt, rttvar, min_rtt;        /* s */
  GstClockTime rto;
  GstClockTime rto_deadline;    /* NONE: not armed */
  GstClockTime rto_event_at;    /* pending timer event, NONE if none */

  /* CUBIC */
  GstClockTime epoch_start;
  gdouble w_last_max, k, origin, w_est;

  /* receiver */
  guint32 rcv_gen;
  guint64 rcv_nxt;
  GHashTable *ooo;              /* out-of-order segments held (a set) */
};

static void tcp_try_send (Sim * sim, SimFlow * f);

/* ---------------------------------------------------------- scoreboard */

static guint8
sb_get (TcpState * t, guint64 seq)
{
  if (seq < t->sb_base || seq >= t->sb_base + t->sb_len)
    return 0;
  return t->sb[seq - t->sb_base];
}

static void
sb_set (TcpState * t, guint64 seq, guint8 flag)
{
  if (seq < t->sb_base)
    return;
  if (seq >= t->sb_base + t->sb_len) {
    gsize need = seq - t->sb_base + 1;
    if (need > t->sb_cap) {
      t->sb_cap = MAX (need, MAX (64, 2 * t->sb_cap));
      t->sb = g_realloc (t->sb, t->sb_cap);
    }
    memset (t->sb + t->sb_len, 0, need - t->sb_len);
    t->sb_len = need;
  }
  t->sb[seq - t->sb_base] |= flag;
}

/* Forgets everything below snd_una. */
static void
sb_advance (TcpState * t)
{
  guint64 drop = MIN (t->snd_una - t->sb_base, t->sb_len);

  if (drop == 0)
    return;
  memmove (t->sb, t->sb + drop, t->sb_len - drop);
  t->sb_len -= drop;
  t->sb_base += drop;
  if (t->sb_base < t->snd_una) {
    t->sb_base = t->snd_una;
    t->sb_len = 0;
  }
}

static void
sb_clear_flag (TcpState * t, guint8 flag)
{
  gsize i;
  for (i = 0; i < t->sb_len; i++)
    t->sb[i] &= ~flag;
}

/* RFC 6675 IsLost(): a segment is lost when DupThresh SACKed segments lie
 * above it. Returns the highest such sequence + 1 (0: none lost). */
static guint64
lost_bound (TcpState * t)
{
  guint64 s;
  guint n = 0;

  for (s = t->snd_max; s > t->snd_una; s--) {
    if (n >= DUP_THRESH)
      return s;
    if (sb_get (t, s - 1) & SB_SACKED)
      n++;
  }
  return n >= DUP_THRESH ? t->snd_una : 0;
}

/* RFC 6675 SetPipe(): segments believed in the network. */
static guint64
pipe_estimate (TcpState * t, guint64 lost_below)
{
  guint64 s, pipe = 0;

  for (s = t->snd_una; s < t->snd_max; s++) {
    guint8 fl = sb_get (t, s);
    if (fl & SB_SACKED)
      continue;
    if (s >= lost_below)
      pipe++;
    if (fl & SB_RETX)
      pipe++;
  }
  return pipe;
}

/* --------------------------------------------------------------- timer */

static gdouble
rand_exp (GRand * r, gdouble mean)
{
  return -mean * log (sim_rand_open (r));
}

static void
rto_event (Sim * sim, gpointer obj, guint64 arg)
{
  SimFlow *f = obj;
  TcpState *t = f->tcp;
  GstClockTime now = sim_now (sim);
  guint64 flight;

  if (arg != t->rto_event_at)
    return;                     /* superseded */
  t->rto_event_at = GST_CLOCK_TIME_NONE;
  if (!GST_CLOCK_TIME_IS_VALID (t->rto_deadline))
    return;
  if (t->rto_deadline > now) {
    /* The timer was restarted since this event was queued. */
    t->rto_event_at = t->rto_deadline;
    sim_schedule (sim, t->rto_deadline, rto_event, f, t->rto_deadline);
    return;
  }
  t->rto_deadline = GST_CLOCK_TIME_NONE;
  if (!t->sending || now >= f->stop || t->snd_una >= t->snd_max)
    return;

  /* RFC 5681 sec. 3.1 eq. 4 / RFC 8312 sec. 4.7: multiplicative decrease,
   * then one segment (loss window), slow start again. */
  flight = t->snd_max - t->snd_una;
  if (f->cfg->cc == SIM_TCP_CUBIC) {
    t->w_last_max = t->cwnd;
    t->ssthresh = MAX (t->cwnd * CUBIC_BETA, 2.0);
  } else {
    t->ssthresh = MAX (flight / 2.0, 2.0);
  }
  t->epoch_start = GST_CLOCK_TIME_NONE;
  t->cwnd = 1.0;
  t->in_recovery = FALSE;
  t->dupacks = 0;
  t->recover = t->snd_max;
  /* Resend from snd_una, skipping what the receiver has SACKed. */
  sb_clear_flag (t, SB_RETX);
  t->snd_nxt = t->snd_una;
  /* RFC 6298 sec. 5.5: back off the timer. */
  t->rto = MIN (t->rto * 2, RTO_MAX);
  tcp_try_send (sim, f);
}

static void
arm_rto (Sim * sim, SimFlow * f)
{
  TcpState *t = f->tcp;

  t->rto_deadline = sim_now (sim) + t->rto;
  if (!GST_CLOCK_TIME_IS_VALID (t->rto_event_at) ||
      t->rto_event_at > t->rto_deadline) {
    t->rto_event_at = t->rto_deadline;
    sim_schedule (sim, t->rto_deadline, rto_event, f, t->rto_deadline);
  }
}

/* ------------------------------------------------------------- sending */

static void
send_segment (Sim * sim, SimFlow * f, guint64 seq)
{
  TcpState *t = f->tcp;
  guint payload = seq + 1 == t->limit ? t->last_size : SIM_TCP_MSS;
  SimPkt *p = sim_pkt_new (f, SIM_PKT_TCP_DATA, payload + SIM_TCP_HDR);

  p->seq = seq;
  p->gen = t->gen;
  sim_send (sim, p);
  /* RFC 6298 sec. 5.1: start the timer if it is not running. */
  if (!GST_CLOCK_TIME_IS_VALID (t->rto_deadline))
    arm_rto (sim, f);
}

static void
send_new (Sim * sim, SimFlow * f)
{
  TcpState *t = f->tcp;

  send_segment (sim, f, t->snd_nxt);
  t->snd_nxt++;
  t->snd_max = MAX (t->snd_max, t->snd_nxt);
}

static void
tcp_try_send (Sim * sim, SimFlow * f)
{
  TcpState *t = f->tcp;

  if (!t->sending || sim_now (sim) >= f->stop)
    return;

  if (t->in_recovery) {
    /* RFC 6675 sec. 5 (C): while pipe < cwnd, retransmit the lowest lost
     * hole, else send new data. */
    guint64 lost = lost_bound (t);
    guint64 pipe = pipe_estimate (t, lost);
    guint64 s = t->snd_una;

    while ((gdouble) pipe + 1.0 <= t->cwnd) {
      for (; s < lost; s++) {
        guint8 fl = sb_get (t, s);
        if (!(fl & (SB_SACKED | SB_RETX)))
          break;
      }
      if (s < lost) {
        send_segment (sim, f, s);
        sb_set (t, s, SB_RETX);
        /* Restart the timer when the head is retransmitted, as Linux does
         * (tcp_xmit_retransmit_queue): armed at the last cumulative ACK it
         * would expire before the fast retransmit can be acked whenever
         * the RTT has grown to the RTO (a full drop-tail queue). */
        if (s == t->snd_una)
          arm_rto (sim, f);
        pipe++;
      } else if (t->snd_nxt < t->limit) {
        send_new (sim, f);
        pipe++;
      } else {
        break;
      }
    }
    return;
  }

  while (t->snd_nxt < t->limit &&
      (gdouble) (t->snd_nxt - t->snd_una) + 1.0 <= t->cwnd) {
    if (t->snd_nxt < t->snd_max && (sb_get (t, t->snd_nxt) & SB_SACKED)) {
      t->snd_nxt++;             /* after an RTO: the receiver has it */
      continue;
    }
    send_new (sim, f);
  }
}

/* ----------------------------------------------------------- transfers */

static void start_transfer (Sim * sim, gpointer obj, guint64 arg);

static void
schedule_next_transfer (Sim * sim, SimFlow * f, GstClockTime from)
{
  GstClockTime at = from + (GstClockTime) (rand_exp (f->rand,
          (gdouble) f->cfg->think_mean / GST_SECOND) * GST_SECOND);

  if (at < f->stop)
    sim_schedule (sim, at, start_transfer, f, 0);
}

static void
start_transfer (Sim * sim, gpointer obj, guint64 arg)
{
  SimFlow *f = obj;
  TcpState *t = f->tcp;
  const SimFlowConfig *c = f->cfg;

  if (sim_now (sim) >= f->stop)
    return;
  t->gen++;
  t->sending = TRUE;
  if (c->size_max == 0) {
    t->limit = G_MAXUINT64;
    t->last_size = SIM_TCP_MSS;
  } else {
    guint64 size = c->size_min + (c->size_max > c->size_min ?
        (guint64) (g_rand_double (f->rand) * (c->size_max - c->size_min + 1))
        : 0);
    size = MAX (size, 1);
    t->limit = (size + SIM_TCP_MSS - 1) / SIM_TCP_MSS;
    t->last_size = size - (t->limit - 1) * SIM_TCP_MSS;
  }
  t->snd_una = t->snd_nxt = t->snd_max = 0;
  t->sb_base = 0;
  t->sb_len = 0;
  t->cwnd = IW;
  t->ssthresh = CWND_MAX;
  t->dupacks = 0;
  t->in_recovery = FALSE;
  t->recover = 0;
  t->have_rtt = FALSE;
  t->min_rtt = 0;
  t->rto = RTO_INIT;
  t->rto_deadline = GST_CLOCK_TIME_NONE;
  t->epoch_start = GST_CLOCK_TIME_NONE;
  t->w_last_max = 0;
  tcp_try_send (sim, f);
}

void
sim_tcp_init (Sim * sim, SimFlow * f)
{
  TcpState *t = g_new0 (TcpState, 1);

  f->tcp = t;
  t->rto_deadline = t->rto_event_at = GST_CLOCK_TIME_NONE;
  t->ooo = g_hash_table_new (g_direct_hash, g_direct_equal);
  if (f->start >= f->stop)
    return;
  if (f->cfg->size_max == 0 || f->cfg->initially_on)
    sim_schedule (sim, f->start, start_transfer, f, 0);
  else
    schedule_next_transfer (sim, f, f->start);
}

void
sim_tcp_free (SimFlow * f)
{
  if (!f->tcp)
    return;
  g_hash_table_unref (f->tcp->ooo);
  g_free (f->tcp->sb);
  g_free (f->tcp);
  f->tcp = NULL;
}

/* -------------------------------------------------------------- window */

static void
rtt_sample (TcpState * t, gdouble r)
{
  gdouble rto_s;

  /* RFC 6298 sec. 2.2-2.3. */
  if (!t->have_rtt) {
    t->srtt = r;
    t->rttvar = r / 2;
    t->have_rtt = TRUE;
    t->min_rtt = r;
  } else {
    t->rttvar = 0.75 * t->rttvar + 0.25 * fabs (t->srtt - r);
    t->srtt = 0.875 * t->srtt + 0.125 * r;
    t->min_rtt = MIN (t->min_rtt, r);
  }
  rto_s = t->srtt + MAX ((gdouble) RTO_G / GST_SECOND, 4 * t->rttvar);
  t->rto = CLAMP ((GstClockTime) (rto_s * GST_SECOND), RTO_MIN, RTO_MAX);
}

/* Congestion avoidance growth for `acked` newly acknowledged segments. */
static void
ca_increase (TcpState * t, gdouble acked, GstClockTime now, gboolean cubic)
{
  gdouble rtt, tt, target;

  if (!cubic) {
    /* RFC 5681 sec. 3.1 eq. 3: about one segment per RTT. */
    t->cwnd += acked / t->cwnd;
    return;
  }
  /* RFC 8312 sec. 4.1-4.3. */
  if (!GST_CLOCK_TIME_IS_VALID (t->epoch_start)) {
    t->epoch_start = now;
    if (t->cwnd < t->w_last_max) {
      t->k = cbrt ((t->w_last_max - t->cwnd) / CUBIC_C);
      t->origin = t->w_last_max;
    } else {
      t->k = 0;
      t->origin = t->cwnd;
    }
    t->w_est = t->cwnd;
  }
  rtt = t->have_rtt ? t->min_rtt : 0.1;
  tt = (gdouble) (now - t->epoch_start) / GST_SECOND + rtt;
  target = t->origin + CUBIC_C * pow (tt - t->k, 3);
  if (target > t->cwnd)
    t->cwnd += (target - t->cwnd) / t->cwnd * acked;
  else
    t->cwnd += 0.01 / t->cwnd * acked;
  /* TCP-friendly region (sec. 4.2): never slower than Reno with the same
   * beta, alpha = 3 (1 - beta) / (1 + beta). */
  t->w_est += 3.0 * (1 - CUBIC_BETA) / (1 + CUBIC_BETA) * acked / t->cwnd;
  if (t->w_est > t->cwnd)
    t->cwnd = t->w_est;
}

static void
enter_recovery (SimFlow * f)
{
  TcpState *t = f->tcp;
  guint64 flight = t->snd_max - t->snd_una;

  if (f->cfg->cc == SIM_TCP_CUBIC) {
    /* RFC 8312 sec. 4.6 fast convergence, sec. 4.5 decrease. */
    if (t->cwnd < t->w_last_max)
      t->w_last_max = t->cwnd * (1 + CUBIC_BETA) / 2;
    else
      t->w_last_max = t->cwnd;
    t->ssthresh = MAX (t->cwnd * CUBIC_BETA, 2.0);
  } else {
    /* RFC 5681 sec. 3.2 step 2, eq. 4. */
    t->ssthresh = MAX (flight / 2.0, 2.0);
  }
  /* RFC 6675 sec. 5 (4.1-4.2). */
  t->cwnd = t->ssthresh;
  t->epoch_start = GST_CLOCK_TIME_NONE;
  t->recover = t->snd_max;
  t->in_recovery = TRUE;
  sb_clear_flag (t, SB_RETX);
}

void
sim_tcp_on_ack (Sim * sim, SimFlow * f, SimPkt * p)
{
  TcpState *t = f->tcp;
  GstClockTime now = sim_now (sim);
  guint64 ack = p->seq;
  gboolean new_sack = FALSE;

  if (p->gen != t->gen || !t->sending)
    return;                     /* an earlier transfer's late ACK */

  if (p->sack != G_MAXUINT64 && p->sack >= MAX (ack, t->snd_una) &&
      p->sack < t->snd_max && !(sb_get (t, p->sack) & SB_SACKED)) {
    sb_set (t, p->sack, SB_SACKED);
    new_sack = TRUE;
  }
  if (ack > t->snd_una || new_sack)
    rtt_sample (t, (gdouble) (now - p->ts_echo) / GST_SECOND);

  if (ack > t->snd_una) {
    guint64 newly = ack - t->snd_una;

    t->snd_una = ack;
    sb_advance (t);
    if (t->snd_nxt < t->snd_una)
      t->snd_nxt = t->snd_una;
    t->dupacks = 0;
    if (t->in_recovery) {
      /* RFC 6675 sec. 5 (A): recovery ends when RecoveryPoint is acked. */
      if (ack >= t->recover)
        t->in_recovery = FALSE;
    } else if (t->cwnd < t->ssthresh) {
      t->cwnd += MIN (newly, ABC_L);
    } else {
      ca_increase (t, newly, now, f->cfg->cc == SIM_TCP_CUBIC);
    }
    t->cwnd = MIN (t->cwnd, CWND_MAX);
    /* RFC 6298 sec. 5.2-5.3. */
    if (t->snd_una >= t->snd_max)
      t->rto_deadline = GST_CLOCK_TIME_NONE;
    else
      arm_rto (sim, f);
    if (t->snd_una >= t->limit) {
      t->sending = FALSE;
      t->rto_deadline = GST_CLOCK_TIME_NONE;
      schedule_next_transfer (sim, f, now);
      return;
    }
  } else if (ack == t->snd_una && t->snd_max > t->snd_una && new_sack) {
    t->dupacks++;
  }

  /* RFC 6675 sec. 5: enter recovery on DupThresh duplicates or when the
   * scoreboard already shows snd_una lost, once per window (RFC 6582's
   * `recover` guard). */
  if (!t->in_recovery && t->snd_max > t->snd_una &&
      (t->snd_una > t->recover || t->recover == 0) &&
      (t->dupacks >= DUP_THRESH || lost_bound (t) > t->snd_una))
    enter_recovery (f);
  tcp_try_send (sim, f);
}

/* ------------------------------------------------------------ receiver */

gboolean
sim_tcp_on_data (Sim * sim, SimFlow * f, SimPkt * p)
{
  TcpState *t = f->tcp;
  SimPkt *ack;
  guint64 sack = G_MAXUINT64;
  gboolean first = FALSE;

  if (p->gen < t->rcv_gen)
    return FALSE;               /* an earlier transfer's straggler */
  if (p->gen > t->rcv_gen) {
    t->rcv_gen = p->gen;
    t->rcv_nxt = 0;
    g_hash_table_remove_all (t->ooo);
  }
  /* Goodput counts every segment once, the first time it arrives, at the
   * time it left the bottleneck (not when a hole in front of it fills), so
   * the rate lines up with the capacity; duplicates do not count. */
  if (p->seq == t->rcv_nxt) {
    first = TRUE;
    t->rcv_nxt++;
    while (g_hash_table_remove (t->ooo,
            GUINT_TO_POINTER ((guint) t->rcv_nxt)))
      t->rcv_nxt++;
  } else if (p->seq > t->rcv_nxt) {
    first = g_hash_table_add (t->ooo, GUINT_TO_POINTER ((guint) p->seq));
    sack = p->seq;
  }
  ack = sim_pkt_new (f, SIM_PKT_TCP_ACK, SIM_TCP_HDR);
  ack->seq = t->rcv_nxt;
  ack->sack = sack;
  ack->ts_echo = p->sent;
  ack->gen = p->gen;
  sim_send (sim, ack);
  return first;
}

gboolean
sim_tcp_active (SimFlow * f, GstClockTime t)
{
  if (t < f->start || t >= f->stop)
    return FALSE;
  return f->cfg->size_max == 0 || f->tcp->sending;
}

void
sim_tcp_sample (SimFlow * f, SimMetricsSample * s)
{
  TcpState *t = f->tcp;

  s->cwnd = t->sending ? t->cwnd : 0;
  s->srtt_ms = t->have_rtt ? t->srtt * 1000 : 0;
}
