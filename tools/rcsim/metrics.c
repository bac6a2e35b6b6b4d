/* rcsim metrics (docs/metrics.md): the one implementation, fed by a
 * simulation (sim.c) or by a packet log (pktlog.c). See metrics.h.
 *
 * Everything is accumulated as packets come in, per flow and per link, in
 * 200 ms bins (throughput-like counts by departure from the bottleneck,
 * sends and queue drops by entry) and as one sample of queueing delay per
 * delivered packet; fair shares, convergence, fairness and the
 * distributions are computed from those at output time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <glib/gstdio.h>
#include "metrics.h"

/* Convergence (docs/metrics.md): after each change, the goodput within
 * +-10 % of the fair share, held 5 s (25 bins), both averaged over the
 * trailing 1 s (5 bins) since the change. */
#define CONV_TOLERANCE 0.1
#define CONV_HOLD_BINS 25
#define CONV_SMOOTH_BINS 5

/* One SIM_BIN of one flow. */
typedef struct
{
  guint64 sent_bytes, fec_bytes, goodput_bytes;
  guint32 sent_pkts, delivered_pkts;     /* by entry; by departure */
  guint32 dropped_pkts;         /* tail drops, by entry */
  guint32 link_lost_pkts;       /* lost after the queue, by departure */
  gdouble qd_sum_ms;
  gfloat qd_max_ms;
  gboolean active;              /* demanding capacity at the bin's start */
  /* sampled at the bin's start (simulated) */
  gdouble target_bps, encoder_bps, pacing_bps;  /* media */
  gdouble cwnd, srtt_ms;        /* tcp */
  gchar *stats;                 /* media: controller stats, CSV fragment */
} Bin;

typedef struct
{
  const SimFlowConfig *cfg;
  guint id;
  GstClockTime start, stop;     /* stop clipped to the run */
  gboolean skipped;
  gboolean has_packets;
  /* totals */
  guint64 sent_pkts, sent_bytes, fec_bytes;
  guint64 delivered_pkts, goodput_bytes;
  guint64 lost_queue, lost_link;
  /* media packets only (no repair packets), for loss_pre and loss_post */
  guint64 media_delivered, media_lost, repaired;
  guint64 frames_hit, frames_recovered; /* FFRE; hit 0: unknown or none */
  GArray *qdelay_ms;            /* gfloat, one per delivered data packet */
  Bin *bins;
  GPtrArray *stat_names;        /* media: stats fields, first sample */
  GArray *targets;              /* logged media: LoggedTarget, as read */
  GHashTable *frames;           /* media: capture time -> FrameAcc */
} Flow;

/* One media frame's packets (docs/metrics.md, `frames`). */
typedef struct
{
  guint entered, left, delivered;
  GstClockTime last_entry, last_arrival;
} FrameAcc;

typedef struct
{
  GstClockTime t;
  gdouble bps;
} LoggedTarget;

typedef struct
{
  guint64 *bytes;               /* per bin, by departure (delivered or lost
                                 * after the queue) */
  gdouble *qd_sum_ms;
  guint32 *qd_n;
  gdouble *cap_bps;             /* mean capacity per bin */
  gdouble *queue_ms;            /* queue delay at the bin's start */
  GstClockTime *last_departed;  /* logged: latest departure of the packets
                                 * that entered in the bin and were queued */
  GArray *qdelay_ms;            /* gfloat, every delivered packet */
  guint64 window_bytes;         /* departed inside [util_from, util_to),
                                 * delivered or lost after the queue */
} LinkAcc;

struct _SimMetrics
{
  const SimScenario *scen;
  guint32 seed;
  SimMetricsSource source;
  GstClockTime end;
  guint n_bins;
  RcLink *links[2];             /* for their capacity only */
  LinkAcc acc[2];
  Flow *flows;
  guint n_flows;
  gchar *controller;            /* label of every media flow, or NULL */
  GstClockTime util_from, util_to;
  gdouble util_cap_bits;
  gboolean finished;
};

/* Bins are allocated n_bins + 1: the last collects what happens after the
 * run (packets draining from the queue) and is never reported. */
static guint
bin_of (SimMetrics * m, GstClockTime t)
{
  guint64 b = t / SIM_BIN;
  return (guint) MIN (b, (guint64) m->n_bins);
}

static gboolean
is_data (SimMetricsKind k)
{
  return k != SIM_METRICS_CONTROL;
}

/* Utilization window: the active time of the forward flows that ran. */
static void
update_window (SimMetrics * m)
{
  guint i;

  m->util_from = GST_CLOCK_TIME_NONE;
  m->util_to = 0;
  for (i = 0; i < m->n_flows; i++) {
    Flow *f = &m->flows[i];
    if (!f->cfg->reverse && !f->skipped && f->start < f->stop) {
      m->util_from = MIN (m->util_from, f->start);
      m->util_to = MAX (m->util_to, f->stop);
    }
  }
  if (!GST_CLOCK_TIME_IS_VALID (m->util_from))
    m->util_from = m->util_to = 0;
}

SimMetrics *
sim_metrics_new (const SimScenario * scen, guint32 seed,
    SimMetricsSource source)
{
  SimMetrics *m = g_new0 (SimMetrics, 1);
  guint i, l;

  m->scen = scen;
  m->seed = seed;
  m->source = source;
  m->end = scen->duration;
  m->n_bins = (guint) MAX ((scen->duration + SIM_BIN - 1) / SIM_BIN, 1);
  for (l = 0; l < 2; l++) {
    LinkAcc *acc = &m->acc[l];
    m->links[l] = rc_link_new (l == 0 ? &scen->link : &scen->reverse);
    acc->bytes = g_new0 (guint64, m->n_bins + 1);
    acc->qd_sum_ms = g_new0 (gdouble, m->n_bins + 1);
    acc->qd_n = g_new0 (guint32, m->n_bins + 1);
    acc->cap_bps = g_new0 (gdouble, m->n_bins + 1);
    acc->queue_ms = g_new0 (gdouble, m->n_bins + 1);
    acc->last_departed = g_new0 (GstClockTime, m->n_bins + 1);
    acc->qdelay_ms = g_array_new (FALSE, FALSE, sizeof (gfloat));
  }
  m->n_flows = scen->flows->len;
  m->flows = g_new0 (Flow, m->n_flows);
  for (i = 0; i < m->n_flows; i++) {
    Flow *f = &m->flows[i];
    const SimFlowConfig *c = g_ptr_array_index (scen->flows, i);

    f->cfg = c;
    f->id = i;
    f->start = c->start;
    /* A flow starting after a shortened run is simply never active. */
    f->stop = MAX (c->start, MIN (c->stop, scen->duration));
    f->qdelay_ms = g_array_new (FALSE, FALSE, sizeof (gfloat));
    f->bins = g_new0 (Bin, m->n_bins + 1);
    f->stat_names = g_ptr_array_new_with_free_func (g_free);
    f->targets = g_array_new (FALSE, FALSE, sizeof (LoggedTarget));
    f->frames = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
        g_free);
  }
  update_window (m);
  return m;
}

