/* FEC codec core (rc-fec-wire, rc-fec-enc, rc-fec-dec): recovery of every
 * lost position in rows, columns and 2-D blocks, wire-format round trips
 * for RFC 8627 and RFC 5109, sequence wrap, rejection of malformed repair
 * packets, and the probe arithmetic (FEC bitrate and media rate to
 * overhead). Times are fixed values; no clock. */
#include <math.h>
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/rtp/gstrtpbuffer.h>
#include "rc-fec-enc.h"
#include "rc-fec-dec.h"

#define MS GST_MSECOND
#define MEDIA_SSRC 0x11223344
#define FEC_SSRC 0x55667788
#define MEDIA_PT 96
#define FEC_PT 100

/* ------------------------------------------------------------ helpers */

/* A media packet whose size, marker, timestamp and payload derive from
 * `seq`, optionally with CSRCs and a one-byte header extension, so
 * recovered packets can be compared byte for byte. */
static GstBuffer *
media_new (guint16 seq, gboolean with_extras)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint plen = 100 + (seq * 37) % 900;
  guint8 csrc_count = with_extras ? 2 : 0;
  GstBuffer *buf = gst_rtp_buffer_new_allocate (plen, 0, csrc_count);
  guint8 *p;
  guint i;

  fail_unless (gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp));
  gst_rtp_buffer_set_ssrc (&rtp, MEDIA_SSRC);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, 1000u + (guint32) seq * 3000u);
  gst_rtp_buffer_set_payload_type (&rtp, MEDIA_PT);
  gst_rtp_buffer_set_marker (&rtp, seq % 5 == 4);
  for (i = 0; i < csrc_count; i++)
    gst_rtp_buffer_set_csrc (&rtp, i, 0xc0000000u + seq * 2 + i);
  gst_rtp_buffer_unmap (&rtp);
  if (with_extras) {
    guint16 v = seq ^ 0x5a5a;
    /* A one-byte header extension (it grows the header, so its own map). */
    fail_unless (gst_rtp_buffer_map (buf, GST_MAP_READWRITE, &rtp));
    fail_unless (gst_rtp_buffer_add_extension_onebyte_header (&rtp, 3, &v,
            2));
    gst_rtp_buffer_unmap (&rtp);
  }
  fail_unless (gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp));
  p = gst_rtp_buffer_get_payload (&rtp);
  plen = gst_rtp_buffer_get_payload_len (&rtp);
  for (i = 0; i < plen; i++)
    p[i] = (guint8) (seq * 13 + i * 7);
  gst_rtp_buffer_unmap (&rtp);
  return buf;
}

static void
assert_same (GstBuffer * got, GstBuffer * want)
{
  GstMapInfo a, b;

  fail_unless (gst_buffer_map (got, &a, GST_MAP_READ));
  fail_unless (gst_buffer_map (want, &b, GST_MAP_READ));
  fail_unless_equals_int (a.size, b.size);
  fail_unless (memcmp (a.data, b.data, a.size) == 0, "packet differs");
  gst_buffer_unmap (got, &a);
  gst_buffer_unmap (want, &b);
}

static guint16
buf_seq (GstBuffer * b)
{
  guint8 h[4];
  gst_buffer_extract (b, 0, h, 4);
  return GST_READ_UINT16_BE (h + 2);
}

static RcFecEncoder *
encoder (RcFecFormat format, RcFecMode mode, guint L, guint D)
{
  RcFecEncoderConfig c;

  rc_fec_encoder_config_init (&c);
  c.format = format;
  c.mode = mode;
  c.L = L;
  c.D = D;
  c.pt = FEC_PT;
  c.ssrc = FEC_SSRC;
  c.seq_start = 5000;
  return rc_fec_encoder_new (&c);
}

static RcFecDecoder *
decoder (RcFecFormat format)
{
  RcFecDecoderConfig c;

  rc_fec_decoder_config_init (&c);
  c.format = format;
  c.pt = FEC_PT;
  return rc_fec_decoder_new (&c);
}

/* Sent stream: media and repair packets in sending order, plus which
 * entries are media (and their original, un-renumbered copy). */
typedef struct
{
  GPtrArray *pkts;              /* GstBuffer */
  GArray *is_media;             /* gboolean */
  GPtrArray *media;             /* media as sent, by media index */
} Sent;

static void
sent_init (Sent * s)
{
  s->pkts = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_buffer_unref);
  s->is_media = g_array_new (FALSE, FALSE, sizeof (gboolean));
  s->media = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
}

static void
sent_clear (Sent * s)
{
  g_ptr_array_unref (s->pkts);
  g_array_unref (s->is_media);
  g_ptr_array_unref (s->media);
}

static void
sent_add (Sent * s, GstBuffer * b, gboolean media)
{
  g_ptr_array_add (s->pkts, b);
  g_array_append_val (s->is_media, media);
  if (media)
    g_ptr_array_add (s->media, gst_buffer_ref (b));
}

/* Encodes `n` media packets from `first_seq` (and flushes). */
static void
encode_run (RcFecEncoder * enc, guint16 first_seq, guint n, gboolean extras,
    gboolean flush, Sent * s)
{
  GPtrArray *out = g_ptr_array_new ();
  guint i, j;

  for (i = 0; i < n; i++) {
    GstBuffer *m = media_new (first_seq + i, extras);
    fail_unless (rc_fec_encoder_push (enc, &m, out));
    sent_add (s, m, TRUE);
    for (j = 0; j < out->len; j++)
      sent_add (s, out->pdata[j], FALSE);
    g_ptr_array_set_size (out, 0);
  }
  if (flush) {
    rc_fec_encoder_flush (enc, out);
    for (j = 0; j < out->len; j++)
      sent_add (s, out->pdata[j], FALSE);
  }
  g_ptr_array_unref (out);
}

/* The first repair packet of a sent stream. */
static GstBuffer *
first_repair (Sent * s)
{
  guint i;

  for (i = 0; i < s->pkts->len; i++)
    if (!g_array_index (s->is_media, gboolean, i))
      return s->pkts->pdata[i];
  fail_unless (FALSE, "no repair packet sent");
  return NULL;
}

/* Delivers the sent stream minus the media indices in `lost` (a
 * G_MAXUINT-terminated list) and checks that every lost packet comes back
 * exactly; returns the number recovered. */
static guint
deliver (RcFecDecoder * dec, Sent * s, const guint * lost, gboolean expect_all)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  guint i, k, media_idx = 0, n_lost = 0, got = 0;
  GstClockTime t = 0;

  for (k = 0; lost[k] != G_MAXUINT; k++)
    n_lost++;
  for (i = 0; i < s->pkts->len; i++) {
    GstBuffer *b = s->pkts->pdata[i];
    gboolean media = g_array_index (s->is_media, gboolean, i);
    gboolean drop = FALSE;

    if (media) {
      for (k = 0; k < n_lost; k++)
        if (lost[k] == media_idx)
          drop = TRUE;
      media_idx++;
      if (!drop)
        fail_unless_equals_int (rc_fec_decoder_push_media (dec, b, t, out),
            RC_FEC_OK);
    } else {
      RcFecResult r = rc_fec_decoder_push_fec (dec, b, t, out);
      fail_unless (r == RC_FEC_OK, "repair rejected: %s",
          rc_fec_result_to_string (r));
    }
    t += 1 * MS;
  }
  for (i = 0; i < out->len; i++) {
    GstBuffer *r = out->pdata[i];
    gboolean matched = FALSE;
    for (k = 0; k < n_lost; k++) {
      GstBuffer *want = s->media->pdata[lost[k]];
      if (buf_seq (want) == buf_seq (r)) {
        assert_same (r, want);
        matched = TRUE;
        got++;
      }
    }
    fail_unless (matched, "recovered seq %u was not lost", buf_seq (r));
  }
  if (expect_all)
    fail_unless_equals_int (got, n_lost);
  g_ptr_array_unref (out);
  return got;
}


/* Frame-level recovery (FFRE): frames of 4 packets (one RTP timestamp, the
 * marker on the last) under row FEC of 4, one group per frame; which
 * frames lost a packet and which FEC made whole, from the decoder's
 * stats once everything has settled. */
