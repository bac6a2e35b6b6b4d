/* XOR parity FEC codec (core): RFC 8627 flexible FEC and RFC 5109 ULPFEC.
 * See rc-fec.h for the wire formats. No pads, no clock: the decoder is
 * given the time with every packet. */
#include <string.h>
#include "rc-fec.h"

#ifndef GST_DISABLE_GST_DEBUG
#define GST_CAT_DEFAULT rc_fec_debug
GST_DEBUG_CATEGORY_STATIC (rc_fec_debug);
#endif

static void
ensure_debug (void)
{
#ifndef GST_DISABLE_GST_DEBUG
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (rc_fec_debug, "rcfec", 0, "FEC codec core");
    g_once_init_leave (&done, 1);
  }
#endif
}

/* RFC 8627 sec. 4.2.2.1: the three mask lengths. */
#define FLEX_MASK_BITS_0 15
#define FLEX_MASK_BITS_1 46
#define FLEX_MASK_BITS_2 110
/* ... and the header length that goes with each (bytes up to the repair
 * payload). */
#define FLEX_HDR_LEN_0 12
#define FLEX_HDR_LEN_1 16
#define FLEX_HDR_LEN_2 24
/* RFC 5109 sec. 7.4: 16-bit mask (L = 0) or 48-bit (L = 1). */
#define ULP_MASK_BITS_SHORT 16
#define ULP_MASK_BITS_LONG 48
/* RTP version 2 in the top two bits of byte 0 (RFC 3550 sec. 5.1). */
#define RTP_VERSION_BITS 0x80
/* P, X, CC: the low 6 bits of byte 0 that FEC recovers (RFC 8627 sec.
 * 4.2.2, RFC 5109 sec. 7.3). */
#define REC0_MASK 0x3f

/* ------------------------------------------------------------------ XOR */

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    defined(__ELF__)
/* An AVX2 build beside the baseline (SSE2) one, picked once when the
 * library loads (GCC function multiversioning, an ELF ifunc): XOR is most
 * of the encoder's arithmetic. */
#define RC_FEC_XOR_CLONES __attribute__((target_clones ("avx2", "default")))
#else
#define RC_FEC_XOR_CLONES
#endif

RC_FEC_XOR_CLONES void
rc_fec_xor (guint8 * dst, const guint8 * src, gsize n)
{
  gsize i = 0;

#if defined(__GNUC__)
  /* 32-byte vectors: one register each with AVX2, a pair of SSE2/NEON
   * registers otherwise. Unaligned, may-alias access compiles to plain
   * vector loads and stores with nothing spilled to the stack. */
  typedef guint8 v32 __attribute__((vector_size (32), aligned (1), may_alias));
  for (; i + 64 <= n; i += 64) {
    v32 a0 = *(const v32 *) (dst + i), a1 = *(const v32 *) (dst + i + 32);
    v32 b0 = *(const v32 *) (src + i), b1 = *(const v32 *) (src + i + 32);
    *(v32 *) (dst + i) = a0 ^ b0;
    *(v32 *) (dst + i + 32) = a1 ^ b1;
  }
#endif
  /* 64-bit words, then the tail. */
  for (; i + 8 <= n; i += 8) {
    guint64 a, b;
    memcpy (&a, dst + i, 8);
    memcpy (&b, src + i, 8);
    a ^= b;
    memcpy (dst + i, &a, 8);
  }
  for (; i < n; i++)
    dst[i] ^= src[i];
}

gboolean
rc_fec_read_header (GstBuffer * buf, guint8 * hdr)
{
  GstMemory *m;
  GstMapInfo mi;

  /* Where payloaders and udpsrc put it: in the first memory, read with one
   * memory map (gst_buffer_extract costs a few times more). */
  if (gst_buffer_n_memory (buf) > 0) {
    m = gst_buffer_peek_memory (buf, 0);
    if (m->size >= RC_FEC_RTP_HEADER_LEN &&
        gst_memory_map (m, &mi, GST_MAP_READ)) {
      memcpy (hdr, mi.data, RC_FEC_RTP_HEADER_LEN);
      gst_memory_unmap (m, &mi);
      return TRUE;
    }
  }
  return gst_buffer_extract (buf, 0, hdr, RC_FEC_RTP_HEADER_LEN) ==
      RC_FEC_RTP_HEADER_LEN;
}

