/* GStreamer bottleneck link emulator.
 *
 * SECTION:element-linksim
 * @title: linksim
 * @short_description: a bottleneck link for tests and demos: shared FIFO
 * tail-drop queue, capacity from a constant, a schedule or a Mahimahi trace,
 * propagation delay, delay noise that never reorders a flow, random and
 * bursty loss.
 *
 * Every `sink_N` pad is one flow; what enters it leaves on `src_N` (created
 * together with `sink_N`, and the other way round) at the time the link
 * model says. All flows share one FIFO queue, drained at the link capacity
 * (bit/s of buffer bytes, plus #GstLinkSim:overhead bytes per packet: by
 * default 28, the IPv4 + UDP headers a UDP payload has on the wire). A
 * packet that does not fit the queue (#GstLinkSim:queue-limit-bytes, or
 * #GstLinkSim:queue-limit-ms at the capacity of the moment; for a trace,
 * the delivery opportunities in the next queue-limit-ms) is dropped at the
 * tail. After the queue a packet may be lost (Bernoulli or Gilbert-Elliott)
 * and is then delayed by its flow's propagation delay (#GstLinkSim:delay,
 * or the `delay` property of its `sink_N` pad) plus delay noise; a flow's
 * packets never overtake each other. The model is the core library's
 * rc-link.c, the same code the `rcsim` simulator runs; its comments explain
 * how the noise reproduces the noisy networks measured in the URCP paper.
 *
 * Packets leave from one streaming thread that waits on the element clock
 * (running time), so a #GstTestClock drives it. The sink pads never block:
 * a packet is queued or dropped and the chain function returns (drops are
 * not errors). Serialized events (stream-start, caps, segment, EOS, ...)
 * leave on the paired source pad in order with that flow's packets; EOS
 * leaves once the flow's packets are out. linksim returns NO_PREROLL in
 * PAUSED (like rtpjitterbuffer): packets only leave in PLAYING. It adds the
 * flow's propagation delay to the minimum latency.
 *
 * Each packet leaves stamped with its arrival running time (PTS and DTS),
 * as udpsrc stamps what it receives, so an rtpbin right after linksim
 * takes its TWCC arrival times from the emulated link
 * (#GstLinkSim:timestamp).
 *
 * Any caps: RTP, RTCP, raw UDP payloads, anything. With `udpsrc ! linksim
 * ! udpsink` it relays UDP between two programs; put `sync=false` on the
 * udpsink (linksim already times the packets).
 *
 * ## One flow, the short form
 * |[
 * gst-launch-1.0 udpsrc port=6000 ! linksim capacity=1000000 delay=50000000 ! \
 *   udpsink host=127.0.0.1 port=5000 sync=false async=false
 * ]|
 * ## Several flows through one queue (pipelines/linksim-relay.sh)
 * Relays an urcp-sender.sh / urcp-receiver.sh pair (sender PORT=6000,
 * receiver PORT=5000): RTP and RTCP share the forward bottleneck, the
 * feedback has its own return path.
 * |[
 * gst-launch-1.0 \
 *   linksim name=fwd capacity=2000000 queue-limit-ms=300 delay=20000000 \
 *     noise-distribution=pareto noise-mean=18000000 noise-shape=2.5 \
 *     noise-max=350000000 noise-interval=20000000 \
 *     loss-model=bernoulli loss-rate=0.0037 \
 *   udpsrc port=6000 ! fwd.sink_0  fwd.src_0 ! udpsink host=127.0.0.1 port=5000 sync=false async=false \
 *   udpsrc port=6001 ! fwd.sink_1  fwd.src_1 ! udpsink host=127.0.0.1 port=5001 sync=false async=false \
 *   linksim name=back delay=20000000 \
 *   udpsrc port=5005 ! back.sink_0  back.src_0 ! udpsink host=127.0.0.1 port=6005 sync=false async=false
 * ]|
 * A flow gets its own propagation delay (RTT fairness tests) with the
 * pad property: `linksim name=l sink_1::delay=80000000 ...`.
 *
 * ## Statistics
 * #GstLinkSim:stats has, for the whole link: `capacity` (bit/s now; for a
 * trace, its opportunities in the next 200 ms),
 * `queue-bytes` and `queue-delay` (backlog now and the queueing delay a
 * packet entering now would see), `packets-in`, `bytes-in` (offered),
 * `packets-out`, `bytes-out` (delivered), `dropped-queue` (tail drops),
 * `dropped-loss` (lost after the queue), `flushed`, `qdelay-mean`,
 * `qdelay-max` (departure minus entry, delivered packets; includes the
 * packet's own serialization); and `flows`, an array with one structure
 * per flow with `pad` (sink_N), `id` (N), `delay` (ns) and the same counters.
 * docs/linksim.md has the model, every property and the noise profiles.
 *
 * The link's properties are the rows of the link key table
 * (rc-link-keys.h), which rcsim's scenario files read too: a [link] key is
 * the property of the same name, unit, range and default.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>
#include "gstlinksim.h"
#include "rc-link-keys.h"

GST_DEBUG_CATEGORY_STATIC (gst_link_sim_debug);
#define GST_CAT_DEFAULT gst_link_sim_debug

/* The link model's properties are the rows of the link key table
 * (rc-link-keys.h): property PROP_LINK + i is row i, and the table gives
 * its name, type, range, default, blurb and mutability. */
enum
{
  PROP_0,
  PROP_TIMESTAMP,
  PROP_STATS,
  PROP_LINK,
};

#define LINK_KEY(prop_id) ((RcLinkKeyId) ((prop_id) - PROP_LINK))

enum
{
  PROP_PAD_0,
  PROP_PAD_DELAY,
};

/* The link's defaults are the table's (rc_link_config_init). */
#define DEFAULT_TIMESTAMP TRUE
#define DEFAULT_PAD_DELAY -1

struct _GstLinkSimFlow
{
  gint ref;
  guint id;                     /* N of sink_N / src_N */
  guint core;                   /* flow index in the link; G_MAXUINT: none */
  GstPad *sinkpad, *srcpad;     /* refs; NULL once released */
  GMutex push_lock;             /* a push on srcpad vs. flush-stop */

  /* object lock */
  guint64 accepted;             /* packets the link took */
  guint64 done;                 /* of those, out (pushed, lost, flushed) */
  GQueue events;                /* PendingEvent, in arrival order */
  gboolean eos;
  gboolean flushing;
  guint gen;                    /* bumped by a flush: older output is stale */
  GstFlowReturn last_ret;
};