void
sim_metrics_free (SimMetrics * m)
{
  guint i, b, l;

  if (!m)
    return;
  for (l = 0; l < 2; l++) {
    LinkAcc *acc = &m->acc[l];
    rc_link_free (m->links[l]);
    g_free (acc->bytes);
    g_free (acc->qd_sum_ms);
    g_free (acc->qd_n);
    g_free (acc->cap_bps);
    g_free (acc->queue_ms);
    g_free (acc->last_departed);
    g_array_unref (acc->qdelay_ms);
  }
  for (i = 0; i < m->n_flows; i++) {
    Flow *f = &m->flows[i];
    for (b = 0; b <= m->n_bins; b++)
      g_free (f->bins[b].stats);
    g_free (f->bins);
    g_array_unref (f->qdelay_ms);
    g_ptr_array_unref (f->stat_names);
    g_array_unref (f->targets);
    g_hash_table_unref (f->frames);
  }
  g_free (m->flows);
  g_free (m->controller);
  g_free (m);
}

void
sim_metrics_set_controller (SimMetrics * m, const gchar * name)
{
  g_free (m->controller);
  m->controller = g_strdup (name);
}

void
sim_metrics_skip_flow (SimMetrics * m, guint flow)
{
  g_return_if_fail (flow < m->n_flows && !m->flows[flow].has_packets);
  m->flows[flow].skipped = TRUE;
  update_window (m);
}

SimLinkId
sim_metrics_data_link (SimMetrics * m, guint flow)
{
  g_return_val_if_fail (flow < m->n_flows, SIM_LINK_FORWARD);
  return m->flows[flow].cfg->reverse ? SIM_LINK_REVERSE : SIM_LINK_FORWARD;
}

GstClockTime
sim_metrics_prop_delay (SimMetrics * m, guint flow, SimLinkId link)
{
  g_return_val_if_fail (flow < m->n_flows, 0);
  return link == sim_metrics_data_link (m, flow) ? m->flows[flow].cfg->delay :
      m->flows[flow].cfg->return_delay;
}

/* ------------------------------------------------------------- packets */

/* The frame of a media packet with a known capture time, created when
 * `create`; NULL otherwise. */
static FrameAcc *
frame_of (Flow * f, const SimMetricsPacket * p, gboolean create)
{
  gint64 key = (gint64) p->capture;
  FrameAcc *fa;

  if (p->kind != SIM_METRICS_MEDIA || !p->has_capture)
    return NULL;
  fa = g_hash_table_lookup (f->frames, &key);
  if (!fa && create) {
    fa = g_new0 (FrameAcc, 1);
    g_hash_table_insert (f->frames, g_memdup2 (&key, sizeof (key)), fa);
  }
  return fa;
}

void
sim_metrics_enter (SimMetrics * m, const SimMetricsPacket * p)
{
  Flow *f = &m->flows[p->flow];
  Bin *b = &f->bins[bin_of (m, p->entry)];
  FrameAcc *fa = frame_of (f, p, TRUE);

  if (fa) {
    fa->entered++;
    fa->last_entry = MAX (fa->last_entry, p->entry);
  }
  f->has_packets = TRUE;
  if (!is_data (p->kind))
    return;
  f->sent_pkts++;
  f->sent_bytes += p->size;
  b->sent_pkts++;
  b->sent_bytes += p->size;
  if (p->kind == SIM_METRICS_FEC) {
    f->fec_bytes += p->size;
    b->fec_bytes += p->size;
  }
}

/* A packet left the bottleneck at p->departed, delivered or lost after
 * it: either way it used the link's capacity, so it counts toward the
 * link's rate and utilization. */
static void
count_departure (SimMetrics * m, const SimMetricsPacket * p)
{
  LinkAcc *acc = &m->acc[p->link];

  acc->bytes[bin_of (m, p->departed)] += p->size;
  if (p->departed >= m->util_from && p->departed < m->util_to &&
      p->link == SIM_LINK_FORWARD)
    acc->window_bytes += p->size;
}

static void
leave_delivered (SimMetrics * m, const SimMetricsPacket * p)
{
  Flow *f = &m->flows[p->flow];
  LinkAcc *acc = &m->acc[p->link];
  GstClockTime prop = sim_metrics_prop_delay (m, p->flow, p->link);
  GstClockTime owd = p->arrival - p->entry;
  guint db = bin_of (m, p->departed);
  Bin *b = &f->bins[db];
  gdouble qd = (gdouble) (owd - MIN (prop, owd)) / GST_MSECOND;
  gfloat qdf = (gfloat) qd;

  count_departure (m, p);
  acc->qd_sum_ms[db] += qd;
  acc->qd_n[db]++;
  g_array_append_val (acc->qdelay_ms, qdf);
  if (p->kind == SIM_METRICS_MEDIA)
    f->media_delivered++;
  if (is_data (p->kind)) {
    f->delivered_pkts++;
    b->delivered_pkts++;
    b->qd_sum_ms += qd;
    b->qd_max_ms = MAX (b->qd_max_ms, qdf);
    g_array_append_val (f->qdelay_ms, qdf);
  }
  if (p->goodput && is_data (p->kind) && p->kind != SIM_METRICS_FEC) {
    b->goodput_bytes += p->size;
    if (p->departed >= f->start && p->departed <= f->stop)
      f->goodput_bytes += p->size;
  }
}

void
sim_metrics_leave (SimMetrics * m, const SimMetricsPacket * p)
{
  Flow *f = &m->flows[p->flow];
  gboolean data = is_data (p->kind);
  FrameAcc *fa = frame_of (f, p, FALSE);

  if (fa) {
    fa->left++;
    if (p->fate == SIM_FATE_DELIVERED) {
      fa->delivered++;
      fa->last_arrival = MAX (fa->last_arrival, p->arrival);
    }
  }

  if (p->fate != SIM_FATE_DROPPED) {
    guint eb = bin_of (m, p->entry);
    LinkAcc *acc = &m->acc[p->link];
    acc->last_departed[eb] = MAX (acc->last_departed[eb], p->departed);
  }
  if (p->fate != SIM_FATE_DELIVERED && p->kind == SIM_METRICS_MEDIA)
    f->media_lost++;
  switch (p->fate) {
    case SIM_FATE_DROPPED:
      if (data) {
        f->lost_queue++;
        f->bins[bin_of (m, p->entry)].dropped_pkts++;
      }
      break;
    case SIM_FATE_LOST:
      count_departure (m, p);
      if (data) {
        f->lost_link++;
        f->bins[bin_of (m, p->departed)].link_lost_pkts++;
      }
      break;
    case SIM_FATE_DELIVERED:
      leave_delivered (m, p);
      break;
  }
}

/* ------------------------------------------------------------ samples */

