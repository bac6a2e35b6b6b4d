/* GStreamer XOR parity FEC decoder (RFC 8627 flexible FEC, RFC 5109 ULPFEC).
 *
 * SECTION:element-fecdec
 * @title: fecdec
 * @short_description: repairs lost RTP packets from XOR repair packets
 * (fecenc's, or rtpulpfecenc's with format=ulpfec).
 *
 * `fecdec` takes the media and the repair packets on its sink pad (repair
 * packets may also come on `fec_%u` request pads), passes the media on,
 * drops the repair packets and rebuilds every packet a parity equation can
 * rebuild: when the repair packet arrives after its group, or when the last
 * other packet of a group arrives after the repair packet. Rows and columns
 * of 2-D blocks are iterated, so a loss that only a column can repair in
 * turn lets a row repair another. It keeps its own window of recent packets
 * (bounded by #GstFecDec:window), so unlike `rtpulpfecdec` it needs no
 * `rtpstorage` and no jitterbuffer with `do-lost`. Repair packets are told
 * apart by payload type (#GstFecDec:pt) and, for flexfec, by an SSRC other
 * than the media's (or exactly #GstFecDec:fec-ssrc if set). Duplicate
 * media packets are dropped.
 *
 * ## Placement
 * fecdec finds out where it is when the first packet arrives:
 *
 * * **Before a jitterbuffer** (`udpsrc ! fecdec ! rtpjitterbuffer`,
 *   `udpsrc ! fecdec ! rtpbin.recv_rtp_sink_0`, or rtpbin's
 *   #GstRtpBin:fec-decoders, which puts it between the SSRC demuxer and the
 *   jitterbuffer): recovered packets are pushed at once, possibly after
 *   later packets, and the jitterbuffer puts them back in order.
 * * **After a jitterbuffer** (rtpbin's `request-fec-decoder` and
 *   `request-fec-decoder-full` signals, which put one fecdec per SSRC and
 *   payload type after the jitterbuffer and payload demuxer): a packet
 *   rebuilt now would come after its successors, which a depayloader
 *   drops, and the repair packets (a flexfec SSRC, or the ULPFEC payload
 *   type) go to other pads. So fecdec listens further up, with a pad probe
 *   on the input of rtpbin's SSRC demuxer (or of the jitterbuffer if there
 *   is no demuxer), where every packet of the session passes before the
 *   jitterbuffer delays it. The instances of one session share one decoder
 *   fed there. Each instance, before it passes a packet on, asks that
 *   decoder for the packets missing before it and pushes those it rebuilt
 *   first, so the depayloader gets them in order. The #GstFecDec:window
 *   must be longer than the jitterbuffer latency; losses in the first
 *   latency of a stream (before the first packet left the jitterbuffer)
 *   cannot be repaired there.
 *
 * Malformed repair packets (truncated, impossible lengths, masks outside
 * the window, wrong SSRC, duplicates, protecting packets long gone, or not
 * matching the packets they protect) are counted in `rejected`, logged,
 * and never produce a packet.
 *
 * ## Example receiver (pipelines/fec-receiver.sh)
 * |[
 * gst-launch-1.0 udpsrc port=5000 caps='application/x-rtp,media=video,clock-rate=90000,encoding-name=VP8,payload=96' ! \
 *   fecdec pt=100 ! rtpjitterbuffer latency=100 ! rtpvp8depay ! vp8dec ! \
 *   videoconvert ! autovideosink
 * ]|
 * ## With rtpbin
 * Return a fecdec from `request-fec-decoder` (or `-full`), with the
 * repair packets arriving with the media (ULPFEC on the media SSRC, or
 * flexfec on its own SSRC); set `is-fec=true` in the repair payload type's
 * caps from `request-pt-map` so the payload demuxer drops them. Or set
 * `fec-decoders='fec,0="fecdec\ pt\=100";'` and bring flexfec repair
 * packets on their own port to `recv_fec_sink_0_0` (rtpbin 1.22 only
 * builds that decoder once such a pad is requested, and links it to the
 * session's first SSRC only). Packets of any other SSRC of the session
 * are dropped there, with a warning on the bus for repair packets (the
 * media go on unrepaired) and an error for anything else, both saying
 * what to use instead; rtpbin alone would stop the stream with
 * not-linked.
 *
 * ## Statistics
 * #GstFecDec:stats has (guint64) `media-received`, `fec-received`,
 * `recovered`, `unrecoverable` (lost media no repair rebuilt), `rejected`,
 * `duplicates`, `lost-before` and `lost-after` (lost media before and
 * after repair, counted once a packet has left the window), (gdouble)
 * `loss-before`, `loss-after` (the same as fractions of the media
 * expected), (guint64) `frames-hit` and `frames-recovered` (media frames,
 * one RTP timestamp up to the marker bit, that lost a packet, and of those
 * the ones FEC made whole; frames lost whole count as one with the next),
 * (gdouble) `ffre` (frames-recovered / frames-hit, FRACTaL's FEC frame
 * recovery efficiency; 0 before a frame is hit), (guint64)
 * `recovered-pushed` (recovered packets this element pushed) and (string)
 * `placement` (`before-jitterbuffer` or `after-jitterbuffer`). After a jitterbuffer, all counts but
 * `recovered-pushed` are the session's shared decoder's, and `recovered`
 * includes packets rebuilt too late to be pushed.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <gst/rtp/gstrtpbuffer.h>
#include "gstfecdec.h"
#include "gstfecenc.h"
#include "gstrcencoder.h"

GST_DEBUG_CATEGORY_STATIC (gst_fec_dec_debug);
#define GST_CAT_DEFAULT gst_fec_dec_debug

enum
{
  PROP_0,
  PROP_PT,
  PROP_FORMAT,
  PROP_FEC_SSRC,
  PROP_SSRC,
  PROP_WINDOW,
  PROP_STATS,
  PROP_RECOVERED,
  PROP_UNRECOVERED,
};

/* fecenc's default payload type. */
#define DEFAULT_PT 100
#define DEFAULT_FORMAT RC_FEC_FORMAT_FLEXFEC
#define DEFAULT_FEC_SSRC 0
#define DEFAULT_SSRC 0
/* Long enough for a 10 x 10 block at ~100 packets/s (1 Mbit/s of 1200-byte
 * packets), and for rtpbin's default 200 ms jitterbuffer latency; short
 * enough to bound memory. */