typedef struct
{
  GstEvent *event;
  guint64 mark;                 /* leaves after this many packets are done */
} PendingEvent;

typedef struct
{
  GstLinkSimFlow *flow;         /* ref */
  GstMiniObject *obj;           /* buffer or event */
  guint gen;
  GstClockTime arrival;         /* buffers: running time at the far end */
} OutItem;

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink_%u",
    GST_PAD_SINK, GST_PAD_REQUEST, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src_%u",
    GST_PAD_SRC, GST_PAD_REQUEST, GST_STATIC_CAPS_ANY);

/* The enum properties' values are their table rows' `values`. */
GType
gst_link_sim_noise_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstLinkSimNoise",
        rc_link_keys[RC_LINK_KEY_NOISE_DISTRIBUTION].values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_link_sim_loss_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstLinkSimLoss",
        rc_link_keys[RC_LINK_KEY_LOSS_MODEL].values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_link_sim_delivery_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstLinkSimDelivery",
        rc_link_keys[RC_LINK_KEY_DELIVERY].values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static void gst_link_sim_child_proxy_init (gpointer g_iface,
    gpointer iface_data);

#define gst_link_sim_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstLinkSim, gst_link_sim, GST_TYPE_ELEMENT,
    G_IMPLEMENT_INTERFACE (GST_TYPE_CHILD_PROXY,
        gst_link_sim_child_proxy_init));
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (linksim, "linksim", GST_RANK_NONE,
    GST_TYPE_LINK_SIM,
    GST_DEBUG_CATEGORY_INIT (gst_link_sim_debug, "linksim", 0,
        "Bottleneck link emulator"));

G_DEFINE_TYPE (GstLinkSimPad, gst_link_sim_pad, GST_TYPE_PAD);

/* ---------------------------------------------------------------- flows */

static GstLinkSimFlow *
flow_ref (GstLinkSimFlow * f)
{
  g_atomic_int_inc (&f->ref);
  return f;
}

static void
pending_event_free (PendingEvent * pe)
{
  gst_event_unref (pe->event);
  g_free (pe);
}

static void
flow_unref (GstLinkSimFlow * f)
{
  if (!g_atomic_int_dec_and_test (&f->ref))
    return;
  g_queue_clear_full (&f->events, (GDestroyNotify) pending_event_free);
  gst_clear_object (&f->sinkpad);
  gst_clear_object (&f->srcpad);
  g_mutex_clear (&f->push_lock);
  g_free (f);
}

/* Object lock held. */
static GstLinkSimFlow *
find_flow_locked (GstLinkSim * self, guint id)
{
  guint i;

  for (i = 0; i < self->flows->len; i++) {
    GstLinkSimFlow *f = g_ptr_array_index (self->flows, i);
    if (f->id == id)
      return f;
  }
  return NULL;
}

/* Propagation delay of a flow: its pad's, else the element's. Object lock
 * held. */
static GstClockTime
flow_delay_locked (GstLinkSim * self, GstLinkSimFlow * f)
{
  gint64 d = -1;

  if (f->sinkpad) {
    GST_OBJECT_LOCK (f->sinkpad);
    d = GST_LINK_SIM_PAD (f->sinkpad)->delay;
    GST_OBJECT_UNLOCK (f->sinkpad);
  }
  return d >= 0 ? (GstClockTime) d : self->settings.delay;
}

/* Gives the flow a place in the running link. Object lock held. */
static void
flow_attach_locked (GstLinkSim * self, GstLinkSimFlow * f)
{
  f->core = G_MAXUINT;
  f->accepted = f->done = 0;
  if (!self->link)
    return;
  if (rc_link_n_flows (self->link) >= RC_LINK_MAX_FLOWS) {
    GST_WARNING_OBJECT (self, "more than %d flows since the start: flow %u "
        "drops everything", RC_LINK_MAX_FLOWS, f->id);
    return;
  }
  f->core = rc_link_add_flow (self->link, flow_delay_locked (self, f));
  self->by_core[f->core] = f;
}

/* ----------------------------------------------------------------- time */

/* Running time: the link's time base. Object lock held. */
static GstClockTime
now_locked (GstLinkSim * self)
{
  GstClock *clock = GST_ELEMENT_CLOCK (self);
  GstClockTime t, base;

  if (!self->playing || !clock)
    return self->paused_now;
  t = gst_clock_get_time (clock);
  base = GST_ELEMENT_CAST (self)->base_time;
  return t > base ? t - base : 0;
}

/* Something changed what leaves when: wake the task, and move its clock
 * wait if the next event is no longer the one it waits for. Object lock
 * held. */
static void
wake_locked (GstLinkSim * self)
{
  g_cond_signal (&self->cond);
  if (self->clock_id) {
    GstClockTime next = self->link ? rc_link_next_event (self->link) :
        GST_CLOCK_TIME_NONE;
    if (next != self->wait_time)
      gst_clock_id_unschedule (self->clock_id);
  }
}

/* -------------------------------------------------------------- the task */

/* Moves the flow's events whose turn has come to `out`. Object lock held. */
static void
release_events_locked (GstLinkSimFlow * f, GQueue * out)
{
  PendingEvent *pe;

  while ((pe = g_queue_peek_head (&f->events)) && pe->mark <= f->done) {
    OutItem *it = g_new0 (OutItem, 1);
    g_queue_pop_head (&f->events);
    it->flow = flow_ref (f);
    it->obj = GST_MINI_OBJECT_CAST (pe->event);
    it->gen = f->gen;
    g_free (pe);
    g_queue_push_tail (out, it);
  }
}

/* Everything due at `now`, in order. Object lock held. */
static void
collect_locked (GstLinkSim * self, GstClockTime now, GQueue * out)
{
  RcLinkPacket p;
  guint i;

  if (self->link && self->playing && GST_CLOCK_TIME_IS_VALID (now)) {
    while (rc_link_pop (self->link, now, &p)) {
      GstLinkSimFlow *f = self->by_core[p.flow];
      GstBuffer *buf = p.data;

      if (!f) {
        gst_buffer_unref (buf);
        continue;
      }
      release_events_locked (f, out);
      f->done++;
      if (p.lost) {
        GST_LOG_OBJECT (self, "flow %u: packet of %u bytes lost", f->id,
            p.size);
        gst_buffer_unref (buf);
        continue;
      }
      GST_LOG_OBJECT (self, "flow %u: %u bytes, queued %" GST_TIME_FORMAT
          ", arrival %" GST_TIME_FORMAT, f->id, p.size,
          GST_TIME_ARGS (p.departed - p.enqueued), GST_TIME_ARGS (p.arrival));
      {
        OutItem *it = g_new0 (OutItem, 1);
        it->flow = flow_ref (f);
        it->obj = GST_MINI_OBJECT_CAST (buf);
        it->gen = f->gen;
        it->arrival = self->timestamp ? p.arrival : GST_CLOCK_TIME_NONE;
        g_queue_push_tail (out, it);
      }
    }
  }
  for (i = 0; i < self->flows->len; i++)
    release_events_locked (g_ptr_array_index (self->flows, i), out);
}

