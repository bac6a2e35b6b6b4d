/* Parse GStreamer's RTPTWCCPackets feedback (core).
 *
 * rtpsession (gst-plugins-good rtpmanager) sends this upstream custom event
 * when transport-wide feedback (RTPFB FMT 15,
 * draft-holmer-rmcat-transport-wide-cc-extensions-01 sec. 3.1) arrives: a
 * "packets" list of structures with seqnum, local-ts, remote-ts,
 * payload-type, size and lost. Anything in it may be missing or malformed
 * when it comes from another element, so every field is checked. */
/* rtpsession hands the packets over as a GValueArray (deprecated in GLib,
 * but it is what GStreamer 1.22 sends), so we must read one. */
#define GLIB_DISABLE_DEPRECATION_WARNINGS
#include "rc-twcc.h"

void
rc_seq_unwrap_init (RcSeqUnwrap * u)
{
  u->have = FALSE;
  u->last = 0;
}

guint64
rc_seq_unwrap (RcSeqUnwrap * u, guint16 seq)
{
  gint16 diff;
  gint64 ext;

  if (!u->have) {
    u->have = TRUE;
    /* Start at 2^16 * 4 so early backward steps stay positive. */
    u->last = (1 << 18) + seq;
    return u->last;
  }
  diff = (gint16) (seq - (guint16) u->last);
  ext = (gint64) u->last + diff;
  if (ext < 0)
    ext = seq;
  if ((guint64) ext > u->last)
    u->last = ext;
  return ext;
}

static gboolean
get_u64 (const GstStructure * s, const gchar * name, guint64 * out)
{
  const GValue *v = gst_structure_get_value (s, name);

  if (v == NULL)
    return FALSE;
  switch (G_VALUE_TYPE (v)) {
    case G_TYPE_UINT64:
      *out = g_value_get_uint64 (v);
      return TRUE;
    case G_TYPE_UINT:
      *out = g_value_get_uint (v);
      return TRUE;
    case G_TYPE_UCHAR:
      *out = g_value_get_uchar (v);
      return TRUE;
    case G_TYPE_INT:
      if (g_value_get_int (v) < 0)
        return FALSE;
      *out = g_value_get_int (v);
      return TRUE;
    case G_TYPE_INT64:
      if (g_value_get_int64 (v) < 0)
        return FALSE;
      *out = g_value_get_int64 (v);
      return TRUE;
    default:
      return FALSE;
  }
}

static guint
list_size (const GValue * v)
{
  if (G_VALUE_HOLDS (v, G_TYPE_VALUE_ARRAY)) {
    GValueArray *a = g_value_get_boxed (v);
    return a ? a->n_values : 0;
  }
  if (GST_VALUE_HOLDS_LIST (v))
    return gst_value_list_get_size (v);
  if (GST_VALUE_HOLDS_ARRAY (v))
    return gst_value_array_get_size (v);
  return 0;
}

static const GValue *
list_nth (const GValue * v, guint i)
{
  if (G_VALUE_HOLDS (v, G_TYPE_VALUE_ARRAY)) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
    return g_value_array_get_nth (g_value_get_boxed (v), i);
    G_GNUC_END_IGNORE_DEPRECATIONS;
  }
  if (GST_VALUE_HOLDS_LIST (v))
    return gst_value_list_get_value (v, i);
  return gst_value_array_get_value (v, i);
}

static void
problem (RcTwccParseInfo * info, const gchar * what)
{
  info->n_rejected++;
  if (!info->first_problem)
    info->first_problem = what;
}

