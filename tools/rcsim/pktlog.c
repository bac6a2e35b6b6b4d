/* rcsim packet logs: the reader (docs/metrics.md, "Packet log").
 *
 *   rcsim-log 1
 *   skip FLOW
 *   target FLOW TIME BPS
 *   frame FLOW TIME BYTES KEY
 *   LINK FLOW KIND SIZE ENTRY FATE [DEPARTURE [ARRIVAL]]
 *
 * Every line is checked against the scenario (flow index, the kinds a flow
 * of its kind sends, the link its data takes) before it reaches the
 * metrics, and the first bad one stops the reading with its line number. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "pktlog.h"

#define LOG_MAGIC "rcsim-log"
#define LOG_VERSION "1"
/* A line has at most this many fields (a delivered media packet: 8 and
 * its @CAPTURE). */
#define MAX_FIELDS 9
/* Bytes on the wire of one packet, at most (far above any MTU). */
#define MAX_SIZE 1000000

G_DEFINE_QUARK (sim-log-error-quark, sim_log_error);

typedef struct
{
  SimMetrics *m;
  const SimScenario *scen;
  const gchar *path;
  guint line;
  gboolean header;
  gboolean *skipped, *seen;     /* per flow */
} Reader;

static gboolean G_GNUC_PRINTF (3, 4)
bad (Reader * r, GError ** error, const gchar * fmt, ...)
{
  va_list ap;
  gchar *msg;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, SIM_LOG_ERROR, 0, "%s:%u: %s", r->path, r->line, msg);
  g_free (msg);
  return FALSE;
}

static gboolean
parse_uint (const gchar * tok, guint64 max, guint64 * out)
{
  return g_ascii_string_to_unsigned (tok, 10, 0, max, out, NULL);
}

static gboolean
parse_time (Reader * r, const gchar * what, const gchar * tok,
    GstClockTime * out, GError ** error)
{
  guint64 v;

  if (!parse_uint (tok, G_MAXUINT64 - 1, &v))
    return bad (r, error, "%s '%s' is not a time in ns (a whole number "
        "from 0)", what, tok);
  *out = v;
  return TRUE;
}

static gboolean
parse_flow (Reader * r, const gchar * tok, guint * flow, GError ** error)
{
  guint64 v;
  guint n = r->scen->flows->len;

  if (!parse_uint (tok, G_MAXUINT, &v) || v >= n)
    return bad (r, error, "flow '%s': the scenario's flows are 0..%u, in "
        "file order", tok, n - 1);
  *flow = (guint) v;
  return TRUE;
}

static const struct
{
  const gchar *name;
  SimMetricsKind kind;
} kinds[] = {
  {"media", SIM_METRICS_MEDIA},
  {"fec", SIM_METRICS_FEC},
  {"ctrl", SIM_METRICS_CONTROL},
  {"tcp", SIM_METRICS_TCP},
  {"cbr", SIM_METRICS_CBR},
};

/* The packet kinds a flow of each kind sends. */
static gboolean
kind_allowed (SimFlowKind flow, SimMetricsKind k)
{
  switch (flow) {
    case SIM_FLOW_MEDIA:
      return k == SIM_METRICS_MEDIA || k == SIM_METRICS_FEC ||
          k == SIM_METRICS_CONTROL;
    case SIM_FLOW_TCP:
      return k == SIM_METRICS_TCP || k == SIM_METRICS_CONTROL;
    case SIM_FLOW_CBR:
      return k == SIM_METRICS_CBR;
  }
  return FALSE;
}

static gboolean
read_skip (Reader * r, gchar ** tok, guint n, GError ** error)
{
  guint flow;

  if (n != 2)
    return bad (r, error, "'skip' takes one flow index");
  if (!parse_flow (r, tok[1], &flow, error))
    return FALSE;
  if (r->seen[flow])
    return bad (r, error, "skip %u: the flow has packets above", flow);
  r->skipped[flow] = TRUE;
  sim_metrics_skip_flow (r->m, flow);
  return TRUE;
}

/* The FLOW and TIME fields of a media flow's state line (`what`: a target,
 * frames): a media flow of the scenario, not skipped. */
static gboolean
parse_media_line (Reader * r, gchar ** tok, const gchar * what,
    guint * flow, GstClockTime * t, GError ** error)
{
  const SimFlowConfig *c;

  if (!parse_flow (r, tok[1], flow, error))
    return FALSE;
  c = g_ptr_array_index (r->scen->flows, *flow);
  if (c->kind != SIM_FLOW_MEDIA)
    return bad (r, error, "flow %u (%s) is a %s flow: only media flows "
        "have %s", *flow, c->name, sim_flow_kind_to_string (c->kind), what);
  if (r->skipped[*flow])
    return bad (r, error, "flow %u is skipped above but has %s", *flow, what);
  return parse_time (r, "time", tok[2], t, error);
}

