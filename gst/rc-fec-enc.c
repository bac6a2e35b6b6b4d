/* XOR parity FEC encoder (core): turns media RTP packets into RFC 8627
 * flexible FEC (rows, columns, 2-D blocks with the fixed L/D header of sec.
 * 4.2.2.2, bit-mask groups with sec. 4.2.2.1) or RFC 5109 ULPFEC (sec. 7.3,
 * 7.4) repair packets, each the XOR of its group's bit strings (RFC 8627
 * sec. 6.2). See rc-fec-enc.h for the interface, rc-fec.h for the wire
 * formats. No pads, no clock. */
#include <string.h>
#include "rc-fec-enc.h"
#include "rc-fec-private.h"

/* --------------------------------------------------------- accumulator */

/* Running XOR of the bit strings of the packets in one group. */
typedef struct
{
  guint8 rec0, rec1;
  guint32 ts;
  guint16 len;
  guint16 sn_base;              /* seq of the first packet added */
  guint count;
  guint64 mask[RC_FEC_MAX_PROTECTED / 64];      /* offsets from sn_base */
  guint max_len;                /* longest body so far */
  guint cap;
  guint8 *body;
} FecAcc;

/* Typical MTU-sized body; grows (rarely) for bigger packets. */
#define ACC_INITIAL_CAP 1500

static void
acc_init (FecAcc * a)
{
  memset (a, 0, sizeof (*a));
  a->cap = ACC_INITIAL_CAP;
  a->body = g_malloc (a->cap);
}

static void
acc_clear (FecAcc * a)
{
  g_free (a->body);
  a->body = NULL;
}

static void
acc_reset (FecAcc * a)
{
  a->rec0 = a->rec1 = 0;
  a->ts = 0;
  a->len = 0;
  a->count = 0;
  a->max_len = 0;
  memset (a->mask, 0, sizeof (a->mask));
}

/* XORs `len` bytes of a packet body found at body offset `pos` into `a`,
 * whose body so far is `old_len` long: shorter packets count as
 * zero-padded (RFC 8627 sec. 6.2), so bytes beyond it are copied. */
static inline void
acc_body_chunk (FecAcc * a, guint old_len, guint pos, const guint8 * data,
    guint len)
{
  guint x = pos < old_len ? MIN (len, old_len - pos) : 0;

  if (x)
    rc_fec_xor (a->body + pos, data, x);
  if (x < len)
    memcpy (a->body + pos + x, data + x, len - x);
}

/* The accumulators one packet's body goes into, each with its body length
 * before the packet. */
typedef struct
{
  FecAcc *use[2];
  guint old_len[2];
  guint n_use;
} AccTargets;

/* body_foreach() piece: into every target accumulator. */
static void
acc_chunk (gpointer user_data, guint pos, const guint8 * data, guint len)
{
  AccTargets *t = user_data;
  guint k;

  for (k = 0; k < t->n_use; k++)
    acc_body_chunk (t->use[k], t->old_len[k], pos, data, len);
}

/* Adds one packet's bit string (RFC 8627 sec. 6.2) to each accumulator of
 * `accs`: the recovery fields from its fixed header `hdr`, the body (all
 * of `buf` after the fixed header) read memory by memory (`first`, if
 * set, is the first memory, mapped already; see body_foreach()). `seq` is
 * the sequence number the packet is sent with. Returns FALSE unless every
 * accumulator's mask has room for it (it is added to those that do). */
static gboolean
acc_add (FecAcc ** accs, guint n_accs, GstBuffer * buf,
    const GstMapInfo * first, const guint8 * hdr, guint size, guint16 seq,
    guint max_bits)
{
  guint body = size - RC_FEC_RTP_HEADER_LEN;
  AccTargets t;
  guint k;

  t.n_use = 0;
  g_assert (n_accs <= G_N_ELEMENTS (t.use));
  for (k = 0; k < n_accs; k++) {
    FecAcc *a = accs[k];
    guint16 off;

    if (a->count == 0)
      a->sn_base = seq;
    off = (guint16) (seq - a->sn_base);
    if (off >= max_bits)
      continue;
    mask_set (a->mask, off);
    a->count++;
    a->rec0 ^= hdr[0] & REC0_MASK;
    a->rec1 ^= hdr[1];
    a->ts ^= GST_READ_UINT32_BE (hdr + 4);
    a->len ^= body;
    if (body > a->cap) {
      a->cap = body;
      a->body = g_realloc (a->body, a->cap);
    }
    t.old_len[t.n_use] = a->max_len;
    t.use[t.n_use++] = a;
  }
  /* Unchecked: only a broken allocator fails to map a readable memory. */
  if (t.n_use)
    body_foreach (buf, first, body, acc_chunk, &t);
  for (k = 0; k < t.n_use; k++)
    t.use[k]->max_len = MAX (t.old_len[k], body);
  return t.n_use == n_accs;
}

