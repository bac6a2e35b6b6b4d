/* Pacer arithmetic (core). A leaky bucket with no burst credit: an idle
 * pacer sends the next packet at once, a busy one spaces packets by
 * size / rate. */
#include "rc-pacer.h"

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
  return MAX (arrival, p->next_free);
}

guint64
rc_pacer_effective_rate (const RcPacer * p, guint64 rate_bps,
    guint64 queued_bytes)
{
  guint64 drain = 0;

  if (p->max_queue_time > 0)
    drain = gst_util_uint64_scale (queued_bytes * 8, GST_SECOND,
        p->max_queue_time);
  return MAX (MAX (rate_bps, drain), 1000);
}

void
rc_pacer_sent (RcPacer * p, GstClockTime now, guint size, guint64 rate_bps,
    guint64 queued_bytes)
{
  guint64 rate = rc_pacer_effective_rate (p, rate_bps, queued_bytes);

  p->next_free = MAX (now, p->next_free) +
      gst_util_uint64_scale ((guint64) size * 8, GST_SECOND, rate);
}

GstClockTime
rc_pacer_queue_time (const RcPacer * p, guint64 rate_bps, guint64 queued_bytes)
{
  guint64 rate = rc_pacer_effective_rate (p, rate_bps, queued_bytes);
  return gst_util_uint64_scale (queued_bytes * 8, GST_SECOND, rate);
}
