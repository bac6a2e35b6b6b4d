/* XOR parity FEC, wire format (core): what the encoder (rc-fec-enc.c) and
 * the decoder (rc-fec-dec.c) both use. Parsing of RFC 8627 flexible FEC
 * (sec. 4.2.2) and RFC 5109 ULPFEC (sec. 7.3, 7.4) repair headers into one
 * RcFecPacketInfo, the word-wide XOR of the protected bit strings (RFC 8627
 * sec. 6.2, RFC 5109 sec. 10.2), reading a packet's fixed RTP header, and
 * the buffer pools both sides allocate packets from. See rc-fec.h for the
 * wire formats. No pads, no clock. */
#include <string.h>
#include "rc-fec-private.h"

#ifndef GST_DISABLE_GST_DEBUG
GST_DEBUG_CATEGORY (rc_fec_debug);
#endif

void
rc_fec_ensure_debug (void)
{
#ifndef GST_DISABLE_GST_DEBUG
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (rc_fec_debug, "rcfec", 0, "FEC codec core");
    g_once_init_leave (&done, 1);
  }
#endif
}

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

/* -------------------------------------------------------------- pools */

GstBufferPool *
rc_fec_pool_new (guint size)
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

void
rc_fec_pool_free (GstBufferPool * pool)
{
  if (!pool)
    return;
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
}

GstBuffer *
rc_fec_pool_get (GstBufferPool * pool, guint size)
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
