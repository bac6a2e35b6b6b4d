/* GstHarness tests for fecenc: media passes unchanged, repair packets in
 * both formats, overhead changed while playing, the GstFecEncProbe event
 * from both directions, the transport-wide-cc extension on repair packets,
 * EOS flushing, bad settings, stats. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/rtp/gstrtpbuffer.h>

#define TWCC_URI \
  "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
#define CAPS "application/x-rtp,media=video,clock-rate=90000," \
  "encoding-name=VP8,payload=96"
#define MEDIA_SSRC 1234
#define FEC_SSRC 4321
#define FEC_PT 100
#define PKT_SIZE 1000
#define MS GST_MSECOND

/* A media packet of PKT_SIZE bytes; marker on every `frame`-th. */
static GstBuffer *
media_new (guint16 seq, guint frame)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  GstBuffer *buf = gst_rtp_buffer_new_allocate (PKT_SIZE - 12, 0, 0);
  guint8 *p;
  guint i;

  fail_unless (gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp));
  gst_rtp_buffer_set_ssrc (&rtp, MEDIA_SSRC);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, seq * 3000u);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_set_marker (&rtp, frame && seq % frame == frame - 1);
  p = gst_rtp_buffer_get_payload (&rtp);
  for (i = 0; i < PKT_SIZE - 12; i++)
    p[i] = (guint8) (seq + i);
  gst_rtp_buffer_unmap (&rtp);
  GST_BUFFER_PTS (buf) = seq * 10 * MS;
  return buf;
}

static GstHarness *
enc_harness (const gchar * props)
{
  gchar *desc = g_strdup_printf ("fecenc pt=%u ssrc=%u %s", FEC_PT, FEC_SSRC,
      props ? props : "");
  GstHarness *h = gst_harness_new_parse (desc);

  g_free (desc);
  gst_harness_set_src_caps_str (h, CAPS);
  return h;
}

/* The element inside the parse bin. */
static GstElement *
fecenc_of (GstHarness * h)
{
  GstElement *e;
  if (GST_IS_BIN (h->element)) {
    GValue v = G_VALUE_INIT;
    GstIterator *it = gst_bin_iterate_elements (GST_BIN (h->element));
    fail_unless (gst_iterator_next (it, &v) == GST_ITERATOR_OK);
    e = g_value_dup_object (&v);
    g_value_unset (&v);
    gst_iterator_free (it);
    return e;
  }
  return gst_object_ref (h->element);
}

static GstStructure *
stats (GstHarness * h)
{
  GstStructure *s = NULL;
  GstElement *e = fecenc_of (h);
  g_object_get (e, "stats", &s, NULL);
  gst_object_unref (e);
  fail_unless (s != NULL);
  return s;
}

static guint64
stat_u64 (GstHarness * h, const gchar * f)
{
  GstStructure *s = stats (h);
  guint64 v = 0;
  fail_unless (gst_structure_get_uint64 (s, f, &v), "no %s", f);
  gst_structure_free (s);
  return v;
}

static gdouble
stat_double (GstHarness * h, const gchar * f)
{
  GstStructure *s = stats (h);
  gdouble v = 0;
  fail_unless (gst_structure_get_double (s, f, &v), "no %s", f);
  gst_structure_free (s);
  return v;
}

/* Pushes `n` packets from `seq`; returns media and repair counts out. */
static void
push_run (GstHarness * h, guint16 seq, guint n, guint frame, guint * media,
    guint * fec)
{
  guint i;
  GstBuffer *b;

  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, media_new (seq + i, frame)),
        GST_FLOW_OK);
  *media = *fec = 0;
  while ((b = gst_harness_try_pull (h))) {
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
    if (gst_rtp_buffer_get_payload_type (&rtp) == FEC_PT)
      (*fec)++;
    else
      (*media)++;
    gst_rtp_buffer_unmap (&rtp);
    gst_buffer_unref (b);
  }
}