#define DEFAULT_WINDOW (1 * GST_SECOND)
/* Warn about this many rejected repair packets, then log at DEBUG. */
#define MAX_WARNINGS 10
/* Elements walked upstream looking for a jitterbuffer: rtpbin has three
 * (payload demuxer, jitterbuffer, SSRC demuxer). */
#define MAX_WALK 8
/* After a jitterbuffer: a gap wider than this is a jump, not a loss worth
 * looking up packet by packet (the decoder window is 2048). */
#define MAX_GAP 512

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));
/* rtpbin's fec-decoders slot links its recv_fec_sink_%u_%u pads here. */
static GstStaticPadTemplate fec_template = GST_STATIC_PAD_TEMPLATE ("fec_%u",
    GST_PAD_SINK, GST_PAD_REQUEST, GST_STATIC_CAPS ("application/x-rtp"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("application/x-rtp"));

#define gst_fec_dec_parent_class parent_class
G_DEFINE_TYPE (GstFecDec, gst_fec_dec, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (fecdec, "fecdec", GST_RANK_NONE,
    GST_TYPE_FEC_DEC, GST_DEBUG_CATEGORY_INIT (gst_fec_dec_debug, "fecdec", 0,
        "XOR parity FEC decoder"));

static GstClockTime
buffer_time (GstFecDec * self, GstBuffer * buf)
{
  GstClockTime t = GST_BUFFER_DTS_OR_PTS (buf);

  if (GST_CLOCK_TIME_IS_VALID (t) && self->segment.format == GST_FORMAT_TIME)
    t = gst_segment_to_running_time (&self->segment, GST_FORMAT_TIME, t);
  if (!GST_CLOCK_TIME_IS_VALID (t))
    t = gst_element_get_current_running_time (GST_ELEMENT (self));
  /* No timestamps and no clock: time stands still and the window is bound
   * by its seqnum capacity alone. */
  return GST_CLOCK_TIME_IS_VALID (t) ? t : 0;
}

static guint16
buf_seq (GstBuffer * b)
{
  guint8 h[4];

  if (gst_buffer_extract (b, 0, h, 4) != 4)
    return 0;
  return GST_READ_UINT16_BE (h + 2);
}

/* A recovered packet takes the timing of the packet that let it out. The
 * decoder keeps a ref, so this is a (shallow) copy. */
static GstBuffer *
retime (GstBuffer * rb, GstBuffer * like)
{
  rb = gst_buffer_make_writable (rb);
  GST_BUFFER_PTS (rb) = GST_BUFFER_PTS (like);
  GST_BUFFER_DTS (rb) = GST_BUFFER_DTS (like);
  return rb;
}

static void
log_result (GstFecDec * self, RcFecDecoder * dec, RcFecResult r,
    gboolean is_fec, GstBuffer * buf)
{
  RcFecDecoderStats st;

  if (r == RC_FEC_OK || r == RC_FEC_OLD)
    return;
  rc_fec_decoder_get_stats (dec, &st);
  if (r != RC_FEC_DUPLICATE && st.rejected <= MAX_WARNINGS)
    GST_WARNING_OBJECT (self, "%s packet seq %u dropped: %s",
        is_fec ? "repair" : "media", buf_seq (buf),
        rc_fec_result_to_string (r));
  else
    GST_DEBUG_OBJECT (self, "%s packet seq %u: %s",
        is_fec ? "repair" : "media", buf_seq (buf),
        rc_fec_result_to_string (r));
}

/* ------------------------------------------ shared decoder (tap) */

/* One per listening pad (an rtpbin session's SSRC demuxer input): the
 * decoder the fecdec instances after that session's jitterbuffers share. */
struct _GstFecDecTap
{
  gint ref;                     /* atomic; the probe holds one */
  guint users;                  /* attached instances (tap_lock) */
  GMutex lock;                  /* decoder and scratch */
  RcFecDecoder *dec;
  GPtrArray *out;
  GstClockTime last_now;
  GstPad *pad;
  gulong probe;                 /* tap_lock */
};

/* Guards attaching and leaving, and the pad's tap_quark data. */
static GMutex tap_lock;
static GQuark tap_quark;

static GstFecDecTap *
tap_ref (GstFecDecTap * t)
{
  g_atomic_int_inc (&t->ref);
  return t;
}

static void
tap_unref (GstFecDecTap * t)
{
  if (!g_atomic_int_dec_and_test (&t->ref))
    return;
  rc_fec_decoder_free (t->dec);
  g_ptr_array_unref (t->out);
  gst_object_unref (t->pad);
  g_mutex_clear (&t->lock);
  g_free (t);
}

/* Feeds one packet seen upstream of the jitterbuffer (a GstRcBufferFunc:
 * `tap` is the GstFecDecTap). */
static void
tap_feed (gpointer tap, GstBuffer * buf)
{
  GstFecDecTap *t = tap;
  GstClockTime now = GST_BUFFER_DTS_OR_PTS (buf);
  guint8 hdr[RC_FEC_RTP_HEADER_LEN];
  guint i;

  if (!rc_fec_read_header (buf, hdr))
    return;
  g_mutex_lock (&t->lock);
  /* Arrival timestamps only age the window; none: time stands still. */
  if (GST_CLOCK_TIME_IS_VALID (now))
    t->last_now = now;
  else
    now = t->last_now;
  if (rc_fec_decoder_is_fec_hdr (t->dec, hdr))
    rc_fec_decoder_push_fec (t->dec, buf, now, t->out);
  else
    rc_fec_decoder_push_media_hdr (t->dec, buf, hdr, now, t->out);
  /* Rebuilt packets stay in the decoder's window: the instances after the
   * jitterbuffer take them from there, in sequence. */
  for (i = 0; i < t->out->len; i++)
    gst_buffer_unref (t->out->pdata[i]);
  g_ptr_array_set_size (t->out, 0);
  g_mutex_unlock (&t->lock);
}

static GstPadProbeReturn
tap_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  gst_rc_probe_foreach_buffer (info, tap_feed, user_data);
  /* Only listening: the data path is left as it is. */
  return GST_PAD_PROBE_OK;
}

/* Joins the decoder listening on `pad`, or starts one with `cfg`. */
static GstFecDecTap *
tap_attach (GstPad * pad, const RcFecDecoderConfig * cfg)
{
  GstFecDecTap *t;

  g_mutex_lock (&tap_lock);
  t = g_object_get_qdata (G_OBJECT (pad), tap_quark);
  if (t) {
    tap_ref (t);
  } else {
    t = g_new0 (GstFecDecTap, 1);
    t->ref = 2;                 /* the instance and the probe */
    g_mutex_init (&t->lock);
    t->dec = rc_fec_decoder_new (cfg);
    t->out = g_ptr_array_new ();
    t->pad = gst_object_ref (pad);
    t->probe = gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
        GST_PAD_PROBE_TYPE_BUFFER_LIST, tap_probe, t,
        (GDestroyNotify) tap_unref);
    g_object_set_qdata (G_OBJECT (pad), tap_quark, t);
  }
  t->users++;
  g_mutex_unlock (&tap_lock);
  return t;
}