static void
push_item (GstLinkSim * self, OutItem * it)
{
  GstLinkSimFlow *f = it->flow;
  GstPad *pad = NULL;
  GstFlowReturn ret = GST_FLOW_OK;

  g_mutex_lock (&f->push_lock);
  GST_OBJECT_LOCK (self);
  if (it->gen == f->gen && !f->flushing && f->srcpad)
    pad = gst_object_ref (f->srcpad);
  GST_OBJECT_UNLOCK (self);

  if (!pad) {
    gst_mini_object_unref (it->obj);
  } else if (GST_IS_BUFFER (it->obj)) {
    GstBuffer *buf = GST_BUFFER_CAST (it->obj);
    /* Stamp the arrival, as a receiving socket (udpsrc) would: an
     * rtpsession or jitterbuffer downstream takes its arrival times (TWCC
     * remote times, jitter) from these, not from when the packet was sent. */
    if (GST_CLOCK_TIME_IS_VALID (it->arrival)) {
      buf = gst_buffer_make_writable (buf);
      GST_BUFFER_PTS (buf) = GST_BUFFER_DTS (buf) = it->arrival;
    }
    ret = gst_pad_push (pad, buf);
  } else {
    GstEvent *ev = GST_EVENT_CAST (it->obj);
    GST_DEBUG_OBJECT (pad, "pushing %" GST_PTR_FORMAT, ev);
    gst_pad_push_event (pad, ev);
  }
  if (ret != GST_FLOW_OK) {
    GST_DEBUG_OBJECT (pad, "push: %s", gst_flow_get_name (ret));
    GST_OBJECT_LOCK (self);
    if (it->gen == f->gen)
      f->last_ret = ret;
    GST_OBJECT_UNLOCK (self);
  }
  g_mutex_unlock (&f->push_lock);
  if (pad)
    gst_object_unref (pad);
  flow_unref (f);
  g_free (it);
}

/* The one streaming thread: pushes what is due, then waits on the element
 * clock for the next packet (or on the condition variable when nothing is
 * scheduled or the clock does not run). */
static void
gst_link_sim_loop (GstLinkSim * self)
{
  GQueue out = G_QUEUE_INIT;
  OutItem *it;

  GST_OBJECT_LOCK (self);
  if (!self->running) {
    /* Stopping: the task was told already (and pausing it here could undo
     * that). */
    GST_OBJECT_UNLOCK (self);
    return;
  }
  collect_locked (self, now_locked (self), &out);
  if (g_queue_is_empty (&out)) {
    GstClock *clock = GST_ELEMENT_CLOCK (self);
    GstClockTime next = self->link ? rc_link_next_event (self->link) :
        GST_CLOCK_TIME_NONE;

    if (self->playing && clock && GST_CLOCK_TIME_IS_VALID (next)) {
      GstClockID id = gst_clock_new_single_shot_id (clock,
          next + GST_ELEMENT_CAST (self)->base_time);
      self->clock_id = id;
      self->wait_time = next;
      GST_OBJECT_UNLOCK (self);
      GST_LOG_OBJECT (self, "waiting until %" GST_TIME_FORMAT,
          GST_TIME_ARGS (next));
      gst_clock_id_wait (id, NULL);
      GST_OBJECT_LOCK (self);
      self->clock_id = NULL;
      self->wait_time = GST_CLOCK_TIME_NONE;
      GST_OBJECT_UNLOCK (self);
      gst_clock_id_unref (id);
      /* On time, early or unscheduled: look again. */
      return;
    }
    g_cond_wait (&self->cond, GST_OBJECT_GET_LOCK (self));
    GST_OBJECT_UNLOCK (self);
    return;
  }
  GST_OBJECT_UNLOCK (self);

  while ((it = g_queue_pop_head (&out)))
    push_item (self, it);
}

/* ----------------------------------------------------------------- pads */

static GstIterator *
gst_link_sim_iterate_internal_links (GstPad * pad, GstObject * parent)
{
  GstLinkSimFlow *f = gst_pad_get_element_private (pad);
  GstLinkSim *self = GST_LINK_SIM (parent);
  GstPad *other = NULL;
  GstIterator *it = NULL;
  GValue v = G_VALUE_INIT;

  GST_OBJECT_LOCK (self);
  if (f)
    other = GST_PAD_IS_SINK (pad) ? f->srcpad : f->sinkpad;
  if (other)
    gst_object_ref (other);
  GST_OBJECT_UNLOCK (self);
  if (other) {
    g_value_init (&v, GST_TYPE_PAD);
    g_value_take_object (&v, other);
    it = gst_iterator_new_single (GST_TYPE_PAD, &v);
    g_value_unset (&v);
  }
  return it;
}

static GstFlowReturn
gst_link_sim_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstLinkSim *self = GST_LINK_SIM (parent);
  GstLinkSimFlow *f = gst_pad_get_element_private (pad);
  GstFlowReturn ret = GST_FLOW_OK;
  GstClockTime now;
  gsize size;

  GST_OBJECT_LOCK (self);
  if (f->flushing || !self->link) {
    ret = GST_FLOW_FLUSHING;
  } else if (f->eos) {
    ret = GST_FLOW_EOS;
  } else if (f->last_ret != GST_FLOW_OK) {
    /* Downstream's answer (not-linked, an error) goes upstream. */
    ret = f->last_ret;
  } else if (f->core == G_MAXUINT) {
    /* Beyond RC_LINK_MAX_FLOWS: warned at the pad's creation. */
  } else {
    now = now_locked (self);
    size = gst_buffer_get_size (buf) + self->settings.overhead;
    if (rc_link_enqueue (self->link, f->core, (guint) MIN (size, G_MAXUINT),
            buf, now)) {
      f->accepted++;
      buf = NULL;
      wake_locked (self);
    } else {
      GST_LOG_OBJECT (pad, "queue full: tail drop of %" G_GSIZE_FORMAT
          " bytes at %" GST_TIME_FORMAT, size, GST_TIME_ARGS (now));
    }
  }
  GST_OBJECT_UNLOCK (self);
  if (buf)
    gst_buffer_unref (buf);
  return ret;
}

