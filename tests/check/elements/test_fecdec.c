/* GstHarness tests for fecdec, and interoperability with GStreamer's own
 * ULPFEC elements both ways:
 *  - fecenc output (every format and mode) with losses is repaired by
 *    fecdec; every lost position of a row is tried (loop test);
 *  - malformed and duplicate repair packets are counted, never output;
 *  - fecenc format=ulpfec output is repaired by rtpulpfecdec (driven the
 *    way it is built for: rtpstorage upstream, GstRTPPacketLost events);
 *  - rtpulpfecenc output is repaired by fecdec format=ulpfec. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/rtp/gstrtpbuffer.h>

#define CAPS "application/x-rtp,media=video,clock-rate=90000," \
  "encoding-name=VP8,payload=96,ssrc=(uint)1234"
#define MEDIA_SSRC 1234
#define FEC_PT 100
#define MS GST_MSECOND

/* A media packet with a size and payload derived from `seq`; marker on
 * every `frame`-th. */
static GstBuffer *
media_new (guint16 seq, guint frame)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint plen = 200 + (seq * 53) % 1000;
  GstBuffer *buf = gst_rtp_buffer_new_allocate (plen, 0, 0);
  guint8 *p;
  guint i;

  fail_unless (gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp));
  gst_rtp_buffer_set_ssrc (&rtp, MEDIA_SSRC);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, (seq / (frame ? frame : 1)) * 3000u);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_set_marker (&rtp, frame && seq % frame == frame - 1);
  p = gst_rtp_buffer_get_payload (&rtp);
  for (i = 0; i < plen; i++)
    p[i] = (guint8) (seq * 3 + i);
  gst_rtp_buffer_unmap (&rtp);
  GST_BUFFER_PTS (buf) = seq * 5 * MS;
  return buf;
}

static GstElement *
inner (GstHarness * h)
{
  GValue v = G_VALUE_INIT;
  GstIterator *it;
  GstElement *e;

  if (!GST_IS_BIN (h->element))
    return gst_object_ref (h->element);
  it = gst_bin_iterate_elements (GST_BIN (h->element));
  fail_unless (gst_iterator_next (it, &v) == GST_ITERATOR_OK);
  e = g_value_dup_object (&v);
  g_value_unset (&v);
  gst_iterator_free (it);
  return e;
}

static guint64
stat_u64 (GstElement * e, const gchar * f)
{
  GstStructure *s = NULL;
  guint64 v = 0;

  g_object_get (e, "stats", &s, NULL);
  fail_unless (gst_structure_get_uint64 (s, f, &v), "no %s", f);
  gst_structure_free (s);
  return v;
}

/* Runs `n` media packets through `enc_desc` (a harness); returns all
 * output packets in order. */
static GPtrArray *
encode (const gchar * enc_desc, guint16 first_seq, guint n, guint frame)
{
  GstHarness *h = gst_harness_new_parse (enc_desc);
  GPtrArray *all = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstBuffer *b;
  guint i;

  gst_harness_set_src_caps_str (h, CAPS);
  for (i = 0; i < n; i++) {
    fail_unless_equals_int (gst_harness_push (h, media_new (first_seq + i,
                frame)), GST_FLOW_OK);
    while ((b = gst_harness_try_pull (h)))
      g_ptr_array_add (all, b);
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  while ((b = gst_harness_try_pull (h)))
    g_ptr_array_add (all, b);
  gst_harness_teardown (h);
  return all;
}

static guint8
pt_of (GstBuffer * b)
{
  guint8 h[2];
  gst_buffer_extract (b, 0, h, 2);
  return h[1] & 0x7f;
}

static guint16
seq_of (GstBuffer * b)
{
  guint8 h[4];
  gst_buffer_extract (b, 0, h, 4);
  return GST_READ_UINT16_BE (h + 2);
}

/* Payload bytes equal (seq may differ after renumbering). */
static gboolean
same_payload (GstBuffer * a, GstBuffer * b)
{
  GstRTPBuffer ra = GST_RTP_BUFFER_INIT, rb = GST_RTP_BUFFER_INIT;
  gboolean same;

  fail_unless (gst_rtp_buffer_map (a, GST_MAP_READ, &ra));
  fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rb));
  same = gst_rtp_buffer_get_payload_len (&ra) ==
      gst_rtp_buffer_get_payload_len (&rb) &&
      memcmp (gst_rtp_buffer_get_payload (&ra),
      gst_rtp_buffer_get_payload (&rb),
      gst_rtp_buffer_get_payload_len (&ra)) == 0 &&
      gst_rtp_buffer_get_timestamp (&ra) == gst_rtp_buffer_get_timestamp (&rb)
      && gst_rtp_buffer_get_marker (&ra) == gst_rtp_buffer_get_marker (&rb)
      && gst_rtp_buffer_get_payload_type (&ra) ==
      gst_rtp_buffer_get_payload_type (&rb);
  gst_rtp_buffer_unmap (&ra);
  gst_rtp_buffer_unmap (&rb);
  return same;
}