/* dst ^= the `body` bytes of `buf` after its fixed header, memory by
 * memory (mapping a buffer of several memories as one would merge them
 * into a new allocation first). */
static gboolean
xor_body (guint8 * dst, GstBuffer * buf, guint body)
{
  guint i, n = gst_buffer_n_memory (buf), pos = 0;
  gsize skip = RC_FEC_RTP_HEADER_LEN;

  for (i = 0; i < n && pos < body; i++) {
    GstMemory *m = gst_buffer_peek_memory (buf, i);
    GstMapInfo mi;
    guint len;

    if (m->size <= skip) {
      skip -= m->size;
      continue;
    }
    if (!gst_memory_map (m, &mi, GST_MAP_READ))
      return FALSE;
    len = MIN (mi.size - skip, body - pos);
    rc_fec_xor (dst + pos, mi.data + skip, len);
    gst_memory_unmap (m, &mi);
    pos += len;
    skip = 0;
  }
  return pos == body;
}

/* ---------------------------------------------------------- bit masks */

static inline void
mask_set (guint64 * mask, guint i)
{
  mask[i / 64] |= G_GUINT64_CONSTANT (1) << (i % 64);
}

static inline gboolean
mask_get (const guint64 * mask, guint i)
{
  return (mask[i / 64] >> (i % 64)) & 1;
}

/* Bit scans of 64-bit words (compiler builtins where there are some). */
#if defined(__GNUC__)
#define bit_msb(x) (63 - __builtin_clzll (x))
#define bit_lsb(x) __builtin_ctzll (x)
#define bit_count(x) __builtin_popcountll (x)
#else
static inline guint
bit_msb (guint64 x)
{
  guint i = 0;
  while (x >>= 1)
    i++;
  return i;
}

static inline guint
bit_lsb (guint64 x)
{
  guint i = 0;
  while (!(x & 1)) {
    x >>= 1;
    i++;
  }
  return i;
}

static inline guint
bit_count (guint64 x)
{
  guint n = 0;
  for (; x; x &= x - 1)
    n++;
  return n;
}
#endif

/* Index of the highest set bit of a RC_FEC_MAX_PROTECTED-bit mask, -1 if
 * none: a word at a time, not a bit at a time (this runs for every repair
 * packet sent and received). */
static inline gint
mask_last (const guint64 * mask)
{
  gint w;

  for (w = RC_FEC_MAX_PROTECTED / 64 - 1; w >= 0; w--)
    if (mask[w])
      return w * 64 + bit_msb (mask[w]);
  return -1;
}

static inline guint
mask_count (const guint64 * mask)
{
  guint w, n = 0;

  for (w = 0; w < RC_FEC_MAX_PROTECTED / 64; w++)
    n += bit_count (mask[w]);
  return n;
}

/* Bit `pos` of a byte string, most significant bit of byte 0 first. */
static inline gboolean
wire_bit (const guint8 * p, guint pos)
{
  return (p[pos / 8] >> (7 - pos % 8)) & 1;
}

static inline void
wire_set_bit (guint8 * p, guint pos)
{
  p[pos / 8] |= 0x80 >> (pos % 8);
}

/* Wire bit position of flexible-mask bit i, counted from the start of the
 * FEC header (RFC 8627 sec. 4.2.2.1: each k bit precedes its mask part). */
static guint
flex_mask_bit_pos (guint i)
{
  if (i < FLEX_MASK_BITS_0)
    return 10 * 8 + 1 + i;
  if (i < FLEX_MASK_BITS_1)
    return 12 * 8 + 1 + (i - FLEX_MASK_BITS_0);
  return 16 * 8 + (i - FLEX_MASK_BITS_1);
}

/* -------------------------------------------------------------- parse */

const gchar *
rc_fec_parse_result_to_string (RcFecParseResult r)
{
  switch (r) {
    case RC_FEC_PARSE_OK:
      return "ok";
    case RC_FEC_PARSE_TRUNCATED:
      return "truncated";
    case RC_FEC_PARSE_BAD_LENGTH:
      return "impossible length";
    case RC_FEC_PARSE_BAD_HEADER:
      return "bad header";
    case RC_FEC_PARSE_EMPTY_MASK:
      return "empty mask";
  }
  return "?";
}

static void
info_finish_mask (RcFecPacketInfo * info)
{
  gint last = mask_last (info->mask);

  info->n_protected = mask_count (info->mask);
  info->span = last >= 0 ? last * info->stride + 1 : 0;
}

