/* rcsim engine: an event-driven virtual-time simulation of a scenario.
 *
 * Topology: every flow's data enters one shared bottleneck (an RcLink, the
 * forward link, or the reverse link for direction=reverse flows); its
 * feedback or ACKs come back over the other one. Each flow has its own
 * propagation delay in each direction (rc_link_add_flow). Without a
 * [reverse] section the return path is uncongested.
 *
 * Time advances from event to event: the earliest of the timer heap and
 * the two links' next deliveries. Ties are broken by insertion order, and
 * link deliveries at the same instant go before timers, so a run is a
 * pure function of the scenario and the seed.
 *
 * Media flow: a synthetic encoder (frames at `fps`, sizes following the
 * encoder rate with lognormal noise and periodic key frames, the rate
 * following its target with a first-order lag, RFC 8867 sec. 4) -> RTP
 * packetizer -> the sender session (rc-sender.h: pacing queue, controller,
 * feedback intake, encoder-update policy, no-feedback watchdog), the same
 * code urcpsender runs -> the link. The encoder's target is what the
 * session hands out (RC_SENDER_SET_ENCODER), as vp8enc gets it from the
 * element. The receiver records (seq, receive time on its own clock, lost)
 * like a TWCC receiver; every feedback interval it sends one feedback
 * packet back over the return link; at the sender the sent-packet log
 * adds send times and sizes (as rtpsession does for RTPTWCCPackets), with
 * the session's send index as the transport-wide sequence number
 * (rtpsession numbers packets in sending order too), and the session gets
 * them at the feedback's arrival. Sender and receiver also exchange RTCP
 * reports like a stock rtpbin pair (RFC 3550 sec. 6): an SR each way, an RR
 * back, every `rtcp-interval` randomized over [0.5, 1.5] of it (sec. 6.3.1);
 * the RR is a real compound packet that rc-rtcp parses at the sender, with
 * fraction lost, cumulative loss, extended highest sequence number, jitter
 * (appendix A.8, on the frames' capture times) and LSR/DLSR. The session
 * uses it only while per-packet feedback is stale, as the element does, or
 * always with `feedback=rtcp`. The session is polled after everything it
 * is told and at the times it asks for (its controller tick).
 *
 * FEC hook: media_protect() is where repair packets will be generated
 * (SIM_PKT_FEC, counted in fec_bytes, pushed as RC_SENDER_ITEM_FEC) and
 * media_receive() where they will repair losses (loss_post). Until then
 * there is no FEC and loss_post == loss_pre. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include "sim-private.h"
#include "rc-rtcp.h"

/* How long after the last flow stops in-flight packets are still
 * delivered and counted (longer than any queue plus delay we ship). */
#define DRAIN (5 * GST_SECOND)
/* The receiver keeps sending feedback this long after the source stops, so
 * the last packets are reported. */
#define FEEDBACK_TAIL (1 * GST_SECOND)
/* RTP header (12) + transport-wide-cc one-byte header extension (4-byte
 * extension header + 3-byte element, padded to 4). */
#define RTP_OVERHEAD 20
/* RTCP: an SR with one report block and an SDES CNAME of ~20 bytes (RFC
 * 3550 sec. 6.4.1, 6.5) is about 72 bytes; an RR with one block about 52. */
#define RTCP_SR_BYTES 72
#define RTCP_RR_BYTES 52
/* RTP clock rate of video (RFC 3551 sec. 5). */
#define RTP_CLOCK_RATE 90000
/* Media SSRCs in rcsim: this plus the flow's index. */
#define SSRC_BASE 0x5000
/* Encoder rate-control buffer: urcpsender configures vp8enc with a 300 ms
 * buffer (README), so a key frame's excess is paid back over ~300 ms. */
#define VBV_TIME 0.3
/* Smallest frame: a skipped/static frame still costs some bytes. */
#define MIN_FRAME_BYTES 50
/* Convergence (docs/metrics.md): 80 % of the fair share, held 5 s, on a
 * 1 s trailing mean of the goodput. */
#define CONV_FRACTION 0.8
#define CONV_HOLD_BINS 25
#define CONV_SMOOTH_BINS 5
/* Capacity integration step for utilization and fair shares. */
#define CAP_STEP GST_MSECOND

typedef struct
{
  GstClockTime t;
  guint64 seq;
  SimEventFunc fn;
  gpointer obj;
  guint64 arg;
} SimEvent;

typedef struct
{
  GstClockTime ts;
  guint size;
} SentRecord;

struct _MediaState
{
  RcSender *sender;             /* items: SimPkt */
  GstClockTime wake_at;         /* pending media_wake, NONE if none */
  GArray *sent_log;             /* SentRecord by send index */
  GArray *actions;              /* scratch: RcSenderAction */
  gdouble enc_target;           /* the encoder's target, from the session */
  gdouble enc_bps;              /* the encoder's current rate */
  gdouble vbuf;                 /* bytes produced beyond the rate */
  GstClockTime next_key;
  gboolean was_paused;
  guint64 frames;
  GPtrArray *stat_names;        /* session stats fields, first sample */
  GRand *rtcp_rand;             /* report intervals */
  GArray *reports;              /* scratch: RcReportBlock */
  /* receiver */
  guint64 rx_next;
  GArray *pending;              /* RcPacketResult for the next feedback */
  /* receiver, for RTCP RRs (RFC 3550 appendix A.3, A.8) */
  guint64 rx_received, expected_prior, received_prior;
  gdouble jitter;               /* RTP timestamp units */
  gint64 last_transit;
  gboolean have_transit;
  guint32 lsr;                  /* middle 32 bits of the last SR's NTP time */
  GstClockTime sr_arrival;
};

typedef struct
{
  guint64 *bytes;               /* per bin, by departure */
  gdouble *qd_sum_ms;
  guint32 *qd_n;
  gdouble *cap_bps;             /* mean capacity per bin */
  gdouble *queue_ms;            /* queue delay sampled at the bin's start */
  GArray *qdelay_ms;            /* gfloat, every delivered packet */
  guint64 window_bytes;         /* departed inside [util_from, util_to) */
} LinkAcc;

struct _Sim
{
  const SimScenario *scen;
  guint32 seed;
  GstClockTime now, end;
  GArray *heap;
  guint64 ev_seq, n_events;
  RcLink *links[2];             /* forward, reverse */
  LinkAcc acc[2];
  GPtrArray *flows;
  guint n_bins;
  GstClockTime util_from, util_to;
  gdouble util_cap_bits;
  gboolean ran;
};

/* ---------------------------------------------------------------- RNG */

/* SplitMix64 (Steele et al. 2014): decorrelates the per-component seeds
 * derived from one run seed. */
static guint32
derive_seed (guint32 seed, guint32 component, guint32 stream)
{
  guint64 z = ((guint64) seed << 32 | component) * 0x9E3779B97F4A7C15ull +
      stream * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (guint32) (z ^ (z >> 32));
}

gdouble
sim_rand_open (GRand * r)
{
  return 1.0 - g_rand_double (r);
}

static gdouble
rand_normal (GRand * r)
{
  /* Box-Muller; one of the pair is enough here. */
  return sqrt (-2.0 * log (sim_rand_open (r))) *
      cos (2 * G_PI * g_rand_double (r));
}

/* ------------------------------------------------------------- events */

