/* GstHarness + GstTestClock tests for the urcpsender element.
 *
 * Time is the harness' test clock: the element's running time is
 * gst_element_get_current_running_time(), i.e. the test clock time (a lone
 * element has base time 0). With pacing on, packets are released by a task
 * that waits on that clock, so the tests crank clock waits one by one; with
 * pacing off every pushed buffer comes out synchronously.
 *
 * Transport-wide feedback is injected as GStreamer's rtpsession sends it: an
 * upstream custom event "RTPTWCCPackets" whose "packets" field is a
 * GValueArray of "RTPTWCCPacket" structures.
 */
/* GValueArray is what rtpsession sends; it is deprecated in GLib. */
#define GLIB_DISABLE_DEPRECATION_WARNINGS

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/check/gsttestclock.h>
#include <gst/rtp/gstrtpbuffer.h>
#include "rc-controller.h"

#define TWCC_URI \
  "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
#define CAPS_NO_TWCC "application/x-rtp,media=video,clock-rate=90000," \
  "encoding-name=VP8,payload=96,ssrc=(uint)1234"
#define CAPS_TWCC CAPS_NO_TWCC ",extmap-1=(string)\"" TWCC_URI "\""

#define SSRC 1234
#define PKT_SIZE 1200           /* bytes, RTP header included */
#define MS GST_MSECOND
/* A clean path: 50 ms one way, the receiver's clock 7 s ahead. */
#define CLEAN_OWD (7 * GST_SECOND + 50 * MS)

/* Element defaults (rc_config_init_defaults and gsturcpsender.c). */
#define DEF_MIN_BPS 50000
#define DEF_START_BPS 300000
#define DEF_MAX_BPS 20000000
#define DEF_PACING_FACTOR 1.5
#define DEF_MAX_QUEUE_TIME (250 * MS)

/* ------------------------------------------------------------- helpers */

/* A valid RTP packet of `total_size` bytes with a payload derived from
 * `seq`, so a packet can be recognised and compared byte for byte. */
static GstBuffer *
rtp_buffer_new (guint16 seq, guint total_size)
{
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  GstBuffer *buf;
  guint8 *payload;
  guint i, plen;

  g_assert (total_size > 12);
  plen = total_size - 12;
  buf = gst_rtp_buffer_new_allocate (plen, 0, 0);
  fail_unless (gst_rtp_buffer_map (buf, GST_MAP_WRITE, &rtp));
  gst_rtp_buffer_set_ssrc (&rtp, SSRC);
  gst_rtp_buffer_set_seq (&rtp, seq);
  gst_rtp_buffer_set_timestamp (&rtp, (guint32) seq * 3000u);
  gst_rtp_buffer_set_payload_type (&rtp, 96);
  payload = gst_rtp_buffer_get_payload (&rtp);
  for (i = 0; i < plen; i++)
    payload[i] = (guint8) (seq * 7 + i);
  gst_rtp_buffer_unmap (&rtp);
  fail_unless_equals_int (gst_buffer_get_size (buf), total_size);
  return buf;
}

/* `buf` is exactly the packet rtp_buffer_new (seq, size) builds. */
static void
check_rtp_buffer (GstBuffer * buf, guint16 seq, guint total_size)
{
  GstBuffer *expect = rtp_buffer_new (seq, total_size);
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
  GstMapInfo map;

  fail_unless (buf != NULL);
  fail_unless_equals_int (gst_buffer_get_size (buf), total_size);
  fail_unless (gst_rtp_buffer_map (buf, GST_MAP_READ, &rtp));
  fail_unless_equals_int (gst_rtp_buffer_get_seq (&rtp), seq);
  fail_unless_equals_int (gst_rtp_buffer_get_ssrc (&rtp), SSRC);
  gst_rtp_buffer_unmap (&rtp);
  fail_unless (gst_buffer_map (expect, &map, GST_MAP_READ));
  fail_unless (gst_buffer_memcmp (buf, 0, map.data, map.size) == 0,
      "packet %u changed on its way through", seq);
  gst_buffer_unmap (expect, &map);
  gst_buffer_unref (expect);
}

/* If set, sender_harness_new() gives the element this bus first, so the
 * messages of its start and of the caps reach the test. */
static GstBus *harness_bus;

/* Properties are applied before the harness takes the element to PLAYING:
 * the controller copies its configuration at READY -> PAUSED. */
static void
app_follows_target (GObject * obj, GParamSpec * pspec, gpointer user_data)
{
}

static GstHarness *
sender_harness_new (const gchar * caps, const gchar * first_prop, ...)
{
  GstElement *e = gst_element_factory_make ("urcpsender", NULL);
  GstHarness *h;
  va_list ap;

  fail_unless (e != NULL, "urcpsender not found; GST_PLUGIN_PATH?");
  if (harness_bus)
    gst_element_set_bus (e, harness_bus);
  /* Each feedback event reaches the controller as it comes, so the tests
   * see its effect at once, and no gather wait sits among the clock waits
   * they crank (test_feedback_gathered checks the default). */
  g_object_set (e, "feedback-gather-time", (guint64) 0, NULL);
  if (first_prop) {
    va_start (ap, first_prop);
    g_object_set_valist (G_OBJECT (e), first_prop, ap);
    va_end (ap);
  }
  /* There is no encoder in a harness: these tests play an application
   * that follows target-bitrate itself (else urcpsender says on the bus
   * that nothing follows it; test_no_encoder). */
  g_signal_connect (e, "notify::target-bitrate", G_CALLBACK (app_follows_target),
      NULL);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  if (caps)
    gst_harness_set_src_caps_str (h, caps);
  return h;
}

static GstStructure *
get_stats (GstElement * e)
{
  GstStructure *s = NULL;

  g_object_get (e, "stats", &s, NULL);
  fail_unless (s != NULL, "stats is NULL");
  return s;
}

static guint64
stats_u64 (GstElement * e, const gchar * field)
{
  GstStructure *s = get_stats (e);
  guint64 v = 0;

  fail_unless (gst_structure_get_uint64 (s, field, &v),
      "stats has no guint64 '%s': %" GST_PTR_FORMAT, field, s);
  gst_structure_free (s);
  return v;
}

static gdouble
stats_double (GstElement * e, const gchar * field)
{
  GstStructure *s = get_stats (e);
  gdouble v = 0;

  fail_unless (gst_structure_get_double (s, field, &v),
      "stats has no double '%s': %" GST_PTR_FORMAT, field, s);
  gst_structure_free (s);
  return v;
}

static guint
stats_uint (GstElement * e, const gchar * field)
{
  GstStructure *s = get_stats (e);
  guint v = 0;

  fail_unless (gst_structure_get_uint (s, field, &v),
      "stats has no guint '%s': %" GST_PTR_FORMAT, field, s);
  gst_structure_free (s);
  return v;
}

/* Caller frees. */
static gchar *
stats_string (GstElement * e, const gchar * field)
{
  GstStructure *s = get_stats (e);
  const gchar *v = gst_structure_get_string (s, field);
  gchar *ret;

  fail_unless (v != NULL, "stats has no string '%s': %" GST_PTR_FORMAT,
      field, s);
  ret = g_strdup (v);
  gst_structure_free (s);
  return ret;
}

static void
assert_state (GstElement * e, const gchar * expected)
{
  gchar *st = stats_string (e, "state");
  fail_unless_equals_string (st, expected);
  g_free (st);
}

static guint
target_bitrate (GstElement * e)
{
  guint v = 0;
  g_object_get (e, "target-bitrate", &v, NULL);
  return v;
}

static const gchar *
enum_nick (gpointer obj, const gchar * prop)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (obj),
      prop);
  GEnumValue *ev;
  gint v = -1;

  fail_unless (ps != NULL && G_IS_PARAM_SPEC_ENUM (ps), "%s not an enum",
      prop);
  g_object_get (obj, prop, &v, NULL);
  ev = g_enum_get_value (G_PARAM_SPEC_ENUM (ps)->enum_class, v);
  fail_unless (ev != NULL);
  return ev->value_nick;
}

/* --------------------------------------------------- TWCC feedback events */

enum
{
  OMIT_SEQ = 1 << 0,
  OMIT_LOCAL = 1 << 1,
  OMIT_REMOTE = 1 << 2,
  OMIT_LOST = 1 << 3,
};

/* One feedback entry; seq is guint so that out-of-range values can be
 * sent. */
typedef struct
{
  guint seq;
  GstClockTime local, remote;
  guint size;
  gboolean lost;
  guint omit;
} Fb;

static GstStructure *
fb_structure (const Fb * f)
{
  GstStructure *s = gst_structure_new_empty ("RTPTWCCPacket");

  if (!(f->omit & OMIT_SEQ))
    gst_structure_set (s, "seqnum", G_TYPE_UINT, f->seq, NULL);
  if (!(f->omit & OMIT_LOCAL))
    gst_structure_set (s, "local-ts", G_TYPE_UINT64, f->local, NULL);
  if (!(f->omit & OMIT_REMOTE))
    gst_structure_set (s, "remote-ts", G_TYPE_UINT64, f->remote, NULL);
  gst_structure_set (s, "payload-type", G_TYPE_UCHAR, (guchar) 96,
      "size", G_TYPE_UINT, f->size, NULL);
  if (!(f->omit & OMIT_LOST))
    gst_structure_set (s, "lost", G_TYPE_BOOLEAN, f->lost, NULL);
  return s;
}

/* Takes `s`. */
static void
array_take_structure (GValueArray * arr, GstStructure * s)
{
  GValue v = G_VALUE_INIT;

  g_value_init (&v, GST_TYPE_STRUCTURE);
  g_value_take_boxed (&v, s);
  g_value_array_append (arr, &v);
  g_value_unset (&v);
}

static void
array_append_fb (GValueArray * arr, const Fb * f, guint n)
{
  guint i;
  for (i = 0; i < n; i++)
    array_take_structure (arr, fb_structure (&f[i]));
}

/* Takes `arr`. */
static GstEvent *
twcc_event_take_array (GValueArray * arr)
{
  GstStructure *s = gst_structure_new_empty ("RTPTWCCPackets");
  GValue v = G_VALUE_INIT;

  g_value_init (&v, G_TYPE_VALUE_ARRAY);
  g_value_take_boxed (&v, arr);
  gst_structure_take_value (s, "packets", &v);
  return gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM, s);
}

static GstEvent *
twcc_event_new (const Fb * f, guint n)
{
  GValueArray *arr = g_value_array_new (n);
  array_append_fb (arr, f, n);
  return twcc_event_take_array (arr);
}

/* ------------------------------------------------ sender/receiver model */

/* Drives a harness with pacing off: every packet leaves when pushed, so its
 * TWCC local-ts is the clock time of the push. */
typedef struct
{
  GstHarness *h;
  GstClockTime now;
  guint16 rtp_seq;
  guint16 twcc_seq;
  GArray *pending;              /* Fb sent, not yet acknowledged */
  guint events_sent;
} Sim;

static void
sim_init (Sim * s, GstHarness * h, guint16 first_twcc_seq)
{
  memset (s, 0, sizeof (*s));
  s->h = h;
  s->twcc_seq = first_twcc_seq;
  s->pending = g_array_new (FALSE, TRUE, sizeof (Fb));
}

static void
sim_clear (Sim * s)
{
  g_array_unref (s->pending);
}

static void
sim_set_time (Sim * s, GstClockTime t)
{
  fail_unless (t >= s->now);
  s->now = t;
  fail_unless (gst_harness_set_time (s->h, t));
}