/* Feeds `pkts` minus the media at indices in `drop` (media counted from 0,
 * G_MAXUINT-terminated) into a fecdec harness; returns its output. */
static GPtrArray *
decode (const gchar * dec_desc, GPtrArray * pkts, const guint * drop,
    GstHarness ** hout)
{
  GstHarness *h = gst_harness_new_parse (dec_desc);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  guint i, k, media_idx = 0;
  GstBuffer *b;

  gst_harness_set_src_caps_str (h, CAPS);
  for (i = 0; i < pkts->len; i++) {
    GstBuffer *p = pkts->pdata[i];
    gboolean skip = FALSE;
    if (pt_of (p) != FEC_PT) {
      for (k = 0; drop[k] != G_MAXUINT; k++)
        if (drop[k] == media_idx)
          skip = TRUE;
      media_idx++;
    }
    if (!skip)
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (p)),
          GST_FLOW_OK);
  }
  while ((b = gst_harness_try_pull (h)))
    g_ptr_array_add (out, b);
  if (hout)
    *hout = h;
  else
    gst_harness_teardown (h);
  return out;
}

/* The output holds each of `n` media packets from `first` exactly once. */
static void
assert_complete (GPtrArray * out, guint16 first_seq, guint n, guint frame)
{
  guint i, j;

  for (i = 0; i < out->len; i++)
    fail_if (pt_of (out->pdata[i]) == FEC_PT, "repair packet passed on");
  fail_unless_equals_int (out->len, n);
  for (j = 0; j < n; j++) {
    GstBuffer *want = media_new (first_seq + j, frame);
    gboolean found = FALSE;
    for (i = 0; i < out->len; i++)
      if (same_payload (out->pdata[i], want))
        found = TRUE;
    fail_unless (found, "media %u missing", j);
    gst_buffer_unref (want);
  }
}

/* ------------------------------------------------------- fecenc->fecdec */

typedef struct
{
  const gchar *enc;
  const gchar *dec;
  guint group;                  /* positions to try */
} Pair;

static const Pair pairs[] = {
  {"fecenc pt=100 mode=row overhead=-1 columns=5", "fecdec pt=100", 5},
  {"fecenc pt=100 mode=column overhead=-1 columns=3 rows=3",
      "fecdec pt=100", 9},
  {"fecenc pt=100 mode=2d overhead=-1 columns=3 rows=3", "fecdec pt=100", 9},
  {"fecenc pt=100 mode=flexible overhead=-1 columns=8", "fecdec pt=100", 4},
  {"fecenc pt=100 format=ulpfec mode=row overhead=-1 columns=4",
      "fecdec pt=100 format=ulpfec", 4},
  {"fecenc pt=100 format=ulpfec mode=flexible overhead=-1 columns=8",
      "fecdec pt=100 format=ulpfec", 4},
};