/* ------------------------------------------------------------ encoder */

struct _RcFecEncoder
{
  RcFecEncoderConfig cfg;
  RcFecEncoderConfig next;      /* applied at the next block boundary */
  gboolean have_next;

  gboolean active;
  guint L, D;                   /* in force for the block under way */
  guint max_bits;               /* mask room of the format and mode */

  gboolean started;             /* a block is under way */
  guint16 block_base;           /* original seq of the block's first */
  guint16 next_seq;             /* original seq expected next */
  guint pos;                    /* packets into the block */
  guint32 media_ssrc;

  FecAcc row;                   /* row, or flexible group */
  FecAcc *cols;
  guint n_cols;

  guint16 fec_seq;              /* flexfec sequence space */
  guint16 seq_offset;           /* ulpfec: added to media seqnums */
  guint16 last_seq;             /* as sent */
  guint32 last_ts;
  GstClockTime last_pts, last_dts;

  /* ulpfec: repair packets built but held until the frame ends, so the
   * seqnums they take from the media's space never split a frame (a
   * depayloader would see a gap mid-frame once they are removed). */
  GPtrArray *held;

  GstBufferPool *pool;
  RcFecEncoderStats stats;
};

void
rc_fec_encoder_config_init (RcFecEncoderConfig * cfg)
{
  memset (cfg, 0, sizeof (*cfg));
  cfg->format = RC_FEC_FORMAT_FLEXFEC;
  cfg->mode = RC_FEC_MODE_ROW;
  /* SMPTE 2022-1 / RFC 8627 sec. 1.1.2 examples use blocks around 10x10;
   * L = D = 10 gives 10 % per dimension. */
  cfg->L = 10;
  cfg->D = 10;
  cfg->overhead = -1.0;
  /* A dynamic payload type (RFC 3551 sec. 6: 96-127). */
  cfg->pt = 100;
}

static guint
clamp_count (gdouble v, guint lo, guint hi)
{
  if (!(v > lo))
    return lo;
  if (v > hi)
    return hi;
  return (guint) (v + 0.5);
}

gboolean
rc_fec_encoder_geometry (const RcFecEncoderConfig * cfg, guint * pL, guint * pD)
{
  guint L = CLAMP (cfg->L, 1, RC_FEC_MAX_LD);
  guint D = CLAMP (cfg->D, 1, RC_FEC_MAX_LD);
  gdouble o = cfg->overhead;

  if (o == 0.0)
    return FALSE;
  switch (cfg->mode) {
    case RC_FEC_MODE_ROW:
      if (o > 0)
        L = clamp_count (100.0 / o, 1, RC_FEC_MAX_LD);
      D = 1;
      break;
    case RC_FEC_MODE_COLUMN:
      if (o > 0)
        D = clamp_count (100.0 / o, 2, RC_FEC_MAX_LD);
      D = MAX (D, 2);
      break;
    case RC_FEC_MODE_2D:
      if (o > 0)
        L = D = clamp_count (200.0 / o, 2, RC_FEC_MAX_LD);
      D = MAX (D, 2);
      break;
    case RC_FEC_MODE_FLEXIBLE:
      if (o > 0)
        L = clamp_count (100.0 / o, 1, RC_FEC_MAX_LD);
      L = MIN (L, cfg->format == RC_FEC_FORMAT_ULPFEC ?
          ULP_MASK_BITS_LONG : FLEX_MASK_BITS_2);
      D = 1;
      break;
  }
  if (cfg->format == RC_FEC_FORMAT_ULPFEC) {
    /* The sender renumbers media around each repair packet, so a group's
     * seqnums spread by the repair packets sent inside it (at frame
     * ends): leave room for about one per row of the block, (D - 1) rows
     * of L + 1 plus a last row of 2 L, within the 48-bit mask (RFC 5109
     * sec. 7.4). A packet that still does not fit goes unprotected. */
    L = MIN (L, ULP_MASK_BITS_LONG / 2);
    while (D > 2 && (D - 1) * (L + 1) + 2 * L > ULP_MASK_BITS_LONG)
      D--;
    if (D == 2 && (L + 1) + 2 * L > ULP_MASK_BITS_LONG)
      L = (ULP_MASK_BITS_LONG - 1) / 3;
  }
  *pL = L;
  *pD = D;
  return TRUE;
}

