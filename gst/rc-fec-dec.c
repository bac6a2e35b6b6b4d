/* XOR parity FEC decoder (core): keeps a short window of media and repair
 * packets per media SSRC and rebuilds every packet a parity equation can
 * (RFC 8627 sec. 6.3.2, RFC 5109 sec. 8), for both RFC 8627 flexible FEC
 * and RFC 5109 ULPFEC. See rc-fec-dec.h for the interface, rc-fec.h for
 * the wire formats. No pads, no clock: the decoder is given the time with
 * every packet. */
#include <string.h>
#include "rc-fec-dec.h"
#include "rc-fec-private.h"

/* body_foreach() piece: the repair payload being rebuilt ^= it. */
static void
xor_chunk (gpointer dst, guint pos, const guint8 * data, guint len)
{
  rc_fec_xor ((guint8 *) dst + pos, data, len);
}

/* ------------------------------------------------------------ decoder */

/* Media window per SSRC, in sequence numbers: a power of two so a seqnum
 * maps to its slot with a mask. 2048 packets is ~1.6 s at 10 Mbit/s of
 * 1200-byte packets, above any window time we expect. */
#define WIN 2048
/* Repair packets waiting for more media (two or more missing). */
#define MAX_PENDING_FEC 128
/* Recently seen repair seqnums for duplicate detection. */
#define FEC_SEEN 256
/* Media SSRCs tracked at once: a few streams per session is the normal
 * case; the cap stops a flood of repair packets naming random SSRCs from
 * growing memory. When it is reached a new stream takes the place of one
 * that only repair packets ever named (for media), else of the one idle
 * longest if idle for more than the window: sixteen forged repair
 * packets no longer lock every later stream out of repair. */
#define MAX_STREAMS 16
/* Start of the unwrapped sequence space, so it never goes below 0. */
#define EXT_ORIGIN (G_GUINT64_CONSTANT (1) << 32)

enum
{
  SLOT_EMPTY = 0,               /* expected, not (yet) here */
  SLOT_MEDIA,
  SLOT_RECOVERED,
  SLOT_FEC,                     /* ulpfec repair packet's seqnum */
};

typedef struct
{
  GstBuffer *buf;
  guint64 ext;
  GstClockTime t;               /* when this seqnum became known */
  guint8 state;
} Slot;

typedef struct
{
  GstBuffer *buf;
  RcFecPacketInfo info;         /* payload pointer unused once stored */
  guint payload_off;            /* repair payload offset in buf */
  guint64 base_ext;
  GstClockTime t;
} PendingFec;

typedef struct
{
  guint32 ssrc;
  gboolean started;
  gboolean released;            /* the tail has moved since the start */
  guint64 highest;              /* newest seqnum known */
  guint64 tail;                 /* oldest seqnum still held */
  Slot slots[WIN];
  PendingFec pending[MAX_PENDING_FEC];
  guint n_pending;
  guint64 fec_seen[FEC_SEEN];   /* (ssrc << 16 | seq) + 1; 0 = free */
  guint fec_seen_pos;
  guint64 pt_seen[2];           /* media payload types seen */
  gboolean has_media;           /* a media packet came, not only repair */
  GstClockTime last_active;     /* last packet of either kind */
  /* Frames, as slots settle in order (frame_settle): the one under way
   * (its RTP timestamp; whether it lost a packet, and one not rebuilt),
   * and a loss settled after a frame's marker, which belongs to the
   * next frame. */
  gboolean fr_open, fr_hit, fr_unrepaired;
  guint32 fr_ts;
  gboolean next_hit;
} Stream;

struct _RcFecDecoder
{
  RcFecDecoderConfig cfg;
  GHashTable *streams;          /* ssrc -> Stream* */
  GstBufferPool *pool;
  RcFecDecoderStats stats;
  guint8 scratch[RC_FEC_MAX_PACKET];
};

