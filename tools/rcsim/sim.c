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
 * them at the feedback's arrival, one message per frame as rtpbin sends
 * them (feedback-messages). Sender and receiver also exchange RTCP
 * reports like a stock rtpbin pair (RFC 3550 sec. 6): an SR each way, an RR
 * back, every `rtcp-interval` randomized over [0.5, 1.5] of it (sec. 6.3.1);
 * the RR is a real compound packet that rc-rtcp parses at the sender, with
 * fraction lost, cumulative loss, extended highest sequence number, jitter
 * (appendix A.8, on the frames' capture times) and LSR/DLSR. The session
 * uses it only while per-packet feedback is stale, as the element does, or
 * always with `feedback=rtcp`. The session is polled after everything it
 * is told and at the times it asks for (its controller tick).
 *
 * FEC: with an fecenc in the flow (the `fec` key, not none) every media
 * packet is a real RTP packet; media_protect() runs the core encoder fecenc
 * runs (gst/rc-fec-enc.c) on them, with fecenc's probe arithmetic on the
 * FEC rate the session asks for, and its repair packets (SIM_PKT_FEC, FEC
 * bytes in the metrics, pushed as RC_SENDER_ITEM_FEC, fed back like media)
 * cross the link; at the receiver the core decoder fecdec runs
 * (gst/rc-fec-dec.c) rebuilds what it can (loss_post), and each rebuilt
 * packet is checked byte for byte against the one that was lost. */
#include <math.h>
#include <string.h>
#include <gst/rtp/gstrtcpbuffer.h>
#include "sim-private.h"
#include "rc-rtcp.h"
#include "rc-receiver.h"
#include "rc-fec-enc.h"
#include "rc-fec-dec.h"

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
  gboolean is_fec;
  guint64 frame;                /* media: its frame slot */
} SentRecord;

/* A media RTP packet made while FEC is on, by its index (its sequence
 * number unwrapped): what rebuilds it byte for byte (media_rtp_new), and
 * its transport seq once sent. */
typedef struct
{
  guint64 tseq;                 /* G_MAXUINT64: not sent (yet) */
  GstClockTime capture;
  guint size;
  gboolean marker;
} RtpRecord;

struct _MediaState
{
  RcSender *sender;             /* items: SimPkt */
  GstClockTime wake_at;         /* pending media_wake, NONE if none */
  GArray *sent_log;             /* SentRecord by send index */
  GArray *actions;              /* scratch: RcSenderAction */
  gdouble enc_target;           /* the encoder's target, from the session */
  /* fecenc (NULL with fec=none): the core encoder, its probe arithmetic
   * and its overhead now (percent of media packets) */
  RcFecEncoder *fenc;
  RcFecProbe fprobe;
  gdouble fec_ovh;
  GPtrArray *fec_out;           /* scratch: repair / rebuilt packets */
  GArray *rtp_log;              /* RtpRecord by media RTP index */
  gboolean seen_fec;            /* as urcpsender: once repair packets are
                                 * made, no selective transmission */
  GByteArray *rx_got;           /* receiver: 1 per transport seq that
                                 * arrived */
  /* receiver: fecdec's core decoder, the highest media RTP index that
   * arrived (to unwrap a rebuilt packet's seqnum), and 1 per transport
   * seq the decoder rebuilt */
  RcFecDecoder *fdec;
  guint64 rx_rtp_high;
  GByteArray *rx_rebuilt;
  SimEncoder *enc;
  gboolean was_paused;
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
  RcReceiver *rx;               /* rcreceiver's measurements, if on */
  gboolean adapt_rtcp;          /* RR interval by rx (Algorithm 1) */
  /* the sender's answer to the receiver's RRTR (RFC 3611 sec. 4.5), as
   * urcpsender gives it */
  guint32 rrtr_lrr;
  GstClockTime rrtr_at;         /* NONE: no RRTR to answer */
};