/* Every lost position of a group (the second), for each format/mode. */
GST_START_TEST (test_every_position_elements)
{
  const Pair *p = &pairs[__i__];
  guint pos;

  for (pos = 0; pos < p->group; pos++) {
    /* frames of 4 packets (flexible groups end there) */
    GPtrArray *pk = encode (p->enc, 100, 4 * p->group, 4);
    guint drop[] = { p->group + pos, G_MAXUINT };
    GstHarness *h;
    GPtrArray *out = decode (p->dec, pk, drop, &h);
    GstElement *e = inner (h);

    assert_complete (out, 100, 4 * p->group, 4);
    fail_unless_equals_uint64 (stat_u64 (e, "recovered"), 1);
    fail_unless_equals_uint64 (stat_u64 (e, "rejected"), 0);
    gst_object_unref (e);
    gst_harness_teardown (h);
    g_ptr_array_unref (out);
    g_ptr_array_unref (pk);
  }
}

GST_END_TEST;

/* 2-D: two losses in a row, repaired through the columns; loss counts
 * settle at EOS. */
GST_START_TEST (test_2d_double_loss_and_stats)
{
  GPtrArray *pk = encode ("fecenc pt=100 mode=2d overhead=-1 columns=4 "
      "rows=4", 0, 32, 0);
  guint drop[] = { 17, 18, G_MAXUINT };
  GstHarness *h;
  GPtrArray *out = decode ("fecdec pt=100", pk, drop, &h);
  GstElement *e = inner (h);
  GstStructure *s = NULL;
  gdouble lb = -1, la = -1;

  assert_complete (out, 0, 32, 0);
  gst_harness_push_event (h, gst_event_new_eos ());
  g_object_get (e, "stats", &s, NULL);
  fail_unless (gst_structure_get_double (s, "loss-before", &lb));
  fail_unless (gst_structure_get_double (s, "loss-after", &la));
  fail_unless_equals_float (lb, 2.0 / 32);
  fail_unless_equals_float (la, 0.0);
  gst_structure_free (s);
  fail_unless_equals_uint64 (stat_u64 (e, "recovered"), 2);
  {
    /* rtpulpfecdec's property names read the same counts. */
    guint rec = 0, unrec = 1;
    g_object_get (e, "recovered", &rec, "unrecovered", &unrec, NULL);
    fail_unless_equals_int (rec, 2);
    fail_unless_equals_int (unrec, 0);
  }
  fail_unless_equals_uint64 (stat_u64 (e, "lost-before"), 2);
  fail_unless_equals_uint64 (stat_u64 (e, "lost-after"), 0);
  fail_unless_equals_uint64 (stat_u64 (e, "unrecoverable"), 0);
  fail_unless_equals_uint64 (stat_u64 (e, "fec-received"), 16);
  fail_unless_equals_uint64 (stat_u64 (e, "media-received"), 30);
  gst_object_unref (e);
  gst_harness_teardown (h);
  g_ptr_array_unref (out);
  g_ptr_array_unref (pk);
}

GST_END_TEST;

/* Garbage with the repair payload type, a truncated repair packet, a
 * repair packet from another SSRC (fec-ssrc set), duplicate media and
 * duplicate repair: all counted, nothing bad comes out, the real stream is
 * still repaired. */
