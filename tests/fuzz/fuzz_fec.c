/* Fuzz target: the FEC decoder (fecdec's core) on media and repair packets
 * from the network, in both formats (RFC 8627 flexfec in every mode the
 * packets name, RFC 5109 ULPFEC), with and without SSRC matching, in any
 * order, with time moving on, lookups and expiry in between. Every packet
 * the decoder hands back must be a valid RTP packet, and it must not keep
 * more than its window allows.
 *
 * Input: a byte of configuration (format, matching, window), then records:
 * a byte of kind (media, repair, either by payload type, time step,
 * lookup, expire, reset) and for packets a 16-bit length and the bytes. */
#include "fuzz.h"
#include <string.h>
#include <gst/rtp/gstrtpbuffer.h>
#include "rc-fec-dec.h"
#include "rc-fec-enc.h"

enum
{
  REC_MEDIA, REC_FEC, REC_ANY, REC_TIME, REC_LOOKUP, REC_EXPIRE, REC_RESET,
  REC_KINDS
};

/* A packet longer than this is no RTP on a UDP path. */
#define MAX_PKT 2048

static void
check_out (GPtrArray * out)
{
  guint i;

  for (i = 0; i < out->len; i++) {
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    GstBuffer *b = g_ptr_array_index (out, i);
    g_assert (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
    gst_rtp_buffer_unmap (&rtp);
  }
  g_ptr_array_set_size (out, 0);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  FuzzIn in = { data, size };
  RcFecDecoderConfig cfg;
  RcFecDecoder *dec;
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstClockTime now = 0;
  guint8 c;

  fuzz_init_gst ();
  rc_fec_decoder_config_init (&cfg);
  c = fuzz_u8 (&in);
  cfg.format = c & 1 ? RC_FEC_FORMAT_ULPFEC : RC_FEC_FORMAT_FLEXFEC;
  cfg.match_fec_ssrc = (c & 2) != 0;
  cfg.fec_ssrc = 0x5eed;
  cfg.match_media_ssrc = (c & 4) != 0;
  cfg.media_ssrc = 0xabcd;
  cfg.window = (1 + (c >> 3)) * 100 * GST_MSECOND;
  dec = rc_fec_decoder_new (&cfg);

  while (in.n) {
    guint8 kind = fuzz_u8 (&in) % REC_KINDS;
    const uint8_t *p;
    size_t len;
    GstBuffer *buf;

    switch (kind) {
      case REC_MEDIA:
      case REC_FEC:
      case REC_ANY:
        len = fuzz_u16 (&in);
        len = fuzz_bytes (&in, MIN (len, MAX_PKT), &p);
        buf = len ? gst_buffer_new_memdup (p, len) : gst_buffer_new ();
        if (kind == REC_ANY)
          kind = rc_fec_decoder_is_fec (dec, buf) ? REC_FEC : REC_MEDIA;
        if (kind == REC_FEC)
          rc_fec_decoder_push_fec (dec, buf, now, out);
        else
          rc_fec_decoder_push_media (dec, buf, now, out);
        gst_buffer_unref (buf);
        check_out (out);
        break;
      case REC_TIME:
        now += fuzz_u8 (&in) * 10 * GST_MSECOND;
        break;
      case REC_LOOKUP:{
        GstBuffer *rec = NULL;
        guint32 ssrc = fuzz_u8 (&in) & 1 ? 0xabcd : fuzz_u32 (&in);
        if (rc_fec_decoder_lookup (dec, ssrc, fuzz_u16 (&in), &rec) ==
            RC_FEC_SEQ_RECOVERED && rec) {
          g_ptr_array_add (out, rec);
          check_out (out);
        } else if (rec) {
          gst_buffer_unref (rec);
        }
        break;
      }
      case REC_EXPIRE:
        rc_fec_decoder_expire (dec, now);
        break;
      case REC_RESET:
        rc_fec_decoder_reset (dec);
        break;
    }
  }
  {
    RcFecDecoderStats st;
    rc_fec_decoder_get_stats (dec, &st);
    g_assert_cmpuint (st.lost_after, <=, st.lost_before);
    if (g_getenv ("FUZZ_VERBOSE"))
      g_printerr ("media %" G_GUINT64_FORMAT ", repair %" G_GUINT64_FORMAT
          ", recovered %" G_GUINT64_FORMAT ", rejected %" G_GUINT64_FORMAT
          "\n", st.media_received, st.fec_received, st.recovered,
          st.rejected);
  }
  g_ptr_array_unref (out);
  rc_fec_decoder_free (dec);
  return 0;
}

/* ---------------------------------------------------------------- seeds */

static void
put_packet (GByteArray * b, guint8 kind, GstBuffer * buf)
{
  GstMapInfo map;
  guint8 h[3];

  gst_buffer_map (buf, &map, GST_MAP_READ);
  h[0] = kind;
  h[1] = map.size >> 8;
  h[2] = map.size & 0xff;
  g_byte_array_append (b, h, 3);
  g_byte_array_append (b, map.data, map.size);
  gst_buffer_unmap (buf, &map);
}

/* 24 media packets through the encoder; every 5th media packet is left
 * out of the record, so the repair packets have something to rebuild. */
static void
seed_stream (const char *dir, const char *name, RcFecFormat format,
    RcFecMode mode, guint L, guint D)
{
  RcFecEncoderConfig cfg;
  RcFecEncoder *enc;
  GByteArray *b = g_byte_array_new ();
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  /* A 1 s window: 24 packets 30 ms apart fit. */
  guint8 conf = (format == RC_FEC_FORMAT_ULPFEC ? 1 : 0) | 9 << 3, step[2];
  guint i, j;

  rc_fec_encoder_config_init (&cfg);
  cfg.format = format;
  cfg.mode = mode;
  cfg.L = L;
  cfg.D = D;
  cfg.ssrc = 0x5eed;
  enc = rc_fec_encoder_new (&cfg);
  g_byte_array_append (b, &conf, 1);
  for (i = 0; i < 24; i++) {
    GstBuffer *m = gst_rtp_buffer_new_allocate (40 + 7 * i, 0, 0);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

    gst_rtp_buffer_map (m, GST_MAP_WRITE, &rtp);
    gst_rtp_buffer_set_ssrc (&rtp, 0xabcd);
    gst_rtp_buffer_set_seq (&rtp, 1000 + i);
    gst_rtp_buffer_set_timestamp (&rtp, 3000 * (i / 3));
    gst_rtp_buffer_set_payload_type (&rtp, 96);
    gst_rtp_buffer_set_marker (&rtp, i % 3 == 2);
    memset (gst_rtp_buffer_get_payload (&rtp), i, 40 + 7 * i);
    gst_rtp_buffer_unmap (&rtp);
    g_assert (rc_fec_encoder_push (enc, &m, out));
    if (i % 5 != 2)
      put_packet (b, REC_ANY, m);
    gst_buffer_unref (m);
    for (j = 0; j < out->len; j++)
      put_packet (b, REC_ANY, g_ptr_array_index (out, j));
    g_ptr_array_set_size (out, 0);
    step[0] = REC_TIME;
    step[1] = 3;
    g_byte_array_append (b, step, 2);
  }
  rc_fec_encoder_flush (enc, out);
  for (j = 0; j < out->len; j++)
    put_packet (b, REC_FEC, g_ptr_array_index (out, j));
  step[0] = REC_LOOKUP;
  step[1] = 1;
  g_byte_array_append (b, step, 2);
  step[0] = (1002 >> 8);
  step[1] = 1002 & 0xff;
  g_byte_array_append (b, step, 2);
  step[0] = REC_EXPIRE;
  g_byte_array_append (b, step, 1);
  fuzz_write_seed (dir, name, b->data, b->len);
  g_ptr_array_unref (out);
  g_byte_array_unref (b);
  rc_fec_encoder_free (enc);
}

void
fuzz_make_seeds (const char *dir)
{
  fuzz_init_gst ();
  seed_stream (dir, "flexfec-row", RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_ROW, 4,
      1);
  seed_stream (dir, "flexfec-column", RC_FEC_FORMAT_FLEXFEC,
      RC_FEC_MODE_COLUMN, 4, 3);
  seed_stream (dir, "flexfec-2d", RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_2D, 3, 3);
  seed_stream (dir, "flexfec-flexible", RC_FEC_FORMAT_FLEXFEC,
      RC_FEC_MODE_FLEXIBLE, 5, 1);
  seed_stream (dir, "ulpfec-row", RC_FEC_FORMAT_ULPFEC, RC_FEC_MODE_ROW, 4, 1);
  seed_stream (dir, "ulpfec-flexible", RC_FEC_FORMAT_ULPFEC,
      RC_FEC_MODE_FLEXIBLE, 6, 1);
}