static RcFecParseResult
parse_flexfec (GstRTPBuffer * rtp, const guint8 * p, guint len,
    RcFecPacketInfo * info)
{
  guint hdr_len, i;

  /* sec. 4.1: the protected SSRC travels in the CSRC list. One protected
   * stream per repair packet is what we send and accept. */
  if (gst_rtp_buffer_get_csrc_count (rtp) != 1)
    return RC_FEC_PARSE_BAD_HEADER;
  info->protected_ssrc = gst_rtp_buffer_get_csrc (rtp, 0);
  if (len < FLEX_HDR_LEN_0)
    return RC_FEC_PARSE_TRUNCATED;
  /* sec. 4.2.1: R = 1 is a retransmission, not a parity packet. */
  if (p[0] & 0x80)
    return RC_FEC_PARSE_BAD_HEADER;
  info->fixed = (p[0] & 0x40) != 0;
  info->rec0 = p[0] & REC0_MASK;
  info->rec1 = p[1];
  info->len_rec = GST_READ_UINT16_BE (p + 2);
  info->ts_rec = GST_READ_UINT32_BE (p + 4);
  info->sn_base = GST_READ_UINT16_BE (p + 8);

  if (info->fixed) {
    info->L = p[10];
    info->D = p[11];
    /* sec. 4.2.2.2: L = 0 is reserved. */
    if (info->L == 0)
      return RC_FEC_PARSE_BAD_HEADER;
    hdr_len = FLEX_HDR_LEN_0;
    if (info->D <= 1) {
      info->stride = 1;
      for (i = 0; i < info->L; i++)
        mask_set (info->mask, i);
    } else {
      info->stride = info->L;
      for (i = 0; i < info->D; i++)
        mask_set (info->mask, i);
    }
    info->mask_bits = 0;
  } else {
    info->stride = 1;
    if (p[10] & 0x80) {
      info->mask_bits = FLEX_MASK_BITS_0;
      hdr_len = FLEX_HDR_LEN_0;
    } else if (len < FLEX_HDR_LEN_1) {
      return RC_FEC_PARSE_TRUNCATED;
    } else if (p[12] & 0x80) {
      info->mask_bits = FLEX_MASK_BITS_1;
      hdr_len = FLEX_HDR_LEN_1;
    } else if (len < FLEX_HDR_LEN_2) {
      return RC_FEC_PARSE_TRUNCATED;
    } else {
      info->mask_bits = FLEX_MASK_BITS_2;
      hdr_len = FLEX_HDR_LEN_2;
    }
    for (i = 0; i < info->mask_bits; i++)
      if (wire_bit (p, flex_mask_bit_pos (i)))
        mask_set (info->mask, i);
  }
  if (len < hdr_len)
    return RC_FEC_PARSE_TRUNCATED;
  info->payload = p + hdr_len;
  info->payload_len = len - hdr_len;
  return RC_FEC_PARSE_OK;
}

static RcFecParseResult
parse_ulpfec (GstRTPBuffer * rtp, const guint8 * p, guint len,
    RcFecPacketInfo * info)
{
  guint hdr_len, i;

  info->protected_ssrc = gst_rtp_buffer_get_ssrc (rtp);
  if (len < RC_ULPFEC_HEADER_LEN + RC_ULPFEC_LEVEL_HEADER_SHORT)
    return RC_FEC_PARSE_TRUNCATED;
  /* sec. 7.3: E is reserved and must be 0. */
  if (p[0] & 0x80)
    return RC_FEC_PARSE_BAD_HEADER;
  info->mask_bits = (p[0] & 0x40) ? ULP_MASK_BITS_LONG : ULP_MASK_BITS_SHORT;
  hdr_len = RC_ULPFEC_HEADER_LEN + ((p[0] & 0x40) ?
      RC_ULPFEC_LEVEL_HEADER_LONG : RC_ULPFEC_LEVEL_HEADER_SHORT);
  if (len < hdr_len)
    return RC_FEC_PARSE_TRUNCATED;
  info->rec0 = p[0] & REC0_MASK;
  info->rec1 = p[1];
  info->sn_base = GST_READ_UINT16_BE (p + 2);
  info->ts_rec = GST_READ_UINT32_BE (p + 4);
  info->len_rec = GST_READ_UINT16_BE (p + 8);
  info->payload_len = GST_READ_UINT16_BE (p + 10);
  info->stride = 1;
  info->fixed = FALSE;
  for (i = 0; i < info->mask_bits; i++)
    if (wire_bit (p + 12, i))
      mask_set (info->mask, i);
  /* sec. 7.4: the level-0 payload is Protection Length bytes; more
   * levels may follow, which we do not use. */
  if (info->payload_len > len - hdr_len)
    return RC_FEC_PARSE_BAD_LENGTH;
  info->payload = p + hdr_len;
  return RC_FEC_PARSE_OK;
}