static void
encoder_apply (RcFecEncoder * enc, const RcFecEncoderConfig * cfg)
{
  guint i;

  enc->cfg = *cfg;
  enc->active = rc_fec_encoder_geometry (cfg, &enc->L, &enc->D);
  enc->max_bits = cfg->format == RC_FEC_FORMAT_ULPFEC ?
      ULP_MASK_BITS_LONG : RC_FEC_MAX_PROTECTED;
  if (cfg->format == RC_FEC_FORMAT_FLEXFEC && cfg->mode == RC_FEC_MODE_FLEXIBLE)
    enc->max_bits = FLEX_MASK_BITS_2;
  if (enc->active && (cfg->mode == RC_FEC_MODE_COLUMN ||
          cfg->mode == RC_FEC_MODE_2D) && enc->n_cols < enc->L) {
    enc->cols = g_renew (FecAcc, enc->cols, enc->L);
    for (i = enc->n_cols; i < enc->L; i++)
      acc_init (&enc->cols[i]);
    enc->n_cols = enc->L;
  }
  GST_DEBUG ("FEC %s mode %d L %u D %u overhead %.1f %s",
      cfg->format == RC_FEC_FORMAT_ULPFEC ? "ulpfec" : "flexfec", cfg->mode,
      enc->L, enc->D, cfg->overhead, enc->active ? "on" : "off");
}

RcFecEncoder *
rc_fec_encoder_new (const RcFecEncoderConfig * cfg)
{
  RcFecEncoder *enc = g_new0 (RcFecEncoder, 1);

  rc_fec_ensure_debug ();
  acc_init (&enc->row);
  encoder_apply (enc, cfg);
  enc->fec_seq = cfg->seq_start;
  enc->pool = rc_fec_pool_new (POOL_BUFFER_SIZE);
  enc->held = g_ptr_array_new ();
  return enc;
}

void
rc_fec_encoder_free (RcFecEncoder * enc)
{
  guint i;

  if (!enc)
    return;
  acc_clear (&enc->row);
  for (i = 0; i < enc->n_cols; i++)
    acc_clear (&enc->cols[i]);
  g_free (enc->cols);
  for (i = 0; i < enc->held->len; i++)
    gst_buffer_unref (enc->held->pdata[i]);
  g_ptr_array_unref (enc->held);
  rc_fec_pool_free (enc->pool);
  g_free (enc);
}

void
rc_fec_encoder_reconfigure (RcFecEncoder * enc, const RcFecEncoderConfig * cfg)
{
  enc->next = *cfg;
  enc->have_next = TRUE;
  if (!enc->started)
    goto apply;
  return;
apply:
  encoder_apply (enc, &enc->next);
  enc->have_next = FALSE;
}

void
rc_fec_encoder_set_overhead (RcFecEncoder * enc, gdouble overhead)
{
  RcFecEncoderConfig c = enc->have_next ? enc->next : enc->cfg;

  c.overhead = overhead;
  rc_fec_encoder_reconfigure (enc, &c);
}

/* Writes the repair packet's RTP header and optional extension; returns
 * the offset of the FEC header. */
