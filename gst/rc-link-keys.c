/* The link key table; see rc-link-keys.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include "rc-link-keys.h"

/* Bounds that only keep arithmetic sane; nothing real comes near. */
#define MAX_TIME (3600 * GST_SECOND)
#define MAX_QUEUE_LIMIT_MS (3600 * 1000)

static const GEnumValue noise_values[] = {
  {RC_NOISE_NONE, "No delay noise", "none"},
  {RC_NOISE_UNIFORM, "Uniform in [0, 2 x noise-mean]", "uniform"},
  {RC_NOISE_EXPONENTIAL, "Exponential with mean noise-mean", "exponential"},
  {RC_NOISE_PARETO, "Pareto type II (Lomax, starts at 0), shape "
        "noise-shape, mean noise-mean", "pareto"},
  {RC_NOISE_NORMAL, "Normal (noise-mean, noise-stddev) truncated at 0",
      "normal"},
  {0, NULL, NULL},
};

static const GEnumValue delivery_values[] = {
  {RC_DELIVERY_END_OF_SLOT, "At the end of the packet's serialization "
        "(a link that serializes)", "end-of-slot"},
  {RC_DELIVERY_START_OF_SLOT, "At its start: a token-bucket shaper before "
        "a fast hop, as Linux tbf on a veth", "start-of-slot"},
  {0, NULL, NULL},
};

static const GEnumValue loss_values[] = {
  {RC_LOSS_NONE, "No random loss", "none"},
  {RC_LOSS_BERNOULLI, "Each packet lost with probability loss-rate",
      "bernoulli"},
  {RC_LOSS_GILBERT_ELLIOTT, "Gilbert-Elliott two-state chain per packet "
        "(ge-p, ge-r, ge-loss-good, ge-loss-bad)", "gilbert-elliott"},
  {0, NULL, NULL},
};

static const GEnumValue loss_aliases[] = {
  {RC_LOSS_GILBERT_ELLIOTT, "", "ge"},
  {RC_LOSS_GILBERT_ELLIOTT, "", "gilbert"},
  {0, NULL, NULL},
};

#define FIELD_SCALED(m, s) .offset = G_STRUCT_OFFSET (RcLinkConfig, m), \
    .size = sizeof (((RcLinkConfig *) 0)->m), .scale = (s)
#define FIELD(m) FIELD_SCALED (m, 1)
#define UINT_RANGE(lo, hi, d) .min = (lo), .max = (hi), .def = (d)
#define DOUBLE_RANGE(lo, hi, d) .dmin = (lo), .dmax = (hi), .ddef = (d)
#define PROBABILITY(d) DOUBLE_RANGE (0.0, 1.0, d)