RcFecParseResult
rc_fec_parse (RcFecFormat format, GstRTPBuffer * rtp, RcFecPacketInfo * info)
{
  const guint8 *p = gst_rtp_buffer_get_payload (rtp);
  guint len = gst_rtp_buffer_get_payload_len (rtp);
  RcFecParseResult r;

  memset (info, 0, sizeof (*info));
  info->format = format;
  info->fec_ssrc = gst_rtp_buffer_get_ssrc (rtp);
  info->fec_seq = gst_rtp_buffer_get_seq (rtp);
  info->fec_pt = gst_rtp_buffer_get_payload_type (rtp);
  if (!p)
    return RC_FEC_PARSE_TRUNCATED;
  r = format == RC_FEC_FORMAT_FLEXFEC ? parse_flexfec (rtp, p, len, info) :
      parse_ulpfec (rtp, p, len, info);
  if (r != RC_FEC_PARSE_OK)
    return r;
  /* A repair payload must hold at least one payload byte and can never be
   * longer than the longest packet we would protect. */
  if (info->payload_len == 0 || info->payload_len > RC_FEC_MAX_PACKET)
    return RC_FEC_PARSE_BAD_LENGTH;
  info_finish_mask (info);
  if (info->n_protected == 0)
    return RC_FEC_PARSE_EMPTY_MASK;
  return RC_FEC_PARSE_OK;
}

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

/* Adds one packet's bit string (RFC 8627 sec. 6.2) to each accumulator of
 * `accs`: the recovery fields from its fixed header `hdr`, the body (all
 * of `buf` after the fixed header) read memory by memory (`first`, if
 * set, is the first memory, mapped already). Mapping the whole buffer
 * instead would merge the memories a payloader makes (header, payload)
 * into a new allocation and copy every packet. `seq` is the sequence
 * number the packet is sent with. Returns FALSE unless every
 * accumulator's mask has room for it (it is added to those that do). */
static gboolean
acc_add (FecAcc ** accs, guint n_accs, GstBuffer * buf,
    const GstMapInfo * first, const guint8 * hdr, guint size, guint16 seq,
    guint max_bits)
{
  guint body = size - RC_FEC_RTP_HEADER_LEN;
  guint old_len[2];
  FecAcc *use[2];
  guint n_use = 0, k, i, n_mem, pos = 0;
  gsize skip = RC_FEC_RTP_HEADER_LEN;

  g_assert (n_accs <= G_N_ELEMENTS (use));
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
    old_len[n_use] = a->max_len;
    use[n_use++] = a;
  }
  n_mem = n_use ? gst_buffer_n_memory (buf) : 0;
  for (i = 0; i < n_mem && pos < body; i++) {
    GstMemory *m = gst_buffer_peek_memory (buf, i);
    GstMapInfo mi;
    guint len;

    if (m->size <= skip) {
      skip -= m->size;
      continue;
    }
    if (i == 0 && first)
      mi = *first;
    else if (!gst_memory_map (m, &mi, GST_MAP_READ))
      break;
    len = MIN (mi.size - skip, body - pos);
    for (k = 0; k < n_use; k++)
      acc_body_chunk (use[k], old_len[k], pos, mi.data + skip, len);
    if (i != 0 || !first)
      gst_memory_unmap (m, &mi);
    pos += len;
    skip = 0;
  }
  for (k = 0; k < n_use; k++)
    use[k]->max_len = MAX (old_len[k], body);
  return n_use == n_accs;
}

/* -------------------------------------------------------------- pools */

static GstBufferPool *
pool_new (guint size)
{
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *conf = gst_buffer_pool_get_config (pool);

  /* min 8 so a burst of repair packets never waits on allocation; no
   * maximum: if downstream holds many the pool grows, then stays. */
  gst_buffer_pool_config_set_params (conf, NULL, size, 8, 0);
  gst_buffer_pool_set_config (pool, conf);
  gst_buffer_pool_set_active (pool, TRUE);
  return pool;
}

