/* Real pipelines with fecenc/fecdec:
 *  - vp8 over fecenc, a deterministic lossy link (a pad probe dropping ~5 %
 *    of packets from a seeded generator), fecdec, rtpjitterbuffer, vp8
 *    depayloading and decoding: fewer frames missing than the same run
 *    without FEC;
 *  - fecenc inside a real rtpbin (fec-encoders) sending to a real rtpbin
 *    receiver over UDP: repair packets are numbered by the transport-wide
 *    congestion control of rtpsession and show up in the RTPTWCCPackets
 *    feedback the sender gets. */
#define GLIB_DISABLE_DEPRECATION_WARNINGS
#include <math.h>
#include <gst/check/gstcheck.h>
#include "pipeline-util.h"
#include <gst/rtp/gstrtpbuffer.h>

#define TWCC_URI \
  "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
#define FEC_PT 100
#define N_FRAMES 90             /* 3 s at 30 fps */

typedef struct
{
  GRand *media_rand, *fec_rand;
  gdouble p;
  guint dropped, passed;
  guint frames_out;             /* complete frames out of the depayloader */
} Link;

static GstPadProbeReturn
lossy_link (GstPad * pad, GstPadProbeInfo * info, Link * l)
{
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
  guint8 h[2];
  gboolean fec;

  gst_buffer_extract (b, 0, h, 2);
  fec = (h[1] & 0x7f) == FEC_PT;
  /* Separate generators: media see the same losses with and without FEC. */
  if (g_rand_double (fec ? l->fec_rand : l->media_rand) < l->p) {
    l->dropped++;
    return GST_PAD_PROBE_DROP;
  }
  l->passed++;
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
count_frames (GstPad * pad, GstPadProbeInfo * info, Link * l)
{
  l->frames_out++;
  return GST_PAD_PROBE_OK;
}

static void
run_lossy (const gchar * fec_props, Link * l, GstStructure ** dec_stats)
{
  gchar *desc = g_strdup_printf ("videotestsrc is-live=true num-buffers=%u "
      "pattern=snow ! video/x-raw,width=320,height=240,framerate=30/1 ! "
      "vp8enc deadline=1 keyframe-max-dist=60 target-bitrate=600000 ! "
      "rtpvp8pay pt=96 mtu=500 ! fecenc name=enc pt=%u %s ! "
      "fecdec name=dec pt=%u ! rtpjitterbuffer latency=150 ! "
      "rtpvp8depay name=depay ! vp8dec max-errors=-1 ! fakesink sync=false",
      N_FRAMES, FEC_PT, fec_props, FEC_PT);
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);
  GstElement *dec, *depay;
  GstPad *pad;
  GstMessage *m;
  GstBus *bus;

  g_free (desc);
  fail_unless (p != NULL, "%s", err ? err->message : "");
  dec = gst_bin_get_by_name (GST_BIN (p), "dec");
  depay = gst_bin_get_by_name (GST_BIN (p), "depay");
  pad = gst_element_get_static_pad (dec, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
      (GstPadProbeCallback) lossy_link, l, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (depay, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
      (GstPadProbeCallback) count_frames, l, NULL);
  gst_object_unref (pad);

  fail_if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  bus = gst_element_get_bus (p);
  m = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "no EOS");
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *e;
    gchar *dbg;
    gst_message_parse_error (m, &e, &dbg);
    fail ("error: %s (%s)", e->message, dbg);
  }
  gst_message_unref (m);
  g_object_get (dec, "stats", dec_stats, NULL);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (dec);
  gst_object_unref (depay);
  gst_object_unref (p);
}