const RcLinkKey rc_link_keys[RC_LINK_N_KEYS] = {
  [RC_LINK_KEY_CAPACITY] = {"capacity", "Capacity",
        "Link rate (bit/s of packet bytes plus overhead). With a schedule: "
        "the rate before its first step. Set while playing: the link "
        "switches to this constant rate from then on", "bit/s",
        RC_LINK_TYPE_UINT64, RC_LINK_KEY_LIVE,
        UINT_RANGE (1, G_MAXUINT64, 1000000), FIELD (capacity_bps)},
  [RC_LINK_KEY_SCHEDULE] = {"schedule", "Capacity schedule",
        "Piecewise-constant capacity, \"SECONDS:BIT/S,...\" in time order, "
        "e.g. \"0:1000000,40:2500000\" (seconds of running time, may be "
        "fractional); a rate of 0 is an outage (nothing leaves the queue "
        "until the next step; not the last step)", NULL,
      RC_LINK_TYPE_STRING, 0},
  [RC_LINK_KEY_TRACE_FILE] = {"trace-file", "Trace file",
        "Mahimahi trace: one line per 1500-byte delivery opportunity, in "
        "ms, non-decreasing; it loops with period = the last line (a "
        "regular file of at most 64 MiB)", NULL,
      RC_LINK_TYPE_STRING, 0},
  /* RFC 8867 sec. 5: a bottleneck queue of 300 ms. */
  [RC_LINK_KEY_QUEUE_LIMIT_MS] = {"queue-limit-ms", "Queue limit (ms)",
        "Tail-drop limit as time to drain at the capacity of the moment "
        "(ms; trace: its delivery opportunities in the next queue-limit-ms); "
        "0: none. Ignored when queue-limit-bytes is set", "ms",
        RC_LINK_TYPE_UINT, RC_LINK_KEY_LIVE,
        UINT_RANGE (0, MAX_QUEUE_LIMIT_MS, 300),
      FIELD_SCALED (queue_limit_time, GST_MSECOND)},
  [RC_LINK_KEY_QUEUE_LIMIT_BYTES] = {"queue-limit-bytes",
        "Queue limit (bytes)",
        "Tail-drop limit in bytes; 0: use queue-limit-ms", "bytes",
        RC_LINK_TYPE_UINT64, RC_LINK_KEY_LIVE,
      UINT_RANGE (0, G_MAXUINT64, 0), FIELD (queue_limit_bytes)},
  [RC_LINK_KEY_DELAY] = {"delay", "Delay",
        "One-way propagation delay (ns) of every flow that does not set its "
        "own (linksim: a sink pad's delay; a scenario flow: delay-ms)", "ns",
        RC_LINK_TYPE_UINT64, RC_LINK_KEY_LIVE, UINT_RANGE (0, MAX_TIME, 0),
      FIELD (delay)},
  /* The packets a link front end sees are UDP payloads (RTP, RTCP: linksim
   * after rtpbin or between udpsrc and udpsink; rcsim's RTP packets); on
   * the wire each also carries an IPv4 (20) and a UDP (8) header, which
   * take link capacity and queue space. 28 makes the default link the
   * wire. */
  [RC_LINK_KEY_OVERHEAD] = {"overhead", "Per-packet overhead",
        "Header bytes added to each packet's size on the link: 28 "
        "(default) for the IPv4 + UDP headers of a UDP payload, 48 for "
        "IPv6 + UDP, 0 to count the packet's own bytes only", "bytes",
        RC_LINK_TYPE_UINT,
        RC_LINK_KEY_LIVE, UINT_RANGE (0, 65535, 28), FIELD (overhead)},
  /* The kernel bench's tbf hands a packet to the veth when its tokens are
   * there, so the far end sees no serialization time in its delay; a slow
   * link that serializes shows each packet's own size / capacity in it.
   * Controllers that read delay see the two differently. */
  [RC_LINK_KEY_DELIVERY] = {"delivery", "Delivery",
        "When a packet reaches the far end: at the end of its time on the "
        "link (a link that serializes: DSL, Wi-Fi, cellular) or at its start "
        "(a shaper in front of a fast hop: Linux tbf, an ISP's policer); the "
        "next packet waits for the whole slot either way. Not with "
        "trace-file", NULL, RC_LINK_TYPE_ENUM, 0,
        UINT_RANGE (0, RC_DELIVERY_START_OF_SLOT, RC_DELIVERY_END_OF_SLOT),
      .values = delivery_values, FIELD (delivery)},
  [RC_LINK_KEY_NOISE_DISTRIBUTION] = {"noise-distribution",
        "Noise distribution",
        "Distribution of the extra delay after the queue", NULL,
        RC_LINK_TYPE_ENUM, RC_LINK_KEY_LIVE,
        UINT_RANGE (0, RC_NOISE_NORMAL, RC_NOISE_NONE),
      .values = noise_values, FIELD (noise.dist)},
  [RC_LINK_KEY_NOISE_MEAN] = {"noise-mean", "Noise mean",
        "Mean of the delay noise (ns)", "ns", RC_LINK_TYPE_UINT64,
        RC_LINK_KEY_LIVE, UINT_RANGE (0, MAX_TIME, 0),
      FIELD (noise.mean)},
  [RC_LINK_KEY_NOISE_STDDEV] = {"noise-stddev",
        "Noise standard deviation",
        "Standard deviation of the normal delay noise (ns)", "ns",
        RC_LINK_TYPE_UINT64, RC_LINK_KEY_LIVE, UINT_RANGE (0, MAX_TIME, 0),
      FIELD (noise.stddev)},
  [RC_LINK_KEY_NOISE_MAX] = {"noise-max", "Noise cap",
        "Cap on one noise sample (ns); 0: none", "ns", RC_LINK_TYPE_UINT64,
        RC_LINK_KEY_LIVE, UINT_RANGE (0, MAX_TIME, 0), FIELD (noise.max)},
  /* Fits seed 000's 4G profile (see the top of rc-link.c). */
  [RC_LINK_KEY_NOISE_SHAPE] = {"noise-shape", "Pareto shape",
        "Shape of the Pareto noise; must be above 1 (finite mean), "
        "smaller is heavier-tailed", NULL, RC_LINK_TYPE_DOUBLE,
        RC_LINK_KEY_LIVE, DOUBLE_RANGE (0.0, 1000.0, 2.5),
      FIELD (noise.pareto_shape)},
  [RC_LINK_KEY_NOISE_CORRELATION] = {"noise-correlation",
        "Noise correlation",
        "AR(1) weight of the previous noise value, 0..1 (keeps the mean)",
        NULL, RC_LINK_TYPE_DOUBLE, RC_LINK_KEY_LIVE, PROBABILITY (0.0),
      FIELD (noise.correlation)},
  [RC_LINK_KEY_NOISE_INTERVAL] = {"noise-interval", "Noise interval",
        "0: a new noise sample per packet; > 0: one per this much time "
        "(ns), shared by the packets in it, so the delay statistics do "
        "not depend on the packet rate", "ns", RC_LINK_TYPE_UINT64,
        RC_LINK_KEY_LIVE, UINT_RANGE (0, MAX_TIME, 0),
      FIELD (noise.interval)},
  [RC_LINK_KEY_LOSS_MODEL] = {"loss-model", "Loss model",
        "Random loss after the queue (the packet used the link)", NULL,
        RC_LINK_TYPE_ENUM, RC_LINK_KEY_LIVE,
        UINT_RANGE (0, RC_LOSS_GILBERT_ELLIOTT, RC_LOSS_NONE),
      .values = loss_values, .aliases = loss_aliases, FIELD (loss.kind)},
  [RC_LINK_KEY_LOSS_RATE] = {"loss-rate", "Loss rate",
        "Bernoulli loss probability, 0..1", NULL, RC_LINK_TYPE_DOUBLE,
      RC_LINK_KEY_LIVE, PROBABILITY (0.0), FIELD (loss.rate)},
  [RC_LINK_KEY_GE_P] = {"ge-p", "Gilbert-Elliott p",
        "Probability per packet of going from the good to the bad state",
        NULL, RC_LINK_TYPE_DOUBLE, RC_LINK_KEY_LIVE, PROBABILITY (0.0),
      FIELD (loss.p)},
  /* Gilbert's original channel: the bad state lasts one packet on average
   * and loses everything. */
  [RC_LINK_KEY_GE_R] = {"ge-r", "Gilbert-Elliott r",
        "Probability per packet of going from the bad to the good state "
        "(mean bad run: 1/r packets)", NULL, RC_LINK_TYPE_DOUBLE,
      RC_LINK_KEY_LIVE, PROBABILITY (1.0), FIELD (loss.r)},
  [RC_LINK_KEY_GE_LOSS_GOOD] = {"ge-loss-good",
        "Gilbert-Elliott loss (good)", "Loss probability in the good state",
        NULL, RC_LINK_TYPE_DOUBLE, RC_LINK_KEY_LIVE, PROBABILITY (0.0),
      FIELD (loss.loss_good)},
  [RC_LINK_KEY_GE_LOSS_BAD] = {"ge-loss-bad", "Gilbert-Elliott loss (bad)",
        "Loss probability in the bad state", NULL, RC_LINK_TYPE_DOUBLE,
      RC_LINK_KEY_LIVE, PROBABILITY (1.0), FIELD (loss.loss_bad)},
  /* Outages of the path (a fade, a handover): on a return link they lose
   * the feedback. */
  [RC_LINK_KEY_LOSS_EPISODES] = {"loss-episodes", "Loss episodes",
        "Timed loss on top of the loss model, \"FROM:TO[:RATE],...\": a "
        "packet entering the link from FROM to TO (seconds of running time, "
        "may be fractional) is lost after the queue with probability RATE "
        "(default 1); in time order, not overlapping", NULL,
      RC_LINK_TYPE_STRING, 0},
  /* rcsim seeds each link from its run's seed (--seed). */
  [RC_LINK_KEY_SEED] = {"seed", "Seed",
        "Seed of the link's random generator (noise and loss): the same "
        "seed and input give the same output", NULL, RC_LINK_TYPE_UINT,
        RC_LINK_KEY_RCSIM_IGNORES, UINT_RANGE (0, G_MAXUINT32, 0),
      FIELD (seed)},
};

