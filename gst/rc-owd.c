/* One-way delay measure (URCP eq. 4) with clock drift handling.
 *
 * The receiver's timestamps have an unknown offset (cancelled by taking
 * OWD - OWD_min) and an unknown rate error (drift). With drift, an all-time
 * OWD_min walks away: if the receiver clock runs fast, every later OWD looks
 * longer and the controller sees phantom queueing.
 *
 * What we do:
 *  - keep the minimum raw OWD per 10 s bucket over the last 2 minutes, as
 *    LEDBAT keeps its base-delay history (RFC 6817 sec. 4.2), so the base is
 *    a windowed minimum rather than an all-time one;
 *  - estimate the skew from the lower envelope of those buckets: the slope
 *    between the lowest point of the older half and the lowest point of the
 *    newer half (a two-point form of the lower-bound line fit of Moon et
 *    al., URCP ref. [23]), clamped to +-250 ppm, twice a loose crystal's
 *    +-100 ppm;
 *  - the base at time t is the lowest bucket minimum carried forward along
 *    that slope to t, so within the window the base follows the drift.
 *
 * A drift moves the lowest OWD along one line for as long as it lasts; the
 * path moves it in steps, and those must not read as drift:
 *  - A bottleneck that serializes adds each packet's own service time, so
 *    a short packet's OWD is lower than a full one's on the same empty
 *    queue (9 ms apart at 1 Mbit/s). The skew reads only the lowest OWD of
 *    the full-size packets (at least 9/10 of the largest seen) in each
 *    bucket, and only buckets whose full size is the current one: a start
 *    at a low rate may send short frames only.
 *  - A change of capacity, route or load moves even that minimum once. The
 *    skew is taken only when the older half and the newer half show the
 *    same slope within themselves (first quarter to second, third to
 *    fourth), of the sign of the slope between the halves and within a
 *    factor of SKEW_AGREE of it; a single step sits in at most one of those
 *    spans, and the slopes disagree. Otherwise the skew is 0 and the base is
 *    the window's minimum: a 100 ppm drift then shows at most 12 ms of
 *    phantom delay (the 2-minute window) until the slopes agree again.
 *    Measured (rcsim, docs/results.md, 2026-11-28): before these two rules
 *    the start-up alone posed as drift on the drift-free clean-1mbps path
 *    (its first bucket, at 300 kbit/s with short packets, holds a lower
 *    minimum than any bucket at 1 Mbit/s), the estimate read 140-250 ppm,
 *    and delta under-read the queue by up to 8 ms; on a path with a real
 *    100 ppm drift it wandered between 30 and 250 ppm. Now 0, and 99.8-100.1
 *    ppm.
 *
 * A base for each packet size (size_base; URCP's, UM and FRACTaL keep one
 * base). On a link that serializes, a full packet's OWD on an empty queue
 * is its service time above a short one's, and with one base, the lowest OWD
 * of any size (a short packet's), every full packet's delta carried that
 * difference as queueing delay. How much depended on whether a short packet
 * had crossed an empty queue within the 2-minute window: a start at a low
 * rate sends short frames, while at a steady rate a frame's short tail
 * waits behind its full packets. On rcsim's clean-1mbps (seed 2) the same
 * 10-11 ms of link queue read 10.4 or 7.4 ms of delta^AVE by that draw.
 * URCP balances eq. 19 on delta, so on a serializing link it held its rate
 * lower than where a shaper hands packets on at the start of their slot
 * (tbf, the kernel bench) and the size does not show: rcsim, 8 seeds, RFC
 * 8867 5.1 84.3 % against 90.9 %, clean-1mbps 94.2 against 97.4 %. The base
 * of a packet is now the line through the lowest OWD of any size and the
 * lowest of a full-size packet (both carried along the skew), at the
 * packet's size (clamped to those two sizes): service time is linear in the
 * size, so delta is the wait alone on either kind of link, and on a shaper
 * the two lowest OWDs are level and nothing changes. Only where the short
 * point is at most SIZE_BASE_SHORT of the full one; nearer, the lowest of
 * any size as before. rcsim, 8 seeds, serializing links: 5.1 84.3 ->
 * 89.6 %, clean-1mbps 94.2 -> 97.4 % (mean queue 11.5 -> 14.9 ms, as on
 * start-of-slot delivery and the kernel bench's 15.4), noisy-adsl and
 * noisy-cable 92-93 -> 97 %, 5.4's Jain 0.815 -> 0.894; 5.5's Jain 0.982 ->
 * 0.948 (0.96 on start-of-slot delivery, before and after); start-of-slot
 * delivery and the kernel's tbf unchanged but where delay noise picks the
 * lowest packets (docs/results.md, 2026-11-29, sixteenth session).
 *
 * A jump of more than RC_OWD_JUMP (receiver restarted, clock stepped) empties
 * the history and starts again. */
