/* Pacer arithmetic (core): when may the next packet leave? */
#ifndef __RC_PACER_H__
#define __RC_PACER_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct
{
  GstClockTime next_free;       /* when the virtual sending link is free */
  GstClockTime max_queue_time;  /* queue bound, in time at the pacing rate */
} RcPacer;

void rc_pacer_init (RcPacer * p, GstClockTime max_queue_time);
void rc_pacer_reset (RcPacer * p);
/* Earliest time the head packet, queued at `arrival`, may leave. */
GstClockTime rc_pacer_next_send (const RcPacer * p, GstClockTime arrival);
/* The pacing rate actually used: the requested one, raised so that
 * `queued_bytes` drain within max_queue_time. Bursts are smoothed, never
 * dropped; a burst too big for the bound leaves faster instead. */
guint64 rc_pacer_effective_rate (const RcPacer * p, guint64 rate_bps,
    guint64 queued_bytes);
/* A packet of `size` bytes left at `now`; `queued_bytes` counts it too. */
void rc_pacer_sent (RcPacer * p, GstClockTime now, guint size,
    guint64 rate_bps, guint64 queued_bytes);
/* Time the queue needs to drain at the effective rate. */
GstClockTime rc_pacer_queue_time (const RcPacer * p, guint64 rate_bps,
    guint64 queued_bytes);

G_END_DECLS
#endif
