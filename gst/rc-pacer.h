/* Pacer arithmetic (core): when may the next packet leave? */
#ifndef __RC_PACER_H__
#define __RC_PACER_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct
{
  GstClockTime next_free;       /* when the virtual sending link is free */
  GstClockTime max_queue_time;  /* no packet waits longer than this */
} RcPacer;

void rc_pacer_init (RcPacer * p, GstClockTime max_queue_time);
void rc_pacer_reset (RcPacer * p);
/* Earliest time the head packet, queued at `arrival`, may leave; never
 * later than arrival + max_queue_time. */
GstClockTime rc_pacer_next_send (const RcPacer * p, GstClockTime arrival);
/* The pacing rate used at `now` for a queue of `queued_bytes` whose oldest
 * packet arrived at `oldest_arrival`: the requested rate, raised so the
 * whole queue is out by that packet's deadline. Bursts are smoothed over
 * the time left, never dropped. */
guint64 rc_pacer_effective_rate (const RcPacer * p, guint64 rate_bps,
    guint64 queued_bytes, GstClockTime oldest_arrival, GstClockTime now);
/* The oldest packet, `size` bytes queued at `arrival`, left at `now`;
 * `queued_bytes` counts it too. */
void rc_pacer_sent (RcPacer * p, GstClockTime now, guint size,
    guint64 rate_bps, guint64 queued_bytes, GstClockTime arrival);
/* Time the queue needs to drain at the effective rate. */
GstClockTime rc_pacer_queue_time (const RcPacer * p, guint64 rate_bps,
    guint64 queued_bytes, GstClockTime oldest_arrival, GstClockTime now);

G_END_DECLS
#endif