static void
append_value (GString * s, const GValue * v)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  switch (G_VALUE_TYPE (v)) {
    case G_TYPE_DOUBLE:
      g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.6g",
              g_value_get_double (v)));
      break;
    case G_TYPE_FLOAT:
      g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.6g",
              g_value_get_float (v)));
      break;
    case G_TYPE_UINT64:
      g_string_append_printf (s, "%" G_GUINT64_FORMAT, g_value_get_uint64 (v));
      break;
    case G_TYPE_INT64:
      g_string_append_printf (s, "%" G_GINT64_FORMAT, g_value_get_int64 (v));
      break;
    case G_TYPE_UINT:
      g_string_append_printf (s, "%u", g_value_get_uint (v));
      break;
    case G_TYPE_INT:
      g_string_append_printf (s, "%d", g_value_get_int (v));
      break;
    case G_TYPE_BOOLEAN:
      g_string_append (s, g_value_get_boolean (v) ? "1" : "0");
      break;
    default:{
      gchar *str = G_VALUE_HOLDS_STRING (v) ? g_value_dup_string (v) :
          gst_value_serialize (v);
      const gchar *c;
      g_string_append_c (s, '"');
      for (c = str ? str : ""; *c; c++) {
        if (*c == '"')
          g_string_append_c (s, '"');
        g_string_append_c (s, *c);
      }
      g_string_append_c (s, '"');
      g_free (str);
      break;
    }
  }
}

/* The controller's stats as a CSV fragment, in the order of the fields of
 * the flow's first sample. */
static gchar *
stats_row (Flow * f, const GstStructure * st)
{
  GString *row = g_string_new (NULL);
  guint i;

  if (f->stat_names->len == 0) {
    gint n = gst_structure_n_fields (st);
    for (i = 0; i < (guint) n; i++)
      g_ptr_array_add (f->stat_names,
          g_strdup (gst_structure_nth_field_name (st, i)));
  }
  for (i = 0; i < f->stat_names->len; i++) {
    const GValue *v = gst_structure_get_value (st,
        g_ptr_array_index (f->stat_names, i));
    if (i)
      g_string_append_c (row, ',');
    if (v)
      append_value (row, v);
  }
  return g_string_free (row, FALSE);
}

void
sim_metrics_sample (SimMetrics * m, guint flow, guint bin,
    const SimMetricsSample * s)
{
  Flow *f;
  Bin *b;

  g_return_if_fail (flow < m->n_flows && bin < m->n_bins);
  f = &m->flows[flow];
  b = &f->bins[bin];
  b->active = s->active && !f->skipped;
  b->target_bps = s->target_bps;
  b->encoder_bps = s->encoder_bps;
  b->pacing_bps = s->pacing_bps;
  b->cwnd = s->cwnd;
  b->srtt_ms = s->srtt_ms;
  g_free (b->stats);
  b->stats = s->stats ? stats_row (f, s->stats) : NULL;
}

void
sim_metrics_sample_queue (SimMetrics * m, SimLinkId link, guint bin,
    GstClockTime queue_delay)
{
  g_return_if_fail (bin < m->n_bins);
  m->acc[link].queue_ms[bin] = (gdouble) queue_delay / GST_MSECOND;
}

void
sim_metrics_log_target (SimMetrics * m, guint flow, GstClockTime t,
    gdouble bps)
{
  LoggedTarget v = { t, bps };

  g_return_if_fail (m->source == SIM_METRICS_LOGGED && flow < m->n_flows);
  g_array_append_val (m->flows[flow].targets, v);
}

static gint
cmp_target (gconstpointer a, gconstpointer b)
{
  const LoggedTarget *x = a, *y = b;

  return x->t < y->t ? -1 : x->t > y->t;
}

/* Logged: each bin's target is the last one logged at or before its
 * start, as a simulation samples it (0 before the first). */
static void
derive_targets (Flow * f, guint n_bins)
{
  guint b, k = 0;
  gdouble v = 0;

  g_array_sort (f->targets, cmp_target);
  for (b = 0; b < n_bins; b++) {
    for (; k < f->targets->len &&
        g_array_index (f->targets, LoggedTarget, k).t <= b * SIM_BIN; k++)
      v = g_array_index (f->targets, LoggedTarget, k).bps;
    f->bins[b].target_bps = v;
  }
}

/* Logged: what the simulation would have sampled, from the scenario and
 * the packets (and the targets, where the log has them). */
static void
derive_samples (SimMetrics * m)
{
  guint i, b, l;

  for (i = 0; i < m->n_flows; i++) {
    Flow *f = &m->flows[i];
    const SimFlowConfig *c = f->cfg;
    gboolean short_tcp = c->kind == SIM_FLOW_TCP && c->size_max > 0;

    for (b = 0; b < m->n_bins; b++) {
      GstClockTime t = b * SIM_BIN;
      gboolean on = !f->skipped && t >= f->start && t < f->stop;
      if (c->kind == SIM_FLOW_MEDIA)
        on = on && !sim_flow_paused (c, t);
      else if (short_tcp)
        on = on && f->bins[b].sent_pkts > 0;
      f->bins[b].active = on;
    }
    if (f->targets->len)
      derive_targets (f, m->n_bins);
  }
  for (l = 0; l < 2; l++) {
    LinkAcc *acc = &m->acc[l];
    GstClockTime last = 0;
    for (b = 0; b < m->n_bins; b++) {
      GstClockTime t = b * SIM_BIN;
      acc->queue_ms[b] = last > t ? (gdouble) (last - t) / GST_MSECOND : 0;
      last = MAX (last, acc->last_departed[b]);
    }
  }
}

/* The capacity per instant, integrated exactly (rc_link_capacity_bits):
 * a schedule's rate, or a trace's delivery opportunities, in each bin and
 * over the utilization window. */
static void
integrate_capacity (SimMetrics * m)
{
  guint l, b;

  for (l = 0; l < 2; l++) {
    for (b = 0; b < m->n_bins; b++) {
      GstClockTime from = b * SIM_BIN, to = MIN ((b + 1) * SIM_BIN, m->end);
      m->acc[l].cap_bps[b] = to > from ?
          (gdouble) rc_link_capacity_bits (m->links[l], from, to) /
          ((gdouble) (to - from) / GST_SECOND) : 0;
    }
  }
  m->util_cap_bits = (gdouble) rc_link_capacity_bits (m->links[0],
      m->util_from, m->util_to);
}

void
sim_metrics_finish (SimMetrics * m)
{
  g_return_if_fail (!m->finished);
  m->finished = TRUE;
  if (m->source == SIM_METRICS_LOGGED)
    derive_samples (m);
  integrate_capacity (m);
}

void
sim_metrics_flow_window (SimMetrics * m, guint flow, GstClockTime from,
    GstClockTime to, SimWindow * out)
{
  Flow *f;
  guint b, b0, b1, nt = 0;
  guint64 bytes = 0;
  gdouble qd = 0, target = 0;

  g_return_if_fail (flow < m->n_flows && to > from);
  f = &m->flows[flow];
  memset (out, 0, sizeof (*out));
  b0 = bin_of (m, from);
  b1 = bin_of (m, to);
  for (b = b0; b < b1; b++) {
    Bin *bn = &f->bins[b];
    bytes += bn->goodput_bytes;
    qd += bn->qd_sum_ms;
    out->sent_pkts += bn->sent_pkts;
    out->delivered_pkts += bn->delivered_pkts;
    out->lost_pkts += bn->dropped_pkts + bn->link_lost_pkts;
    if (f->cfg->kind == SIM_FLOW_MEDIA && b * SIM_BIN >= f->start &&
        b * SIM_BIN < f->stop) {
      target += bn->target_bps;
      nt++;
    }
  }
  out->goodput_bps = bytes * 8.0 / ((gdouble) (to - from) / GST_SECOND);
  out->qdelay_mean_ms = out->delivered_pkts ? qd / out->delivered_pkts : 0;
  out->target_mean_bps = nt ? target / nt : 0;
}

