/* Bottleneck link model; see rc-link.h for the interface.
 *
 * Two stages, both FIFO:
 *
 *  1. The serialization queue, shared by all flows. The head packet is being
 *     put on the wire; the server is simulated lazily, only up to the `now`
 *     of the latest call, so a capacity change at `now` applies to the rest
 *     of the head packet and to everything behind it. Work is counted in
 *     "nanobits" (bits x 1e9): a rate of R bit/s serves exactly R nanobits
 *     per nanosecond, so all serialization arithmetic is exact integer
 *     arithmetic and splitting a packet's service at any instant gives the
 *     same departure as serving it in one go.
 *
 *  2. The propagation stage: a packet that has left the queue is either
 *     lost (it still used the link's capacity) or travels for its flow's
 *     propagation delay plus delay noise. Per flow arrivals never go
 *     backwards (arrival = max(departed + prop + noise, previous arrival of
 *     that flow)), so each flow has its own FIFO of packets in flight, and
 *     lost packets one more FIFO ordered by departure. rc_link_pop() takes
 *     the earliest head among them.
 *
 * Loss and noise are drawn when a packet is accepted into the queue, in
 * acceptance order (= departure order, the queue being FIFO), so the
 * sequence of random draws depends only on the sequence of calls. A loss
 * draw comes first, then a noise draw for every accepted packet, lost or
 * not, so changing the loss model never changes the delays of the packets
 * that get through. Settings changed with rc_link_set_noise() /
 * rc_link_set_loss() apply to packets accepted from then on. Loss
 * episodes (timed loss on top of the model) are judged by the time a
 * packet is accepted too, and draw (only inside an episode whose rate is
 * below 1) from a second generator, so they move no loss or noise draw of
 * the model.
 *
 * How the model reproduces the "inherent delay and loss noise" of seed 000
 * (URCP, sec. II, Fig. 1, Tables II-III):
 *
 *  - Sec. II measures delta = OWD - OWD_min at 50 % of capacity: a cable
 *    modem has delta_noise ~ 0; WiMAX and 4G (HSPA+) have an average noise
 *    of 30-50 ms, and on 4G a maximum close to 350 ms. It names link-layer
 *    retransmission and scheduling as causes; both deliver in order, which
 *    the no-reordering clamp reproduces: a late packet holds the ones
 *    behind it (head-of-line blocking).
 *  - That clamp makes per-packet noise depend on the packet rate: with a
 *    new independent sample for every packet, a flow sending 4 times more
 *    packets sees a much larger delta, since each long sample holds more
 *    packets behind it. Seed 000 defines the noise as what is observed
 *    "regardless of what transmission rate we are operating at", so the
 *    profiles use `interval` (RcDelayNoise): one sample per 20 ms of link
 *    time, shared by the packets in it. The clamp then acts in units of
 *    time and the delta statistics no longer depend on the rate (checked
 *    at 1.5 and 6 Mbit/s: 36.1 vs 38.8 ms).
 *  - Distribution: the Pareto type II (Lomax) used here,
 *    x = x_m (U^(-1/a) - 1) with mean x_m / (a - 1), starts at 0 (the
 *    minimum OWD is the propagation delay), has most of its mass at a few
 *    ms and a long right tail. Measured as sec. II does (1.5 Mbit/s of
 *    1200-byte packets on 3 Mbit/s, seed 2024):
 *      4G:    Pareto mean 18 ms, shape 2.5, max 350 ms, interval 20 ms:
 *             delta mean 36.5 ms (Table II: URCP 37 ms on 4G), max 350 ms.
 *      WiMAX: exponential mean 22 ms, max 200 ms, interval 20 ms:
 *             delta mean 31.6 ms.
 *      Cable: exponential mean 1 ms, max 10 ms: delta mean 1.0 ms.
 *    The delta is larger than the noise mean because of the clamp.
 *  - Retransmission bursts make consecutive delays similar; the AR(1) step
 *    x_k = c x_{k-1} + (1 - c) s_k keeps the mean and gives that
 *    correlation (the variance shrinks by (1 - c) / (1 + c)).
 *  - Sec. II loss noise: 0.0012 (cable), 0.0037 (4G), 0.0185 (WiMAX): the
 *    Bernoulli rate, or a Gilbert-Elliott chain whose stationary loss
 *    p / (p + r) * loss_bad + r / (p + r) * loss_good equals it (WiMAX:
 *    p = 0.00628, r = 1/3, loss_bad = 1, loss_good = 0 gives 0.0185 in
 *    bursts of 3 packets on average, 1 / r).
 * tests/check/core/test_link.c (test_seed000_profiles,
 * test_interval_noise_rate_independent) checks these numbers;
 * docs/linksim.md lists the profiles as linksim settings.
 *
 * Randomness: one SplitMix64 generator (Steele, Lea, Flood, "Fast
 * splittable pseudorandom number generators", OOPSLA 2014: a Weyl sequence
 * with the golden-ratio increment 0x9E3779B97F4A7C15, then a 64-bit mixer;
 * the mixer constants are D. Stafford's "Mix13", as in Vigna's
 * splitmix64), seeded with the config's seed. It is integer only, so
 * uniform draws and loss decisions are identical on every machine; noise
 * samples then go through libm (log, pow, cos, sqrt), which is identical
 * for a given architecture and libm.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <unistd.h>
#include <string.h>
#include <stdlib.h>
#include "rc-link.h"

/* Mahimahi: every line of a trace is one delivery opportunity for one
 * MTU-sized packet of 1500 bytes (Netravali et al., "Mahimahi: Accurate
 * Record-and-Replay for HTTP", USENIX ATC 2015, the LinkShell). */
#define TRACE_OPPORTUNITY_BYTES 1500
/* One byte is 8e9 nanobits. */
#define NANOBITS_PER_BYTE (8 * (guint64) GST_SECOND)
/* Keeps size * NANOBITS_PER_BYTE far from overflowing a guint64. */
#define MAX_PACKET_SIZE (1u << 28)
/* A normal draw below 0 is redrawn (truncation); with mean >= 0 each try
 * succeeds with probability >= 1/2, so this bound is never reached in
 * practice and only keeps the loop finite. */
#define NORMAL_MAX_TRIES 64
/* Interval noise: at most this many AR(1) steps to catch up after an idle
 * gap; see draw_noise(). */
#define NOISE_MAX_CATCHUP 1000

typedef struct _Pkt Pkt;
struct _Pkt
{
  Pkt *next;
  guint64 seq;
  guint flow;
  guint size;
  gpointer data;
  guint64 left;                 /* nanobits still to serialize */
  GstClockTime enqueued, departed, arrival;
  GstClockTime slot;            /* START_OF_SLOT: time on the wire */
  GstClockTime noise;
  gboolean lost;
};