static void
flush_flow_locked (GstLinkSim * self, GstLinkSimFlow * f)
{
  g_queue_clear_full (&f->events, (GDestroyNotify) pending_event_free);
  if (self->link && f->core != G_MAXUINT)
    rc_link_remove_flow_packets (self->link, f->core, now_locked (self),
        (GDestroyNotify) gst_buffer_unref);
  f->done = f->accepted;
  f->gen++;
}

static gboolean
gst_link_sim_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstLinkSim *self = GST_LINK_SIM (parent);
  GstLinkSimFlow *f = gst_pad_get_element_private (pad);
  gboolean ret;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
      GST_OBJECT_LOCK (self);
      f->flushing = TRUE;
      flush_flow_locked (self, f);
      wake_locked (self);
      GST_OBJECT_UNLOCK (self);
      /* Unblocks a push of ours stuck downstream. */
      return gst_pad_event_default (pad, parent, event);
    case GST_EVENT_FLUSH_STOP:
      g_mutex_lock (&f->push_lock);
      GST_OBJECT_LOCK (self);
      f->flushing = FALSE;
      f->eos = FALSE;
      f->last_ret = GST_FLOW_OK;
      GST_OBJECT_UNLOCK (self);
      ret = gst_pad_event_default (pad, parent, event);
      g_mutex_unlock (&f->push_lock);
      return ret;
    default:
      break;
  }

  if (!GST_EVENT_IS_SERIALIZED (event))
    return gst_pad_event_default (pad, parent, event);

  /* Serialized: leaves after the packets that came before it. */
  GST_OBJECT_LOCK (self);
  if (f->flushing || !self->running) {
    GST_OBJECT_UNLOCK (self);
    /* Not running (yet): sticky events are stored on the pad and come
     * again with the first buffer. */
    if (GST_EVENT_IS_STICKY (event) && !f->flushing) {
      gst_event_unref (event);
      return TRUE;
    }
    gst_event_unref (event);
    return FALSE;
  }
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
    f->eos = TRUE;
  else if (GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START)
    f->eos = FALSE;             /* a new stream after EOS, like GstPad */
  {
    PendingEvent *pe = g_new0 (PendingEvent, 1);
    pe->event = event;
    pe->mark = f->accepted;
    g_queue_push_tail (&f->events, pe);
  }
  wake_locked (self);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_link_sim_src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstLinkSim *self = GST_LINK_SIM (parent);
  GstLinkSimFlow *f = gst_pad_get_element_private (pad);
  const RcLinkConfig *s = &self->settings;
  gboolean ret = gst_pad_query_default (pad, parent, query);

  if (ret && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    gboolean live;
    GstClockTime min, max, d, qmax;

    gst_query_parse_latency (query, &live, &min, &max);
    GST_OBJECT_LOCK (self);
    d = flow_delay_locked (self, f);
    /* The longest a packet can take: delay, a full queue, the noise cap
     * (unbounded without a cap or a queue limit). */
    qmax = s->queue_limit_bytes > 0 ?
        gst_util_uint64_scale (s->queue_limit_bytes, 8 * GST_SECOND,
        MAX (s->capacity_bps, 1)) : s->queue_limit_time;
    if (GST_CLOCK_TIME_IS_VALID (max)) {
      if ((s->queue_limit_time == 0 && s->queue_limit_bytes == 0) ||
          self->text[RC_LINK_KEY_SCHEDULE] ||
          self->text[RC_LINK_KEY_TRACE_FILE] ||
          (s->noise.dist != RC_NOISE_NONE && s->noise.max == 0))
        max = GST_CLOCK_TIME_NONE;
      else
        max += d + qmax + (s->noise.dist != RC_NOISE_NONE ?
            s->noise.max : 0);
    }
    GST_OBJECT_UNLOCK (self);
    min += d;
    gst_query_set_latency (query, live, min, max);
  }
  return ret;
}