GST_START_TEST (test_frame_recovery_counts)
{
  RcFecEncoder *enc = encoder (RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_ROW, 4, 1);
  RcFecDecoder *dec = decoder (RC_FEC_FORMAT_FLEXFEC);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GPtrArray *rebuilt = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  RcFecDecoderStats st;
  /* By frame: 0 none lost; 1 one (rebuilt); 2 two of one row; 3 its marker
   * packet and the repair; 5 its first packet (after 4's marker) and the
   * repair; 6 everything; 4 and 7 none. */
  static const gchar *drop[8] = { "", "m1", "m0m2", "m3r", "", "m0r",
    "m0m1m2m3r", ""
  };
  GstClockTime t = 0;
  guint f, i, j;

  for (f = 0; f < 8; f++) {
    for (i = 0; i < 4; i++) {
      GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
      GstBuffer *m = media_new (200 + f * 4 + i, FALSE);
      gchar tag[3] = { 'm', (gchar) ('0' + i), 0 };

      fail_unless (gst_rtp_buffer_map (m, GST_MAP_WRITE, &rtp));
      gst_rtp_buffer_set_timestamp (&rtp, 90000 + f * 3000);
      gst_rtp_buffer_set_marker (&rtp, i == 3);
      gst_rtp_buffer_unmap (&rtp);
      fail_unless (rc_fec_encoder_push (enc, &m, out));
      if (!strstr (drop[f], tag))
        fail_unless_equals_int (rc_fec_decoder_push_media (dec, m, t,
                rebuilt), RC_FEC_OK);
      gst_buffer_unref (m);
      /* The row's repair packet, after its last media packet. */
      fail_unless_equals_int (out->len, i == 3 ? 1 : 0);
      for (j = 0; j < out->len; j++)
        if (!strchr (drop[f], 'r'))
          fail_unless_equals_int (rc_fec_decoder_push_fec (dec,
                  out->pdata[j], t, rebuilt), RC_FEC_OK);
      g_ptr_array_set_size (out, 0);
      t += 10 * MS;
    }
  }
  rc_fec_decoder_reset (dec);
  rc_fec_decoder_get_stats (dec, &st);
  /* Hit: 1, 2, 3, 5, and 6 with 7 (a frame lost whole is counted with the
   * next one that arrives); made whole: 1. */
  fail_unless_equals_int (st.recovered, 1);
  fail_unless_equals_int (st.frames_hit, 5);
  fail_unless_equals_int (st.frames_recovered, 1);
  fail_unless_equals_int (rebuilt->len, 1);
  g_ptr_array_unref (rebuilt);
  g_ptr_array_unref (out);
  rc_fec_encoder_free (enc);
  rc_fec_decoder_free (dec);
}

GST_END_TEST;

/* ------------------------------------------------------------- XOR */

GST_START_TEST (test_xor_word_wide_matches_bytewise)
{
  guint8 a[300], b[300], ref[300];
  guint n, off, i;

  for (n = 0; n < 140; n += 7)
    for (off = 0; off < 9; off++) {
      for (i = 0; i < sizeof (a); i++) {
        a[i] = ref[i] = (guint8) (i * 31 + n);
        b[i] = (guint8) (i * 17 + off);
      }
      rc_fec_xor (a + off, b + 1, n);
      for (i = 0; i < n; i++)
        ref[off + i] ^= b[1 + i];
      fail_unless (memcmp (a, ref, sizeof (a)) == 0, "n %u off %u", n, off);
    }
}

GST_END_TEST;

/* ------------------------------------------- every lost position (loops) */

typedef struct
{
  RcFecFormat format;
  RcFecMode mode;
  guint L, D;
} Geometry;

static const Geometry row_cases[] = {
  {RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_ROW, 5, 1},
  {RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_ROW, 10, 1},
  {RC_FEC_FORMAT_ULPFEC, RC_FEC_MODE_ROW, 6, 1},
  {RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_FLEXIBLE, 5, 1},
  {RC_FEC_FORMAT_ULPFEC, RC_FEC_MODE_FLEXIBLE, 5, 1},
};

/* One loss anywhere in a row (group) is always repaired, with CSRCs and
 * header extensions intact. */
GST_START_TEST (test_row_every_position)
{
  const Geometry *g = &row_cases[__i__];
  guint pos;

  for (pos = 0; pos < g->L; pos++) {
    RcFecEncoder *enc = encoder (g->format, g->mode, g->L, g->D);
    RcFecDecoder *dec = decoder (g->format);
    Sent s;
    guint lost[] = { g->L + pos, G_MAXUINT };   /* second group */

    sent_init (&s);
    encode_run (enc, 100, 3 * g->L, TRUE, TRUE, &s);
    deliver (dec, &s, lost, TRUE);
    sent_clear (&s);
    rc_fec_encoder_free (enc);
    rc_fec_decoder_free (dec);
  }
}

GST_END_TEST;

static const Geometry block_cases[] = {
  {RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_COLUMN, 4, 3},
  {RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_2D, 4, 3},
  {RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_2D, 5, 5},
  {RC_FEC_FORMAT_ULPFEC, RC_FEC_MODE_COLUMN, 4, 3},
  {RC_FEC_FORMAT_ULPFEC, RC_FEC_MODE_2D, 4, 3},
};

/* One loss anywhere in a column / 2-D block is repaired. */
GST_START_TEST (test_block_every_position)
{
  const Geometry *g = &block_cases[__i__];
  guint n = g->L * g->D, pos;

  for (pos = 0; pos < n; pos++) {
    RcFecEncoder *enc = encoder (g->format, g->mode, g->L, g->D);
    RcFecDecoder *dec = decoder (g->format);
    Sent s;
    guint lost[] = { n + pos, G_MAXUINT };      /* second block */

    sent_init (&s);
    encode_run (enc, 65000, 3 * n, FALSE, TRUE, &s);
    deliver (dec, &s, lost, TRUE);
    sent_clear (&s);
    rc_fec_encoder_free (enc);
    rc_fec_decoder_free (dec);
  }
}

GST_END_TEST;

/* Column FEC repairs a burst as long as L (one per column). */
GST_START_TEST (test_column_burst)
{
  RcFecEncoder *enc = encoder (RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_COLUMN, 5,
      4);
  RcFecDecoder *dec = decoder (RC_FEC_FORMAT_FLEXFEC);
  Sent s;
  guint start;

  for (start = 0; start + 5 <= 20; start++) {
    guint lost[] = { 20 + start, 21 + start, 22 + start, 23 + start,
      24 + start, G_MAXUINT
    };
    sent_init (&s);
    encode_run (enc, 1, 60, FALSE, TRUE, &s);
    deliver (dec, &s, lost, TRUE);
    sent_clear (&s);
    rc_fec_decoder_reset (dec);
  }
  rc_fec_encoder_free (enc);
  rc_fec_decoder_free (dec);
}

GST_END_TEST;

/* Two losses in one row: the row cannot, the columns can; and then a
 * loss pattern that needs rows and columns in turn (iteration). */
GST_START_TEST (test_2d_two_in_a_row)
{
  const guint L = 4, D = 4, n = 16;
  guint a, b;

  for (a = 0; a < L; a++)
    for (b = a + 1; b < L; b++) {
      guint row;
      for (row = 0; row < D; row++) {
        RcFecEncoder *enc = encoder (RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_2D,
            L, D);
        RcFecDecoder *dec = decoder (RC_FEC_FORMAT_FLEXFEC);
        Sent s;
        guint lost[] = { n + row * L + a, n + row * L + b, G_MAXUINT };

        sent_init (&s);
        encode_run (enc, 300, 3 * n, FALSE, TRUE, &s);
        deliver (dec, &s, lost, TRUE);
        sent_clear (&s);
        rc_fec_encoder_free (enc);
        rc_fec_decoder_free (dec);
      }
    }
}

GST_END_TEST;

/* Losses (r,c): (0,0) (0,1) (1,1) (1,2) (2,2): column 0 repairs (0,0); row
 * 0 then (0,1); column 1 then (1,1); row 1 then (1,2); column 2 then
 * (2,2) - only by iterating rows and columns. */
GST_START_TEST (test_2d_staircase)
{
  const guint L = 4, D = 4;
  RcFecEncoder *enc = encoder (RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_2D, L, D);
  RcFecDecoder *dec = decoder (RC_FEC_FORMAT_FLEXFEC);
  Sent s;
  guint lost[] = { 0, 1, L + 1, L + 2, 2 * L + 2, 2 * L + 3, G_MAXUINT };

  /* (2,3) as well: row 2 has (2,2),(2,3); column 3 repairs (2,3) alone. */
  sent_init (&s);
  encode_run (enc, 7, L * D, FALSE, TRUE, &s);
  deliver (dec, &s, lost, TRUE);
  sent_clear (&s);
  rc_fec_encoder_free (enc);
  rc_fec_decoder_free (dec);
}

GST_END_TEST;

/* Beyond what parity allows: a 2x2 square of losses in a 2-D block
 * cannot be repaired, and nothing wrong comes out. */
GST_START_TEST (test_2d_square_unrecoverable)
{
  const guint L = 4, D = 4;
  RcFecEncoder *enc = encoder (RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_2D, L, D);
  RcFecDecoder *dec = decoder (RC_FEC_FORMAT_FLEXFEC);
  RcFecDecoderStats st;
  Sent s;
  guint lost[] = { 0, 1, L, L + 1, G_MAXUINT };

  sent_init (&s);
  encode_run (enc, 7, 2 * L * D, FALSE, TRUE, &s);
  fail_unless_equals_int (deliver (dec, &s, lost, FALSE), 0);
  rc_fec_decoder_reset (dec);
  rc_fec_decoder_get_stats (dec, &st);
  fail_unless_equals_uint64 (st.lost_before, 4);
  fail_unless_equals_uint64 (st.lost_after, 4);
  fail_unless_equals_uint64 (st.recovered, 0);
  sent_clear (&s);
  rc_fec_encoder_free (enc);
  rc_fec_decoder_free (dec);
}