GST_START_TEST (test_defaults)
{
  GstElement *e = gst_element_factory_make ("fecenc", NULL);
  guint pt, L, D;
  gdouble ovh;
  gint mode, format;

  fail_unless (e != NULL);
  g_object_get (e, "pt", &pt, "columns", &L, "rows", &D, "overhead", &ovh,
      "mode", &mode, "format", &format, NULL);
  fail_unless_equals_int (pt, 100);
  fail_unless_equals_int (L, 10);
  fail_unless_equals_int (D, 10);
  fail_unless_equals_float (ovh, 10.0);
  fail_unless_equals_int (mode, 0);
  fail_unless_equals_int (format, 0);
  gst_object_unref (e);
}

GST_END_TEST;

/* Media go through byte for byte; flexfec repair packets have their own
 * SSRC, PT, consecutive seqnums and the media SSRC as CSRC. */
GST_START_TEST (test_flexfec_row_output)
{
  GstHarness *h = enc_harness ("mode=row overhead=-1 columns=5");
  guint i, n_fec = 0, n_media = 0;
  gint fec_seq = -1;

  for (i = 0; i < 20; i++)
    gst_harness_push (h, media_new (i, 0));
  for (i = 0; i < 24; i++) {
    GstBuffer *b = gst_harness_pull (h);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
    if (i % 6 == 5) {
      fail_unless_equals_int (gst_rtp_buffer_get_payload_type (&rtp), FEC_PT);
      fail_unless_equals_int (gst_rtp_buffer_get_ssrc (&rtp), FEC_SSRC);
      fail_unless_equals_int (gst_rtp_buffer_get_csrc (&rtp, 0), MEDIA_SSRC);
      if (fec_seq >= 0)
        fail_unless_equals_int (gst_rtp_buffer_get_seq (&rtp),
            (fec_seq + 1) & 0xffff);
      fec_seq = gst_rtp_buffer_get_seq (&rtp);
      n_fec++;
    } else {
      GstBuffer *want = media_new (n_media++, 0);
      GstMapInfo m;
      gst_buffer_map (want, &m, GST_MAP_READ);
      fail_unless (gst_buffer_memcmp (b, 0, m.data, m.size) == 0);
      gst_buffer_unmap (want, &m);
      gst_buffer_unref (want);
    }
    gst_rtp_buffer_unmap (&rtp);
    gst_buffer_unref (b);
  }
  fail_unless_equals_int (n_fec, 4);
  fail_unless_equals_uint64 (stat_u64 (h, "fec-packets"), 4);
  fail_unless_equals_uint64 (stat_u64 (h, "media-packets"), 20);
  fail_unless_equals_uint64 (stat_u64 (h, "media-protected"), 20);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The controller moves the overhead while playing: from the next group. */
GST_START_TEST (test_overhead_while_playing)
{
  GstHarness *h = enc_harness ("mode=row overhead=10");
  GstElement *e = fecenc_of (h);
  guint media, fec;

  push_run (h, 0, 100, 0, &media, &fec);
  fail_unless_equals_int (fec, 10);
  g_object_set (e, "overhead", 25.0, NULL);
  push_run (h, 100, 100, 0, &media, &fec);
  fail_unless_equals_int (fec, 25);
  g_object_set (e, "overhead", 0.0, NULL);
  push_run (h, 200, 100, 0, &media, &fec);
  fail_unless_equals_int (fec, 0);
  fail_unless_equals_int (media, 100);
  fail_unless_equals_float (stat_double (h, "overhead"), 0.0);
  gst_object_unref (e);
  gst_harness_teardown (h);
}

GST_END_TEST;

static GstEvent *
probe_event (GstEventType type, guint bps)
{
  return gst_event_new_custom (type, gst_structure_new ("GstFecEncProbe",
          "bitrate", G_TYPE_UINT, bps, NULL));
}

/* Probe bitrate from downstream (upstream event into src) and from
 * upstream (downstream event into sink): overhead = bitrate / media rate
 * (1000-byte packets every 10 ms = 800 kbit/s). */
GST_START_TEST (test_probe_event_both_directions)
{
  GstHarness *h = enc_harness ("mode=row overhead=0");
  guint media, fec;

  push_run (h, 0, 100, 0, &media, &fec);
  fail_unless_equals_int (fec, 0);

  /* 200 kbit/s of FEC over 800 kbit/s of media: 25 %, L = 4 */
  fail_unless (gst_harness_push_upstream_event (h,
          probe_event (GST_EVENT_CUSTOM_UPSTREAM, 200000)));
  fail_unless (fabs (stat_double (h, "overhead") - 25.0) < 1.0,
      "overhead %f", stat_double (h, "overhead"));
  fail_unless_equals_int (stat_u64 (h, "fec-packets"), 0);
  push_run (h, 100, 100, 0, &media, &fec);
  fail_unless (fec >= 24 && fec <= 26, "fec %u", fec);
  {
    GstStructure *s = stats (h);
    guint pb = 0;
    fail_unless (gst_structure_get_uint (s, "probe-bitrate", &pb));
    fail_unless_equals_int (pb, 200000);
    gst_structure_free (s);
  }

  /* 80 kbit/s, sent downstream into the sink pad: 10 % */
  fail_unless (gst_harness_push_event (h,
          probe_event (GST_EVENT_CUSTOM_DOWNSTREAM, 80000)));
  push_run (h, 200, 100, 0, &media, &fec);
  fail_unless (fec >= 9 && fec <= 11, "fec %u", fec);
  fail_unless (fabs (stat_double (h, "overhead") - 10.0) < 1.0);

  /* 0 stops FEC */
  fail_unless (gst_harness_push_upstream_event (h,
          probe_event (GST_EVENT_CUSTOM_UPSTREAM, 0)));
  push_run (h, 300, 100, 0, &media, &fec);
  fail_unless (fec <= 1, "fec %u", fec);        /* the open group may end */
  push_run (h, 400, 100, 0, &media, &fec);
  fail_unless_equals_int (fec, 0);

  /* the events are consumed, not forwarded */
  {
    GstEvent *ev;
    while ((ev = gst_harness_try_pull_event (h))) {
      fail_if (GST_EVENT_TYPE (ev) == GST_EVENT_CUSTOM_DOWNSTREAM);
      gst_event_unref (ev);
    }
    while ((ev = gst_harness_try_pull_upstream_event (h))) {
      fail_if (GST_EVENT_TYPE (ev) == GST_EVENT_CUSTOM_UPSTREAM);
      gst_event_unref (ev);
    }
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* With the transport-wide-cc extension in the caps, every repair packet
 * carries it (so rtpsession can number it). */
GST_START_TEST (test_twcc_extension_on_repair)
{
  GstHarness *h = gst_harness_new_parse ("fecenc pt=100 mode=row "
      "overhead=-1 columns=4");
  guint i, n_fec = 0;
  GstBuffer *b;

  gst_harness_set_src_caps_str (h, CAPS ",extmap-5=(string)" TWCC_URI);
  for (i = 0; i < 12; i++)
    gst_harness_push (h, media_new (i, 0));
  while ((b = gst_harness_try_pull (h))) {
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    gpointer data;
    guint size;
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
    if (gst_rtp_buffer_get_payload_type (&rtp) == FEC_PT) {
      fail_unless (gst_rtp_buffer_get_extension_onebyte_header (&rtp, 5, 0,
              &data, &size));
      fail_unless_equals_int (size, 2);
      n_fec++;
    }
    gst_rtp_buffer_unmap (&rtp);
    gst_buffer_unref (b);
  }
  fail_unless_equals_int (n_fec, 3);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ULPFEC: media SSRC, one gap-free sequence space, repair packets after a
 * frame's last packet. */
GST_START_TEST (test_ulpfec_output)
{
  GstHarness *h = enc_harness ("format=ulpfec mode=flexible overhead=-1 "
      "columns=48");
  guint i, n_fec = 0;
  gint expect = -1;
  gboolean prev_marker = FALSE;
  GstBuffer *b;

  for (i = 0; i < 30; i++)
    gst_harness_push (h, media_new (i, 6));
  while ((b = gst_harness_try_pull (h))) {
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
    fail_unless_equals_int (gst_rtp_buffer_get_ssrc (&rtp), MEDIA_SSRC);
    if (expect >= 0)
      fail_unless_equals_int (gst_rtp_buffer_get_seq (&rtp), expect);
    expect = (gst_rtp_buffer_get_seq (&rtp) + 1) & 0xffff;
    if (gst_rtp_buffer_get_payload_type (&rtp) == FEC_PT) {
      fail_unless (prev_marker);
      n_fec++;
    }
    prev_marker = gst_rtp_buffer_get_marker (&rtp);
    gst_rtp_buffer_unmap (&rtp);
    gst_buffer_unref (b);
  }
  fail_unless_equals_int (n_fec, 5);     /* one per 6-packet frame */
  gst_harness_teardown (h);
}

GST_END_TEST;

/* EOS protects the unfinished group before passing on. */
GST_START_TEST (test_eos_flushes)
{
  GstHarness *h = enc_harness ("mode=row overhead=-1 columns=10");
  guint media, fec;
  GstEvent *ev;
  gboolean eos = FALSE;

  push_run (h, 0, 7, 0, &media, &fec);
  fail_unless_equals_int (fec, 0);
  gst_harness_push_event (h, gst_event_new_eos ());
  push_run (h, 0, 0, 0, &media, &fec);
  fail_unless_equals_int (fec, 1);
  while ((ev = gst_harness_try_pull_event (h))) {
    eos |= GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
    gst_event_unref (ev);
  }
  fail_unless (eos);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* 2-D with one row is no block: refused with an error message. */
GST_START_TEST (test_bad_geometry_error)
{
  GstElement *e = gst_element_factory_make ("fecenc", NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *m;

  g_object_set (e, "mode", 2, "rows", 1, "overhead", -1.0, NULL);
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  gst_message_unref (m);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

/* FEC payload type equal to the media's: error, not a broken stream. */
GST_START_TEST (test_pt_collision_error)
{
  GstHarness *h = gst_harness_new_parse ("fecenc pt=96");
  GstBus *bus = gst_bus_new ();
  GstMessage *m;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, CAPS);
  fail_unless_equals_int (gst_harness_push (h, media_new (0, 0)),
      GST_FLOW_ERROR);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  gst_message_unref (m);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_stats_fields)
{
  GstHarness *h = enc_harness ("mode=2d overhead=-1 columns=4 rows=4");
  static const gchar *u64[] = { "media-packets", "media-protected",
    "fec-packets", "fec-bytes", "media-bytes"
  };
  static const gchar *dbl[] = { "overhead", "measured-overhead",
    "media-bitrate", "fec-bitrate"
  };
  GstStructure *s;
  guint i, media, fec, L = 0;
  guint64 v;
  gdouble d;

  push_run (h, 0, 32, 0, &media, &fec);
  fail_unless_equals_int (fec, 16);     /* 4 rows + 4 columns per block */
  s = stats (h);
  for (i = 0; i < G_N_ELEMENTS (u64); i++)
    fail_unless (gst_structure_get_uint64 (s, u64[i], &v), "%s", u64[i]);
  for (i = 0; i < G_N_ELEMENTS (dbl); i++)
    fail_unless (gst_structure_get_double (s, dbl[i], &d), "%s", dbl[i]);
  fail_unless (gst_structure_get_uint (s, "columns", &L));
  fail_unless_equals_int (L, 4);
  gst_structure_get_double (s, "measured-overhead", &d);
  fail_unless (d > 45 && d < 60, "measured %f", d);
  gst_structure_get_double (s, "media-bitrate", &d);
  fail_unless (d > 700000 && d < 900000, "media rate %f", d);
  gst_structure_free (s);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
fecenc_suite (void)
{
  Suite *s = suite_create ("fecenc");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_defaults);
  tcase_add_test (tc, test_flexfec_row_output);
  tcase_add_test (tc, test_overhead_while_playing);
  tcase_add_test (tc, test_probe_event_both_directions);
  tcase_add_test (tc, test_twcc_extension_on_repair);
  tcase_add_test (tc, test_ulpfec_output);
  tcase_add_test (tc, test_eos_flushes);
  tcase_add_test (tc, test_bad_geometry_error);
  tcase_add_test (tc, test_pt_collision_error);
  tcase_add_test (tc, test_stats_fields);
  return s;
}

GST_CHECK_MAIN (fecenc);