const RcLinkKey *
rc_link_key_find (const gchar * name)
{
  guint i;

  for (i = 0; name && i < RC_LINK_N_KEYS; i++)
    if (strcmp (rc_link_keys[i].name, name) == 0)
      return &rc_link_keys[i];
  return NULL;
}

/* ------------------------------------------------ fields of a config */

static guint64
get_uint (const RcLinkKey * k, const RcLinkConfig * cfg)
{
  const guint8 *p = (const guint8 *) cfg + k->offset;
  guint64 v = k->size == 8 ? *(const guint64 *) p : *(const guint32 *) p;

  return v / k->scale;
}

static void
set_uint (const RcLinkKey * k, RcLinkConfig * cfg, guint64 v)
{
  guint8 *p = (guint8 *) cfg + k->offset;

  v *= k->scale;
  if (k->size == 8)
    *(guint64 *) p = v;
  else
    *(guint32 *) p = (guint32) v;
}

static gdouble *
double_field (const RcLinkKey * k, const RcLinkConfig * cfg)
{
  return (gdouble *) ((guint8 *) cfg + k->offset);
}

void
rc_link_key_get_value (const RcLinkKey * k, const RcLinkConfig * cfg,
    GValue * value)
{
  switch (k->type) {
    case RC_LINK_TYPE_UINT:
      g_value_set_uint (value, (guint) get_uint (k, cfg));
      break;
    case RC_LINK_TYPE_UINT64:
      g_value_set_uint64 (value, get_uint (k, cfg));
      break;
    case RC_LINK_TYPE_DOUBLE:
      g_value_set_double (value, *double_field (k, cfg));
      break;
    case RC_LINK_TYPE_ENUM:
      g_value_set_enum (value, (gint) get_uint (k, cfg));
      break;
    case RC_LINK_TYPE_STRING:
      g_return_if_reached ();
  }
}