/* The last instance to leave stops the listening. */
static void
tap_detach (GstFecDecTap * t)
{
  gulong probe = 0;

  g_mutex_lock (&tap_lock);
  if (--t->users == 0) {
    g_object_set_qdata (G_OBJECT (t->pad), tap_quark, NULL);
    probe = t->probe;
    t->probe = 0;
  }
  g_mutex_unlock (&tap_lock);
  /* Drops the probe's ref once no callback runs any more. */
  if (probe)
    gst_pad_remove_probe (t->pad, probe);
  tap_unref (t);
}

static gboolean
is_factory (GstElement * e, const gchar * name)
{
  GstElementFactory *f = gst_element_get_factory (e);

  return f && g_str_equal (GST_OBJECT_NAME (f), name);
}

/* rtpjitterbuffer, or a replacement from rtpbin's request-jitterbuffer,
 * which must expose its API (GstRtpBin docs). */
static gboolean
is_jitterbuffer (GstElement * e)
{
  GObjectClass *k = G_OBJECT_GET_CLASS (e);

  return is_factory (e, "rtpjitterbuffer") ||
      (g_object_class_find_property (k, "do-lost") &&
      g_object_class_find_property (k, "latency"));
}

/* Walks the links upstream. Returns NULL if no jitterbuffer is upstream;
 * else the pad to listen on: the input of an SSRC demuxer above the
 * jitterbuffer (it sees every SSRC of the session, flexfec's included),
 * or the jitterbuffer's own input. `*latency_ms` gets its latency. */
static GstPad *
find_tap_pad (GstFecDec * self, guint * latency_ms)
{
  GstPad *peer = gst_pad_get_peer (self->sinkpad);
  GstPad *tap = NULL;
  guint depth;

  for (depth = 0; peer && depth < MAX_WALK; depth++) {
    GstElement *e = gst_pad_get_parent_element (peer);
    GstPad *sink;

    gst_clear_object (&peer);
    if (!e)
      break;
    if (tap && is_factory (e, "rtpssrcdemux")) {
      gst_object_unref (tap);
      tap = gst_element_get_static_pad (e, "sink");
      gst_object_unref (e);
      break;
    }
    sink = gst_element_get_static_pad (e, "sink");
    if (!tap && sink && is_jitterbuffer (e)) {
      tap = gst_object_ref (sink);
      g_object_get (e, "latency", latency_ms, NULL);
    }
    gst_object_unref (e);
    if (!sink)
      break;
    peer = gst_pad_get_peer (sink);
    gst_object_unref (sink);
  }
  gst_clear_object (&peer);
  return tap;
}

/* First packet: before or after a jitterbuffer? */
static void
place (GstFecDec * self)
{
  guint latency_ms = 0;
  GstPad *pad = find_tap_pad (self, &latency_ms);
  RcFecDecoderConfig cfg;
  GstFecDecTap *t;

  self->placed = TRUE;
  if (!pad) {
    GST_DEBUG_OBJECT (self, "no jitterbuffer upstream: repairing in place");
    return;
  }
  GST_OBJECT_LOCK (self);
  cfg = self->cfg;
  GST_OBJECT_UNLOCK (self);
  if (latency_ms * GST_MSECOND >= cfg.window)
    GST_WARNING_OBJECT (self, "window %" GST_TIME_FORMAT " is not longer "
        "than the jitterbuffer latency (%u ms): packets will be forgotten "
        "before they are needed", GST_TIME_ARGS (cfg.window), latency_ms);
  t = tap_attach (pad, &cfg);
  GST_DEBUG_OBJECT (self, "after a jitterbuffer (latency %u ms): sharing "
      "the decoder fed at %s:%s", latency_ms, GST_DEBUG_PAD_NAME (pad));
  gst_object_unref (pad);
  GST_OBJECT_LOCK (self);
  self->tap = t;
  GST_OBJECT_UNLOCK (self);
}

/* Object lock held. */
static void
leave_tap_locked (GstFecDec * self, GstFecDecTap ** t)
{
  *t = self->tap;
  self->tap = NULL;
  if (*t) {
    g_mutex_lock (&(*t)->lock);
    rc_fec_decoder_get_stats ((*t)->dec, &self->tap_stats);
    g_mutex_unlock (&(*t)->lock);
    self->have_tap_stats = TRUE;
  }
}

/* ------------------------------------ rtpbin's fec-decoders slot */

/* rtpbin 1.22 puts the fec-decoders element between its SSRC demuxer and
 * the jitterbuffer of the session's first SSRC only (gstrtpbin.c:
 * new_ssrc_pad_found(), "does not yet support multiple ssrc's"): the
 * demuxer pad of every later SSRC stays unlinked, and its first packet
 * stops the stream with a bare not-linked. Flexfec repair packets on their
 * own SSRC in the media stream are such an SSRC. fecdec watches the
 * demuxer's new pads and says what is wrong, on the bus, instead. */