GST_END_TEST;

/* ---------------------------------------------------- wire round trips */

static void
parse_one (GstBuffer * b, RcFecFormat f, RcFecPacketInfo * info,
    GstRTPBuffer * rtp)
{
  fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, rtp));
  fail_unless_equals_int (rc_fec_parse (f, rtp, info), RC_FEC_PARSE_OK);
}

/* Flexfec fixed row and column headers: R = 0, F = 1, L, D, SN base,
 * CSRC = media SSRC, own SSRC/seq/PT; recovery fields are the XOR of the
 * media headers. */
GST_START_TEST (test_flexfec_fixed_roundtrip)
{
  RcFecEncoder *enc = encoder (RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_2D, 3, 2);
  Sent s;
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  RcFecPacketInfo info;
  guint i, n_fec = 0;
  guint32 ts = 0;
  guint16 len = 0;
  guint8 rec1 = 0;

  sent_init (&s);
  encode_run (enc, 65534, 6, FALSE, FALSE, &s);
  /* sending order: m0 m1 m2 R(row0) m3 C0 m4 C1 m5 R(row1) C2 */
  for (i = 0; i < s.pkts->len; i++) {
    GstBuffer *b = s.pkts->pdata[i];
    guint8 *raw;
    if (g_array_index (s.is_media, gboolean, i))
      continue;
    parse_one (b, RC_FEC_FORMAT_FLEXFEC, &info, &rtp);
    raw = gst_rtp_buffer_get_payload (&rtp);
    fail_unless_equals_int (raw[0] & 0xc0, 0x40);       /* R = 0, F = 1 */
    fail_unless_equals_int (gst_rtp_buffer_get_ssrc (&rtp), FEC_SSRC);
    fail_unless_equals_int (gst_rtp_buffer_get_seq (&rtp), 5000 + n_fec);
    fail_unless_equals_int (gst_rtp_buffer_get_payload_type (&rtp), FEC_PT);
    fail_unless_equals_int (gst_rtp_buffer_get_csrc_count (&rtp), 1);
    fail_unless_equals_int (gst_rtp_buffer_get_csrc (&rtp, 0), MEDIA_SSRC);
    fail_unless_equals_int (info.protected_ssrc, MEDIA_SSRC);
    fail_unless (info.fixed);
    fail_unless_equals_int (info.L, 3);
    if (n_fec == 0) {
      /* Row 0: D = 1 (columns follow), SN base 65534, wraps to 0. */
      fail_unless_equals_int (info.D, 1);
      fail_unless_equals_int (info.sn_base, 65534);
      fail_unless_equals_int (info.n_protected, 3);
      fail_unless_equals_int (info.stride, 1);
    } else if (n_fec == 1) {
      /* Column 0: SN base 65534, every 3rd over D = 2 rows. */
      fail_unless_equals_int (info.D, 2);
      fail_unless_equals_int (info.sn_base, 65534);
      fail_unless_equals_int (info.stride, 3);
      fail_unless_equals_int (info.n_protected, 2);
      fail_unless_equals_int (info.span, 4);
    }
    if (n_fec == 0) {
      guint k;
      for (k = 0; k < 3; k++) {
        GstRTPBuffer m = GST_RTP_BUFFER_INIT;
        fail_unless (gst_rtp_buffer_map (s.media->pdata[k], GST_MAP_READ,
                &m));
        ts ^= gst_rtp_buffer_get_timestamp (&m);
        len ^= gst_buffer_get_size (s.media->pdata[k]) - 12;
        rec1 ^= (gst_rtp_buffer_get_marker (&m) << 7) |
            gst_rtp_buffer_get_payload_type (&m);
        gst_rtp_buffer_unmap (&m);
      }
      fail_unless_equals_int (info.ts_rec, ts);
      fail_unless_equals_int (info.len_rec, len);
      fail_unless_equals_int (info.rec1, rec1);
    }
    gst_rtp_buffer_unmap (&rtp);
    n_fec++;
  }
  fail_unless_equals_int (n_fec, 5);
  sent_clear (&s);
  rc_fec_encoder_free (enc);
}

GST_END_TEST;

/* The three flexible mask lengths (15, 46, 110 bits) with their k bits. */
GST_START_TEST (test_flexfec_mask_lengths)
{
  static const guint sizes[] = { 1, 15, 16, 46, 47, 110 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    RcFecEncoder *enc = encoder (RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_FLEXIBLE,
        sizes[i], 1);
    Sent s;
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    RcFecPacketInfo info;
    GstBuffer *fec;
    guint8 *p;
    guint want_bits = sizes[i] <= 15 ? 15 : sizes[i] <= 46 ? 46 : 110;
    guint j;

    sent_init (&s);
    /* seq 0 upwards: marker on every 5th would close groups early, so use
     * a run with the marker only at the end: media_new sets it on seq % 5
     * == 4, so feed seqs from 5k and cut the group with flush. */
    {
      GPtrArray *out = g_ptr_array_new ();
      for (j = 0; j < sizes[i]; j++) {
        GstBuffer *m = media_new (j * 5, FALSE);   /* seq % 5 == 0 */
        GstRTPBuffer mr = GST_RTP_BUFFER_INIT;
        fail_unless (gst_rtp_buffer_map (m, GST_MAP_WRITE, &mr));
        gst_rtp_buffer_set_seq (&mr, 700 + j);
        gst_rtp_buffer_unmap (&mr);
        fail_unless (rc_fec_encoder_push (enc, &m, out));
        gst_buffer_unref (m);
      }
      if (out->len == 0)
        rc_fec_encoder_flush (enc, out);
      fail_unless_equals_int (out->len, 1);
      fec = out->pdata[0];
      g_ptr_array_unref (out);
    }
    parse_one (fec, RC_FEC_FORMAT_FLEXFEC, &info, &rtp);
    p = gst_rtp_buffer_get_payload (&rtp);
    fail_if (info.fixed);
    fail_unless_equals_int (p[0] & 0xc0, 0x00);
    fail_unless_equals_int (info.mask_bits, want_bits);
    fail_unless_equals_int ((p[10] & 0x80) != 0, want_bits == 15);
    if (want_bits >= 46)
      fail_unless_equals_int ((p[12] & 0x80) != 0, want_bits == 46);
    fail_unless_equals_int (info.sn_base, 700);
    fail_unless_equals_int (info.n_protected, sizes[i]);
    fail_unless_equals_int (info.span, sizes[i]);
    gst_rtp_buffer_unmap (&rtp);
    gst_buffer_unref (fec);
    sent_clear (&s);
    rc_fec_encoder_free (enc);
  }
}

GST_END_TEST;

/* ULPFEC: same SSRC, one sequence space without gaps, repair packets only
 * after a frame's last packet (marker), E = 0, the L bit for 48-bit masks,
 * protection length = longest protected body. */
GST_START_TEST (test_ulpfec_roundtrip)
{
  RcFecEncoder *enc = encoder (RC_FEC_FORMAT_ULPFEC, RC_FEC_MODE_ROW, 4, 1);
  Sent s;
  guint i, n_fec = 0;
  guint16 expect_seq = 10;
  gboolean prev_marker = FALSE;

  sent_init (&s);
  encode_run (enc, 10, 8, FALSE, TRUE, &s);
  fail_unless_equals_int (s.pkts->len, 10);
  for (i = 0; i < s.pkts->len; i++) {
    GstBuffer *b = s.pkts->pdata[i];
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
    fail_unless_equals_int (gst_rtp_buffer_get_seq (&rtp), expect_seq);
    fail_unless_equals_int (gst_rtp_buffer_get_ssrc (&rtp), MEDIA_SSRC);
    expect_seq++;
    if (g_array_index (s.is_media, gboolean, i)) {
      prev_marker = gst_rtp_buffer_get_marker (&rtp);
    } else {
      RcFecPacketInfo info;
      guint8 *p = gst_rtp_buffer_get_payload (&rtp);
      guint k, maxbody = 0;
      fail_unless (prev_marker || i == s.pkts->len - 1,
          "repair packet inside a frame");
      fail_unless_equals_int (rc_fec_parse (RC_FEC_FORMAT_ULPFEC, &rtp,
              &info), RC_FEC_PARSE_OK);
      fail_unless_equals_int (p[0] & 0x80, 0);  /* E */
      fail_unless_equals_int (p[0] & 0x40, 0);  /* L: 16-bit mask */
      fail_unless_equals_int (gst_rtp_buffer_get_payload_type (&rtp), FEC_PT);
      fail_unless_equals_int (info.n_protected, 4);
      for (k = 0; k < s.pkts->len; k++) {
        GstBuffer *m = s.pkts->pdata[k];
        guint16 off = buf_seq (m) - info.sn_base;
        if (g_array_index (s.is_media, gboolean, k) && off < 16 &&
            (GST_READ_UINT16_BE (p + 12) & (0x8000 >> off)))
          maxbody = MAX (maxbody, gst_buffer_get_size (m) - 12);
      }
      fail_unless_equals_int (info.payload_len, maxbody);
      n_fec++;
    }
    gst_rtp_buffer_unmap (&rtp);
  }
  fail_unless_equals_int (n_fec, 2);
  /* first group: seqs 10..13, sent after the frame end at 14 */
  {
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    RcFecPacketInfo info;
    parse_one (s.pkts->pdata[5], RC_FEC_FORMAT_ULPFEC, &info, &rtp);
    fail_unless_equals_int (info.sn_base, 10);
    fail_unless_equals_int (GST_READ_UINT16_BE (gst_rtp_buffer_get_payload
            (&rtp) + 12), 0xf000);
    gst_rtp_buffer_unmap (&rtp);
  }
  sent_clear (&s);
  rc_fec_encoder_free (enc);

  /* 48-bit form when a group is longer than 16. */
  enc = encoder (RC_FEC_FORMAT_ULPFEC, RC_FEC_MODE_ROW, 20, 1);
  sent_init (&s);
  encode_run (enc, 10, 20, FALSE, TRUE, &s);
  {
    GstBuffer *b = s.pkts->pdata[s.pkts->len - 1];
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    RcFecPacketInfo info;
    parse_one (b, RC_FEC_FORMAT_ULPFEC, &info, &rtp);
    fail_unless_equals_int (info.mask_bits, 48);
    fail_unless_equals_int (info.n_protected, 20);
    gst_rtp_buffer_unmap (&rtp);
  }
  sent_clear (&s);
  rc_fec_encoder_free (enc);
}