#include <math.h>
#include "rc-owd.h"

#define RC_OWD_BUCKET_SPAN (10 * GST_SECOND)
#define RC_OWD_MAX_SKEW 250e-6
/* two per quarter: 80 s of history before any skew */
#define RC_OWD_MIN_BUCKETS_FOR_SKEW 8
#define SKEW_AGREE 3.0
/* full-size: at least FULL_TENTHS / 10 of the largest packet */
#define FULL_TENTHS 9
/* size_base: the line through the lowest OWD of any size and the lowest of
 * a full-size packet only where the first packet is at most 3/4 of the
 * second's size; nearer, their difference is mostly timestamp noise (TWCC's
 * 250 us steps) and the slope would multiply it. */
#define SIZE_BASE_SHORT (4.0 / 3.0)
/* No real queue in an RTC path holds 5 s; a step this large is a clock. */
#define RC_OWD_JUMP (5 * GST_SECOND)

void
rc_owd_init (RcOwd * o)
{
  memset (o, 0, sizeof (*o));
  o->bucket_span = RC_OWD_BUCKET_SPAN;
}

static RcOwdBucket *
bucket_at (RcOwd * o, guint i)
{
  return &o->b[(o->head + i) % RC_OWD_BUCKETS];
}

/* Whether the bucket's full-size minimum is of the current size class. */
static gboolean
full_is_current (const RcOwd * o, const RcOwdBucket * b)
{
  return b->full_size > 0 && 10 * b->full_size >= FULL_TENTHS * o->max_size;
}

/* The bucket with the lowest full-size minimum among complete buckets
 * [from, to) whose full size is the current one, or NULL. */
static RcOwdBucket *
lowest_full (RcOwd * o, guint from, guint to)
{
  RcOwdBucket *lo = NULL;
  guint i;

  for (i = from; i < to; i++) {
    RcOwdBucket *b = bucket_at (o, i);
    if (!full_is_current (o, b))
      continue;
    if (lo == NULL || b->min_full < lo->min_full)
      lo = b;
  }
  return lo;
}

/* The slope of the lowest full-size OWD from a to b, ns/ns. */
static gboolean
slope (const RcOwdBucket * a, const RcOwdBucket * b, gdouble * s)
{
  if (a == NULL || b == NULL || b->t <= a->t)
    return FALSE;
  /* in doubles: the minima may lie at opposite ends of gint64 */
  *s = ((gdouble) b->min_full - (gdouble) a->min_full) /
      (gdouble) (b->t - a->t);
  return TRUE;
}

/* TRUE when `part` has the sign of `whole` and is within a factor of
 * SKEW_AGREE of it. */
static gboolean
agrees (gdouble part, gdouble whole)
{
  return part * whole > 0 && fabs (part) <= SKEW_AGREE * fabs (whole) &&
      fabs (whole) <= SKEW_AGREE * fabs (part);
}

static void
update_skew (RcOwd * o)
{
  guint n = o->len - 1;         /* complete buckets: the newest one fills */
  guint h = n / 2, q = n / 4;
  gdouble s, s_old, s_new;

  o->skew = 0;
  if (n < RC_OWD_MIN_BUCKETS_FOR_SKEW ||
      !slope (lowest_full (o, 0, h), lowest_full (o, h, n), &s) ||
      !slope (lowest_full (o, 0, q), lowest_full (o, q, h), &s_old) ||
      !slope (lowest_full (o, h, h + q), lowest_full (o, h + q, n), &s_new) ||
      !agrees (s_old, s) || !agrees (s_new, s))
    return;
  o->skew = CLAMP (s, -RC_OWD_MAX_SKEW, RC_OWD_MAX_SKEW);
}