static gboolean
ev_less (const SimEvent * a, const SimEvent * b)
{
  return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void
sim_schedule (Sim * sim, GstClockTime t, SimEventFunc fn, gpointer obj,
    guint64 arg)
{
  SimEvent e = { MAX (t, sim->now), sim->ev_seq++, fn, obj, arg };
  SimEvent *h;
  guint i;

  g_array_append_val (sim->heap, e);
  h = (SimEvent *) sim->heap->data;
  for (i = sim->heap->len - 1; i > 0;) {
    guint parent = (i - 1) / 2;
    SimEvent tmp;
    if (!ev_less (&h[i], &h[parent]))
      break;
    tmp = h[i];
    h[i] = h[parent];
    h[parent] = tmp;
    i = parent;
  }
}

static SimEvent
heap_pop (Sim * sim)
{
  SimEvent *h = (SimEvent *) sim->heap->data;
  SimEvent top = h[0];
  guint n = sim->heap->len - 1, i = 0;

  h[0] = h[n];
  g_array_set_size (sim->heap, n);
  h = (SimEvent *) sim->heap->data;
  for (;;) {
    guint l = 2 * i + 1, r = l + 1, m = i;
    SimEvent tmp;
    if (l < n && ev_less (&h[l], &h[m]))
      m = l;
    if (r < n && ev_less (&h[r], &h[m]))
      m = r;
    if (m == i)
      break;
    tmp = h[i];
    h[i] = h[m];
    h[m] = tmp;
    i = m;
  }
  return top;
}

GstClockTime
sim_now (Sim * sim)
{
  return sim->now;
}

guint64
sim_n_events (Sim * sim)
{
  return sim->n_events;
}

/* ------------------------------------------------------------ packets */

SimPkt *
sim_pkt_new (SimFlow * f, SimPktKind kind, guint wire_size)
{
  SimPkt *p = g_slice_new0 (SimPkt);

  p->kind = kind;
  p->flow = f;
  p->wire_size = wire_size;
  return p;
}

void
sim_pkt_free (SimPkt * p)
{
  if (p->results)
    g_array_unref (p->results);
  if (p->rtcp)
    gst_buffer_unref (p->rtcp);
  g_slice_free (SimPkt, p);
}

static gboolean
is_data (SimPkt * p)
{
  return p->kind == SIM_PKT_MEDIA || p->kind == SIM_PKT_FEC ||
      p->kind == SIM_PKT_TCP_DATA || p->kind == SIM_PKT_CBR;
}

/* Goes the data direction (data, and the media sender's SRs). */
static gboolean
is_forward (SimPkt * p)
{
  return is_data (p) || p->kind == SIM_PKT_RTCP_SR;
}

/* Bins are allocated n_bins + 1: the last collects what happens after the
 * run (packets draining from the queue) and is never reported. */
static guint
bin_of (Sim * sim, GstClockTime t)
{
  guint64 b = t / SIM_BIN;
  return (guint) MIN (b, (guint64) sim->n_bins);
}

gboolean
sim_send (Sim * sim, SimPkt * p)
{
  SimFlow *f = p->flow;
  gboolean data = is_data (p), fwd = is_forward (p);
  RcLink *l = fwd ? f->data_link : f->ret_link;
  guint idx = fwd ? f->data_idx : f->ret_idx;
  SimBin *b = &f->bins[bin_of (sim, sim->now)];

  p->sent = sim->now;
  if (data) {
    f->sent_pkts++;
    f->sent_bytes += p->wire_size;
    b->sent_pkts++;
    b->sent_bytes += p->wire_size;
    if (p->kind == SIM_PKT_FEC) {
      f->fec_bytes += p->wire_size;
      b->fec_bytes += p->wire_size;
    }
  }
  if (!rc_link_enqueue (l, idx, p->wire_size, p, sim->now)) {
    if (data) {
      f->lost_queue++;
      b->lost_pkts++;
    }
    sim_pkt_free (p);
    return FALSE;
  }
  return TRUE;
}

void
sim_flow_goodput (SimFlow * f, guint bytes, GstClockTime departed)
{
  Sim *sim = f->sim;

  f->bins[bin_of (sim, departed)].goodput_bytes += bytes;
  if (departed >= f->start && departed <= f->stop)
    f->goodput_bytes += bytes;
}

/* -------------------------------------------------------------- media */

static gboolean
media_paused (SimFlow * f, GstClockTime t)
{
  guint i;

  for (i = 0; i < f->cfg->pauses->len; i++) {
    SimPeriod *p = &g_array_index (f->cfg->pauses, SimPeriod, i);
    if (t >= p->from && t < p->to)
      return TRUE;
  }
  return FALSE;
}

static void media_wake (Sim * sim, gpointer obj, guint64 arg);

static void
media_schedule_wake (Sim * sim, SimFlow * f, GstClockTime at)
{
  MediaState *m = f->media;

  if (!GST_CLOCK_TIME_IS_VALID (at) ||
      (GST_CLOCK_TIME_IS_VALID (m->wake_at) && m->wake_at <= at &&
          m->wake_at >= sim->now))
    return;
  m->wake_at = MAX (at, sim->now);
  sim_schedule (sim, m->wake_at, media_wake, f, m->wake_at);
}

/* The most the source can produce at `t` (0: no limit). */
static gdouble
media_app_limit (SimFlow * f, GstClockTime t)
{
  guint64 v = 0;
  guint i;

  for (i = 0; i < f->cfg->app_limit->len; i++) {
    SimStep *st = &g_array_index (f->cfg->app_limit, SimStep, i);
    if (st->at > t)
      break;
    v = st->value;
  }
  return (gdouble) v;
}

/* Everything the session has due now: packets to send, actions to carry
 * out; then the next time it wants to run. */
static void
media_service (Sim * sim, SimFlow * f)
{
  MediaState *m = f->media;
  SimPkt *p;
  guint64 index;
  GstClockTime next;
  guint i;

  if (sim->now >= f->stop)
    return;
  while ((p = rc_sender_pop (m->sender, sim->now, NULL, &index))) {
    SentRecord rec = { sim->now, p->rtp_size };

    g_assert (index == m->sent_log->len);
    p->seq = index;
    g_array_append_val (m->sent_log, rec);
    sim_send (sim, p);
  }
  g_array_set_size (m->actions, 0);
  next = rc_sender_poll (m->sender, sim->now, m->actions);
  for (i = 0; i < m->actions->len; i++) {
    RcSenderAction *a = &g_array_index (m->actions, RcSenderAction, i);
    if (a->kind == RC_SENDER_SET_ENCODER)
      m->enc_target = a->bps;
    /* RC_SENDER_SET_FEC: no FEC in rcsim yet; RC_SENDER_WARN_NO_FEEDBACK:
     * nobody to tell. */
  }
  media_schedule_wake (sim, f, next);
  media_schedule_wake (sim, f, rc_sender_next_send (m->sender));
}

static void
media_wake (Sim * sim, gpointer obj, guint64 arg)
{
  SimFlow *f = obj;

  if (arg != f->media->wake_at)
    return;                     /* superseded by an earlier wakeup */
  f->media->wake_at = GST_CLOCK_TIME_NONE;
  media_service (sim, f);
}

/* FEC hook: repair packets for the media packets just packetized. None
 * until rc-fec exists. */
static void
media_protect (Sim * sim, SimFlow * f, GQueue * frame_pkts)
{
}

static void
media_frame (Sim * sim, gpointer obj, guint64 n)
{
  SimFlow *f = obj;
  MediaState *m = f->media;
  const SimFlowConfig *c = f->cfg;
  GstClockTime t = sim->now;
  gdouble dt = 1.0 / c->fps, budget, size, noise;
  gboolean key;
  GQueue frame = G_QUEUE_INIT;
  guint left;
  GstClockTime next;

  if (t >= f->stop)
    return;
  next = f->start + gst_util_uint64_scale_round (n + 1, GST_SECOND * 1000,
      (guint64) llround (c->fps * 1000));
  sim_schedule (sim, next, media_frame, f, n + 1);

  if (media_paused (f, t)) {
    m->was_paused = TRUE;
    return;
  }

  /* RFC 8867 sec. 4: the encoder follows a new target within ~100 ms;
   * modelled as a first-order lag of that time constant. A source that
   * cannot fill the target (app-limit) produces less. */
  {
    gdouble target = m->enc_target, lim = media_app_limit (f, t);
    if (lim > 0)
      target = MIN (target, lim);
    if (c->encoder_lag > 0)
      m->enc_bps += (target - m->enc_bps) *
          (1 - exp (-dt * GST_SECOND / c->encoder_lag));
    else
      m->enc_bps = target;
  }

  budget = m->enc_bps / 8 * dt;
  /* Lognormal with mean 1. */
  noise = c->frame_noise > 0 ? exp (c->frame_noise * rand_normal (f->rand) -
      c->frame_noise * c->frame_noise / 2) : 1.0;
  key = m->frames == 0 || m->was_paused ||
      (c->key_interval > 0 && t >= m->next_key);
  if (key) {
    m->next_key = t + c->key_interval;
    m->vbuf = 0;
  }
  size = budget * noise * (key ? MAX (c->key_factor, 1.0) : 1.0);
  /* Rate control: what earlier frames overspent is taken back over the
   * buffer time, so the mean stays at the encoder's rate. */
  if (!key)
    size -= m->vbuf / MAX (1.0, VBV_TIME * c->fps);
  size = MAX (size, MAX (MIN_FRAME_BYTES, 0.1 * budget));
  m->vbuf += size - budget;
  m->was_paused = FALSE;
  m->frames++;

  /* Packetize: full packets, the remainder last (like rtp*pay). */
  for (left = (guint) llround (size); left > 0;) {
    guint payload = MIN (left, c->mtu_payload);
    SimPkt *p = sim_pkt_new (f, SIM_PKT_MEDIA,
        payload + RTP_OVERHEAD + f->data_overhead);

    p->rtp_size = payload + RTP_OVERHEAD;
    p->queued = t;
    left -= payload;
    g_queue_push_tail (&frame, p);
  }
  media_protect (sim, f, &frame);

  while (!g_queue_is_empty (&frame)) {
    SimPkt *p = g_queue_pop_head (&frame);
    rc_sender_push (m->sender, p, p->rtp_size, p->kind == SIM_PKT_FEC ?
        RC_SENDER_ITEM_FEC : RC_SENDER_ITEM_MEDIA, t);
  }
  media_service (sim, f);
}

static GstClockTime
receiver_clock (SimFlow * f, GstClockTime t)
{
  gint64 skew = llround ((gdouble) t * f->cfg->clock_skew_ppm * 1e-6);

  /* skew > -1e6 ppm, so this never goes below the offset. */
  return (GstClockTime) ((gint64) (t + f->cfg->clock_offset) + skew);
}

static void
media_receive (Sim * sim, SimFlow * f, SimPkt * p)
{
  MediaState *m = f->media;
  RcPacketResult r = { 0 };

  /* A TWCC receiver knows a packet is missing when a later one arrives. */
  for (; m->rx_next < p->seq; m->rx_next++) {
    r.seq = m->rx_next;
    r.send_ts = r.recv_ts = GST_CLOCK_TIME_NONE;
    r.lost = TRUE;
    g_array_append_val (m->pending, r);
  }
  if (p->seq < m->rx_next)
    return;                     /* never happens: the link keeps order */
  m->rx_next = p->seq + 1;
  m->rx_received++;
  {
    /* RFC 3550 appendix A.8: transit = arrival - RTP timestamp, both in
     * RTP units; the capture time is the RTP timestamp. */
    gint64 transit = (gint64) gst_util_uint64_scale (receiver_clock (f,
            sim->now), RTP_CLOCK_RATE, GST_SECOND) -
        (gint64) gst_util_uint64_scale (p->queued, RTP_CLOCK_RATE, GST_SECOND);
    if (m->have_transit)
      m->jitter += (fabs ((gdouble) (transit - m->last_transit)) - m->jitter) /
          16;
    m->last_transit = transit;
    m->have_transit = TRUE;
  }
  r.seq = p->seq;
  r.send_ts = GST_CLOCK_TIME_NONE;
  r.recv_ts = receiver_clock (f, sim->now);
  r.lost = FALSE;
  g_array_append_val (m->pending, r);
}

static void
media_feedback (Sim * sim, gpointer obj, guint64 arg)
{
  SimFlow *f = obj;
  MediaState *m = f->media;
  guint n, n_recv = 0, i;
  SimPkt *p;

  if (sim->now >= f->stop + FEEDBACK_TAIL)
    return;
  sim_schedule (sim, sim->now + f->cfg->feedback_interval, media_feedback, f,
      0);
  n = m->pending->len;
  if (n == 0)
    return;
  for (i = 0; i < n; i++)
    if (!g_array_index (m->pending, RcPacketResult, i).lost)
      n_recv++;
  /* RTCP transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-
   * extensions-01 sec. 3.1): 16 bytes of RTCP header and SSRCs, 8 of base
   * seq, count and reference time, a 2-byte status chunk per 7 packets and
   * a 1-byte receive delta per received packet; plus the link's overhead
   * (IP/UDP). */
  p = sim_pkt_new (f, SIM_PKT_FEEDBACK,
      f->ret_overhead + 24 + 2 * ((n + 6) / 7) + n_recv);
  p->results = m->pending;
  m->pending = g_array_new (FALSE, FALSE, sizeof (RcPacketResult));
  sim_send (sim, p);
}

static void
media_feedback_arrive (Sim * sim, SimFlow * f, SimPkt * p)
{
  MediaState *m = f->media;
  guint i;

  /* The sender's record of what it sent completes each result, as
   * rtpsession's TWCC manager does before it emits RTPTWCCPackets. */
  for (i = 0; i < p->results->len; i++) {
    RcPacketResult *r = &g_array_index (p->results, RcPacketResult, i);
    if (r->seq < m->sent_log->len) {
      SentRecord *s = &g_array_index (m->sent_log, SentRecord, r->seq);
      r->send_ts = s->ts;
      r->size = s->size;
    }
  }
  rc_sender_on_packet_results (m->sender,
      (RcPacketResult *) p->results->data, p->results->len, sim->now);
  media_service (sim, f);
}

/* RFC 3550 sec. 6.3.1: the interval times a uniform [0.5, 1.5]. */
static GstClockTime
rtcp_next (SimFlow * f)
{
  return (GstClockTime) (f->cfg->rtcp_interval *
      g_rand_double_range (f->media->rtcp_rand, 0.5, 1.5));
}

static guint32
ntp_short_at (GstClockTime t)
{
  return rc_rtcp_ntp_short (rc_rtcp_ntp_from_unix (t));
}

/* The media sender's SR: the receiver needs its NTP time for LSR. */
static void
media_send_sr (Sim * sim, gpointer obj, guint64 arg)
{
  SimFlow *f = obj;
  SimPkt *p;

  if (sim->now >= f->stop)
    return;
  p = sim_pkt_new (f, SIM_PKT_RTCP_SR, RTCP_SR_BYTES + f->data_overhead);
  p->seq = ntp_short_at (sim->now);
  sim_send (sim, p);
  sim_schedule (sim, sim->now + rtcp_next (f), media_send_sr, f, 0);
}

static void
media_sr_arrive (Sim * sim, SimFlow * f, SimPkt * p)
{
  f->media->lsr = (guint32) p->seq;
  f->media->sr_arrival = sim->now;
}

/* The receiver's RR about the flow (RFC 3550 sec. 6.4.2, appendix A.3). */
static void
media_send_rr (Sim * sim, gpointer obj, guint64 arg)
{
  SimFlow *f = obj;
  MediaState *m = f->media;
  GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
  GstRTCPPacket pkt;
  guint64 expected = m->rx_next, exp_int, rec_int;
  gint64 lost = (gint64) expected - (gint64) m->rx_received;
  guint8 fraction = 0;
  guint32 dlsr = 0;
  SimPkt *p;

  if (sim->now >= f->stop + FEEDBACK_TAIL)
    return;
  sim_schedule (sim, sim->now + rtcp_next (f), media_send_rr, f, 0);
  if (m->rx_received == 0)
    return;                     /* nothing received: no report block */
  exp_int = expected - m->expected_prior;
  rec_int = m->rx_received - m->received_prior;
  m->expected_prior = expected;
  m->received_prior = m->rx_received;
  if (exp_int > 0 && exp_int > rec_int)
    fraction = (guint8) (((exp_int - rec_int) << 8) / exp_int);
  if (m->lsr)
    dlsr = (guint32) gst_util_uint64_scale (sim->now - m->sr_arrival, 65536,
        GST_SECOND);
  p = sim_pkt_new (f, SIM_PKT_RTCP_RR, RTCP_RR_BYTES + f->ret_overhead);
  p->rtcp = gst_rtcp_buffer_new (1400);
  gst_rtcp_buffer_map (p->rtcp, GST_MAP_READWRITE, &rtcp);
  gst_rtcp_buffer_add_packet (&rtcp, GST_RTCP_TYPE_RR, &pkt);
  gst_rtcp_packet_rr_set_ssrc (&pkt, SSRC_BASE + 0x1000 + f->id);
  /* Extended highest seq: the transport index stands in for the RTP
   * sequence number (one media packet each). */
  gst_rtcp_packet_add_rb (&pkt, SSRC_BASE + f->id, fraction,
      (gint32) CLAMP (lost, -8388608, 8388607),
      (guint32) (expected ? expected - 1 : 0), (guint32) m->jitter, m->lsr,
      dlsr);
  gst_rtcp_buffer_unmap (&rtcp);
  sim_send (sim, p);
}

static void
media_rr_arrive (Sim * sim, SimFlow * f, SimPkt * p)
{
  MediaState *m = f->media;

  g_array_set_size (m->reports, 0);
  rc_rtcp_parse (p->rtcp, ntp_short_at (sim->now), RTP_CLOCK_RATE,
      m->reports, NULL);
  if (m->reports->len == 0)
    return;
  rc_sender_on_reports (m->sender, (RcReportBlock *) m->reports->data,
      m->reports->len, sim->now);
  media_service (sim, f);
}

static void
media_init (Sim * sim, SimFlow * f)
{
  MediaState *m = g_new0 (MediaState, 1);

  f->media = m;
  /* The scenario parser validated the configuration. */
  m->sender = rc_sender_new (&f->cfg->sender, NULL);
  g_assert (m->sender);
  m->wake_at = GST_CLOCK_TIME_NONE;
  m->sent_log = g_array_new (FALSE, FALSE, sizeof (SentRecord));
  m->actions = g_array_new (FALSE, FALSE, sizeof (RcSenderAction));
  m->pending = g_array_new (FALSE, FALSE, sizeof (RcPacketResult));
  m->enc_target = m->enc_bps = rc_sender_get_target (m->sender);
  m->stat_names = g_ptr_array_new_with_free_func (g_free);
  m->reports = g_array_new (FALSE, FALSE, sizeof (RcReportBlock));
  m->rtcp_rand = g_rand_new_with_seed (derive_seed (sim->seed, 0x100 + f->id,
          2));
  m->sr_arrival = GST_CLOCK_TIME_NONE;
  rc_sender_set_ssrc (m->sender, SSRC_BASE + f->id);
  rc_sender_set_clock_rate (m->sender, RTP_CLOCK_RATE);
  if (f->start >= f->stop)
    return;
  sim_schedule (sim, f->start, media_frame, f, 0);
  if (f->cfg->twcc)
    sim_schedule (sim, f->start + f->cfg->feedback_interval, media_feedback,
        f, 0);
  sim_schedule (sim, f->start + rtcp_next (f), media_send_sr, f, 0);
  sim_schedule (sim, f->start + rtcp_next (f), media_send_rr, f, 0);
}

static void
media_free (SimFlow * f)
{
  MediaState *m = f->media;

  if (!m)
    return;
  rc_sender_flush (m->sender, (GDestroyNotify) sim_pkt_free);
  rc_sender_free (m->sender);
  g_array_unref (m->sent_log);
  g_array_unref (m->actions);
  g_array_unref (m->pending);
  g_array_unref (m->reports);
  g_rand_free (m->rtcp_rand);
  g_ptr_array_unref (m->stat_names);
  g_free (m);
}

/* ---------------------------------------------------------------- CBR */

static void
cbr_send (Sim * sim, gpointer obj, guint64 n)
{
  SimFlow *f = obj;
  SimPkt *p;

  if (sim->now >= f->stop)
    return;
  p = sim_pkt_new (f, SIM_PKT_CBR, f->cfg->packet_size);
  p->seq = n;
  sim_send (sim, p);
  sim_schedule (sim, f->start + gst_util_uint64_scale_round (n + 1,
          (guint64) f->cfg->packet_size * 8 * GST_SECOND, f->cfg->rate_bps),
      cbr_send, f, n + 1);
}

/* ------------------------------------------------------------ sampling */

static gboolean
flow_active (SimFlow * f, GstClockTime t)
{
  if (f->cfg->kind == SIM_FLOW_TCP)
    return sim_tcp_active (f, t);
  if (t < f->start || t >= f->stop)
    return FALSE;
  return f->cfg->kind != SIM_FLOW_MEDIA || !media_paused (f, t);
}

static void
append_value (GString * s, const GValue * v)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  switch (G_VALUE_TYPE (v)) {
    case G_TYPE_DOUBLE:
      g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.6g",
              g_value_get_double (v)));
      break;
    case G_TYPE_FLOAT:
      g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.6g",
              g_value_get_float (v)));
      break;
    case G_TYPE_UINT64:
      g_string_append_printf (s, "%" G_GUINT64_FORMAT, g_value_get_uint64 (v));
      break;
    case G_TYPE_INT64:
      g_string_append_printf (s, "%" G_GINT64_FORMAT, g_value_get_int64 (v));
      break;
    case G_TYPE_UINT:
      g_string_append_printf (s, "%u", g_value_get_uint (v));
      break;
    case G_TYPE_INT:
      g_string_append_printf (s, "%d", g_value_get_int (v));
      break;
    case G_TYPE_BOOLEAN:
      g_string_append (s, g_value_get_boolean (v) ? "1" : "0");
      break;
    default:{
      gchar *str = G_VALUE_HOLDS_STRING (v) ? g_value_dup_string (v) :
          gst_value_serialize (v);
      const gchar *c;
      g_string_append_c (s, '"');
      for (c = str ? str : ""; *c; c++) {
        if (*c == '"')
          g_string_append_c (s, '"');
        g_string_append_c (s, *c);
      }
      g_string_append_c (s, '"');
      g_free (str);
      break;
    }
  }
}