static GstPad *
gst_link_sim_request_new_pad (GstElement * element, GstPadTemplate * templ,
    const gchar * name, const GstCaps * caps)
{
  GstLinkSim *self = GST_LINK_SIM (element);
  GstElementClass *klass = GST_ELEMENT_GET_CLASS (element);
  gboolean is_sink = GST_PAD_TEMPLATE_DIRECTION (templ) == GST_PAD_SINK;
  GstPad *made[2] = { NULL, NULL }, *ret;
  GstLinkSimFlow *f;
  guint id = 0, i;
  gboolean active = GST_STATE (element) > GST_STATE_READY ||
      GST_STATE_PENDING (element) > GST_STATE_READY;

  if (name) {
    const gchar *num = strchr (name, '_');
    gchar *end = NULL;
    guint64 v;
    if (!num || !g_ascii_isdigit (num[1]))
      return NULL;
    v = g_ascii_strtoull (num + 1, &end, 10);
    if (*end != '\0' || v > G_MAXUINT16)
      return NULL;
    id = (guint) v;
  }

  GST_OBJECT_LOCK (self);
  if (!name) {
    /* The lowest N whose pad of this direction is free. */
    for (id = 0;; id++) {
      f = find_flow_locked (self, id);
      if (!f || !(is_sink ? f->sinkpad : f->srcpad))
        break;
    }
  }
  f = find_flow_locked (self, id);
  if (f && (is_sink ? f->sinkpad : f->srcpad)) {
    GST_OBJECT_UNLOCK (self);
    GST_WARNING_OBJECT (self, "pad %s exists", name);
    return NULL;
  }
  if (!f) {
    f = g_new0 (GstLinkSimFlow, 1);
    f->ref = 1;
    f->id = id;
    f->core = G_MAXUINT;
    f->last_ret = GST_FLOW_OK;
    g_mutex_init (&f->push_lock);
    g_queue_init (&f->events);
    g_ptr_array_add (self->flows, f);
  }
  /* The requested pad, and its partner if missing: sink_N and src_N always
   * come as a pair, so gst-launch's `a ! linksim ! b` links both. */
  for (i = 0; i < 2; i++) {
    gboolean sink = i == 0;
    GstPadTemplate *t;
    gchar *pname;
    GstPad *pad;

    if (sink ? f->sinkpad != NULL : f->srcpad != NULL)
      continue;
    t = sink == is_sink ? templ :
        gst_element_class_get_pad_template (klass, sink ? "sink_%u" :
        "src_%u");
    pname = g_strdup_printf (sink ? "sink_%u" : "src_%u", id);
    if (sink) {
      pad = g_object_new (GST_TYPE_LINK_SIM_PAD, "name", pname, "direction",
          GST_PAD_SINK, "template", t, NULL);
      gst_pad_set_chain_function (pad, GST_DEBUG_FUNCPTR (gst_link_sim_chain));
      gst_pad_set_event_function (pad,
          GST_DEBUG_FUNCPTR (gst_link_sim_sink_event));
      GST_PAD_SET_PROXY_ALLOCATION (pad);
    } else {
      pad = gst_pad_new_from_template (t, pname);
      gst_pad_set_query_function (pad,
          GST_DEBUG_FUNCPTR (gst_link_sim_src_query));
    }
    g_free (pname);
    GST_PAD_SET_PROXY_CAPS (pad);
    gst_pad_set_iterate_internal_links_function (pad,
        GST_DEBUG_FUNCPTR (gst_link_sim_iterate_internal_links));
    gst_pad_set_element_private (pad, f);
    if (sink)
      f->sinkpad = gst_object_ref (pad);
    else
      f->srcpad = gst_object_ref (pad);
    made[i] = pad;
  }
  if (f->core == G_MAXUINT && self->link)
    flow_attach_locked (self, f);
  else if (f->core != G_MAXUINT && made[0])
    rc_link_set_prop_delay (self->link, f->core, flow_delay_locked (self, f));
  GST_OBJECT_UNLOCK (self);

  ret = made[is_sink ? 0 : 1];
  for (i = 0; i < 2; i++) {
    if (!made[i])
      continue;
    if (active)
      gst_pad_set_active (made[i], TRUE);
    gst_element_add_pad (element, made[i]);
    if (i == 0)
      gst_child_proxy_child_added (GST_CHILD_PROXY (self), G_OBJECT (made[0]),
          GST_OBJECT_NAME (made[0]));
  }
  GST_DEBUG_OBJECT (self, "flow %u: %s pad requested", id, is_sink ? "sink" :
      "src");
  return ret;
}

static void
gst_link_sim_release_pad (GstElement * element, GstPad * pad)
{
  GstLinkSim *self = GST_LINK_SIM (element);
  GstLinkSimFlow *f = gst_pad_get_element_private (pad);

  GST_OBJECT_LOCK (self);
  if (GST_PAD_IS_SINK (pad)) {
    gst_clear_object (&f->sinkpad);
  } else {
    gst_clear_object (&f->srcpad);
    /* Nowhere to go for what is in the link. */
    flush_flow_locked (self, f);
  }
  if (!f->sinkpad && !f->srcpad) {
    flush_flow_locked (self, f);
    if (f->core != G_MAXUINT)
      self->by_core[f->core] = NULL;
    /* Drops the array's reference; items being pushed hold their own. */
    g_ptr_array_remove (self->flows, f);
  }
  wake_locked (self);
  GST_OBJECT_UNLOCK (self);

  if (GST_PAD_IS_SINK (pad))
    gst_child_proxy_child_removed (GST_CHILD_PROXY (self), G_OBJECT (pad),
        GST_OBJECT_NAME (pad));
  gst_pad_set_active (pad, FALSE);
  gst_element_remove_pad (element, pad);
}

/* ------------------------------------------------------- state changes */

/* Builds the link from the properties; FALSE with an error posted if they
 * do not make one. */
static gboolean
start (GstLinkSim * self)
{
  RcLinkConfig cfg;
  GError *err = NULL;
  gchar *text[RC_LINK_N_KEYS];
  RcLink *link;
  guint i;

  GST_OBJECT_LOCK (self);
  cfg = self->settings;
  for (i = 0; i < RC_LINK_N_KEYS; i++)
    text[i] = g_strdup (self->text[i]);
  GST_OBJECT_UNLOCK (self);

  if (text[RC_LINK_KEY_SCHEDULE] && text[RC_LINK_KEY_TRACE_FILE]) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("Both schedule and trace-file are set; use one."), (NULL));
    goto fail;
  }
  /* The string rows, in table order. */
  for (i = 0; i < RC_LINK_N_KEYS; i++) {
    if (!text[i] || rc_link_key_parse (&rc_link_keys[i], text[i], &cfg, &err))
      continue;
    if (i == RC_LINK_KEY_TRACE_FILE)
      GST_ELEMENT_ERROR (self, RESOURCE, READ,
          ("Bad trace-file: %s", err->message), (NULL));
    else
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
          ("Bad %s \"%s\": %s", rc_link_keys[i].name, text[i],
              err->message), (NULL));
    goto fail;
  }
  if (!rc_link_config_validate (&cfg, &err)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("Bad link settings: %s", err->message), (NULL));
    goto fail;
  }
  link = rc_link_new (&cfg);
  GST_INFO_OBJECT (self, "capacity %s %" G_GUINT64_FORMAT " bit/s, queue "
      "limit %" G_GUINT64_FORMAT " B / %u ms, noise %s, loss %s, seed %u",
      cfg.mode == RC_CAPACITY_TRACE ? "trace, first 200 ms" :
      cfg.mode == RC_CAPACITY_SCHEDULE ? "schedule, first" : "constant",
      rc_link_capacity_at (link, 0), cfg.queue_limit_bytes,
      (guint) (cfg.queue_limit_time / GST_MSECOND),
      rc_noise_dist_to_string (cfg.noise.dist),
      rc_loss_kind_to_string (cfg.loss.kind), cfg.seed);
  rc_link_config_clear (&cfg);
  for (i = 0; i < RC_LINK_N_KEYS; i++)
    g_free (text[i]);

  GST_OBJECT_LOCK (self);
  self->link = link;
  memset (self->by_core, 0, sizeof (self->by_core));
  for (i = 0; i < self->flows->len; i++) {
    GstLinkSimFlow *f = g_ptr_array_index (self->flows, i);
    flow_attach_locked (self, f);
    f->eos = FALSE;
    f->flushing = FALSE;
    f->last_ret = GST_FLOW_OK;
    g_queue_clear_full (&f->events, (GDestroyNotify) pending_event_free);
  }
  self->paused_now = 0;
  self->playing = FALSE;
  self->running = TRUE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;

