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
 *  - estimate the skew from the lower envelope of those bucket minima: the
 *    slope between the lowest point of the older half and the lowest point of
 *    the newer half (a two-point form of the lower-bound line fit of Moon et
 *    al., URCP ref. [23]), clamped to +-250 ppm, twice a loose crystal's
 *    +-100 ppm so real drift passes but a growing queue cannot pose as a
 *    large drift;
 *  - the base at time t is the lowest bucket minimum carried forward along
 *    that slope to t, so within the window the base follows the drift.
 *
 * A jump of more than RC_OWD_JUMP (receiver restarted, clock stepped) empties
 * the history and starts again. */
#include <math.h>
#include "rc-owd.h"

#define RC_OWD_BUCKET_SPAN (10 * GST_SECOND)
#define RC_OWD_MAX_SKEW 250e-6
#define RC_OWD_MIN_BUCKETS_FOR_SKEW 4
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

static void
update_skew (RcOwd * o)
{
  guint half, i;
  RcOwdBucket *lo_a = NULL, *lo_b = NULL;
  gdouble slope;

  /* Only complete buckets: the newest one is still filling. */
  if (o->len - 1 < RC_OWD_MIN_BUCKETS_FOR_SKEW)
    return;
  half = (o->len - 1) / 2;
  for (i = 0; i < o->len - 1; i++) {
    RcOwdBucket *b = bucket_at (o, i);
    RcOwdBucket **lo = i < half ? &lo_a : &lo_b;
    if (*lo == NULL || b->min < (*lo)->min)
      *lo = b;
  }
  if (lo_b->t <= lo_a->t)
    return;
  /* in doubles: the minima may lie at opposite ends of gint64 */
  slope = ((gdouble) lo_b->min - (gdouble) lo_a->min) /
      (gdouble) (lo_b->t - lo_a->t);
  o->skew = CLAMP (slope, -RC_OWD_MAX_SKEW, RC_OWD_MAX_SKEW);
}

/* The base carried to t along the skew. Raw delays span the whole gint64
 * range (times below 2^63 either way round), so the sum saturates instead
 * of overflowing. */
static gint64
base_at (RcOwd * o, GstClockTime t)
{
  gint64 base = G_MAXINT64;
  guint i;

  for (i = 0; i < o->len; i++) {
    RcOwdBucket *b = bucket_at (o, i);
    /* |skew| <= 250 ppm: at most ~4.6e15 over any span of times */
    gint64 adj = (gint64) (o->skew * ((gdouble) t - b->t));
    gint64 carried;

    if (adj > 0 && b->min > G_MAXINT64 - adj)
      carried = G_MAXINT64;
    else if (adj < 0 && b->min < G_MININT64 - adj)
      carried = G_MININT64;
    else
      carried = b->min + adj;
    base = MIN (base, carried);
  }
  return base;
}

RcOwdResult
rc_owd_sample (RcOwd * o, GstClockTime send_ts, GstClockTime recv_ts,
    gdouble * delta_s)
{
  gint64 raw = (gint64) recv_ts - (gint64) send_ts;
  RcOwdResult res = RC_OWD_OK;
  RcOwdBucket *cur;
  gint64 base;

  if (o->len > 0) {
    base = base_at (o, send_ts);
    /* |raw - base| in doubles: both may be anywhere in gint64. */
    if (fabs ((gdouble) raw - (gdouble) base) > (gdouble) RC_OWD_JUMP) {
      o->len = 0;
      o->head = 0;
      o->skew = 0;
      o->resets++;
      res = RC_OWD_RESET;
    }
  }

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
    update_skew (o);
  } else if (raw < cur->min) {
    cur->min = raw;
  }

  base = base_at (o, send_ts);
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