/* Pushes one packet, checks that it passes unchanged at once. */
static void
sim_send (Sim * s, guint size)
{
  GstBuffer *in = rtp_buffer_new (s->rtp_seq, size), *out;
  Fb f = { s->twcc_seq, s->now, GST_CLOCK_TIME_NONE, size, FALSE, 0 };

  gst_buffer_ref (in);
  fail_unless_equals_int (gst_harness_push (s->h, in), GST_FLOW_OK);
  out = gst_harness_try_pull (s->h);
  fail_unless (out == in, "packet %u did not pass through at once",
      s->rtp_seq);
  check_rtp_buffer (out, s->rtp_seq, size);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  g_array_append_val (s->pending, f);
  s->rtp_seq++;
  s->twcc_seq++;
}

/* Acknowledges every pending packet as received `owd` after it was sent
 * (a constant one-way delay: a clean, uncongested path). */
static void
sim_feedback (Sim * s, GstClockTime owd)
{
  Fb *f = (Fb *) s->pending->data;
  guint i;

  if (s->pending->len == 0)
    return;
  for (i = 0; i < s->pending->len; i++)
    f[i].remote = f[i].local + owd;
  fail_unless (gst_harness_push_upstream_event (s->h,
          twcc_event_new (f, s->pending->len)));
  g_array_set_size (s->pending, 0);
  s->events_sent++;
}

/* ================================================== 1. properties, stats */

typedef struct
{
  const gchar *field;
  GType type;
} StatsField;

static const StatsField stats_fields[] = {
  {"controller", G_TYPE_STRING},
  {"state", G_TYPE_STRING},
  {"reason", G_TYPE_STRING},
  {"target-bitrate", G_TYPE_UINT},
  {"delay-bitrate", G_TYPE_UINT},
  {"loss-bitrate", G_TYPE_UINT},
  {"capacity", G_TYPE_UINT},
  {"average-bitrate", G_TYPE_UINT},
  {"delay-noise", G_TYPE_UINT64},
  {"queueing-delay", G_TYPE_UINT64},
  {"self-queue", G_TYPE_UINT64},
  {"operating-point", G_TYPE_DOUBLE},
  {"gain", G_TYPE_DOUBLE},
  {"standing-queue", G_TYPE_UINT64},
  {"loss-noise", G_TYPE_DOUBLE},
  {"loss-average", G_TYPE_DOUBLE},
  {"loss-operating-point", G_TYPE_DOUBLE},
  {"loss-rate", G_TYPE_DOUBLE},
  {"rtt", G_TYPE_UINT64},
  {"rtt-min", G_TYPE_UINT64},
  {"skew-ppm", G_TYPE_DOUBLE},
  {"feedback-count", G_TYPE_UINT64},
  {"packets-acked", G_TYPE_UINT64},
  {"packets-lost", G_TYPE_UINT64},
  {"owd-resets", G_TYPE_UINT64},
  {"twcc-events", G_TYPE_UINT64},
  {"twcc-rejected", G_TYPE_UINT64},
  {"rr-reports", G_TYPE_UINT64},
  {"pacing-queue-packets", G_TYPE_UINT},
  {"pacing-queue-bytes", G_TYPE_UINT64},
  {"pacing-queue-time", G_TYPE_UINT64},
  {"fec-packets-sent", G_TYPE_UINT64},
  {"fec-bitrate", G_TYPE_UINT},
  {"pacing-bitrate", G_TYPE_UINT},
  {"send-bitrate", G_TYPE_UINT},
  {"acked-bitrate", G_TYPE_UINT},
  {"circuit-breaker-trips", G_TYPE_UINT64},
  {"circuit-breaker-dropped", G_TYPE_UINT64},
  {"encoder", G_TYPE_STRING},
  {"rtp-session", G_TYPE_STRING},
};

static void
check_stats_fields (GstElement * e)
{
  GstStructure *s = get_stats (e);
  guint i;

  fail_unless (gst_structure_has_name (s, "application/x-urcpsender-stats"),
      "stats named %s", gst_structure_get_name (s));
  for (i = 0; i < G_N_ELEMENTS (stats_fields); i++) {
    const GValue *v = gst_structure_get_value (s, stats_fields[i].field);
    fail_unless (v != NULL, "stats lacks '%s': %" GST_PTR_FORMAT,
        stats_fields[i].field, s);
    fail_unless (G_VALUE_TYPE (v) == stats_fields[i].type,
        "stats '%s' is %s, expected %s", stats_fields[i].field,
        G_VALUE_TYPE_NAME (v), g_type_name (stats_fields[i].type));
  }
  gst_structure_free (s);
}

GST_START_TEST (test_properties_defaults)
{
  GstElement *e = gst_element_factory_make ("urcpsender", NULL);
  GstElement *enc = (GstElement *) 0x1;
  guint min_bps, start_bps, max_bps;
  gdouble beta, m, factor;
  gboolean pacing, conf;
  guint64 mq;
  GParamSpec *ps;
  gchar *str;

  fail_unless (e != NULL);
  fail_unless_equals_string (enum_nick (e, "controller"), "urcp");
  g_object_get (e, "min-bitrate", &min_bps, "start-bitrate", &start_bps,
      "max-bitrate", &max_bps, "urcp-beta", &beta, "urcp-rtts-to-capacity",
      &m, "pacing", &pacing,
      "pacing-factor", &factor, "max-queue-time", &mq, "encoder", &enc,
      "configure-encoder", &conf, NULL);
  fail_unless_equals_int (min_bps, DEF_MIN_BPS);
  fail_unless_equals_int (start_bps, DEF_START_BPS);
  fail_unless_equals_int (max_bps, DEF_MAX_BPS);
  fail_unless_equals_float (beta, 0.8);
  fail_unless_equals_float (m, 100.0);
  fail_unless (pacing == TRUE);
  fail_unless_equals_float (factor, DEF_PACING_FACTOR);
  fail_unless_equals_uint64 (mq, DEF_MAX_QUEUE_TIME);
  fail_unless (enc == NULL);
  fail_unless (conf == TRUE);
  /* Nothing published before start. */
  fail_unless_equals_int (target_bitrate (e), 0);

  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "target-bitrate");
  fail_unless (ps != NULL);
  fail_unless ((ps->flags & G_PARAM_READABLE) && !(ps->flags &
          G_PARAM_WRITABLE));
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "stats");
  fail_unless (ps != NULL && !(ps->flags & G_PARAM_WRITABLE));

  /* Stats are readable before start and describe the configuration. */
  check_stats_fields (e);
  str = stats_string (e, "controller");
  fail_unless_equals_string (str, "urcp");
  g_free (str);
  assert_state (e, "startup-low");
  fail_unless_equals_uint64 (stats_uint (e, "target-bitrate"), DEF_START_BPS);
  fail_unless_equals_uint64 (stats_u64 (e, "feedback-count"), 0);
  fail_unless_equals_uint64 (stats_u64 (e, "twcc-events"), 0);
  fail_unless_equals_uint64 (stats_u64 (e, "twcc-rejected"), 0);
  fail_unless_equals_int (stats_uint (e, "pacing-queue-packets"), 0);
  fail_unless_equals_uint64 (stats_u64 (e, "pacing-queue-time"), 0);
  str = stats_string (e, "encoder");
  fail_unless_equals_string (str, "");
  g_free (str);

  gst_util_set_object_arg (G_OBJECT (e), "controller", "um");
  str = stats_string (e, "controller");
  fail_unless_equals_string (str, "um");
  g_free (str);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_stats_while_playing)
{
  GstHarness *h = sender_harness_new (CAPS_TWCC, "pacing", FALSE, NULL);
  Sim sim;
  gchar *str;
  guint i;

  check_stats_fields (h->element);
  /* After start the published target is the start bitrate. */
  fail_unless_equals_int (target_bitrate (h->element), DEF_START_BPS);

  sim_init (&sim, h, 0);
  for (i = 0; i < 10; i++) {
    sim_set_time (&sim, i * 10 * MS);
    sim_send (&sim, PKT_SIZE);
  }
  sim_feedback (&sim, 30 * MS);
  check_stats_fields (h->element);
  fail_unless_equals_uint64 (stats_u64 (h->element, "twcc-events"), 1);
  fail_unless_equals_uint64 (stats_u64 (h->element, "feedback-count"), 1);
  fail_unless_equals_uint64 (stats_u64 (h->element, "packets-acked"), 10);
  fail_unless_equals_uint64 (stats_u64 (h->element, "packets-lost"), 0);
  /* RTT sample = feedback arrival (90 ms) - newest acked send time (90 ms). */
  fail_unless (stats_u64 (h->element, "rtt") != GST_CLOCK_TIME_NONE);
  str = stats_string (h->element, "controller");
  fail_unless_equals_string (str, "urcp");
  g_free (str);

  /* One packet each 10 ms, all acknowledged: send-bitrate and
   * acked-bitrate both show 100 x 1200 bytes/s. */
  for (i = 10; i < 300; i++) {
    sim_set_time (&sim, i * 10 * MS);
    sim_send (&sim, PKT_SIZE);
    if (i % 5 == 4)
      sim_feedback (&sim, 30 * MS);
  }
  {
    guint sent = stats_uint (h->element, "send-bitrate");
    guint acked = stats_uint (h->element, "acked-bitrate");
    const guint rate = 100 * PKT_SIZE * 8;
    fail_unless (sent > 0.95 * rate && sent < 1.05 * rate, "send-bitrate %u",
        sent);
    fail_unless (acked > 0.95 * rate && acked < 1.05 * rate,
        "acked-bitrate %u", acked);
  }
  sim_clear (&sim);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The controller enum and the per-controller properties come from the one
 * registry (rc-controller.c), in its order; rcsim --list-controllers prints
 * the same list. */
GST_START_TEST (test_controllers_from_registry)
{
  GstElement *e = gst_element_factory_make ("urcpsender", NULL);
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "controller");
  GEnumClass *ec = G_PARAM_SPEC_ENUM (ps)->enum_class;
  const RcControllerInfo *const *l;
  guint i, j, n, np;

  l = rc_controller_list (&n);
  fail_unless (n >= 2);
  fail_unless_equals_int (ec->n_values, n);
  for (i = 0; i < n; i++) {
    GParamSpec **specs = l[i]->params ? l[i]->params (&np) : NULL;
    GEnumValue *ev = g_enum_get_value (ec, i);

    fail_unless (ev != NULL);
    fail_unless_equals_string (ev->value_nick, l[i]->name);
    for (j = 0; specs && j < np; j++) {
      gchar *key = g_strdup_printf ("%s-%s", l[i]->name,
          g_param_spec_get_name (specs[j]));
      GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
          key);
      GValue def = G_VALUE_INIT, got = G_VALUE_INIT;

      fail_unless (p != NULL, "no property %s", key);
      fail_unless (p->value_type == specs[j]->value_type);
      fail_unless ((p->flags & GST_PARAM_MUTABLE_READY) != 0);
      /* Same default as the controller's own. */
      g_value_init (&def, p->value_type);
      g_value_init (&got, p->value_type);
      g_param_value_set_default (specs[j], &def);
      g_object_get_property (G_OBJECT (e), key, &got);
      fail_unless (gst_value_compare (&def, &got) == GST_VALUE_EQUAL,
          "%s: default differs", key);
      g_value_unset (&def);
      g_value_unset (&got);
      g_free (key);
    }
  }
  gst_object_unref (e);
}