fail:
  g_clear_error (&err);
  rc_link_config_clear (&cfg);
  for (i = 0; i < RC_LINK_N_KEYS; i++)
    g_free (text[i]);
  return FALSE;
}

static void
stop (GstLinkSim * self)
{
  RcLink *link;
  guint i;

  GST_OBJECT_LOCK (self);
  link = self->link;
  self->link = NULL;
  for (i = 0; link && i < rc_link_n_flows (link); i++)
    rc_link_remove_flow_packets (link, i, GST_CLOCK_TIME_NONE,
        (GDestroyNotify) gst_buffer_unref);
  for (i = 0; i < self->flows->len; i++) {
    GstLinkSimFlow *f = g_ptr_array_index (self->flows, i);
    g_queue_clear_full (&f->events, (GDestroyNotify) pending_event_free);
    f->core = G_MAXUINT;
  }
  memset (self->by_core, 0, sizeof (self->by_core));
  GST_OBJECT_UNLOCK (self);
  rc_link_free (link);
}

static GstStateChangeReturn
gst_link_sim_change_state (GstElement * element, GstStateChange transition)
{
  GstLinkSim *self = GST_LINK_SIM (element);
  GstStateChangeReturn ret;

  switch (transition) {
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      if (!start (self))
        return GST_STATE_CHANGE_FAILURE;
      break;
    case GST_STATE_CHANGE_PAUSED_TO_PLAYING:
      GST_OBJECT_LOCK (self);
      self->playing = TRUE;
      wake_locked (self);
      GST_OBJECT_UNLOCK (self);
      break;
    case GST_STATE_CHANGE_PLAYING_TO_PAUSED:
      GST_OBJECT_LOCK (self);
      self->paused_now = now_locked (self);
      self->playing = FALSE;
      if (self->clock_id)
        gst_clock_id_unschedule (self->clock_id);
      GST_OBJECT_UNLOCK (self);
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      GST_OBJECT_LOCK (self);
      self->running = FALSE;
      gst_task_stop (self->task);
      if (self->clock_id)
        gst_clock_id_unschedule (self->clock_id);
      g_cond_signal (&self->cond);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      break;
  }

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (ret == GST_STATE_CHANGE_FAILURE) {
    if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
      stop (self);
    return ret;
  }

  switch (transition) {
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      gst_task_start (self->task);
      /* Like a live source: packets only leave in PLAYING. */
      ret = GST_STATE_CHANGE_NO_PREROLL;
      break;
    case GST_STATE_CHANGE_PLAYING_TO_PAUSED:
      ret = GST_STATE_CHANGE_NO_PREROLL;
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      gst_task_join (self->task);
      stop (self);
      break;
    default:
      break;
  }
  return ret;
}

/* ----------------------------------------------------------- properties */

static GstStructure *
flow_stats_structure (const gchar * name, const RcLinkFlowStats * st)
{
  return gst_structure_new (name,
      "packets-in", G_TYPE_UINT64, st->packets_in,
      "bytes-in", G_TYPE_UINT64, st->bytes_in,
      "packets-out", G_TYPE_UINT64, st->packets_out,
      "bytes-out", G_TYPE_UINT64, st->bytes_out,
      "dropped-queue", G_TYPE_UINT64, st->dropped_queue,
      "dropped-loss", G_TYPE_UINT64, st->dropped_loss,
      "flushed", G_TYPE_UINT64, st->flushed,
      "qdelay-mean", G_TYPE_UINT64, st->packets_out ?
      (guint64) (st->qdelay_sum * GST_SECOND / st->packets_out + 0.5) :
      (guint64) 0, "qdelay-max", G_TYPE_UINT64, (guint64) st->qdelay_max,
      NULL);
}

static gint
flow_cmp (gconstpointer a, gconstpointer b)
{
  const GstLinkSimFlow *fa = *(GstLinkSimFlow * const *) a;
  const GstLinkSimFlow *fb = *(GstLinkSimFlow * const *) b;
  return fa->id < fb->id ? -1 : fa->id > fb->id;
}

static GstStructure *
get_stats (GstLinkSim * self)
{
  RcLinkFlowStats total, st;
  GstStructure *s;
  GValue flows = G_VALUE_INIT;
  GPtrArray *sorted;
  guint64 capacity, backlog = 0;
  GstClockTime qdelay = 0, now;
  guint i;

  memset (&total, 0, sizeof (total));
  g_value_init (&flows, GST_TYPE_ARRAY);

  GST_OBJECT_LOCK (self);
  now = now_locked (self);
  if (self->link) {
    capacity = rc_link_capacity_at (self->link, now);
    backlog = rc_link_backlog_bytes (self->link, now);
    qdelay = rc_link_queue_delay (self->link, now);
    rc_link_get_total_stats (self->link, &total);
  } else {
    capacity = self->settings.capacity_bps;
  }
  sorted = g_ptr_array_sized_new (self->flows->len);
  for (i = 0; i < self->flows->len; i++)
    g_ptr_array_add (sorted, g_ptr_array_index (self->flows, i));
  g_ptr_array_sort (sorted, flow_cmp);
  for (i = 0; i < sorted->len; i++) {
    GstLinkSimFlow *f = g_ptr_array_index (sorted, i);
    GValue v = G_VALUE_INIT;
    GstStructure *fs;
    gchar *pad = g_strdup_printf ("sink_%u", f->id);

    memset (&st, 0, sizeof (st));
    if (self->link && f->core != G_MAXUINT)
      rc_link_get_flow_stats (self->link, f->core, &st);
    fs = flow_stats_structure ("flow", &st);
    gst_structure_set (fs, "pad", G_TYPE_STRING, pad,
        "id", G_TYPE_UINT, f->id,
        "delay", G_TYPE_UINT64, (guint64) flow_delay_locked (self, f), NULL);
    g_free (pad);
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, fs);
    gst_value_array_append_and_take_value (&flows, &v);
  }
  g_ptr_array_unref (sorted);
  GST_OBJECT_UNLOCK (self);

  s = flow_stats_structure ("application/x-linksim-stats", &total);
  gst_structure_set (s,
      "capacity", G_TYPE_UINT64, capacity,
      "queue-bytes", G_TYPE_UINT64, backlog,
      "queue-delay", G_TYPE_UINT64, (guint64) qdelay, NULL);
  gst_structure_take_value (s, "flows", &flows);
  return s;
}