static guint
write_rtp_header (RcFecEncoder * enc, guint8 * d, guint32 ssrc, guint16 seq)
{
  const RcFecEncoderConfig *c = &enc->cfg;
  gboolean flex = c->format == RC_FEC_FORMAT_FLEXFEC;
  guint off = RC_FEC_RTP_HEADER_LEN;

  d[0] = RTP_VERSION_BITS | (flex ? 1 : 0);     /* CC = 1 for flexfec */
  d[1] = c->pt & 0x7f;
  GST_WRITE_UINT16_BE (d + 2, seq);
  GST_WRITE_UINT32_BE (d + 4, enc->last_ts);
  GST_WRITE_UINT32_BE (d + 8, ssrc);
  if (flex) {
    /* RFC 8627 sec. 4.1: CSRC = the protected SSRC. */
    GST_WRITE_UINT32_BE (d + off, enc->media_ssrc);
    off += 4;
  }
  if (c->ext_id) {
    guint elen = c->ext_two_byte ? 2 + c->ext_len : 1 + c->ext_len;
    guint words = (elen + 3) / 4;

    d[0] |= 0x10;               /* X */
    /* RFC 8285 sec. 4.2 (0xBEDE, one-byte) / 4.3 (0x100, two-byte). */
    GST_WRITE_UINT16_BE (d + off, c->ext_two_byte ? 0x1000 : 0xBEDE);
    GST_WRITE_UINT16_BE (d + off + 2, words);
    off += 4;
    memset (d + off, 0, words * 4);
    if (c->ext_two_byte) {
      d[off] = c->ext_id;
      d[off + 1] = c->ext_len;
    } else {
      d[off] = (c->ext_id << 4) | ((c->ext_len - 1) & 0x0f);
    }
    off += words * 4;
  }
  return off;
}

/* Turns an accumulator into a repair packet. For flexfec fixed L/D pass
 * fixed_L > 0; otherwise the accumulator's own mask is written. */
static GstBuffer *
emit (RcFecEncoder * enc, FecAcc * a, guint fixed_L, guint fixed_D)
{
  const RcFecEncoderConfig *c = &enc->cfg;
  gboolean flex = c->format == RC_FEC_FORMAT_FLEXFEC;
  guint hdr_len, mask_bits = 0, last, w, total, off;
  guint64 m;
  guint16 seq;
  GstBuffer *buf;
  GstMemory *mem;
  GstMapInfo map;
  guint8 *h;

  last = MAX (mask_last (a->mask), 0);
  if (flex) {
    if (fixed_L)
      hdr_len = FLEX_HDR_LEN_0;
    else if (last < FLEX_MASK_BITS_0)
      hdr_len = FLEX_HDR_LEN_0, mask_bits = FLEX_MASK_BITS_0;
    else if (last < FLEX_MASK_BITS_1)
      hdr_len = FLEX_HDR_LEN_1, mask_bits = FLEX_MASK_BITS_1;
    else
      hdr_len = FLEX_HDR_LEN_2, mask_bits = FLEX_MASK_BITS_2;
  } else {
    mask_bits = last < ULP_MASK_BITS_SHORT ? ULP_MASK_BITS_SHORT :
        ULP_MASK_BITS_LONG;
    hdr_len = RC_ULPFEC_HEADER_LEN + (mask_bits == ULP_MASK_BITS_LONG ?
        RC_ULPFEC_LEVEL_HEADER_LONG : RC_ULPFEC_LEVEL_HEADER_SHORT);
  }

  /* ulpfec: the seqnum is written when the packet is released. */
  seq = flex ? enc->fec_seq++ : 0;

  /* Size: header as written, then the payload. */
  {
    guint8 tmp[RC_FEC_RTP_HEADER_LEN + 4 + 4 + 264];
    off = write_rtp_header (enc, tmp, flex ? c->ssrc : enc->media_ssrc, seq);
    total = off + hdr_len + a->max_len;
    buf = rc_fec_pool_get (enc->pool, total);
    /* One memory (rc_fec_pool_get): mapped alone, no buffer-level
     * bookkeeping. */
    mem = gst_buffer_peek_memory (buf, 0);
    gst_memory_map (mem, &map, GST_MAP_WRITE);
    memcpy (map.data, tmp, off);
  }
  h = map.data + off;
  memset (h, 0, hdr_len);
  if (flex) {
    h[0] = (fixed_L ? 0x40 : 0) | (a->rec0 & REC0_MASK);
    h[1] = a->rec1;
    GST_WRITE_UINT16_BE (h + 2, a->len);
    GST_WRITE_UINT32_BE (h + 4, a->ts);
    GST_WRITE_UINT16_BE (h + 8, a->sn_base);
    if (fixed_L) {
      h[10] = fixed_L;
      h[11] = fixed_D;
    } else {
      for (w = 0; w < RC_FEC_MAX_PROTECTED / 64; w++)
        for (m = a->mask[w]; m; m &= m - 1)
          wire_set_bit (h, flex_mask_bit_pos (w * 64 + bit_lsb (m)));
      if (mask_bits == FLEX_MASK_BITS_0)
        h[10] |= 0x80;          /* k: mask ends at 15 bits */
      else if (mask_bits == FLEX_MASK_BITS_1)
        h[12] |= 0x80;          /* k: mask ends at 46 bits */
    }
  } else {
    h[0] = (mask_bits == ULP_MASK_BITS_LONG ? 0x40 : 0) | (a->rec0 & REC0_MASK);
    h[1] = a->rec1;
    GST_WRITE_UINT16_BE (h + 2, a->sn_base);
    GST_WRITE_UINT32_BE (h + 4, a->ts);
    GST_WRITE_UINT16_BE (h + 8, a->len);
    GST_WRITE_UINT16_BE (h + 10, a->max_len);
    for (w = 0; w < RC_FEC_MAX_PROTECTED / 64; w++)
      for (m = a->mask[w]; m; m &= m - 1)
        wire_set_bit (h + 12, w * 64 + bit_lsb (m));
  }
  memcpy (h + hdr_len, a->body, a->max_len);
  gst_memory_unmap (mem, &map);
  GST_BUFFER_PTS (buf) = enc->last_pts;
  GST_BUFFER_DTS (buf) = enc->last_dts;

  enc->stats.fec_packets++;
  enc->stats.fec_bytes += total;
  GST_LOG ("repair seq %u base %u count %u len %u", seq, a->sn_base, a->count,
      a->max_len);
  acc_reset (a);
  return buf;
}

