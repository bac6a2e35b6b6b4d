/* One-way delay measure delta = OWD - OWD_min (URCP eq. 4), robust to the
 * receiver clock's offset and drift (core). */
#ifndef __RC_OWD_H__
#define __RC_OWD_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define RC_OWD_BUCKETS 12

typedef struct
{
  GstClockTime t;               /* send time of the bucket's start */
  gint64 min;                   /* lowest raw OWD in it, ns */
  guint min_size;               /* that packet's size, bytes */
  gint64 min_full;              /* lowest raw OWD of a full-size packet */
  guint min_full_size;          /* that packet's size, bytes */
  guint full_size;              /* the largest size seen when min_full was
                                 * taken; 0: no full-size packet yet */
} RcOwdBucket;

typedef struct
{
  GstClockTime bucket_span;
  RcOwdBucket b[RC_OWD_BUCKETS];
  guint head, len;
  gdouble skew;                 /* receiver minus sender clock rate, ns/ns */
  guint resets;
  guint max_size;               /* largest packet seen, bytes */
  gboolean size_base;           /* a base for each packet size (rc-owd.c) */
} RcOwd;

typedef enum
{
  RC_OWD_OK,
  RC_OWD_RESET,                 /* receiver clock jumped: history restarted */
} RcOwdResult;

void rc_owd_init (RcOwd * o);
/* Feed one received packet of `size` bytes (0: unknown, taken as
 * full-size); *delta_s gets OWD - OWD_min in seconds (>= 0). */
RcOwdResult rc_owd_sample (RcOwd * o, GstClockTime send_ts,
    GstClockTime recv_ts, guint size, gdouble * delta_s);
gdouble rc_owd_skew_ppm (const RcOwd * o);

G_END_DECLS
#endif