static void
pool_free (GstBufferPool * pool)
{
  if (!pool)
    return;
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
}

/* Pooled buffers hold an Ethernet-MTU packet with any header we add:
 * 1500 (RFC 894 MTU) + 528 of RTP, CSRC, extension and FEC headers. The
 * rare bigger packet gets its own allocation. */
#define POOL_BUFFER_SIZE 2048

static GstBuffer *
pool_get (GstBufferPool * pool, guint size)
{
  GstBuffer *buf = NULL;

  if (size > POOL_BUFFER_SIZE)
    return gst_buffer_new_allocate (NULL, size, NULL);
  if (gst_buffer_pool_acquire_buffer (pool, &buf, NULL) != GST_FLOW_OK || !buf)
    return gst_buffer_new_allocate (NULL, size, NULL);
  /* One memory, ours alone: sized directly (gst_buffer_set_size would
   * also walk the buffer's metas for every repair packet). */
  gst_memory_resize (gst_buffer_peek_memory (buf, 0), 0, size);
  return buf;
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

  ensure_debug ();
  acc_init (&enc->row);
  encoder_apply (enc, cfg);
  enc->fec_seq = cfg->seq_start;
  enc->pool = pool_new (POOL_BUFFER_SIZE);
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
  pool_free (enc->pool);
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
    buf = pool_get (enc->pool, total);
    /* One memory (pool_get): mapped alone, no buffer-level bookkeeping. */
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
 * growing memory. */
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

  ensure_debug ();
  dec->cfg = *cfg;
  dec->streams = g_hash_table_new_full (NULL, NULL, NULL, stream_free);
  dec->pool = pool_new (POOL_BUFFER_SIZE);
  return dec;
}

void
rc_fec_decoder_free (RcFecDecoder * dec)
{
  if (!dec)
    return;
  g_hash_table_destroy (dec->streams);
  pool_free (dec->pool);
  g_free (dec);
}

static Stream *
get_stream (RcFecDecoder * dec, guint32 ssrc)
{
  Stream *s = g_hash_table_lookup (dec->streams, GUINT_TO_POINTER (ssrc));

  if (!s && g_hash_table_size (dec->streams) >= MAX_STREAMS)
    return NULL;
  if (!s) {
    s = g_new0 (Stream, 1);
    s->ssrc = ssrc;
    g_hash_table_insert (dec->streams, GUINT_TO_POINTER (ssrc), s);
  }
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

/* Settles the loss counts of the oldest slot and frees it. */
static void
release_tail (RcFecDecoder * dec, Stream * s)
{
  Slot *sl = slot_of (s, s->tail);

  if (sl->ext == s->tail) {
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
    if (!xor_body (dec->scratch, o->buf, body))
      return RC_FEC_REJECT_INCONSISTENT;
  }
  if (len > plen || len == 0)
    return RC_FEC_REJECT_INCONSISTENT;

  buf = pool_get (dec->pool, RC_FEC_RTP_HEADER_LEN + len);
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

  advance (dec, s, missing, now);
  sl = slot_of (s, missing);
  gst_clear_buffer (&sl->buf);
  sl->buf = gst_buffer_ref (buf);
  sl->ext = missing;
  sl->state = SLOT_RECOVERED;
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

  s = get_stream (dec, ssrc);
  if (!s)
    return RC_FEC_OLD;          /* too many streams: passed on, unprotected */
  expire_stream (dec, s, now);
  ext = unwrap (s, seq);
  if (s->started && ext < s->tail)
    return RC_FEC_OLD;
  if (s->started && ext <= s->highest) {
    sl = slot_of (s, ext);
    if (sl->ext == ext && sl->state != SLOT_EMPTY) {
      dec->stats.duplicates++;
      return RC_FEC_DUPLICATE;
    }
  }
  advance (dec, s, ext, now);
  sl = slot_of (s, ext);
  gst_clear_buffer (&sl->buf);
  sl->buf = gst_buffer_ref (buf);
  sl->ext = ext;
  sl->state = SLOT_MEDIA;
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

  s = get_stream (dec, info.protected_ssrc);
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
    advance (dec, s, fext, now);
    sl = slot_of (s, fext);
    gst_clear_buffer (&sl->buf);
    sl->ext = fext;
    sl->state = SLOT_FEC;
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
