/* Pacer arithmetic (core). A leaky bucket with no burst credit: an idle
 * pacer sends the next packet at once, a busy one spaces packets by
 * size / rate.
 *
 * The queue bound is a deadline per packet: arrival + max_queue_time. When
 * the requested rate cannot meet the oldest packet's deadline, the rate is
 * raised to spread what is queued evenly over the time left. (Raising it
 * only to queued / max_queue_time is not enough: that rate falls as the
 * queue drains, and a burst of n packets then takes ~max_queue_time ln n.) */
#include "rc-pacer.h"

/* Floor on the time left, so an overdue queue drains at a finite rate. */
#define MIN_TIME_LEFT GST_USECOND

void
rc_pacer_init (RcPacer * p, GstClockTime max_queue_time)
{
  p->max_queue_time = max_queue_time;
  rc_pacer_reset (p);
}

void
rc_pacer_reset (RcPacer * p)
{
  p->next_free = 0;
}

GstClockTime
rc_pacer_next_send (const RcPacer * p, GstClockTime arrival)
{
  GstClockTime at = MAX (arrival, p->next_free);

  if (p->max_queue_time > 0)
    at = MIN (at, arrival + p->max_queue_time);
  return at;
}

guint64
rc_pacer_effective_rate (const RcPacer * p, guint64 rate_bps,
    guint64 queued_bytes, GstClockTime oldest_arrival, GstClockTime now)
{
  guint64 drain = 0;

  if (p->max_queue_time > 0 && queued_bytes > 0) {
    GstClockTime deadline = oldest_arrival + p->max_queue_time;
    GstClockTime left = deadline > now ? deadline - now : 0;
    drain = gst_util_uint64_scale (queued_bytes * 8, GST_SECOND,
        MAX (left, MIN_TIME_LEFT));
  }
  return MAX (MAX (rate_bps, drain), 1000);
}

void
rc_pacer_sent (RcPacer * p, GstClockTime now, guint size, guint64 rate_bps,
    guint64 queued_bytes, GstClockTime arrival)
{
  guint64 rate = rc_pacer_effective_rate (p, rate_bps, queued_bytes, arrival,
      now);

  p->next_free = MAX (now, p->next_free) +
      gst_util_uint64_scale ((guint64) size * 8, GST_SECOND, rate);
}

GstClockTime
rc_pacer_queue_time (const RcPacer * p, guint64 rate_bps,
    guint64 queued_bytes, GstClockTime oldest_arrival, GstClockTime now)
{
  guint64 rate = rc_pacer_effective_rate (p, rate_bps, queued_bytes,
      oldest_arrival, now);
  return gst_util_uint64_scale (queued_bytes * 8, GST_SECOND, rate);
}
