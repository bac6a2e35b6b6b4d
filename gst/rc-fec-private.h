/* What the FEC encoder (rc-fec-enc.c), decoder (rc-fec-dec.c) and wire
 * format code (rc-fec-wire.c) share and nobody else needs: the field
 * widths of RFC 8627 sec. 4.2.2 and RFC 5109 sec. 7.3/7.4, bit-mask
 * helpers, the buffer pools and the "rcfec" debug category. Include it
 * from those .c files only; public headers never do. */
#ifndef __RC_FEC_PRIVATE_H__
#define __RC_FEC_PRIVATE_H__

#include "rc-fec.h"

G_BEGIN_DECLS

#ifndef GST_DISABLE_GST_DEBUG
GST_DEBUG_CATEGORY_EXTERN (rc_fec_debug);
#define GST_CAT_DEFAULT rc_fec_debug
#endif
/* Registers "rcfec" once; the encoder and decoder constructors call it. */
void rc_fec_ensure_debug (void);

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
static inline guint
flex_mask_bit_pos (guint i)
{
  if (i < FLEX_MASK_BITS_0)
    return 10 * 8 + 1 + i;
  if (i < FLEX_MASK_BITS_1)
    return 12 * 8 + 1 + (i - FLEX_MASK_BITS_0);
  return 16 * 8 + (i - FLEX_MASK_BITS_1);
}

/* ------------------------------------------------------- packet bodies */

/* Called with each piece of a packet body: `len` bytes found at body
 * offset `pos`. */
typedef void (*RcFecBodyChunk) (gpointer user_data, guint pos,
    const guint8 * data, guint len);

/* Hands the `body` bytes of `buf` after its fixed RTP header to `chunk`,
 * memory by memory: mapping a buffer of several memories as one would
 * merge them (the header and payload a payloader makes) into a new
 * allocation and copy every packet. `first`, if not NULL, is the first
 * memory, mapped already. FALSE if a memory cannot be mapped or `buf` is
 * shorter. Inline, so a constant `chunk` is inlined into the loop. */
static inline gboolean
body_foreach (GstBuffer * buf, const GstMapInfo * first, guint body,
    RcFecBodyChunk chunk, gpointer user_data)
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
    if (i == 0 && first)
      mi = *first;
    else if (!gst_memory_map (m, &mi, GST_MAP_READ))
      return FALSE;
    len = MIN (mi.size - skip, body - pos);
    chunk (user_data, pos, mi.data + skip, len);
    if (i != 0 || !first)
      gst_memory_unmap (m, &mi);
    pos += len;
    skip = 0;
  }
  return pos == body;
}

/* ---------------------------------------------------------- buffer pools */

/* Pooled buffers hold an Ethernet-MTU packet with any header we add:
 * 1500 (RFC 894 MTU) + 528 of RTP, CSRC, extension and FEC headers. The
 * rare bigger packet gets its own allocation. */
#define POOL_BUFFER_SIZE 2048

GstBufferPool *rc_fec_pool_new (guint size);
void rc_fec_pool_free (GstBufferPool * pool);
/* A buffer of `size` bytes in one memory: pooled up to POOL_BUFFER_SIZE. */
GstBuffer *rc_fec_pool_get (GstBufferPool * pool, guint size);

G_END_DECLS
#endif