/* target FLOW TIME BPS: a media flow's controller target from TIME on. */
static gboolean
read_target (Reader * r, gchar ** tok, guint n, GError ** error)
{
  guint flow;
  GstClockTime t = 0;
  guint64 bps;

  if (n != 4)
    return bad (r, error, "%u fields; a target line is target FLOW TIME "
        "BPS", n);
  if (!parse_media_line (r, tok, "a target", &flow, &t, error))
    return FALSE;
  if (!parse_uint (tok[3], G_MAXUINT32, &bps))
    return bad (r, error, "target '%s': bit/s, 0..%u", tok[3], G_MAXUINT32);
  sim_metrics_log_target (r->m, flow, t, (gdouble) bps);
  return TRUE;
}

/* frame FLOW TIME BYTES KEY: one encoded frame of a media flow (its capture
 * time, size, 1 for a key frame), as the real runners see it leave the
 * encoder. Checked, not used by any metric: benchmarks/encoder_error.py
 * reads them to compare the encoder in the loop with rcsim's model. */
static gboolean
read_frame (Reader * r, gchar ** tok, guint n, GError ** error)
{
  guint flow;
  GstClockTime t = 0;
  guint64 v;

  if (n != 5)
    return bad (r, error, "%u fields; a frame line is frame FLOW TIME BYTES "
        "KEY", n);
  if (!parse_media_line (r, tok, "frames", &flow, &t, error))
    return FALSE;
  if (!parse_uint (tok[3], G_MAXUINT32, &v))
    return bad (r, error, "frame size '%s': bytes, 0..%u", tok[3],
        G_MAXUINT32);
  if (!parse_uint (tok[4], 1, &v))
    return bad (r, error, "key '%s': 0 or 1", tok[4]);
  return TRUE;
}

static gboolean
read_packet (Reader * r, gchar ** tok, guint n, GError ** error)
{
  SimMetricsPacket p = { 0 };
  const SimFlowConfig *c;
  const gchar *fate = n > 5 ? tok[5] : "";
  guint64 v;
  guint i, want;
  gboolean pending = FALSE, dep_known = TRUE;
  GstClockTime prop;

  /* A media packet's frame: an optional last field @CAPTURE. */
  if (n > 0 && tok[n - 1][0] == '@') {
    if (!parse_time (r, "capture", tok[n - 1] + 1, &p.capture, error))
      return FALSE;
    p.has_capture = TRUE;
    n--;
  }
  if (n < 6)
    return bad (r, error, "%u fields; a packet line is LINK FLOW KIND SIZE "
        "ENTRY FATE [DEPARTURE [ARRIVAL]] [@CAPTURE]", n);
  if (!strcmp (tok[0], "fwd"))
    p.link = SIM_LINK_FORWARD;
  else if (!strcmp (tok[0], "rev"))
    p.link = SIM_LINK_REVERSE;
  else
    return bad (r, error, "link '%s': fwd or rev", tok[0]);
  if (!parse_flow (r, tok[1], &p.flow, error))
    return FALSE;
  c = g_ptr_array_index (r->scen->flows, p.flow);
  for (i = 0; i < G_N_ELEMENTS (kinds) && strcmp (tok[2], kinds[i].name); i++);
  if (i == G_N_ELEMENTS (kinds))
    return bad (r, error, "kind '%s': media, fec, ctrl, tcp or cbr", tok[2]);
  p.kind = kinds[i].kind;
  if (p.has_capture && p.kind != SIM_METRICS_MEDIA)
    return bad (r, error, "%s: only media packets carry a capture time",
        tok[n]);
  if (!kind_allowed (c->kind, p.kind))
    return bad (r, error, "flow %u (%s) is a %s flow: it sends no '%s' "
        "packets", p.flow, c->name, sim_flow_kind_to_string (c->kind),
        tok[2]);
  if (p.kind != SIM_METRICS_CONTROL &&
      p.link != sim_metrics_data_link (r->m, p.flow))
    return bad (r, error, "flow %u (%s) sends its data on the %s link, not "
        "'%s'", p.flow, c->name, c->reverse ? "reverse (rev)" :
        "forward (fwd)", tok[0]);
  if (r->skipped[p.flow])
    return bad (r, error, "flow %u is skipped above but has packets",
        p.flow);
  if (!parse_uint (tok[3], MAX_SIZE, &v) || v == 0)
    return bad (r, error, "size '%s': bytes on the wire, 1..%u", tok[3],
        MAX_SIZE);
  p.size = (guint) v;
  if (!parse_time (r, "entry", tok[4], &p.entry, error))
    return FALSE;

  if (!strcmp (fate, "drop")) {
    p.fate = SIM_FATE_DROPPED;
    want = 6;
  } else if (!strcmp (fate, "lost")) {
    p.fate = SIM_FATE_LOST;
    want = 7;
  } else if (!strcmp (fate, "recv") || !strcmp (fate, "dup")) {
    p.fate = SIM_FATE_DELIVERED;
    p.goodput = !strcmp (fate, "recv");
    want = 8;
  } else if (!strcmp (fate, "pending")) {
    pending = TRUE;
    want = 6;
  } else {
    return bad (r, error, "fate '%s': drop, lost, recv, dup or pending",
        fate);
  }
  if (n != want)
    return bad (r, error, "%u fields; a '%s' line has %u (LINK FLOW KIND "
        "SIZE ENTRY %s%s)", n, fate, want, fate, want == 6 ? "" :
        want == 7 ? " DEPARTURE" : " DEPARTURE ARRIVAL");
  if (want >= 7) {
    dep_known = strcmp (tok[6], "-") != 0;
    if (dep_known && !parse_time (r, "departure", tok[6], &p.departed,
            error))
      return FALSE;
    if (dep_known && p.departed < p.entry)
      return bad (r, error, "departure %s before entry %s", tok[6], tok[4]);
  }
  if (want == 8) {
    if (!parse_time (r, "arrival", tok[7], &p.arrival, error))
      return FALSE;
    if (p.arrival < (dep_known ? p.departed : p.entry))
      return bad (r, error, "arrival %s before %s %s", tok[7],
          dep_known ? "departure" : "entry", dep_known ? tok[6] : tok[4]);
  }
  if (!dep_known) {
    /* Unknown departure: arrival minus the propagation delay (departure
     * give or take the delay noise), never before the entry; a lost
     * packet's entry. */
    prop = sim_metrics_prop_delay (r->m, p.flow, p.link);
    p.departed = p.fate == SIM_FATE_DELIVERED ?
        MAX (p.entry, p.arrival - MIN (prop, p.arrival)) : p.entry;
  }
  r->seen[p.flow] = TRUE;
  sim_metrics_enter (r->m, &p);
  if (!pending)
    sim_metrics_leave (r->m, &p);
  return TRUE;
}