typedef struct
{
  Pkt *head, *tail;
  guint len;
} PktFifo;

typedef struct
{
  GstClockTime prop_delay;
  GstClockTime last_arrival;
  PktFifo flight;
  RcLinkFlowStats st;
} Flow;

/* The server's state; copied by value for predictions. */
typedef struct
{
  GstClockTime t;               /* CONSTANT/SCHEDULE: served up to here */
  /* TRACE */
  guint64 opp_next;             /* absolute index of the next opportunity */
  GstClockTime opp_time;        /* time of the last opportunity taken */
  guint opp_left;               /* bytes left in it */
  /* START_OF_SLOT: nanobits of the last packet let go, still on the wire
   * (they hold the next packet) */
  guint64 wire_left;
} Server;

struct _RcLink
{
  RcLinkConfig cfg;             /* owns its steps / trace copies */
  GstClockTime trace_period;    /* ns */

  PktFifo queue;
  guint64 queue_bytes;          /* sizes of all packets in `queue` */
  Server srv;
  GstClockTime last_now;

  PktFifo lost;
  Flow flows[RC_LINK_MAX_FLOWS];
  guint n_flows;

  guint64 rng;
  guint64 episode_rng;          /* loss episodes' own stream, so they move
                                 * no other draw */
  guint episode_next;           /* first episode not over at last_now */
  gdouble noise_prev;
  guint64 noise_k;              /* interval of noise_prev (interval mode) */
  gboolean noise_have_k;
  gboolean ge_bad;
  guint64 seq;
};

G_DEFINE_QUARK (rc-link-error-quark, rc_link_error);

/* ------------------------------------------------------------ random */

static guint64
rng_next_state (guint64 * state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static guint64
rng_next (RcLink * l)
{
  return rng_next_state (&l->rng);
}

/* [0, 1), 53 random bits: exact, so comparisons are the same everywhere. */
static gdouble
rng_u01_state (guint64 * state)
{
  return (rng_next_state (state) >> 11) * (1.0 / 9007199254740992.0);
}

static gdouble
rng_u01 (RcLink * l)
{
  return rng_u01_state (&l->rng);
}

/* (0, 1): safe for log() and negative powers. */
static gdouble
rng_open01 (RcLink * l)
{
  return ((rng_next (l) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static gdouble
rng_gauss (RcLink * l)
{
  gdouble u1 = rng_open01 (l), u2 = rng_u01 (l);
  /* Box-Muller; one value per pair keeps the draw count per sample fixed. */
  return sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2);
}

/* One raw sample of the configured distribution, capped, in ns. */
static gdouble
noise_sample (RcLink * l)
{
  const RcDelayNoise *n = &l->cfg.noise;
  gdouble mean = (gdouble) n->mean, x = 0;
  guint i;

  switch (n->dist) {
    case RC_NOISE_NONE:
      return 0;
    case RC_NOISE_UNIFORM:
      x = 2.0 * mean * rng_u01 (l);
      break;
    case RC_NOISE_EXPONENTIAL:
      x = -mean * log (rng_open01 (l));
      break;
    case RC_NOISE_PARETO:{
      /* Lomax: starts at 0, mean x_m / (a - 1). */
      gdouble a = n->pareto_shape;
      x = mean * (a - 1.0) * (pow (rng_open01 (l), -1.0 / a) - 1.0);
      break;
    }
    case RC_NOISE_NORMAL:
      x = 0;
      for (i = 0; i < NORMAL_MAX_TRIES; i++) {
        gdouble y = mean + (gdouble) n->stddev * rng_gauss (l);
        if (y >= 0) {
          x = y;
          break;
        }
      }
      break;
  }
  if (n->max > 0 && x > (gdouble) n->max)
    x = (gdouble) n->max;
  return x;
}

/* Next value of the AR(1) process. */
static gdouble
noise_step (RcLink * l)
{
  const RcDelayNoise *n = &l->cfg.noise;
  gdouble x = noise_sample (l);

  if (n->correlation > 0)
    x = n->correlation * l->noise_prev + (1.0 - n->correlation) * x;
  l->noise_prev = x;
  return x;
}

/* Noise for a packet accepted at `t`. */
static GstClockTime
draw_noise (RcLink * l, GstClockTime t)
{
  const RcDelayNoise *n = &l->cfg.noise;

  if (n->dist == RC_NOISE_NONE)
    return 0;
  if (n->interval > 0) {
    guint64 k = t / n->interval, steps;
    if (!l->noise_have_k || k != l->noise_k) {
      /* Step the process once per interval since the last packet, so the
       * correlation is per unit of time. Beyond NOISE_MAX_CATCHUP steps the
       * start is forgotten anyway (0.99^1000 < 1e-4). */
      steps = l->noise_have_k && k > l->noise_k ? k - l->noise_k : 1;
      steps = MIN (steps, NOISE_MAX_CATCHUP);
      while (steps-- > 0)
        noise_step (l);
      l->noise_k = k;
      l->noise_have_k = TRUE;
    }
    return (GstClockTime) (l->noise_prev + 0.5);
  }
  return (GstClockTime) (noise_step (l) + 0.5);
}

static gboolean
draw_loss (RcLink * l)
{
  const RcLossModel *m = &l->cfg.loss;

  switch (m->kind) {
    case RC_LOSS_NONE:
      return FALSE;
    case RC_LOSS_BERNOULLI:
      return rng_u01 (l) < m->rate;
    case RC_LOSS_GILBERT_ELLIOTT:
      /* Move the chain, then lose with the new state's probability. */
      if (l->ge_bad)
        l->ge_bad = !(rng_u01 (l) < m->r);
      else
        l->ge_bad = rng_u01 (l) < m->p;
      return rng_u01 (l) < (l->ge_bad ? m->loss_bad : m->loss_good);
  }
  return FALSE;
}

/* On top of the loss model: the episode in force at `t` (link time, never
 * going back) loses the packet with its rate. */
static gboolean
draw_episode_loss (RcLink * l, GstClockTime t)
{
  const RcLossEpisode *e;

  while (l->episode_next < l->cfg.n_episodes &&
      l->cfg.episodes[l->episode_next].to <= t)
    l->episode_next++;
  if (l->episode_next >= l->cfg.n_episodes)
    return FALSE;
  e = &l->cfg.episodes[l->episode_next];
  if (t < e->from || e->rate <= 0)
    return FALSE;
  if (e->rate >= 1)
    return TRUE;
  return rng_u01_state (&l->episode_rng) < e->rate;
}

/* -------------------------------------------------------------- fifo */

static void
fifo_push (PktFifo * f, Pkt * p)
{
  p->next = NULL;
  if (f->tail)
    f->tail->next = p;
  else
    f->head = p;
  f->tail = p;
  f->len++;
}

static Pkt *
fifo_pop (PktFifo * f)
{
  Pkt *p = f->head;

  if (p) {
    f->head = p->next;
    if (!f->head)
      f->tail = NULL;
    f->len--;
    p->next = NULL;
  }
  return p;
}

/* ------------------------------------------------------------ config */

void
rc_link_config_clear (RcLinkConfig * cfg)
{
  g_clear_pointer (&cfg->steps, g_free);
  cfg->n_steps = 0;
  g_clear_pointer (&cfg->trace_ms, g_free);
  cfg->n_trace = 0;
  g_clear_pointer (&cfg->episodes, g_free);
  cfg->n_episodes = 0;
}

static gboolean
prob_ok (gdouble v)
{
  return v >= 0.0 && v <= 1.0;  /* FALSE for NaN */
}

gboolean
rc_link_noise_validate (const RcDelayNoise * n, GError ** error)
{
  if ((guint) n->dist > RC_NOISE_NORMAL) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
        "unknown delay noise distribution %d", n->dist);
    return FALSE;
  }
  if (n->dist == RC_NOISE_PARETO && !(n->pareto_shape > 1.0 &&
          isfinite (n->pareto_shape))) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
        "Pareto noise needs a shape above 1 (finite mean), got %g",
        n->pareto_shape);
    return FALSE;
  }
  if (!prob_ok (n->correlation)) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
        "noise correlation must be within 0..1, got %g", n->correlation);
    return FALSE;
  }
  return TRUE;
}