typedef struct
{
  GstFecDec *self;              /* ref */
  guint32 ssrc;
  gboolean told;                /* streaming thread of the demuxer */
} StrayPad;

static void
stray_pad_free (StrayPad * sp)
{
  gst_object_unref (sp->self);
  g_free (sp);
}

#define SLOT_ADVICE "Return fecdec from rtpbin's request-fec-decoder " \
  "signal instead (it takes every SSRC of the session, flexfec's " \
  "included), or send the repair packets on a port of their own to " \
  "rtpbin's recv_fec_sink_<session>_0 pad."

/* A packet on a demuxer pad rtpbin left unlinked: repair packets are
 * dropped with a warning (the media go on, unrepaired); anything else
 * is an error, as the not-linked would have been, but one that says why. */
static GstPadProbeReturn
stray_probe (GstPad * pad, GstPadProbeInfo * info, StrayPad * sp)
{
  GstFecDec *self = sp->self;
  RcFecDecoderStats st = { 0, };
  GstBuffer *buf = NULL;
  guint8 h[RC_FEC_RTP_HEADER_LEN];
  gboolean repair;
  guint32 linked;

  /* Linked by someone after all: nothing to say. */
  if (gst_pad_is_linked (pad))
    return GST_PAD_PROBE_REMOVE;
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER)
    buf = GST_PAD_PROBE_INFO_BUFFER (info);
  else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST &&
      gst_buffer_list_length (GST_PAD_PROBE_INFO_BUFFER_LIST (info)) > 0)
    buf = gst_buffer_list_get (GST_PAD_PROBE_INFO_BUFFER_LIST (info), 0);
  if (sp->told || !buf || !rc_fec_read_header (buf, h))
    return GST_PAD_PROBE_DROP;
  sp->told = TRUE;

  GST_OBJECT_LOCK (self);
  repair = self->cfg.format == RC_FEC_FORMAT_FLEXFEC &&
      (h[1] & 0x7f) == self->cfg.pt;
  linked = self->slot_ssrc;
  if (self->dec)
    rc_fec_decoder_get_stats (self->dec, &st);
  GST_OBJECT_UNLOCK (self);
  if (repair)
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("FEC repair packets on their own SSRC (%08x) in the media stream "
            "cannot reach fecdec in rtpbin's fec-decoders slot: they are "
            "dropped and the media go on without repair. " SLOT_ADVICE,
            sp->ssrc), ("rtpbin 1.22 links the fec-decoders element to the "
            "session's first SSRC only (%08x); left to rtpbin, the packets "
            "of SSRC %08x would stop the stream with not-linked", linked,
            sp->ssrc));
  else if (st.media_received == 0 && st.fec_received > 0)
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("The media (SSRC %08x) cannot pass: rtpbin's fec-decoders slot "
            "holds one SSRC per session, and the FEC repair stream "
            "(SSRC %08x) came first and took it. " SLOT_ADVICE, sp->ssrc,
            linked), ("rtpbin 1.22 links the fec-decoders element to the "
            "session's first SSRC only; fecdec drops the packets of SSRC "
            "%08x rather than let them stop the stream with a bare "
            "not-linked", sp->ssrc));
  else
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("A second RTP stream (SSRC %08x, payload type %u) cannot pass: "
            "rtpbin's fec-decoders slot holds one SSRC per session, and "
            "fecdec has SSRC %08x. " SLOT_ADVICE, sp->ssrc, h[1] & 0x7f,
            linked), ("rtpbin 1.22 links the fec-decoders element to the "
            "session's first SSRC only; fecdec drops the packets of SSRC "
            "%08x rather than let them stop the stream with a bare "
            "not-linked", sp->ssrc));
  return GST_PAD_PROBE_DROP;
}

static void
watch_stray_pad (GstFecDec * self, GstPad * pad)
{
  StrayPad *sp;
  guint ssrc;

  if (gst_pad_is_linked (pad) ||
      sscanf (GST_PAD_NAME (pad), "src_%u", &ssrc) != 1)
    return;
  GST_DEBUG_OBJECT (self, "rtpbin left %s:%s unlinked: watching it",
      GST_DEBUG_PAD_NAME (pad));
  sp = g_new0 (StrayPad, 1);
  sp->self = gst_object_ref (self);
  sp->ssrc = ssrc;
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, (GstPadProbeCallback) stray_probe, sp,
      (GDestroyNotify) stray_pad_free);
}

/* Emitted by the demuxer for each new SSRC; rtpbin's own handler, which
 * tries to link the pad here, was connected first and has run. */
static void
slot_new_ssrc_pad (GstElement * demux, guint ssrc, GstPad * pad,
    GstFecDec * self)
{
  watch_stray_pad (self, pad);
}

static void
unref_notify (gpointer self, GClosure * closure)
{
  gst_object_unref (self);
}

static void
unwatch_slot (GstFecDec * self)
{
  GstElement *demux;
  gulong sig;

  GST_OBJECT_LOCK (self);
  demux = self->slot_demux;
  sig = self->slot_sig;
  self->slot_demux = NULL;
  self->slot_sig = 0;
  GST_OBJECT_UNLOCK (self);
  if (demux) {
    g_signal_handler_disconnect (demux, sig);
    gst_object_unref (demux);
  }
}

/* Is the sink pad's peer a pad of the SSRC demuxer inside an rtpbin (the
 * fec-decoders slot)? Then watch that demuxer's other pads. */