const gchar *
rc_fec_result_to_string (RcFecResult r)
{
  switch (r) {
    case RC_FEC_OK:
      return "ok";
    case RC_FEC_NOT_RTP:
      return "not RTP";
    case RC_FEC_DUPLICATE:
      return "duplicate";
    case RC_FEC_OLD:
      return "older than the window";
    case RC_FEC_REJECT_MALFORMED:
      return "malformed";
    case RC_FEC_REJECT_WRONG_SSRC:
      return "wrong SSRC";
    case RC_FEC_REJECT_OUT_OF_WINDOW:
      return "mask outside the window";
    case RC_FEC_REJECT_STALE:
      return "protects packets already gone";
    case RC_FEC_REJECT_INCONSISTENT:
      return "inconsistent with the packets it protects";
  }
  return "?";
}

void
rc_fec_decoder_config_init (RcFecDecoderConfig * cfg)
{
  memset (cfg, 0, sizeof (*cfg));
  cfg->format = RC_FEC_FORMAT_FLEXFEC;
  cfg->pt = 100;
  /* Long enough for a 2-D block of 100 packets at 1 Mbit/s (~1 s would be
   * 100 packets of 1200 bytes); short enough to bound memory. */
  cfg->window = 1 * GST_SECOND;
}

static void
stream_free (gpointer p)
{
  Stream *s = p;
  guint i;

  for (i = 0; i < WIN; i++)
    gst_clear_buffer (&s->slots[i].buf);
  for (i = 0; i < s->n_pending; i++)
    gst_clear_buffer (&s->pending[i].buf);
  g_free (s);
}

RcFecDecoder *
rc_fec_decoder_new (const RcFecDecoderConfig * cfg)
{
  RcFecDecoder *dec = g_new0 (RcFecDecoder, 1);

  rc_fec_ensure_debug ();
  dec->cfg = *cfg;
  dec->streams = g_hash_table_new_full (NULL, NULL, NULL, stream_free);
  dec->pool = rc_fec_pool_new (POOL_BUFFER_SIZE);
  return dec;
}

void
rc_fec_decoder_free (RcFecDecoder * dec)
{
  if (!dec)
    return;
  g_hash_table_destroy (dec->streams);
  rc_fec_pool_free (dec->pool);
  g_free (dec);
}

/* Makes room for a new stream (see MAX_STREAMS); FALSE if none may go. */
static gboolean
evict_stream (RcFecDecoder * dec, gboolean media, GstClockTime now)
{
  GHashTableIter it;
  gpointer v;
  Stream *victim = NULL;
  gboolean victim_repair_only = FALSE;

  g_hash_table_iter_init (&it, dec->streams);
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    Stream *s = v;
    gboolean repair_only = media && !s->has_media;
    gboolean idle = GST_CLOCK_TIME_IS_VALID (now) &&
        GST_CLOCK_TIME_IS_VALID (s->last_active) &&
        now > s->last_active + dec->cfg.window;

    if (!repair_only && !idle)
      continue;
    if (!victim || (repair_only && !victim_repair_only) ||
        (repair_only == victim_repair_only &&
            s->last_active < victim->last_active)) {
      victim = s;
      victim_repair_only = repair_only;
    }
  }
  if (!victim)
    return FALSE;
  GST_DEBUG ("stream table full: SSRC %08x (%s) makes room", victim->ssrc,
      victim_repair_only ? "only repair packets" : "idle");
  g_hash_table_remove (dec->streams, GUINT_TO_POINTER (victim->ssrc));
  return TRUE;
}

static Stream *
get_stream (RcFecDecoder * dec, guint32 ssrc, gboolean media,
    GstClockTime now)
{
  Stream *s = g_hash_table_lookup (dec->streams, GUINT_TO_POINTER (ssrc));

  if (!s && g_hash_table_size (dec->streams) >= MAX_STREAMS &&
      !evict_stream (dec, media, now))
    return NULL;
  if (!s) {
    s = g_new0 (Stream, 1);
    s->ssrc = ssrc;
    s->last_active = GST_CLOCK_TIME_NONE;
    g_hash_table_insert (dec->streams, GUINT_TO_POINTER (ssrc), s);
  }
  if (GST_CLOCK_TIME_IS_VALID (now))
    s->last_active = now;
  s->has_media |= media;
  return s;
}

static guint64
unwrap (Stream * s, guint16 seq)
{
  if (!s->started)
    return EXT_ORIGIN + seq;
  return s->highest + (gint16) (seq - (guint16) s->highest);
}

static inline Slot *
slot_of (Stream * s, guint64 ext)
{
  return &s->slots[ext & (WIN - 1)];
}