gboolean
rc_link_loss_validate (const RcLossModel * m, GError ** error)
{
  const struct
  {
    const gchar *name;
    gdouble v;
  } probs[] = {
    {"loss rate", m->rate}, {"Gilbert-Elliott p", m->p},
    {"Gilbert-Elliott r", m->r}, {"Gilbert-Elliott loss-good", m->loss_good},
    {"Gilbert-Elliott loss-bad", m->loss_bad},
  };
  guint i;

  if ((guint) m->kind > RC_LOSS_GILBERT_ELLIOTT) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
        "unknown loss model %d", m->kind);
    return FALSE;
  }
  for (i = 0; i < G_N_ELEMENTS (probs); i++) {
    if (!prob_ok (probs[i].v)) {
      g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
          "%s must be a probability within 0..1, got %g", probs[i].name,
          probs[i].v);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
rc_link_config_validate (const RcLinkConfig * cfg, GError ** error)
{
  guint i;

  switch (cfg->mode) {
    case RC_CAPACITY_CONSTANT:
      if (cfg->capacity_bps == 0) {
        g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
            "capacity must be above 0 bit/s");
        return FALSE;
      }
      break;
    case RC_CAPACITY_SCHEDULE:
      if (cfg->n_steps == 0 || !cfg->steps) {
        g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
            "capacity schedule has no steps");
        return FALSE;
      }
      if (cfg->steps[0].at > 0 && cfg->capacity_bps == 0) {
        g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
            "schedule starts after 0 and the capacity before it is 0");
        return FALSE;
      }
      /* 0 bit/s is an outage, which must end. */
      if (cfg->steps[cfg->n_steps - 1].bps == 0) {
        g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
            "schedule step %u: the last step is 0 bit/s; an outage must "
            "end with a step of a rate above 0", cfg->n_steps);
        return FALSE;
      }
      for (i = 0; i < cfg->n_steps; i++) {
        if (i > 0 && cfg->steps[i].at <= cfg->steps[i - 1].at) {
          g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
              "schedule step %u is not after step %u", i + 1, i);
          return FALSE;
        }
      }
      break;
    case RC_CAPACITY_TRACE:
      if (cfg->delivery != RC_DELIVERY_END_OF_SLOT) {
        g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
            "delivery=start-of-slot needs a capacity or a schedule: a "
            "trace's delivery opportunities are the packets' delivery times");
        return FALSE;
      }
      if (cfg->n_trace == 0 || !cfg->trace_ms) {
        g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
            "capacity trace is empty");
        return FALSE;
      }
      for (i = 1; i < cfg->n_trace; i++) {
        if (cfg->trace_ms[i] < cfg->trace_ms[i - 1]) {
          g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
              "trace entry %u (%u ms) is before entry %u (%u ms)", i + 1,
              cfg->trace_ms[i], i, cfg->trace_ms[i - 1]);
          return FALSE;
        }
      }
      if (cfg->trace_ms[cfg->n_trace - 1] == 0) {
        g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
            "trace's last entry (its period) must be above 0 ms");
        return FALSE;
      }
      break;
    default:
      g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
          "unknown capacity mode %d", cfg->mode);
      return FALSE;
  }
  if (!rc_link_noise_validate (&cfg->noise, error))
    return FALSE;
  if (!rc_link_loss_validate (&cfg->loss, error))
    return FALSE;
  if (cfg->n_episodes > 0 && !cfg->episodes) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
        "loss episodes missing");
    return FALSE;
  }
  for (i = 0; i < cfg->n_episodes; i++) {
    const RcLossEpisode *e = &cfg->episodes[i];
    if (e->from >= e->to || !prob_ok (e->rate) || (i > 0 &&
            e->from < cfg->episodes[i - 1].to)) {
      g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_INVALID,
          "loss episode %u: needs FROM < TO, a rate within 0..1, and to "
          "start after the episode before it ends", i + 1);
      return FALSE;
    }
  }
  return TRUE;
}

/* -------------------------------------------------------- life cycle */

RcLink *
rc_link_new (const RcLinkConfig * cfg)
{
  RcLink *l;
  GError *err = NULL;

  if (!rc_link_config_validate (cfg, &err)) {
    g_critical ("rc_link_new: invalid configuration: %s", err->message);
    g_error_free (err);
    return NULL;
  }
  l = g_new0 (RcLink, 1);
  l->cfg = *cfg;
  l->cfg.steps = NULL;
  l->cfg.n_steps = 0;
  l->cfg.trace_ms = NULL;
  l->cfg.n_trace = 0;
  l->cfg.episodes = cfg->n_episodes ? g_memdup2 (cfg->episodes,
      cfg->n_episodes * sizeof (RcLossEpisode)) : NULL;
  if (cfg->mode == RC_CAPACITY_SCHEDULE) {
    l->cfg.steps = g_memdup2 (cfg->steps, cfg->n_steps *
        sizeof (RcCapacityStep));
    l->cfg.n_steps = cfg->n_steps;
  } else if (cfg->mode == RC_CAPACITY_TRACE) {
    l->cfg.trace_ms = g_memdup2 (cfg->trace_ms, cfg->n_trace *
        sizeof (guint32));
    l->cfg.n_trace = cfg->n_trace;
    l->trace_period = cfg->trace_ms[cfg->n_trace - 1] * GST_MSECOND;
  }
  l->rng = cfg->seed;
  /* Another SplitMix64 stream: a different start on the Weyl sequence. */
  l->episode_rng = cfg->seed ^ G_GUINT64_CONSTANT (0xD1B54A32D192ED03);
  l->noise_prev = (gdouble) cfg->noise.mean;
  l->srv.opp_time = GST_CLOCK_TIME_NONE;
  return l;
}