static void
watch_slot (GstFecDec * self, GstPad * peer)
{
  GstElement *demux = gst_pad_get_parent_element (peer);
  GstObject *bin = demux ? gst_object_get_parent (GST_OBJECT (demux)) : NULL;
  GstIterator *it;
  GValue v = G_VALUE_INIT;
  guint ssrc;

  if (!demux || !bin || !is_factory (demux, "rtpssrcdemux") ||
      !g_str_equal (G_OBJECT_TYPE_NAME (bin), "GstRtpBin") ||
      sscanf (GST_PAD_NAME (peer), "src_%u", &ssrc) != 1) {
    gst_clear_object (&demux);
    gst_clear_object (&bin);
    return;
  }
  gst_object_unref (bin);
  unwatch_slot (self);
  GST_DEBUG_OBJECT (self, "in rtpbin's fec-decoders slot, on SSRC %08x",
      ssrc);
  GST_OBJECT_LOCK (self);
  self->slot_demux = demux;
  self->slot_ssrc = ssrc;
  /* The handler holds a ref; unwatch_slot() drops it, at the latest when
   * streaming stops (PAUSED to READY). */
  self->slot_sig = g_signal_connect_data (demux, "new-ssrc-pad",
      G_CALLBACK (slot_new_ssrc_pad), gst_object_ref (self), unref_notify,
      0);
  GST_OBJECT_UNLOCK (self);
  /* SSRCs the demuxer knew before (its RTCP input creates pads too). */
  it = gst_element_iterate_src_pads (demux);
  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstPad *p = g_value_get_object (&v);
    if (p != peer)
      watch_stray_pad (self, p);
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
}

static void
sink_linked (GstPad * pad, GstPad * peer, GstFecDec * self)
{
  watch_slot (self, peer);
}

static void
sink_unlinked (GstPad * pad, GstPad * peer, GstFecDec * self)
{
  unwatch_slot (self);
}

/* ------------------------------------------------------ data flow */

/* Before a jitterbuffer: decode here, push what is rebuilt at once. */
static GstFlowReturn
chain_in_place (GstFecDec * self, GstBuffer * buf)
{
  GstClockTime now = buffer_time (self, buf);
  GstFlowReturn ret = GST_FLOW_OK;
  GPtrArray *out = self->out;
  guint8 hdr[RC_FEC_RTP_HEADER_LEN];
  gboolean have_hdr, is_fec, forward;
  guint64 pushed = 0;
  RcFecResult r;
  guint i;

  /* Read once: it tells repair from media, and orders the output. */
  have_hdr = rc_fec_read_header (buf, hdr);
  GST_OBJECT_LOCK (self);
  if (!self->dec) {
    GST_OBJECT_UNLOCK (self);
    gst_buffer_unref (buf);
    return GST_FLOW_FLUSHING;
  }
  is_fec = have_hdr && rc_fec_decoder_is_fec_hdr (self->dec, hdr);
  if (is_fec) {
    r = rc_fec_decoder_push_fec (self->dec, buf, now, out);
    forward = FALSE;
  } else {
    r = have_hdr ? rc_fec_decoder_push_media_hdr (self->dec, buf, hdr, now,
        out) : RC_FEC_NOT_RTP;
    forward = r != RC_FEC_DUPLICATE;
  }
  log_result (self, self->dec, r, is_fec, buf);
  GST_OBJECT_UNLOCK (self);

  /* Recovered packets older than the one that arrived go before it. */
  if (forward) {
    guint16 seq = GST_READ_UINT16_BE (hdr + 2);
    for (i = 0; i < out->len && ret == GST_FLOW_OK; i++) {
      GstBuffer *rb = out->pdata[i];
      if (rb && (gint16) (buf_seq (rb) - seq) < 0) {
        GST_LOG_OBJECT (self, "pushing recovered seq %u", buf_seq (rb));
        ret = gst_pad_push (self->srcpad, retime (rb, buf));
        out->pdata[i] = NULL;
        pushed++;
      }
    }
    if (ret == GST_FLOW_OK) {
      ret = gst_pad_push (self->srcpad, buf);
      if (G_UNLIKELY (!g_atomic_int_get (&self->src_ready)))
        g_atomic_int_set (&self->src_ready, 1);
    } else {
      gst_buffer_unref (buf);
    }
    buf = NULL;
  }
  for (i = 0; i < out->len; i++) {
    GstBuffer *rb = out->pdata[i];
    if (!rb)
      continue;
    if (ret == GST_FLOW_OK) {
      if (buf)
        rb = retime (rb, buf);
      GST_LOG_OBJECT (self, "pushing recovered seq %u", buf_seq (rb));
      ret = gst_pad_push (self->srcpad, rb);
      pushed++;
    } else {
      gst_buffer_unref (rb);
    }
  }
  if (buf)
    gst_buffer_unref (buf);
  g_ptr_array_set_size (out, 0);
  if (pushed) {
    GST_OBJECT_LOCK (self);
    self->recovered_pushed += pushed;
    GST_OBJECT_UNLOCK (self);
  }
  return ret;
}

/* After a jitterbuffer: pushes the packet of `ssrc`/`seq` if the shared
 * decoder rebuilt it and it belongs on this pad (payload type `pt`).
 * `*filled` stays TRUE while every seqnum looked up is accounted for: it
 * went out here, or it is an ULPFEC repair packet's. */
static GstFlowReturn
push_rebuilt (GstFecDec * self, guint32 ssrc, guint16 seq, guint8 pt,
    GstBuffer * like, gboolean * filled)
{
  GstFecDecTap *t = self->tap;
  RcFecSeqState st;
  GstBuffer *rb;
  guint8 h[2];

  g_mutex_lock (&t->lock);
  st = rc_fec_decoder_lookup (t->dec, ssrc, seq, &rb);
  g_mutex_unlock (&t->lock);
  if (st == RC_FEC_SEQ_REPAIR)
    return GST_FLOW_OK;
  /* rtpbin gives each payload type its own pad (and fecdec). */
  if (!rb || gst_buffer_extract (rb, 0, h, 2) != 2 || (h[1] & 0x7f) != pt) {
    if (rb)
      gst_buffer_unref (rb);
    *filled = FALSE;
    return GST_FLOW_OK;
  }
  GST_OBJECT_LOCK (self);
  self->recovered_pushed++;
  GST_OBJECT_UNLOCK (self);
  GST_LOG_OBJECT (self, "pushing recovered seq %u in sequence", seq);
  return gst_pad_push (self->srcpad, retime (rb, like));
}