GST_END_TEST;

/* The same packets in one memory or split over several (inside the fixed
 * header, inside the payload, an empty memory) give byte-identical repair
 * packets and renumbered media: the encoder reads them memory by memory. */
static GstMemory *
wrap_copy (const guint8 * data, gsize n)
{
  guint8 *p = g_malloc (MAX (n, 1));

  memcpy (p, data, n);
  return gst_memory_new_wrapped (0, p, MAX (n, 1), 0, n, p, g_free);
}

static GstBuffer *
split_copy (GstBuffer * b, gboolean split)
{
  GstMapInfo m;
  GstBuffer *out = gst_buffer_new ();
  const gsize cuts[] = { 5, 5, 19, G_MAXSIZE };
  gsize pos = 0;
  guint i;

  fail_unless (gst_buffer_map (b, &m, GST_MAP_READ));
  for (i = 0; split && cuts[i] < m.size; i++) {
    gst_buffer_append_memory (out, wrap_copy (m.data + pos, cuts[i] - pos));
    pos = cuts[i];
  }
  gst_buffer_append_memory (out, wrap_copy (m.data + pos, m.size - pos));
  gst_buffer_unmap (b, &m);
  return out;
}

static const struct
{
  RcFecFormat format;
  RcFecMode mode;
  guint L, D;
} memory_cases[] = {
  {RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_ROW, 4, 1},
  {RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_2D, 3, 3},
  {RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_FLEXIBLE, 8, 1},
  {RC_FEC_FORMAT_ULPFEC, RC_FEC_MODE_ROW, 4, 1},
  {RC_FEC_FORMAT_ULPFEC, RC_FEC_MODE_FLEXIBLE, 8, 1},
};

GST_START_TEST (test_memory_layout_same_output)
{
  GPtrArray *res[2];
  guint v, i;

  for (v = 0; v < 2; v++) {
    RcFecEncoder *enc = encoder (memory_cases[__i__].format,
        memory_cases[__i__].mode, memory_cases[__i__].L,
        memory_cases[__i__].D);
    GPtrArray *out = g_ptr_array_new ();
    res[v] = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_buffer_unref);
    for (i = 0; i < 40; i++) {
      /* jumps end groups early; the first one, before any repair packet
       * went out, starts ulpfec's renumbering with a flushed one */
      guint16 seq = 300 + i + (i >= 2 ? 10 : 0) + (i >= 17 ? 10 : 0);
      GstBuffer *orig = media_new (seq, i % 3 == 0);
      GstBuffer *kept = split_copy (orig, v == 1);
      /* shares its memories with `kept`: renumbering must not write them */
      GstBuffer *m = gst_buffer_copy (kept);
      guint j;
      fail_unless (rc_fec_encoder_push (enc, &m, out));
      assert_same (kept, orig);
      gst_buffer_unref (kept);
      gst_buffer_unref (orig);
      g_ptr_array_add (res[v], m);
      for (j = 0; j < out->len; j++)
        g_ptr_array_add (res[v], out->pdata[j]);
      g_ptr_array_set_size (out, 0);
    }
    rc_fec_encoder_flush (enc, out);
    for (i = 0; i < out->len; i++)
      g_ptr_array_add (res[v], out->pdata[i]);
    g_ptr_array_unref (out);
    rc_fec_encoder_free (enc);
  }
  fail_unless_equals_int (res[0]->len, res[1]->len);
  fail_unless (res[0]->len > 40, "no repair packets");
  for (i = 0; i < res[0]->len; i++)
    assert_same (res[1]->pdata[i], res[0]->pdata[i]);
  g_ptr_array_unref (res[0]);
  g_ptr_array_unref (res[1]);
}

GST_END_TEST;

/* What a consumer after a jitterbuffer asks for each seqnum it finds
 * missing: received, rebuilt (with the packet), an ULPFEC repair packet's
 * seqnum, still missing, or unknown. */
GST_START_TEST (test_lookup_states)
{
  RcFecEncoder *enc = encoder (RC_FEC_FORMAT_ULPFEC, RC_FEC_MODE_ROW, 4, 1);
  RcFecDecoder *dec = decoder (RC_FEC_FORMAT_ULPFEC);
  const guint lost[] = { 1, 6, G_MAXUINT };
  GstBuffer *rb = NULL;
  Sent s;
  guint i;

  sent_init (&s);
  /* media 10..17, repair packets after the frame ends (seq 14 and 15 are
   * the first frame's end and the first repair packet) */
  encode_run (enc, 10, 8, FALSE, TRUE, &s);
  /* media 1 is recovered; media 6 is in a group that also lost media 7
   * below, so it stays missing */
  {
    GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_buffer_unref);
    guint media_idx = 0;
    for (i = 0; i < s.pkts->len; i++) {
      GstBuffer *b = s.pkts->pdata[i];
      if (g_array_index (s.is_media, gboolean, i)) {
        gboolean drop = media_idx == lost[0] || media_idx == lost[1] ||
            media_idx == 7;
        media_idx++;
        if (!drop)
          rc_fec_decoder_push_media (dec, b, 0, out);
      } else {
        rc_fec_decoder_push_fec (dec, b, 0, out);
      }
    }
    fail_unless_equals_int (out->len, 1);
    g_ptr_array_unref (out);
  }
  for (i = 0; i < s.pkts->len; i++) {
    GstBuffer *b = s.pkts->pdata[i];
    guint16 seq = buf_seq (b);
    RcFecSeqState st = rc_fec_decoder_lookup (dec, MEDIA_SSRC, seq, &rb);
    if (!g_array_index (s.is_media, gboolean, i)) {
      fail_unless_equals_int (st, RC_FEC_SEQ_REPAIR);
    } else if (b == s.media->pdata[1]) {
      fail_unless_equals_int (st, RC_FEC_SEQ_RECOVERED);
      fail_unless (rb != NULL);
      assert_same (rb, b);
    } else if (b == s.media->pdata[6] || b == s.media->pdata[7]) {
      fail_unless_equals_int (st, RC_FEC_SEQ_MISSING);
    } else {
      fail_unless_equals_int (st, RC_FEC_SEQ_RECEIVED);
    }
    if (st != RC_FEC_SEQ_RECOVERED)
      fail_unless (rb == NULL);
    gst_clear_buffer (&rb);
  }
  fail_unless_equals_int (rc_fec_decoder_lookup (dec, MEDIA_SSRC + 1, 10,
          &rb), RC_FEC_SEQ_UNKNOWN);
  fail_unless_equals_int (rc_fec_decoder_lookup (dec, MEDIA_SSRC, 40000,
          NULL), RC_FEC_SEQ_UNKNOWN);
  sent_clear (&s);
  rc_fec_decoder_free (dec);
  rc_fec_encoder_free (enc);
}

GST_END_TEST;

/* Header extension for the transport-wide seqnum in every repair packet. */
GST_START_TEST (test_repair_carries_extension)
{
  RcFecEncoderConfig c;
  RcFecEncoder *enc;
  Sent s;
  guint i, n = 0;

  rc_fec_encoder_config_init (&c);
  c.mode = RC_FEC_MODE_ROW;
  c.L = 3;
  c.pt = FEC_PT;
  c.ssrc = FEC_SSRC;
  c.ext_id = 5;
  c.ext_len = 2;
  enc = rc_fec_encoder_new (&c);
  sent_init (&s);
  encode_run (enc, 1, 9, FALSE, FALSE, &s);
  for (i = 0; i < s.pkts->len; i++) {
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    gpointer data;
    guint size;
    RcFecPacketInfo info;
    if (g_array_index (s.is_media, gboolean, i))
      continue;
    parse_one (s.pkts->pdata[i], RC_FEC_FORMAT_FLEXFEC, &info, &rtp);
    fail_unless (gst_rtp_buffer_get_extension_onebyte_header (&rtp, 5, 0,
            &data, &size));
    fail_unless_equals_int (size, 2);
    gst_rtp_buffer_unmap (&rtp);
    n++;
  }
  fail_unless_equals_int (n, 3);
  sent_clear (&s);
  rc_fec_encoder_free (enc);
}