static inline gboolean
have_packet (Stream * s, guint64 ext)
{
  Slot *sl;

  if (ext < s->tail || ext > s->highest)
    return FALSE;
  sl = slot_of (s, ext);
  return sl->ext == ext && (sl->state == SLOT_MEDIA ||
      sl->state == SLOT_RECOVERED);
}

static void
frame_close (RcFecDecoder * dec, Stream * s)
{
  if (s->fr_open && s->fr_hit) {
    dec->stats.frames_hit++;
    if (!s->fr_unrepaired)
      dec->stats.frames_recovered++;
  }
  s->fr_open = FALSE;
}

/* Frame-level recovery (FRACTaL's FFRE): a frame is the media packets
 * with one RTP timestamp, up to the one with the marker bit (RFC 3550 sec.
 * 5.1; video payloaders set it on a frame's last packet). A lost packet
 * not rebuilt has no header: it belongs to the frame under way, or after
 * a marker to the next one. Frames lost whole between two that arrived
 * count as one hit frame with the next: an undercount, as no packet of
 * them says where they begin. */
static void
frame_settle (RcFecDecoder * dec, Stream * s, Slot * sl)
{
  guint8 h[8];
  guint32 ts;

  if (sl->state == SLOT_EMPTY) {
    if (s->fr_open)
      s->fr_hit = s->fr_unrepaired = TRUE;
    else
      s->next_hit = TRUE;
    return;
  }
  if (sl->state == SLOT_FEC || !sl->buf ||
      gst_buffer_extract (sl->buf, 0, h, 8) != 8)
    return;
  ts = GST_READ_UINT32_BE (h + 4);
  if (s->fr_open && ts != s->fr_ts)
    frame_close (dec, s);       /* its marker packet was lost unrebuilt */
  if (!s->fr_open) {
    s->fr_open = TRUE;
    s->fr_ts = ts;
    s->fr_hit = s->fr_unrepaired = s->next_hit;
    s->next_hit = FALSE;
  }
  if (sl->state == SLOT_RECOVERED)
    s->fr_hit = TRUE;
  if (h[1] & 0x80)
    frame_close (dec, s);
}

/* Settles the loss counts of the oldest slot and frees it. */
static void
release_tail (RcFecDecoder * dec, Stream * s)
{
  Slot *sl = slot_of (s, s->tail);

  if (sl->ext == s->tail) {
    frame_settle (dec, s, sl);
    if (sl->state == SLOT_EMPTY) {
      dec->stats.lost_before++;
      dec->stats.lost_after++;
      dec->stats.unrecoverable++;
    } else if (sl->state == SLOT_RECOVERED) {
      dec->stats.lost_before++;
    }
  }
  gst_clear_buffer (&sl->buf);
  sl->state = SLOT_EMPTY;
  sl->ext = 0;
  s->tail++;
  s->released = TRUE;
}

static void
drop_pending (Stream * s, guint i)
{
  gst_clear_buffer (&s->pending[i].buf);
  s->pending[i] = s->pending[--s->n_pending];
  s->pending[s->n_pending].buf = NULL;
}

/* Makes `ext` the newest known seqnum; everything in between becomes
 * expected (empty) as of `now`. */
static void
slot_expect (Stream * s, guint64 ext, GstClockTime now)
{
  Slot *sl = slot_of (s, ext);

  gst_clear_buffer (&sl->buf);
  sl->ext = ext;
  sl->t = now;
  sl->state = SLOT_EMPTY;
}

static void
advance (RcFecDecoder * dec, Stream * s, guint64 ext, GstClockTime now)
{
  guint64 e;

  if (s->started && ext <= s->highest)
    return;
  if (s->started && ext - s->highest >= WIN) {
    /* A jump past the whole window: settle what we hold, restart there. */
    while (s->tail <= s->highest)
      release_tail (dec, s);
    s->started = FALSE;
  }
  if (!s->started) {
    s->started = TRUE;
    s->tail = s->highest = ext;
    slot_expect (s, ext, now);
    return;
  }
  while (ext - s->tail >= WIN)
    release_tail (dec, s);
  for (e = s->highest + 1; e <= ext; e++)
    slot_expect (s, e, now);
  s->highest = ext;
}