static GstFlowReturn
chain_after_jitterbuffer (GstFecDec * self, GstBuffer * buf)
{
  GstFlowReturn ret = GST_FLOW_OK;
  guint8 h[RC_FEC_RTP_HEADER_LEN];
  gboolean filled = FALSE;
  guint32 ssrc;
  guint16 seq;
  guint8 pt;

  if (!rc_fec_read_header (buf, h) || (h[0] & 0xc0) != 0x80)
    return gst_pad_push (self->srcpad, buf);
  /* The listening decoder has had it already; the decoder's settings are
   * fixed once it exists. */
  if (rc_fec_decoder_is_fec_hdr (self->tap->dec, h)) {
    gst_buffer_unref (buf);
    return GST_FLOW_OK;
  }
  pt = h[1] & 0x7f;
  seq = GST_READ_UINT16_BE (h + 2);
  ssrc = GST_READ_UINT32_BE (h + 8);

  if (self->have_last && ssrc == self->last_ssrc) {
    gint gap = (gint16) (seq - self->last_seq);
    guint16 s;

    if (gap <= 0 && gap > -MAX_GAP) {
      GST_LOG_OBJECT (self, "seq %u after %u: passed on as it is", seq,
          self->last_seq);
      return gst_pad_push (self->srcpad, buf);
    }
    /* Whatever the decoder rebuilt in the gap goes out first, in order:
     * the jitterbuffer held this packet long enough for the repair
     * packets to have passed the tap. */
    if (gap > 1 && gap <= MAX_GAP) {
      filled = TRUE;
      for (s = self->last_seq + 1; s != seq && ret == GST_FLOW_OK; s++)
        ret = push_rebuilt (self, ssrc, s, pt, buf, &filled);
    } else if (gap == 1) {
      filled = self->filled_lost;
    }
  }
  self->filled_lost = FALSE;
  self->have_last = TRUE;
  self->last_seq = seq;
  self->last_ssrc = ssrc;
  self->last_pt = pt;
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (buf);
    return ret;
  }
  /* The jitterbuffer marked the gap it saw; it is filled now, and a
   * depayloader would throw away the frame for a discontinuity. */
  if (filled && GST_BUFFER_IS_DISCONT (buf)) {
    buf = gst_buffer_make_writable (buf);
    GST_BUFFER_FLAG_UNSET (buf, GST_BUFFER_FLAG_DISCONT);
  }
  return gst_pad_push (self->srcpad, buf);
}

/* A jitterbuffer with do-lost announces a loss before the next packet: if
 * the packet was rebuilt, it goes out instead of the announcement. */
static gboolean
handle_lost_event (GstFecDec * self, GstEvent * event)
{
  const GstStructure *s = gst_event_get_structure (event);
  GstClockTime ts = GST_CLOCK_TIME_NONE;
  gboolean filled = TRUE;
  GstBuffer *like;
  guint seqnum;

  if (!self->tap || !self->have_last || !s ||
      !gst_structure_has_name (s, "GstRTPPacketLost") ||
      !gst_structure_get_uint (s, "seqnum", &seqnum) ||
      (guint16) seqnum != (guint16) (self->last_seq + 1))
    return FALSE;
  like = gst_buffer_new ();
  gst_structure_get_clock_time (s, "timestamp", &ts);
  GST_BUFFER_PTS (like) = ts;
  push_rebuilt (self, self->last_ssrc, seqnum, self->last_pt, like, &filled);
  gst_buffer_unref (like);
  if (!filled)
    return FALSE;
  self->last_seq = seqnum;
  self->filled_lost = TRUE;
  gst_event_unref (event);
  return TRUE;
}

static GstFlowReturn
gst_fec_dec_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstFecDec *self = GST_FEC_DEC (parent);

  if (G_UNLIKELY (!self->placed))
    place (self);
  if (self->tap)
    return chain_after_jitterbuffer (self, buf);
  return chain_in_place (self, buf);
}

/* Repair packets on a fec_%u pad (a separate transport, e.g. rtpbin's
 * recv_fec_sink_%u_%u). */
static GstFlowReturn
gst_fec_dec_fec_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GstFecDec *self = GST_FEC_DEC (parent);
  GPtrArray *out = gst_pad_get_element_private (pad);
  GstClockTime now = buffer_time (self, buf);
  GstFlowReturn ret = GST_FLOW_OK;
  GstFecDecTap *t;
  RcFecResult r;
  guint i;

  GST_OBJECT_LOCK (self);
  t = self->tap ? tap_ref (self->tap) : NULL;
  if (t) {
    GST_OBJECT_UNLOCK (self);
    tap_feed (t, buf);
    tap_unref (t);
    gst_buffer_unref (buf);
    return GST_FLOW_OK;
  }
  if (!self->dec) {
    GST_OBJECT_UNLOCK (self);
    gst_buffer_unref (buf);
    return GST_FLOW_FLUSHING;
  }
  if (rc_fec_decoder_is_fec (self->dec, buf)) {
    r = rc_fec_decoder_push_fec (self->dec, buf, now, out);
    log_result (self, self->dec, r, TRUE, buf);
  } else {
    GST_DEBUG_OBJECT (self, "%s: payload type is not %u, dropped",
        GST_PAD_NAME (pad), self->cfg.pt);
  }
  GST_OBJECT_UNLOCK (self);

  /* The media thread may push at the same time: the jitterbuffer's sink
   * pad stream lock orders the two, and it reorders by seqnum. Nothing
   * goes out before the media's sticky events did. */
  for (i = 0; i < out->len; i++) {
    GstBuffer *rb = out->pdata[i];
    if (ret == GST_FLOW_OK && g_atomic_int_get (&self->src_ready)) {
      GST_LOG_OBJECT (self, "pushing recovered seq %u", buf_seq (rb));
      ret = gst_pad_push (self->srcpad, retime (rb, buf));
      GST_OBJECT_LOCK (self);
      self->recovered_pushed++;
      GST_OBJECT_UNLOCK (self);
    } else {
      gst_buffer_unref (rb);
    }
  }
  g_ptr_array_set_size (out, 0);
  gst_buffer_unref (buf);
  /* The media path decides about the stream; a repair path's downstream
   * troubles are the media's. */
  return ret == GST_FLOW_FLUSHING ? ret : GST_FLOW_OK;
}

static gboolean
gst_fec_dec_fec_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  /* The media pad's events describe the output stream; a repair path's
   * caps, segments and EOS do not reach it. */
  gst_event_unref (event);
  return TRUE;
}