/* ------------------------------------------------------------- metrics */

typedef struct
{
  gboolean valid;
  gdouble mean, p50, p95, max;
} Dist;

static gint
cmp_float (gconstpointer a, gconstpointer b)
{
  gfloat x = *(const gfloat *) a, y = *(const gfloat *) b;
  return x < y ? -1 : x > y;
}

/* Nearest-rank percentiles (docs/metrics.md). */
static Dist
dist_of (GArray * samples)
{
  Dist d = { 0 };
  GArray *s;
  gdouble sum = 0;
  guint i, n = samples->len;

  if (n == 0)
    return d;
  s = g_array_copy (samples);
  qsort (s->data, n, sizeof (gfloat), cmp_float);
  for (i = 0; i < n; i++)
    sum += g_array_index (s, gfloat, i);
  d.valid = TRUE;
  d.mean = sum / n;
#define RANK(p) g_array_index (s, gfloat, (guint) MAX (ceil ((p) * n), 1) - 1)
  d.p50 = RANK (0.50);
  d.p95 = RANK (0.95);
#undef RANK
  d.max = g_array_index (s, gfloat, n - 1);
  g_array_unref (s);
  return d;
}

/* A media flow's frames (docs/metrics.md, `frames`): of those whose packets
 * all left the link, the complete ones (every packet delivered) give the
 * latency from capture to the last packet's arrival, and to the last
 * packet's entry into the bottleneck queue (the sender's part: encoding
 * and pacing); the others lost a packet. Frames with a packet still in the
 * link at the end are left out. FALSE: no packet carried a capture time. */
typedef struct
{
  guint complete, incomplete;
  Dist latency, sent;
} FrameStats;

static gboolean
frame_stats (Flow * f, FrameStats * out)
{
  GHashTableIter it;
  gpointer k, v;
  GArray *lat, *snd;

  memset (out, 0, sizeof (*out));
  if (g_hash_table_size (f->frames) == 0)
    return FALSE;
  lat = g_array_new (FALSE, FALSE, sizeof (gfloat));
  snd = g_array_new (FALSE, FALSE, sizeof (gfloat));
  g_hash_table_iter_init (&it, f->frames);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    GstClockTime cap = (GstClockTime) * (gint64 *) k;
    FrameAcc *fa = v;
    gfloat x;

    if (fa->left < fa->entered)
      continue;
    if (fa->delivered < fa->entered) {
      out->incomplete++;
      continue;
    }
    out->complete++;
    x = (gfloat) ((gdouble) (fa->last_arrival - MIN (cap, fa->last_arrival))
        / GST_MSECOND);
    g_array_append_val (lat, x);
    x = (gfloat) ((gdouble) (fa->last_entry - MIN (cap, fa->last_entry)) /
        GST_MSECOND);
    g_array_append_val (snd, x);
  }
  out->latency = dist_of (lat);
  out->sent = dist_of (snd);
  g_array_unref (lat);
  g_array_unref (snd);
  return TRUE;
}

static gdouble
flow_demand (Flow * f)
{
  switch (f->cfg->kind) {
    case SIM_FLOW_MEDIA:
      return (gdouble) f->cfg->sender.limits.max_bps;
    case SIM_FLOW_CBR:
      return (gdouble) f->cfg->rate_bps;
    case SIM_FLOW_TCP:
      break;
  }
  return G_MAXDOUBLE;
}

/* Max-min fair share of `f` in bin `b` among the flows active on the same
 * link then (water-filling over their demands). */
static gdouble
fair_share (SimMetrics * m, Flow * f, guint b)
{
  gdouble cap = m->acc[f->cfg->reverse ? 1 : 0].cap_bps[b];
  gdouble demands[RC_LINK_MAX_FLOWS];
  guint n = 0, i, j;

  if (!f->bins[b].active)
    return 0;
  for (i = 0; i < m->n_flows; i++) {
    Flow *o = &m->flows[i];
    if (o->cfg->reverse == f->cfg->reverse && o->bins[b].active)
      demands[n++] = flow_demand (o);
  }
  /* Sort ascending (n is small), then fill. */
  for (i = 1; i < n; i++)
    for (j = i; j > 0 && demands[j] < demands[j - 1]; j--) {
      gdouble t = demands[j];
      demands[j] = demands[j - 1];
      demands[j - 1] = t;
    }
  /* Flows whose demand is below an equal split of what is left get their
   * demand; the rest split the remainder equally. */
  for (i = 0; i < n; i++) {
    gdouble equal = cap / (n - i);
    if (demands[i] >= equal)
      return MIN (equal, flow_demand (f));
    if (demands[i] >= flow_demand (f))
      return flow_demand (f);   /* f (or one with its demand) is satisfied */
    cap -= demands[i];
  }
  return flow_demand (f);
}

static gdouble
flow_active_s (Flow * f)
{
  return f->stop > f->start ? (gdouble) (f->stop - f->start) / GST_SECOND : 0;
}

/* Convergence (docs/metrics.md): what changes a flow's fair share. */
typedef enum
{
  CONV_START = 0,               /* the flow starts */
  CONV_RESUME,                  /* it resumes after a pause */
  CONV_CAPACITY,                /* a step of its link's schedule */
  CONV_FLOWS,                   /* another flow on its link starts, stops,
                                 * pauses or resumes */
  CONV_PAUSE,                   /* it pauses: nothing to converge to */
} ConvCause;

static const gchar *const conv_cause_names[] = {
  "start", "resume", "capacity", "flows", "pause"
};

typedef struct
{
  GstClockTime at;
  ConvCause cause;
  GstClockTime until;           /* the next change, or the flow's stop */
  gdouble after_s;              /* < 0: did not re-converge before `until` */
  gdouble target_bps;           /* mean target from STEADY_SKIP after `at`
                                 * to `until` */
  gdouble steady;               /* share of those bins within STEADY_TOLERANCE
                                 * of it; < 0: unknown */
} ConvChange;

static void
add_change (GArray * a, Flow * f, GstClockTime at, ConvCause cause)
{
  ConvChange c = { at, cause, f->stop, -1, 0, -1 };

  /* Changes before the start are the start's; none after the stop. */
  if (at >= f->start && at < f->stop)
    g_array_append_val (a, c);
}

static gint
cmp_change (gconstpointer a, gconstpointer b)
{
  const ConvChange *x = a, *y = b;

  if (x->at != y->at)
    return x->at < y->at ? -1 : 1;
  return (gint) x->cause - (gint) y->cause;
}

/* The flow's goodput, and its fair share, averaged over the bins from
 * `from` to `b` (at most CONV_SMOOTH_BINS), bit/s. */
static void
conv_smooth (SimMetrics * m, Flow * f, guint from, guint b, gdouble * goodput,
    gdouble * share)
{
  guint k, n = 0;

  *goodput = *share = 0;
  for (k = b + 1 - MIN (CONV_SMOOTH_BINS, b + 1 - from); k <= b; k++, n++) {
    *goodput += f->bins[k].goodput_bytes * 8.0 /
        ((gdouble) SIM_BIN / GST_SECOND);
    *share += fair_share (m, f, k);
  }
  *goodput /= MAX (n, 1);
  *share /= MAX (n, 1);
}