static gchar *
media_stats_row (SimFlow * f)
{
  MediaState *m = f->media;
  GstStructure *st = rc_sender_get_stats (m->sender, f->sim->now);
  GString *row = g_string_new (NULL);
  guint i;

  if (!st)
    return g_string_free (row, FALSE);
  if (m->stat_names->len == 0) {
    gint n = gst_structure_n_fields (st);
    for (i = 0; i < (guint) n; i++)
      g_ptr_array_add (m->stat_names,
          g_strdup (gst_structure_nth_field_name (st, i)));
  }
  for (i = 0; i < m->stat_names->len; i++) {
    const GValue *v = gst_structure_get_value (st,
        g_ptr_array_index (m->stat_names, i));
    if (i)
      g_string_append_c (row, ',');
    if (v)
      append_value (row, v);
  }
  gst_structure_free (st);
  return g_string_free (row, FALSE);
}

static void
sample (Sim * sim, gpointer obj, guint64 b)
{
  guint i, l;

  for (i = 0; i < sim->flows->len; i++) {
    SimFlow *f = g_ptr_array_index (sim->flows, i);
    SimBin *bin = &f->bins[b];

    bin->active = flow_active (f, sim->now);
    if (f->media && sim->now >= f->start && sim->now < f->stop) {
      RcDecision d = rc_sender_get_decision (f->media->sender);
      bin->target_bps = d.media_bps;
      bin->pacing_bps = rc_sender_get_pacing_rate (f->media->sender);
      bin->encoder_bps = f->media->enc_bps;
      bin->stats = media_stats_row (f);
    } else if (f->tcp) {
      sim_tcp_sample (f, bin);
    }
  }
  for (l = 0; l < 2; l++)
    sim->acc[l].queue_ms[b] =
        (gdouble) rc_link_queue_delay (sim->links[l], sim->now) / GST_MSECOND;
  if (b + 1 < sim->n_bins)
    sim_schedule (sim, (b + 1) * SIM_BIN, sample, NULL, b + 1);
}