GST_END_TEST;

/* Overhead sets the group size; 0 turns FEC off; changes wait for the
 * block boundary. */
GST_START_TEST (test_overhead_geometry)
{
  RcFecEncoderConfig c;
  guint L, D;
  RcFecEncoder *enc;
  Sent s;
  RcFecEncoderStats st;

  rc_fec_encoder_config_init (&c);
  c.mode = RC_FEC_MODE_ROW;
  c.overhead = 20;
  fail_unless (rc_fec_encoder_geometry (&c, &L, &D));
  fail_unless_equals_int (L, 5);
  c.overhead = 0;
  fail_if (rc_fec_encoder_geometry (&c, &L, &D));
  c.overhead = -1;
  c.L = 7;
  fail_unless (rc_fec_encoder_geometry (&c, &L, &D));
  fail_unless_equals_int (L, 7);
  c.mode = RC_FEC_MODE_2D;
  c.overhead = 40;
  fail_unless (rc_fec_encoder_geometry (&c, &L, &D));
  fail_unless_equals_int (L, 5);
  fail_unless_equals_int (D, 5);
  c.mode = RC_FEC_MODE_COLUMN;
  c.L = 4;
  c.overhead = 25;
  fail_unless (rc_fec_encoder_geometry (&c, &L, &D));
  fail_unless_equals_int (L, 4);
  fail_unless_equals_int (D, 4);

  /* 10 % then 50 %: 100 packets at L = 10, 100 at L = 2. */
  enc = encoder (RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_ROW, 10, 1);
  rc_fec_encoder_set_overhead (enc, 10);
  sent_init (&s);
  encode_run (enc, 0, 100, FALSE, FALSE, &s);
  rc_fec_encoder_get_stats (enc, &st);
  fail_unless_equals_uint64 (st.fec_packets, 10);
  rc_fec_encoder_set_overhead (enc, 50);
  encode_run (enc, 100, 100, FALSE, FALSE, &s);
  rc_fec_encoder_get_stats (enc, &st);
  fail_unless_equals_uint64 (st.fec_packets, 60);
  rc_fec_encoder_set_overhead (enc, 0);
  encode_run (enc, 200, 100, FALSE, FALSE, &s);
  rc_fec_encoder_get_stats (enc, &st);
  fail_unless_equals_uint64 (st.fec_packets, 60);
  fail_unless_equals_uint64 (st.media_packets, 300);
  fail_unless_equals_uint64 (st.media_protected, 200);
  sent_clear (&s);
  rc_fec_encoder_free (enc);
}

GST_END_TEST;

/* ------------------------------------------ reordering, wrap, windows */




/* Reordered at the very start (101, 100, 102, 103, then the row's repair),
 * in both formats: 100 is kept, not passed on as older than the window,
 * so the repair finds nothing missing and nothing leaves twice. */
GST_START_TEST (test_reorder_at_stream_start)
{
  RcFecFormat formats[] = { RC_FEC_FORMAT_FLEXFEC, RC_FEC_FORMAT_ULPFEC };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    RcFecEncoder *enc = encoder (formats[f], RC_FEC_MODE_ROW, 4, 1);
    RcFecDecoder *dec = decoder (formats[f]);
    GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_buffer_unref);
    guint order[] = { 1, 0, 2, 3 };
    RcFecDecoderStats st;
    GstBuffer *repair = NULL;
    Sent s;
    guint i;

    sent_init (&s);
    encode_run (enc, 100, 4, FALSE, TRUE, &s);
    repair = first_repair (&s);
    for (i = 0; i < G_N_ELEMENTS (order); i++)
      fail_unless_equals_int (rc_fec_decoder_push_media (dec,
              s.media->pdata[order[i]], i * MS, out), RC_FEC_OK);
    fail_unless_equals_int (rc_fec_decoder_push_fec (dec, repair, 5 * MS,
            out), RC_FEC_OK);
    fail_unless_equals_int (out->len, 0);
    rc_fec_decoder_get_stats (dec, &st);
    fail_unless_equals_uint64 (st.recovered, 0);
    fail_unless_equals_uint64 (st.media_received, 4);
    g_ptr_array_unref (out);
    sent_clear (&s);
    rc_fec_encoder_free (enc);
    rc_fec_decoder_free (dec);
  }
}

GST_END_TEST;

/* A full stream table (sixteen media SSRCs) takes a new stream once one of
 * them has been idle for longer than the window (1 s), and not before. */
GST_START_TEST (test_idle_stream_makes_room)
{
  RcFecDecoder *dec = decoder (RC_FEC_FORMAT_FLEXFEC);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  guint i;

  for (i = 0; i <= 17; i++) {
    GstBuffer *b = media_new (100, FALSE);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    /* 0-15 fill the table at 0-15 ms; 16 comes at 0.5 s, 17 at 2 s */
    GstClockTime t = i < 16 ? i * MS : i == 16 ? 500 * MS : 2 * GST_SECOND;
    RcFecResult want = i == 16 ? RC_FEC_OLD : RC_FEC_OK;

    fail_unless (gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp));
    gst_rtp_buffer_set_ssrc (&rtp, 0xe0000000u + i);
    gst_rtp_buffer_unmap (&rtp);
    fail_unless_equals_int (rc_fec_decoder_push_media (dec, b, t, out), want);
    gst_buffer_unref (b);
  }
  g_ptr_array_unref (out);
  rc_fec_decoder_free (dec);
}

GST_END_TEST;

/* Sixteen forged repair packets, each naming another protected SSRC, fill
 * the decoder's stream table (MAX_STREAMS). A media stream that starts
 * afterwards must still be tracked and repaired: a stream only repair
 * packets ever named gives way to one with media. */
GST_START_TEST (test_forged_repair_ssrcs_do_not_lock_out)
{
  RcFecEncoder *enc = encoder (RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_ROW, 4, 1);
  RcFecDecoder *dec = decoder (RC_FEC_FORMAT_FLEXFEC);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstBuffer *repair = NULL;
  guint lost[] = { 5, G_MAXUINT };
  Sent s;
  guint i;

  sent_init (&s);
  encode_run (enc, 100, 12, FALSE, TRUE, &s);
  repair = first_repair (&s);
  for (i = 0; i < 16; i++) {
    GstBuffer *forged = gst_buffer_copy_deep (repair);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

    fail_unless (gst_rtp_buffer_map (forged, GST_MAP_WRITE, &rtp));
    gst_rtp_buffer_set_csrc (&rtp, 0, 0xf0000000u + i);  /* protected SSRC */
    gst_rtp_buffer_unmap (&rtp);
    rc_fec_decoder_push_fec (dec, forged, 0, out);
    gst_buffer_unref (forged);
  }
  fail_unless_equals_int (out->len, 0);
  /* The real stream, one packet lost: tracked and repaired. */
  deliver (dec, &s, lost, TRUE);
  g_ptr_array_unref (out);
  sent_clear (&s);
  rc_fec_encoder_free (enc);
  rc_fec_decoder_free (dec);
}

GST_END_TEST;

/* Repair sent before its media (order reversed) and media shuffled:
 * still repaired, and the late original counts as a duplicate. */
GST_START_TEST (test_reorder_fec_first)
{
  RcFecEncoder *enc = encoder (RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_ROW, 5, 1);
  RcFecDecoder *dec = decoder (RC_FEC_FORMAT_FLEXFEC);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  RcFecDecoderStats st;
  Sent s;
  guint i;

  sent_init (&s);
  encode_run (enc, 65533, 5, FALSE, FALSE, &s);
  fail_unless_equals_int (s.pkts->len, 6);
  /* repair first, then media 3 1 0 (2 lost), 4 */
  fail_unless_equals_int (rc_fec_decoder_push_fec (dec, s.pkts->pdata[5],
          0, out), RC_FEC_OK);
  fail_unless_equals_int (out->len, 0);
  rc_fec_decoder_push_media (dec, s.media->pdata[3], 1 * MS, out);
  rc_fec_decoder_push_media (dec, s.media->pdata[1], 2 * MS, out);
  rc_fec_decoder_push_media (dec, s.media->pdata[0], 3 * MS, out);
  fail_unless_equals_int (out->len, 0);
  rc_fec_decoder_push_media (dec, s.media->pdata[4], 4 * MS, out);
  fail_unless_equals_int (out->len, 1);
  assert_same (out->pdata[0], s.media->pdata[2]);
  /* the original turns up late: duplicate */
  fail_unless_equals_int (rc_fec_decoder_push_media (dec, s.media->pdata[2],
          5 * MS, out), RC_FEC_DUPLICATE);
  /* the repair packet again: duplicate */
  fail_unless_equals_int (rc_fec_decoder_push_fec (dec, s.pkts->pdata[5],
          6 * MS, out), RC_FEC_DUPLICATE);
  rc_fec_decoder_get_stats (dec, &st);
  fail_unless_equals_uint64 (st.recovered, 1);
  fail_unless_equals_uint64 (st.duplicates, 2);
  for (i = 0; i < out->len; i++)
    fail_unless_equals_int (buf_seq (out->pdata[i]), 65535);
  g_ptr_array_unref (out);
  sent_clear (&s);
  rc_fec_encoder_free (enc);
  rc_fec_decoder_free (dec);
}