static void
free_fifo (PktFifo * f, GDestroyNotify free_data)
{
  Pkt *p;

  while ((p = fifo_pop (f))) {
    if (free_data && p->data)
      free_data (p->data);
    g_free (p);
  }
}

void
rc_link_free (RcLink * l)
{
  guint i;

  if (!l)
    return;
  free_fifo (&l->queue, NULL);
  free_fifo (&l->lost, NULL);
  for (i = 0; i < l->n_flows; i++)
    free_fifo (&l->flows[i].flight, NULL);
  rc_link_config_clear (&l->cfg);
  g_free (l);
}

guint
rc_link_add_flow (RcLink * l, GstClockTime prop_delay)
{
  Flow *f;

  g_return_val_if_fail (l->n_flows < RC_LINK_MAX_FLOWS, G_MAXUINT);
  f = &l->flows[l->n_flows];
  memset (f, 0, sizeof (*f));
  f->prop_delay = GST_CLOCK_TIME_IS_VALID (prop_delay) ? prop_delay : 0;
  return l->n_flows++;
}

void
rc_link_set_prop_delay (RcLink * l, guint flow, GstClockTime prop_delay)
{
  g_return_if_fail (flow < l->n_flows);
  l->flows[flow].prop_delay = GST_CLOCK_TIME_IS_VALID (prop_delay) ?
      prop_delay : 0;
}

guint
rc_link_n_flows (RcLink * l)
{
  return l->n_flows;
}

/* ------------------------------------------------------- the server */