/* -------------------------------------------------------------- links */

static void
deliver (Sim * sim, guint l, RcLinkPacket * out)
{
  SimPkt *p = out->data;
  SimFlow *f = p->flow;
  LinkAcc *acc = &sim->acc[l];
  gboolean data = is_data (p);
  GstClockTime prop = is_forward (p) ? f->cfg->delay : f->cfg->return_delay;
  SimBin *b = &f->bins[bin_of (sim, out->departed)];

  if (out->lost) {
    if (data) {
      f->lost_link++;
      b->lost_pkts++;
    }
    sim_pkt_free (p);
    return;
  }

  {
    guint db = bin_of (sim, out->departed);
    gdouble qd = (gdouble) (out->arrival - out->enqueued - MIN (prop,
            out->arrival - out->enqueued)) / GST_MSECOND;
    gfloat qdf = (gfloat) qd;

    acc->bytes[db] += out->size;
    acc->qd_sum_ms[db] += qd;
    acc->qd_n[db]++;
    g_array_append_val (acc->qdelay_ms, qdf);
    if (out->departed >= sim->util_from && out->departed < sim->util_to &&
        l == 0)
      acc->window_bytes += out->size;
    if (data) {
      f->delivered_pkts++;
      b->delivered_pkts++;
      b->qd_sum_ms += qd;
      b->qd_max_ms = MAX (b->qd_max_ms, qdf);
      g_array_append_val (f->qdelay_ms, qdf);
    }
  }

  switch (p->kind) {
    case SIM_PKT_MEDIA:
      sim_flow_goodput (f, p->wire_size, out->departed);
      media_receive (sim, f, p);
      break;
    case SIM_PKT_FEC:
      break;
    case SIM_PKT_FEEDBACK:
      media_feedback_arrive (sim, f, p);
      break;
    case SIM_PKT_TCP_DATA:
      sim_tcp_on_data (sim, f, p, out->departed);
      break;
    case SIM_PKT_TCP_ACK:
      sim_tcp_on_ack (sim, f, p);
      break;
    case SIM_PKT_CBR:
      sim_flow_goodput (f, p->wire_size, out->departed);
      break;
    case SIM_PKT_RTCP_SR:
      media_sr_arrive (sim, f, p);
      break;
    case SIM_PKT_RTCP_RR:
      media_rr_arrive (sim, f, p);
      break;
  }
  sim_pkt_free (p);
}