/* A bucket's minimum `m` carried to t along the skew. Raw delays span the
 * whole gint64 range (times below 2^63 either way round), so the sum
 * saturates instead of overflowing. */
static gint64
carried (const RcOwd * o, const RcOwdBucket * b, gint64 m, GstClockTime t)
{
  /* |skew| <= 250 ppm: at most ~4.6e15 over any span of times */
  gint64 adj = (gint64) (o->skew * ((gdouble) t - b->t));

  if (adj > 0 && m > G_MAXINT64 - adj)
    return G_MAXINT64;
  if (adj < 0 && m < G_MININT64 - adj)
    return G_MININT64;
  return m + adj;
}

/* The base for a packet of `size` bytes sent at t: the lowest bucket
 * minimum carried along the skew; with size_base, the line through the
 * lowest OWD of any size and the lowest of a full-size packet, at `size`
 * (see the file's comment). */
static gint64
base_at (RcOwd * o, GstClockTime t, guint size)
{
  gint64 lo = G_MAXINT64, lo_full = G_MAXINT64;
  guint lo_size = 0, lo_full_size = 0, i;
  gdouble x;

  for (i = 0; i < o->len; i++) {
    RcOwdBucket *b = bucket_at (o, i);
    gint64 c = carried (o, b, b->min, t);

    if (c < lo) {
      lo = c;
      lo_size = b->min_size;
    }
    if (!o->size_base || !full_is_current (o, b))
      continue;
    c = carried (o, b, b->min_full, t);
    if (c < lo_full) {
      lo_full = c;
      lo_full_size = b->min_full_size;
    }
  }
  if (!o->size_base || lo_full == G_MAXINT64 || lo_full <= lo ||
      lo_full_size <= lo_size || SIZE_BASE_SHORT * lo_size > lo_full_size)
    return lo;
  x = (gdouble) (CLAMP (size, lo_size, lo_full_size) - lo_size) /
      (lo_full_size - lo_size);
  /* in doubles: the two may lie far apart in gint64 */
  return lo + (gint64) (x * ((gdouble) lo_full - (gdouble) lo));
}

RcOwdResult
rc_owd_sample (RcOwd * o, GstClockTime send_ts, GstClockTime recv_ts,
    guint size, gdouble * delta_s)
{
  gint64 raw = (gint64) recv_ts - (gint64) send_ts;
  RcOwdResult res = RC_OWD_OK;
  RcOwdBucket *cur;
  gint64 base;
  gboolean full;

  if (size == 0 && o->size_base)
    size = o->max_size;         /* unknown: taken as full-size */
  if (o->len > 0) {
    base = base_at (o, send_ts, size);
    /* |raw - base| in doubles: both may be anywhere in gint64. */
    if (fabs ((gdouble) raw - (gdouble) base) > (gdouble) RC_OWD_JUMP) {
      o->len = 0;
      o->head = 0;
      o->skew = 0;
      o->resets++;
      res = RC_OWD_RESET;
    }
  }

  o->max_size = MAX (o->max_size, size);
  full = 10 * size >= FULL_TENTHS * o->max_size;
  cur = o->len > 0 ? bucket_at (o, o->len - 1) : NULL;
  if (cur == NULL || send_ts >= cur->t + o->bucket_span) {
    if (o->len == RC_OWD_BUCKETS) {
      o->head = (o->head + 1) % RC_OWD_BUCKETS;
      o->len--;
    }
    cur = bucket_at (o, o->len);
    o->len++;
    cur->t = send_ts;
    cur->min = raw;
    cur->min_size = size;
    cur->full_size = 0;
    update_skew (o);
  } else if (raw < cur->min) {
    cur->min = raw;
    cur->min_size = size;
  }
  /* a bucket whose full size was a smaller class (a start sends short
   * frames first) takes the current class's first packet */
  if (full && (!full_is_current (o, cur) || raw < cur->min_full)) {
    cur->min_full = raw;
    cur->min_full_size = size;
    cur->full_size = MAX (o->max_size, 1);
  }

  base = base_at (o, send_ts, size);
  /* raw > base: their difference fits a guint64 */
  *delta_s = raw > base ?
      (gdouble) ((guint64) raw - (guint64) base) / GST_SECOND : 0.0;
  return res;
}

gdouble
rc_owd_skew_ppm (const RcOwd * o)
{
  return o->skew * 1e6;
}
