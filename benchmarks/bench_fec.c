/* Benchmark (not a test): fecenc/fecdec side by side with GStreamer's
 * rtpulpfecenc/rtpulpfecdec in one run, all at 20 % overhead, through
 * a bare pad rig:
 *  - CPU per media packet to encode (1200-byte packets, 10 per frame);
 *  - CPU per media packet to decode, and the loss left after repair, for
 *    1 % and 5 % random loss and for bursty loss (Gilbert-Elliott: 1 % chance
 *    to enter a burst, 30 % to leave it, every packet in a burst lost:
 *    ~3 % loss in bursts of ~3.3).
 * rtpulpfecdec is driven as it is built to be: rtpstorage upstream and a
 * GstRTPPacketLost event per lost packet, sent 30 packets after the loss
 * (a jitterbuffer's latency later). Loss patterns come from seeded
 * generators, the same for every contender.
 *
 * Usage: bench_fec [media-packets]   (GST_PLUGIN_PATH=build/gst)
 *        bench_fec enc|dec NAME [media-packets]
 * The second form only encodes (or decodes, at 5 % random loss) with the
 * contender whose name contains NAME; the measured part is push_all()
 * (decode_all(), which GCC may clone under a suffixed name), so
 *   valgrind --tool=callgrind --toggle-collect=push_all bench_fec enc ...
 *   valgrind --tool=callgrind --toggle-collect='decode_all*' bench_fec dec ...
 * count the instructions of the rig and the element alone; the "bare rig"
 * contender (no element) is what to subtract. */
#include <gst/gst.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include "rc-fec.h"

#define PKT 1200                /* bytes per media packet */
#define FRAME 10                /* packets per frame */
#define FEC_PT 100
#define CAPS "application/x-rtp,media=video,clock-rate=90000," \
  "encoding-name=VP8,payload=96,ssrc=(uint)1234"
#define LOST_EVENT_LAG 30       /* packets between a loss and its event */

static gdouble
cpu_seconds (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Media packet `i`; the payload starts with i (32 bits) so a packet can
 * be recognised after any renumbering. */
static GstBuffer *
media_new (guint i)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  GstBuffer *b = gst_rtp_buffer_new_allocate (PKT - 12, 0, 0);
  guint8 *p;

  gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp);
  gst_rtp_buffer_set_ssrc (&rtp, 1234);
  gst_rtp_buffer_set_seq (&rtp, (guint16) i);
  gst_rtp_buffer_set_timestamp (&rtp, (i / FRAME) * 3000u);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  gst_rtp_buffer_set_marker (&rtp, i % FRAME == FRAME - 1);
  p = gst_rtp_buffer_get_payload (&rtp);
  memset (p, i & 0xff, PKT - 12);
  GST_WRITE_UINT32_BE (p, i);
  gst_rtp_buffer_unmap (&rtp);
  GST_BUFFER_PTS (b) = (guint64) i * GST_MSECOND;
  return b;
}

static guint8
pt_of (GstBuffer * b)
{
  guint8 h[2];
  gst_buffer_extract (b, 0, h, 2);
  return h[1] & 0x7f;
}

static guint32
media_index (GstBuffer * b)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  guint32 i;
  gst_rtp_buffer_map (b, GST_MAP_READ, &rtp);
  i = GST_READ_UINT32_BE (gst_rtp_buffer_get_payload (&rtp));
  gst_rtp_buffer_unmap (&rtp);
  return i;
}

/* A bare test rig: our own src pad -> element(s) -> our own sink pad,
 * whose chain function keeps or drops what comes out. Far cheaper per
 * buffer than GstHarness, so the elements' own cost shows. */
typedef struct
{
  GstElement *bin;
  GstPad *src, *sink;
  GPtrArray *got;               /* NULL: drop output */
} Rig;

static GstFlowReturn
rig_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  Rig *r = g_object_get_data (G_OBJECT (pad), "rig");
  if (r->got)
    g_ptr_array_add (r->got, buf);
  else
    gst_buffer_unref (buf);
  return GST_FLOW_OK;
}