/* Repair packets are queued here; flexfec ones go out at once, ulpfec
 * ones at the end of the frame. */
static void
queue_repair (RcFecEncoder * enc, GstBuffer * buf, GPtrArray * out)
{
  if (enc->cfg.format == RC_FEC_FORMAT_FLEXFEC)
    g_ptr_array_add (out, buf);
  else
    g_ptr_array_add (enc->held, buf);
}

/* ulpfec: gives the held repair packets the seqnums right after the last
 * media packet (later media move up: RFC 5109 used in one sequence space
 * as rtpulpfecenc and libwebrtc do). */
static void
release_held (RcFecEncoder * enc, GPtrArray * out)
{
  guint i;

  for (i = 0; i < enc->held->len; i++) {
    GstBuffer *b = enc->held->pdata[i];
    GstMemory *m = gst_buffer_peek_memory (b, 0);
    GstMapInfo map;
    /* Built by emit(): the fixed header is in its first memory. */
    if (gst_memory_map (m, &map, GST_MAP_WRITE)) {
      GST_WRITE_UINT16_BE (map.data + 2, ++enc->last_seq);
      gst_memory_unmap (m, &map);
    }
    enc->seq_offset++;
    g_ptr_array_add (out, b);
  }
  g_ptr_array_set_size (enc->held, 0);
}

/* Protects what is pending with flexible masks (format permitting). */
static void
encoder_flush_groups (RcFecEncoder * enc, GPtrArray * out)
{
  guint i;

  if (enc->row.count > 0)
    queue_repair (enc, emit (enc, &enc->row, 0, 0), out);
  for (i = 0; i < enc->n_cols; i++)
    if (enc->cols[i].count > 0)
      queue_repair (enc, emit (enc, &enc->cols[i], 0, 0), out);
  release_held (enc, out);
  enc->started = FALSE;
  enc->pos = 0;
}

static void
encoder_block_boundary (RcFecEncoder * enc)
{
  enc->started = FALSE;
  enc->pos = 0;
  if (enc->have_next) {
    encoder_apply (enc, &enc->next);
    enc->have_next = FALSE;
  }
}

void
rc_fec_encoder_flush (RcFecEncoder * enc, GPtrArray * out)
{
  if (enc->active)
    encoder_flush_groups (enc, out);
  release_held (enc, out);
  encoder_block_boundary (enc);
}