/* Makes `ext` known (advance()) and stores what it now is: a media or
 * rebuilt packet (`buf`, a ref is taken), or with `buf` NULL an ULPFEC
 * repair packet's seqnum. */
static Slot *
slot_store (RcFecDecoder * dec, Stream * s, guint64 ext, GstBuffer * buf,
    guint8 state, GstClockTime now)
{
  Slot *sl;

  advance (dec, s, ext, now);
  sl = slot_of (s, ext);
  gst_clear_buffer (&sl->buf);
  if (buf)
    sl->buf = gst_buffer_ref (buf);
  sl->ext = ext;
  sl->state = state;
  return sl;
}

static void
expire_stream (RcFecDecoder * dec, Stream * s, GstClockTime now)
{
  guint i;

  if (!s->started || !GST_CLOCK_TIME_IS_VALID (now))
    return;
  while (s->tail <= s->highest) {
    Slot *sl = slot_of (s, s->tail);
    if (sl->ext == s->tail && sl->t + dec->cfg.window > now)
      break;
    release_tail (dec, s);
  }
  for (i = 0; i < s->n_pending;) {
    if (s->pending[i].t + dec->cfg.window <= now ||
        s->pending[i].base_ext < s->tail)
      drop_pending (s, i);
    else
      i++;
  }
}

/* Counts protected packets we do not have; stops at 2. */
static guint
count_missing (Stream * s, const RcFecPacketInfo * info, guint64 base,
    guint64 * missing)
{
  guint i, n = 0;

  for (i = 0; i < RC_FEC_MAX_PROTECTED && i * info->stride < info->span; i++) {
    guint64 e;
    if (!mask_get (info->mask, i))
      continue;
    e = base + (guint64) i *info->stride;
    if (!have_packet (s, e)) {
      *missing = e;
      if (++n >= 2)
        break;
    }
  }
  return n;
}

static gboolean
covers (const RcFecPacketInfo * info, guint64 base, guint64 ext)
{
  guint64 off;

  if (ext < base)
    return FALSE;
  off = ext - base;
  if (off >= info->span || off % info->stride)
    return FALSE;
  return mask_get (info->mask, off / info->stride);
}

static gboolean
pt_known (Stream * s, guint8 pt)
{
  if (!s->pt_seen[0] && !s->pt_seen[1])
    return TRUE;
  return (s->pt_seen[pt / 64] >> (pt % 64)) & 1;
}

/* Rebuilds `missing` from the repair payload and the other protected
 * packets (RFC 8627 sec. 6.3.2 / RFC 5109 sec. 8: XOR of the bit strings,
 * then the header from the recovery fields). */