/* Seconds from the change at `c` to the end of the first bin of a run of
 * CONV_HOLD_BINS demanding bins, all before `e`, in which the smoothed
 * goodput is within CONV_TOLERANCE of the smoothed fair share; < 0 when
 * there is none. Only bins wholly after the change count, and the mean
 * does not reach back before it. */
static gdouble
reconverge (SimMetrics * m, Flow * f, GstClockTime c, GstClockTime e)
{
  guint b0 = (guint) MIN ((c + SIM_BIN - 1) / SIM_BIN, (guint64) m->n_bins);
  guint b1 = (guint) MIN (e / SIM_BIN, (guint64) m->n_bins), b;
  guint run_start = 0, held = 0;

  for (b = b0; b < b1; b++) {
    gdouble g, share;

    if (!f->bins[b].active)
      continue;                 /* not demanding: neither holds nor breaks */
    conv_smooth (m, f, b0, b, &g, &share);
    if (fabs (g - share) <= CONV_TOLERANCE * share) {
      if (held == 0)
        run_start = b;
      if (++held >= CONV_HOLD_BINS)
        return (gdouble) ((run_start + 1) * SIM_BIN - c) / GST_SECOND;
    } else {
      held = 0;
    }
  }
  return -1;
}

/* Issue 10's "the target within +-10 % of its mean after start-up", per
 * stretch: over the flow's active bins from STEADY_SKIP after a change
 * (`from`) to the next change (`to`), the mean of the target handed to
 * the encoder and the share of bins whose target is within
 * STEADY_TOLERANCE of it. A fixed skip, not the re-convergence time: a
 * flow that never converges is then judged too, and a simulation and a
 * packet log judge the same span. FALSE when the flow has no targets (not
 * media, or a log without `target` lines) or fewer than STEADY_MIN_BINS
 * active bins there. */
#define STEADY_TOLERANCE 0.1
#define STEADY_SKIP (10 * GST_SECOND)
#define STEADY_MIN_BINS 25

/* The state columns a simulation samples (target, encoder, pacing). */
static gboolean
has_media_columns (SimMetrics * m, Flow * f)
{
  return f->cfg->kind == SIM_FLOW_MEDIA &&
      (m->source == SIM_METRICS_SIMULATED || f->targets->len > 0);
}

static gboolean
target_steadiness (SimMetrics * m, Flow * f, GstClockTime from,
    GstClockTime to, gdouble * mean, gdouble * within)
{
  guint b0 = (guint) MIN ((from + SIM_BIN - 1) / SIM_BIN,
      (guint64) m->n_bins);
  guint b1 = (guint) MIN (to / SIM_BIN, (guint64) m->n_bins), b, n = 0, in = 0;
  gdouble sum = 0;

  if (!has_media_columns (m, f))
    return FALSE;
  for (b = b0; b < b1; b++)
    if (f->bins[b].active) {
      sum += f->bins[b].target_bps;
      n++;
    }
  if (n < STEADY_MIN_BINS || sum <= 0)
    return FALSE;
  *mean = sum / n;
  for (b = b0; b < b1; b++)
    if (f->bins[b].active &&
        fabs (f->bins[b].target_bps - *mean) <= STEADY_TOLERANCE * *mean)
      in++;
  *within = (gdouble) in / n;
  return TRUE;
}

/* Every change in the flow's active time and how long it took to
 * re-converge after it (docs/metrics.md); empty for CBR and short TCP
 * flows. Changes come from the scenario, so a simulation and a packet log
 * find the same ones: the flow's start and resumes, its link's schedule
 * steps (a trace has none: it varies all the time), other flows on its
 * link starting, stopping, pausing, resuming (short TCP flows by their
 * start and stop, not per transfer). Same-time changes are one, with the
 * first cause in ConvCause order; one at which the flow is paused (its own
 * pause, or anything during it) is a boundary that is not judged. */
static GArray *
convergence (SimMetrics * m, Flow * f)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (ConvChange));
  const RcLinkConfig *lc = f->cfg->reverse ? &m->scen->reverse :
      &m->scen->link;
  guint i, j, n;

  if (f->cfg->kind == SIM_FLOW_CBR || (f->cfg->kind == SIM_FLOW_TCP &&
          f->cfg->size_max > 0) || f->stop <= f->start || f->skipped)
    return a;

  add_change (a, f, f->start, CONV_START);
  for (i = 0; f->cfg->pauses && i < f->cfg->pauses->len; i++) {
    SimPeriod *p = &g_array_index (f->cfg->pauses, SimPeriod, i);
    add_change (a, f, p->from, CONV_PAUSE);
    add_change (a, f, p->to, CONV_RESUME);
  }
  if (lc->mode == RC_CAPACITY_SCHEDULE) {
    guint64 before = lc->capacity_bps;
    for (i = 0; i < lc->n_steps; i++) {
      if (lc->steps[i].bps != before)
        add_change (a, f, lc->steps[i].at, CONV_CAPACITY);
      before = lc->steps[i].bps;
    }
  }
  for (j = 0; j < m->n_flows; j++) {
    Flow *o = &m->flows[j];
    if (o == f || o->skipped || o->cfg->reverse != f->cfg->reverse)
      continue;
    add_change (a, f, o->start, CONV_FLOWS);
    add_change (a, f, o->stop, CONV_FLOWS);
    for (i = 0; o->cfg->pauses && i < o->cfg->pauses->len; i++) {
      SimPeriod *p = &g_array_index (o->cfg->pauses, SimPeriod, i);
      add_change (a, f, p->from, CONV_FLOWS);
      add_change (a, f, p->to, CONV_FLOWS);
    }
  }
  g_array_sort (a, cmp_change);
  /* One per instant: the first after sorting has the first cause. A pause
   * at the same instant as other changes makes it a pause. */
  for (i = 0, n = 0; i < a->len; i++) {
    ConvChange *c = &g_array_index (a, ConvChange, i);
    if (n > 0 && g_array_index (a, ConvChange, n - 1).at == c->at) {
      if (c->cause == CONV_PAUSE)
        g_array_index (a, ConvChange, n - 1).cause = CONV_PAUSE;
      continue;
    }
    g_array_index (a, ConvChange, n++) = *c;
  }
  g_array_set_size (a, n);
  for (i = 0; i < a->len; i++) {
    ConvChange *c = &g_array_index (a, ConvChange, i);
    /* A change while the flow is paused is not judged either. */
    if (sim_flow_paused (f->cfg, c->at))
      c->cause = CONV_PAUSE;
    if (i + 1 < a->len)
      c->until = g_array_index (a, ConvChange, i + 1).at;
    if (c->cause != CONV_PAUSE)
      c->after_s = reconverge (m, f, c->at, c->until);
    if (c->cause == CONV_PAUSE || !target_steadiness (m, f,
            c->at + STEADY_SKIP, c->until, &c->target_bps, &c->steady))
      c->steady = -1;
  }
  /* Pauses are boundaries only. */
  for (i = 0, n = 0; i < a->len; i++)
    if (g_array_index (a, ConvChange, i).cause != CONV_PAUSE)
      g_array_index (a, ConvChange, n++) = g_array_index (a, ConvChange, i);
  g_array_set_size (a, n);
  return a;
}