GST_START_TEST (test_vp8_fewer_missing_frames_with_fec)
{
  Link with = { 0, }, without = { 0, };
  GstStructure *s_with = NULL, *s_without = NULL;
  guint64 rec = 0, lost_after = 0, lost_before = 0;

  with.p = without.p = 0.05;
  with.media_rand = g_rand_new_with_seed (2024);
  with.fec_rand = g_rand_new_with_seed (99);
  without.media_rand = g_rand_new_with_seed (2024);
  without.fec_rand = g_rand_new_with_seed (99);

  run_lossy ("overhead=0", &without, &s_without);
  run_lossy ("mode=2d columns=4 rows=4 overhead=-1", &with, &s_with);
  GST_INFO ("without FEC: %u frames out, %u packets dropped; with: %u, %u; "
      "%" GST_PTR_FORMAT, without.frames_out, without.dropped,
      with.frames_out, with.dropped, s_with);

  fail_unless (without.dropped > 10, "the link must lose packets");
  fail_unless (gst_structure_get_uint64 (s_with, "recovered", &rec));
  fail_unless (gst_structure_get_uint64 (s_with, "lost-before", &lost_before));
  fail_unless (gst_structure_get_uint64 (s_with, "lost-after", &lost_after));
  fail_unless (rec > 0);
  fail_unless (lost_after < lost_before / 2, "after %" G_GUINT64_FORMAT
      " before %" G_GUINT64_FORMAT, lost_after, lost_before);
  /* Frames: every frame lost a packet in costs a frame without FEC. */
  fail_unless (with.frames_out > without.frames_out, "with FEC %u frames, "
      "without %u", with.frames_out, without.frames_out);
  fail_unless (with.frames_out >= N_FRAMES - 5, "with FEC only %u of %u",
      with.frames_out, N_FRAMES);
  /* FFRE on rtpvp8pay's frames (marker on each frame's last packet):
   * without FEC every hit frame stays hit; with it most are made whole. */
  {
    guint64 hit_with = 0, whole_with = 0, hit_without = 0, whole_without = 1;
    gdouble ffre_with = 0, ffre_without = 1;

    fail_unless (gst_structure_get_uint64 (s_with, "frames-hit", &hit_with));
    fail_unless (gst_structure_get_uint64 (s_with, "frames-recovered",
            &whole_with));
    fail_unless (gst_structure_get_double (s_with, "ffre", &ffre_with));
    fail_unless (gst_structure_get_uint64 (s_without, "frames-hit",
            &hit_without));
    fail_unless (gst_structure_get_uint64 (s_without, "frames-recovered",
            &whole_without));
    fail_unless (gst_structure_get_double (s_without, "ffre", &ffre_without));
    GST_INFO ("frames hit / made whole: %" G_GUINT64_FORMAT " / %"
        G_GUINT64_FORMAT " with FEC, %" G_GUINT64_FORMAT " / %"
        G_GUINT64_FORMAT " without", hit_with, whole_with, hit_without,
        whole_without);
    fail_unless (hit_without > 10 && whole_without == 0 && ffre_without == 0);
    fail_unless (hit_with > 10 && whole_with <= hit_with);
    fail_unless (ffre_with > 0.5, "FFRE %.2f", ffre_with);
    fail_unless (fabs (ffre_with - (gdouble) whole_with / hit_with) < 1e-9);
  }

  gst_structure_free (s_with);
  gst_structure_free (s_without);
  g_rand_free (with.media_rand);
  g_rand_free (with.fec_rand);
  g_rand_free (without.media_rand);
  g_rand_free (without.fec_rand);
}

GST_END_TEST;

/* ------------------------------------------------------ rtpbin + TWCC */

typedef struct
{
  gint twcc_events;
  gint fec_entries;             /* feedback entries for repair packets */
  gint media_entries;
} Feedback;

static GstPadProbeReturn
on_upstream_event (GstPad * pad, GstPadProbeInfo * info, Feedback * fb)
{
  GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);
  const GstStructure *s = gst_event_get_structure (ev);
  const GValue *packets;
  guint i;

  if (GST_EVENT_TYPE (ev) != GST_EVENT_CUSTOM_UPSTREAM || !s ||
      !gst_structure_has_name (s, "RTPTWCCPackets"))
    return GST_PAD_PROBE_OK;
  g_atomic_int_inc (&fb->twcc_events);
  packets = gst_structure_get_value (s, "packets");
  if (!packets || !G_VALUE_HOLDS (packets, G_TYPE_VALUE_ARRAY))
    return GST_PAD_PROBE_OK;
  {
    GValueArray *arr = g_value_get_boxed (packets);
    for (i = 0; i < arr->n_values; i++) {
      const GstStructure *p =
          gst_value_get_structure (g_value_array_get_nth (arr, i));
      guchar pt = 0;
      if (!gst_structure_get (p, "payload-type", G_TYPE_UCHAR, &pt, NULL))
        continue;
      if (pt == FEC_PT)
        g_atomic_int_inc (&fb->fec_entries);
      else
        g_atomic_int_inc (&fb->media_entries);
    }
  }
  return GST_PAD_PROBE_OK;
}

static GstCaps *
request_pt_map (GstElement * rtpbin, guint session, guint pt, gpointer u)
{
  if (pt == FEC_PT)
    return gst_caps_from_string ("application/x-rtp,media=video,"
        "clock-rate=90000,encoding-name=FLEXFEC,payload=100,"
        "extmap-1=(string)" TWCC_URI);
  return gst_caps_from_string ("application/x-rtp,media=video,"
      "clock-rate=90000,encoding-name=VP8,payload=96,"
      "extmap-1=(string)" TWCC_URI);
}

static void
on_pad_added (GstElement * rtpbin, GstPad * pad, GstElement * pipeline)
{
  GstElement *sink;
  GstPad *sinkpad;

  if (GST_PAD_DIRECTION (pad) != GST_PAD_SRC ||
      !g_str_has_prefix (GST_PAD_NAME (pad), "recv_rtp_src_"))
    return;
  sink = gst_element_factory_make ("fakesink", NULL);
  g_object_set (sink, "sync", FALSE, "async", FALSE, NULL);
  gst_bin_add (GST_BIN (pipeline), sink);
  gst_element_sync_state_with_parent (sink);
  sinkpad = gst_element_get_static_pad (sink, "sink");
  gst_pad_link (pad, sinkpad);
  gst_object_unref (sinkpad);
}