static gboolean
gst_fec_dec_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GstFecDec *self = GST_FEC_DEC (parent);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_SEGMENT:
      gst_event_copy_segment (event, &self->segment);
      break;
    case GST_EVENT_CUSTOM_DOWNSTREAM:
      if (handle_lost_event (self, event))
        return TRUE;
      break;
    case GST_EVENT_EOS:
    case GST_EVENT_FLUSH_STOP:
      /* Settle the loss counts of what is still in the window (the shared
       * decoder is the session's: other instances still use it). */
      GST_OBJECT_LOCK (self);
      if (self->dec && !self->tap)
        rc_fec_decoder_reset (self->dec);
      GST_OBJECT_UNLOCK (self);
      self->have_last = FALSE;
      break;
    default:
      break;
  }
  return gst_pad_event_default (pad, parent, event);
}

/* ------------------------------------------------------ request pads */

static GstPad *
gst_fec_dec_request_new_pad (GstElement * element, GstPadTemplate * templ,
    const gchar * name, const GstCaps * caps)
{
  GstFecDec *self = GST_FEC_DEC (element);
  GstPad *pad;
  gchar *pad_name;

  GST_OBJECT_LOCK (self);
  if (name)
    pad_name = g_strdup (name);
  else
    pad_name = g_strdup_printf ("fec_%u", self->next_fec_pad++);
  GST_OBJECT_UNLOCK (self);

  pad = gst_pad_new_from_template (templ, pad_name);
  g_free (pad_name);
  gst_pad_set_chain_function (pad, gst_fec_dec_fec_chain);
  gst_pad_set_event_function (pad, gst_fec_dec_fec_event);
  gst_pad_set_element_private (pad, g_ptr_array_new ());
  gst_pad_set_active (pad, TRUE);
  if (!gst_element_add_pad (element, pad)) {
    g_ptr_array_unref (gst_pad_get_element_private (pad));
    gst_object_unref (pad);
    return NULL;
  }
  return pad;
}

static void
gst_fec_dec_release_pad (GstElement * element, GstPad * pad)
{
  GPtrArray *out = gst_pad_get_element_private (pad);

  gst_pad_set_active (pad, FALSE);
  gst_element_remove_pad (element, pad);
  if (out)
    g_ptr_array_unref (out);
}

/* -------------------------------------------------------- state change */

static GstStateChangeReturn
gst_fec_dec_change_state (GstElement * element, GstStateChange transition)
{
  GstFecDec *self = GST_FEC_DEC (element);
  GstStateChangeReturn ret;
  GstFecDecTap *t = NULL;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    GST_OBJECT_LOCK (self);
    rc_fec_decoder_free (self->dec);
    self->dec = rc_fec_decoder_new (&self->cfg);
    self->recovered_pushed = 0;
    self->have_tap_stats = FALSE;
    GST_OBJECT_UNLOCK (self);
    self->placed = FALSE;
    self->have_last = FALSE;
    g_atomic_int_set (&self->src_ready, 0);
  }
  /* Linked in an earlier run: the pad stays linked, no signal comes. */
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    GstPad *peer = gst_pad_get_peer (self->sinkpad);
    if (peer) {
      watch_slot (self, peer);
      gst_object_unref (peer);
    }
  }

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);

  /* The decoder (and its counts) stays until the next start, so the
   * stats can still be read after the stream ended; a shared one is left
   * (its counts kept) once streaming has stopped. */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    GST_OBJECT_LOCK (self);
    leave_tap_locked (self, &t);
    GST_OBJECT_UNLOCK (self);
    if (t)
      tap_detach (t);
    unwatch_slot (self);
  }
  return ret;
}

/* ---------------------------------------------------------- properties */

static GstStructure *
get_stats (GstFecDec * self)
{
  RcFecDecoderStats st = { 0, };
  GstFecDecTap *t = NULL;
  guint64 expected, pushed;
  gboolean after;

  GST_OBJECT_LOCK (self);
  pushed = self->recovered_pushed;
  after = self->tap || self->have_tap_stats;
  if (self->tap)
    t = tap_ref (self->tap);
  else if (self->have_tap_stats)
    st = self->tap_stats;
  else if (self->dec)
    rc_fec_decoder_get_stats (self->dec, &st);
  GST_OBJECT_UNLOCK (self);
  if (t) {
    g_mutex_lock (&t->lock);
    rc_fec_decoder_get_stats (t->dec, &st);
    g_mutex_unlock (&t->lock);
    tap_unref (t);
  }
  /* Recovered packets are not in media_received: expected = received +
   * lost before repair. */
  expected = st.media_received + st.lost_before;
  return gst_structure_new ("application/x-fecdec-stats",
      "media-received", G_TYPE_UINT64, st.media_received,
      "fec-received", G_TYPE_UINT64, st.fec_received,
      "recovered", G_TYPE_UINT64, st.recovered,
      "unrecoverable", G_TYPE_UINT64, st.unrecoverable,
      "rejected", G_TYPE_UINT64, st.rejected,
      "duplicates", G_TYPE_UINT64, st.duplicates,
      "lost-before", G_TYPE_UINT64, st.lost_before,
      "lost-after", G_TYPE_UINT64, st.lost_after,
      "loss-before", G_TYPE_DOUBLE, expected ?
      (gdouble) st.lost_before / expected : 0.0,
      "loss-after", G_TYPE_DOUBLE, expected ?
      (gdouble) st.lost_after / expected : 0.0,
      "frames-hit", G_TYPE_UINT64, st.frames_hit,
      "frames-recovered", G_TYPE_UINT64, st.frames_recovered,
      "ffre", G_TYPE_DOUBLE, st.frames_hit ?
      (gdouble) st.frames_recovered / st.frames_hit : 0.0,
      "recovered-pushed", G_TYPE_UINT64, pushed,
      "placement", G_TYPE_STRING, after ? "after-jitterbuffer" :
      "before-jitterbuffer", NULL);
}