static gboolean
read_line (Reader * r, gchar * line, GError ** error)
{
  gchar *tok[MAX_FIELDS];
  gchar *s, *save = NULL;
  guint n = 0;

  for (s = strtok_r (line, " \t\r\n", &save); s;
      s = strtok_r (NULL, " \t\r\n", &save)) {
    if (n == 0 && s[0] == '#')
      return TRUE;              /* comment */
    if (n == MAX_FIELDS)
      return bad (r, error, "more than %u fields", MAX_FIELDS);
    tok[n++] = s;
  }
  if (n == 0)
    return TRUE;                /* blank */
  if (!r->header) {
    if (n != 2 || strcmp (tok[0], LOG_MAGIC) || strcmp (tok[1], LOG_VERSION))
      return bad (r, error, "not a packet log: the first line must be '"
          LOG_MAGIC " " LOG_VERSION "'");
    r->header = TRUE;
    return TRUE;
  }
  if (!strcmp (tok[0], "skip"))
    return read_skip (r, tok, n, error);
  if (!strcmp (tok[0], "target"))
    return read_target (r, tok, n, error);
  if (!strcmp (tok[0], "frame"))
    return read_frame (r, tok, n, error);
  return read_packet (r, tok, n, error);
}

gboolean
sim_log_read (SimMetrics * m, const SimScenario * scen, const gchar * path,
    GError ** error)
{
  Reader r = { m, scen, path, 0, FALSE, NULL, NULL };
  FILE *fp = strcmp (path, "-") ? fopen (path, "r") : stdin;
  gchar *line = NULL;
  size_t cap = 0;
  gboolean ok = TRUE;

  if (!fp) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "%s: %s", path, g_strerror (errno));
    return FALSE;
  }
  r.skipped = g_new0 (gboolean, scen->flows->len);
  r.seen = g_new0 (gboolean, scen->flows->len);
  while (ok && getline (&line, &cap, fp) >= 0) {
    r.line++;
    ok = read_line (&r, line, error);
  }
  if (ok && ferror (fp)) {
    ok = FALSE;
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "%s: %s", path, g_strerror (errno));
  } else if (ok && !r.header) {
    r.line++;
    ok = bad (&r, error, "empty: a packet log starts with '" LOG_MAGIC " "
        LOG_VERSION "'");
  }
  free (line);
  if (fp != stdin)
    fclose (fp);
  g_free (r.skipped);
  g_free (r.seen);
  return ok;
}