GST_END_TEST;

/* Across the 16-bit wrap, many times over: every 5th block loses one. */
GST_START_TEST (test_seq_wrap_long_run)
{
  RcFecEncoder *enc = encoder (RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_ROW, 5, 1);
  RcFecDecoder *dec = decoder (RC_FEC_FORMAT_FLEXFEC);
  GPtrArray *out = g_ptr_array_new ();
  GPtrArray *rec = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  RcFecDecoderStats st;
  guint i, j, lost = 0;
  GstClockTime t = 0;

  for (i = 0; i < 140000; i++) {
    guint16 seq = (guint16) (60000 + i);
    GstBuffer *m = media_new (seq, FALSE);
    gboolean drop = (i % 25) == 7;
    fail_unless (rc_fec_encoder_push (enc, &m, out));
    if (drop)
      lost++;
    else
      rc_fec_decoder_push_media (dec, m, t, rec);
    gst_buffer_unref (m);
    for (j = 0; j < out->len; j++) {
      fail_unless_equals_int (rc_fec_decoder_push_fec (dec, out->pdata[j], t,
              rec), RC_FEC_OK);
      gst_buffer_unref (out->pdata[j]);
    }
    g_ptr_array_set_size (out, 0);
    g_ptr_array_set_size (rec, 0);
    t += 100 * GST_USECOND;
  }
  rc_fec_decoder_reset (dec);
  rc_fec_decoder_get_stats (dec, &st);
  fail_unless_equals_uint64 (st.recovered, lost);
  fail_unless_equals_uint64 (st.lost_before, lost);
  fail_unless_equals_uint64 (st.lost_after, 0);
  fail_unless_equals_uint64 (st.rejected, 0);
  g_ptr_array_unref (out);
  g_ptr_array_unref (rec);
  rc_fec_encoder_free (enc);
  rc_fec_decoder_free (dec);
}

GST_END_TEST;

/* Memory stays bounded by the time window, and repair for packets the
 * window has let go is refused as stale. */
GST_START_TEST (test_window_bound_and_stale)
{
  RcFecEncoder *enc = encoder (RC_FEC_FORMAT_FLEXFEC, RC_FEC_MODE_ROW, 5, 1);
  RcFecDecoderConfig c;
  RcFecDecoder *dec;
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  Sent s;
  guint i, max_held = 0;

  rc_fec_decoder_config_init (&c);
  c.pt = FEC_PT;
  c.window = 100 * MS;
  dec = rc_fec_decoder_new (&c);
  sent_init (&s);
  encode_run (enc, 0, 1000, FALSE, FALSE, &s);
  /* 1 ms apart: at most ~100 media + 20 repair held; hold back one repair
   * packet (the first) to deliver it at the end. */
  for (i = 0; i < s.pkts->len; i++) {
    GstBuffer *b = s.pkts->pdata[i];
    if (i == 5)
      continue;
    if (g_array_index (s.is_media, gboolean, i))
      rc_fec_decoder_push_media (dec, b, i * MS, out);
    else
      rc_fec_decoder_push_fec (dec, b, i * MS, out);
    max_held = MAX (max_held, rc_fec_decoder_held_packets (dec));
  }
  fail_unless (max_held <= 102, "held %u", max_held);
  fail_unless_equals_int (rc_fec_decoder_push_fec (dec, s.pkts->pdata[5],
          s.pkts->len * MS, out), RC_FEC_REJECT_STALE);
  g_ptr_array_unref (out);
  sent_clear (&s);
  rc_fec_encoder_free (enc);
  rc_fec_decoder_free (dec);
}

GST_END_TEST;

/* ----------------------------------------------------- malformed input */

typedef enum
{
  BAD_TRUNCATED_HEADER,
  BAD_TRUNCATED_MASK,
  BAD_R_BIT,
  BAD_L_ZERO,
  BAD_NO_CSRC,
  BAD_EMPTY_MASK,
  BAD_HUGE_SPAN,
  BAD_FUTURE_BASE,
  BAD_WRONG_FEC_SSRC,
  BAD_SELF_PROTECT,
  BAD_LENGTH_RECOVERY,
  BAD_SHORT_PAYLOAD,
  BAD_ULP_E_BIT,
  BAD_ULP_PROT_LEN,
  BAD_ULP_TRUNCATED,
} BadKind;

typedef struct
{
  BadKind kind;
  RcFecFormat format;
  RcFecResult expect;
} BadCase;

static const BadCase bad_cases[] = {
  {BAD_TRUNCATED_HEADER, RC_FEC_FORMAT_FLEXFEC, RC_FEC_REJECT_MALFORMED},
  {BAD_TRUNCATED_MASK, RC_FEC_FORMAT_FLEXFEC, RC_FEC_REJECT_MALFORMED},
  {BAD_R_BIT, RC_FEC_FORMAT_FLEXFEC, RC_FEC_REJECT_MALFORMED},
  {BAD_L_ZERO, RC_FEC_FORMAT_FLEXFEC, RC_FEC_REJECT_MALFORMED},
  {BAD_NO_CSRC, RC_FEC_FORMAT_FLEXFEC, RC_FEC_REJECT_MALFORMED},
  {BAD_EMPTY_MASK, RC_FEC_FORMAT_FLEXFEC, RC_FEC_REJECT_MALFORMED},
  {BAD_HUGE_SPAN, RC_FEC_FORMAT_FLEXFEC, RC_FEC_REJECT_OUT_OF_WINDOW},
  {BAD_FUTURE_BASE, RC_FEC_FORMAT_FLEXFEC, RC_FEC_REJECT_OUT_OF_WINDOW},
  {BAD_WRONG_FEC_SSRC, RC_FEC_FORMAT_FLEXFEC, RC_FEC_REJECT_WRONG_SSRC},
  {BAD_SELF_PROTECT, RC_FEC_FORMAT_FLEXFEC, RC_FEC_REJECT_WRONG_SSRC},
  {BAD_LENGTH_RECOVERY, RC_FEC_FORMAT_FLEXFEC, RC_FEC_REJECT_INCONSISTENT},
  {BAD_SHORT_PAYLOAD, RC_FEC_FORMAT_FLEXFEC, RC_FEC_REJECT_INCONSISTENT},
  {BAD_ULP_E_BIT, RC_FEC_FORMAT_ULPFEC, RC_FEC_REJECT_MALFORMED},
  {BAD_ULP_PROT_LEN, RC_FEC_FORMAT_ULPFEC, RC_FEC_REJECT_MALFORMED},
  {BAD_ULP_TRUNCATED, RC_FEC_FORMAT_ULPFEC, RC_FEC_REJECT_MALFORMED},
};

/* A copy of `fec` with its FEC header/payload edited. */
static GstBuffer *
mangle (GstBuffer * fec, BadKind kind)
{
  GstBuffer *b = gst_buffer_copy_deep (fec);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint8 *p;
  guint plen;

  fail_unless (gst_rtp_buffer_map (b, GST_MAP_READWRITE, &rtp));
  p = gst_rtp_buffer_get_payload (&rtp);
  plen = gst_rtp_buffer_get_payload_len (&rtp);
  switch (kind) {
    case BAD_TRUNCATED_HEADER:
      gst_rtp_buffer_unmap (&rtp);
      gst_buffer_set_size (b, gst_buffer_get_size (b) - plen + 9);
      return b;
    case BAD_TRUNCATED_MASK:
      p[0] &= ~0x40;            /* F = 0 */
      p[10] &= 0x7f;            /* k = 0: a 46-bit mask... */
      gst_rtp_buffer_unmap (&rtp);
      /* ...in a packet that ends after the first mask word */
      gst_buffer_set_size (b, gst_buffer_get_size (b) - plen + 13);
      return b;
    case BAD_R_BIT:
      p[0] |= 0x80;
      break;
    case BAD_L_ZERO:
      p[10] = 0;
      break;
    case BAD_NO_CSRC:
      gst_rtp_buffer_set_csrc (&rtp, 0, 0);
      gst_rtp_buffer_unmap (&rtp);
      {
        /* drop the CSRC word: CC = 0, shift the rest down */
        GstMapInfo m;
        gsize sz = gst_buffer_get_size (b);
        fail_unless (gst_buffer_map (b, &m, GST_MAP_READWRITE));
        m.data[0] &= 0xf0;
        memmove (m.data + 12, m.data + 16, sz - 16);
        gst_buffer_unmap (b, &m);
        gst_buffer_set_size (b, sz - 4);
      }
      return b;
    case BAD_EMPTY_MASK:
      p[10] = 0x80;             /* k = 1, mask 0 */
      p[11] = 0;
      p[0] &= ~0x40;            /* F = 0 */
      break;
    case BAD_HUGE_SPAN:
      p[10] = 255;              /* column over 255 x 254 seqnums */
      p[11] = 255;
      break;
    case BAD_FUTURE_BASE:
      GST_WRITE_UINT16_BE (p + 8, GST_READ_UINT16_BE (p + 8) + 30000);
      break;
    case BAD_WRONG_FEC_SSRC:
      gst_rtp_buffer_set_ssrc (&rtp, 0xdeadbeef);
      break;
    case BAD_SELF_PROTECT:
      gst_rtp_buffer_set_csrc (&rtp, 0, FEC_SSRC);
      break;
    case BAD_LENGTH_RECOVERY:
      GST_WRITE_UINT16_BE (p + 2, 0xfff0);      /* longer than the payload */
      break;
    case BAD_SHORT_PAYLOAD:
      gst_rtp_buffer_unmap (&rtp);
      /* shorter than a protected packet's body */
      gst_buffer_set_size (b, gst_buffer_get_size (b) - plen + 12 + 20);
      return b;
    case BAD_ULP_E_BIT:
      p[0] |= 0x80;
      break;
    case BAD_ULP_PROT_LEN:
      GST_WRITE_UINT16_BE (p + 10, plen);       /* beyond the packet */
      break;
    case BAD_ULP_TRUNCATED:
      gst_rtp_buffer_unmap (&rtp);
      gst_buffer_set_size (b, gst_buffer_get_size (b) - plen + 11);
      return b;
  }
  gst_rtp_buffer_unmap (&rtp);
  return b;
}