/* Rate in force at t and when it next changes (NONE: never). */
static guint64
rate_at (RcLink * l, GstClockTime t, GstClockTime * until)
{
  const RcCapacityStep *s = l->cfg.steps;
  guint lo = 0, hi = l->cfg.n_steps;

  *until = GST_CLOCK_TIME_NONE;
  if (l->cfg.mode != RC_CAPACITY_SCHEDULE)
    return l->cfg.capacity_bps;
  /* First step with at > t. */
  while (lo < hi) {
    guint mid = (lo + hi) / 2;
    if (s[mid].at <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < l->cfg.n_steps)
    *until = s[lo].at;
  return lo == 0 ? l->cfg.capacity_bps : s[lo - 1].bps;
}

static GstClockTime
opp_time (RcLink * l, guint64 k)
{
  guint64 loop = k / l->cfg.n_trace;
  return loop * l->trace_period + l->cfg.trace_ms[k % l->cfg.n_trace] *
      GST_MSECOND;
}

/* Index of the first opportunity at or after t. A loop's last entry is
 * the period, so its opportunity is at the next loop's start: at t = k x
 * period exactly the search starts in loop k - 1, which has it. */
static guint64
first_opp_at (RcLink * l, GstClockTime t)
{
  guint64 loop = t > 0 ? (t - 1) / l->trace_period : 0;
  GstClockTime base = loop * l->trace_period;
  guint lo = 0, hi = l->cfg.n_trace;

  while (lo < hi) {
    guint mid = (lo + hi) / 2;
    if (base + l->cfg.trace_ms[mid] * GST_MSECOND < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return loop * l->cfg.n_trace + lo;
}

/* Opportunities at times in [from, to). */
static guint64
opps_in (RcLink * l, GstClockTime from, GstClockTime to)
{
  return to > from ? first_opp_at (l, to) - first_opp_at (l, from) : 0;
}

/* TRACE: the queue limit at t for a limit of `time` (see
 * rc_link_queue_limit_at): the opportunities in [t, t + time); in a gap
 * longer than `time`, those in the `time` that ends with the last
 * opportunity before t (before the first one: that starts with it). */
static guint64
trace_limit_bytes (RcLink * l, GstClockTime t, GstClockTime time)
{
  guint64 n = opps_in (l, t, t + time), k;

  if (n == 0) {
    k = first_opp_at (l, t);
    if (k > 0) {
      GstClockTime o = opp_time (l, k - 1);
      n = opps_in (l, o + 1 > time ? o + 1 - time : 0, o + 1);
    } else {
      GstClockTime o = opp_time (l, 0);
      n = opps_in (l, o, o + time);
    }
  }
  return n * TRACE_OPPORTUNITY_BYTES;
}

/* Serves a packet that entered at `enq` and has `*left` nanobits to go,
 * from server state `s`. TRUE: it is done at `*dep` <= limit and `s` is
 * just after it. FALSE: `s` and `*left` are advanced to `limit` (NONE:
 * no limit). */
static gboolean
serve (RcLink * l, Server * s, guint64 * left, GstClockTime enq,
    GstClockTime limit, GstClockTime * dep)
{
  if (l->cfg.mode == RC_CAPACITY_TRACE) {
    for (;;) {
      GstClockTime ot;

      /* What is left of the current opportunity serves packets that were
       * there at its instant. */
      if (s->opp_left > 0 && GST_CLOCK_TIME_IS_VALID (s->opp_time) &&
          enq <= s->opp_time) {
        guint64 bytes = *left / NANOBITS_PER_BYTE;
        guint take = (guint) MIN (bytes, (guint64) s->opp_left);
        s->opp_left -= take;
        *left -= take * NANOBITS_PER_BYTE;
        if (*left == 0) {
          *dep = s->opp_time;
          return TRUE;
        }
      }
      ot = opp_time (l, s->opp_next);
      if (ot < enq) {
        /* Idle link: those opportunities went unused. */
        s->opp_next = MAX (s->opp_next + 1, first_opp_at (l, enq));
        continue;
      }
      if (GST_CLOCK_TIME_IS_VALID (limit) && ot > limit)
        return FALSE;
      s->opp_next++;
      s->opp_time = ot;
      s->opp_left = TRACE_OPPORTUNITY_BYTES;
    }
  }

  if (s->t < enq)
    s->t = enq;
  for (;;) {
    GstClockTime until, need, end;
    guint64 rate = rate_at (l, s->t, &until);

    if (rate == 0 && *left > 0) {
      /* An outage: nothing is served until its end (a schedule never ends
       * at 0 bit/s, so `until` is valid). */
      if (GST_CLOCK_TIME_IS_VALID (limit) && limit < until) {
        if (limit > s->t)
          s->t = limit;
        return FALSE;
      }
      s->t = until;
      continue;
    }
    need = rate ? (*left + rate - 1) / rate : 0;
    end = s->t + need;
    if (GST_CLOCK_TIME_IS_VALID (until) && end > until)
      end = GST_CLOCK_TIME_NONE;        /* crosses a step */
    if (GST_CLOCK_TIME_IS_VALID (end) && (!GST_CLOCK_TIME_IS_VALID (limit)
            || end <= limit)) {
      s->t = end;
      *left = 0;
      *dep = end;
      return TRUE;
    }
    /* Serve up to the step or the limit, whichever comes first. */
    if (GST_CLOCK_TIME_IS_VALID (limit) && (!GST_CLOCK_TIME_IS_VALID (until)
            || limit < until)) {
      if (limit > s->t) {
        *left -= rate * (limit - s->t);
        s->t = limit;
      }
      return FALSE;
    }
    *left -= rate * (until - s->t);
    s->t = until;
  }
}

/* START_OF_SLOT: lets the packet that entered at `enq` with `*left`
 * nanobits go when the link is free for it (the bits of the one before it
 * served, the queue's rate above 0): TRUE when that is at `*dep` <= limit;
 * its bits are then on the wire in `s` and `*slot` (NULL: not wanted,
 * as in the predictions, which would pay a second serve per packet) is the
 * time they take.
 * As tbf does, which hands a packet on when its tokens are there and makes
 * the next one wait for as many tokens. */
static gboolean
release (RcLink * l, Server * s, guint64 * left, GstClockTime enq,
    GstClockTime limit, GstClockTime * dep, GstClockTime * slot)
{
  GstClockTime start, until, end = 0;
  Server after;

  if (s->wire_left > 0 && !serve (l, s, &s->wire_left, 0, limit, &end))
    return FALSE;
  start = MAX (s->t, enq);
  /* An outage lets nothing go until its end (a schedule never ends at 0). */
  while (rate_at (l, start, &until) == 0 && GST_CLOCK_TIME_IS_VALID (until))
    start = until;
  if (GST_CLOCK_TIME_IS_VALID (limit) && start > limit)
    return FALSE;
  s->t = start;
  s->wire_left = *left;
  *left = 0;
  *dep = start;
  if (slot) {
    after = *s;
    serve (l, &after, &after.wire_left, 0, GST_CLOCK_TIME_NONE, &end);
    *slot = end - start;
  }
  return TRUE;
}

/* The next packet's way out of the queue: serve() or release(). `slot`
 * may be NULL. */
static gboolean
leave (RcLink * l, Server * s, guint64 * left, GstClockTime enq,
    GstClockTime limit, GstClockTime * dep, GstClockTime * slot)
{
  if (slot)
    *slot = 0;
  if (l->cfg.delivery == RC_DELIVERY_START_OF_SLOT)
    return release (l, s, left, enq, limit, dep, slot);
  return serve (l, s, left, enq, limit, dep);
}

static void
depart (RcLink * l, Pkt * p, GstClockTime dep)
{
  p->departed = dep;
  if (p->lost) {
    p->arrival = dep;
    fifo_push (&l->lost, p);
  } else {
    Flow *f = &l->flows[p->flow];
    p->arrival = dep + f->prop_delay + p->noise;
    /* No reordering within a flow. */
    if (p->arrival < f->last_arrival)
      p->arrival = f->last_arrival;
    f->last_arrival = p->arrival;
    fifo_push (&f->flight, p);
  }
}

/* Runs the server up to `now`; returns `now` as the link sees it (never
 * before an earlier call's). */
static GstClockTime
advance (RcLink * l, GstClockTime now)
{
  Pkt *p;
  GstClockTime dep;

  if (!GST_CLOCK_TIME_IS_VALID (now) || now < l->last_now)
    now = l->last_now;
  l->last_now = now;
  while ((p = l->queue.head)) {
    if (!leave (l, &l->srv, &p->left, p->enqueued, now, &dep, &p->slot))
      break;
    fifo_pop (&l->queue);
    l->queue_bytes -= p->size;
    depart (l, p, dep);
  }
  /* START_OF_SLOT: the bits on the wire are served up to now as well, so
   * that a capacity set at now applies only to what is left of them. */
  if (!l->queue.head && l->srv.wire_left > 0)
    serve (l, &l->srv, &l->srv.wire_left, 0, now, &dep);
  return now;
}

/* ------------------------------------------------------------- public */

void
rc_link_set_capacity (RcLink * l, guint64 bps, GstClockTime now)
{
  g_return_if_fail (bps > 0);
  now = advance (l, now);
  if (l->cfg.mode == RC_CAPACITY_TRACE) {
    /* The head keeps its served bytes; the rest is served at the new rate
     * from now. */
    l->srv.t = now;
  } else if (l->srv.t < now) {
    l->srv.t = now;
  }
  /* The head's work left is in nanobits in every mode (trace service
   * takes whole bytes of it), so nothing needs converting. */
  l->cfg.mode = RC_CAPACITY_CONSTANT;
  l->cfg.capacity_bps = bps;
}

void
rc_link_set_noise (RcLink * l, const RcDelayNoise * noise)
{
  g_return_if_fail (rc_link_noise_validate (noise, NULL));
  l->cfg.noise = *noise;
  /* Restart the AR(1) recursion at the new stationary mean. */
  l->noise_prev = (gdouble) noise->mean;
  l->noise_have_k = FALSE;
}

void
rc_link_set_loss (RcLink * l, const RcLossModel * loss)
{
  g_return_if_fail (rc_link_loss_validate (loss, NULL));
  l->cfg.loss = *loss;
  l->ge_bad = FALSE;
}

void
rc_link_set_queue_limit (RcLink * l, guint64 bytes, GstClockTime time)
{
  l->cfg.queue_limit_bytes = bytes;
  l->cfg.queue_limit_time = GST_CLOCK_TIME_IS_VALID (time) ? time : 0;
}

guint64
rc_link_capacity_at (RcLink * l, GstClockTime t)
{
  GstClockTime until;

  if (l->cfg.mode == RC_CAPACITY_TRACE)
    return gst_util_uint64_scale (rc_link_capacity_bits (l, t,
            t + RC_LINK_TRACE_RATE_WINDOW), GST_SECOND,
        RC_LINK_TRACE_RATE_WINDOW);
  return rate_at (l, t, &until);
}

guint64
rc_link_capacity_bits (RcLink * l, GstClockTime from, GstClockTime to)
{
  guint64 bits = 0;

  if (to <= from)
    return 0;
  if (l->cfg.mode == RC_CAPACITY_TRACE)
    return opps_in (l, from, to) * TRACE_OPPORTUNITY_BYTES * 8;
  while (from < to) {
    GstClockTime until, end;
    guint64 rate = rate_at (l, from, &until);

    end = GST_CLOCK_TIME_IS_VALID (until) && until < to ? until : to;
    bits += gst_util_uint64_scale (rate, end - from, GST_SECOND);
    from = end;
  }
  return bits;
}

/* The rate a time-based queue limit uses at t: the rate in force, or in an
 * outage (0 bit/s) the last rate above 0 before it (if the schedule starts
 * with an outage: the first one after it). */
static guint64
limit_rate (RcLink * l, GstClockTime t)
{
  GstClockTime until;
  guint64 rate = rate_at (l, t, &until);
  const RcCapacityStep *s = l->cfg.steps;
  guint n = l->cfg.n_steps, i, k;

  if (rate > 0 || l->cfg.mode != RC_CAPACITY_SCHEDULE)
    return rate;
  /* Step k is the outage in force at t. */
  for (k = 0; k + 1 < n && s[k + 1].at <= t; k++);
  for (i = k; i-- > 0;)
    if (s[i].bps > 0)
      return s[i].bps;
  if (s[0].at > 0)
    return l->cfg.capacity_bps;
  for (i = k + 1; i < n; i++)
    if (s[i].bps > 0)
      return s[i].bps;
  return l->cfg.capacity_bps;
}

guint64
rc_link_queue_limit_at (RcLink * l, GstClockTime t)
{
  GstClockTime time = l->cfg.queue_limit_time;

  if (l->cfg.queue_limit_bytes > 0)
    return l->cfg.queue_limit_bytes;
  if (time == 0)
    return G_MAXUINT64;
  if (l->cfg.mode == RC_CAPACITY_TRACE)
    return trace_limit_bytes (l, t, time);
  return gst_util_uint64_scale (time, limit_rate (l, t), 8 * GST_SECOND);
}

guint64
rc_link_backlog_bytes (RcLink * l, GstClockTime now)
{
  Pkt *head;

  advance (l, now);
  head = l->queue.head;
  if (!head)
    return 0;
  return l->queue_bytes - head->size + (head->left + NANOBITS_PER_BYTE -
      1) / NANOBITS_PER_BYTE;
}

GstClockTime
rc_link_queue_delay (RcLink * l, GstClockTime now)
{
  Server s;
  Pkt *p;
  GstClockTime dep = 0;

  now = advance (l, now);
  if (!l->queue.head && l->srv.wire_left == 0)
    return 0;
  s = l->srv;
  for (p = l->queue.head; p; p = p->next) {
    guint64 left = p->left;
    leave (l, &s, &left, p->enqueued, GST_CLOCK_TIME_NONE, &dep, NULL);
  }
  /* START_OF_SLOT: the link is free once the last one's bits are out. */
  if (s.wire_left > 0)
    serve (l, &s, &s.wire_left, 0, GST_CLOCK_TIME_NONE, &dep);
  return dep > now ? dep - now : 0;
}

gboolean
rc_link_enqueue (RcLink * l, guint flow, guint size, gpointer data,
    GstClockTime now)
{
  Flow *f;
  Pkt *p;
  guint64 limit, backlog;

  g_return_val_if_fail (flow < l->n_flows, FALSE);
  g_return_val_if_fail (size <= MAX_PACKET_SIZE, FALSE);
  f = &l->flows[flow];
  backlog = rc_link_backlog_bytes (l, now);
  now = l->last_now;
  f->st.packets_in++;
  f->st.bytes_in += size;

  limit = rc_link_queue_limit_at (l, now);
  if (backlog + size > limit) {
    f->st.dropped_queue++;
    return FALSE;
  }

  p = g_new0 (Pkt, 1);
  p->seq = l->seq++;
  p->flow = flow;
  p->size = size;
  p->data = data;
  p->left = (guint64) size * NANOBITS_PER_BYTE;
  p->enqueued = now;
  p->lost = draw_loss (l);
  if (draw_episode_loss (l, now))
    p->lost = TRUE;
  p->noise = draw_noise (l, now);
  fifo_push (&l->queue, p);
  l->queue_bytes += size;
  /* A zero-size packet (or one served by what is left of this instant's
   * trace opportunity) leaves at once. */
  advance (l, now);
  return TRUE;
}

GstClockTime
rc_link_next_event (RcLink * l)
{
  GstClockTime best = GST_CLOCK_TIME_NONE, last[RC_LINK_MAX_FLOWS];
  Server s;
  Pkt *p;
  guint i;

  if (l->lost.head)
    best = l->lost.head->departed;
  for (i = 0; i < l->n_flows; i++) {
    Pkt *h = l->flows[i].flight.head;
    if (h && h->arrival < best)
      best = h->arrival;
    last[i] = l->flows[i].last_arrival;
  }
  /* Packets still queued: departures only grow, so stop at the first one
   * leaving after the best candidate so far. */
  s = l->srv;
  for (p = l->queue.head; p; p = p->next) {
    guint64 left = p->left;
    GstClockTime dep = 0, t;

    leave (l, &s, &left, p->enqueued, GST_CLOCK_TIME_NONE, &dep, NULL);
    if (dep >= best)
      break;
    if (p->lost) {
      t = dep;
    } else {
      t = MAX (dep + l->flows[p->flow].prop_delay + p->noise, last[p->flow]);
      last[p->flow] = t;
    }
    if (t < best)
      best = t;
  }
  return best;
}

gboolean
rc_link_pop (RcLink * l, GstClockTime now, RcLinkPacket * out)
{
  PktFifo *from = NULL;
  Pkt *best = NULL, *p;
  guint i;

  now = advance (l, now);
  if ((p = l->lost.head) && p->departed <= now) {
    best = p;
    from = &l->lost;
  }
  for (i = 0; i < l->n_flows; i++) {
    p = l->flows[i].flight.head;
    if (p && p->arrival <= now && (!best || p->arrival < best->arrival ||
            (p->arrival == best->arrival && p->seq < best->seq))) {
      best = p;
      from = &l->flows[i].flight;
    }
  }
  if (!best)
    return FALSE;
  fifo_pop (from);

  out->flow = best->flow;
  out->size = best->size;
  out->data = best->data;
  out->enqueued = best->enqueued;
  out->departed = best->departed;
  out->arrival = best->arrival;
  out->slot = best->slot;
  out->lost = best->lost;
  {
    RcLinkFlowStats *st = &l->flows[best->flow].st;
    if (best->lost) {
      st->dropped_loss++;
    } else {
      GstClockTime q = best->departed - best->enqueued;
      st->packets_out++;
      st->bytes_out += best->size;
      st->qdelay_sum += (gdouble) q / GST_SECOND;
      st->qdelay_max = MAX (st->qdelay_max, q);
      st->last_qdelay = q;
    }
  }
  g_free (best);
  return TRUE;
}

static guint
remove_from (PktFifo * f, guint flow, GDestroyNotify free_data,
    guint64 * bytes)
{
  PktFifo keep = { NULL, NULL, 0 };
  Pkt *p;
  guint n = 0;

  while ((p = fifo_pop (f))) {
    if (p->flow == flow) {
      if (bytes)
        *bytes += p->size;
      if (free_data && p->data)
        free_data (p->data);
      g_free (p);
      n++;
    } else {
      fifo_push (&keep, p);
    }
  }
  *f = keep;
  return n;
}

guint
rc_link_remove_flow_packets (RcLink * l, guint flow, GstClockTime now,
    GDestroyNotify free_data)
{
  guint64 bytes = 0;
  Pkt *head;
  gboolean head_ours;
  guint n;

  g_return_val_if_fail (flow < l->n_flows, 0);
  now = advance (l, now);
  head = l->queue.head;
  head_ours = head && head->flow == flow;
  n = remove_from (&l->queue, flow, free_data, &bytes);
  l->queue_bytes -= bytes;
  if (head_ours && l->cfg.mode != RC_CAPACITY_TRACE)
    l->srv.t = now;             /* the next packet starts now */
  n += remove_from (&l->lost, flow, free_data, NULL);
  n += remove_from (&l->flows[flow].flight, flow, free_data, NULL);
  l->flows[flow].st.flushed += n;
  return n;
}

void
rc_link_get_flow_stats (RcLink * l, guint flow, RcLinkFlowStats * out)
{
  g_return_if_fail (flow < l->n_flows);
  *out = l->flows[flow].st;
}

void
rc_link_get_total_stats (RcLink * l, RcLinkFlowStats * out)
{
  guint i;

  memset (out, 0, sizeof (*out));
  for (i = 0; i < l->n_flows; i++) {
    const RcLinkFlowStats *s = &l->flows[i].st;
    out->packets_in += s->packets_in;
    out->bytes_in += s->bytes_in;
    out->packets_out += s->packets_out;
    out->bytes_out += s->bytes_out;
    out->dropped_queue += s->dropped_queue;
    out->dropped_loss += s->dropped_loss;
    out->qdelay_sum += s->qdelay_sum;
    out->qdelay_max = MAX (out->qdelay_max, s->qdelay_max);
    out->flushed += s->flushed;
  }
}

/* ------------------------------------------------------------ parsers */

static gboolean
parse_uint64 (const gchar * s, guint64 * out)
{
  gchar *end = NULL;

  if (!g_ascii_isdigit (*s))
    return FALSE;
  errno = 0;
  *out = g_ascii_strtoull (s, &end, 10);
  return errno == 0 && end && *end == '\0';
}

/* The end of a parser: hands the array's data and length out if `ok`,
 * frees it either way; returns `ok`. */
static gboolean
parsed (GArray * arr, gboolean ok, gpointer out, guint * n)
{
  if (!ok) {
    g_array_free (arr, TRUE);
    return FALSE;
  }
  *n = arr->len;
  *(gpointer *) out = g_array_free (arr, FALSE);
  return TRUE;
}

gboolean
rc_link_parse_schedule (const gchar * text, RcCapacityStep ** steps,
    guint * n_steps, GError ** error)
{
  gchar **tok;
  GArray *arr;
  guint i;
  gboolean ok = TRUE;

  *steps = NULL;
  *n_steps = 0;
  if (!text) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
        "capacity schedule is empty");
    return FALSE;
  }
  tok = g_strsplit_set (text, ",;\n", -1);
  arr = g_array_new (FALSE, FALSE, sizeof (RcCapacityStep));
  for (i = 0; ok && tok[i]; i++) {
    gchar *t = g_strstrip (tok[i]), *colon, *end = NULL;
    gdouble sec;
    guint64 bps;
    RcCapacityStep st;

    if (*t == '\0')
      continue;
    colon = strchr (t, ':');
    if (!colon) {
      g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
          "schedule step \"%s\": expected SECONDS:BITRATE", t);
      ok = FALSE;
      break;
    }
    *colon = '\0';
    g_strstrip (t);
    sec = g_ascii_strtod (t, &end);
    if (!*t || !end || *end != '\0' || !isfinite (sec)) {
      g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
          "schedule step %u: time \"%s\" is not a number of seconds",
          arr->len + 1, t);
      ok = FALSE;
      break;
    }
    if (sec < 0 || t[0] == '-') {
      g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
          "schedule step %u: time %s s is negative", arr->len + 1, t);
      ok = FALSE;
      break;
    }
    if (sec > 1e9) {
      g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
          "schedule step %u: time %s s is too large", arr->len + 1, t);
      ok = FALSE;
      break;
    }
    t = g_strstrip (colon + 1);
    if (!parse_uint64 (t, &bps)) {
      g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
          "schedule step %u: rate \"%s\" is not a whole number of bit/s "
          "(0: an outage)", arr->len + 1, t);
      ok = FALSE;
      break;
    }
    st.at = (GstClockTime) (sec * GST_SECOND + 0.5);
    st.bps = bps;
    if (arr->len > 0 && st.at <= g_array_index (arr, RcCapacityStep,
            arr->len - 1).at) {
      g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
          "schedule step %u (%g s) is not after the step before it",
          arr->len + 1, sec);
      ok = FALSE;
      break;
    }
    g_array_append_val (arr, st);
  }
  g_strfreev (tok);
  if (ok && arr->len == 0) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
        "capacity schedule is empty");
    ok = FALSE;
  }
  if (ok && g_array_index (arr, RcCapacityStep, arr->len - 1).bps == 0) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
        "schedule step %u: the last step is 0 bit/s; an outage must end "
        "with a step of a rate above 0", arr->len);
    ok = FALSE;
  }
  return parsed (arr, ok, steps, n_steps);
}