struct _Sim
{
  const SimScenario *scen;
  guint32 seed;
  GstClockTime now, end;
  GArray *heap;
  guint64 ev_seq, n_events;
  RcLink *links[2];             /* forward, reverse */
  GPtrArray *flows;
  guint n_bins;
  SimMetrics *metrics;
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
  if (p->rtp)
    gst_buffer_unref (p->rtp);
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

static SimMetricsKind
metrics_kind (SimPktKind k)
{
  switch (k) {
    case SIM_PKT_MEDIA:
      return SIM_METRICS_MEDIA;
    case SIM_PKT_FEC:
      return SIM_METRICS_FEC;
    case SIM_PKT_TCP_DATA:
      return SIM_METRICS_TCP;
    case SIM_PKT_CBR:
      return SIM_METRICS_CBR;
    case SIM_PKT_FEEDBACK:
    case SIM_PKT_TCP_ACK:
    case SIM_PKT_RTCP_SR:
    case SIM_PKT_RTCP_RR:
      break;
  }
  return SIM_METRICS_CONTROL;
}

/* The packet as the metrics see it, on link `l`, entered at `entry`. */
static SimMetricsPacket
metrics_packet (SimPkt * p, guint l, GstClockTime entry)
{
  SimMetricsPacket r = { 0 };

  r.link = l == 0 ? SIM_LINK_FORWARD : SIM_LINK_REVERSE;
  r.flow = p->flow->id;
  r.kind = metrics_kind (p->kind);
  r.size = p->wire_size;
  r.entry = entry;
  /* rcsim's encoder is instant: a frame is captured when it is encoded */
  r.has_capture = p->kind == SIM_PKT_MEDIA;
  r.capture = p->queued;
  return r;
}

gboolean
sim_send (Sim * sim, SimPkt * p)
{
  SimFlow *f = p->flow;
  gboolean fwd = is_forward (p);
  RcLink *l = fwd ? f->data_link : f->ret_link;
  guint idx = fwd ? f->data_idx : f->ret_idx;
  SimMetricsPacket r = metrics_packet (p, l == sim->links[0] ? 0 : 1,
      sim->now);

  p->sent = sim->now;
  sim_metrics_enter (sim->metrics, &r);
  if (!rc_link_enqueue (l, idx, p->wire_size, p, sim->now)) {
    r.fate = SIM_FATE_DROPPED;
    sim_metrics_leave (sim->metrics, &r);
    sim_pkt_free (p);
    return FALSE;
  }
  return TRUE;
}

/* -------------------------------------------------------------- media */

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

/* What fecenc does with urcpsender's probe event (gstfecenc.c
 * handle_probe_event): the FEC rate becomes an overhead over the media
 * rate it measures; a request, 0 included, replaces a fixed overhead. */
static void
media_fec_overhead (MediaState * m, gdouble ovh)
{
  m->fec_ovh = ovh;
  rc_fec_encoder_set_overhead (m->fenc, ovh);
}

static void
media_fec_request (MediaState * m, guint64 bps)
{
  gdouble ovh;

  if (m->fenc && rc_fec_probe_set_bitrate (&m->fprobe,
          (guint) MIN (bps, G_MAXUINT), m->fec_ovh, &ovh, NULL))
    media_fec_overhead (m, ovh);
}

/* Whether repair packets are being made (see media_protect). */
static gboolean
fec_active (SimFlow * f)
{
  return f->media->fenc && f->media->fec_ovh > 0;
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
    SentRecord rec = { sim->now, p->rtp_size, p->kind == SIM_PKT_FEC,
      p->frame
    };

    g_assert (index == m->sent_log->len);
    p->seq = index;
    g_array_append_val (m->sent_log, rec);
    if (p->kind == SIM_PKT_MEDIA && p->rtp)
      g_array_index (m->rtp_log, RtpRecord, p->rtp_index).tseq = index;
    sim_send (sim, p);
  }
  g_array_set_size (m->actions, 0);
  next = rc_sender_poll (m->sender, sim->now, m->actions);
  for (i = 0; i < m->actions->len; i++) {
    RcSenderAction *a = &g_array_index (m->actions, RcSenderAction, i);
    if (a->kind == RC_SENDER_SET_ENCODER)
      m->enc_target = a->bps;
    else if (a->kind == RC_SENDER_SET_FEC)
      media_fec_request (m, a->bps);
    /* RC_SENDER_WARN_NO_FEEDBACK and the circuit breaker's actions: nobody
     * to tell (the stats and the log's target lines show them). */
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

static GstClockTime
receiver_clock (SimFlow * f, GstClockTime t)
{
  gint64 skew = llround ((gdouble) t * f->cfg->clock_skew_ppm * 1e-6);

  /* skew > -1e6 ppm, so this never goes below the offset. */
  return (GstClockTime) ((gint64) (t + f->cfg->clock_offset) + skew);
}

/* One flag byte per index, grown with zeros. */
static void
byte_array_mark (GByteArray * a, guint64 i)
{
  if (a->len <= i) {
    guint old = a->len;
    g_byte_array_set_size (a, i + 1 + 1024);
    memset (a->data + old, 0, a->len - old);
  }
  a->data[i] = 1;
}

static gboolean
byte_array_get (GByteArray * a, guint64 i)
{
  return i < a->len && a->data[i];
}

/* With an fecenc in the flow, each media packet is an RTP packet: the
 * transport-wide-cc one-byte extension (RTP_OVERHEAD counts it) and a
 * payload that is a function of the flow and the index alone, so the
 * receiver can build it again to check a rebuilt one. */
#define MEDIA_PT 96
#define FEC_PT 100              /* fecenc's and fecdec's default */
#define FEC_SSRC_BASE 0x6000
#define TWCC_EXT_ID 1

static GstBuffer *
media_rtp_new (SimFlow * f, guint64 index, const RtpRecord * r)
{
  guint payload = r->size - RTP_OVERHEAD, i;
  GstBuffer *buf = gst_rtp_buffer_new_allocate (payload, 0, 0);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint8 twcc[2] = { 0, 0 }, *d;
  /* splitmix64 (Steele et al., 2014) on the flow and the index */
  guint64 x = ((guint64) f->id << 48) ^ index;

  gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_ssrc (&rtp, SSRC_BASE + f->id);
  gst_rtp_buffer_set_seq (&rtp, (guint16) index);
  gst_rtp_buffer_set_timestamp (&rtp, (guint32) gst_util_uint64_scale
      (r->capture, RTP_CLOCK_RATE, GST_SECOND));
  gst_rtp_buffer_set_payload_type (&rtp, MEDIA_PT);
  gst_rtp_buffer_set_marker (&rtp, r->marker);
  gst_rtp_buffer_add_extension_onebyte_header (&rtp, TWCC_EXT_ID, twcc, 2);
  d = gst_rtp_buffer_get_payload (&rtp);
  for (i = 0; i < payload; i++) {
    if (i % 8 == 0) {
      guint64 z = (x += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      x ^= z ^ (z >> 31);
    }
    d[i] = (guint8) (x >> (8 * (i % 8)));
  }
  gst_rtp_buffer_unmap (&rtp);
  g_assert (gst_buffer_get_size (buf) == r->size);
  return buf;
}

/* fecenc before the session: each media packet of the frame goes through
 * the core encoder (its rate meter and the probe's overhead updated as
 * gst_fec_enc_chain does), and the repair packets it lets out follow the
 * media packet that closed their group. */
static void
media_protect (Sim * sim, SimFlow * f, GQueue * frame_pkts)
{
  MediaState *m = f->media;
  GList *l;
  guint i;

  if (!m->fenc)
    return;
  for (l = frame_pkts->head; l; l = l->next) {
    SimPkt *p = l->data;
    RcFecEncoderStats before, after;
    gdouble ovh;

    rc_fec_encoder_get_stats (m->fenc, &before);
    rc_fec_encoder_push (m->fenc, &p->rtp, m->fec_out);
    rc_fec_encoder_get_stats (m->fenc, &after);
    rc_fec_probe_add_media (&m->fprobe, sim->now,
        after.media_bytes - before.media_bytes);
    if (rc_fec_probe_update (&m->fprobe, sim->now, m->fec_ovh, &ovh, NULL))
      media_fec_overhead (m, ovh);
    for (i = 0; i < m->fec_out->len; i++) {
      GstBuffer *b = g_ptr_array_index (m->fec_out, i);
      guint size = gst_buffer_get_size (b);
      SimPkt *r = sim_pkt_new (f, SIM_PKT_FEC, size + f->data_overhead);

      r->rtp = b;
      r->rtp_size = size;
      r->frame = p->frame;
      r->queued = sim->now;
      g_queue_insert_after (frame_pkts, l, r);
      l = l->next;
    }
    g_ptr_array_set_size (m->fec_out, 0);
  }
}

/* fecdec at the receiver: every media and repair packet that arrives goes
 * to the core decoder; a packet it rebuilds must be the one that was lost,
 * byte for byte (anything else is a decoder bug: rcsim stops). */
static void
media_fec_receive (Sim * sim, SimFlow * f, SimPkt * p)
{
  MediaState *m = f->media;
  GstClockTime now = receiver_clock (f, sim->now);
  guint i;

  if (p->kind == SIM_PKT_FEC) {
    rc_fec_decoder_push_fec (m->fdec, p->rtp, now, m->fec_out);
  } else {
    m->rx_rtp_high = MAX (m->rx_rtp_high, p->rtp_index);
    rc_fec_decoder_push_media (m->fdec, p->rtp, now, m->fec_out);
  }
  for (i = 0; i < m->fec_out->len; i++) {
    GstBuffer *got = g_ptr_array_index (m->fec_out, i);
    guint16 seq = 0;
    gint64 index;
    const RtpRecord *r;
    GstBuffer *want;
    GstMapInfo map;
    gboolean same;

    if (gst_buffer_extract (got, 2, &seq, 2) == 2)
      seq = GUINT16_FROM_BE (seq);
    index = (gint64) m->rx_rtp_high + (gint16) (seq - (guint16) m->rx_rtp_high);
    if (index < 0 || index >= m->rtp_log->len)
      g_error ("flow %u: FEC rebuilt seq %u, which was never sent", f->id,
          seq);
    r = &g_array_index (m->rtp_log, RtpRecord, index);
    want = media_rtp_new (f, index, r);
    gst_buffer_map (want, &map, GST_MAP_READ);
    same = gst_buffer_get_size (got) == map.size &&
        gst_buffer_memcmp (got, 0, map.data, map.size) == 0;
    gst_buffer_unmap (want, &map);
    gst_buffer_unref (want);
    if (!same)
      g_error ("flow %u: FEC rebuilt packet %" G_GINT64_FORMAT " wrong",
          f->id, index);
    /* A packet the circuit breaker refused was never on the wire. */
    if (r->tseq != G_MAXUINT64)
      byte_array_mark (m->rx_rebuilt, r->tseq);
    gst_buffer_unref (got);
  }
  g_ptr_array_set_size (m->fec_out, 0);
}

/* Media packets of `f` the decoder rebuilt. */
static guint64
sim_fec_repaired (Sim * sim, SimFlow * f)
{
  MediaState *m = f->media;
  guint64 repaired = 0, i;

  for (i = 0; i < m->rx_rebuilt->len; i++)
    repaired += m->rx_rebuilt->data[i];
  return repaired;
}

/* Frames FEC made whole (the FRACTaL paper's FFRE, "FEC Frame Recovery
 * Efficiency", its ref. [20]; our reading: of the frames that lost a media
 * packet, the share whose every lost packet the decoder rebuilt). */
static void
sim_fec_frames (Sim * sim, SimFlow * f, guint64 * hit, guint64 * recovered)
{
  MediaState *m = f->media;
  guint64 i, frame = G_MAXUINT64;
  gboolean lost = FALSE, unrepaired = FALSE;

  *hit = *recovered = 0;
  /* A frame's media packets leave in order (the pacer keeps it). */
  for (i = 0; i <= m->sent_log->len; i++) {
    const SentRecord *r = i < m->sent_log->len ?
        &g_array_index (m->sent_log, SentRecord, i) : NULL;

    if (r && r->is_fec)
      continue;
    if (!r || r->frame != frame) {
      if (lost) {
        (*hit)++;
        if (!unrepaired)
          (*recovered)++;
      }
      if (!r)
        break;
      frame = r->frame;
      lost = unrepaired = FALSE;
    }
    if (!byte_array_get (m->rx_got, i)) {
      lost = TRUE;
      if (!byte_array_get (m->rx_rebuilt, i))
        unrepaired = TRUE;
    }
  }
}

/* Two temporal layers: the upper layer's share of the bytes (vp8enc 1.22
 * on a moving test pattern: 395 of 1000 kbit/s, 603 of 1504). */
#define TL1_SHARE 0.4

static void
media_frame (Sim * sim, gpointer obj, guint64 n)
{
  SimFlow *f = obj;
  MediaState *m = f->media;
  const SimFlowConfig *c = f->cfg;
  GstClockTime t = sim->now;
  gboolean key, droppable = FALSE;
  GQueue frame = G_QUEUE_INIT;
  guint size, left;
  GstClockTime next;

  if (t >= f->stop)
    return;
  next = f->start + gst_util_uint64_scale_round (n + 1, GST_SECOND * 1000,
      (guint64) llround (c->fps * 1000));
  sim_schedule (sim, next, media_frame, f, n + 1);

  if (sim_flow_paused (f->cfg, t)) {
    m->was_paused = TRUE;
    return;
  }

  /* The encoder model (encoder.c) on the session's target; a source that
   * cannot fill it (app-limit) aims lower. */
  {
    gdouble target = m->enc_target, lim = media_app_limit (f, t);
    if (lim > 0)
      target = MIN (target, lim);
    size = sim_encoder_frame (m->enc, t, target, m->was_paused, &key);
  }
  m->was_paused = FALSE;
  if (size == 0)
    return;                     /* the encoder dropped the frame */
  if (c->temporal_layers == 2 && !key) {
    /* vp8enc with two layers (urcpsender temporal-layers=2), measured on
     * 1.22 (docs/r3cp.md): the odd frames, non-reference, carry 40 % of
     * the bytes. The model's frame, sized for one layer, is split so. */
    droppable = n % 2 == 1;
    size = (guint) MAX (1, size * (droppable ? TL1_SHARE : 1 - TL1_SHARE)
        * 2);
  }
  m->seen_fec = m->seen_fec || fec_active (f);

  /* Packetize: full packets, the remainder last (like rtp*pay). */
  for (left = size; left > 0;) {
    guint payload = MIN (left, c->mtu_payload);
    RcFrameInfo fi = { left == size, droppable };
    SimPkt *p;

    /* Selective transmission, as urcpsender: a dropped frame makes no
     * packets, so the sequence numbers stay gapless. */
    if (c->temporal_layers == 2 && !m->seen_fec &&
        !rc_sender_select (m->sender, &fi, payload + RTP_OVERHEAD, t)) {
      left -= payload;
      continue;
    }
    p = sim_pkt_new (f, SIM_PKT_MEDIA, payload + RTP_OVERHEAD +
        f->data_overhead);
    p->frame = n;
    p->rtp_size = payload + RTP_OVERHEAD;
    p->queued = t;
    left -= payload;
    if (m->fenc) {
      RtpRecord r = { G_MAXUINT64, t, p->rtp_size, left == 0 };
      p->rtp_index = m->rtp_log->len;
      g_array_append_val (m->rtp_log, r);
      p->rtp = media_rtp_new (f, p->rtp_index, &r);
    }
    g_queue_push_tail (&frame, p);
  }
  media_protect (sim, f, &frame);

  while (!g_queue_is_empty (&frame)) {
    SimPkt *p = g_queue_pop_head (&frame);
    RcSenderItemKind kind = p->kind == SIM_PKT_FEC ?
        RC_SENDER_ITEM_FEC : RC_SENDER_ITEM_MEDIA;
    /* As urcpsender does: the circuit breaker may refuse it. */
    if (!rc_sender_admit (m->sender, p->rtp_size, kind, t)) {
      sim_pkt_free (p);
      continue;
    }
    rc_sender_push (m->sender, p, p->rtp_size, kind, t);
  }
  media_service (sim, f);
}

static void
media_receive (Sim * sim, SimFlow * f, SimPkt * p)
{
  MediaState *m = f->media;
  RcPacketResult r = { 0 };

  r.pt = -1;                    /* rcsim's packets carry no payload type */
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
  byte_array_mark (m->rx_got, p->seq);
  if (m->fdec && p->rtp)
    media_fec_receive (sim, f, p);
  if (m->rx)
    /* as rcreceiver sees it at the jitterbuffer: the transport index as
     * the sequence number, the pacer entry as the capture time */
    rc_receiver_on_packet (m->rx, SSRC_BASE + f->id, (guint16) p->seq,
        (guint32) gst_util_uint64_scale (p->queued, RTP_CLOCK_RATE,
            GST_SECOND), p->rtp_size > RTP_OVERHEAD ?
        p->rtp_size - RTP_OVERHEAD : 0, receiver_clock (f, sim->now));
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
  RcPacketResult *res = (RcPacketResult *) p->results->data;
  guint i, first = 0;
  guint64 frame = G_MAXUINT64;

  /* The sender's record of what it sent completes each result, as
   * rtpsession's TWCC manager does before it emits RTPTWCCPackets. A stock
   * rtpbin receiver closes a transport-wide feedback message at each
   * marker-bit packet, one per frame, and sends the messages it has at
   * each RTCP time, back to back (docs/urcpsender.md, "Feedback plumbing"):
   * the sender gets them one after another at the same instant, each
   * holding one frame's packets, and its session gathers them
   * (feedback-gather-ms). feedback-messages=interval delivers the packet's
   * results as one message. */
  for (i = 0; i < p->results->len; i++) {
    RcPacketResult *r = &res[i];
    guint64 fr = G_MAXUINT64;
    if (r->seq < m->sent_log->len) {
      SentRecord *s = &g_array_index (m->sent_log, SentRecord, r->seq);
      r->send_ts = s->ts;
      r->size = s->size;
      r->is_fec = s->is_fec;
      fr = s->frame;
    }
    if (f->cfg->feedback_per_frame && i > first && fr != frame) {
      rc_sender_on_packet_results (m->sender, res + first, i - first,
          sim->now);
      first = i;
    }
    frame = fr;
  }
  if (p->results->len > first)
    rc_sender_on_packet_results (m->sender, res + first,
        p->results->len - first, sim->now);
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
  if (GST_CLOCK_TIME_IS_VALID (f->media->rrtr_at)) {
    /* a DLRR in the SR's compound */
    MediaState *m = f->media;
    GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
    RcReportBlock b = { 0 };
    b.kind = RC_REPORT_DLRR;
    b.media_ssrc = SSRC_BASE + 0x1000 + f->id;
    b.dlrr.lrr = m->rrtr_lrr;
    b.dlrr.dlrr = (guint32) gst_util_uint64_scale (sim->now - m->rrtr_at,
        65536, GST_SECOND);
    p->rtcp = gst_rtcp_buffer_new (1400);
    gst_rtcp_buffer_map (p->rtcp, GST_MAP_READWRITE, &rtcp);
    rc_rtcp_write_xr (&rtcp, SSRC_BASE + f->id, &b, 1);
    p->wire_size += rtcp.map.size;
    gst_rtcp_buffer_unmap (&rtcp);
    m->rrtr_at = GST_CLOCK_TIME_NONE;
  }
  sim_send (sim, p);
  sim_schedule (sim, sim->now + rtcp_next (f), media_send_sr, f, 0);
}

static void
media_sr_arrive (Sim * sim, SimFlow * f, SimPkt * p)
{
  MediaState *m = f->media;

  m->lsr = (guint32) p->seq;
  m->sr_arrival = sim->now;
  if (!p->rtcp || !m->rx)
    return;
  /* the DLRR: an RTT on the receiver's clock, as rcreceiver measures it */
  g_array_set_size (m->reports, 0);
  rc_rtcp_parse (p->rtcp, ntp_short_at (receiver_clock (f, sim->now)),
      RTP_CLOCK_RATE, m->reports, NULL);
  rc_receiver_on_reports (m->rx, SSRC_BASE + 0x1000 + f->id,
      (RcReportBlock *) m->reports->data, m->reports->len);
}

/* The next RR: Algorithm 1's interval with rcreceiver, randomised as
 * rtpsession does (RFC 3550 sec. 6.3.1), or the scenario's. */
static GstClockTime
rr_next (SimFlow * f)
{
  MediaState *m = f->media;

  if (!m->adapt_rtcp)
    return rtcp_next (f);
  return (GstClockTime) (rc_receiver_interval (m->rx) *
      g_rand_double_range (m->rtcp_rand, 0.5, 1.5));
}

/* rcreceiver's blocks for the interval since the last RR, into `rtcp`
 * after the RR (NULL: an interval with nothing to report on); returns the
 * bytes added. */
static guint
add_receiver_blocks (Sim * sim, SimFlow * f, GstRTCPBuffer * rtcp)
{
  MediaState *m = f->media;
  GArray *blocks = g_array_new (FALSE, TRUE, sizeof (RcReportBlock));
  guint before = rtcp ? rtcp->map.size : 0;

  rc_receiver_report (m->rx, receiver_clock (f, sim->now), 0, blocks);
  if (rtcp)
    rc_rtcp_write_blocks (rtcp, SSRC_BASE + 0x1000 + f->id,
        (RcReportBlock *) blocks->data, blocks->len);
  g_array_unref (blocks);
  return rtcp ? rtcp->map.size - before : 0;
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
  if (m->rx_received == 0) {
    /* nothing received: no report block (Algorithm 1 line 17) */
    if (m->rx)
      add_receiver_blocks (sim, f, NULL);
    sim_schedule (sim, sim->now + rr_next (f), media_send_rr, f, 0);
    return;
  }
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
  if (m->rx)
    p->wire_size += add_receiver_blocks (sim, f, &rtcp);
  gst_rtcp_buffer_unmap (&rtcp);
  sim_send (sim, p);
  sim_schedule (sim, sim->now + rr_next (f), media_send_rr, f, 0);
}

static void
media_rr_arrive (Sim * sim, SimFlow * f, SimPkt * p)
{
  MediaState *m = f->media;
  guint i;

  g_array_set_size (m->reports, 0);
  rc_rtcp_parse (p->rtcp, ntp_short_at (sim->now), RTP_CLOCK_RATE,
      m->reports, NULL);
  if (m->reports->len == 0)
    return;
  for (i = 0; i < m->reports->len; i++) {
    RcReportBlock *b = &g_array_index (m->reports, RcReportBlock, i);
    if (b->kind == RC_REPORT_RRTR) {
      m->rrtr_lrr = rc_rtcp_ntp_short (b->rrtr.ntp);
      m->rrtr_at = sim->now;
    }
  }
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
  m->enc_target = rc_sender_get_target (m->sender);
  m->rx_got = g_byte_array_new ();
  m->rx_rebuilt = g_byte_array_new ();
  m->fec_out = g_ptr_array_new ();
  m->rtp_log = g_array_new (FALSE, FALSE, sizeof (RtpRecord));
  if (f->cfg->fec_overhead >= 0) {
    /* fecenc's defaults (row groups, flexfec), the transport-wide-cc
     * extension on its repair packets as fecenc adds it from the caps,
     * and the fixed overhead, if any, until the session asks for a rate;
     * fecdec's at the receiver. */
    RcFecEncoderConfig ec;
    RcFecDecoderConfig dc;

    rc_fec_encoder_config_init (&ec);
    ec.format = RC_FEC_FORMAT_FLEXFEC;
    ec.mode = RC_FEC_MODE_ROW;
    ec.overhead = m->fec_ovh = f->cfg->fec_overhead;
    ec.pt = FEC_PT;
    ec.ssrc = FEC_SSRC_BASE + f->id;
    ec.ext_id = TWCC_EXT_ID;
    ec.ext_len = 2;
    m->fenc = rc_fec_encoder_new (&ec);
    rc_fec_probe_init (&m->fprobe);
    rc_fec_decoder_config_init (&dc);
    dc.format = RC_FEC_FORMAT_FLEXFEC;
    dc.pt = FEC_PT;
    dc.match_fec_ssrc = dc.match_media_ssrc = TRUE;
    dc.fec_ssrc = ec.ssrc;
    dc.media_ssrc = SSRC_BASE + f->id;
    m->fdec = rc_fec_decoder_new (&dc);
  }
  m->enc = sim_encoder_new (&f->cfg->encoder, f->rand, m->enc_target);
  m->stat_names = g_ptr_array_new_with_free_func (g_free);
  m->reports = g_array_new (FALSE, FALSE, sizeof (RcReportBlock));
  m->rtcp_rand = g_rand_new_with_seed (derive_seed (sim->seed, 0x100 + f->id,
          2));
  m->sr_arrival = GST_CLOCK_TIME_NONE;
  m->rrtr_at = GST_CLOCK_TIME_NONE;
  if (f->cfg->receiver_reports > 0 || (f->cfg->receiver_reports < 0 &&
          f->cfg->sender.controller->receiver_assisted)) {
    RcReceiverConfig rc;
    rc_receiver_config_init (&rc);
    rc.latency = f->cfg->playout_latency;
    rc.clock_rate = RTP_CLOCK_RATE;
    m->adapt_rtcp = f->cfg->adapt_rtcp_interval != 0;
    rc.adapt_interval = m->adapt_rtcp;
    rc.r3cp = f->cfg->sender.controller->receiver_requests;
    rc_r3cp_config_init (&rc.r3cp_cfg);
    rc.r3cp_cfg.min_bps = f->cfg->sender.limits.min_bps;
    rc.r3cp_cfg.start_bps = f->cfg->sender.limits.start_bps;
    rc.r3cp_cfg.max_bps = f->cfg->sender.limits.max_bps;
    rc.r3cp_cfg.packet_bytes = f->cfg->mtu_payload + RTP_OVERHEAD;
    /* R^3CP^+ sets its period itself */
    m->adapt_rtcp = m->adapt_rtcp || rc.r3cp;
    m->rx = rc_receiver_new (&rc);
  }
  rc_sender_set_ssrc (m->sender, SSRC_BASE + f->id);
  if (f->start >= f->stop)
    return;
  sim_schedule (sim, f->start, media_frame, f, 0);
  if (f->cfg->twcc)
    sim_schedule (sim, f->start + f->cfg->feedback_interval, media_feedback,
        f, 0);
  sim_schedule (sim, f->start + rtcp_next (f), media_send_sr, f, 0);
  sim_schedule (sim, f->start + rr_next (f), media_send_rr, f, 0);
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
  g_byte_array_unref (m->rx_got);
  g_byte_array_unref (m->rx_rebuilt);
  g_ptr_array_unref (m->fec_out);
  g_array_unref (m->rtp_log);
  if (m->fenc) {
    rc_fec_encoder_free (m->fenc);
    rc_fec_probe_clear (&m->fprobe);
    rc_fec_decoder_free (m->fdec);
  }
  g_array_unref (m->actions);
  g_array_unref (m->pending);
  g_array_unref (m->reports);
  g_rand_free (m->rtcp_rand);
  rc_receiver_free (m->rx);
  sim_encoder_free (m->enc);
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
  return f->cfg->kind != SIM_FLOW_MEDIA || !sim_flow_paused (f->cfg, t);
}

static void
sample (Sim * sim, gpointer obj, guint64 b)
{
  guint i, l;

  for (i = 0; i < sim->flows->len; i++) {
    SimFlow *f = g_ptr_array_index (sim->flows, i);
    SimMetricsSample s = { 0 };
    GstStructure *st = NULL;

    s.active = flow_active (f, sim->now);
    if (f->media && sim->now >= f->start && sim->now < f->stop) {
      /* What urcpsender's target-bitrate shows and the real runners log:
       * the target handed to the encoder, not every decision. */
      s.target_bps = rc_sender_get_target (f->media->sender);
      s.pacing_bps = rc_sender_get_pacing_rate (f->media->sender);
      s.encoder_bps = sim_encoder_rate (f->media->enc);
      s.stats = st = rc_sender_get_stats (f->media->sender, sim->now);
    } else if (f->tcp) {
      sim_tcp_sample (f, &s);
    }
    sim_metrics_sample (sim->metrics, i, (guint) b, &s);
    if (st)
      gst_structure_free (st);
  }
  for (l = 0; l < 2; l++)
    sim_metrics_sample_queue (sim->metrics, l, (guint) b,
        rc_link_queue_delay (sim->links[l], sim->now));
  if (b + 1 < sim->n_bins)
    sim_schedule (sim, (b + 1) * SIM_BIN, sample, NULL, b + 1);
}

/* -------------------------------------------------------------- links */

static void
deliver (Sim * sim, guint l, RcLinkPacket * out)
{
  SimPkt *p = out->data;
  SimFlow *f = p->flow;
  SimMetricsPacket r = metrics_packet (p, l, out->enqueued);

  /* The metrics count a packet's own serialization as queueing delay, at
   * the end of its slot, whatever the link's delivery (docs/metrics.md);
   * with start-of-slot it still reaches its receiver at out->arrival. */
  r.departed = out->departed + out->slot;
  if (out->lost) {
    r.fate = SIM_FATE_LOST;
    sim_metrics_leave (sim->metrics, &r);
    sim_pkt_free (p);
    return;
  }
  r.fate = SIM_FATE_DELIVERED;
  r.arrival = out->arrival + out->slot;
  /* Goodput: media and CBR packets, and a TCP segment the first time it
   * arrives, which its receiver tells. */
  if (p->kind == SIM_PKT_TCP_DATA)
    r.goodput = sim_tcp_on_data (sim, f, p);
  else
    r.goodput = p->kind == SIM_PKT_MEDIA || p->kind == SIM_PKT_CBR;
  sim_metrics_leave (sim->metrics, &r);

  switch (p->kind) {
    case SIM_PKT_MEDIA:
    case SIM_PKT_FEC:          /* fed back like media */
      media_receive (sim, f, p);
      break;
    case SIM_PKT_FEEDBACK:
      media_feedback_arrive (sim, f, p);
      break;
    case SIM_PKT_TCP_ACK:
      sim_tcp_on_ack (sim, f, p);
      break;
    case SIM_PKT_RTCP_SR:
      media_sr_arrive (sim, f, p);
      break;
    case SIM_PKT_RTCP_RR:
      media_rr_arrive (sim, f, p);
      break;
    case SIM_PKT_TCP_DATA:     /* handled above */
    case SIM_PKT_CBR:
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

  sim->metrics = sim_metrics_new (scen, seed, SIM_METRICS_SIMULATED);
  for (l = 0; l < 2; l++) {
    lc = l == 0 ? scen->link : scen->reverse;
    lc.seed = derive_seed (seed, 0x11 + l, 0);
    sim->links[l] = rc_link_new (&lc);
  }

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
    g_ptr_array_add (sim->flows, f);

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
  sim_schedule (sim, 0, sample, NULL, 0);
  return sim;
}

void
sim_free (Sim * sim)
{
  guint i, l;
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
  }
  for (i = 0; i < sim->flows->len; i++) {
    SimFlow *f = g_ptr_array_index (sim->flows, i);
    media_free (f);
    sim_tcp_free (f);
    g_rand_free (f->rand);
    g_free (f);
  }
  g_ptr_array_unref (sim->flows);
  g_array_unref (sim->heap);
  sim_metrics_free (sim->metrics);
  g_free (sim);
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
  {
    guint i;
    for (i = 0; i < sim->flows->len; i++) {
      SimFlow *f = g_ptr_array_index (sim->flows, i);
      if (f->media) {
        guint64 hit, recovered;
        sim_metrics_set_repaired (sim->metrics, i, sim_fec_repaired (sim, f));
        sim_fec_frames (sim, f, &hit, &recovered);
        sim_metrics_set_fec_frames (sim->metrics, i, hit, recovered);
      }
    }
  }
  sim_metrics_finish (sim->metrics);
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
  sim_metrics_flow_window (sim->metrics, flow, from, to, out);
}

SimMetrics *
sim_get_metrics (Sim * sim)
{
  return sim->metrics;
}