GST_END_TEST;

/* A parameter set on the element reaches the controller it belongs to. */
GST_START_TEST (test_controller_parameter_applies)
{
  GstHarness *h = sender_harness_new (CAPS_TWCC, "pacing", FALSE,
      "controller", 1, "um-operating-point", 8000.0, NULL);
  Sim sim;
  GstClockTime t;
  gdouble k0 = 0;

  fail_unless_equals_string (enum_nick (h->element, "controller"), "um");
  sim_init (&sim, h, 0);
  /* Through start-up into steady state, where UM's k0 is in force. */
  for (t = 0; t <= 8 * GST_SECOND; t += 10 * MS) {
    sim_set_time (&sim, t);
    sim_send (&sim, PKT_SIZE);
    if (t % (50 * MS) == 0)
      sim_feedback (&sim, CLEAN_OWD);
  }
  assert_state (h->element, "steady");
  k0 = stats_double (h->element, "operating-point");
  fail_unless_equals_float (k0, 8000.0);
  sim_clear (&sim);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Writable properties: set, read back the same value. */
static const struct
{
  const gchar *name;
  const gchar *value;
} prop_cases[] = {
  {"controller", "um"},
  {"min-bitrate", "100000"},
  {"start-bitrate", "500000"},
  {"max-bitrate", "3000000"},
  {"urcp-beta", "0.5"},
  {"urcp-rtts-to-capacity", "50"},
  {"um-operating-point", "8000"},
  {"um-gain", "1.2"},
  {"pacing", "false"},
  {"pacing-factor", "2.5"},
  {"max-queue-time", "100000000"},
  {"configure-encoder", "false"},
};

/* READY-only properties are refused while playing: the controller and
 * pacer are built at READY->PAUSED, and flipping pacing with packets queued
 * would reorder them. */
/* A READY-only property set while playing is ignored, and the bus says so;
 * min-bitrate and max-bitrate apply while playing, from the next packet;
 * a min above the max is refused with a warning. */
GST_START_TEST (test_property_ready_only)
{
  GstHarness *h = sender_harness_new (CAPS_TWCC, "max-bitrate", 2000000,
      "start-bitrate", 1000000, "pacing", FALSE, NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  guint max = 0;
  gboolean pacing = TRUE;
  Sim sim;

  gst_element_set_bus (h->element, bus);
  gst_harness_play (h);
  g_object_set (h->element, "pacing", TRUE, NULL);
  g_object_get (h->element, "pacing", &pacing, NULL);
  fail_if (pacing);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning for a READY-only property");
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (strstr (err->message, "'pacing'") != NULL, "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);

  sim_init (&sim, h, 0);
  sim_set_time (&sim, 10 * MS);
  sim_send (&sim, PKT_SIZE);
  fail_unless_equals_int (target_bitrate (h->element), 1000000);
  g_object_set (h->element, "max-bitrate", 600000, NULL);
  g_object_get (h->element, "max-bitrate", &max, NULL);
  fail_unless_equals_int (max, 600000);
  sim_set_time (&sim, 20 * MS);
  sim_send (&sim, PKT_SIZE);
  fail_unless_equals_int (target_bitrate (h->element), 600000);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL);

  /* min above max: refused, the running limits stay. */
  g_object_set (h->element, "min-bitrate", 700000, NULL);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning for min-bitrate above max-bitrate");
  gst_message_unref (msg);
  sim_set_time (&sim, 30 * MS);
  sim_send (&sim, PKT_SIZE);
  fail_unless_equals_int (target_bitrate (h->element), 600000);

  gst_element_set_state (h->element, GST_STATE_READY);
  g_object_set (h->element, "min-bitrate", 50000, "max-bitrate", 900000, NULL);
  g_object_get (h->element, "max-bitrate", &max, NULL);
  fail_unless_equals_int (max, 900000);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  sim_clear (&sim);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Upstream answers: live, 10 ms min, 20 ms max. */
static gboolean
upstream_latency_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) != GST_QUERY_LATENCY)
    return gst_pad_query_default (pad, parent, query);
  gst_query_set_latency (query, TRUE, 10 * MS, 20 * MS);
  return TRUE;
}

/* Pacing may hold a packet up to max-queue-time (and no longer, see
 * test_pacing_queue_bound): the latency query adds it to the maximum. */
GST_START_TEST (test_latency_query)
{
  static const gboolean pacing[] = { TRUE, FALSE };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (pacing); i++) {
    GstHarness *h = sender_harness_new (CAPS_TWCC, "pacing", pacing[i],
        "max-queue-time", (guint64) (120 * MS), NULL);
    GstQuery *q = gst_query_new_latency ();
    gboolean live;
    GstClockTime min, max;

    gst_pad_set_query_function (h->srcpad, upstream_latency_query);
    fail_unless (gst_pad_peer_query (h->sinkpad, q));
    gst_query_parse_latency (q, &live, &min, &max);
    fail_unless (live);
    fail_unless_equals_uint64 (min, 10 * MS);
    fail_unless_equals_uint64 (max, pacing[i] ? 140 * MS : 20 * MS);
    gst_query_unref (q);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

GST_START_TEST (test_property_roundtrip)
{
  GstElement *e = gst_element_factory_make ("urcpsender", NULL);
  const gchar *name = prop_cases[__i__].name;
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      name);
  GValue got = G_VALUE_INIT, want = G_VALUE_INIT;

  fail_unless (ps != NULL, "no property %s", name);
  g_value_init (&want, ps->value_type);
  fail_unless (gst_value_deserialize (&want, prop_cases[__i__].value));
  gst_util_set_object_arg (G_OBJECT (e), name, prop_cases[__i__].value);
  g_value_init (&got, ps->value_type);
  g_object_get_property (G_OBJECT (e), name, &got);
  fail_unless (gst_value_compare (&got, &want) == GST_VALUE_EQUAL,
      "%s: set %s, read back %s", name, prop_cases[__i__].value,
      gst_value_serialize (&got));
  g_value_unset (&got);
  g_value_unset (&want);
  gst_object_unref (e);
}

GST_END_TEST;

/* Repair packets from a fecenc upstream are told apart from media by
 * their SSRC (flexfec) or payload type (ULPFEC) and counted as FEC; they do
 * not change which stream the element thinks is its media. */
GST_START_TEST (test_fec_packets_classified)
{
  GstHarness *h = sender_harness_new (CAPS_TWCC, "pacing", FALSE, NULL);
  static const struct
  {
    guint32 ssrc;
    guint8 pt;
  } pkts[] = { {SSRC, 96}, {4321, 100}, {SSRC, 96}, {SSRC, 100}, {SSRC, 96} };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (pkts); i++) {
    GstBuffer *b = rtp_buffer_new (i, PKT_SIZE);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

    fail_unless (gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp));
    gst_rtp_buffer_set_ssrc (&rtp, pkts[i].ssrc);
    gst_rtp_buffer_set_payload_type (&rtp, pkts[i].pt);
    gst_rtp_buffer_unmap (&rtp);
    fail_unless (gst_harness_set_time (h, i * 10 * MS));
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
  fail_unless_equals_uint64 (stats_u64 (h->element, "fec-packets-sent"), 2);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The media SSRC learned from a stream's first packet belongs to that
 * stream: after READY a new stream (caps without an ssrc, another SSRC) is
 * media again, not taken for repair packets of the old one. */
GST_START_TEST (test_media_ssrc_forgotten_at_ready)
{
  const gchar *caps = "application/x-rtp,media=video,clock-rate=90000,"
      "encoding-name=VP8,payload=96,extmap-1=(string)\"" TWCC_URI "\"";
  GstHarness *h = sender_harness_new (caps, "pacing", FALSE, NULL);
  guint32 ssrcs[] = { 1111, 2222 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (ssrcs); i++) {
    GstBuffer *b = rtp_buffer_new (i, PKT_SIZE);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

    if (i > 0) {
      fail_unless_equals_int (gst_element_set_state (h->element,
              GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
      fail_unless_equals_int (gst_element_set_state (h->element,
              GST_STATE_PLAYING), GST_STATE_CHANGE_SUCCESS);
      fail_unless (gst_harness_push_event (h,
              gst_event_new_stream_start ("second")));
      gst_harness_set_src_caps_str (h, caps);
    }
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_WRITE, &rtp));
    gst_rtp_buffer_set_ssrc (&rtp, ssrcs[i]);
    gst_rtp_buffer_unmap (&rtp);
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
    fail_unless (stats_u64 (h->element, "fec-packets-sent") == 0,
        "stream %u (SSRC %u) taken for repair packets", i, ssrcs[i]);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ==================================================== 2. pacing off */

GST_START_TEST (test_pacing_off_passthrough)
{
  GstHarness *h = sender_harness_new (CAPS_TWCC, "pacing", FALSE, NULL);
  GstTestClock *clock = gst_harness_get_testclock (h);
  GstBuffer *in[100];
  guint i;

  /* A burst far above any pacing rate, all at one instant. */
  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    in[i] = rtp_buffer_new (1000 + i, 100 + 13 * i);
    gst_buffer_ref (in[i]);
    fail_unless_equals_int (gst_harness_push (h, in[i]), GST_FLOW_OK);
  }
  /* Synchronous: everything is out, no clock wait was scheduled. */
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), G_N_ELEMENTS (in));
  fail_unless_equals_int (gst_test_clock_peek_id_count (clock), 0);
  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    GstBuffer *out = gst_harness_pull (h);
    fail_unless (out == in[i], "buffer %u out of order or copied", i);
    check_rtp_buffer (out, 1000 + i, 100 + 13 * i);
    gst_buffer_unref (out);
    gst_buffer_unref (in[i]);
  }
  fail_unless (gst_harness_try_pull (h) == NULL);
  fail_unless_equals_int (stats_uint (h->element, "pacing-queue-packets"), 0);
  gst_object_unref (clock);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ================================================ 3. pacing spreads bursts */

#define BURST_N 20
#define BURST_MQT (100 * MS)

/* Pacing rate (bit/s) the pacer really uses with `queued` bytes waiting:
 * pacing-factor x target, raised so the queue drains within max-queue-time
 * (the property's documented bound). */
static guint64
effective_rate (guint64 pacing_bps, guint64 queued, GstClockTime mqt)
{
  return MAX (pacing_bps, gst_util_uint64_scale (queued * 8, GST_SECOND,
          mqt));
}

/* Pushes a primer packet at t=0 (it leaves at once and occupies the pacer
 * for size*8/pacing-rate), then a burst of n packets also at t=0, so
 * the whole burst is queued before the first of it may leave: the schedule
 * is then deterministic. Releases the burst one clock wait at a time and
 * records the clock time at which each packet came out. */