gboolean
rc_link_parse_trace (const gchar * text, guint32 ** trace_ms,
    guint * n_trace, GError ** error)
{
  gchar **lines;
  GArray *arr;
  guint i;
  gboolean ok = TRUE;

  *trace_ms = NULL;
  *n_trace = 0;
  if (!text) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
        "capacity trace is empty");
    return FALSE;
  }
  lines = g_strsplit (text, "\n", -1);
  arr = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (i = 0; lines[i]; i++) {
    gchar *t = g_strstrip (lines[i]);
    guint64 v;
    guint32 ms;

    if (*t == '\0')
      continue;
    if (!parse_uint64 (t, &v) || v > G_MAXUINT32) {
      g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
          "trace line %u: \"%s\" is not a non-negative integer of ms",
          i + 1, t);
      ok = FALSE;
      break;
    }
    ms = (guint32) v;
    if (arr->len > 0 && ms < g_array_index (arr, guint32, arr->len - 1)) {
      g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
          "trace line %u: %u ms is before the line before it (%u ms); "
          "a trace must be in time order", i + 1, ms,
          g_array_index (arr, guint32, arr->len - 1));
      ok = FALSE;
      break;
    }
    g_array_append_val (arr, ms);
  }
  g_strfreev (lines);
  if (ok && arr->len == 0) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
        "capacity trace has no entries");
    ok = FALSE;
  }
  if (ok && g_array_index (arr, guint32, arr->len - 1) == 0) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
        "capacity trace's last entry (its period) must be above 0 ms");
    ok = FALSE;
  }
  return parsed (arr, ok, trace_ms, n_trace);
}