static Rig *
rig_new (const gchar * desc, GPtrArray * got)
{
  Rig *r = g_new0 (Rig, 1);
  GError *err = NULL;
  GstPad *p;
  GstSegment seg;

  r->got = got;
  r->src = gst_pad_new ("src", GST_PAD_SRC);
  r->sink = gst_pad_new ("sink", GST_PAD_SINK);
  g_object_set_data (G_OBJECT (r->sink), "rig", r);
  gst_pad_set_chain_function (r->sink, rig_chain);
  if (*desc) {
    /* The bin only holds the elements; the rig's pads (no parent) link
     * straight to the first and last element, with no ghost pads whose
     * hops every contender would pay. */
    r->bin = gst_parse_bin_from_description (desc, FALSE, &err);
    g_assert (r->bin);
    p = gst_bin_find_unlinked_pad (GST_BIN (r->bin), GST_PAD_SINK);
    g_assert (gst_pad_link (r->src, p) == GST_PAD_LINK_OK);
    gst_object_unref (p);
    p = gst_bin_find_unlinked_pad (GST_BIN (r->bin), GST_PAD_SRC);
    g_assert (gst_pad_link (p, r->sink) == GST_PAD_LINK_OK);
    gst_object_unref (p);
  } else {
    /* No element at all: what the rig itself costs. */
    gst_pad_link (r->src, r->sink);
  }
  gst_pad_set_active (r->src, TRUE);
  gst_pad_set_active (r->sink, TRUE);
  if (r->bin)
    gst_element_set_state (r->bin, GST_STATE_PLAYING);
  gst_pad_push_event (r->src, gst_event_new_stream_start ("bench"));
  gst_pad_push_event (r->src, gst_event_new_caps (gst_caps_from_string
          (CAPS)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_pad_push_event (r->src, gst_event_new_segment (&seg));
  return r;
}

static void
rig_free (Rig * r)
{
  if (r->bin)
    gst_element_set_state (r->bin, GST_STATE_NULL);
  gst_pad_set_active (r->src, FALSE);
  gst_pad_set_active (r->sink, FALSE);
  if (r->bin)
    gst_object_unref (r->bin);
  gst_object_unref (r->src);
  gst_object_unref (r->sink);
  g_free (r);
}

/* Not inlined: callgrind's --toggle-collect target. */
static G_GNUC_NO_INLINE void
push_all (GstPad * src, GPtrArray * in)
{
  guint i;

  for (i = 0; i < in->len; i++)
    gst_pad_push (src, in->pdata[i]);
}

/* Encodes n media packets; returns the stream. With `timed`, the output
 * is dropped as it comes (as a sink would; so buffer pools recycle) and
 * only the CPU per packet is measured. */
static GPtrArray *
encode (const gchar * desc, guint n, gboolean timed, gdouble * us_per_pkt,
    guint * n_fec)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  Rig *r = rig_new (desc, timed ? NULL : out);
  GPtrArray *in = g_ptr_array_new ();
  gdouble t0;
  guint i;

  for (i = 0; i < n; i++)
    g_ptr_array_add (in, media_new (i));
  t0 = cpu_seconds ();
  push_all (r->src, in);
  if (timed)
    *us_per_pkt = (cpu_seconds () - t0) * 1e6 / n;
  *n_fec = 0;
  for (i = 0; i < out->len; i++)
    if (pt_of (out->pdata[i]) == FEC_PT)
      (*n_fec)++;
  g_ptr_array_unref (in);
  rig_free (r);
  return out;
}

typedef enum
{ LOSS_RANDOM, LOSS_BURSTY } LossKind;

/* One loss decision per packet on the wire (media or repair). */
static GArray *
loss_pattern (guint n, LossKind kind, gdouble p, guint32 seed)
{
  GArray *a = g_array_sized_new (FALSE, FALSE, sizeof (gboolean), n);
  GRand *r = g_rand_new_with_seed (seed);
  gboolean bad = FALSE;
  guint i;

  for (i = 0; i < n; i++) {
    gboolean lost;
    if (kind == LOSS_RANDOM) {
      lost = g_rand_double (r) < p;
    } else {
      /* Gilbert-Elliott transitions (see the header). */
      bad = bad ? g_rand_double (r) >= 0.30 : g_rand_double (r) < 0.01;
      lost = bad;
    }
    g_array_append_val (a, lost);
  }
  g_rand_free (r);
  return a;
}

typedef struct
{
  gdouble us_per_pkt;
  gdouble loss_before, loss_after;
} DecResult;

static void decode_all (Rig * rig, gboolean lost_events, GPtrArray * stream,
    GPtrArray * in, GArray * in_idx, GArray * pending, guint8 * seen,
    guint n_media, guint * got_out);

/* Delivers `stream` through `desc` with the losses in `lost`; for
 * rtpulpfecdec, sends lost events. */
static DecResult
decode (const gchar * desc, gboolean lost_events, GPtrArray * stream,
    GArray * lost, guint n_media)
{
  GPtrArray *outb = g_ptr_array_new ();
  Rig *rig = rig_new (desc, outb);
  guint8 *seen = g_new0 (guint8, n_media);
  GArray *pending = g_array_new (FALSE, FALSE, sizeof (guint));
  GPtrArray *in = g_ptr_array_new ();
  GArray *in_idx = g_array_new (FALSE, FALSE, sizeof (guint));
  DecResult res = { 0, };
  guint i, lost_media = 0, got = 0;
  GstBuffer *b;
  gdouble t0;

  /* Prepare refs outside the timed part. */
  for (i = 0; i < stream->len; i++) {
    gboolean l = g_array_index (lost, gboolean, i % lost->len);
    b = stream->pdata[i];
    if (l) {
      if (pt_of (b) != FEC_PT) {
        lost_media++;
        g_array_append_val (pending, i);
      }
      continue;
    }
    g_ptr_array_add (in, gst_buffer_ref (b));
    g_array_append_val (in_idx, i);
  }

  t0 = cpu_seconds ();
  decode_all (rig, lost_events, stream, in, in_idx, pending, seen, n_media,
      &got);
  res.us_per_pkt = (cpu_seconds () - t0) * 1e6 / n_media;
  res.loss_before = (gdouble) lost_media / n_media;
  res.loss_after = (gdouble) (n_media - got) / n_media;

  rig_free (rig);
  for (i = 0; i < outb->len; i++)
    gst_buffer_unref (outb->pdata[i]);
  g_ptr_array_unref (outb);
  g_ptr_array_unref (in);
  g_array_unref (in_idx);
  g_array_unref (pending);
  g_free (seen);
  return res;
}

/* Not inlined: callgrind's --toggle-collect target. */
static G_GNUC_NO_INLINE void
decode_all (Rig * rig, gboolean lost_events, GPtrArray * stream,
    GPtrArray * in, GArray * in_idx, GArray * pending, guint8 * seen,
    guint n_media, guint * got_out)
{
  GPtrArray *outb = rig->got;
  guint i, got = 0;
  GstBuffer *b;

  {
    guint next_lost = 0, k;
    for (i = 0; i < in->len; i++) {
      guint si = g_array_index (in_idx, guint, i);
      gst_pad_push (rig->src, in->pdata[i]);
      while (lost_events && next_lost < pending->len &&
          g_array_index (pending, guint, next_lost) + LOST_EVENT_LAG < si) {
        GstBuffer *lb = stream->pdata[g_array_index (pending, guint,
                next_lost++)];
        GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
        guint seq;
        gst_rtp_buffer_map (lb, GST_MAP_READ, &rtp);
        seq = gst_rtp_buffer_get_seq (&rtp);
        gst_rtp_buffer_unmap (&rtp);
        gst_pad_push_event (rig->src, gst_event_new_custom
            (GST_EVENT_CUSTOM_DOWNSTREAM, gst_structure_new
                ("GstRTPPacketLost", "seqnum", G_TYPE_UINT, seq,
                    "timestamp", G_TYPE_UINT64, GST_BUFFER_PTS (lb),
                    "duration", G_TYPE_UINT64, (guint64) 0,
                    "retry", G_TYPE_UINT, 0, NULL)));
      }
      for (k = 0; k < outb->len; k++) {
        b = outb->pdata[k];
        if (pt_of (b) != FEC_PT) {
          guint32 mi = media_index (b);
          if (mi < n_media && !seen[mi]) {
            seen[mi] = 1;
            got++;
          }
        }
        gst_buffer_unref (b);
      }
      g_ptr_array_set_size (outb, 0);
    }
  }
  *got_out = got;
}

typedef struct
{
  const gchar *name;
  const gchar *enc;
  const gchar *dec;
  gboolean lost_events;
} Contender;

static const Contender contenders[] = {
  /* The rig itself (push, refcounting, freeing the packets): subtract it
   * to see what an element costs; identity is the cheapest element. */
  {"bare rig (no element)", "", "", FALSE},
  {"identity", "identity", "identity", FALSE},
  {"rtpulpfecenc/dec (ULPFEC)", "rtpulpfecenc pt=100 percentage=20",
      "rtpstorage size-time=500000000 ! rtpulpfecdec pt=100", TRUE},
  {"fecenc/dec ulpfec flexible", "fecenc pt=100 format=ulpfec "
        "mode=flexible overhead=20", "fecdec pt=100 format=ulpfec", FALSE},
  {"fecenc/dec flexfec row", "fecenc pt=100 mode=row overhead=20",
      "fecdec pt=100", FALSE},
  {"fecenc/dec flexfec column", "fecenc pt=100 mode=column columns=10 "
        "overhead=20", "fecdec pt=100", FALSE},
  {"fecenc/dec flexfec 2d", "fecenc pt=100 mode=2d overhead=20",
      "fecdec pt=100", FALSE},
};

/* The XOR path alone, against memcpy over the same bytes (GB/s), on
 * cache-resident 1200-byte packets as the codec sees them. */
static void
xor_speed (void)
{
  guint8 *a = g_malloc (PKT), *b = g_malloc (PKT);
  const guint reps = 2000000;
  gdouble t0, t_xor, t_cpy;
  guint i;

  memset (a, 1, PKT);
  memset (b, 2, PKT);
  t0 = cpu_seconds ();
  for (i = 0; i < reps; i++)
    rc_fec_xor (a, b + (i & 7), PKT - 8);
  t_xor = cpu_seconds () - t0;
  t0 = cpu_seconds ();
  for (i = 0; i < reps; i++) {
    memcpy (a, b + (i & 7), PKT - 8);
    __asm__ __volatile__ ("":::"memory");
  }
  t_cpy = cpu_seconds () - t0;
  g_print ("XOR %.1f GB/s (%.0f ns per packet), memcpy %.1f GB/s "
      "(checksum %u)\n", reps * (PKT - 8) / t_xor / 1e9,
      t_xor * 1e9 / reps, reps * (PKT - 8) / t_cpy / 1e9, a[5]);
  g_free (a);
  g_free (b);
}

int
main (int argc, char **argv)
{
  guint n = argc > 1 ? (guint) atoi (argv[1]) : 100000;
  struct
  {
    const gchar *name;
    LossKind kind;
    gdouble p;
  } losses[] = {
    {"1% random", LOSS_RANDOM, 0.01},
    {"5% random", LOSS_RANDOM, 0.05},
    {"bursty ~3%", LOSS_BURSTY, 0},
  };
  guint c, l;

  gst_init (&argc, &argv);
  if (argc > 2 && g_str_equal (argv[1], "enc")) {
    n = argc > 3 ? (guint) atoi (argv[3]) : 100000;
    for (c = 0; c < G_N_ELEMENTS (contenders); c++)
      if (strstr (contenders[c].name, argv[2])) {
        gdouble us;
        guint n_fec;
        g_ptr_array_unref (encode (contenders[c].enc, n, TRUE, &us, &n_fec));
        g_print ("%s: %.3f us per media packet\n", contenders[c].name, us);
        return 0;
      }
    g_printerr ("no contender named like '%s'\n", argv[2]);
    return 1;
  }
  if (argc > 2 && g_str_equal (argv[1], "dec")) {
    n = argc > 3 ? (guint) atoi (argv[3]) : 100000;
    for (c = 0; c < G_N_ELEMENTS (contenders); c++)
      if (strstr (contenders[c].name, argv[2])) {
        guint n_fec;
        GPtrArray *stream = encode (contenders[c].enc, n, FALSE, NULL,
            &n_fec);
        GArray *pat = loss_pattern (stream->len, LOSS_RANDOM, 0.05, 1001);
        DecResult r = decode (contenders[c].dec, contenders[c].lost_events,
            stream, pat, n);
        g_print ("%s: %.3f us per media packet, loss %.3f%% -> %.3f%%\n",
            contenders[c].name, r.us_per_pkt, 100 * r.loss_before,
            100 * r.loss_after);
        g_array_unref (pat);
        g_ptr_array_unref (stream);
        return 0;
      }
    g_printerr ("no contender named like '%s'\n", argv[2]);
    return 1;
  }
  n -= n % 100;
  xor_speed ();
  g_print ("%u media packets of %u bytes, %u per frame, FEC overhead 20 %%\n"
      "%-28s %9s %8s %8s", n, PKT, FRAME, "contender", "enc us/p",
      "fec/med", "dec us/p");
  for (l = 0; l < G_N_ELEMENTS (losses); l++)
    g_print (" %10s %-10s", "", losses[l].name);
  g_print ("\n%-28s %9s %8s %8s", "", "", "", "");
  for (l = 0; l < G_N_ELEMENTS (losses); l++)
    g_print (" %10s %10s", "before", "after");
  g_print ("\n");

  for (c = 0; c < G_N_ELEMENTS (contenders); c++) {
    const Contender *ct = &contenders[c];
    gdouble enc_us, dec_us = 0;
    guint n_fec;
    GPtrArray *stream;
    DecResult r[G_N_ELEMENTS (losses)];

    g_ptr_array_unref (encode (ct->enc, n, TRUE, &enc_us, &n_fec));
    stream = encode (ct->enc, n, FALSE, NULL, &n_fec);

    for (l = 0; l < G_N_ELEMENTS (losses); l++) {
      GArray *pat = loss_pattern (stream->len, losses[l].kind, losses[l].p,
          1000 + l);
      r[l] = decode (ct->dec, ct->lost_events, stream, pat, n);
      dec_us += r[l].us_per_pkt;
      g_array_unref (pat);
    }
    g_print ("%-28s %9.3f %8.3f %8.3f", ct->name, enc_us,
        (gdouble) n_fec / n, dec_us / G_N_ELEMENTS (losses));
    for (l = 0; l < G_N_ELEMENTS (losses); l++)
      g_print (" %9.3f%% %9.3f%%", 100 * r[l].loss_before,
          100 * r[l].loss_after);
    g_print ("\n");
    g_ptr_array_unref (stream);
  }
  return 0;
}