/* The summary, convergence_s: the first change's, i.e. the convergence
 * after the flow's start (after its first resume if it starts paused);
 * < 0 (null) if it did not converge before the next change, or has none. */
static gdouble
convergence_summary (GArray * changes)
{
  return changes->len ? g_array_index (changes, ConvChange, 0).after_s : -1;
}

/* A media flow whose data crosses the forward bottleneck. */
static gboolean
in_fairness (Flow * f)
{
  return f->cfg->kind == SIM_FLOW_MEDIA && !f->cfg->reverse && !f->skipped;
}

/* Jain's index and min/max over the goodput of the media flows that share
 * the forward bottleneck, in the bins where all of them are active; FALSE
 * with fewer than two such flows or no such bin. */
static gboolean
fairness (SimMetrics * m, gdouble * jain, gdouble * min_max)
{
  gdouble x[RC_LINK_MAX_FLOWS];
  guint n = 0, i, b, overlap = 0;
  gdouble sum = 0, sq = 0, mn = G_MAXDOUBLE, mx = 0;

  for (i = 0; i < m->n_flows; i++)
    if (in_fairness (&m->flows[i]))
      x[n++] = 0;
  if (n < 2)
    return FALSE;
  for (b = 0; b < m->n_bins; b++) {
    gboolean all = TRUE;
    for (i = 0; i < m->n_flows && all; i++)
      if (in_fairness (&m->flows[i]) && !m->flows[i].bins[b].active)
        all = FALSE;
    if (!all)
      continue;
    overlap++;
    for (i = 0, n = 0; i < m->n_flows; i++)
      if (in_fairness (&m->flows[i]))
        x[n++] += m->flows[i].bins[b].goodput_bytes;
  }
  if (!overlap)
    return FALSE;
  for (i = 0; i < n; i++) {
    sum += x[i];
    sq += x[i] * x[i];
    mn = MIN (mn, x[i]);
    mx = MAX (mx, x[i]);
  }
  *jain = sq > 0 ? sum * sum / (n * sq) : 1.0;
  *min_max = mx > 0 ? mn / mx : 1.0;
  return TRUE;
}

static const gchar *
flow_controller (SimMetrics * m, Flow * f)
{
  switch (f->cfg->kind) {
    case SIM_FLOW_MEDIA:
      return m->controller ? m->controller : f->cfg->sender.controller->name;
    case SIM_FLOW_TCP:
      return f->cfg->cc == SIM_TCP_CUBIC ? "cubic" : "newreno";
    case SIM_FLOW_CBR:
      break;
  }
  return "none";
}

static gdouble
loss_of (Flow * f)
{
  guint64 known = f->delivered_pkts + f->lost_queue + f->lost_link;
  return known ? (gdouble) (f->lost_queue + f->lost_link) / known : 0;
}

/* Media packets lost before repair, and after it (what the repair packets
 * did not rebuild), over the media packets whose fate is known. A flow
 * without repair packets: both are loss_of(). */
static gdouble
media_loss (Flow * f, gboolean post)
{
  guint64 known = f->media_delivered + f->media_lost;
  guint64 lost = f->media_lost - (post ? MIN (f->repaired, f->media_lost) : 0);

  if (f->fec_bytes == 0)
    return loss_of (f);
  return known ? (gdouble) lost / known : 0;
}

void
sim_metrics_set_repaired (SimMetrics * m, guint flow, guint64 repaired)
{
  g_return_if_fail (flow < m->n_flows);
  m->flows[flow].repaired = repaired;
}

void
sim_metrics_set_fec_frames (SimMetrics * m, guint flow, guint64 hit,
    guint64 recovered)
{
  g_return_if_fail (flow < m->n_flows);
  m->flows[flow].frames_hit = hit;
  m->flows[flow].frames_recovered = recovered;
}

static gdouble
kbps (guint64 bytes, gdouble secs)
{
  return secs > 0 ? bytes * 8.0 / secs / 1000.0 : 0;
}

static gdouble
utilization (SimMetrics * m)
{
  return m->util_cap_bits > 0 ?
      m->acc[0].window_bytes * 8.0 / m->util_cap_bits : 0;
}

/* ------------------------------------------------------------- output */

static void
json_num (GString * s, gdouble v, const gchar * fmt)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (v)) {
    g_string_append (s, "null");
    return;
  }
  g_ascii_formatd (buf, sizeof buf, fmt, v);
  /* "-0.000" would differ from "0.000" for no reason. */
  if (buf[0] == '-' && strspn (buf + 1, "0.") == strlen (buf + 1))
    g_string_append (s, buf + 1);
  else
    g_string_append (s, buf);
}

static void
json_str (GString * s, const gchar * str)
{
  const gchar *c;

  g_string_append_c (s, '"');
  for (c = str; *c; c++) {
    if (*c == '"' || *c == '\\')
      g_string_append_printf (s, "\\%c", *c);
    else if ((guchar) * c < 0x20)
      g_string_append_printf (s, "\\u%04x", *c);
    else
      g_string_append_c (s, *c);
  }
  g_string_append_c (s, '"');
}

static void
json_dist (GString * s, Dist d)
{
  if (!d.valid) {
    g_string_append (s, "{\"mean\": null, \"p50\": null, \"p95\": null, "
        "\"max\": null}");
    return;
  }
  g_string_append (s, "{\"mean\": ");
  json_num (s, d.mean, "%.3f");
  g_string_append (s, ", \"p50\": ");
  json_num (s, d.p50, "%.3f");
  g_string_append (s, ", \"p95\": ");
  json_num (s, d.p95, "%.3f");
  g_string_append (s, ", \"max\": ");
  json_num (s, d.max, "%.3f");
  g_string_append (s, "}");
}