gboolean
rc_fec_encoder_push (RcFecEncoder * enc, GstBuffer ** media, GPtrArray * out)
{
  gsize size = gst_buffer_get_size (*media);
  gboolean flex = enc->cfg.format == RC_FEC_FORMAT_FLEXFEC;
  /* Renumbering may start with this packet if a flush below sends a
   * repair packet (one is held, or a group is under way). */
  gboolean renumber = !flex && (enc->seq_offset || enc->held->len ||
      enc->started);
  guint8 copy[RC_FEC_RTP_HEADER_LEN], *hdr;
  GstMapInfo first = GST_MAP_INFO_INIT;
  GstMemory *m0 = NULL;
  guint16 seq, sent_seq;
  guint32 ssrc;
  gboolean marker, added = FALSE;
  FecAcc *accs[2];
  guint r, col, n_accs = 0;

  if (size < RC_FEC_RTP_HEADER_LEN)
    return FALSE;
  /* ulpfec moves the media past the repair packets sent so far: that
   * writes the seqnum, so the packet must be ours to change. */
  if (renumber)
    *media = gst_buffer_make_writable (*media);
  /* The fixed header comes from the first memory, mapped once (and reused
   * for the body); a writable one is renumbered in place. */
  m0 = gst_buffer_peek_memory (*media, 0);
  if (m0->size >= RC_FEC_RTP_HEADER_LEN && (!renumber ||
          gst_memory_is_writable (m0)) && gst_memory_map (m0, &first,
          renumber ? GST_MAP_READWRITE : GST_MAP_READ)) {
    hdr = first.data;
  } else {
    m0 = NULL;
    hdr = copy;
    if (gst_buffer_extract (*media, 0, copy, sizeof (copy)) != sizeof (copy))
      return FALSE;
  }
  if ((hdr[0] & 0xc0) != RTP_VERSION_BITS) {
    if (m0)
      gst_memory_unmap (m0, &first);
    return FALSE;
  }
  seq = GST_READ_UINT16_BE (hdr + 2);
  ssrc = GST_READ_UINT32_BE (hdr + 8);
  marker = (hdr[1] & 0x80) != 0;

  enc->stats.media_packets++;
  enc->stats.media_bytes += size;

  /* A gap, a jump or a new SSRC ends the block: protect what we have. */
  if (enc->started && (seq != enc->next_seq || ssrc != enc->media_ssrc))
    rc_fec_encoder_flush (enc, out);
  if (!enc->started && enc->have_next) {
    encoder_apply (enc, &enc->next);
    enc->have_next = FALSE;
  }
  enc->next_seq = seq + 1;

  sent_seq = seq;
  if (!flex && enc->seq_offset) {
    sent_seq = seq + enc->seq_offset;
    GST_WRITE_UINT16_BE (hdr + 2, sent_seq);
    if (!m0)
      gst_buffer_fill (*media, 2, hdr + 2, 2);
  }

  enc->media_ssrc = ssrc;
  enc->last_seq = sent_seq;
  enc->last_ts = GST_READ_UINT32_BE (hdr + 4);
  enc->last_pts = GST_BUFFER_PTS (*media);
  enc->last_dts = GST_BUFFER_DTS (*media);

  if (!enc->active || size - RC_FEC_RTP_HEADER_LEN > RC_FEC_MAX_PACKET) {
    if (m0)
      gst_memory_unmap (m0, &first);
    if (enc->started || enc->held->len)
      rc_fec_encoder_flush (enc, out);
    return TRUE;
  }
  if (!enc->started) {
    enc->started = TRUE;
    enc->block_base = seq;
    enc->pos = 0;
  }

  r = enc->pos / enc->L;
  col = enc->pos % enc->L;
  switch (enc->cfg.mode) {
    case RC_FEC_MODE_ROW:
    case RC_FEC_MODE_FLEXIBLE:
      accs[n_accs++] = &enc->row;
      break;
    case RC_FEC_MODE_COLUMN:
      accs[n_accs++] = &enc->cols[col];
      break;
    case RC_FEC_MODE_2D:
      accs[n_accs++] = &enc->row;
      accs[n_accs++] = &enc->cols[col];
      break;
  }
  added = acc_add (accs, n_accs, *media, m0 ? &first : NULL, hdr, size,
      sent_seq, enc->max_bits);
  if (m0)
    gst_memory_unmap (m0, &first);
  if (added)
    enc->stats.media_protected++;
  enc->pos++;

  switch (enc->cfg.mode) {
    case RC_FEC_MODE_ROW:
      if (col == enc->L - 1) {
        queue_repair (enc, emit (enc, &enc->row, flex ? enc->L : 0, 0), out);
        encoder_block_boundary (enc);
      }
      break;
    case RC_FEC_MODE_FLEXIBLE:
      /* Groups end with the frame (marker bit, RFC 3550 sec. 5.1) so no
       * repair waits for the next frame. */
      if (marker || enc->row.count >= enc->L) {
        queue_repair (enc, emit (enc, &enc->row, 0, 0), out);
        encoder_block_boundary (enc);
      }
      break;
    case RC_FEC_MODE_2D:
      /* RFC 8627 sec. 4.2.2.2: D = 1 on a row says columns follow. */
      if (col == enc->L - 1)
        queue_repair (enc, emit (enc, &enc->row, flex ? enc->L : 0,
                flex ? 1 : 0), out);
      /* fall through */
    case RC_FEC_MODE_COLUMN:
      /* Each column's repair goes out with its last packet, spreading
       * them over the block's last row. */
      if (r == enc->D - 1)
        queue_repair (enc, emit (enc, &enc->cols[col], flex ? enc->L : 0,
                flex ? enc->D : 0), out);
      if (enc->pos == enc->L * enc->D)
        encoder_block_boundary (enc);
      break;
  }
  /* Frame end (marker bit, RFC 3550 sec. 5.1). */
  if (marker && enc->held->len)
    release_held (enc, out);
  return TRUE;
}

