/* fecdec inside a real receiving rtpbin, fed by a real sending rtpbin with
 * fecenc in its fec-encoders slot, through a deterministic dropper (every
 * 7th media packet after the first 300; repair packets never). Each run
 * counts the distinct
 * media seqnums that reach the depayloader and the frames it puts out; a
 * run without FEC, with the same losses, is the reference:
 *  - request-fec-decoder-full, ULPFEC on the media SSRC (RFC 5109 as
 *    libwebrtc and GStreamer send it): fecdec sits after the jitterbuffer
 *    and payload demuxer, one per SSRC and payload type;
 *  - request-fec-decoder, flexfec on its own SSRC (RFC 8627): the repair
 *    packets go through another jitterbuffer than the media;
 *  - fec-decoders, flexfec brought on its own path to recv_fec_sink_0_0:
 *    fecdec sits between the SSRC demuxer and the jitterbuffer.
 * In all three the recovered packets must reach the depayloader.
 * And fec-decoders with flexfec on its own SSRC in the media stream, which
 * rtpbin 1.22 cannot link (one SSRC per session in that slot): fecdec says
 * so on the bus instead of the stream stopping with a bare not-linked. */
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/rtp/gstrtpbuffer.h>

#define MEDIA_PT 96
#define FEC_PT 100
#define N_FRAMES 45             /* 1.5 s at 30 fps */
#define DROP_EVERY 7
/* No losses in the first ~15 frames: after a jitterbuffer, fecdec only
 * exists once the first packet left it (see the element docs). */
#define WARMUP_PACKETS 300
/* Room for a starved encoder's late bursts on a loaded machine: a packet
 * rebuilt after the jitterbuffer gave up on it is dropped there. */
#define LATENCY_MS 300

typedef enum
{
  SLOT_NONE,                    /* no FEC at all: the reference */
  SLOT_REQUEST_FULL,            /* request-fec-decoder-full */
  SLOT_REQUEST,                 /* request-fec-decoder */
  SLOT_FEC_DECODERS,            /* fec-decoders + recv_fec_sink_0_0 */
  SLOT_FEC_DECODERS_SAME_PATH,  /* ... but repair with the media */
} Slot;

typedef struct
{
  Slot slot;
  const gchar *format;
  GstElement *pipeline, *rcv;
  GstElement *fecdec;           /* the media's fecdec, for its stats */
  guint media_sent, dropped, fec_sent;
  guint8 seen[65536 / 8];       /* media seqnums at the depayloader */
  guint received, frames_out;
  guint decoders;               /* fecdec instances rtpbin asked for */
  gboolean repair_first;        /* no media until a repair packet passed */
  GstMessage *told;             /* fecdec's first warning or error */
} Run;