void
sim_metrics_write_json (SimMetrics * m, GString * s)
{
  gdouble jain = 0, mm = 0;
  gboolean fair = fairness (m, &jain, &mm), first = TRUE;
  guint i;

  g_string_append (s, "{\n  \"scenario\": ");
  json_str (s, m->scen->name);
  g_string_append_printf (s, ",\n  \"seed\": %u,\n  \"duration_s\": ",
      m->seed);
  json_num (s, (gdouble) m->end / GST_SECOND, "%.3f");
  g_string_append (s, ",\n  \"link\": {\"utilization\": ");
  json_num (s, utilization (m), "%.4f");
  g_string_append (s, ", \"qdelay_ms\": ");
  json_dist (s, dist_of (m->acc[0].qdelay_ms));
  g_string_append (s, "},\n  \"fairness\": {\"jain\": ");
  json_num (s, fair ? jain : NAN, "%.4f");
  g_string_append (s, ", \"min_max_ratio\": ");
  json_num (s, fair ? mm : NAN, "%.4f");
  g_string_append (s, "},\n  \"flows\": [");
  for (i = 0; i < m->n_flows; i++) {
    Flow *f = &m->flows[i];
    gdouble act, conv;
    GArray *changes;
    FrameStats fs;
    guint k;

    if (f->skipped)
      continue;
    act = flow_active_s (f);
    changes = convergence (m, f);
    conv = convergence_summary (changes);
    g_string_append_printf (s, "%s\n    {\"id\": %u, \"name\": ",
        first ? "" : ",", f->id);
    first = FALSE;
    json_str (s, f->cfg->name);
    g_string_append (s, ", \"kind\": ");
    json_str (s, sim_flow_kind_to_string (f->cfg->kind));
    g_string_append (s, ", \"controller\": ");
    json_str (s, flow_controller (m, f));
    g_string_append (s, ", \"direction\": ");
    json_str (s, f->cfg->reverse ? "reverse" : "forward");
    g_string_append (s, ",\n     \"start_s\": ");
    json_num (s, (gdouble) f->start / GST_SECOND, "%.3f");
    g_string_append (s, ", \"stop_s\": ");
    json_num (s, (gdouble) f->stop / GST_SECOND, "%.3f");
    g_string_append (s, ", \"goodput_kbps\": ");
    json_num (s, kbps (f->goodput_bytes, act), "%.3f");
    g_string_append (s, ", \"send_kbps\": ");
    json_num (s, kbps (f->sent_bytes, act), "%.3f");
    g_string_append (s, ", \"fec_kbps\": ");
    json_num (s, kbps (f->fec_bytes, act), "%.3f");
    g_string_append (s, ",\n     \"qdelay_ms\": ");
    json_dist (s, dist_of (f->qdelay_ms));
    g_string_append (s, ",\n     \"loss_pre\": ");
    json_num (s, media_loss (f, FALSE), "%.6f");
    g_string_append (s, ", \"loss_post\": ");
    json_num (s, media_loss (f, TRUE), "%.6f");
    g_string_append_printf (s, ", \"fec_repaired\": %" G_GUINT64_FORMAT,
        f->repaired);
    g_string_append_printf (s, ", \"fec_frames_hit\": %" G_GUINT64_FORMAT
        ", \"ffre\": ", f->frames_hit);
    json_num (s, f->frames_hit ? (gdouble) f->frames_recovered /
        f->frames_hit : NAN, "%.4f");
    g_string_append (s, ",\n     \"frames\": ");
    if (frame_stats (f, &fs)) {
      g_string_append_printf (s, "{\"complete\": %u, \"incomplete\": %u, "
          "\"latency_ms\": ", fs.complete, fs.incomplete);
      json_dist (s, fs.latency);
      g_string_append (s, ", \"sent_ms\": ");
      json_dist (s, fs.sent);
      g_string_append (s, "}");
    } else {
      g_string_append (s, "null");
    }
    g_string_append (s, ",\n     \"convergence_s\": ");
    json_num (s, conv >= 0 ? conv : NAN, "%.3f");
    g_string_append (s, ",\n     \"convergence\": [");
    for (k = 0; k < changes->len; k++) {
      ConvChange *c = &g_array_index (changes, ConvChange, k);
      g_string_append_printf (s, "%s{\"at_s\": ", k ? ", " : "");
      json_num (s, (gdouble) c->at / GST_SECOND, "%.3f");
      g_string_append (s, ", \"cause\": ");
      json_str (s, conv_cause_names[c->cause]);
      g_string_append (s, ", \"until_s\": ");
      json_num (s, (gdouble) c->until / GST_SECOND, "%.3f");
      g_string_append (s, ", \"after_s\": ");
      json_num (s, c->after_s >= 0 ? c->after_s : NAN, "%.3f");
      g_string_append (s, ", \"target_kbps\": ");
      json_num (s, c->steady >= 0 ? c->target_bps / 1000 : NAN, "%.3f");
      g_string_append (s, ", \"target_within_10pct\": ");
      json_num (s, c->steady >= 0 ? c->steady : NAN, "%.4f");
      g_string_append (s, "}");
    }
    g_string_append (s, "]}");
    g_array_unref (changes);
  }
  g_string_append (s, "\n  ]\n}\n");
}

static void
fmt_dist_cell (GString * s, gdouble v, gboolean valid)
{
  if (valid)
    g_string_append_printf (s, " %8.1f", v);
  else
    g_string_append_printf (s, " %8s", "-");
}

void
sim_metrics_write_table (SimMetrics * m, GString * s)
{
  gdouble jain = 0, mm = 0;
  gboolean fair = fairness (m, &jain, &mm);
  Dist ld = dist_of (m->acc[0].qdelay_ms);
  guint i;

  g_string_append_printf (s, "scenario %s, seed %u, %.1f s\n",
      m->scen->name, m->seed, (gdouble) m->end / GST_SECOND);
  g_string_append_printf (s, "link: utilization %.1f %%", 100 *
      utilization (m));
  if (ld.valid)
    g_string_append_printf (s, ", queueing delay mean %.1f ms, p50 %.1f, "
        "p95 %.1f, max %.1f", ld.mean, ld.p50, ld.p95, ld.max);
  g_string_append (s, "\n");
  if (fair)
    g_string_append_printf (s, "fairness (media flows): Jain %.3f, "
        "min/max %.3f\n", jain, mm);
  else
    g_string_append (s, "fairness: - (fewer than two media flows active "
        "together on the forward link)\n");
  g_string_append_printf (s, "\n%3s %-14s %-5s %-8s %3s %6s %6s %9s %9s %6s "
      "%8s %8s %8s %8s %7s\n", "id", "flow", "kind", "ctrl", "dir", "start",
      "stop", "goodput", "send", "fec", "qd mean", "qd p50", "qd p95",
      "loss", "conv");
  g_string_append_printf (s, "%3s %-14s %-5s %-8s %3s %6s %6s %9s %9s %6s "
      "%8s %8s %8s %8s %7s\n", "", "", "", "", "", "s", "s", "kbit/s",
      "kbit/s", "kbit/s", "ms", "ms", "ms", "%", "s");
  for (i = 0; i < m->n_flows; i++) {
    Flow *f = &m->flows[i];
    gdouble act, conv;
    GArray *changes;
    Dist d;

    if (f->skipped)
      continue;
    act = flow_active_s (f);
    changes = convergence (m, f);
    conv = convergence_summary (changes);
    g_array_unref (changes);
    d = dist_of (f->qdelay_ms);
    g_string_append_printf (s, "%3u %-14.14s %-5s %-8s %3s %6.1f %6.1f %9.1f "
        "%9.1f %6.1f", f->id, f->cfg->name,
        sim_flow_kind_to_string (f->cfg->kind), flow_controller (m, f),
        f->cfg->reverse ? "rev" : "fwd", (gdouble) f->start / GST_SECOND,
        (gdouble) f->stop / GST_SECOND, kbps (f->goodput_bytes, act),
        kbps (f->sent_bytes, act), kbps (f->fec_bytes, act));
    fmt_dist_cell (s, d.mean, d.valid);
    fmt_dist_cell (s, d.p50, d.valid);
    fmt_dist_cell (s, d.p95, d.valid);
    g_string_append_printf (s, " %8.3f", 100 * media_loss (f, FALSE));
    if (conv >= 0)
      g_string_append_printf (s, " %7.1f\n", conv);
    else
      g_string_append_printf (s, " %7s\n", "-");
  }
  for (i = 0; i < m->n_flows; i++) {
    Flow *f = &m->flows[i];
    FrameStats fs;

    if (f->skipped || !frame_stats (f, &fs))
      continue;
    g_string_append_printf (s, "frames of %u (%s): %u complete, %u lost a "
        "packet", f->id, f->cfg->name, fs.complete, fs.incomplete);
    if (fs.latency.valid)
      g_string_append_printf (s, "; capture to the last packet received "
          "mean %.1f ms, p50 %.1f, p95 %.1f; to the last packet sent p50 "
          "%.1f, p95 %.1f", fs.latency.mean, fs.latency.p50, fs.latency.p95,
          fs.sent.p50, fs.sent.p95);
    g_string_append (s, "\n");
  }
}