/* A trace file's text: a regular file of at most RC_LINK_TRACE_MAX_BYTES.
 * A device (/dev/zero: endless) or a FIFO (blocks until a writer comes) is
 * refused before anything is read; O_NONBLOCK keeps opening a FIFO from
 * blocking. */
static gchar *
read_trace_file (const gchar * path, GError ** error)
{
  GStatBuf st;
  gchar *text;
  gsize got = 0;
  gint fd = g_open (path, O_RDONLY | O_NONBLOCK, 0);

  if (fd < 0) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
        "cannot read trace file %s: %s", path, g_strerror (errno));
    return NULL;
  }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode)) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
        "trace file %s is not a regular file", path);
    close (fd);
    return NULL;
  }
  if (st.st_size > RC_LINK_TRACE_MAX_BYTES) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
        "trace file %s is %" G_GINT64_FORMAT " bytes; at most %d are read",
        path, (gint64) st.st_size, RC_LINK_TRACE_MAX_BYTES);
    close (fd);
    return NULL;
  }
  /* One byte more than its size, to see it grow; what it grew by is not
   * read. */
  text = g_malloc ((gsize) st.st_size + 2);
  while (got < (gsize) st.st_size + 1) {
    gssize r = read (fd, text + got, (gsize) st.st_size + 1 - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
          "cannot read trace file %s: %s", path, g_strerror (errno));
      g_free (text);
      close (fd);
      return NULL;
    }
    if (r == 0)
      break;
    got += r;
  }
  close (fd);
  text[MIN (got, (gsize) st.st_size)] = '\0';
  return text;
}