static RcFecResult
recover (RcFecDecoder * dec, Stream * s, const RcFecPacketInfo * info,
    const guint8 * payload, guint64 base, guint64 missing,
    GstClockTime now, GPtrArray * out)
{
  guint8 rec0 = info->rec0, rec1 = info->rec1;
  guint32 ts = info->ts_rec;
  guint16 len = info->len_rec;
  guint plen = info->payload_len;
  guint i;
  GstBuffer *buf;
  GstMapInfo map;
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  Slot *sl;

  memcpy (dec->scratch, payload, plen);
  for (i = 0; i < RC_FEC_MAX_PROTECTED && i * info->stride < info->span; i++) {
    guint64 e;
    Slot *o;
    guint8 oh[RC_FEC_RTP_HEADER_LEN];
    guint body;

    if (!mask_get (info->mask, i))
      continue;
    e = base + (guint64) i *info->stride;
    if (e == missing)
      continue;
    o = slot_of (s, e);
    body = gst_buffer_get_size (o->buf) - RC_FEC_RTP_HEADER_LEN;
    if (body > plen || !rc_fec_read_header (o->buf, oh))
      return RC_FEC_REJECT_INCONSISTENT;
    rec0 ^= oh[0] & REC0_MASK;
    rec1 ^= oh[1];
    ts ^= GST_READ_UINT32_BE (oh + 4);
    len ^= body;
    if (!body_foreach (o->buf, NULL, body, xor_chunk, dec->scratch))
      return RC_FEC_REJECT_INCONSISTENT;
  }
  if (len > plen || len == 0)
    return RC_FEC_REJECT_INCONSISTENT;

  buf = rc_fec_pool_get (dec->pool, RC_FEC_RTP_HEADER_LEN + len);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  map.data[0] = RTP_VERSION_BITS | (rec0 & REC0_MASK);
  map.data[1] = rec1;
  GST_WRITE_UINT16_BE (map.data + 2, (guint16) missing);
  GST_WRITE_UINT32_BE (map.data + 4, ts);
  GST_WRITE_UINT32_BE (map.data + 8, s->ssrc);
  memcpy (map.data + RC_FEC_RTP_HEADER_LEN, dec->scratch, len);
  gst_buffer_unmap (buf, &map);

  /* The result must be a valid RTP packet (CSRC count, extension and
   * padding lengths agree with its size) of a payload type this stream
   * carries; anything else means the repair data was corrupt. */
  if (!gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp)) {
    gst_buffer_unref (buf);
    return RC_FEC_REJECT_INCONSISTENT;
  }
  i = gst_rtp_buffer_get_payload_type (&rtp);
  gst_rtp_buffer_unmap (&rtp);
  if (!pt_known (s, i)) {
    gst_buffer_unref (buf);
    return RC_FEC_REJECT_INCONSISTENT;
  }

  sl = slot_store (dec, s, missing, buf, SLOT_RECOVERED, now);
  if (!GST_CLOCK_TIME_IS_VALID (sl->t))
    sl->t = now;
  g_ptr_array_add (out, buf);
  dec->stats.recovered++;
  GST_LOG ("recovered ssrc %08x seq %u (%u bytes)", s->ssrc,
      (guint) (guint16) missing, len);
  return RC_FEC_OK;
}

static RcFecResult
recover_pending (RcFecDecoder * dec, Stream * s, guint i, guint64 missing,
    GstClockTime now, GPtrArray * out)
{
  PendingFec *p = &s->pending[i];
  GstMapInfo map;
  RcFecResult r;

  if (!gst_buffer_map (p->buf, &map, GST_MAP_READ))
    return RC_FEC_REJECT_INCONSISTENT;
  r = recover (dec, s, &p->info, map.data + p->payload_off, p->base_ext,
      missing, now, out);
  gst_buffer_unmap (p->buf, &map);
  return r;
}

/* After `ext` arrived or was rebuilt: every waiting repair packet that now
 * lacks exactly one packet rebuilds it, and so on until nothing changes
 * (this is what lets rows and columns of a 2-D block help each other). */
static void
cascade (RcFecDecoder * dec, Stream * s, guint64 ext, GstClockTime now,
    GPtrArray * out)
{
  guint64 work[RC_FEC_MAX_PROTECTED];
  guint n_work = 0;

  work[n_work++] = ext;
  while (n_work > 0) {
    guint64 e = work[--n_work];
    guint i;

    for (i = 0; i < s->n_pending;) {
      PendingFec *p = &s->pending[i];
      guint64 missing = 0;
      guint n;

      if (!covers (&p->info, p->base_ext, e)) {
        i++;
        continue;
      }
      n = count_missing (s, &p->info, p->base_ext, &missing);
      if (n >= 2) {
        i++;
        continue;
      }
      if (n == 1) {
        RcFecResult r = recover_pending (dec, s, i, missing, now, out);
        if (r == RC_FEC_OK && n_work < G_N_ELEMENTS (work))
          work[n_work++] = missing;
        else if (r != RC_FEC_OK) {
          dec->stats.rejected++;
          GST_DEBUG ("repair seq %u: %s", p->info.fec_seq,
              rc_fec_result_to_string (r));
        }
      }
      drop_pending (s, i);
      /* restart: drop_pending moved another entry into i */
    }
  }
}

gboolean
rc_fec_decoder_is_fec (RcFecDecoder * dec, GstBuffer * buf)
{
  guint8 hdr[RC_FEC_RTP_HEADER_LEN];

  return rc_fec_read_header (buf, hdr) && rc_fec_decoder_is_fec_hdr (dec, hdr);
}