void
rc_link_key_set_value (const RcLinkKey * k, RcLinkConfig * cfg,
    const GValue * value)
{
  switch (k->type) {
    case RC_LINK_TYPE_UINT:
      set_uint (k, cfg, g_value_get_uint (value));
      break;
    case RC_LINK_TYPE_UINT64:
      set_uint (k, cfg, g_value_get_uint64 (value));
      break;
    case RC_LINK_TYPE_DOUBLE:
      *double_field (k, cfg) = g_value_get_double (value);
      break;
    case RC_LINK_TYPE_ENUM:
      set_uint (k, cfg, (guint) g_value_get_enum (value));
      break;
    case RC_LINK_TYPE_STRING:
      g_return_if_reached ();
  }
}

void
rc_link_config_init (RcLinkConfig * cfg)
{
  guint i;

  memset (cfg, 0, sizeof (*cfg));
  cfg->mode = RC_CAPACITY_CONSTANT;
  for (i = 0; i < RC_LINK_N_KEYS; i++) {
    const RcLinkKey *k = &rc_link_keys[i];
    if (k->type == RC_LINK_TYPE_DOUBLE)
      *double_field (k, cfg) = k->ddef;
    else if (k->type != RC_LINK_TYPE_STRING)
      set_uint (k, cfg, k->def);
  }
}

/* ---------------------------------------------------------- from text */

static gboolean
enum_from_string (const GEnumValue * values, const gchar * s, gint * out)
{
  for (; values && s && values->value_nick; values++) {
    if (g_ascii_strcasecmp (s, values->value_nick) == 0) {
      *out = values->value;
      return TRUE;
    }
  }
  return FALSE;
}

/* A nick of the row's `values` or `aliases`, any case. */
static gboolean
enum_parse (const RcLinkKey * k, const gchar * s, gint * out)
{
  return enum_from_string (k->values, s, out) ||
      enum_from_string (k->aliases, s, out);
}

static const gchar *
enum_to_string (const GEnumValue * values, gint v)
{
  for (; values->value_nick; values++)
    if (values->value == v)
      return values->value_nick;
  return "unknown";
}

/* A whole number: decimal digits, or a number in any notation g_ascii_strtod
 * reads ("2e6") whose value is whole. */
static gboolean
parse_whole (const gchar * text, guint64 * out)
{
  gchar *end;
  gdouble d;

  if (g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, out, NULL))
    return TRUE;
  d = g_ascii_strtod (text, &end);
  if (end == text || *end || !(d >= 0 && d < 18446744073709551616.0) ||
      d != floor (d))
    return FALSE;
  *out = (guint64) d;
  return TRUE;
}

