/* Fuzz target: RTPTWCCPackets events as rtpsession makes them from the
 * transport-wide feedback that arrives (one entry per packet status, so a
 * 40-byte packet from the network can ask for 65535 entries, with any
 * sequence numbers and times), into a sender session running URCP:
 * rc_twcc_parse(), the time translation, the controller, the watchdog and
 * the circuit breaker. The decision must stay within its limits.
 *
 * Input: a byte of event count (1-4) and flags; per event a 16-bit entry
 * count, a byte of defaults, then per entry a byte of which fields are
 * present and of which type, and the fields. An entry count above what the
 * bytes hold repeats the last entry with the sequence number advancing
 * (a flood, as from a run-length chunk), up to 1024 entries: enough to
 * reach every path, while a full 65535-entry event (defect 1 of the
 * hostile-input issue) has its own unit test and would slow each run to
 * tens of ms. */
/* rtpsession hands the entries over in a GValueArray. */
#define GLIB_DISABLE_DEPRECATION_WARNINGS
#include "fuzz.h"
#include <string.h>
#include "rc-sender.h"
#include "rc-twcc.h"

#define FLOOD_MAX 1024

static GstStructure *
entry (FuzzIn * in, guint16 * seq, guint8 * mask, guint64 * local,
    guint64 * remote, guint32 * size, guint8 * flags, gboolean fresh)
{
  GstStructure *s = gst_structure_new_empty ("RTPTWCCPacket");

  if (fresh) {
    *mask = fuzz_u8 (in);
    *seq = fuzz_u16 (in);
    *local = fuzz_u64 (in) >> (fuzz_u8 (in) & 63);
    *remote = fuzz_u64 (in) >> (fuzz_u8 (in) & 63);
    *size = fuzz_u16 (in);
    *flags = fuzz_u8 (in);
  }
  if (*mask & 1)
    gst_structure_set (s, "seqnum", G_TYPE_UINT, (guint) * seq, NULL);
  else if (*mask & 0x80)
    gst_structure_set (s, "seqnum", G_TYPE_STRING, "x", NULL);
  if (*mask & 2)
    gst_structure_set (s, "local-ts", G_TYPE_UINT64, *local, NULL);
  if (*mask & 4)
    gst_structure_set (s, "remote-ts", G_TYPE_UINT64, *remote, NULL);
  if (*mask & 8)
    gst_structure_set (s, "size", G_TYPE_UINT, *size, NULL);
  if (*mask & 16)
    gst_structure_set (s, "lost", G_TYPE_BOOLEAN, *flags & 1, NULL);
  if (*mask & 32)
    gst_structure_set (s, "payload-type", G_TYPE_UCHAR, *flags >> 1, NULL);
  if (*mask & 64)
    gst_structure_set (s, "local-ts", G_TYPE_INT, -1, NULL);
  return s;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  FuzzIn in = { data, size };
  RcSenderConfig cfg;
  RcSender *s;
  GArray *actions;
  guint n_events, e;
  GstClockTime now = 1 * GST_SECOND;
  guint8 head;
  RcDecision d;
  guint64 i;

  fuzz_init_gst ();
  rc_sender_config_init (&cfg);
  s = rc_sender_new (&cfg, NULL);
  g_assert (s);
  actions = g_array_new (FALSE, FALSE, sizeof (RcSenderAction));
  head = fuzz_u8 (&in);
  n_events = 1 + (head & 3);
  rc_sender_set_media_pt (s, 96);
  for (i = 0; i < 40; i++)
    rc_sender_send_now (s, 1200, RC_SENDER_ITEM_MEDIA, now + i * 5 *
        GST_MSECOND);
  for (e = 0; e < n_events; e++) {
    guint count = fuzz_u16 (&in), k;
    GValueArray *arr;
    GValue v = G_VALUE_INIT;
    GstStructure *ev;
    RcTwccParseInfo info;
    guint16 seq = 0;
    guint8 mask = 0, flags = 0;
    guint64 local = 0, remote = 0;
    guint32 psize = 0;

    count = MIN (count, FLOOD_MAX);
    arr = g_value_array_new (MIN (count, 64));
    for (k = 0; k < count; k++) {
      GValue ev_v = G_VALUE_INIT;
      gboolean fresh = in.n > 0;

      g_value_init (&ev_v, GST_TYPE_STRUCTURE);
      g_value_take_boxed (&ev_v, entry (&in, &seq, &mask, &local, &remote,
              &psize, &flags, fresh));
      if (!fresh) {
        seq++;
        remote += 1000;
      }
      g_value_array_append (arr, &ev_v);
      g_value_unset (&ev_v);
    }
    ev = gst_structure_new_empty (head & 4 ? "RTPTWCCPacketz" :
        RC_TWCC_EVENT_NAME);
    g_value_init (&v, G_TYPE_VALUE_ARRAY);
    g_value_take_boxed (&v, arr);
    if (!(head & 8))
      gst_structure_take_value (ev, "packets", &v);
    else
      g_value_unset (&v);
    now += (fuzz_u8 (&in) + 1) * 10 * GST_MSECOND;
    memset (&info, 0, sizeof (info));
    if (rc_sender_on_twcc (s, ev, now, head & 16 ? now : GST_CLOCK_TIME_NONE,
            &info))
      g_assert_cmpuint (info.n_rejected, <=, info.n_packets);
    gst_structure_free (ev);
    g_array_set_size (actions, 0);
    rc_sender_poll (s, now, actions);
  }
  d = rc_sender_get_decision (s);
  g_assert_cmpuint (d.media_bps, >=, cfg.limits.min_bps);
  g_assert_cmpuint (d.media_bps, <=, cfg.limits.max_bps);
  g_assert_cmpuint (rc_sender_get_pacing_rate (s), >, 0);
  gst_structure_free (rc_sender_get_stats (s, now));
  g_array_unref (actions);
  rc_sender_free (s);
  rc_sender_config_clear (&cfg);
  return 0;
}