static void
gst_fec_dec_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstFecDec *self = GST_FEC_DEC (object);

  GST_OBJECT_LOCK (self);
  if ((pspec->flags & GST_PARAM_MUTABLE_READY) &&
      GST_STATE (self) > GST_STATE_READY) {
    GST_OBJECT_UNLOCK (self);
    GST_WARNING_OBJECT (self, "property '%s' can only be changed in the "
        "NULL or READY state; ignored", pspec->name);
    return;
  }
  switch (prop_id) {
    case PROP_PT:
      self->cfg.pt = g_value_get_uint (value);
      break;
    case PROP_FORMAT:
      self->cfg.format = g_value_get_enum (value);
      break;
    case PROP_FEC_SSRC:
      self->cfg.fec_ssrc = g_value_get_uint (value);
      self->cfg.match_fec_ssrc = self->cfg.fec_ssrc != 0;
      break;
    case PROP_SSRC:
      self->cfg.media_ssrc = g_value_get_uint (value);
      self->cfg.match_media_ssrc = self->cfg.media_ssrc != 0;
      break;
    case PROP_WINDOW:
      self->cfg.window = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_fec_dec_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstFecDec *self = GST_FEC_DEC (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, get_stats (self));
    return;
  }
  if (prop_id == PROP_RECOVERED || prop_id == PROP_UNRECOVERED) {
    GstStructure *st = get_stats (self);
    guint64 n = 0;
    gst_structure_get_uint64 (st, prop_id == PROP_RECOVERED ? "recovered" :
        "unrecoverable", &n);
    gst_structure_free (st);
    g_value_set_uint (value, (guint) MIN (n, G_MAXUINT));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_PT:
      g_value_set_uint (value, self->cfg.pt);
      break;
    case PROP_FORMAT:
      g_value_set_enum (value, self->cfg.format);
      break;
    case PROP_FEC_SSRC:
      g_value_set_uint (value, self->cfg.fec_ssrc);
      break;
    case PROP_SSRC:
      g_value_set_uint (value, self->cfg.media_ssrc);
      break;
    case PROP_WINDOW:
      g_value_set_uint64 (value, self->cfg.window);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_fec_dec_finalize (GObject * object)
{
  GstFecDec *self = GST_FEC_DEC (object);
  GstFecDecTap *t = NULL;

  leave_tap_locked (self, &t);
  if (t)
    tap_detach (t);
  rc_fec_decoder_free (self->dec);
  if (self->out)
    g_ptr_array_unref (self->out);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_fec_dec_class_init (GstFecDecClass * klass)
{
  GObjectClass *gobject_class = (GObjectClass *) klass;
  GstElementClass *element_class = (GstElementClass *) klass;
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  tap_quark = g_quark_from_static_string ("GstFecDecTap");

  gobject_class->set_property = gst_fec_dec_set_property;
  gobject_class->get_property = gst_fec_dec_get_property;
  gobject_class->finalize = gst_fec_dec_finalize;
  element_class->change_state = gst_fec_dec_change_state;
  element_class->request_new_pad = gst_fec_dec_request_new_pad;
  element_class->release_pad = gst_fec_dec_release_pad;

  g_object_class_install_property (gobject_class, PROP_PT,
      g_param_spec_uint ("pt", "Payload type",
          "Payload type of the repair packets", 0, 127, DEFAULT_PT, rw));
  g_object_class_install_property (gobject_class, PROP_FORMAT,
      g_param_spec_enum ("format", "Format", "Repair packet format",
          GST_TYPE_FEC_FORMAT, DEFAULT_FORMAT, rw));
  g_object_class_install_property (gobject_class, PROP_FEC_SSRC,
      g_param_spec_uint ("fec-ssrc", "FEC SSRC",
          "Only accept flexfec repair packets from this SSRC (0: any)", 0,
          G_MAXUINT, DEFAULT_FEC_SSRC, rw));
  g_object_class_install_property (gobject_class, PROP_SSRC,
      g_param_spec_uint ("ssrc", "Media SSRC",
          "Only repair this media SSRC (0: any)", 0, G_MAXUINT, DEFAULT_SSRC,
          rw));
  g_object_class_install_property (gobject_class, PROP_WINDOW,
      g_param_spec_uint64 ("window", "Window",
          "How long packets are kept for repair (ns); bounds memory. After "
          "a jitterbuffer it must exceed its latency", 10 * GST_MSECOND,
          10 * GST_SECOND, DEFAULT_WINDOW, rw));
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Repair and loss counts: an application/x-fecdec-stats structure "
          "(fields: docs/elements/fecdec.md)",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /* The two counts rtpulpfecdec has, under its names, for applications
   * that read those. */
  g_object_class_install_property (gobject_class, PROP_RECOVERED,
      g_param_spec_uint ("recovered", "Recovered",
          "Lost media packets rebuilt from repair packets (stats "
          "'recovered')", 0, G_MAXUINT, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_UNRECOVERED,
      g_param_spec_uint ("unrecovered", "Unrecovered",
          "Lost media packets no repair packet could rebuild (stats "
          "'unrecoverable')", 0, G_MAXUINT, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &fec_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "XOR parity FEC decoder", "Codec/Decoder/Network/RTP",
      "Repairs lost RTP packets from RFC 8627 flexible FEC or RFC 5109 "
      "ULPFEC repair packets, with no storage or jitterbuffer needed",
      "gst-ratecontrol developers");
}

static void
gst_fec_dec_init (GstFecDec * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&sink_template, "sink");
  gst_pad_set_chain_function (self->sinkpad, gst_fec_dec_chain);
  gst_pad_set_event_function (self->sinkpad, gst_fec_dec_sink_event);
  g_signal_connect (self->sinkpad, "linked", G_CALLBACK (sink_linked), self);
  g_signal_connect (self->sinkpad, "unlinked", G_CALLBACK (sink_unlinked),
      self);
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);

  self->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);

  rc_fec_decoder_config_init (&self->cfg);
  self->cfg.pt = DEFAULT_PT;
  self->cfg.format = DEFAULT_FORMAT;
  self->cfg.window = DEFAULT_WINDOW;
  self->out = g_ptr_array_new ();
  gst_segment_init (&self->segment, GST_FORMAT_TIME);
}