/* ------------------------------------------------------------ lifecycle */

Sim *
sim_new (const SimScenario * scen, guint32 seed)
{
  Sim *sim = g_new0 (Sim, 1);
  RcLinkConfig lc;
  guint i, l;

  sim->scen = scen;
  sim->seed = seed;
  sim->end = scen->duration;
  sim->heap = g_array_sized_new (FALSE, FALSE, sizeof (SimEvent), 1024);
  sim->n_bins = (guint) MAX ((scen->duration + SIM_BIN - 1) / SIM_BIN, 1);

  for (l = 0; l < 2; l++) {
    LinkAcc *acc = &sim->acc[l];
    lc = l == 0 ? scen->link : scen->reverse;
    lc.seed = derive_seed (seed, 0x11 + l, 0);
    sim->links[l] = rc_link_new (&lc);
    acc->bytes = g_new0 (guint64, sim->n_bins + 1);
    acc->qd_sum_ms = g_new0 (gdouble, sim->n_bins + 1);
    acc->qd_n = g_new0 (guint32, sim->n_bins + 1);
    acc->cap_bps = g_new0 (gdouble, sim->n_bins + 1);
    acc->queue_ms = g_new0 (gdouble, sim->n_bins + 1);
    acc->qdelay_ms = g_array_new (FALSE, FALSE, sizeof (gfloat));
  }

  /* Utilization window: the forward flows' active time. */
  sim->util_from = GST_CLOCK_TIME_NONE;
  sim->util_to = 0;
  sim->flows = g_ptr_array_new ();
  for (i = 0; i < scen->flows->len; i++) {
    const SimFlowConfig *c = g_ptr_array_index (scen->flows, i);
    SimFlow *f = g_new0 (SimFlow, 1);

    f->id = i;
    f->cfg = c;
    f->sim = sim;
    f->start = c->start;
    /* A flow starting after a shortened run is simply never active. */
    f->stop = MAX (c->start, MIN (c->stop, scen->duration));
    f->rand = g_rand_new_with_seed (derive_seed (seed, 0x100 + i, 1));
    f->data_link = sim->links[c->reverse ? 1 : 0];
    f->ret_link = sim->links[c->reverse ? 0 : 1];
    f->data_overhead = c->reverse ? scen->reverse.overhead :
        scen->link.overhead;
    f->ret_overhead = c->reverse ? scen->link.overhead :
        scen->reverse.overhead;
    f->data_idx = rc_link_add_flow (f->data_link, c->delay);
    f->ret_idx = rc_link_add_flow (f->ret_link, c->return_delay);
    f->qdelay_ms = g_array_new (FALSE, FALSE, sizeof (gfloat));
    f->bins = g_new0 (SimBin, sim->n_bins + 1);
    g_ptr_array_add (sim->flows, f);
    if (!c->reverse && f->start < f->stop) {
      sim->util_from = MIN (sim->util_from, f->start);
      sim->util_to = MAX (sim->util_to, f->stop);
    }

    switch (c->kind) {
      case SIM_FLOW_MEDIA:
        media_init (sim, f);
        break;
      case SIM_FLOW_TCP:
        sim_tcp_init (sim, f);
        break;
      case SIM_FLOW_CBR:
        if (f->start < f->stop)
          sim_schedule (sim, f->start, cbr_send, f, 0);
        break;
    }
  }
  if (!GST_CLOCK_TIME_IS_VALID (sim->util_from))
    sim->util_from = sim->util_to = 0;
  sim_schedule (sim, 0, sample, NULL, 0);
  return sim;
}

void
sim_free (Sim * sim)
{
  guint i, b, l;
  RcLinkPacket out;

  if (!sim)
    return;
  /* Packets still inside the links belong to us. */
  for (l = 0; l < 2; l++) {
    GstClockTime t;
    while (GST_CLOCK_TIME_IS_VALID (t = rc_link_next_event (sim->links[l])) &&
        rc_link_pop (sim->links[l], t, &out))
      sim_pkt_free (out.data);
    rc_link_free (sim->links[l]);
    g_free (sim->acc[l].bytes);
    g_free (sim->acc[l].qd_sum_ms);
    g_free (sim->acc[l].qd_n);
    g_free (sim->acc[l].cap_bps);
    g_free (sim->acc[l].queue_ms);
    g_array_unref (sim->acc[l].qdelay_ms);
  }
  for (i = 0; i < sim->flows->len; i++) {
    SimFlow *f = g_ptr_array_index (sim->flows, i);
    media_free (f);
    sim_tcp_free (f);
    for (b = 0; b <= sim->n_bins; b++)
      g_free (f->bins[b].stats);
    g_free (f->bins);
    g_array_unref (f->qdelay_ms);
    g_rand_free (f->rand);
    g_free (f);
  }
  g_ptr_array_unref (sim->flows);
  g_array_unref (sim->heap);
  g_free (sim);
}

static void
integrate_capacity (Sim * sim)
{
  guint l, b;
  GstClockTime t;

  for (l = 0; l < 2; l++) {
    for (b = 0; b < sim->n_bins; b++) {
      GstClockTime from = b * SIM_BIN, to = MIN ((b + 1) * SIM_BIN,
          sim->end);
      gdouble sum = 0;
      guint n = 0;
      for (t = from; t < to; t += CAP_STEP, n++)
        sum += (gdouble) rc_link_capacity_at (sim->links[l], t);
      sim->acc[l].cap_bps[b] = n ? sum / n : 0;
    }
  }
  sim->util_cap_bits = 0;
  for (t = sim->util_from; t < sim->util_to; t += CAP_STEP)
    sim->util_cap_bits += (gdouble) rc_link_capacity_at (sim->links[0], t) *
        ((gdouble) MIN (CAP_STEP, sim->util_to - t) / GST_SECOND);
}