/* A link property changed while running: hand it to the link. Object lock
 * held; returns an error message to post (caller frees) if the new
 * combination is invalid and was not applied. */
static gchar *
apply_running_locked (GstLinkSim * self, RcLinkKeyId key)
{
  const RcLinkConfig *s = &self->settings;
  GError *err = NULL;
  gchar *msg = NULL;
  GstClockTime now;
  guint i;

  if (!self->link)
    return NULL;
  now = now_locked (self);
  switch (key) {
    case RC_LINK_KEY_CAPACITY:
      GST_DEBUG_OBJECT (self, "capacity now %" G_GUINT64_FORMAT " bit/s",
          s->capacity_bps);
      rc_link_set_capacity (self->link, s->capacity_bps, now);
      break;
    case RC_LINK_KEY_QUEUE_LIMIT_MS:
    case RC_LINK_KEY_QUEUE_LIMIT_BYTES:
      rc_link_set_queue_limit (self->link, s->queue_limit_bytes,
          s->queue_limit_time);
      break;
    case RC_LINK_KEY_DELAY:
      for (i = 0; i < self->flows->len; i++) {
        GstLinkSimFlow *f = g_ptr_array_index (self->flows, i);
        if (f->core != G_MAXUINT)
          rc_link_set_prop_delay (self->link, f->core,
              flow_delay_locked (self, f));
      }
      break;
    case RC_LINK_KEY_NOISE_DISTRIBUTION:
    case RC_LINK_KEY_NOISE_MEAN:
    case RC_LINK_KEY_NOISE_STDDEV:
    case RC_LINK_KEY_NOISE_MAX:
    case RC_LINK_KEY_NOISE_SHAPE:
    case RC_LINK_KEY_NOISE_CORRELATION:
    case RC_LINK_KEY_NOISE_INTERVAL:
      if (rc_link_noise_validate (&s->noise, &err))
        rc_link_set_noise (self->link, &s->noise);
      break;
    case RC_LINK_KEY_LOSS_MODEL:
    case RC_LINK_KEY_LOSS_RATE:
    case RC_LINK_KEY_GE_P:
    case RC_LINK_KEY_GE_R:
    case RC_LINK_KEY_GE_LOSS_GOOD:
    case RC_LINK_KEY_GE_LOSS_BAD:
      if (rc_link_loss_validate (&s->loss, &err))
        rc_link_set_loss (self->link, &s->loss);
      break;
    default:
      /* overhead: read per packet; the rest only in NULL or READY. */
      return NULL;
  }
  if (err) {
    msg = g_strdup (err->message);
    g_error_free (err);
  }
  wake_locked (self);
  return msg;
}

/* An empty string is no string. */
static void
set_text (gchar ** text, const GValue * value)
{
  g_free (*text);
  *text = g_value_dup_string (value);
  if (*text && !**text)
    g_clear_pointer (text, g_free);
}

static void
gst_link_sim_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstLinkSim *self = GST_LINK_SIM (object);
  gchar *bad = NULL;

  GST_OBJECT_LOCK (self);
  if ((pspec->flags & GST_PARAM_MUTABLE_READY) &&
      GST_STATE (self) > GST_STATE_READY) {
    GST_OBJECT_UNLOCK (self);
    GST_WARNING_OBJECT (self, "property '%s' can only be changed in the "
        "NULL or READY state; ignored", pspec->name);
    return;
  }
  if (prop_id == PROP_TIMESTAMP) {
    self->timestamp = g_value_get_boolean (value);
  } else if (prop_id >= PROP_LINK && prop_id < PROP_LINK + RC_LINK_N_KEYS &&
      rc_link_keys[LINK_KEY (prop_id)].type == RC_LINK_TYPE_STRING) {
    set_text (&self->text[LINK_KEY (prop_id)], value);
  } else if (prop_id >= PROP_LINK && prop_id < PROP_LINK + RC_LINK_N_KEYS) {
    rc_link_key_set_value (&rc_link_keys[LINK_KEY (prop_id)],
        &self->settings, value);
    bad = apply_running_locked (self, LINK_KEY (prop_id));
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
  if (bad) {
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("Not applied while running: %s", bad), (NULL));
    g_free (bad);
  }
}

static void
gst_link_sim_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstLinkSim *self = GST_LINK_SIM (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, get_stats (self));
    return;
  }

  GST_OBJECT_LOCK (self);
  if (prop_id == PROP_TIMESTAMP)
    g_value_set_boolean (value, self->timestamp);
  else if (prop_id >= PROP_LINK && prop_id < PROP_LINK + RC_LINK_N_KEYS &&
      rc_link_keys[LINK_KEY (prop_id)].type == RC_LINK_TYPE_STRING)
    g_value_set_string (value, self->text[LINK_KEY (prop_id)]);
  else if (prop_id >= PROP_LINK && prop_id < PROP_LINK + RC_LINK_N_KEYS)
    rc_link_key_get_value (&rc_link_keys[LINK_KEY (prop_id)],
        &self->settings, value);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (self);
}

/* ------------------------------------------------------------ the pad */

static void
gst_link_sim_pad_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstLinkSimPad *pad = GST_LINK_SIM_PAD (object);
  GstElement *parent;

  switch (prop_id) {
    case PROP_PAD_DELAY:
      GST_OBJECT_LOCK (pad);
      pad->delay = g_value_get_int64 (value);
      GST_OBJECT_UNLOCK (pad);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
  }
  /* A running flow takes it for packets leaving the queue from now on. */
  parent = gst_pad_get_parent_element (GST_PAD (pad));
  if (parent && GST_IS_LINK_SIM (parent)) {
    GstLinkSim *self = GST_LINK_SIM (parent);
    GstLinkSimFlow *f = gst_pad_get_element_private (GST_PAD (pad));
    GST_OBJECT_LOCK (self);
    if (self->link && f && f->core != G_MAXUINT) {
      rc_link_set_prop_delay (self->link, f->core,
          flow_delay_locked (self, f));
      wake_locked (self);
    }
    GST_OBJECT_UNLOCK (self);
  }
  if (parent)
    gst_object_unref (parent);
}