/* Each kind of bad repair packet is refused with its reason, counted,
 * and yields no packet; the good one afterwards still works. */
GST_START_TEST (test_malformed_rejected)
{
  const BadCase *bc = &bad_cases[__i__];
  RcFecEncoder *enc = encoder (bc->format, RC_FEC_MODE_ROW, 4, 1);
  RcFecDecoderConfig c;
  RcFecDecoder *dec;
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  RcFecDecoderStats st;
  Sent s;
  GstBuffer *bad;
  guint i;

  rc_fec_decoder_config_init (&c);
  c.format = bc->format;
  c.pt = FEC_PT;
  c.match_fec_ssrc = TRUE;
  c.fec_ssrc = FEC_SSRC;
  dec = rc_fec_decoder_new (&c);
  sent_init (&s);
  encode_run (enc, 40, 4, FALSE, TRUE, &s);
  fail_unless_equals_int (s.pkts->len, 5);
  /* media 0, 2, 3 arrive; 1 is lost */
  for (i = 0; i < 4; i++)
    if (i != 1)
      rc_fec_decoder_push_media (dec, s.media->pdata[i], i * MS, out);
  bad = mangle (s.pkts->pdata[4], bc->kind);
  fail_unless_equals_int (rc_fec_decoder_push_fec (dec, bad, 5 * MS, out),
      bc->expect);
  gst_buffer_unref (bad);
  fail_unless_equals_int (out->len, 0);
  rc_fec_decoder_get_stats (dec, &st);
  fail_unless_equals_uint64 (st.rejected, 1);
  fail_unless_equals_uint64 (st.recovered, 0);
  /* the genuine one repairs */
  fail_unless_equals_int (rc_fec_decoder_push_fec (dec, s.pkts->pdata[4],
          6 * MS, out), RC_FEC_OK);
  fail_unless_equals_int (out->len, 1);
  assert_same (out->pdata[0], s.media->pdata[1]);
  g_ptr_array_unref (out);
  sent_clear (&s);
  rc_fec_encoder_free (enc);
  rc_fec_decoder_free (dec);
}

GST_END_TEST;

/* Random garbage as repair packets: never a crash, never output. */
GST_START_TEST (test_fuzz_no_crash)
{
  RcFecDecoder *dec[2] = { decoder (RC_FEC_FORMAT_FLEXFEC),
    decoder (RC_FEC_FORMAT_ULPFEC)
  };
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GRand *r = g_rand_new_with_seed (42);
  guint i, f;

  for (f = 0; f < 2; f++) {
    for (i = 0; i < 20; i++) {
      GstBuffer *m = media_new (i, FALSE);
      rc_fec_decoder_push_media (dec[f], m, i * MS, out);
      gst_buffer_unref (m);
    }
    for (i = 0; i < 5000; i++) {
      guint len = 12 + g_rand_int_range (r, 0, 120);
      GstBuffer *b = gst_buffer_new_allocate (NULL, len, NULL);
      GstMapInfo m;
      guint k;
      gst_buffer_map (b, &m, GST_MAP_WRITE);
      for (k = 0; k < len; k++)
        m.data[k] = g_rand_int (r);
      m.data[0] = 0x80 | (m.data[0] & 0x3f);
      m.data[1] = FEC_PT;
      /* protect the media we have, mostly */
      if (len > 12u + 4u * (m.data[0] & 0xf) + 10u && g_rand_boolean (r))
        GST_WRITE_UINT16_BE (m.data + 12 + 4 * (m.data[0] & 0xf) + 8,
            g_rand_int_range (r, 0, 20));
      gst_buffer_unmap (b, &m);
      rc_fec_decoder_push_fec (dec[f], b, 30 * MS, out);
      gst_buffer_unref (b);
    }
    /* Whatever came out is a valid RTP packet of the media PT. */
    for (i = 0; i < out->len; i++) {
      GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
      fail_unless (gst_rtp_buffer_map (out->pdata[i], GST_MAP_READ, &rtp));
      fail_unless_equals_int (gst_rtp_buffer_get_payload_type (&rtp),
          MEDIA_PT);
      gst_rtp_buffer_unmap (&rtp);
    }
    g_ptr_array_set_size (out, 0);
    rc_fec_decoder_free (dec[f]);
  }
  g_rand_free (r);
  g_ptr_array_unref (out);
}

GST_END_TEST;

/* -------------------------------------------------------------- probe */

/* Makes the probe's media meter read exactly `bps` at `t`: the meter
 * divides the bytes it holds by the time they span, so a zero-byte sample
 * at t - 1 s and bps / 8 bytes at t give bps over one second. */
static void
probe_media_rate (RcFecProbe * p, GstClockTime t, guint bps)
{
  rc_fec_probe_add_media (p, t - GST_SECOND, 0);
  rc_fec_probe_add_media (p, t, bps / 8);
}

static const struct
{
  guint media_bps;
  guint probe_bps;
  gdouble overhead;             /* percent */
} probe_cases[] = {
  {1000000, 200000, 20.0},
  {2000000, 100000, 5.0},
  {800000, 1000, 0.125},
  {1000000, 999992, 99.9992},
  {500000, 500000, 100.0},
  /* clamped at the top: one repair packet per media packet */
  {400000, 1000000, 100.0},
  {8000, 4000000, 100.0},
  /* clamped at the bottom: 0.1 %, never 0 (which would stop FEC) */
  {8000000, 8000, 0.1},
  {1000000, 800, 0.1},
  {4000000, 1, 0.1},
};

/* A requested bitrate over a media rate gives 100 * bitrate / media
 * rate percent, clamped to 0.1 .. 100, at once when the request comes;
 * the same value again is no change. */
GST_START_TEST (test_probe_overhead_table)
{
  RcFecProbe p;
  gdouble ovh = -2, media = -2;
  const GstClockTime t = 5 * GST_SECOND;

  rc_fec_probe_init (&p);
  probe_media_rate (&p, t, probe_cases[__i__].media_bps);
  fail_unless (rc_fec_probe_set_bitrate (&p, probe_cases[__i__].probe_bps,
          10.0, &ovh, &media));
  fail_unless (fabs (media - probe_cases[__i__].media_bps) < 1e-6,
      "media rate %f", media);
  fail_unless (fabs (ovh - probe_cases[__i__].overhead) < 1e-9,
      "case %d: overhead %f, want %f", __i__, ovh,
      probe_cases[__i__].overhead);
  fail_unless (fabs (rc_fec_probe_overhead (probe_cases[__i__].probe_bps,
              probe_cases[__i__].media_bps) - probe_cases[__i__].overhead) <
      1e-9);
  fail_unless_equals_int (p.bps, probe_cases[__i__].probe_bps);
  /* Asked again while that overhead is in force: nothing to change, but
   * it was derived, so the next comes 100 ms later even if the media rate
   * moves at once. */
  fail_if (rc_fec_probe_set_bitrate (&p, probe_cases[__i__].probe_bps, ovh,
          &ovh, &media));
  rc_fec_probe_add_media (&p, t + 50 * MS, 1000);
  fail_if (rc_fec_probe_update (&p, t + 50 * MS, ovh, &ovh, &media));
  rc_fec_probe_clear (&p);
}

GST_END_TEST;

/* Media every 10 ms at a rising rate, the overhead asked for at 0.5 s:
 * it is derived then and every 100 ms after, never in between; each
 * value is lower than the last as the media rate grows. */