void
sim_run_until (Sim * sim, GstClockTime until)
{
  RcLinkPacket out;
  guint l;

  g_return_if_fail (!sim->ran);
  for (;;) {
    GstClockTime t = G_MAXUINT64;

    if (sim->heap->len)
      t = g_array_index (sim->heap, SimEvent, 0).t;
    for (l = 0; l < 2; l++) {
      GstClockTime lt = rc_link_next_event (sim->links[l]);
      if (GST_CLOCK_TIME_IS_VALID (lt))
        t = MIN (t, lt);
    }
    if (t == G_MAXUINT64 || t > until)
      break;
    sim->now = MAX (sim->now, t);
    for (l = 0; l < 2; l++) {
      while (rc_link_pop (sim->links[l], sim->now, &out)) {
        sim->n_events++;
        deliver (sim, l, &out);
      }
    }
    while (sim->heap->len &&
        g_array_index (sim->heap, SimEvent, 0).t <= sim->now) {
      SimEvent e = heap_pop (sim);
      sim->n_events++;
      e.fn (sim, e.obj, e.arg);
    }
  }
  sim->now = MAX (sim->now, MIN (until, sim->end + DRAIN));
}

void
sim_run (Sim * sim)
{
  g_return_if_fail (!sim->ran);
  sim_run_until (sim, sim->end + DRAIN);
  sim->ran = TRUE;
  integrate_capacity (sim);
}

GstClockTime
sim_get_time (Sim * sim)
{
  return sim->now;
}

RcSender *
sim_flow_sender (Sim * sim, guint flow)
{
  SimFlow *f;

  g_return_val_if_fail (flow < sim->flows->len, NULL);
  f = g_ptr_array_index (sim->flows, flow);
  return f->media ? f->media->sender : NULL;
}

void
sim_flow_window (Sim * sim, guint flow, GstClockTime from, GstClockTime to,
    SimWindow * out)
{
  SimFlow *f;
  guint b, b0, b1, nt = 0;
  guint64 bytes = 0;
  gdouble qd = 0, target = 0;

  g_return_if_fail (flow < sim->flows->len && to > from);
  f = g_ptr_array_index (sim->flows, flow);
  memset (out, 0, sizeof (*out));
  b0 = bin_of (sim, from);
  b1 = bin_of (sim, to);
  for (b = b0; b < b1; b++) {
    SimBin *bn = &f->bins[b];
    bytes += bn->goodput_bytes;
    qd += bn->qd_sum_ms;
    out->sent_pkts += bn->sent_pkts;
    out->delivered_pkts += bn->delivered_pkts;
    out->lost_pkts += bn->lost_pkts;
    if (f->media && b * SIM_BIN >= f->start && b * SIM_BIN < f->stop) {
      target += bn->target_bps;
      nt++;
    }
  }
  out->goodput_bps = bytes * 8.0 / ((gdouble) (to - from) / GST_SECOND);
  out->qdelay_mean_ms = out->delivered_pkts ? qd / out->delivered_pkts : 0;
  out->target_mean_bps = nt ? target / nt : 0;
}

/* ------------------------------------------------------------- metrics */

typedef struct
{
  gboolean valid;
  gdouble mean, p50, p95, max;
} Dist;

static gint
cmp_float (gconstpointer a, gconstpointer b)
{
  gfloat x = *(const gfloat *) a, y = *(const gfloat *) b;
  return x < y ? -1 : x > y;
}

/* Nearest-rank percentiles (docs/metrics.md). */
static Dist
dist_of (GArray * samples)
{
  Dist d = { 0 };
  GArray *s;
  gdouble sum = 0;
  guint i, n = samples->len;

  if (n == 0)
    return d;
  s = g_array_copy (samples);
  qsort (s->data, n, sizeof (gfloat), cmp_float);
  for (i = 0; i < n; i++)
    sum += g_array_index (s, gfloat, i);
  d.valid = TRUE;
  d.mean = sum / n;
#define RANK(p) g_array_index (s, gfloat, (guint) MAX (ceil ((p) * n), 1) - 1)
  d.p50 = RANK (0.50);
  d.p95 = RANK (0.95);
#undef RANK
  d.max = g_array_index (s, gfloat, n - 1);
  g_array_unref (s);
  return d;
}

static gdouble
flow_demand (SimFlow * f)
{
  switch (f->cfg->kind) {
    case SIM_FLOW_MEDIA:
      return (gdouble) f->cfg->sender.limits.max_bps;
    case SIM_FLOW_CBR:
      return (gdouble) f->cfg->rate_bps;
    case SIM_FLOW_TCP:
      break;
  }
  return G_MAXDOUBLE;
}

/* Max-min fair share of `f` in bin `b` among the flows active on the same
 * link then (water-filling over their demands). */
static gdouble
fair_share (Sim * sim, SimFlow * f, guint b)
{
  gdouble cap = sim->acc[f->cfg->reverse ? 1 : 0].cap_bps[b];
  gdouble demands[RC_LINK_MAX_FLOWS];
  guint n = 0, i, j;

  if (!f->bins[b].active)
    return 0;
  for (i = 0; i < sim->flows->len; i++) {
    SimFlow *o = g_ptr_array_index (sim->flows, i);
    if (o->cfg->reverse == f->cfg->reverse && o->bins[b].active)
      demands[n++] = flow_demand (o);
  }
  /* Sort ascending (n is small), then fill. */
  for (i = 1; i < n; i++)
    for (j = i; j > 0 && demands[j] < demands[j - 1]; j--) {
      gdouble t = demands[j];
      demands[j] = demands[j - 1];
      demands[j - 1] = t;
    }
  /* Flows whose demand is below an equal split of what is left get their
   * demand; the rest split the remainder equally. */
  for (i = 0; i < n; i++) {
    gdouble equal = cap / (n - i);
    if (demands[i] >= equal)
      return MIN (equal, flow_demand (f));
    if (demands[i] >= flow_demand (f))
      return flow_demand (f);   /* f (or one with its demand) is satisfied */
    cap -= demands[i];
  }
  return flow_demand (f);
}

static gdouble
flow_active_s (SimFlow * f)
{
  return f->stop > f->start ? (gdouble) (f->stop - f->start) / GST_SECOND : 0;
}

/* Seconds from start until the 1 s mean goodput first reaches 80 % of the
 * fair share and stays there 5 s; < 0 when never. */
static gdouble
convergence (Sim * sim, SimFlow * f)
{
  guint first, last, b, k, run_start = 0, held = 0;
  gdouble *smooth;
  gdouble result = -1;

  if (f->cfg->kind == SIM_FLOW_CBR || (f->cfg->kind == SIM_FLOW_TCP &&
          f->cfg->size_max > 0) || f->stop <= f->start)
    return -1;
  first = (guint) (f->start / SIM_BIN);
  last = (guint) MIN ((f->stop + SIM_BIN - 1) / SIM_BIN, sim->n_bins);
  smooth = g_new0 (gdouble, sim->n_bins);
  for (b = first; b < last; b++) {
    gdouble sum = 0;
    guint n = 0;
    for (k = b + 1 - MIN (CONV_SMOOTH_BINS, b + 1 - first); k <= b; k++, n++)
      sum += f->bins[k].goodput_bytes * 8.0 / ((gdouble) SIM_BIN / GST_SECOND);
    smooth[b] = sum / MAX (n, 1);
  }
  for (b = first; b < last; b++) {
    gdouble share;
    if (!f->bins[b].active)
      continue;                 /* paused: neither holds nor breaks */
    share = fair_share (sim, f, b);
    if (share > 0 && smooth[b] >= CONV_FRACTION * share) {
      if (held == 0)
        run_start = b;
      if (++held >= CONV_HOLD_BINS) {
        result = (gdouble) ((run_start + 1) * SIM_BIN - f->start) /
            GST_SECOND;
        break;
      }
    } else {
      held = 0;
    }
  }
  g_free (smooth);
  return result;
}

