/* Small deterministic bottleneck model for the core tests; see bottleneck.h. */
#include "bottleneck.h"
#include "rc-pacer.h"

#define TICK GST_MSECOND
#define FPS 30
#define MTU_PAYLOAD 1200
/* RFC 8867 sec. 4: a codec takes about 100 ms to follow a new target. */
#define ENCODER_TAU (100 * GST_MSECOND)
#define PACER_QUEUE_LIMIT (250 * GST_MSECOND)

typedef struct
{
  guint64 seq;
  guint size;
  GstClockTime enq, send, arrival;
} Pkt;

typedef struct
{
  GstClockTime arrival;
  GArray *results;
} Fb;

typedef struct
{
  RcController *ctrl;
  GstClockTime start, stop;
  RcPacer pacer;
  GQueue pacer_q, in_flight, feedback;
  guint64 pacer_bytes;
  guint64 next_seq, next_expected;
  GstClockTime next_frame, next_fb, next_tick, last_arrival;
  gdouble enc_rate;
  gdouble app_limit;
  GArray *pending;
  BnFlowResult res;
} Flow;

struct _Bn
{
  BnLinkConfig cfg;
  GRand *rand;
  GstClockTime now, link_free;
  Flow flows[BN_MAX_FLOWS];
  guint n_flows;
  GstClockTime from;
};

Bn *
bn_new (const BnLinkConfig * link)
{
  Bn *bn = g_new0 (Bn, 1);
  bn->cfg = *link;
  if (!bn->cfg.feedback_interval)
    bn->cfg.feedback_interval = 50 * GST_MSECOND;
  bn->rand = g_rand_new_with_seed (link->seed);
  return bn;
}

static void
free_pkt_queue (GQueue * q)
{
  g_queue_clear_full (q, g_free);
}

static void
free_fb (gpointer p)
{
  Fb *fb = p;
  g_array_unref (fb->results);
  g_free (fb);
}

void
bn_free (Bn * bn)
{
  guint i;
  for (i = 0; i < bn->n_flows; i++) {
    Flow *f = &bn->flows[i];
    free_pkt_queue (&f->pacer_q);
    free_pkt_queue (&f->in_flight);
    g_queue_clear_full (&f->feedback, free_fb);
    g_array_unref (f->pending);
  }
  g_rand_free (bn->rand);
  g_free (bn);
}

guint
bn_add_flow (Bn * bn, RcController * ctrl, GstClockTime start,
    GstClockTime stop)
{
  Flow *f = &bn->flows[bn->n_flows];

  g_assert (bn->n_flows < BN_MAX_FLOWS);
  f->ctrl = ctrl;
  f->start = start;
  f->stop = stop;
  rc_pacer_init (&f->pacer, PACER_QUEUE_LIMIT);
  g_queue_init (&f->pacer_q);
  g_queue_init (&f->in_flight);
  g_queue_init (&f->feedback);
  f->pending = g_array_new (FALSE, FALSE, sizeof (RcPacketResult));
  f->next_frame = f->next_fb = f->next_tick = start;
  f->enc_rate = rc_controller_get_decision (ctrl).media_bps;
  return bn->n_flows++;
}

void
bn_set_capacity (Bn * bn, gdouble bps)
{
  bn->cfg.capacity_bps = bps;
}

void
bn_set_app_limit (Bn * bn, guint flow, gdouble bps)
{
  bn->flows[flow].app_limit = bps;
}

GstClockTime
bn_now (Bn * bn)
{
  return bn->now;
}

const BnFlowResult *
bn_result (Bn * bn, guint flow)
{
  return &bn->flows[flow].res;
}

void
bn_reset_results (Bn * bn)
{
  guint i;
  for (i = 0; i < bn->n_flows; i++)
    memset (&bn->flows[i].res, 0, sizeof (BnFlowResult));
}

static gboolean
measuring (Bn * bn)
{
  return bn->now >= bn->from;
}

/* One packet into the shared FIFO at time `t`. */
static void
link_send (Bn * bn, Flow * f, Pkt * p)
{
  GstClockTime start = MAX (p->send, bn->link_free);
  GstClockTime service = (GstClockTime) (p->size * 8.0 / bn->cfg.capacity_bps
      * GST_SECOND);
  GstClockTime noise = 0;

  if (measuring (bn))
    f->res.tx_packets++;
  if (start - p->send + service > bn->cfg.queue_limit) {
    if (measuring (bn))
      f->res.dropped++;
    g_free (p);
    return;
  }
  bn->link_free = start + service;
  if (bn->cfg.noise_mean)
    noise = (GstClockTime) g_rand_double_range (bn->rand, 0,
        2.0 * bn->cfg.noise_mean);
  /* Noise delays but never reorders. */
  p->arrival = MAX (bn->link_free + bn->cfg.prop_delay + noise,
      f->last_arrival);
  f->last_arrival = p->arrival;
  g_queue_push_tail (&f->in_flight, p);
}