/* ---------------------------------------------------------------- seeds */

static void
put (GByteArray * b, guint64 v, guint bytes)
{
  while (bytes--) {
    guint8 c = v >> (8 * bytes);
    g_byte_array_append (b, &c, 1);
  }
}

/* One event of `n` received (or every 4th lost) packets at 5 ms spacing,
 * local times on the running-time base 1 s on, remote 20 ms later. */
static void
put_event (GByteArray * b, guint16 first, guint n, gboolean some_lost)
{
  guint k;

  put (b, n, 2);
  for (k = 0; k < n; k++) {
    gboolean lost = some_lost && k % 4 == 3;
    put (b, lost ? 0x3b : 0x3f, 1);
    put (b, (guint16) (first + k), 2);
    put (b, GST_SECOND + k * 5 * GST_MSECOND, 8);
    put (b, 0, 1);
    put (b, lost ? 0 : 5 * GST_SECOND + k * 5 * GST_MSECOND, 8);
    put (b, 0, 1);
    put (b, 1200, 2);
    put (b, (96 << 1) | lost, 1);
  }
  put (b, 5, 1);                /* 60 ms to the next event */
}

void
fuzz_make_seeds (const char *dir)
{
  GByteArray *b = g_byte_array_new ();

  put (b, 1, 1);                /* two events */
  put_event (b, 0, 10, FALSE);
  put_event (b, 10, 10, FALSE);
  fuzz_write_seed (dir, "two-events", b->data, b->len);
  g_byte_array_set_size (b, 0);
  put (b, 3 | 16, 1);           /* four events, rtpsession's local clock */
  put_event (b, 65530, 8, TRUE);
  put_event (b, 2, 8, TRUE);
  put_event (b, 10, 8, FALSE);
  put_event (b, 18, 8, TRUE);
  fuzz_write_seed (dir, "wrap-and-loss", b->data, b->len);
  g_byte_array_set_size (b, 0);
  put (b, 0, 1);                /* one event: one entry, then a flood */
  put_event (b, 100, 1, FALSE);
  b->data[1] = 0x1f;
  b->data[2] = 0xff;
  fuzz_write_seed (dir, "flood", b->data, b->len);
  g_byte_array_unref (b);
}