gboolean
rc_fec_decoder_is_fec_hdr (RcFecDecoder * dec, const guint8 * hdr)
{
  if ((hdr[1] & 0x7f) != dec->cfg.pt)
    return FALSE;
  /* flexfec repair never travels on the media SSRC itself */
  if (dec->cfg.format == RC_FEC_FORMAT_FLEXFEC && dec->cfg.match_media_ssrc
      && GST_READ_UINT32_BE (hdr + 8) == dec->cfg.media_ssrc)
    return FALSE;
  return TRUE;
}

RcFecResult
rc_fec_decoder_push_media (RcFecDecoder * dec, GstBuffer * buf,
    GstClockTime now, GPtrArray * out)
{
  guint8 hdr[RC_FEC_RTP_HEADER_LEN];

  if (!rc_fec_read_header (buf, hdr))
    return RC_FEC_NOT_RTP;
  return rc_fec_decoder_push_media_hdr (dec, buf, hdr, now, out);
}

RcFecResult
rc_fec_decoder_push_media_hdr (RcFecDecoder * dec, GstBuffer * buf,
    const guint8 * hdr, GstClockTime now, GPtrArray * out)
{
  gsize size = gst_buffer_get_size (buf);
  guint32 ssrc;
  guint16 seq;
  guint8 pt;
  Stream *s;
  guint64 ext;
  Slot *sl;

  /* Only the fixed header is needed here (a recovered packet is fully
   * validated instead): version 2, and room for the CSRC list. */
  if ((hdr[0] & 0xc0) != RTP_VERSION_BITS || size < RC_FEC_RTP_HEADER_LEN +
      4u * (hdr[0] & 0x0f))
    return RC_FEC_NOT_RTP;
  ssrc = GST_READ_UINT32_BE (hdr + 8);
  seq = GST_READ_UINT16_BE (hdr + 2);
  pt = hdr[1] & 0x7f;
  if (size - RC_FEC_RTP_HEADER_LEN > RC_FEC_MAX_PACKET)
    return RC_FEC_OLD;          /* too big to have been protected */

  s = get_stream (dec, ssrc, TRUE, now);
  if (!s)
    return RC_FEC_OLD;          /* too many streams: passed on, unprotected */
  expire_stream (dec, s, now);
  ext = unwrap (s, seq);
  if (s->started && ext < s->tail && !s->released &&
      s->highest - ext < WIN / 2) {
    /* Reordered at the very start of the stream (101 before 100): nothing
     * was forgotten yet, so the window grows back to it, as for a repair
     * packet's base. Passed on unstored, a repair would later rebuild it
     * and it would leave twice. */
    while (s->tail > ext)
      slot_expect (s, --s->tail, now);
  }
  if (s->started && ext < s->tail)
    return RC_FEC_OLD;
  if (s->started && ext <= s->highest) {
    sl = slot_of (s, ext);
    if (sl->ext == ext && sl->state != SLOT_EMPTY) {
      dec->stats.duplicates++;
      return RC_FEC_DUPLICATE;
    }
  }
  slot_store (dec, s, ext, buf, SLOT_MEDIA, now);
  s->pt_seen[pt / 64] |= G_GUINT64_CONSTANT (1) << (pt % 64);
  dec->stats.media_received++;
  if (s->n_pending)
    cascade (dec, s, ext, now, out);
  return RC_FEC_OK;
}

static guint64
fec_key (guint32 ssrc, guint16 seq)
{
  return (((guint64) ssrc << 16) | seq) + 1;
}

static gboolean
fec_seen (Stream * s, guint32 ssrc, guint16 seq)
{
  guint64 key = fec_key (ssrc, seq);
  guint i;

  for (i = 0; i < FEC_SEEN; i++)
    if (s->fec_seen[i] == key)
      return TRUE;
  return FALSE;
}

/* Only repair packets that were accepted count for duplicates, so a
 * corrupted copy does not shadow the genuine one. */
static void
fec_seen_add (Stream * s, guint32 ssrc, guint16 seq)
{
  s->fec_seen[s->fec_seen_pos] = fec_key (ssrc, seq);
  s->fec_seen_pos = (s->fec_seen_pos + 1) % FEC_SEEN;
}

static RcFecResult
reject (RcFecDecoder * dec, RcFecResult r, guint16 seq)
{
  dec->stats.rejected++;
  GST_DEBUG ("repair packet seq %u rejected: %s", seq,
      rc_fec_result_to_string (r));
  return r;
}