GST_START_TEST (test_malformed_and_duplicates)
{
  GPtrArray *pk = encode ("fecenc pt=100 ssrc=777 mode=row overhead=-1 "
      "columns=4", 0, 8, 0);
  GstHarness *h = gst_harness_new_parse ("fecdec pt=100 fec-ssrc=777");
  GstElement *e = inner (h);
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstBuffer *b, *fec = NULL;
  GRand *r = g_rand_new_with_seed (7);
  guint i, n_media = 0;

  gst_harness_set_src_caps_str (h, CAPS);
  /* junk first */
  for (i = 0; i < 200; i++) {
    guint len = g_rand_int_range (r, 12, 80);
    GstMapInfo m;
    b = gst_buffer_new_allocate (NULL, len, NULL);
    gst_buffer_map (b, &m, GST_MAP_WRITE);
    {
      guint k;
      for (k = 0; k < len; k++)
        m.data[k] = g_rand_int (r);
    }
    m.data[0] = 0x80 | (m.data[0] & 0x3f);
    m.data[1] = FEC_PT;
    GST_WRITE_UINT32_BE (m.data + 8, 777);
    gst_buffer_unmap (b, &m);
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  for (i = 0; i < pk->len; i++) {
    GstBuffer *p = pk->pdata[i];
    if (pt_of (p) == FEC_PT) {
      GstBuffer *trunc = gst_buffer_copy_region (p, GST_BUFFER_COPY_ALL, 0,
          12 + 4 + 6);
      GstBuffer *other = gst_buffer_copy_deep (p);
      GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
      gst_rtp_buffer_map (other, GST_MAP_WRITE, &rtp);
      gst_rtp_buffer_set_ssrc (&rtp, 778);
      gst_rtp_buffer_unmap (&rtp);
      gst_harness_push (h, trunc);
      gst_harness_push (h, other);
      if (!fec)
        fec = p;
      gst_harness_push (h, gst_buffer_ref (p));
    } else {
      if (n_media++ == 1)
        continue;               /* lost */
      gst_harness_push (h, gst_buffer_ref (p));
      if (n_media == 3)
        gst_harness_push (h, gst_buffer_ref (p));       /* duplicate */
    }
  }
  /* the first repair packet again */
  gst_harness_push (h, gst_buffer_ref (fec));
  while ((b = gst_harness_try_pull (h)))
    g_ptr_array_add (out, b);
  assert_complete (out, 0, 8, 0);
  fail_unless_equals_uint64 (stat_u64 (e, "recovered"), 1);
  /* the 4 bad copies, and the junk (some junk may look like a repair
   * packet for packets nobody sent and just wait in the window) */
  fail_unless (stat_u64 (e, "rejected") >= 100 + 2 * 2,
      "rejected %" G_GUINT64_FORMAT, stat_u64 (e, "rejected"));
  fail_unless (stat_u64 (e, "duplicates") >= 2);
  g_rand_free (r);
  gst_object_unref (e);
  g_ptr_array_unref (out);
  g_ptr_array_unref (pk);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ------------------------------------------------------------- interop */

/* fecenc format=ulpfec -> rtpulpfecdec. rtpulpfecdec finds the media and
 * repair packets in an upstream rtpstorage and recovers when told of a
 * loss by a GstRTPPacketLost event (what rtpjitterbuffer do-lost sends). */
GST_START_TEST (test_interop_our_ulpfec_to_rtpulpfecdec)
{
  guint pos;

  for (pos = 0; pos < 6; pos++) {
    GPtrArray *pk = encode ("fecenc pt=100 format=ulpfec mode=flexible "
        "overhead=-1 columns=6", 0, 18, 6);
    GstHarness *h = gst_harness_new_parse ("rtpstorage size-time=1000000000 "
        "! rtpulpfecdec name=dec pt=100");
    GstBuffer *b, *lost = NULL;
    guint i, media_idx = 0, got = 0;
    GstElement *dec = gst_bin_get_by_name (GST_BIN (h->element), "dec");
    guint recovered = 0;

    gst_harness_set_src_caps_str (h, CAPS);
    for (i = 0; i < pk->len; i++) {
      GstBuffer *p = pk->pdata[i];
      if (pt_of (p) != FEC_PT && media_idx++ == 6 + pos) {
        lost = p;
        continue;
      }
      gst_harness_push (h, gst_buffer_ref (p));
    }
    fail_unless (lost != NULL);
    gst_harness_push_event (h, gst_event_new_custom
        (GST_EVENT_CUSTOM_DOWNSTREAM, gst_structure_new ("GstRTPPacketLost",
                "seqnum", G_TYPE_UINT, (guint) seq_of (lost),
                "timestamp", G_TYPE_UINT64, GST_BUFFER_PTS (lost),
                "duration", G_TYPE_UINT64, (guint64) 0,
                "retry", G_TYPE_UINT, 0, NULL)));
    while ((b = gst_harness_try_pull (h))) {
      if (pt_of (b) != FEC_PT && same_payload (b, lost))
        got++;
      gst_buffer_unref (b);
    }
    fail_unless_equals_int (got, 1);
    if (dec) {
      g_object_get (dec, "recovered", &recovered, NULL);
      fail_unless_equals_int (recovered, 1);
      gst_object_unref (dec);
    }
    gst_harness_teardown (h);
    g_ptr_array_unref (pk);
  }
}

GST_END_TEST;

/* rtpulpfecenc -> fecdec format=ulpfec: every lost position of a frame
 * (rtpulpfecenc protects each frame, multipacket, at 100 %: one repair
 * packet per frame at most as large as the group allows). */
GST_START_TEST (test_interop_rtpulpfecenc_to_ours)
{
  guint pos;

  for (pos = 0; pos < 5; pos++) {
    GPtrArray *pk = encode ("rtpulpfecenc pt=100 percentage=20", 0, 25, 5);
    guint drop[] = { 5 + pos, G_MAXUINT };
    GstHarness *h;
    GPtrArray *out;
    GstElement *e;
    guint i, n_fec = 0;

    for (i = 0; i < pk->len; i++)
      if (pt_of (pk->pdata[i]) == FEC_PT)
        n_fec++;
    fail_unless (n_fec >= 4, "rtpulpfecenc sent %u repair packets", n_fec);
    out = decode ("fecdec pt=100 format=ulpfec", pk, drop, &h);
    e = inner (h);
    assert_complete (out, 0, 25, 5);
    fail_unless_equals_uint64 (stat_u64 (e, "recovered"), 1);
    fail_unless_equals_uint64 (stat_u64 (e, "rejected"), 0);
    gst_object_unref (e);
    gst_harness_teardown (h);
    g_ptr_array_unref (out);
    g_ptr_array_unref (pk);
  }
}

GST_END_TEST;

/* ------------------------------------------------------- placements */

/* Repair packets on a fec_%u request pad (rtpbin's fec-decoders slot
 * links recv_fec_sink_%u_%u there): the media pad's output gets the
 * rebuilt packets. */
GST_START_TEST (test_repair_on_request_pad)
{
  GPtrArray *pkts = encode ("fecenc pt=100 mode=row overhead=-1 columns=5",
      100, 10, 5);
  GstElement *dec = gst_element_factory_make ("fecdec", NULL);
  GstHarness *h, *hf;
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstBuffer *b;
  GstEvent *ev;
  guint i, media_idx = 0;

  g_object_set (dec, "pt", FEC_PT, NULL);
  h = gst_harness_new_with_element (dec, "sink", "src");
  hf = gst_harness_new_with_element (dec, "fec_0", NULL);
  gst_object_unref (dec);
  gst_harness_set_src_caps_str (h, CAPS);
  gst_harness_set_src_caps_str (hf, CAPS);
  /* all media but the 3rd and 8th first, then the repair packets */
  for (i = 0; i < pkts->len; i++)
    if (pt_of (pkts->pdata[i]) != FEC_PT && media_idx++ % 5 != 2)
      fail_unless_equals_int (gst_harness_push (h,
              gst_buffer_ref (pkts->pdata[i])), GST_FLOW_OK);
  for (i = 0; i < pkts->len; i++)
    if (pt_of (pkts->pdata[i]) == FEC_PT)
      fail_unless_equals_int (gst_harness_push (hf,
              gst_buffer_ref (pkts->pdata[i])), GST_FLOW_OK);
  /* the repair path's EOS is not the stream's */
  fail_unless (gst_harness_push_event (hf, gst_event_new_eos ()));
  while ((b = gst_harness_try_pull (h)))
    g_ptr_array_add (out, b);
  while ((ev = gst_harness_try_pull_event (h))) {
    fail_if (GST_EVENT_TYPE (ev) == GST_EVENT_EOS);
    gst_event_unref (ev);
  }
  assert_complete (out, 100, 10, 5);
  fail_unless_equals_int (stat_u64 (h->element, "recovered-pushed"), 2);

  g_ptr_array_unref (out);
  g_ptr_array_unref (pkts);
  gst_harness_teardown (hf);
  gst_harness_teardown (h);
}

GST_END_TEST;

static GstCaps *
jb_pt_map (GstElement * jb, guint pt, gpointer u)
{
  if (pt == FEC_PT)
    return gst_caps_from_string ("application/x-rtp,media=video,"
        "clock-rate=90000,encoding-name=ULPFEC,payload=100");
  return gst_caps_from_string (CAPS);
}

/* After a jitterbuffer (rtpbin's request-fec-decoder slot), ULPFEC: a
 * packet rebuilt from the repair packet that the jitterbuffer still holds
 * goes out before its successor, which loses the jitterbuffer's DISCONT
 * mark, so a depayloader keeps the frame. One loss per row of 4. */
GST_START_TEST (test_after_jitterbuffer_in_order)
{
  GPtrArray *pkts = encode ("fecenc pt=100 format=ulpfec mode=row "
      "overhead=-1 columns=4", 200, 16, 4);
  GstHarness *h = gst_harness_new_parse ("rtpjitterbuffer name=jb "
      "latency=50 ! fecdec name=dec pt=100 format=ulpfec");
  GstElement *jb = gst_bin_get_by_name (GST_BIN (h->element), "jb");
  GstElement *dec = gst_bin_get_by_name (GST_BIN (h->element), "dec");
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstBuffer *b;
  guint i, media_idx = 0;
  gint last = -1;
  GstStructure *st;

  g_signal_connect (jb, "request-pt-map", G_CALLBACK (jb_pt_map), NULL);
  gst_harness_use_testclock (h);
  gst_harness_set_src_caps_str (h, CAPS);
  for (i = 0; i < pkts->len; i++) {
    GstBuffer *p = gst_buffer_copy (pkts->pdata[i]);
    gboolean media = pt_of (p) != FEC_PT;
    GST_BUFFER_DTS (p) = GST_BUFFER_PTS (p);
    if (media && media_idx++ % 4 == 1 && media_idx > 4) {
      gst_buffer_unref (p);
      continue;
    }
    fail_unless_equals_int (gst_harness_push (h, p), GST_FLOW_OK);
    /* The first packet out of the jitterbuffer is when fecdec finds out
     * where it is and starts listening above it. */
    if (i == 0) {
      fail_unless (gst_harness_crank_single_clock_wait (h));
      g_ptr_array_add (out, gst_harness_pull (h));
    }
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while (gst_harness_pull_until_eos (h, &b) && b)
    g_ptr_array_add (out, b);

  /* media in sequence (repair seqnums skipped), none missing, none
   * DISCONT after the first */
  fail_unless_equals_int (out->len, 16);
  for (i = 0; i < out->len; i++) {
    b = out->pdata[i];
    fail_if (pt_of (b) == FEC_PT);
    fail_unless ((gint16) (seq_of (b) - last) > 0 || last < 0,
        "seq %u after %d", seq_of (b), last);
    if (i > 0)
      fail_if (GST_BUFFER_IS_DISCONT (b), "seq %u DISCONT", seq_of (b));
    last = seq_of (b);
  }
  g_object_get (dec, "stats", &st, NULL);
  fail_unless_equals_string (gst_structure_get_string (st, "placement"),
      "after-jitterbuffer");
  gst_structure_free (st);
  fail_unless_equals_int (stat_u64 (dec, "recovered-pushed"), 3);

  g_ptr_array_unref (out);
  g_ptr_array_unref (pkts);
  gst_object_unref (jb);
  gst_object_unref (dec);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
fecdec_suite (void)
{
  Suite *s = suite_create ("fecdec");
  TCase *tc = tcase_create ("repair");

  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_every_position_elements, 0,
      G_N_ELEMENTS (pairs));
  tcase_add_test (tc, test_2d_double_loss_and_stats);
  tcase_add_test (tc, test_malformed_and_duplicates);

  tc = tcase_create ("placement");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_repair_on_request_pad);
  tcase_add_test (tc, test_after_jitterbuffer_in_order);

  tc = tcase_create ("interop");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_interop_our_ulpfec_to_rtpulpfecdec);
  tcase_add_test (tc, test_interop_rtpulpfecenc_to_ours);
  return s;
}

GST_CHECK_MAIN (fecdec);