/* fecenc through rtpbin's fec-encoders: its repair packets carry the
 * transport-wide-cc extension, rtpsession numbers them, the receiver
 * reports them, and the sender's feedback event lists them. */
GST_START_TEST (test_rtpbin_fec_encoders_twcc)
{
  const gchar *recv_desc = "rtpbin name=rtpbin "
      "udpsrc name=rtp_src port=0 caps=\"application/x-rtp,media=video,"
      "clock-rate=90000,encoding-name=VP8,payload=96,extmap-1=(string)"
      TWCC_URI "\" ! rtpbin.recv_rtp_sink_0 "
      "udpsrc name=rtcp_src port=0 ! rtpbin.recv_rtcp_sink_0 "
      "rtpbin.send_rtcp_src_0 ! udpsink name=rtcp_back host=127.0.0.1 "
      "sync=false async=false";
  const gchar *send_desc = "rtpbin name=rtpbin "
      "fec-encoders=\"fec,0=\\\"fecenc\\ pt\\=100\\ overhead\\=25\\\";\" "
      "videotestsrc is-live=true pattern=ball ! "
      "video/x-raw,width=320,height=240,framerate=30/1 ! "
      "vp8enc deadline=1 target-bitrate=500000 ! rtpvp8pay name=pay pt=96 ! "
      "application/x-rtp,extmap-1=(string)" TWCC_URI " ! "
      "rtpbin.send_rtp_sink_0 "
      "rtpbin.send_rtp_src_0 ! udpsink name=rtp_out host=127.0.0.1 "
      "rtpbin.send_rtcp_src_0 ! udpsink name=rtcp_out host=127.0.0.1 "
      "sync=false async=false "
      "udpsrc name=rtcp_in port=0 ! rtpbin.recv_rtcp_sink_0";
  GError *err = NULL;
  GstElement *recv, *send, *rb, *pay, *e;
  GstPad *pad;
  Feedback fb = { 0, };
  guint i;

  recv = gst_parse_launch (recv_desc, &err);
  fail_unless (recv != NULL, "%s", err ? err->message : "");
  rb = gst_bin_get_by_name (GST_BIN (recv), "rtpbin");
  g_signal_connect (rb, "request-pt-map", G_CALLBACK (request_pt_map), NULL);
  g_signal_connect (rb, "pad-added", G_CALLBACK (on_pad_added), recv);
  gst_object_unref (rb);
  send = gst_parse_launch (send_desc, &err);
  fail_unless (send != NULL, "%s", err ? err->message : "");

  fail_unless (gst_element_set_state (recv, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_set_state (send, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  pipeline_set_port (send, "rtp_out", pipeline_bound_port (recv, "rtp_src"));
  pipeline_set_port (send, "rtcp_out", pipeline_bound_port (recv, "rtcp_src"));
  pipeline_set_port (recv, "rtcp_back", pipeline_bound_port (send, "rtcp_in"));

  pay = gst_bin_get_by_name (GST_BIN (send), "pay");
  pad = gst_element_get_static_pad (pay, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM,
      (GstPadProbeCallback) on_upstream_event, &fb, NULL);
  gst_object_unref (pad);
  gst_object_unref (pay);

  fail_if (gst_element_set_state (recv, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  fail_if (gst_element_set_state (send, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  /* Up to 8 s; usually a second or two. */
  for (i = 0; i < 80 && g_atomic_int_get (&fb.fec_entries) < 5; i++)
    g_usleep (100 * 1000);

  /* The encoder rtpbin made from fec-encoders is a fecenc. */
  {
    GstIterator *it = gst_bin_iterate_recurse (GST_BIN (send));
    GValue v = G_VALUE_INIT;
    gboolean found = FALSE;
    while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
      e = g_value_get_object (&v);
      if (g_str_equal (GST_OBJECT_NAME (gst_element_get_factory (e)) ?
              GST_OBJECT_NAME (gst_element_get_factory (e)) : "", "fecenc"))
        found = TRUE;
      g_value_reset (&v);
    }
    g_value_unset (&v);
    gst_iterator_free (it);
    fail_unless (found, "rtpbin made no fecenc");
  }

  gst_element_set_state (send, GST_STATE_NULL);
  gst_element_set_state (recv, GST_STATE_NULL);
  GST_INFO ("feedback events %d, media entries %d, repair entries %d",
      fb.twcc_events, fb.media_entries, fb.fec_entries);
  fail_unless (fb.twcc_events > 0, "no transport-wide feedback at all");
  fail_unless (fb.media_entries > 0);
  fail_unless (fb.fec_entries >= 5, "repair packets not in the feedback "
      "(%d entries)", fb.fec_entries);
  gst_object_unref (send);
  gst_object_unref (recv);
}

GST_END_TEST;

static Suite *
fec_pipeline_suite (void)
{
  Suite *s = suite_create ("fec_pipeline");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_vp8_fewer_missing_frames_with_fec);
  tcase_add_test (tc, test_rtpbin_fec_encoders_twcc);
  return s;
}

GST_CHECK_MAIN (fec_pipeline);