RcFecResult
rc_fec_decoder_push_fec (RcFecDecoder * dec, GstBuffer * buf,
    GstClockTime now, GPtrArray * out)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  RcFecPacketInfo info;
  RcFecParseResult pr;
  Stream *s;
  guint64 base, missing = 0;
  guint n, payload_off;
  RcFecResult r;

  dec->stats.fec_received++;
  if (!gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp))
    return reject (dec, RC_FEC_REJECT_MALFORMED, 0);
  pr = rc_fec_parse (dec->cfg.format, &rtp, &info);
  if (pr != RC_FEC_PARSE_OK) {
    guint16 seq = gst_rtp_buffer_get_seq (&rtp);
    gst_rtp_buffer_unmap (&rtp);
    GST_DEBUG ("repair packet seq %u: %s", seq,
        rc_fec_parse_result_to_string (pr));
    return reject (dec, RC_FEC_REJECT_MALFORMED, seq);
  }
  /* As an offset into the whole buffer: header and payload may be in
   * separate memories. */
  payload_off = gst_rtp_buffer_get_header_len (&rtp) +
      (info.payload - (const guint8 *) gst_rtp_buffer_get_payload (&rtp));
  gst_rtp_buffer_unmap (&rtp);

  if ((dec->cfg.format == RC_FEC_FORMAT_FLEXFEC && dec->cfg.match_fec_ssrc &&
          info.fec_ssrc != dec->cfg.fec_ssrc) ||
      (dec->cfg.match_media_ssrc &&
          info.protected_ssrc != dec->cfg.media_ssrc) ||
      (dec->cfg.format == RC_FEC_FORMAT_FLEXFEC &&
          info.protected_ssrc == info.fec_ssrc))
    return reject (dec, RC_FEC_REJECT_WRONG_SSRC, info.fec_seq);

  s = get_stream (dec, info.protected_ssrc, FALSE, now);
  if (!s)
    return reject (dec, RC_FEC_REJECT_WRONG_SSRC, info.fec_seq);
  expire_stream (dec, s, now);

  if (!s->started) {
    /* Repair before any media: its packets are all still to come. */
    s->started = TRUE;
    s->tail = EXT_ORIGIN + info.sn_base;
    s->highest = s->tail - 1;
  }

  if (dec->cfg.format == RC_FEC_FORMAT_ULPFEC) {
    /* The repair packet holds a seqnum of the media's space: mark it, so
     * it never counts as a lost media packet. */
    guint64 fext = unwrap (s, info.fec_seq);
    Slot *sl = slot_of (s, fext);

    if (fext < s->tail)
      return reject (dec, RC_FEC_REJECT_STALE, info.fec_seq);
    if (fext <= s->highest && sl->ext == fext && sl->state == SLOT_FEC) {
      dec->stats.duplicates++;
      return RC_FEC_DUPLICATE;
    }
    if (fext <= s->highest && sl->ext == fext && sl->state != SLOT_EMPTY)
      return reject (dec, RC_FEC_REJECT_INCONSISTENT, info.fec_seq);
    if (fext > s->highest + WIN / 2)
      return reject (dec, RC_FEC_REJECT_OUT_OF_WINDOW, info.fec_seq);
    slot_store (dec, s, fext, NULL, SLOT_FEC, now);
  } else if (fec_seen (s, info.fec_ssrc, info.fec_seq)) {
    dec->stats.duplicates++;
    return RC_FEC_DUPLICATE;
  }

  base = unwrap (s, info.sn_base);
  if (info.span > WIN / 2 || base + info.span - 1 > s->highest + WIN / 2) {
    r = RC_FEC_REJECT_OUT_OF_WINDOW;
    goto rejected;
  }
  if (base < s->tail && !s->released && s->highest - base < WIN / 2) {
    /* Losses at the very start of the stream: nothing was forgotten yet,
     * so the window can still grow back to the repair's base. */
    while (s->tail > base)
      slot_expect (s, --s->tail, now);
  }
  if (base < s->tail) {
    r = RC_FEC_REJECT_STALE;
    goto rejected;
  }

  n = count_missing (s, &info, base, &missing);
  if (n == 0)
    goto accepted;              /* nothing to do: all there */
  if (n == 1) {
    GstMapInfo map;
    gst_buffer_map (buf, &map, GST_MAP_READ);
    r = recover (dec, s, &info, map.data + payload_off, base, missing, now,
        out);
    gst_buffer_unmap (buf, &map);
    if (r != RC_FEC_OK)
      goto rejected;
    cascade (dec, s, missing, now, out);
    goto accepted;
  }
  /* Two or more missing: wait for media, or for other repair packets. */
  if (s->n_pending == MAX_PENDING_FEC) {
    guint oldest = 0, i;
    for (i = 1; i < s->n_pending; i++)
      if (s->pending[i].t < s->pending[oldest].t)
        oldest = i;
    drop_pending (s, oldest);
  }
  {
    PendingFec *p = &s->pending[s->n_pending++];
    p->buf = gst_buffer_ref (buf);
    p->info = info;
    p->info.payload = NULL;
    p->payload_off = payload_off;
    p->base_ext = base;
    p->t = now;
  }