static void
gst_link_sim_pad_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstLinkSimPad *pad = GST_LINK_SIM_PAD (object);

  switch (prop_id) {
    case PROP_PAD_DELAY:
      GST_OBJECT_LOCK (pad);
      g_value_set_int64 (value, pad->delay);
      GST_OBJECT_UNLOCK (pad);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_link_sim_pad_class_init (GstLinkSimPadClass * klass)
{
  GObjectClass *gobject_class = (GObjectClass *) klass;

  gobject_class->set_property = gst_link_sim_pad_set_property;
  gobject_class->get_property = gst_link_sim_pad_get_property;
  g_object_class_install_property (gobject_class, PROP_PAD_DELAY,
      g_param_spec_int64 ("delay", "Delay",
          "This flow's one-way propagation delay (ns); -1: the element's "
          "delay", -1, rc_link_keys[RC_LINK_KEY_DELAY].max, DEFAULT_PAD_DELAY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
}

static void
gst_link_sim_pad_init (GstLinkSimPad * pad)
{
  pad->delay = DEFAULT_PAD_DELAY;
}

/* ------------------------------------------------------ child proxy */

/* The sink pads are the children, so gst-launch can set
 * `linksim name=l sink_1::delay=...` (it waits for child-added). */
static GObject *
gst_link_sim_child_proxy_get_child_by_index (GstChildProxy * proxy,
    guint index)
{
  GstElement *e = GST_ELEMENT (proxy);
  GObject *obj;

  GST_OBJECT_LOCK (e);
  obj = g_list_nth_data (e->sinkpads, index);
  if (obj)
    gst_object_ref (obj);
  GST_OBJECT_UNLOCK (e);
  return obj;
}

static guint
gst_link_sim_child_proxy_get_children_count (GstChildProxy * proxy)
{
  GstElement *e = GST_ELEMENT (proxy);
  guint n;

  GST_OBJECT_LOCK (e);
  n = e->numsinkpads;
  GST_OBJECT_UNLOCK (e);
  return n;
}

static void
gst_link_sim_child_proxy_init (gpointer g_iface, gpointer iface_data)
{
  GstChildProxyInterface *iface = g_iface;

  iface->get_child_by_index = gst_link_sim_child_proxy_get_child_by_index;
  iface->get_children_count = gst_link_sim_child_proxy_get_children_count;
}

/* ------------------------------------------------------ class, init */

static void
gst_link_sim_finalize (GObject * object)
{
  GstLinkSim *self = GST_LINK_SIM (object);
  guint i;

  stop (self);
  g_ptr_array_unref (self->flows);
  for (i = 0; i < RC_LINK_N_KEYS; i++)
    g_free (self->text[i]);
  gst_object_unref (self->task);
  g_rec_mutex_clear (&self->task_lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* The property of a row of the link key table. */
static GParamSpec *
link_key_param_spec (const RcLinkKey * k)
{
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      (k->flags & RC_LINK_KEY_LIVE ? GST_PARAM_MUTABLE_PLAYING :
      GST_PARAM_MUTABLE_READY);

  switch (k->type) {
    case RC_LINK_TYPE_UINT:
      return g_param_spec_uint (k->name, k->nick, k->blurb, k->min, k->max,
          k->def, flags);
    case RC_LINK_TYPE_UINT64:
      return g_param_spec_uint64 (k->name, k->nick, k->blurb, k->min, k->max,
          k->def, flags);
    case RC_LINK_TYPE_DOUBLE:
      return g_param_spec_double (k->name, k->nick, k->blurb, k->dmin,
          k->dmax, k->ddef, flags);
    case RC_LINK_TYPE_ENUM:
      return g_param_spec_enum (k->name, k->nick, k->blurb,
          k == &rc_link_keys[RC_LINK_KEY_LOSS_MODEL] ? GST_TYPE_LINK_SIM_LOSS
          : k == &rc_link_keys[RC_LINK_KEY_DELIVERY] ?
          GST_TYPE_LINK_SIM_DELIVERY : GST_TYPE_LINK_SIM_NOISE, k->def,
          flags);
    case RC_LINK_TYPE_STRING:
      return g_param_spec_string (k->name, k->nick, k->blurb, NULL, flags);
  }
  g_return_val_if_reached (NULL);
}

static void
gst_link_sim_class_init (GstLinkSimClass * klass)
{
  GObjectClass *gobject_class = (GObjectClass *) klass;
  GstElementClass *element_class = (GstElementClass *) klass;
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
  guint i;

  gobject_class->set_property = gst_link_sim_set_property;
  gobject_class->get_property = gst_link_sim_get_property;
  gobject_class->finalize = gst_link_sim_finalize;
  element_class->change_state = gst_link_sim_change_state;
  element_class->request_new_pad = gst_link_sim_request_new_pad;
  element_class->release_pad = gst_link_sim_release_pad;

  for (i = 0; i < RC_LINK_N_KEYS; i++)
    g_object_class_install_property (gobject_class, PROP_LINK + i,
        link_key_param_spec (&rc_link_keys[i]));
  g_object_class_install_property (gobject_class, PROP_TIMESTAMP,
      g_param_spec_boolean ("timestamp", "Timestamp arrivals",
          "Set each packet's PTS and DTS to its arrival running time, as "
          "udpsrc does at a receiver, so an rtpbin or jitterbuffer right "
          "after linksim sees the emulated arrival times. FALSE: buffers "
          "leave untouched (no copy)", DEFAULT_TIMESTAMP,
          rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Link and per-flow counters: an application/x-linksim-stats "
          "structure (fields: docs/elements/linksim.md)", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &sink_template, GST_TYPE_LINK_SIM_PAD);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Bottleneck link emulator", "Filter/Network",
      "Shared FIFO tail-drop queue at a constant, scheduled or traced "
      "capacity, with propagation delay, delay noise and random loss, "
      "timed on the element clock", "gst-ratecontrol developers");
  gst_type_mark_as_plugin_api (GST_TYPE_LINK_SIM_NOISE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_LINK_SIM_LOSS, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_LINK_SIM_PAD, 0);
}

static void
gst_link_sim_init (GstLinkSim * self)
{
  rc_link_config_init (&self->settings);
  self->timestamp = DEFAULT_TIMESTAMP;

  self->flows = g_ptr_array_new_with_free_func ((GDestroyNotify) flow_unref);
  self->wait_time = GST_CLOCK_TIME_NONE;
  g_cond_init (&self->cond);
  g_rec_mutex_init (&self->task_lock);
  self->task = gst_task_new ((GstTaskFunction) gst_link_sim_loop, self, NULL);
  gst_task_set_lock (self->task, &self->task_lock);
  gst_object_set_name (GST_OBJECT (self->task), "linksim");
}