static gboolean
write_file (const gchar * dir, const gchar * name, GString * s,
    GError ** error)
{
  gchar *path = g_build_filename (dir, name, NULL);
  gboolean ok = g_file_set_contents (path, s->str, s->len, error);

  g_free (path);
  return ok;
}

/* Locale-independent, fixed precision: same numbers, same bytes. */
static void
csv_fmt (GString * s, const gchar * fmt, gdouble v, gboolean comma)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
  if (comma)
    g_string_append_c (s, ',');
  g_string_append (s, g_ascii_formatd (buf, sizeof buf, fmt, v));
}

static void
csv_num (GString * s, gdouble v)
{
  csv_fmt (s, "%.3f", v, TRUE);
}

static gboolean
has_tcp_columns (SimMetrics * m, Flow * f)
{
  return m->source == SIM_METRICS_SIMULATED && f->cfg->kind == SIM_FLOW_TCP;
}

static void
csv_flow (SimMetrics * m, Flow * f, GString * s)
{
  gdouble bin_s = (gdouble) SIM_BIN / GST_SECOND;
  guint b, k;

  g_string_append (s, "t_s,active,send_kbps,goodput_kbps,fec_kbps,"
      "fair_share_kbps,qdelay_ms,qdelay_max_ms,loss,delivered_pkts,"
      "dropped_pkts,lost_pkts");
  if (has_media_columns (m, f)) {
    g_string_append (s, ",target_kbps");
    if (m->source == SIM_METRICS_SIMULATED) {   /* a log has the target only */
      g_string_append (s, ",encoder_kbps,pacing_kbps");
      for (k = 0; k < f->stat_names->len; k++)
        g_string_append_printf (s, ",%s",
            (gchar *) g_ptr_array_index (f->stat_names, k));
    }
  } else if (has_tcp_columns (m, f)) {
    g_string_append (s, ",cwnd_segments,srtt_ms");
  }
  g_string_append_c (s, '\n');
  for (b = 0; b < m->n_bins; b++) {
    Bin *bn = &f->bins[b];
    guint32 lost = bn->dropped_pkts + bn->link_lost_pkts;
    guint32 known = bn->delivered_pkts + lost;

    csv_fmt (s, "%.1f", b * bin_s, FALSE);
    g_string_append_printf (s, ",%d", bn->active ? 1 : 0);
    csv_num (s, bn->sent_bytes * 8.0 / bin_s / 1000);
    csv_num (s, bn->goodput_bytes * 8.0 / bin_s / 1000);
    csv_num (s, bn->fec_bytes * 8.0 / bin_s / 1000);
    csv_num (s, fair_share (m, f, b) / 1000);
    csv_num (s, bn->delivered_pkts ? bn->qd_sum_ms / bn->delivered_pkts : 0);
    csv_num (s, bn->qd_max_ms);
    csv_fmt (s, "%.4f", known ? (gdouble) lost / known : 0.0, TRUE);
    g_string_append_printf (s, ",%u,%u,%u", bn->delivered_pkts,
        bn->dropped_pkts, bn->link_lost_pkts);
    if (has_media_columns (m, f)) {
      csv_num (s, bn->target_bps / 1000);
      if (m->source == SIM_METRICS_SIMULATED) {
        csv_num (s, bn->encoder_bps / 1000);
        csv_num (s, bn->pacing_bps / 1000);
        if (f->stat_names->len) {
          g_string_append_c (s, ',');
          if (bn->stats)
            g_string_append (s, bn->stats);
          else
            for (k = 1; k < f->stat_names->len; k++)
              g_string_append_c (s, ',');
        }
      }
    } else if (has_tcp_columns (m, f)) {
      csv_num (s, bn->cwnd);
      csv_num (s, bn->srtt_ms);
    }
    g_string_append_c (s, '\n');
  }
}

gboolean
sim_metrics_write_csv (SimMetrics * m, const gchar * dir, GError ** error)
{
  GString *s = g_string_new (NULL);
  gdouble bin_s = (gdouble) SIM_BIN / GST_SECOND;
  guint i, b;
  gboolean ok;

  if (g_mkdir_with_parents (dir, 0755) < 0) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errno),
        "%s: %s", dir, g_strerror (errno));
    g_string_free (s, TRUE);
    return FALSE;
  }

  g_string_append (s, "t_s,capacity_kbps,reverse_capacity_kbps,link_kbps,"
      "link_qdelay_ms,queue_ms,reverse_link_kbps,reverse_queue_ms\n");
  for (b = 0; b < m->n_bins; b++) {
    LinkAcc *f = &m->acc[0], *r = &m->acc[1];
    csv_fmt (s, "%.1f", b * bin_s, FALSE);
    csv_num (s, f->cap_bps[b] / 1000);
    csv_num (s, m->scen->has_reverse ? r->cap_bps[b] / 1000 : 0);
    csv_num (s, f->bytes[b] * 8.0 / bin_s / 1000);
    csv_num (s, f->qd_n[b] ? f->qd_sum_ms[b] / f->qd_n[b] : 0);
    csv_num (s, f->queue_ms[b]);
    csv_num (s, r->bytes[b] * 8.0 / bin_s / 1000);
    csv_num (s, r->queue_ms[b]);
    g_string_append_c (s, '\n');
  }
  ok = write_file (dir, "capacity.csv", s, error);

  g_string_truncate (s, 0);
  g_string_append (s, "id,name,kind,controller,direction,start_s,stop_s\n");
  for (i = 0; ok && i < m->n_flows; i++) {
    Flow *f = &m->flows[i];
    if (f->skipped)
      continue;
    g_string_append_printf (s, "%u,%s,%s,%s,%s", f->id,
        f->cfg->name, sim_flow_kind_to_string (f->cfg->kind),
        flow_controller (m, f), f->cfg->reverse ? "reverse" : "forward");
    csv_num (s, (gdouble) f->start / GST_SECOND);
    csv_num (s, (gdouble) f->stop / GST_SECOND);
    g_string_append_c (s, '\n');
  }
  ok = ok && write_file (dir, "flows.csv", s, error);

  for (i = 0; ok && i < m->n_flows; i++) {
    Flow *f = &m->flows[i];
    gchar *name;

    if (f->skipped)
      continue;
    name = g_strdup_printf ("flow-%u.csv", f->id);
    g_string_truncate (s, 0);
    csv_flow (m, f, s);
    ok = write_file (dir, name, s, error);
    g_free (name);
  }
  g_string_free (s, TRUE);
  return ok;
}