gboolean
rc_link_load_trace (const gchar * path, guint32 ** trace_ms,
    guint * n_trace, GError ** error)
{
  gchar *text = NULL;
  GError *err = NULL;
  gboolean ok;

  *trace_ms = NULL;
  *n_trace = 0;
  if (!path || !*path) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
        "no trace file given");
    return FALSE;
  }
  if (!(text = read_trace_file (path, error)))
    return FALSE;
  ok = rc_link_parse_trace (text, trace_ms, n_trace, &err);
  g_free (text);
  if (!ok) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
        "trace file %s: %s", path, err->message);
    g_error_free (err);
  }
  return ok;
}

/* Seconds: a finite number >= 0 (fractional ok), at most 1e9. */
static gboolean
parse_seconds (const gchar * t, GstClockTime * out)
{
  gchar *end = NULL;
  gdouble sec;

  if (!*t || t[0] == '-')
    return FALSE;
  sec = g_ascii_strtod (t, &end);
  if (!end || *end != '\0' || !isfinite (sec) || sec < 0 || sec > 1e9)
    return FALSE;
  *out = (GstClockTime) (sec * GST_SECOND + 0.5);
  return TRUE;
}

gboolean
rc_link_parse_loss_episodes (const gchar * text, RcLossEpisode ** episodes,
    guint * n_episodes, GError ** error)
{
  gchar **tok;
  GArray *arr;
  guint i;
  gboolean ok = TRUE;

  *episodes = NULL;
  *n_episodes = 0;
  tok = g_strsplit_set (text ? text : "", ",;\n", -1);
  arr = g_array_new (FALSE, FALSE, sizeof (RcLossEpisode));
  for (i = 0; ok && tok[i]; i++) {
    gchar *t = g_strstrip (tok[i]), **f;
    RcLossEpisode e = { 0, 0, 1.0 };
    guint nf;

    if (*t == '\0')
      continue;
    f = g_strsplit (t, ":", -1);
    nf = g_strv_length (f);
    ok = nf >= 2 && nf <= 3 && parse_seconds (g_strstrip (f[0]), &e.from) &&
        parse_seconds (g_strstrip (f[1]), &e.to);
    if (ok && nf == 3) {
      gchar *r = g_strstrip (f[2]), *end = NULL;
      e.rate = g_ascii_strtod (r, &end);
      ok = *r && end && *end == '\0' && e.rate >= 0 && e.rate <= 1;
    }
    g_strfreev (f);
    if (!ok) {
      g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
          "loss episode %u \"%s\": expected FROM:TO[:RATE] (seconds from "
          "0, and a loss probability within 0..1, default 1)", arr->len + 1,
          t);
      break;
    }
    if (e.to <= e.from) {
      g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
          "loss episode %u \"%s\": expected FROM:TO[:RATE] with TO after "
          "FROM", arr->len + 1, t);
      ok = FALSE;
      break;
    }
    if (arr->len > 0 && e.from < g_array_index (arr, RcLossEpisode,
            arr->len - 1).to) {
      g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
          "loss episode %u \"%s\" starts before the episode before it ends "
          "(FROM:TO[:RATE],... in time order, not overlapping)",
          arr->len + 1, t);
      ok = FALSE;
      break;
    }
    g_array_append_val (arr, e);
  }
  g_strfreev (tok);
  if (ok && arr->len == 0) {
    g_set_error (error, RC_LINK_ERROR, RC_LINK_ERROR_PARSE,
        "no loss episode: expected FROM:TO[:RATE],... (seconds)");
    ok = FALSE;
  }
  return parsed (arr, ok, episodes, n_episodes);
}