accepted:
  if (dec->cfg.format == RC_FEC_FORMAT_FLEXFEC)
    fec_seen_add (s, info.fec_ssrc, info.fec_seq);
  return RC_FEC_OK;

rejected:
  if (dec->cfg.format == RC_FEC_FORMAT_ULPFEC) {
    /* Not a repair packet we can trust: forget its seqnum mark. */
    guint64 fext = unwrap (s, info.fec_seq);
    Slot *sl = slot_of (s, fext);
    if (fext >= s->tail && fext <= s->highest && sl->ext == fext &&
        sl->state == SLOT_FEC)
      sl->state = SLOT_EMPTY;
  }
  return reject (dec, r, info.fec_seq);
}

RcFecSeqState
rc_fec_decoder_lookup (RcFecDecoder * dec, guint32 ssrc, guint16 seq,
    GstBuffer ** recovered)
{
  Stream *s = g_hash_table_lookup (dec->streams, GUINT_TO_POINTER (ssrc));
  guint64 ext;
  Slot *sl;

  if (recovered)
    *recovered = NULL;
  if (!s || !s->started)
    return RC_FEC_SEQ_UNKNOWN;
  ext = unwrap (s, seq);
  if (ext < s->tail || ext > s->highest)
    return RC_FEC_SEQ_UNKNOWN;
  sl = slot_of (s, ext);
  if (sl->ext != ext)
    return RC_FEC_SEQ_UNKNOWN;
  switch (sl->state) {
    case SLOT_MEDIA:
      return RC_FEC_SEQ_RECEIVED;
    case SLOT_RECOVERED:
      if (recovered && sl->buf)
        *recovered = gst_buffer_ref (sl->buf);
      return RC_FEC_SEQ_RECOVERED;
    case SLOT_FEC:
      return RC_FEC_SEQ_REPAIR;
    default:
      return RC_FEC_SEQ_MISSING;
  }
}

void
rc_fec_decoder_expire (RcFecDecoder * dec, GstClockTime now)
{
  GHashTableIter it;
  gpointer v;

  g_hash_table_iter_init (&it, dec->streams);
  while (g_hash_table_iter_next (&it, NULL, &v))
    expire_stream (dec, v, now);
}

void
rc_fec_decoder_reset (RcFecDecoder * dec)
{
  GHashTableIter it;
  gpointer v;

  g_hash_table_iter_init (&it, dec->streams);
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    Stream *s = v;
    if (s->started)
      while (s->tail <= s->highest)
        release_tail (dec, s);
    frame_close (dec, s);
  }
  g_hash_table_remove_all (dec->streams);
}

void
rc_fec_decoder_get_stats (RcFecDecoder * dec, RcFecDecoderStats * st)
{
  *st = dec->stats;
}

guint
rc_fec_decoder_held_packets (RcFecDecoder * dec)
{
  GHashTableIter it;
  gpointer v;
  guint n = 0, i;

  g_hash_table_iter_init (&it, dec->streams);
  while (g_hash_table_iter_next (&it, NULL, &v)) {
    Stream *s = v;
    for (i = 0; i < WIN; i++)
      if (s->slots[i].buf)
        n++;
    n += s->n_pending;
  }
  return n;
}