void
rc_fec_encoder_get_stats (RcFecEncoder * enc, RcFecEncoderStats * st)
{
  *st = enc->stats;
}

/* -------------------------------------------------------------- probe */

void
rc_fec_probe_init (RcFecProbe * p)
{
  memset (p, 0, sizeof (*p));
  rc_rate_meter_init (&p->media, RC_FEC_PROBE_RATE_SPAN);
  p->last_update = GST_CLOCK_TIME_NONE;
}

void
rc_fec_probe_clear (RcFecProbe * p)
{
  rc_rate_meter_clear (&p->media);
}

void
rc_fec_probe_restart (RcFecProbe * p)
{
  rc_rate_meter_clear (&p->media);
  rc_rate_meter_init (&p->media, RC_FEC_PROBE_RATE_SPAN);
  p->last_update = GST_CLOCK_TIME_NONE;
}

void
rc_fec_probe_add_media (RcFecProbe * p, GstClockTime now, guint bytes)
{
  rc_rate_meter_add (&p->media, now, bytes);
}

gdouble
rc_fec_probe_overhead (guint bps, gdouble media_bps)
{
  return CLAMP (100.0 * bps / media_bps, RC_FEC_PROBE_MIN_OVERHEAD,
      RC_FEC_PROBE_MAX_OVERHEAD);
}

gboolean
rc_fec_probe_update (RcFecProbe * p, GstClockTime now, gdouble current,
    gdouble * overhead, gdouble * media_bps)
{
  gdouble mbps, ovh;

  if (p->bps == 0 || !GST_CLOCK_TIME_IS_VALID (now))
    return FALSE;
  /* A new request (last_update NONE) derives at once. */
  if (GST_CLOCK_TIME_IS_VALID (p->last_update) &&
      now < p->last_update + RC_FEC_PROBE_UPDATE)
    return FALSE;
  mbps = rc_rate_meter_bps (&p->media, now);
  if (mbps <= 0)
    return FALSE;
  p->last_update = now;
  ovh = rc_fec_probe_overhead (p->bps, mbps);
  if (ovh == current)
    return FALSE;
  *overhead = ovh;
  if (media_bps)
    *media_bps = mbps;
  return TRUE;
}

gboolean
rc_fec_probe_set_bitrate (RcFecProbe * p, guint bps, gdouble current,
    gdouble * overhead, gdouble * media_bps)
{
  p->bps = bps;
  if (bps == 0) {
    *overhead = 0;
    if (media_bps)
      *media_bps = 0;
    return TRUE;
  }
  p->last_update = GST_CLOCK_TIME_NONE;
  return rc_fec_probe_update (p, rc_avg_window_newest (&p->media.w), current,
      overhead, media_bps);
}

void
rc_fec_probe_stop (RcFecProbe * p)
{
  p->bps = 0;
}