gboolean
rc_twcc_parse (const GstStructure * s, RcSeqUnwrap * uw, GArray * out,
    RcTwccParseInfo * info)
{
  const GValue *packets;
  guint i, n;
  GstClockTime last_remote = GST_CLOCK_TIME_NONE;
  /* Sequence numbers seen in this report, one bit each: a report lists a
   * 16-bit sequence number at most once (its entries are consecutive
   * packet-status counts from one base), so a repeat is a duplicate. A
   * bitmap keeps the check linear: comparing with every earlier entry took
   * 1.2 s on the 65535 entries one ~40-byte feedback packet can make. */
  guint64 seen[65536 / 64] = { 0 };

  memset (info, 0, sizeof (*info));
  if (s == NULL || !gst_structure_has_name (s, RC_TWCC_EVENT_NAME)) {
    info->first_problem = "not an RTPTWCCPackets structure";
    return FALSE;
  }
  packets = gst_structure_get_value (s, "packets");
  if (packets == NULL || !(G_VALUE_HOLDS (packets, G_TYPE_VALUE_ARRAY) ||
          GST_VALUE_HOLDS_LIST (packets) || GST_VALUE_HOLDS_ARRAY (packets))) {
    info->first_problem = "no \"packets\" list";
    return FALSE;
  }

  n = list_size (packets);
  info->n_packets = n;
  for (i = 0; i < n; i++) {
    const GValue *pv = list_nth (packets, i);
    const GstStructure *ps;
    guint64 seq, local = 0, remote = 0, size = 0, pt = 0;
    gboolean lost = FALSE, has_remote;
    RcPacketResult r = { 0 };

    if (pv == NULL || !GST_VALUE_HOLDS_STRUCTURE (pv) ||
        (ps = gst_value_get_structure (pv)) == NULL) {
      problem (info, "packet entry is not a structure");
      continue;
    }
    if (!get_u64 (ps, "seqnum", &seq) || seq > G_MAXUINT16) {
      problem (info, "packet entry without a valid 16-bit seqnum");
      continue;
    }
    if (gst_structure_has_field (ps, "lost") &&
        !gst_structure_get_boolean (ps, "lost", &lost)) {
      problem (info, "\"lost\" is not a boolean");
      continue;
    }
    has_remote = get_u64 (ps, "remote-ts", &remote) &&
        GST_CLOCK_TIME_IS_VALID (remote);
    if (!lost && !has_remote) {
      problem (info, "received packet without remote-ts");
      continue;
    }
    if (!get_u64 (ps, "local-ts", &local))
      local = GST_CLOCK_TIME_NONE;
    /* GstClockTime is signed-safe only below 2^63; beyond it (other than
     * NONE) a time is nonsense and would overflow delay arithmetic. */
    if ((has_remote && remote > (guint64) G_MAXINT64) ||
        (GST_CLOCK_TIME_IS_VALID (local) && local > (guint64) G_MAXINT64)) {
      problem (info, "timestamp beyond 2^63 ns");
      continue;
    }
    if (!lost && !GST_CLOCK_TIME_IS_VALID (local)) {
      problem (info, "received packet without local-ts");
      continue;
    }
    if (!get_u64 (ps, "size", &size) || size > 65535)
      size = 0;
    if (!get_u64 (ps, "payload-type", &pt) || pt > 127)
      pt = G_MAXUINT64;

    r.seq = rc_seq_unwrap (uw, (guint16) seq);
    r.send_ts = local;
    r.recv_ts = lost ? GST_CLOCK_TIME_NONE : remote;
    r.size = size;
    r.lost = lost;
    r.pt = pt == G_MAXUINT64 ? -1 : (gint) pt;

    /* Duplicates inside one report: keep the first. */
    if (seen[seq / 64] & (G_GUINT64_CONSTANT (1) << (seq % 64))) {
      info->n_duplicates++;
      continue;
    }
    seen[seq / 64] |= G_GUINT64_CONSTANT (1) << (seq % 64);
    if (!lost) {
      if (GST_CLOCK_TIME_IS_VALID (last_remote) && remote < last_remote)
        info->n_backward++;
      last_remote = remote;
    }
    g_array_append_val (out, r);
  }
  return TRUE;
}

void
rc_twcc_translate_send_ts (GArray * results, GstClockTime now,
    GstClockTime local_now)
{
  GstClockTimeDiff shift = GST_CLOCK_DIFF (now, local_now);
  GstClockTime newest = 0;
  guint i;

  for (i = 0; i < results->len; i++) {
    RcPacketResult *r = &g_array_index (results, RcPacketResult, i);
    if (GST_CLOCK_TIME_IS_VALID (r->send_ts))
      newest = MAX (newest, r->send_ts);
  }
  if (!GST_CLOCK_TIME_IS_VALID (local_now) ||
      ABS (GST_CLOCK_DIFF (newest, now)) <=
      ABS (GST_CLOCK_DIFF (newest, local_now)))
    return;                     /* already on our timebase */

  for (i = 0; i < results->len; i++) {
    RcPacketResult *r = &g_array_index (results, RcPacketResult, i);
    if (!GST_CLOCK_TIME_IS_VALID (r->send_ts))
      continue;
    if ((GstClockTimeDiff) r->send_ts >= shift)
      r->send_ts -= shift;
    else
      r->send_ts = GST_CLOCK_TIME_NONE;  /* from before we started */
  }
}