static void
run_paced_burst (GstHarness * h, guint n, GstClockTime * rel,
    gdouble * queue_ms)
{
  GstTestClock *clock = gst_harness_get_testclock (h);
  GstBuffer *in[BURST_N], *out;
  guint i;

  fail_unless_equals_int (gst_harness_push (h, rtp_buffer_new (0, PKT_SIZE)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  check_rtp_buffer (out, 0, PKT_SIZE);
  gst_buffer_unref (out);

  fail_unless (n <= BURST_N);
  for (i = 0; i < n; i++) {
    in[i] = rtp_buffer_new (1 + i, PKT_SIZE);
    gst_buffer_ref (in[i]);
    fail_unless_equals_int (gst_harness_push (h, in[i]), GST_FLOW_OK);
  }
  /* The pacer now waits on the clock; nothing of the burst is out. */
  fail_unless (gst_harness_wait_for_clock_id_waits (h, 1, 3));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  fail_unless_equals_int (stats_uint (h->element, "pacing-queue-packets"), n);
  fail_unless_equals_uint64 (stats_u64 (h->element, "pacing-queue-bytes"),
      n * PKT_SIZE);
  *queue_ms = (gdouble) stats_u64 (h->element, "pacing-queue-time") /
      GST_MSECOND;

  for (i = 0; i < n; i++) {
    fail_unless (gst_harness_crank_single_clock_wait (h));
    out = gst_harness_pull (h);
    fail_unless (out == in[i], "burst packet %u out of order", i);
    check_rtp_buffer (out, 1 + i, PKT_SIZE);
    rel[i] = gst_clock_get_time (GST_CLOCK (clock));
    gst_buffer_unref (out);
    gst_buffer_unref (in[i]);
    /* One per clock wait: the next one is still held. */
    fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  }
  fail_unless (gst_harness_try_pull (h) == NULL);
  fail_unless_equals_int (stats_uint (h->element, "pacing-queue-packets"), 0);
  fail_unless_equals_uint64 (stats_u64 (h->element, "pacing-queue-bytes"), 0);
  gst_object_unref (clock);
}

GST_START_TEST (test_pacing_spreads_burst)
{
  GstHarness *h = sender_harness_new (CAPS_TWCC,
      "start-bitrate", DEF_START_BPS, "pacing-factor", DEF_PACING_FACTOR,
      "max-queue-time", (guint64) BURST_MQT, NULL);
  guint64 pacing_bps = (guint64) (DEF_START_BPS * DEF_PACING_FACTOR);
  guint64 slot = gst_util_uint64_scale (PKT_SIZE * 8, GST_SECOND, pacing_bps);
  GstClockTime rel[BURST_N];
  gdouble queue_ms;
  guint i;

  fail_unless_equals_uint64 (pacing_bps, 450000);
  run_paced_burst (h, BURST_N, rel, &queue_ms);
  /* All 20 came out, in order, unchanged, one per clock wait (checked in
   * run_paced_burst): smoothed, none dropped. */

  /* 24000 bytes at max(450 kbit/s, 24000*8 bit / 100 ms) drain in 100 ms. */
  fail_unless (queue_ms > 99.5 && queue_ms < 100.5, "pacing-queue-time %f ms",
      queue_ms);
  fail_unless_equals_uint64 (effective_rate (pacing_bps, BURST_N * PKT_SIZE,
          BURST_MQT), 1920000);

  /* The burst starts when the primer's slot at 450 kbit/s ends: 21.33 ms. */
  fail_unless (rel[0] >= slot - 1000 && rel[0] <= slot + 1000,
      "first burst packet at %" GST_TIME_FORMAT, GST_TIME_ARGS (rel[0]));
  for (i = 1; i < BURST_N; i++) {
    GstClockTime gap = rel[i] - rel[i - 1];
    fail_unless (rel[i] > rel[i - 1]);
    /* Spread: no two packets together (1200 B even at the 1.92 Mbit/s the
     * queue bound asks for at the head of the burst take 5 ms; a pacer that
     * aims at the oldest packet's deadline goes a little faster). */
    fail_unless (gap >= 2 * MS, "packets %u, %u only %" GST_TIME_FORMAT
        " apart", i - 1, i, GST_TIME_ARGS (gap));
    /* Never slower than the pacing rate: size*8/450 kbit/s = 21.33 ms. */
    fail_unless (gap <= slot + 100 * GST_USECOND, "packets %u, %u %"
        GST_TIME_FORMAT " apart, slower than the pacing rate", i - 1, i,
        GST_TIME_ARGS (gap));
  }
  /* A burst, smoothed over most of max-queue-time rather than sent at
   * once. (That it is all out within max-queue-time is
   * test_pacing_queue_bound.) */
  fail_unless (rel[BURST_N - 1] - rel[0] >= BURST_MQT / 2);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A burst small enough for the queue bound not to matter (3 x 1200 B drain
 * in 64 ms < 100 ms at 450 kbit/s) leaves at exactly the pacing rate,
 * pacing-factor x start-bitrate: one packet every size*8/450000 s. */
GST_START_TEST (test_pacing_rate_small_burst)
{
  GstHarness *h = sender_harness_new (CAPS_TWCC,
      "start-bitrate", DEF_START_BPS, "pacing-factor", DEF_PACING_FACTOR,
      "max-queue-time", (guint64) BURST_MQT, NULL);
  guint64 slot = gst_util_uint64_scale (PKT_SIZE * 8, GST_SECOND, 450000);
  GstClockTime rel[3];
  gdouble queue_ms;
  guint i;

  run_paced_burst (h, 3, rel, &queue_ms);
  fail_unless (queue_ms > 63.5 && queue_ms < 64.5, "pacing-queue-time %f ms",
      queue_ms);
  for (i = 0; i < 3; i++) {
    GstClockTime want = (i + 1) * slot;
    fail_unless (rel[i] + 100 * GST_USECOND >= want &&
        rel[i] <= want + 100 * GST_USECOND, "packet %u out at %"
        GST_TIME_FORMAT ", expected %" GST_TIME_FORMAT, i,
        GST_TIME_ARGS (rel[i]), GST_TIME_ARGS (want));
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The queue bound: every packet of the burst must leave within
 * max-queue-time of the moment the pacer could start on the burst (the
 * property: "Bound on the pacing queue, as time to drain it"; the element's
 * latency query: "Pacing may hold a packet up to max-queue-time"; and the
 * element's own pacing-queue-time reported 100 ms for this queue). */
GST_START_TEST (test_pacing_queue_bound)
{
  GstHarness *h = sender_harness_new (CAPS_TWCC,
      "max-queue-time", (guint64) BURST_MQT, NULL);
  GstClockTime rel[BURST_N];
  gdouble queue_ms;

  run_paced_burst (h, BURST_N, rel, &queue_ms);
  /* All 20 delivered (checked in run_paced_burst): smoothed, not dropped.
   * The last one leaves at most max-queue-time after the first one, with one
   * packet time at the pacing rate (21.3 ms) of slack. */
  fail_unless (rel[BURST_N - 1] - rel[0] <= BURST_MQT + 22 * MS,
      "last packet of a %u x %u B burst left %" GST_TIME_FORMAT
      " after the first although max-queue-time is %" GST_TIME_FORMAT
      " and pacing-queue-time said %.1f ms", BURST_N, PKT_SIZE,
      GST_TIME_ARGS (rel[BURST_N - 1] - rel[0]), GST_TIME_ARGS (BURST_MQT),
      queue_ms);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Nothing can leave (the test clock does not run, as when downstream
 * blocks): the pacing queue stops at its bound (8192 packets) and the
 * chain function blocks upstream, without dropping; a flush releases it. */
typedef struct
{
  GstHarness *h;
  guint n;
  gint pushed;                  /* atomic */
  GstFlowReturn last;
} Pusher;

static gpointer
push_many (gpointer data)
{
  Pusher *p = data;
  guint i;

  for (i = 0; i < p->n; i++) {
    p->last = gst_harness_push (p->h, rtp_buffer_new (i, 200));
    if (p->last != GST_FLOW_OK)
      break;
    g_atomic_int_inc (&p->pushed);
  }
  return NULL;
}

GST_START_TEST (test_pacing_queue_blocks_upstream)
{
  const guint bound = 8192;
  GstHarness *h = sender_harness_new (CAPS_TWCC, NULL);
  Pusher p = { h, bound + 100, 0, GST_FLOW_OK };
  GThread *t;
  gint before = -1, now, stable = 0, waited;

  t = g_thread_new ("pusher", push_many, &p);
  /* Until the count stops moving for 200 ms (at most 20 s). */
  for (waited = 0; stable < 20 && waited < 2000; waited++) {
    g_usleep (10000);
    now = g_atomic_int_get (&p.pushed);
    stable = now == before ? stable + 1 : 0;
    before = now;
  }
  /* The first packet leaves at once; then the queue fills to the bound
   * and the next push waits. */
  fail_unless_equals_int (stats_uint (h->element, "pacing-queue-packets"),
      bound);
  fail_unless_equals_int (g_atomic_int_get (&p.pushed),
      bound + gst_harness_buffers_in_queue (h));
  fail_unless (g_atomic_int_get (&p.pushed) < (gint) p.n);
  /* A flush lets the blocked push return. */
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  g_thread_join (t);
  fail_unless_equals_int (p.last, GST_FLOW_FLUSHING);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Serialized events keep their place among paced buffers; after EOS the
 * element refuses data. */
GST_START_TEST (test_pacing_eos_after_buffers)
{
  GstHarness *h = sender_harness_new (CAPS_TWCC, NULL);
  GstBuffer *out;
  GstEvent *ev;
  gboolean got_eos = FALSE;
  guint i;

  fail_unless_equals_int (gst_harness_push (h, rtp_buffer_new (0, PKT_SIZE)),
      GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  for (i = 1; i <= 3; i++)
    fail_unless_equals_int (gst_harness_push (h, rtp_buffer_new (i,
                PKT_SIZE)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (gst_harness_wait_for_clock_id_waits (h, 1, 3));
  /* EOS must not overtake the three held packets. */
  while ((ev = gst_harness_try_pull_event (h))) {
    fail_if (GST_EVENT_TYPE (ev) == GST_EVENT_EOS, "EOS overtook buffers");
    gst_event_unref (ev);
  }
  for (i = 1; i <= 3; i++) {
    fail_unless (gst_harness_crank_single_clock_wait (h));
    out = gst_harness_pull (h);
    check_rtp_buffer (out, i, PKT_SIZE);
    gst_buffer_unref (out);
  }
  while (!got_eos && (ev = gst_harness_pull_event (h))) {
    got_eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
    gst_event_unref (ev);
  }
  fail_unless (got_eos);
  fail_unless_equals_int (gst_harness_push (h, rtp_buffer_new (9, PKT_SIZE)),
      GST_FLOW_EOS);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A flush empties the pacing queue; afterwards data flows again. */
GST_START_TEST (test_pacing_flush)
{
  GstHarness *h = sender_harness_new (CAPS_TWCC, NULL);
  GstSegment seg;
  GstBuffer *out;
  guint i;

  fail_unless_equals_int (gst_harness_push (h, rtp_buffer_new (0, PKT_SIZE)),
      GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  for (i = 1; i <= 10; i++)
    fail_unless_equals_int (gst_harness_push (h, rtp_buffer_new (i,
                PKT_SIZE)), GST_FLOW_OK);
  fail_unless (gst_harness_wait_for_clock_id_waits (h, 1, 3));
  fail_unless_equals_int (stats_uint (h->element, "pacing-queue-packets"), 10);

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  fail_unless_equals_int (stats_uint (h->element, "pacing-queue-packets"), 0);
  fail_unless_equals_uint64 (stats_u64 (h->element, "pacing-queue-bytes"), 0);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));

  /* The pacer was reset: a new packet leaves at once. */
  fail_unless_equals_int (gst_harness_push (h, rtp_buffer_new (100,
              PKT_SIZE)), GST_FLOW_OK);
  out = gst_harness_pull (h);
  check_rtp_buffer (out, 100, PKT_SIZE);
  gst_buffer_unref (out);
  fail_unless (gst_harness_try_pull (h) == NULL);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Going to NULL while the pacing task waits on the clock must not hang. */
GST_START_TEST (test_pacing_teardown_while_waiting)
{
  GstHarness *h = sender_harness_new (CAPS_TWCC, NULL);
  guint i;

  for (i = 0; i < 10; i++)
    fail_unless_equals_int (gst_harness_push (h, rtp_buffer_new (i,
                PKT_SIZE)), GST_FLOW_OK);
  fail_unless (gst_harness_wait_for_clock_id_waits (h, 1, 3));
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ================================= 4. TWCC in, bitrate out to the encoder */

typedef struct
{
  GstClockTime now;
  GArray *times;                /* GstClockTime */
  GArray *values;               /* guint */
} Recorder;

static void
recorder_init (Recorder * r)
{
  r->now = 0;
  r->times = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  r->values = g_array_new (FALSE, FALSE, sizeof (guint));
}

static void
recorder_clear (Recorder * r)
{
  g_array_unref (r->times);
  g_array_unref (r->values);
}

static void
on_target_notify (GObject * obj, GParamSpec * ps, Recorder * r)
{
  guint v = 0;

  /* vp8enc: gint; urcpsender: guint. */
  if (G_PARAM_SPEC_VALUE_TYPE (ps) == G_TYPE_INT) {
    gint iv;
    g_object_get (obj, ps->name, &iv, NULL);
    v = iv;
  } else {
    g_object_get (obj, ps->name, &v, NULL);
  }
  g_array_append_val (r->times, r->now);
  g_array_append_val (r->values, v);
}

/* Feedback events that arrive together (a stock rtpbin receiver sends one
 * per frame, several at once) reach the controller as one message when the
 * gather time after the first has passed, on a clock wait of its own. */
GST_START_TEST (test_feedback_gathered)
{
  GstElement *fresh = gst_element_factory_make ("urcpsender", NULL);
  GstHarness *h;
  guint64 gather = 0;
  Sim sim;
  Fb *f;
  guint i;

  g_object_get (fresh, "feedback-gather-time", &gather, NULL);
  fail_unless_equals_uint64 (gather, 5 * MS);
  gst_object_unref (fresh);

  h = sender_harness_new (CAPS_TWCC, "pacing", FALSE, "feedback-gather-time",
      (guint64) (5 * MS), NULL);
  sim_init (&sim, h, 0);
  for (i = 0; i < 6; i++) {
    sim_set_time (&sim, i * 10 * MS);
    sim_send (&sim, PKT_SIZE);
  }
  sim_set_time (&sim, 80 * MS);
  f = (Fb *) sim.pending->data;
  for (i = 0; i < 6; i++)
    f[i].remote = f[i].local + 30 * MS;
  /* two frames' messages at the same instant */
  fail_unless (gst_harness_push_upstream_event (h, twcc_event_new (f, 3)));
  fail_unless (gst_harness_push_upstream_event (h, twcc_event_new (f + 3,
              3)));
  fail_unless_equals_uint64 (stats_u64 (h->element, "twcc-events"), 2);
  fail_unless_equals_uint64 (stats_u64 (h->element, "feedback-count"), 0);
  /* The gather wait: at 85 ms both reach the controller as one. */
  fail_unless (gst_harness_crank_single_clock_wait (h));
  fail_unless_equals_uint64 (gst_clock_get_time (GST_ELEMENT_CLOCK
          (h->element)), 85 * MS);
  fail_unless_equals_uint64 (stats_u64 (h->element, "feedback-count"), 1);
  fail_unless_equals_uint64 (stats_u64 (h->element, "packets-acked"), 6);
  sim_clear (&sim);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_twcc_drives_encoder)
{
  GstElement *enc = gst_element_factory_make ("vp8enc", "enc");
  GstHarness *h;
  GstEvent *ev;
  Recorder el_rec, enc_rec;
  Sim sim;
  GstClockTime t;
  gdouble credit = 0;
  guint target, enc_target = 0, i, twcc_upstream = 0;
  guint64 fb_count_1s = 0;
  gint64 deadline = 0;
  gchar *str;

  if (enc == NULL) {
    GST_WARNING ("vp8enc not available, skipping");
    return;
  }
  fail_unless_equals_string (enum_nick (enc, "end-usage"), "vbr");

  h = sender_harness_new (CAPS_TWCC, "pacing", FALSE, "encoder", enc,
      "max-bitrate", 2000000, NULL);
  /* READY -> PAUSED configured the encoder and gave it the start rate. */
  fail_unless_equals_string (enum_nick (enc, "end-usage"), "cbr");
  g_object_get (enc, "deadline", &deadline, "target-bitrate", &enc_target,
      NULL);
  fail_unless_equals_int64 (deadline, 1);
  fail_unless_equals_int (enc_target, DEF_START_BPS);
  str = stats_string (h->element, "encoder");
  fail_unless_equals_string (str, "enc");
  g_free (str);

  recorder_init (&el_rec);
  recorder_init (&enc_rec);
  g_signal_connect (h->element, "notify::target-bitrate",
      G_CALLBACK (on_target_notify), &el_rec);
  g_signal_connect (enc, "notify::target-bitrate",
      G_CALLBACK (on_target_notify), &enc_rec);

  /* 5 s: a sender that follows the target, feedback every 50 ms over a
   * clean path (constant 50 ms one-way delay, receiver clock 7 s ahead). */
  sim_init (&sim, h, 65000);
  target = target_bitrate (h->element);
  for (t = 0; t <= 5 * GST_SECOND; t += 5 * MS) {
    sim_set_time (&sim, t);
    el_rec.now = enc_rec.now = t;
    credit += target * 0.005 / 8;
    while (credit >= PKT_SIZE) {
      sim_send (&sim, PKT_SIZE);
      credit -= PKT_SIZE;
    }
    if (t > 0 && t % (50 * MS) == 0)
      sim_feedback (&sim, CLEAN_OWD);
    target = target_bitrate (h->element);
    fail_unless (target >= DEF_MIN_BPS && target <= 2000000);
    if (t == 500 * MS) {
      /* Start-up low-rate phase: the start rate, held. */
      assert_state (h->element, "startup-low");
      fail_unless_equals_int (target, DEF_START_BPS);
    }
    if (t == GST_SECOND)
      fb_count_1s = stats_u64 (h->element, "feedback-count");
  }

  /* Every event was used as feedback, and passed on upstream. */
  fail_unless (sim.events_sent >= 90);
  fail_unless_equals_uint64 (stats_u64 (h->element, "twcc-events"),
      sim.events_sent);
  fail_unless_equals_uint64 (stats_u64 (h->element, "feedback-count"),
      sim.events_sent);
  fail_unless (fb_count_1s > 0 && fb_count_1s < sim.events_sent);
  fail_unless_equals_uint64 (stats_u64 (h->element, "twcc-rejected"), 0);
  fail_unless_equals_uint64 (stats_u64 (h->element, "packets-lost"), 0);
  while ((ev = gst_harness_try_pull_upstream_event (h))) {
    const GstStructure *s = gst_event_get_structure (ev);
    if (GST_EVENT_TYPE (ev) == GST_EVENT_CUSTOM_UPSTREAM && s &&
        gst_structure_has_name (s, "RTPTWCCPackets"))
      twcc_upstream++;
    gst_event_unref (ev);
  }
  fail_unless_equals_int (twcc_upstream, sim.events_sent);

  /* notify::target-bitrate was emitted; the first change came only after
   * the >= 1 s low-rate phase, and raised the rate. */
  fail_unless (el_rec.values->len > 0, "no notify::target-bitrate");
  fail_unless (g_array_index (el_rec.times, GstClockTime, 0) >= GST_SECOND,
      "target changed at %" GST_TIME_FORMAT ", during the low-rate phase",
      GST_TIME_ARGS (g_array_index (el_rec.times, GstClockTime, 0)));
  fail_unless (g_array_index (el_rec.values, guint, 0) > DEF_START_BPS);
  /* Each notify reports the then-current value; the last is the current. */
  fail_unless_equals_int (g_array_index (el_rec.values, guint,
          el_rec.values->len - 1), target);

  /* A clean path: the rate rose well above the start bitrate. */
  str = stats_string (h->element, "state");
  GST_INFO ("final target %u, state %s", target, str);
  g_free (str);
  fail_unless (target >= 2 * DEF_START_BPS, "target only %u", target);
  fail_unless (stats_uint (h->element, "capacity") > DEF_START_BPS);

  /* The encoder follows: same value within 2 %. */
  g_object_get (enc, "target-bitrate", &enc_target, NULL);
  fail_unless (ABS ((gdouble) enc_target - target) <= 0.02 * target,
      "vp8enc target-bitrate %d, element %u", enc_target, target);
  fail_unless (enc_rec.values->len > 0);
  /* Encoder updates: each a change of >= 2 %, or >= 1 s after the last. */
  for (i = 1; i < enc_rec.values->len; i++) {
    gdouble a = g_array_index (enc_rec.values, guint, i - 1);
    gdouble b = g_array_index (enc_rec.values, guint, i);
    GstClockTime dt = g_array_index (enc_rec.times, GstClockTime, i) -
        g_array_index (enc_rec.times, GstClockTime, i - 1);
    fail_unless (ABS (b - a) / a >= 0.02 - 1e-9 || dt >= GST_SECOND,
        "encoder update %u: %.0f -> %.0f after %" GST_TIME_FORMAT, i, a, b,
        GST_TIME_ARGS (dt));
  }
  fail_unless_equals_string (enum_nick (enc, "end-usage"), "cbr");

  g_signal_handlers_disconnect_by_data (enc, &enc_rec);
  g_signal_handlers_disconnect_by_data (h->element, &el_rec);
  recorder_clear (&el_rec);
  recorder_clear (&enc_rec);
  sim_clear (&sim);
  gst_harness_teardown (h);
  gst_object_unref (enc);
}

GST_END_TEST;

/* The encoder is found by walking upstream (through a queue and the
 * payloader) when the encoder property is not set. */
GST_START_TEST (test_encoder_found_upstream)
{
  GstElement *enc_check = gst_element_factory_make ("vp8enc", NULL);
  GstElement *pay_check = gst_element_factory_make ("rtpvp8pay", NULL);
  GstHarness *h;
  GstElement *rc, *enc;
  gint br = 0;
  gchar *str;

  if (!enc_check || !pay_check) {
    GST_WARNING ("vp8enc or rtpvp8pay missing, skipping");
    gst_clear_object (&enc_check);
    gst_clear_object (&pay_check);
    return;
  }
  gst_object_unref (enc_check);
  gst_object_unref (pay_check);

  h = gst_harness_new_parse ("vp8enc name=enc ! queue ! rtpvp8pay ! "
      "urcpsender name=rc start-bitrate=400000 pacing=false");
  rc = gst_bin_get_by_name (GST_BIN (h->element), "rc");
  enc = gst_bin_get_by_name (GST_BIN (h->element), "enc");
  str = stats_string (rc, "encoder");
  fail_unless_equals_string (str, "enc");
  g_free (str);
  g_object_get (enc, "target-bitrate", &br, NULL);
  fail_unless_equals_int (br, 400000);
  fail_unless_equals_string (enum_nick (enc, "end-usage"), "cbr");
  gst_object_unref (rc);
  gst_object_unref (enc);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* configure-encoder=false: the bitrate is still driven, the encoder's
 * rate-control mode left alone. */
GST_START_TEST (test_encoder_not_configured)
{
  GstElement *enc = gst_element_factory_make ("vp8enc", NULL);
  GstHarness *h;
  gint br = 0;

  if (enc == NULL)
    return;
  h = sender_harness_new (CAPS_TWCC, "encoder", enc, "configure-encoder",
      FALSE, "start-bitrate", 700000, NULL);
  g_object_get (enc, "target-bitrate", &br, NULL);
  fail_unless_equals_int (br, 700000);
  fail_unless_equals_string (enum_nick (enc, "end-usage"), "vbr");
  gst_harness_teardown (h);
  gst_object_unref (enc);
}

GST_END_TEST;

/* temporal-layers=2: vp8enc gets two layers and the layers' targets follow
 * the target (60 % in the base layer); another encoder stays as it is and
 * the element says so. */
GST_START_TEST (test_temporal_layers)
{
  GstElement *enc = gst_element_factory_make ("vp8enc", NULL);
  GstElement *vp9 = gst_element_factory_make ("vp9enc", NULL);
  GValueArray *rates = NULL;
  GstBus *bus;
  GstHarness *h;
  GstMessage *msg;
  GError *err = NULL;
  gint layers = 0;
  guint warnings = 0;

  if (enc == NULL || vp9 == NULL) {
    gst_clear_object (&enc);
    gst_clear_object (&vp9);
    return;
  }
  h = sender_harness_new (CAPS_TWCC, "encoder", enc, "temporal-layers", 2,
      "start-bitrate", 500000, NULL);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  g_object_get (enc, "temporal-scalability-number-layers", &layers,
      "temporal-scalability-target-bitrate", &rates, NULL);
  fail_unless_equals_int (layers, 2);
  fail_unless (rates != NULL && rates->n_values == 2);
  fail_unless_equals_int (g_value_get_int (g_value_array_get_nth (rates, 0)),
      300000);
  fail_unless_equals_int (g_value_get_int (g_value_array_get_nth (rates, 1)),
      500000);
  g_value_array_free (rates);
  G_GNUC_END_IGNORE_DEPRECATIONS;
  gst_harness_teardown (h);

  bus = harness_bus = gst_bus_new ();
  h = sender_harness_new (CAPS_TWCC, "encoder", vp9, "temporal-layers", 2,
      NULL);
  harness_bus = NULL;
  g_object_get (vp9, "temporal-scalability-number-layers", &layers, NULL);
  fail_unless_equals_int (layers, 1);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
    gst_message_parse_warning (msg, &err, NULL);
    fail_unless (strstr (err->message, "needs vp8enc") != NULL, "%s",
        err->message);
    g_clear_error (&err);
    gst_message_unref (msg);
    warnings++;
  }
  fail_unless_equals_int (warnings, 1);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  gst_object_unref (enc);
  gst_object_unref (vp9);
}

GST_END_TEST;

/* ============================================= 5. bad feedback, table */

#define BAD_MIN 100000
#define BAD_MAX 1500000
#define BAD_FIRST_SEQ 65510     /* so that the pending packets wrap */
#define BAD_PENDING 12          /* twcc seqnums 65530..65535, 0..5 */

typedef struct
{
  const Fb *pending;            /* BAD_PENDING packets sent, not acked */
  GstClockTime now;
} BadCtx;

typedef struct
{
  const gchar *name;
  GstEvent *(*build) (const BadCtx * c);
  gboolean counted;             /* twcc-events increments */
  guint rejected;               /* twcc-rejected increments by */
  gint acked;                   /* packets-acked increments by; -1: any */
  gint lost;                    /* packets-lost increments by; -1: any */
  gboolean owd_reset;           /* owd-resets must increase */
} BadCase;

static Fb
ok_fb (const BadCtx * c, guint i)
{
  Fb f = c->pending[i];
  f.remote = f.local + CLEAN_OWD;
  return f;
}

static GstEvent *
bad_no_packets_field (const BadCtx * c)
{
  return gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
      gst_structure_new ("RTPTWCCPackets", "count", G_TYPE_UINT, 3, NULL));
}

static GstEvent *
bad_packets_string (const BadCtx * c)
{
  return gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
      gst_structure_new ("RTPTWCCPackets", "packets", G_TYPE_STRING,
          "seqnum=1,remote-ts=5", NULL));
}

static GstEvent *
bad_not_structures (const BadCtx * c)
{
  GValueArray *arr = g_value_array_new (4);
  GValue v = G_VALUE_INIT;
  Fb f = ok_fb (c, 0);

  g_value_init (&v, G_TYPE_INT);
  g_value_set_int (&v, 7);
  g_value_array_append (arr, &v);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_STRING);
  g_value_set_string (&v, "RTPTWCCPacket, seqnum=(uint)3");
  g_value_array_append (arr, &v);
  g_value_unset (&v);
  g_value_init (&v, GST_TYPE_STRUCTURE);  /* holds NULL */
  g_value_array_append (arr, &v);
  g_value_unset (&v);
  array_append_fb (arr, &f, 1);
  return twcc_event_take_array (arr);
}

static GstEvent *
bad_no_seqnum (const BadCtx * c)
{
  Fb f[2] = { ok_fb (c, 0), ok_fb (c, 1) };
  f[0].omit = OMIT_SEQ;
  return twcc_event_new (f, 2);
}

static GstEvent *
bad_seqnum_too_big (const BadCtx * c)
{
  Fb f[3] = { ok_fb (c, 0), ok_fb (c, 1), ok_fb (c, 2) };
  f[0].seq = 70000;
  f[1].seq = 65536;
  return twcc_event_new (f, 3);
}

static GstEvent *
bad_no_remote_ts (const BadCtx * c)
{
  Fb f[3] = { ok_fb (c, 0), ok_fb (c, 1), ok_fb (c, 2) };
  f[0].omit = OMIT_REMOTE;      /* not lost, no remote-ts */
  f[1].remote = GST_CLOCK_TIME_NONE;    /* not lost, remote-ts NONE */
  return twcc_event_new (f, 3);
}

static GstEvent *
bad_no_local_ts (const BadCtx * c)
{
  Fb f[2] = { ok_fb (c, 0), ok_fb (c, 1) };
  f[0].omit = OMIT_LOCAL;
  return twcc_event_new (f, 2);
}

static GstEvent *
bad_lost_not_boolean (const BadCtx * c)
{
  Fb f[2] = { ok_fb (c, 0), ok_fb (c, 1) };
  GValueArray *arr = g_value_array_new (2);
  GstStructure *s;

  f[0].omit = OMIT_LOST;
  s = fb_structure (&f[0]);
  gst_structure_set (s, "lost", G_TYPE_STRING, "no", NULL);
  array_take_structure (arr, s);
  array_append_fb (arr, &f[1], 1);
  return twcc_event_take_array (arr);
}

static GstEvent *
bad_remote_backward (const BadCtx * c)
{
  Fb f[BAD_PENDING];
  guint i;
  for (i = 0; i < BAD_PENDING; i++) {
    f[i] = ok_fb (c, i);
    f[i].remote = c->pending[0].local + CLEAN_OWD + 500 * MS - i * 30 * MS;
  }
  return twcc_event_new (f, BAD_PENDING);
}

static GstEvent *
bad_remote_jump_1h (const BadCtx * c)
{
  Fb f[BAD_PENDING];
  guint i;
  for (i = 0; i < BAD_PENDING; i++) {
    f[i] = ok_fb (c, i);
    if (i >= BAD_PENDING / 2)
      f[i].remote += 3600 * GST_SECOND;
  }
  return twcc_event_new (f, BAD_PENDING);
}

static GstEvent *
bad_seq_wrap (const BadCtx * c)
{
  Fb f[BAD_PENDING];
  guint i;
  for (i = 0; i < BAD_PENDING; i++) {
    f[i] = ok_fb (c, i);
    fail_unless_equals_int (f[i].seq, (65530 + i) & 0xffff);
  }
  return twcc_event_new (f, BAD_PENDING);
}

static GstEvent *
bad_never_sent (const BadCtx * c)
{
  Fb f[BAD_PENDING];
  guint i;
  for (i = 0; i < BAD_PENDING; i++) {
    f[i] = ok_fb (c, i);
    f[i].seq = 30000 + i;
  }
  return twcc_event_new (f, BAD_PENDING);
}

static GstEvent *
bad_duplicates (const BadCtx * c)
{
  Fb f[6] = { ok_fb (c, 0), ok_fb (c, 0), ok_fb (c, 0), ok_fb (c, 1),
    ok_fb (c, 1), ok_fb (c, 2)
  };
  return twcc_event_new (f, 6);
}

static GstEvent *
bad_lost_only (const BadCtx * c)
{
  Fb f[BAD_PENDING];
  guint i;
  for (i = 0; i < BAD_PENDING; i++) {
    f[i] = c->pending[i];
    f[i].lost = TRUE;
    f[i].remote = GST_CLOCK_TIME_NONE;
  }
  return twcc_event_new (f, BAD_PENDING);
}

static GstEvent *
bad_empty_list (const BadCtx * c)
{
  return twcc_event_take_array (g_value_array_new (0));
}

/* Not bad: GstValueArray instead of GValueArray is accepted as well. */
static GstEvent *
alt_gst_value_array (const BadCtx * c)
{
  GstStructure *s = gst_structure_new_empty ("RTPTWCCPackets");
  GValue arr = G_VALUE_INIT, v = G_VALUE_INIT;
  guint i;

  gst_value_array_init (&arr, BAD_PENDING);
  for (i = 0; i < BAD_PENDING; i++) {
    Fb f = ok_fb (c, i);
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, fb_structure (&f));
    gst_value_array_append_and_take_value (&arr, &v);
    memset (&v, 0, sizeof (v));
  }
  gst_structure_take_value (s, "packets", &arr);
  return gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM, s);
}

/* local-ts is a valid GstClockTime but absurd (within 250 ms of 2^64),
 * remote-ts beyond G_MAXINT64. */
static GstEvent *
bad_absurd_timestamps (const BadCtx * c)
{
  Fb f[3] = { ok_fb (c, 0), ok_fb (c, 1), ok_fb (c, 2) };
  f[0].local = G_MAXUINT64 - 1;
  f[1].remote = (GstClockTime) G_MAXINT64 + 1000;
  return twcc_event_new (f, 3);
}

static const BadCase bad_cases[] = {
  /* name, build, counted, rejected, acked, lost, owd_reset */
  {"no-packets-field", bad_no_packets_field, FALSE, 0, 0, 0, FALSE},
  {"packets-is-a-string", bad_packets_string, FALSE, 0, 0, 0, FALSE},
  {"entries-not-structures", bad_not_structures, TRUE, 3, 1, 0, FALSE},
  {"entry-without-seqnum", bad_no_seqnum, TRUE, 1, 1, 0, FALSE},
  {"seqnum-above-65535", bad_seqnum_too_big, TRUE, 2, 1, 0, FALSE},
  {"received-without-remote-ts", bad_no_remote_ts, TRUE, 2, 1, 0, FALSE},
  {"received-without-local-ts", bad_no_local_ts, TRUE, 1, 1, 0, FALSE},
  {"lost-not-a-boolean", bad_lost_not_boolean, TRUE, 1, 1, 0, FALSE},
  {"remote-ts-backward", bad_remote_backward, TRUE, 0, BAD_PENDING, 0, FALSE},
  {"remote-ts-jumps-1h", bad_remote_jump_1h, TRUE, 0, BAD_PENDING, 0, TRUE},
  {"seqnum-wrap", bad_seq_wrap, TRUE, 0, BAD_PENDING, 0, FALSE},
  {"never-sent-seqnums", bad_never_sent, TRUE, 0, -1, -1, FALSE},
  {"duplicates", bad_duplicates, TRUE, 0, 3, 0, FALSE},
  {"lost-only", bad_lost_only, TRUE, 0, 0, BAD_PENDING, FALSE},
  {"empty-list", bad_empty_list, TRUE, 0, 0, 0, FALSE},
  {"gst-value-array", alt_gst_value_array, TRUE, 0, BAD_PENDING, 0, FALSE},
  /* times beyond 2^63 ns are rejected as malformed; the third is fine */
  {"absurd-timestamps", bad_absurd_timestamps, TRUE, 2, 1, 0, FALSE},
};

static void
check_sane (GstHarness * h)
{
  guint t = target_bitrate (h->element);
  guint64 st = stats_uint (h->element, "target-bitrate");

  check_stats_fields (h->element);
  fail_unless (t >= BAD_MIN && t <= BAD_MAX, "target-bitrate %u", t);
  fail_unless (st >= BAD_MIN && st <= BAD_MAX, "stats target-bitrate %"
      G_GUINT64_FORMAT, st);
}

GST_START_TEST (test_bad_feedback)
{
  const BadCase *bc = &bad_cases[__i__];
  GstHarness *h = sender_harness_new (CAPS_TWCC, "pacing", FALSE,
      "min-bitrate", BAD_MIN, "max-bitrate", BAD_MAX, NULL);
  guint64 events0, rejected0, acked0, lost0, resets0, fb0;
  BadCtx ctx;
  Sim sim;
  GstClockTime t;
  guint i, good_after = 0;

  GST_INFO ("case %s", bc->name);
  sim_init (&sim, h, BAD_FIRST_SEQ);
  /* 20 packets, acknowledged properly. */
  for (i = 0; i < 20; i++) {
    sim_set_time (&sim, i * 10 * MS);
    sim_send (&sim, PKT_SIZE);
  }
  sim_feedback (&sim, CLEAN_OWD);
  /* 12 more, wrapping the TWCC seqnum; the bad event reports on them. */
  for (i = 0; i < BAD_PENDING; i++) {
    sim_set_time (&sim, 200 * MS + i * 10 * MS);
    sim_send (&sim, PKT_SIZE);
  }
  fail_unless_equals_int (sim.pending->len, BAD_PENDING);

  events0 = stats_u64 (h->element, "twcc-events");
  rejected0 = stats_u64 (h->element, "twcc-rejected");
  acked0 = stats_u64 (h->element, "packets-acked");
  lost0 = stats_u64 (h->element, "packets-lost");
  resets0 = stats_u64 (h->element, "owd-resets");
  fb0 = stats_u64 (h->element, "feedback-count");
  fail_unless_equals_uint64 (events0, 1);
  fail_unless_equals_uint64 (rejected0, 0);

  ctx.pending = (const Fb *) sim.pending->data;
  ctx.now = sim.now;
  fail_unless (gst_harness_push_upstream_event (h, bc->build (&ctx)));
  g_array_set_size (sim.pending, 0);

  fail_unless_equals_uint64 (stats_u64 (h->element, "twcc-events"),
      events0 + (bc->counted ? 1 : 0));
  fail_unless_equals_uint64 (stats_u64 (h->element, "twcc-rejected"),
      rejected0 + bc->rejected);
  if (bc->acked >= 0)
    fail_unless_equals_uint64 (stats_u64 (h->element, "packets-acked"),
        acked0 + bc->acked);
  if (bc->lost >= 0)
    fail_unless_equals_uint64 (stats_u64 (h->element, "packets-lost"),
        lost0 + bc->lost);
  if (bc->owd_reset)
    fail_unless (stats_u64 (h->element, "owd-resets") > resets0);
  check_sane (h);

  /* Still alive: data passes, and good feedback is used again, through the
   * end of the low-rate phase (the bad samples are in its history). */
  fb0 = stats_u64 (h->element, "feedback-count");
  for (t = 320 * MS; t <= 1600 * MS; t += 10 * MS) {
    sim_set_time (&sim, t);
    sim_send (&sim, PKT_SIZE);
    if (t % (50 * MS) == 0) {
      sim_feedback (&sim, CLEAN_OWD);
      good_after++;
    }
    check_sane (h);
  }
  fail_unless_equals_uint64 (stats_u64 (h->element, "feedback-count"),
      fb0 + good_after);
  fail_unless_equals_uint64 (stats_u64 (h->element, "twcc-rejected"),
      rejected0 + bc->rejected);
  fail_unless_equals_uint64 (stats_u64 (h->element, "twcc-events"),
      events0 + (bc->counted ? 1 : 0) + good_after);
  sim_clear (&sim);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* TWCC before any clock time / data: must not crash either. */
GST_START_TEST (test_feedback_before_data)
{
  GstHarness *h = sender_harness_new (CAPS_TWCC, NULL);
  Fb f = { 5, 0, CLEAN_OWD, PKT_SIZE, FALSE, 0 };

  fail_unless (gst_harness_push_upstream_event (h, twcc_event_new (&f, 1)));
  fail_unless_equals_uint64 (stats_u64 (h->element, "twcc-events"), 1);
  fail_unless_equals_int (target_bitrate (h->element), DEF_START_BPS);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ====================================== 6. caps without the TWCC extension */

GST_START_TEST (test_caps_without_twcc)
{
  GstBus *bus = harness_bus = gst_bus_new ();
  GstHarness *h = sender_harness_new (CAPS_NO_TWCC, NULL);
  GstMessage *msg;
  GError *err = NULL;
  GstBuffer *out;
  guint i;

  harness_bus = NULL;
  /* Pacing on; packets 40 ms apart are slower than the 450 kbit/s pacing
   * rate, so each leaves as soon as it arrives. */
  for (i = 0; i < 20; i++) {
    fail_unless (gst_harness_set_time (h, i * 40 * MS));
    fail_unless_equals_int (gst_harness_push (h, rtp_buffer_new (i,
                PKT_SIZE)), GST_FLOW_OK);
    out = gst_harness_pull (h);
    check_rtp_buffer (out, i, PKT_SIZE);
    gst_buffer_unref (out);
  }
  fail_unless_equals_int (target_bitrate (h->element), DEF_START_BPS);
  fail_unless_equals_uint64 (stats_uint (h->element, "target-bitrate"),
      DEF_START_BPS);
  fail_unless_equals_uint64 (stats_u64 (h->element, "twcc-events"), 0);
  assert_state (h->element, "startup-low");
  /* Said on the bus, once. */
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning about the missing extension");
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (strstr (err->message, "transport-wide-cc") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ========================================================= 7. no encoder */

/* Without an encoder the target is still published. With nobody following
 * it either, that is said on the bus once (at the first buffer, and not
 * again at the once-a-second retries); an application connected to
 * notify::target-bitrate gets no warning. */
static guint
run_without_encoder (gboolean listen)
{
  GstBus *bus = harness_bus = gst_bus_new ();
  GstHarness *h = sender_harness_new (CAPS_TWCC, "pacing", FALSE, NULL);
  GstMessage *msg;
  GError *err = NULL;
  guint warnings = 0;
  Sim sim;
  GstClockTime t;
  gchar *str;

  harness_bus = NULL;
  if (!listen)
    g_signal_handlers_disconnect_by_func (h->element, app_follows_target,
        NULL);
  sim_init (&sim, h, 0);
  for (t = 0; t <= 3 * GST_SECOND; t += 10 * MS) {
    sim_set_time (&sim, t);
    sim_send (&sim, PKT_SIZE);
    if (t % (50 * MS) == 0)
      sim_feedback (&sim, CLEAN_OWD);
  }
  str = stats_string (h->element, "encoder");
  fail_unless_equals_string (str, "");
  g_free (str);
  fail_unless (stats_u64 (h->element, "feedback-count") > 0);
  fail_unless (target_bitrate (h->element) >= DEF_START_BPS);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
    gst_message_parse_warning (msg, &err, NULL);
    fail_unless (strstr (err->message, "No video encoder") != NULL, "%s",
        err->message);
    g_clear_error (&err);
    gst_message_unref (msg);
    warnings++;
  }
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  sim_clear (&sim);
  gst_harness_teardown (h);
  return warnings;
}

GST_START_TEST (test_no_encoder)
{
  fail_unless_equals_int (run_without_encoder (FALSE), 1);
  fail_unless_equals_int (run_without_encoder (TRUE), 0);
}

GST_END_TEST;

/* An encoder urcpsender cannot drive (here an identity given as the
 * encoder): a warning on the bus says so, once; the target is still
 * published. */
GST_START_TEST (test_unknown_encoder)
{
  GstElement *ident = gst_element_factory_make ("identity", "notanencoder");
  GstBus *bus = harness_bus = gst_bus_new ();
  GstHarness *h = sender_harness_new (CAPS_TWCC, "pacing", FALSE,
      "encoder", ident, NULL);
  GstMessage *msg;
  GError *err = NULL;
  guint warnings = 0;
  Sim sim;
  GstClockTime t;

  harness_bus = NULL;
  sim_init (&sim, h, 0);
  for (t = 0; t <= 3 * GST_SECOND; t += 10 * MS) {
    sim_set_time (&sim, t);
    sim_send (&sim, PKT_SIZE);
    if (t % (50 * MS) == 0)
      sim_feedback (&sim, CLEAN_OWD);
  }
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
    gst_message_parse_warning (msg, &err, NULL);
    fail_unless (strstr (err->message, "GstIdentity") != NULL, "%s",
        err->message);
    g_clear_error (&err);
    gst_message_unref (msg);
    warnings++;
  }
  fail_unless_equals_int (warnings, 1);
  fail_unless (target_bitrate (h->element) > DEF_START_BPS);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  sim_clear (&sim);
  gst_harness_teardown (h);
  gst_object_unref (ident);
}

GST_END_TEST;

/* ======================================================= 8. no feedback */

#define NOFB_MIN 80000

GST_START_TEST (test_no_feedback_backs_off)
{
  GstHarness *h = sender_harness_new (CAPS_TWCC, "pacing", FALSE,
      "min-bitrate", NOFB_MIN, NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GstClockTime t, warned_at = GST_CLOCK_TIME_NONE;
  guint warnings = 0, lowest = G_MAXUINT, tb;
  GError *err = NULL;
  Sim sim;

  gst_element_set_bus (h->element, bus);
  sim_init (&sim, h, 0);
  /* Up to the circuit breaker (15 s; test_circuit_breaker). */
  for (t = 0; t <= 14900 * MS; t += 20 * MS) {
    sim_set_time (&sim, t);
    sim_send (&sim, PKT_SIZE);
    g_array_set_size (sim.pending, 0);  /* no feedback, ever */
    tb = target_bitrate (h->element);
    lowest = MIN (lowest, tb);
    fail_unless (tb >= NOFB_MIN && tb <= DEF_START_BPS, "target %u at %"
        GST_TIME_FORMAT, tb, GST_TIME_ARGS (t));
    while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
      fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (h->element));
      if (warnings++ == 0)
        warned_at = t;
      gst_message_unref (msg);
    }
    if (t == 500 * MS) {
      assert_state (h->element, "startup-low");
      fail_unless_equals_int (tb, DEF_START_BPS);
    } else if (t == 1500 * MS) {
      /* > 1 s without feedback: held. */
      assert_state (h->element, "hold");
      fail_unless_equals_int (tb, DEF_START_BPS);
    } else if (t == 9 * GST_SECOND) {
      /* Still held: an RTCP-only peer's first report may be 5 s away, so
       * back-off starts only after two report intervals (10 s). */
      assert_state (h->element, "hold");
      fail_unless_equals_int (tb, DEF_START_BPS);
    } else if (t == 11 * GST_SECOND) {
      assert_state (h->element, "backoff");
      fail_unless (tb < DEF_START_BPS, "no back-off after 11 s: %u", tb);
    }
  }
  /* Backed off, down to min-bitrate and not below. */
  assert_state (h->element, "backoff");
  fail_unless_equals_int (target_bitrate (h->element), NOFB_MIN);
  fail_unless (lowest >= NOFB_MIN);
  fail_unless_equals_uint64 (stats_uint (h->element, "target-bitrate"),
      NOFB_MIN);

  /* One warning, once feedback was missing for 5 s. */
  fail_unless_equals_int (warnings, 1);
  fail_unless (warned_at > 5 * GST_SECOND && warned_at <= 5100 * MS,
      "warned at %" GST_TIME_FORMAT, GST_TIME_ARGS (warned_at));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg) {
    gst_message_parse_error (msg, &err, NULL);
    fail ("unexpected error: %s", err->message);
  }

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  sim_clear (&sim);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Pushes one packet that the circuit breaker may refuse: TRUE if it
 * passed (then it is pending feedback). */
static gboolean
sim_try_send (Sim * s, guint size)
{
  GstBuffer *out;
  Fb f = { s->twcc_seq, s->now, GST_CLOCK_TIME_NONE, size, FALSE, 0 };

  fail_unless_equals_int (gst_harness_push (s->h,
          rtp_buffer_new (s->rtp_seq++, size)), GST_FLOW_OK);
  out = gst_harness_try_pull (s->h);
  if (!out)
    return FALSE;
  gst_buffer_unref (out);
  g_array_append_val (s->pending, f);
  s->twcc_seq++;
  return TRUE;
}

/* Breaker messages on `bus`: counts tripped and reset ones; warnings too. */
static void
pop_breaker_messages (GstBus * bus, guint * tripped, guint * reset,
    guint * warnings, GstClockTime t, GstClockTime * tripped_at)
{
  GstMessage *msg;

  while ((msg = gst_bus_pop (bus))) {
    const GstStructure *st = gst_message_get_structure (msg);
    gboolean trip;

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
      GError *err = NULL;
      gst_message_parse_warning (msg, &err, NULL);
      if (strstr (err->message, "Circuit breaker"))
        (*warnings)++;
      g_error_free (err);
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT &&
        gst_structure_has_name (st, "urcpsender-circuit-breaker")) {
      guint64 floor;
      fail_unless (gst_structure_get_boolean (st, "tripped", &trip));
      fail_unless (gst_structure_get_uint64 (st, "floor", &floor));
      fail_unless_equals_uint64 (floor, NOFB_MIN);
      if (trip) {
        (*tripped)++;
        *tripped_at = t;
      } else {
        (*reset)++;
      }
    }
    gst_message_unref (msg);
  }
}

/* RFC 8083: TWCC feedback stops for 30 s. 15 s after the first packet no
 * feedback confirmed, the breaker trips: a warning and an element message,
 * the target at min-bitrate, and the packets of an encoder that is not
 * slowed (this test pushes 480 kbit/s whatever the target) are cut to
 * twice min-bitrate. Feedback returns: a message says so and the target is
 * back at 90 % of its earlier value within 5 s. */
GST_START_TEST (test_circuit_breaker)
{
  GstHarness *h = sender_harness_new (CAPS_TWCC, "pacing", FALSE,
      "min-bitrate", NOFB_MIN, NULL);
  GstBus *bus = gst_bus_new ();
  GstClockTime t, last_fb = 0, tripped_at = GST_CLOCK_TIME_NONE, back;
  guint tripped = 0, reset = 0, warnings = 0, passed = 0, before;
  Sim sim;

  gst_element_set_bus (h->element, bus);
  sim_init (&sim, h, 0);
  for (t = 0; t <= 6 * GST_SECOND; t += 20 * MS) {
    sim_set_time (&sim, t);
    sim_send (&sim, PKT_SIZE);
    if (t % (100 * MS) == 0)
      sim_feedback (&sim, 20 * MS), last_fb = t;
  }
  before = target_bitrate (h->element);
  fail_unless (before > DEF_START_BPS, "no climb: %u", before);
  /* Feedback stops. */
  for (; t <= 36 * GST_SECOND; t += 20 * MS) {
    sim_set_time (&sim, t);
    if (t < last_fb + 15 * GST_SECOND)
      sim_send (&sim, PKT_SIZE);
    else if (sim_try_send (&sim, PKT_SIZE) && t >= 26 * GST_SECOND)
      passed++;
    g_array_set_size (sim.pending, 0);
    pop_breaker_messages (bus, &tripped, &reset, &warnings, t, &tripped_at);
  }
  fail_unless_equals_int (tripped, 1);
  fail_unless_equals_int (warnings, 1);
  fail_unless_equals_int (reset, 0);
  fail_unless (tripped_at > last_fb + 15 * GST_SECOND &&
      tripped_at <= last_fb + 15 * GST_SECOND + 40 * MS, "tripped at %"
      GST_TIME_FORMAT, GST_TIME_ARGS (tripped_at));
  assert_state (h->element, "circuit-breaker");
  fail_unless_equals_int (target_bitrate (h->element), NOFB_MIN);
  /* 26-36 s: 2 x 80 kbit/s of 1200-byte packets is 16.7 per second. */
  fail_unless (passed >= 160 && passed <= 175, "%u passed in 10 s", passed);
  fail_unless (stats_u64 (h->element, "circuit-breaker-dropped") > 300);

  /* Feedback is back. */
  back = t;
  for (; t <= back + 5 * GST_SECOND; t += 20 * MS) {
    sim_set_time (&sim, t);
    sim_try_send (&sim, PKT_SIZE);
    if (t % (100 * MS) == 0)
      sim_feedback (&sim, 20 * MS);
    pop_breaker_messages (bus, &tripped, &reset, &warnings, t, &tripped_at);
    if (target_bitrate (h->element) >= 0.9 * before)
      break;
  }
  fail_unless_equals_int (reset, 1);
  fail_unless (target_bitrate (h->element) >= 0.9 * before,
      "target %u, %u before", target_bitrate (h->element), before);
  fail_unless_equals_int (tripped, 1);

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  sim_clear (&sim);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* circuit-breaker=false: nothing trips, nothing is dropped. */
GST_START_TEST (test_circuit_breaker_off)
{
  GstHarness *h = sender_harness_new (CAPS_TWCC, "pacing", FALSE,
      "min-bitrate", NOFB_MIN, "circuit-breaker", FALSE, NULL);
  GstClockTime t;
  Sim sim;

  sim_init (&sim, h, 0);
  for (t = 0; t <= 30 * GST_SECOND; t += 20 * MS) {
    sim_set_time (&sim, t);
    sim_send (&sim, PKT_SIZE);
    g_array_set_size (sim.pending, 0);
  }
  assert_state (h->element, "backoff");
  fail_unless_equals_uint64 (stats_u64 (h->element, "circuit-breaker-trips"),
      0);
  sim_clear (&sim);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ==================================================== 9. min > max, table */

static const struct
{
  guint min_bps, start_bps, max_bps;
  gboolean ok;
  guint expect_target;          /* start, clamped */
} range_cases[] = {
  {2000000, 300000, 1000000, FALSE, 0},
  {1000001, 300000, 1000000, FALSE, 0},
  {1000000, 300000, 1000000, TRUE, 1000000},
  {50000, 300000, 20000000, TRUE, 300000},
  {50000, 5000000, 1000000, TRUE, 1000000},
  {400000, 300000, 1000000, TRUE, 400000},
};

GST_START_TEST (test_bitrate_range)
{
  GstElement *e = gst_element_factory_make ("urcpsender", NULL);
  GstBus *bus = gst_bus_new ();
  GstStateChangeReturn ret;
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_bus (e, bus);
  g_object_set (e, "min-bitrate", range_cases[__i__].min_bps,
      "start-bitrate", range_cases[__i__].start_bps,
      "max-bitrate", range_cases[__i__].max_bps, NULL);
  /* Stats are readable whatever the configuration. */
  check_stats_fields (e);

  ret = gst_element_set_state (e, GST_STATE_PAUSED);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (!range_cases[__i__].ok) {
    fail_unless_equals_int (ret, GST_STATE_CHANGE_FAILURE);
    fail_unless (msg != NULL, "no error message posted");
    gst_message_parse_error (msg, &err, NULL);
    fail_unless (g_error_matches (err, GST_LIBRARY_ERROR,
            GST_LIBRARY_ERROR_SETTINGS), "unexpected error %s",
        err->message);
    fail_unless (strstr (err->message, "min-bitrate") != NULL);
    g_clear_error (&err);
    gst_message_unref (msg);
  } else {
    fail_unless (ret != GST_STATE_CHANGE_FAILURE);
    fail_unless (msg == NULL);
    fail_unless_equals_int (target_bitrate (e),
        range_cases[__i__].expect_target);
  }
  check_stats_fields (e);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

/* ------------------------------------------------------------------ suite */

static Suite *
urcpsender_suite (void)
{
  Suite *s = suite_create ("urcpsender");
  TCase *tc;

  tc = tcase_create ("properties");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_properties_defaults);
  tcase_add_test (tc, test_controllers_from_registry);
  tcase_add_test (tc, test_controller_parameter_applies);
  tcase_add_test (tc, test_stats_while_playing);
  tcase_add_test (tc, test_property_ready_only);
  tcase_add_test (tc, test_latency_query);
  tcase_add_loop_test (tc, test_property_roundtrip, 0,
      G_N_ELEMENTS (prop_cases));
  tcase_add_loop_test (tc, test_bitrate_range, 0, G_N_ELEMENTS (range_cases));

  tc = tcase_create ("pacing");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pacing_off_passthrough);
  tcase_add_test (tc, test_fec_packets_classified);
  tcase_add_test (tc, test_media_ssrc_forgotten_at_ready);
  tcase_add_test (tc, test_pacing_spreads_burst);
  tcase_add_test (tc, test_pacing_rate_small_burst);
  tcase_add_test (tc, test_pacing_queue_bound);
  tcase_add_test (tc, test_pacing_queue_blocks_upstream);
  tcase_add_test (tc, test_pacing_eos_after_buffers);
  tcase_add_test (tc, test_pacing_flush);
  tcase_add_test (tc, test_pacing_teardown_while_waiting);

  tc = tcase_create ("feedback");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_twcc_drives_encoder);
  tcase_add_test (tc, test_feedback_gathered);
  tcase_add_test (tc, test_encoder_found_upstream);
  tcase_add_test (tc, test_encoder_not_configured);
  tcase_add_test (tc, test_temporal_layers);
  tcase_add_loop_test (tc, test_bad_feedback, 0, G_N_ELEMENTS (bad_cases));
  tcase_add_test (tc, test_feedback_before_data);
  tcase_add_test (tc, test_caps_without_twcc);
  tcase_add_test (tc, test_no_encoder);
  tcase_add_test (tc, test_unknown_encoder);
  tcase_add_test (tc, test_no_feedback_backs_off);
  tcase_add_test (tc, test_circuit_breaker);
  tcase_add_test (tc, test_circuit_breaker_off);

  return s;
}

GST_CHECK_MAIN (urcpsender);