/* Jain's index and min/max over the goodput of the media flows that share
 * the forward bottleneck, in the bins where all of them are active; FALSE
 * with fewer than two such flows or no such bin. */
static gboolean
fairness (Sim * sim, gdouble * jain, gdouble * min_max)
{
  gdouble x[RC_LINK_MAX_FLOWS];
  guint n = 0, i, b, overlap = 0;
  gdouble sum = 0, sq = 0, mn = G_MAXDOUBLE, mx = 0;

  for (i = 0; i < sim->flows->len; i++) {
    SimFlow *f = g_ptr_array_index (sim->flows, i);
    if (f->cfg->kind == SIM_FLOW_MEDIA && !f->cfg->reverse)
      x[n++] = 0;
  }
  if (n < 2)
    return FALSE;
  for (b = 0; b < sim->n_bins; b++) {
    gboolean all = TRUE;
    for (i = 0; i < sim->flows->len && all; i++) {
      SimFlow *f = g_ptr_array_index (sim->flows, i);
      if (f->cfg->kind == SIM_FLOW_MEDIA && !f->cfg->reverse &&
          !f->bins[b].active)
        all = FALSE;
    }
    if (!all)
      continue;
    overlap++;
    for (i = 0, n = 0; i < sim->flows->len; i++) {
      SimFlow *f = g_ptr_array_index (sim->flows, i);
      if (f->cfg->kind == SIM_FLOW_MEDIA && !f->cfg->reverse)
        x[n++] += f->bins[b].goodput_bytes;
    }
  }
  if (!overlap)
    return FALSE;
  for (i = 0; i < n; i++) {
    sum += x[i];
    sq += x[i] * x[i];
    mn = MIN (mn, x[i]);
    mx = MAX (mx, x[i]);
  }
  *jain = sq > 0 ? sum * sum / (n * sq) : 1.0;
  *min_max = mx > 0 ? mn / mx : 1.0;
  return TRUE;
}

static const gchar *
flow_controller (SimFlow * f)
{
  switch (f->cfg->kind) {
    case SIM_FLOW_MEDIA:
      return f->cfg->sender.controller->name;
    case SIM_FLOW_TCP:
      return f->cfg->cc == SIM_TCP_CUBIC ? "cubic" : "newreno";
    case SIM_FLOW_CBR:
      break;
  }
  return "none";
}

static gdouble
loss_of (SimFlow * f)
{
  guint64 known = f->delivered_pkts + f->lost_queue + f->lost_link;
  return known ? (gdouble) (f->lost_queue + f->lost_link) / known : 0;
}

static gdouble
kbps (guint64 bytes, gdouble secs)
{
  return secs > 0 ? bytes * 8.0 / secs / 1000.0 : 0;
}

/* ------------------------------------------------------------- output */

static void
json_num (GString * s, gdouble v, const gchar * fmt)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (v)) {
    g_string_append (s, "null");
    return;
  }
  g_ascii_formatd (buf, sizeof buf, fmt, v);
  /* "-0.000" would differ from "0.000" for no reason. */
  if (buf[0] == '-' && strspn (buf + 1, "0.") == strlen (buf + 1))
    g_string_append (s, buf + 1);
  else
    g_string_append (s, buf);
}

static void
json_str (GString * s, const gchar * str)
{
  const gchar *c;

  g_string_append_c (s, '"');
  for (c = str; *c; c++) {
    if (*c == '"' || *c == '\\')
      g_string_append_printf (s, "\\%c", *c);
    else if ((guchar) * c < 0x20)
      g_string_append_printf (s, "\\u%04x", *c);
    else
      g_string_append_c (s, *c);
  }
  g_string_append_c (s, '"');
}

static void
json_dist (GString * s, Dist d)
{
  if (!d.valid) {
    g_string_append (s, "{\"mean\": null, \"p50\": null, \"p95\": null, "
        "\"max\": null}");
    return;
  }
  g_string_append (s, "{\"mean\": ");
  json_num (s, d.mean, "%.3f");
  g_string_append (s, ", \"p50\": ");
  json_num (s, d.p50, "%.3f");
  g_string_append (s, ", \"p95\": ");
  json_num (s, d.p95, "%.3f");
  g_string_append (s, ", \"max\": ");
  json_num (s, d.max, "%.3f");
  g_string_append (s, "}");
}

static gdouble
utilization (Sim * sim)
{
  return sim->util_cap_bits > 0 ?
      sim->acc[0].window_bytes * 8.0 / sim->util_cap_bits : 0;
}

void
sim_write_json (Sim * sim, GString * s)
{
  gdouble jain = 0, mm = 0;
  gboolean fair = fairness (sim, &jain, &mm);
  guint i;

  g_string_append (s, "{\n  \"scenario\": ");
  json_str (s, sim->scen->name);
  g_string_append_printf (s, ",\n  \"seed\": %u,\n  \"duration_s\": ",
      sim->seed);
  json_num (s, (gdouble) sim->end / GST_SECOND, "%.3f");
  g_string_append (s, ",\n  \"link\": {\"utilization\": ");
  json_num (s, utilization (sim), "%.4f");
  g_string_append (s, ", \"qdelay_ms\": ");
  json_dist (s, dist_of (sim->acc[0].qdelay_ms));
  g_string_append (s, "},\n  \"fairness\": {\"jain\": ");
  json_num (s, fair ? jain : NAN, "%.4f");
  g_string_append (s, ", \"min_max_ratio\": ");
  json_num (s, fair ? mm : NAN, "%.4f");
  g_string_append (s, "},\n  \"flows\": [");
  for (i = 0; i < sim->flows->len; i++) {
    SimFlow *f = g_ptr_array_index (sim->flows, i);
    gdouble act = flow_active_s (f), conv = convergence (sim, f);

    g_string_append_printf (s, "%s\n    {\"id\": %u, \"name\": ", i ? "," : "",
        f->id);
    json_str (s, f->cfg->name);
    g_string_append (s, ", \"kind\": ");
    json_str (s, sim_flow_kind_to_string (f->cfg->kind));
    g_string_append (s, ", \"controller\": ");
    json_str (s, flow_controller (f));
    g_string_append (s, ", \"direction\": ");
    json_str (s, f->cfg->reverse ? "reverse" : "forward");
    g_string_append (s, ",\n     \"start_s\": ");
    json_num (s, (gdouble) f->start / GST_SECOND, "%.3f");
    g_string_append (s, ", \"stop_s\": ");
    json_num (s, (gdouble) f->stop / GST_SECOND, "%.3f");
    g_string_append (s, ", \"goodput_kbps\": ");
    json_num (s, kbps (f->goodput_bytes, act), "%.3f");
    g_string_append (s, ", \"send_kbps\": ");
    json_num (s, kbps (f->sent_bytes, act), "%.3f");
    g_string_append (s, ", \"fec_kbps\": ");
    json_num (s, kbps (f->fec_bytes, act), "%.3f");
    g_string_append (s, ",\n     \"qdelay_ms\": ");
    json_dist (s, dist_of (f->qdelay_ms));
    g_string_append (s, ",\n     \"loss_pre\": ");
    json_num (s, loss_of (f), "%.6f");
    /* No FEC yet: nothing is repaired. */
    g_string_append (s, ", \"loss_post\": ");
    json_num (s, loss_of (f), "%.6f");
    g_string_append (s, ", \"convergence_s\": ");
    json_num (s, conv >= 0 ? conv : NAN, "%.3f");
    g_string_append (s, "}");
  }
  g_string_append (s, "\n  ]\n}\n");
}

static void
fmt_dist_cell (GString * s, gdouble v, gboolean valid)
{
  if (valid)
    g_string_append_printf (s, " %8.1f", v);
  else
    g_string_append_printf (s, " %8s", "-");
}