static gboolean
parse_text (const RcLinkKey * k, const gchar * text, RcLinkConfig * cfg,
    GError ** error)
{
  const RcLinkKey *other = k == &rc_link_keys[RC_LINK_KEY_SCHEDULE] ?
      &rc_link_keys[RC_LINK_KEY_TRACE_FILE] :
      &rc_link_keys[RC_LINK_KEY_SCHEDULE];
  RcCapacityMode mine = k == &rc_link_keys[RC_LINK_KEY_SCHEDULE] ?
      RC_CAPACITY_SCHEDULE : RC_CAPACITY_TRACE;
  gboolean ok;

  if (k == &rc_link_keys[RC_LINK_KEY_LOSS_EPISODES]) {
    g_clear_pointer (&cfg->episodes, g_free);
    cfg->n_episodes = 0;
    return rc_link_parse_loss_episodes (text, &cfg->episodes,
        &cfg->n_episodes, error);
  }
  if (cfg->mode != RC_CAPACITY_CONSTANT && cfg->mode != mine) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
        "%s and %s are exclusive", other->name, k->name);
    return FALSE;
  }
  /* Only the capacity's data: the loss episodes stay. */
  g_clear_pointer (&cfg->steps, g_free);
  cfg->n_steps = 0;
  g_clear_pointer (&cfg->trace_ms, g_free);
  cfg->n_trace = 0;
  if (mine == RC_CAPACITY_SCHEDULE)
    ok = rc_link_parse_schedule (text, &cfg->steps, &cfg->n_steps, error);
  else
    ok = rc_link_load_trace (text, &cfg->trace_ms, &cfg->n_trace, error);
  cfg->mode = ok ? mine : RC_CAPACITY_CONSTANT;
  return ok;
}

gboolean
rc_link_key_parse (const RcLinkKey * k, const gchar * text,
    RcLinkConfig * cfg, GError ** error)
{
  guint64 u;
  gdouble d;
  gint e;
  gchar *end;

  switch (k->type) {
    case RC_LINK_TYPE_UINT:
    case RC_LINK_TYPE_UINT64:
      if (!parse_whole (text, &u) || u < k->min || u > k->max) {
        g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
            "'%s' is not a whole number in %" G_GUINT64_FORMAT "..%"
            G_GUINT64_FORMAT "%s%s", text, k->min, k->max,
            k->unit ? " " : "", k->unit ? k->unit : "");
        return FALSE;
      }
      set_uint (k, cfg, u);
      return TRUE;
    case RC_LINK_TYPE_DOUBLE:
      d = g_ascii_strtod (text, &end);
      if (end == text || *end || !(d >= k->dmin && d <= k->dmax)) {
        g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
            "'%s' is not a number in [%g, %g]", text, k->dmin, k->dmax);
        return FALSE;
      }
      *double_field (k, cfg) = d;
      return TRUE;
    case RC_LINK_TYPE_ENUM:
      if (!enum_parse (k, text, &e)) {
        GString *names = g_string_new (NULL);
        const GEnumValue *v;
        for (v = k->values; v->value_nick; v++)
          g_string_append_printf (names, "%s%s", v == k->values ? "" : ", ",
              v->value_nick);
        g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
            "unknown '%s' (%s)", text, names->str);
        g_string_free (names, TRUE);
        return FALSE;
      }
      set_uint (k, cfg, (guint) e);
      return TRUE;
    case RC_LINK_TYPE_STRING:
      return parse_text (k, text, cfg, error);
  }
  g_return_val_if_reached (FALSE);
}

/* ------------------------------------------- enum names (rc-link.h) */

const gchar *
rc_noise_dist_to_string (RcNoiseDist d)
{
  return enum_to_string (noise_values, d);
}

gboolean
rc_noise_dist_from_string (const gchar * s, RcNoiseDist * out)
{
  return enum_parse (&rc_link_keys[RC_LINK_KEY_NOISE_DISTRIBUTION], s,
      (gint *) out);
}

const gchar *
rc_loss_kind_to_string (RcLossKind k)
{
  return enum_to_string (loss_values, k);
}

gboolean
rc_loss_kind_from_string (const gchar * s, RcLossKind * out)
{
  return enum_parse (&rc_link_keys[RC_LINK_KEY_LOSS_MODEL], s, (gint *) out);
}
