/* Time-based sliding windows (core). */
#ifndef __RC_WINDOW_H__
#define __RC_WINDOW_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* Average of samples whose timestamps lie within the last `span`.
 * Memory is bounded: at most `max_samples` are kept (oldest go first). */
typedef struct
{
  GstClockTime span;
  guint max_samples;
  GstClockTime *ts;
  gdouble *val;
  guint head, len, cap;
  gdouble sum;
} RcAvgWindow;

void rc_avg_window_init (RcAvgWindow * w, GstClockTime span, guint max_samples);
void rc_avg_window_clear (RcAvgWindow * w);
void rc_avg_window_reset (RcAvgWindow * w);
void rc_avg_window_push (RcAvgWindow * w, GstClockTime ts, gdouble v);
void rc_avg_window_expire (RcAvgWindow * w, GstClockTime now);
gboolean rc_avg_window_mean (const RcAvgWindow * w, gdouble * mean);
guint rc_avg_window_len (const RcAvgWindow * w);
/* Time covered by the samples held (newest - oldest). */
GstClockTime rc_avg_window_age (const RcAvgWindow * w);
/* Timestamp of the newest sample, or 0 if empty. */
GstClockTime rc_avg_window_newest (const RcAvgWindow * w);

/* Byte-rate meter: bytes in the last `span`, as bit/s. */
typedef struct
{
  RcAvgWindow w;                /* val = bytes */
} RcRateMeter;

void rc_rate_meter_init (RcRateMeter * m, GstClockTime span);
void rc_rate_meter_clear (RcRateMeter * m);
void rc_rate_meter_add (RcRateMeter * m, GstClockTime ts, guint bytes);
/* bit/s over max(span covered, min_span) ending at now; 0 if empty. */
gdouble rc_rate_meter_bps (RcRateMeter * m, GstClockTime now);
/* qsort/g_array_sort comparator for gdouble, ascending. */
gint rc_double_cmp (gconstpointer a, gconstpointer b);

G_END_DECLS
#endif