static void
receive (Bn * bn, Flow * f, Pkt * p)
{
  RcPacketResult r;

  for (; f->next_expected < p->seq; f->next_expected++) {
    r.seq = f->next_expected;
    r.send_ts = GST_CLOCK_TIME_NONE;
    r.recv_ts = GST_CLOCK_TIME_NONE;
    r.size = 0;
    r.lost = TRUE;
    g_array_append_val (f->pending, r);
  }
  f->next_expected = p->seq + 1;
  /* The receiver's clock has an arbitrary offset: the controller must not
   * care. */
  r.seq = p->seq;
  r.send_ts = p->send;
  r.recv_ts = p->arrival + 7 * GST_SECOND +
      (GstClockTime) (p->arrival * bn->cfg.recv_skew_ppm * 1e-6);
  r.size = p->size;
  r.lost = FALSE;
  g_array_append_val (f->pending, r);
  if (measuring (bn)) {
    f->res.rx_packets++;
    f->res.rx_bytes += p->size;
    f->res.qdelay_sum += (gdouble) (p->arrival - p->send -
        bn->cfg.prop_delay) / GST_SECOND;
  }
  g_free (p);
}

static void
step_flow (Bn * bn, Flow * f)
{
  GstClockTime t = bn->now;
  gboolean active = t >= f->start && t < f->stop;
  RcDecision d;

  while (!g_queue_is_empty (&f->feedback) &&
      ((Fb *) g_queue_peek_head (&f->feedback))->arrival <= t) {
    Fb *fb = g_queue_pop_head (&f->feedback);
    RcFeedback m = { 0 };
    m.packets = (RcPacketResult *) fb->results->data;
    m.n_packets = fb->results->len;
    m.rtt = m.jitter = GST_CLOCK_TIME_NONE;
    rc_controller_on_feedback (f->ctrl, &m, t);
    free_fb (fb);
  }
  while (!g_queue_is_empty (&f->in_flight) &&
      ((Pkt *) g_queue_peek_head (&f->in_flight))->arrival <= t)
    receive (bn, f, g_queue_pop_head (&f->in_flight));

  if (t >= f->next_fb) {
    if (f->pending->len) {
      Fb *fb = g_new0 (Fb, 1);
      fb->arrival = t + bn->cfg.prop_delay;
      fb->results = f->pending;
      f->pending = g_array_new (FALSE, FALSE, sizeof (RcPacketResult));
      g_queue_push_tail (&f->feedback, fb);
    }
    f->next_fb += bn->cfg.feedback_interval;
  }
  if (t >= f->next_tick) {
    rc_controller_on_tick (f->ctrl, t);
    f->next_tick += 100 * GST_MSECOND;
  }

  d = rc_controller_get_decision (f->ctrl);
  f->enc_rate += ((f->app_limit > 0 ? MIN (d.media_bps, f->app_limit) :
          d.media_bps) - f->enc_rate) * ((gdouble) TICK / ENCODER_TAU);
  if (measuring (bn) && active) {
    f->res.rate_sum += d.media_bps;
    f->res.rate_samples++;
  }

  if (active && t >= f->next_frame) {
    /* Frame sizes vary +-20 % around the encoder's current rate. */
    gdouble bytes = f->enc_rate / 8 / FPS *
        g_rand_double_range (bn->rand, 0.8, 1.2);
    guint left = MAX ((guint) bytes, 100);
    while (left > 0) {
      Pkt *p = g_new0 (Pkt, 1);
      p->size = MIN (left, MTU_PAYLOAD);
      left -= p->size;
      p->enq = t;
      p->seq = f->next_seq++;
      f->pacer_bytes += p->size;
      g_queue_push_tail (&f->pacer_q, p);
    }
    f->next_frame += GST_SECOND / FPS;
  }

  while (!g_queue_is_empty (&f->pacer_q)) {
    Pkt *p = g_queue_peek_head (&f->pacer_q);
    GstClockTime at = rc_pacer_next_send (&f->pacer, p->enq);
    if (at > t)
      break;
    g_queue_pop_head (&f->pacer_q);
    rc_pacer_sent (&f->pacer, at, p->size, d.pacing_bps, f->pacer_bytes,
        p->enq);
    f->pacer_bytes -= p->size;
    p->send = at;
    rc_controller_on_packet_sent (f->ctrl, p->seq, p->size, FALSE, at);
    link_send (bn, f, p);
  }
}

void
bn_run (Bn * bn, GstClockTime from, GstClockTime until)
{
  guint i;

  bn->from = from;
  for (; bn->now < until; bn->now += TICK)
    for (i = 0; i < bn->n_flows; i++)
      step_flow (bn, &bn->flows[i]);
}