void
sim_write_table (Sim * sim, GString * s)
{
  gdouble jain = 0, mm = 0;
  gboolean fair = fairness (sim, &jain, &mm);
  Dist ld = dist_of (sim->acc[0].qdelay_ms);
  guint i;

  g_string_append_printf (s, "scenario %s, seed %u, %.1f s\n",
      sim->scen->name, sim->seed, (gdouble) sim->end / GST_SECOND);
  g_string_append_printf (s, "link: utilization %.1f %%", 100 *
      utilization (sim));
  if (ld.valid)
    g_string_append_printf (s, ", queueing delay mean %.1f ms, p50 %.1f, "
        "p95 %.1f, max %.1f", ld.mean, ld.p50, ld.p95, ld.max);
  g_string_append (s, "\n");
  if (fair)
    g_string_append_printf (s, "fairness (media flows): Jain %.3f, "
        "min/max %.3f\n", jain, mm);
  else
    g_string_append (s, "fairness: - (fewer than two media flows active "
        "together on the forward link)\n");
  g_string_append_printf (s, "\n%3s %-14s %-5s %-8s %3s %6s %6s %9s %9s %6s "
      "%8s %8s %8s %8s %7s\n", "id", "flow", "kind", "ctrl", "dir", "start",
      "stop", "goodput", "send", "fec", "qd mean", "qd p50", "qd p95",
      "loss", "conv");
  g_string_append_printf (s, "%3s %-14s %-5s %-8s %3s %6s %6s %9s %9s %6s "
      "%8s %8s %8s %8s %7s\n", "", "", "", "", "", "s", "s", "kbit/s",
      "kbit/s", "kbit/s", "ms", "ms", "ms", "%", "s");
  for (i = 0; i < sim->flows->len; i++) {
    SimFlow *f = g_ptr_array_index (sim->flows, i);
    gdouble act = flow_active_s (f), conv = convergence (sim, f);
    Dist d = dist_of (f->qdelay_ms);

    g_string_append_printf (s, "%3u %-14.14s %-5s %-8s %3s %6.1f %6.1f %9.1f "
        "%9.1f %6.1f", f->id, f->cfg->name,
        sim_flow_kind_to_string (f->cfg->kind), flow_controller (f),
        f->cfg->reverse ? "rev" : "fwd", (gdouble) f->start / GST_SECOND,
        (gdouble) f->stop / GST_SECOND, kbps (f->goodput_bytes, act),
        kbps (f->sent_bytes, act), kbps (f->fec_bytes, act));
    fmt_dist_cell (s, d.mean, d.valid);
    fmt_dist_cell (s, d.p50, d.valid);
    fmt_dist_cell (s, d.p95, d.valid);
    g_string_append_printf (s, " %8.3f", 100 * loss_of (f));
    if (conv >= 0)
      g_string_append_printf (s, " %7.1f\n", conv);
    else
      g_string_append_printf (s, " %7s\n", "-");
  }
}

static gboolean
write_file (const gchar * dir, const gchar * name, GString * s,
    GError ** error)
{
  gchar *path = g_build_filename (dir, name, NULL);
  gboolean ok = g_file_set_contents (path, s->str, s->len, error);

  g_free (path);
  return ok;
}

/* Locale-independent, fixed precision: same numbers, same bytes. */
static void
csv_fmt (GString * s, const gchar * fmt, gdouble v, gboolean comma)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
  if (comma)
    g_string_append_c (s, ',');
  g_string_append (s, g_ascii_formatd (buf, sizeof buf, fmt, v));
}

static void
csv_num (GString * s, gdouble v)
{
  csv_fmt (s, "%.3f", v, TRUE);
}

gboolean
sim_write_csv (Sim * sim, const gchar * dir, GError ** error)
{
  GString *s = g_string_new (NULL);
  gdouble bin_s = (gdouble) SIM_BIN / GST_SECOND;
  guint i, b, k;
  gboolean ok;

  if (g_mkdir_with_parents (dir, 0755) < 0) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "%s: %s", dir, g_strerror (errno));
    g_string_free (s, TRUE);
    return FALSE;
  }

  g_string_append (s, "t_s,capacity_kbps,reverse_capacity_kbps,link_kbps,"
      "link_qdelay_ms,queue_ms,reverse_link_kbps,reverse_queue_ms\n");
  for (b = 0; b < sim->n_bins; b++) {
    LinkAcc *f = &sim->acc[0], *r = &sim->acc[1];
    csv_fmt (s, "%.1f", b * bin_s, FALSE);
    csv_num (s, f->cap_bps[b] / 1000);
    csv_num (s, sim->scen->has_reverse ? r->cap_bps[b] / 1000 : 0);
    csv_num (s, f->bytes[b] * 8.0 / bin_s / 1000);
    csv_num (s, f->qd_n[b] ? f->qd_sum_ms[b] / f->qd_n[b] : 0);
    csv_num (s, f->queue_ms[b]);
    csv_num (s, r->bytes[b] * 8.0 / bin_s / 1000);
    csv_num (s, r->queue_ms[b]);
    g_string_append_c (s, '\n');
  }
  ok = write_file (dir, "capacity.csv", s, error);

  g_string_truncate (s, 0);
  g_string_append (s, "id,name,kind,controller,direction,start_s,stop_s\n");
  for (i = 0; ok && i < sim->flows->len; i++) {
    SimFlow *f = g_ptr_array_index (sim->flows, i);
    g_string_append_printf (s, "%u,%s,%s,%s,%s", f->id,
        f->cfg->name, sim_flow_kind_to_string (f->cfg->kind),
        flow_controller (f), f->cfg->reverse ? "reverse" : "forward");
    csv_num (s, (gdouble) f->start / GST_SECOND);
    csv_num (s, (gdouble) f->stop / GST_SECOND);
    g_string_append_c (s, '\n');
  }
  ok = ok && write_file (dir, "flows.csv", s, error);

  for (i = 0; ok && i < sim->flows->len; i++) {
    SimFlow *f = g_ptr_array_index (sim->flows, i);
    gchar *name = g_strdup_printf ("flow-%u.csv", f->id);

    g_string_truncate (s, 0);
    g_string_append (s, "t_s,active,send_kbps,goodput_kbps,fec_kbps,"
        "fair_share_kbps,qdelay_ms,qdelay_max_ms,loss");
    if (f->media) {
      g_string_append (s, ",target_kbps,encoder_kbps,pacing_kbps");
      for (k = 0; k < f->media->stat_names->len; k++)
        g_string_append_printf (s, ",%s",
            (gchar *) g_ptr_array_index (f->media->stat_names, k));
    } else if (f->tcp) {
      g_string_append (s, ",cwnd_segments,srtt_ms");
    }
    g_string_append_c (s, '\n');
    for (b = 0; b < sim->n_bins; b++) {
      SimBin *bn = &f->bins[b];
      guint32 known = bn->delivered_pkts + bn->lost_pkts;

      csv_fmt (s, "%.1f", b * bin_s, FALSE);
      g_string_append_printf (s, ",%d", bn->active ? 1 : 0);
      csv_num (s, bn->sent_bytes * 8.0 / bin_s / 1000);
      csv_num (s, bn->goodput_bytes * 8.0 / bin_s / 1000);
      csv_num (s, bn->fec_bytes * 8.0 / bin_s / 1000);
      csv_num (s, fair_share (sim, f, b) / 1000);
      csv_num (s, bn->delivered_pkts ? bn->qd_sum_ms / bn->delivered_pkts : 0);
      csv_num (s, bn->qd_max_ms);
      csv_fmt (s, "%.4f", known ? (gdouble) bn->lost_pkts / known : 0.0,
          TRUE);
      if (f->media) {
        csv_num (s, bn->target_bps / 1000);
        csv_num (s, bn->encoder_bps / 1000);
        csv_num (s, bn->pacing_bps / 1000);
        if (f->media->stat_names->len) {
          g_string_append_c (s, ',');
          if (bn->stats)
            g_string_append (s, bn->stats);
          else
            for (k = 1; k < f->media->stat_names->len; k++)
              g_string_append_c (s, ',');
        }
      } else if (f->tcp) {
        csv_num (s, bn->cwnd);
        csv_num (s, bn->srtt_ms);
      }
      g_string_append_c (s, '\n');
    }
    ok = write_file (dir, name, s, error);
    g_free (name);
  }
  g_string_free (s, TRUE);
  return ok;
}