static GstPadProbeReturn
dropper (GstPad * pad, GstPadProbeInfo * info, Run * r)
{
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
  guint8 h[2];

  if (gst_buffer_extract (b, 0, h, 2) != 2)
    return GST_PAD_PROBE_OK;
  if ((h[1] & 0x7f) != MEDIA_PT) {
    r->fec_sent++;
    return GST_PAD_PROBE_OK;
  }
  /* The receiver then sees the repair SSRC first: its rtpsession holds a
   * new SSRC's packets until two in sequence came (probation). */
  if (r->repair_first && r->fec_sent < 2)
    return GST_PAD_PROBE_DROP;
  /* By media packet count, so ULPFEC's renumbering changes nothing. */
  if (r->media_sent++ >= WARMUP_PACKETS &&
      r->media_sent % DROP_EVERY == 3) {
    r->dropped++;
    return GST_PAD_PROBE_DROP;
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
at_depay_sink (GstPad * pad, GstPadProbeInfo * info, Run * r)
{
  guint8 h[4];
  guint16 seq;

  if (gst_buffer_extract (GST_PAD_PROBE_INFO_BUFFER (info), 0, h, 4) != 4 ||
      (h[1] & 0x7f) != MEDIA_PT)
    return GST_PAD_PROBE_OK;
  seq = GST_READ_UINT16_BE (h + 2);
  if (!(r->seen[seq / 8] & (1 << (seq % 8)))) {
    r->seen[seq / 8] |= 1 << (seq % 8);
    r->received++;
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
at_depay_src (GstPad * pad, GstPadProbeInfo * info, Run * r)
{
  r->frames_out++;
  return GST_PAD_PROBE_OK;
}

static GstCaps *
request_pt_map (GstElement * e, guint session, guint pt, gpointer u)
{
  /* is-fec: rtpbin's payload demuxer drops the repair packets. */
  if (pt == FEC_PT)
    return gst_caps_from_string ("application/x-rtp,media=video,"
        "clock-rate=90000,encoding-name=FEC,payload=100,is-fec=(boolean)true");
  return gst_caps_from_string ("application/x-rtp,media=video,"
      "clock-rate=90000,encoding-name=VP8,payload=96");
}

static GstCaps *
split_pt_map (GstElement * e, guint pt, gpointer u)
{
  return request_pt_map (e, 0, pt, u);
}

static GstElement *
make_fecdec (Run * r)
{
  GstElement *d = gst_element_factory_make ("fecdec", NULL);

  gst_util_set_object_arg (G_OBJECT (d), "format", r->format);
  g_object_set (d, "pt", FEC_PT, NULL);
  r->decoders++;
  return d;
}

static GstElement *
request_fec_decoder_full (GstElement * rtpbin, guint session, guint ssrc,
    guint pt, Run * r)
{
  GstElement *d = make_fecdec (r);

  if (pt == MEDIA_PT && !r->fecdec)
    r->fecdec = gst_object_ref (d);
  return d;
}

static GstElement *
request_fec_decoder (GstElement * rtpbin, guint session, Run * r)
{
  GstElement *d = make_fecdec (r);

  /* The legacy signal says nothing about the stream: the first one rtpbin
   * asks for is the media's (the repair payload type is dropped). */
  if (!r->fecdec)
    r->fecdec = gst_object_ref (d);
  return d;
}

static void
link_new_pad (GstElement * e, GstPad * pad, GstElement * pipeline,
    const gchar * desc)
{
  GstElement *bin = gst_parse_bin_from_description (desc, TRUE, NULL);
  GstPad *sinkpad;

  gst_bin_add (GST_BIN (pipeline), bin);
  sinkpad = gst_element_get_static_pad (bin, "sink");
  fail_unless_equals_int (gst_pad_link (pad, sinkpad), GST_PAD_LINK_OK);
  gst_object_unref (sinkpad);
  gst_element_sync_state_with_parent (bin);
}

static void
on_rcv_pad (GstElement * rtpbin, GstPad * pad, Run * r)
{
  gchar *suffix = g_strdup_printf ("_%u", MEDIA_PT);
  GstElement *depay;
  GstPad *p;

  if (GST_PAD_DIRECTION (pad) != GST_PAD_SRC) {
    g_free (suffix);
    return;
  }
  if (!g_str_has_prefix (GST_PAD_NAME (pad), "recv_rtp_src_") ||
      !g_str_has_suffix (GST_PAD_NAME (pad), suffix)) {
    g_free (suffix);
    link_new_pad (rtpbin, pad, r->pipeline, "fakesink async=false");
    return;
  }
  g_free (suffix);
  depay = gst_element_factory_make ("rtpvp8depay", NULL);
  gst_bin_add (GST_BIN (r->pipeline), depay);
  p = gst_element_get_static_pad (depay, "sink");
  gst_pad_add_probe (p, GST_PAD_PROBE_TYPE_BUFFER,
      (GstPadProbeCallback) at_depay_sink, r, NULL);
  fail_unless_equals_int (gst_pad_link (pad, p), GST_PAD_LINK_OK);
  gst_object_unref (p);
  p = gst_element_get_static_pad (depay, "src");
  gst_pad_add_probe (p, GST_PAD_PROBE_TYPE_BUFFER,
      (GstPadProbeCallback) at_depay_src, r, NULL);
  gst_object_unref (p);
  {
    GstElement *sink = gst_element_factory_make ("fakesink", NULL);
    g_object_set (sink, "async", FALSE, NULL);
    gst_bin_add (GST_BIN (r->pipeline), sink);
    gst_element_link (depay, sink);
    gst_element_sync_state_with_parent (sink);
  }
  gst_element_sync_state_with_parent (depay);
}

/* fec-decoders: repair packets on their own path, media through the
 * dropper. */
static void
on_split_pad (GstElement * split, GstPad * pad, Run * r)
{
  GstElement *net = gst_bin_get_by_name (GST_BIN (r->pipeline), "net");
  GstPad *sinkpad;

  if (g_str_equal (GST_PAD_NAME (pad), "src_100")) {
    sinkpad = gst_element_get_static_pad (r->rcv, "recv_fec_sink_0_0");
  } else {
    sinkpad = gst_element_get_static_pad (net, "sink");
  }
  fail_unless (sinkpad != NULL);
  fail_unless_equals_int (gst_pad_link (pad, sinkpad), GST_PAD_LINK_OK);
  gst_object_unref (sinkpad);
  gst_object_unref (net);
}

static GstElement *
find_factory (GstElement * bin, const gchar * name)
{
  GstIterator *it = gst_bin_iterate_elements (GST_BIN (bin));
  GValue v = G_VALUE_INIT;
  GstElement *found = NULL;

  while (!found && gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&v);
    GstElementFactory *f = gst_element_get_factory (e);
    if (f && g_str_equal (GST_OBJECT_NAME (f), name))
      found = gst_object_ref (e);
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  return found;
}

static void
run (Run * r, GstStructure ** stats)
{
  gchar *enc = r->slot == SLOT_NONE ? g_strdup ("") :
      g_strdup_printf ("fec-encoders=\"fec,0=\\\"fecenc\\ pt\\=%u\\ "
      "format\\=%s\\ overhead\\=20\\\";\"", FEC_PT, r->format);
  /* The media leave the sender through the dropper ("net"); in the
   * SLOT_FEC_DECODERS case the repair packets take a path of their own. */
  const gchar *path = r->slot == SLOT_FEC_DECODERS ?
      "snd.send_rtp_src_0 ! rtpptdemux name=split "
      "identity name=net ! rcv.recv_rtp_sink_0 " :
      "snd.send_rtp_src_0 ! identity name=net ! rcv.recv_rtp_sink_0 ";
  gchar *desc = g_strdup_printf ("rtpbin name=snd %s "
      "videotestsrc is-live=true num-buffers=%u pattern=snow ! "
      "video/x-raw,width=320,height=240,framerate=30/1 ! "
      "vp8enc deadline=1 keyframe-max-dist=30 target-bitrate=600000 ! "
      "rtpvp8pay pt=%u mtu=500 ! snd.send_rtp_sink_0 %s "
      "rtpbin name=rcv latency=%u", enc, N_FRAMES, MEDIA_PT, path,
      LATENCY_MS);
  GError *err = NULL;
  GstElement *net;
  GstPad *pad;
  GstMessage *m;
  GstBus *bus;

  g_free (enc);
  r->pipeline = gst_parse_launch (desc, &err);
  fail_unless (r->pipeline != NULL, "%s", err ? err->message : "");
  g_free (desc);
  r->rcv = gst_bin_get_by_name (GST_BIN (r->pipeline), "rcv");
  g_signal_connect (r->rcv, "request-pt-map", G_CALLBACK (request_pt_map),
      NULL);
  g_signal_connect (r->rcv, "pad-added", G_CALLBACK (on_rcv_pad), r);
  switch (r->slot) {
    case SLOT_REQUEST_FULL:
      g_signal_connect (r->rcv, "request-fec-decoder-full",
          G_CALLBACK (request_fec_decoder_full), r);
      break;
    case SLOT_REQUEST:
      g_signal_connect (r->rcv, "request-fec-decoder",
          G_CALLBACK (request_fec_decoder), r);
      break;
    case SLOT_FEC_DECODERS:
    case SLOT_FEC_DECODERS_SAME_PATH:{
      gchar *s = g_strdup_printf ("fec,0=\"fecdec format=%s pt=%u\";",
          r->format, FEC_PT);
      GstStructure *dec = gst_structure_from_string (s, NULL);
      GstPad *fec_sink;

      g_free (s);
      fail_unless (dec != NULL);
      g_object_set (r->rcv, "fec-decoders", dec, NULL);
      gst_structure_free (dec);
      /* rtpbin 1.22 builds this decoder when the pad is asked for. */
      fec_sink = gst_element_request_pad_simple (r->rcv, "recv_fec_sink_0_0");
      fail_unless (fec_sink != NULL);
      gst_object_unref (fec_sink);
      r->fecdec = find_factory (r->rcv, "fecdec");
      fail_unless (r->fecdec != NULL, "rtpbin built no fecdec");
      r->decoders++;
      if (r->slot == SLOT_FEC_DECODERS) {
        GstElement *split = gst_bin_get_by_name (GST_BIN (r->pipeline),
            "split");
        g_signal_connect (split, "request-pt-map",
            G_CALLBACK (split_pt_map), NULL);
        g_signal_connect (split, "pad-added", G_CALLBACK (on_split_pad), r);
        gst_object_unref (split);
      }
      break;
    }
    case SLOT_NONE:
      break;
  }
  net = gst_bin_get_by_name (GST_BIN (r->pipeline), "net");
  pad = gst_element_get_static_pad (net, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
      (GstPadProbeCallback) dropper, r, NULL);
  gst_object_unref (pad);
  gst_object_unref (net);
  if (r->slot == SLOT_FEC_DECODERS) {
    /* Count the repair packets too, on their own path. */
    GstPad *fec_sink = gst_element_get_static_pad (r->rcv,
        "recv_fec_sink_0_0");
    gst_pad_add_probe (fec_sink, GST_PAD_PROBE_TYPE_BUFFER,
        (GstPadProbeCallback) dropper, r, NULL);
    gst_object_unref (fec_sink);
  }

  fail_if (gst_element_set_state (r->pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  bus = gst_element_get_bus (r->pipeline);
  /* Until EOS, or an error from fecdec (kept in r->told, as is its first
   * warning); any other error fails. */
  for (;;) {
    GstMessageType type;

    m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    fail_unless (m != NULL, "no EOS");
    type = GST_MESSAGE_TYPE (m);
    if (type != GST_MESSAGE_EOS && !r->told && r->fecdec &&
        GST_MESSAGE_SRC (m) == GST_OBJECT (r->fecdec)) {
      r->told = m;
      if (type == GST_MESSAGE_ERROR)
        break;
      continue;
    }
    if (type == GST_MESSAGE_ERROR) {
      GError *e;
      gchar *dbg;
      gst_message_parse_error (m, &e, &dbg);
      fail ("error from %s: %s (%s)", GST_OBJECT_NAME (GST_MESSAGE_SRC (m)),
          e->message, dbg);
    }
    gst_message_unref (m);
    if (type == GST_MESSAGE_EOS)
      break;
  }
  if (r->fecdec && stats)
    g_object_get (r->fecdec, "stats", stats, NULL);
  gst_element_set_state (r->pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_clear_object (&r->fecdec);
  gst_object_unref (r->rcv);
  gst_object_unref (r->pipeline);
}

static void
check_repaired (Slot slot, const gchar * format)
{
  Run *without = g_new0 (Run, 1), *with = g_new0 (Run, 1);
  GstStructure *stats = NULL;
  guint missing_without, missing_with;
  guint64 pushed = 0, recovered = 0;
  const gchar *placement;

  without->slot = SLOT_NONE;
  without->format = format;
  run (without, NULL);
  with->slot = slot;
  with->format = format;
  run (with, &stats);
  fail_unless (stats != NULL);
  missing_without = without->media_sent - without->received;
  missing_with = with->media_sent - with->received;
  GST_INFO ("%s: without FEC %u of %u media packets missing at the "
      "depayloader, %u frames out; with FEC %u of %u missing (%u dropped, "
      "%u repair packets), %u frames out; %u fecdec; %" GST_PTR_FORMAT,
      format, missing_without, without->media_sent, without->frames_out,
      missing_with, with->media_sent, with->dropped, with->fec_sent,
      with->frames_out, with->decoders, stats);

  fail_unless (without->dropped >= 50, "the link must lose packets");
  fail_unless (missing_without >= without->dropped);
  fail_unless (with->decoders >= 1, "rtpbin asked for no decoder");
  fail_unless (with->fec_sent > 0, "no repair packets sent");
  fail_unless (gst_structure_get_uint64 (stats, "recovered-pushed", &pushed));
  fail_unless (gst_structure_get_uint64 (stats, "recovered", &recovered));
  placement = gst_structure_get_string (stats, "placement");
  fail_unless (placement != NULL);
  fail_unless_equals_string (placement, slot == SLOT_FEC_DECODERS ?
      "before-jitterbuffer" : "after-jitterbuffer");
  /* The recovered packets reached the depayloader: (nearly) all the
   * losses are gone. */
  fail_unless (pushed > 0);
  fail_unless (missing_with * 5 <= missing_without, "%u media packets "
      "missing with FEC, %u without", missing_with, missing_without);
  fail_unless (with->frames_out > without->frames_out, "%u frames with FEC, "
      "%u without", with->frames_out, without->frames_out);

  gst_structure_free (stats);
  g_free (with);
  g_free (without);
}

GST_START_TEST (test_request_fec_decoder_full_ulpfec)
{
  check_repaired (SLOT_REQUEST_FULL, "ulpfec");
}

GST_END_TEST;

GST_START_TEST (test_request_fec_decoder_flexfec)
{
  check_repaired (SLOT_REQUEST, "flexfec");
}

GST_END_TEST;

GST_START_TEST (test_fec_decoders_flexfec_own_path)
{
  check_repaired (SLOT_FEC_DECODERS, "flexfec");
}

GST_END_TEST;

/* fecdec's message names the way out: the request-fec-decoder signal and
 * recv_fec_sink. */
static void
check_told (GstMessage * m, GstMessageType type)
{
  GError *e = NULL;
  gchar *dbg = NULL;

  fail_unless (m != NULL, "fecdec posted nothing");
  fail_unless_equals_int (GST_MESSAGE_TYPE (m), type);
  if (type == GST_MESSAGE_ERROR)
    gst_message_parse_error (m, &e, &dbg);
  else
    gst_message_parse_warning (m, &e, &dbg);
  GST_INFO ("fecdec: %s (%s)", e->message, dbg);
  fail_unless (strstr (e->message, "fec-decoders slot") != NULL);
  fail_unless (strstr (e->message, "request-fec-decoder") != NULL);
  fail_unless (strstr (e->message, "recv_fec_sink") != NULL);
  g_error_free (e);
  g_free (dbg);
}

/* Flexfec on its own SSRC, sent with the media, into fec-decoders: rtpbin
 * 1.22 links fecdec to the first SSRC (the media's) only. fecdec drops the
 * repair SSRC with a warning; the media go on to EOS, unrepaired. */
GST_START_TEST (test_fec_decoders_flexfec_same_path)
{
  Run *r = g_new0 (Run, 1);
  GstStructure *stats = NULL;
  guint64 fec_received = 1;

  r->slot = SLOT_FEC_DECODERS_SAME_PATH;
  r->format = "flexfec";
  run (r, &stats);
  check_told (r->told, GST_MESSAGE_WARNING);
  fail_unless (r->fec_sent > 0);
  /* The media went on long after the first repair packet (the 6th
   * packet), and no repair packet reached fecdec. */
  fail_unless (r->received > WARMUP_PACKETS, "%u media packets received",
      r->received);
  fail_unless (r->frames_out > 0);
  fail_unless (gst_structure_get_uint64 (stats, "fec-received",
          &fec_received));
  fail_unless_equals_uint64 (fec_received, 0);
  gst_structure_free (stats);
  gst_message_unref (r->told);
  g_free (r);
}

GST_END_TEST;

/* The same with the repair SSRC first at the receiver (a receiver that
 * joins after the sender can see a repair packet first): then the media
 * are the SSRC rtpbin cannot link, and fecdec posts an error that says so. */
GST_START_TEST (test_fec_decoders_flexfec_repair_first)
{
  Run *r = g_new0 (Run, 1);

  r->slot = SLOT_FEC_DECODERS_SAME_PATH;
  r->format = "flexfec";
  r->repair_first = TRUE;
  run (r, NULL);
  check_told (r->told, GST_MESSAGE_ERROR);
  gst_message_unref (r->told);
  g_free (r);
}

GST_END_TEST;

static Suite *
fec_rtpbin_suite (void)
{
  Suite *s = suite_create ("fec_rtpbin");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_request_fec_decoder_full_ulpfec);
  tcase_add_test (tc, test_request_fec_decoder_flexfec);
  tcase_add_test (tc, test_fec_decoders_flexfec_own_path);
  tcase_add_test (tc, test_fec_decoders_flexfec_same_path);
  tcase_add_test (tc, test_fec_decoders_flexfec_repair_first);
  return s;
}

GST_CHECK_MAIN (fec_rtpbin);