GST_START_TEST (test_probe_cadence)
{
  RcFecProbe p;
  /* 0 is never derived (the floor is 0.1 %), so the first is a change. */
  gdouble current = 0.0, ovh, media, last_ovh = 1000;
  GstClockTime t, want = 500 * MS;
  guint k, updates = 0;

  rc_fec_probe_init (&p);
  for (k = 0, t = 0; t <= 2 * GST_SECOND; k++, t += 10 * MS) {
    gboolean changed;

    rc_fec_probe_add_media (&p, t, 1000 + 10 * k);
    if (t == 500 * MS)
      changed = rc_fec_probe_set_bitrate (&p, 100000, current, &ovh, &media);
    else
      changed = rc_fec_probe_update (&p, t, current, &ovh, &media);
    if (t < 500 * MS) {
      fail_if (changed, "derived at %" GST_TIME_FORMAT " before any request",
          GST_TIME_ARGS (t));
      continue;
    }
    if (t == want) {
      fail_unless (changed, "no update at %" GST_TIME_FORMAT,
          GST_TIME_ARGS (t));
      fail_unless (fabs (ovh - 100.0 * 100000 / media) < 1e-9);
      fail_unless (ovh < last_ovh);
      last_ovh = current = ovh;
      want += 100 * MS;
      updates++;
    } else {
      fail_if (changed, "update at %" GST_TIME_FORMAT, GST_TIME_ARGS (t));
    }
  }
  /* 0.5 s, then 0.6 .. 2.0 s. */
  fail_unless_equals_int (updates, 16);

  /* The 100 ms count from the last derivation (2.0 s): 99 ms after it is
   * too early, 100 ms is due. */
  t = want - 100 * MS;
  rc_fec_probe_add_media (&p, t + 99 * MS, 5000);
  fail_if (rc_fec_probe_update (&p, t + 99 * MS, current, &ovh, NULL));
  rc_fec_probe_add_media (&p, t + 100 * MS, 5000);
  fail_unless (rc_fec_probe_update (&p, t + 100 * MS, current, &ovh, NULL));
  fail_unless_equals_uint64 (p.last_update, t + 100 * MS);
  rc_fec_probe_clear (&p);
}

GST_END_TEST;

/* No media measured: a request (or an update) changes nothing, probing
 * stays on, and the first media derives the overhead at once. Media
 * that stopped for longer than the meter's second changes nothing
 * either. */
GST_START_TEST (test_probe_no_media)
{
  RcFecProbe p;
  gdouble ovh = -2;

  rc_fec_probe_init (&p);
  fail_if (rc_fec_probe_set_bitrate (&p, 200000, 10.0, &ovh, NULL));
  fail_unless_equals_int (p.bps, 200000);
  fail_if (rc_fec_probe_update (&p, 1 * GST_SECOND, 10.0, &ovh, NULL));
  /* A sample without bytes is no media rate. */
  rc_fec_probe_add_media (&p, 1 * GST_SECOND, 0);
  fail_if (rc_fec_probe_update (&p, 1 * GST_SECOND, 10.0, &ovh, NULL));
  fail_unless_equals_float (ovh, -2);
  /* Invalid time: nothing to measure at. */
  fail_if (rc_fec_probe_update (&p, GST_CLOCK_TIME_NONE, 10.0, &ovh, NULL));

  probe_media_rate (&p, 3 * GST_SECOND, 1000000);
  fail_unless (rc_fec_probe_update (&p, 3 * GST_SECOND, 10.0, &ovh, NULL));
  fail_unless (fabs (ovh - 20.0) < 1e-9);

  /* Two seconds without media: the meter is empty, the overhead stays. */
  ovh = -2;
  fail_if (rc_fec_probe_update (&p, 5 * GST_SECOND, 20.0, &ovh, NULL));
  fail_unless_equals_float (ovh, -2);
  rc_fec_probe_clear (&p);
}

GST_END_TEST;

/* Bitrate 0 ends probing with overhead 0 (no FEC); stop() ends it
 * leaving the overhead alone; a new request derives at once, even
 * within 100 ms of the last derivation; restart() forgets the media but
 * keeps the request. */
GST_START_TEST (test_probe_end_and_restart)
{
  RcFecProbe p;
  gdouble ovh = -2, media = -2;

  rc_fec_probe_init (&p);
  probe_media_rate (&p, 2 * GST_SECOND, 1000000);
  fail_unless (rc_fec_probe_set_bitrate (&p, 300000, 10.0, &ovh, &media));
  fail_unless (fabs (ovh - 30.0) < 1e-9);

  fail_unless (rc_fec_probe_set_bitrate (&p, 0, 30.0, &ovh, &media));
  fail_unless_equals_float (ovh, 0.0);
  fail_unless_equals_float (media, 0.0);
  fail_unless_equals_int (p.bps, 0);
  /* Also when FEC is off already: bitrate 0 always says overhead 0. */
  fail_unless (rc_fec_probe_set_bitrate (&p, 0, 0.0, &ovh, NULL));
  fail_unless_equals_float (ovh, 0.0);
  ovh = -2;
  fail_if (rc_fec_probe_update (&p, 3 * GST_SECOND, 0.0, &ovh, NULL));
  fail_unless_equals_float (ovh, -2);

  /* 10 ms after the last derivation, a new request is not held back. */
  probe_media_rate (&p, 4 * GST_SECOND, 1000000);
  fail_unless (rc_fec_probe_set_bitrate (&p, 500000, 0.0, &ovh, NULL));
  fail_unless (fabs (ovh - 50.0) < 1e-9);
  rc_fec_probe_add_media (&p, 4 * GST_SECOND + 10 * MS, 100);
  fail_unless (rc_fec_probe_set_bitrate (&p, 100000, 50.0, &ovh, NULL));
  fail_unless_equals_uint64 (p.last_update, 4 * GST_SECOND + 10 * MS);

  rc_fec_probe_stop (&p);
  fail_unless_equals_int (p.bps, 0);
  fail_if (rc_fec_probe_update (&p, 5 * GST_SECOND, 50.0, &ovh, NULL));

  /* A request, then a new stream: the request survives, the media and
   * the cadence do not. */
  fail_unless (rc_fec_probe_set_bitrate (&p, 200000, 10.0, &ovh, NULL));
  rc_fec_probe_restart (&p);
  fail_unless_equals_int (p.bps, 200000);
  fail_unless_equals_uint64 (p.last_update, GST_CLOCK_TIME_NONE);
  fail_if (rc_fec_probe_update (&p, 10 * GST_SECOND, 10.0, &ovh, NULL));
  probe_media_rate (&p, 10 * GST_SECOND, 4000000);
  fail_unless (rc_fec_probe_update (&p, 10 * GST_SECOND, 10.0, &ovh, NULL));
  fail_unless (fabs (ovh - 5.0) < 1e-9);
  rc_fec_probe_clear (&p);
}

GST_END_TEST;

static Suite *
fec_suite (void)
{
  Suite *s = suite_create ("fec");
  TCase *tc;

  tc = tcase_create ("recovery");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_xor_word_wide_matches_bytewise);
  tcase_add_test (tc, test_frame_recovery_counts);
  tcase_add_loop_test (tc, test_row_every_position, 0,
      G_N_ELEMENTS (row_cases));
  tcase_add_loop_test (tc, test_block_every_position, 0,
      G_N_ELEMENTS (block_cases));
  tcase_add_test (tc, test_column_burst);
  tcase_add_test (tc, test_2d_two_in_a_row);
  tcase_add_test (tc, test_2d_staircase);
  tcase_add_test (tc, test_2d_square_unrecoverable);

  tc = tcase_create ("wire");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_flexfec_fixed_roundtrip);
  tcase_add_test (tc, test_flexfec_mask_lengths);
  tcase_add_test (tc, test_ulpfec_roundtrip);
  tcase_add_test (tc, test_repair_carries_extension);
  tcase_add_test (tc, test_overhead_geometry);

  tc = tcase_create ("robustness");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_reorder_fec_first);
  tcase_add_test (tc, test_forged_repair_ssrcs_do_not_lock_out);
  tcase_add_test (tc, test_reorder_at_stream_start);
  tcase_add_test (tc, test_idle_stream_makes_room);
  tcase_add_test (tc, test_lookup_states);
  tcase_add_loop_test (tc, test_memory_layout_same_output, 0,
      G_N_ELEMENTS (memory_cases));
  tcase_add_test (tc, test_seq_wrap_long_run);
  tcase_add_test (tc, test_window_bound_and_stale);
  tcase_add_loop_test (tc, test_malformed_rejected, 0,
      G_N_ELEMENTS (bad_cases));
  tcase_add_test (tc, test_fuzz_no_crash);

  tc = tcase_create ("probe");
  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_probe_overhead_table, 0,
      G_N_ELEMENTS (probe_cases));
  tcase_add_test (tc, test_probe_cadence);
  tcase_add_test (tc, test_probe_no_media);
  tcase_add_test (tc, test_probe_end_and_restart);
  return s;
}

GST_CHECK_MAIN (fec);
