/* Time-based sliding windows (core). A ring buffer of (time, value) pairs
 * with a running sum, so push and expire are O(1) amortised. */
#include "rc-window.h"

void
rc_avg_window_init (RcAvgWindow * w, GstClockTime span, guint max_samples)
{
  memset (w, 0, sizeof (*w));
  w->span = span;
  w->max_samples = MAX (max_samples, 1);
  w->cap = MIN (w->max_samples, 64);
  w->ts = g_new (GstClockTime, w->cap);
  w->val = g_new (gdouble, w->cap);
}

void
rc_avg_window_clear (RcAvgWindow * w)
{
  g_clear_pointer (&w->ts, g_free);
  g_clear_pointer (&w->val, g_free);
  w->len = w->cap = w->head = 0;
  w->sum = 0;
}

void
rc_avg_window_reset (RcAvgWindow * w)
{
  w->len = w->head = 0;
  w->sum = 0;
}

static void
drop_oldest (RcAvgWindow * w)
{
  w->sum -= w->val[w->head];
  w->head = (w->head + 1) % w->cap;
  w->len--;
  if (w->len == 0)
    w->sum = 0;                 /* no float drift survives an empty window */
}

static void
grow (RcAvgWindow * w)
{
  guint ncap = MIN (w->cap * 2, w->max_samples);
  GstClockTime *nts = g_new (GstClockTime, ncap);
  gdouble *nval = g_new (gdouble, ncap);
  guint i;

  for (i = 0; i < w->len; i++) {
    nts[i] = w->ts[(w->head + i) % w->cap];
    nval[i] = w->val[(w->head + i) % w->cap];
  }
  g_free (w->ts);
  g_free (w->val);
  w->ts = nts;
  w->val = nval;
  w->head = 0;
  w->cap = ncap;
}

void
rc_avg_window_expire (RcAvgWindow * w, GstClockTime now)
{
  while (w->len > 0 && now > w->span && w->ts[w->head] < now - w->span)
    drop_oldest (w);
}

void
rc_avg_window_push (RcAvgWindow * w, GstClockTime ts, gdouble v)
{
  if (w->len == w->cap) {
    if (w->cap < w->max_samples)
      grow (w);
    else
      drop_oldest (w);
  }
  w->ts[(w->head + w->len) % w->cap] = ts;
  w->val[(w->head + w->len) % w->cap] = v;
  w->len++;
  w->sum += v;
  rc_avg_window_expire (w, ts);
}

gboolean
rc_avg_window_mean (const RcAvgWindow * w, gdouble * mean)
{
  if (w->len == 0)
    return FALSE;
  *mean = w->sum / w->len;
  return TRUE;
}

guint
rc_avg_window_len (const RcAvgWindow * w)
{
  return w->len;
}

GstClockTime
rc_avg_window_age (const RcAvgWindow * w)
{
  GstClockTime first, last;

  if (w->len < 2)
    return 0;
  first = w->ts[w->head];
  last = rc_avg_window_newest (w);
  return last > first ? last - first : 0;
}

GstClockTime
rc_avg_window_newest (const RcAvgWindow * w)
{
  return w->len ? w->ts[(w->head + w->len - 1) % w->cap] : 0;
}

void
rc_rate_meter_init (RcRateMeter * m, GstClockTime span)
{
  /* 64k samples is 50 s of 1 Mbit/s in 100-byte packets: never the limit
   * in practice, but it bounds memory against a flood. */
  rc_avg_window_init (&m->w, span, 65536);
}

void
rc_rate_meter_clear (RcRateMeter * m)
{
  rc_avg_window_clear (&m->w);
}

void
rc_rate_meter_add (RcRateMeter * m, GstClockTime ts, guint bytes)
{
  rc_avg_window_push (&m->w, ts, bytes);
}

gdouble
rc_rate_meter_bps (RcRateMeter * m, GstClockTime now)
{
  GstClockTime covered;

  rc_avg_window_expire (&m->w, now);
  if (m->w.len == 0)
    return 0;
  /* Divide by the whole span once it is covered, otherwise by the time the
   * samples actually cover, so a young meter does not read low. */
  covered = now - MIN (now, m->w.ts[m->w.head]);
  covered = CLAMP (covered, m->w.span / 4, m->w.span);
  return m->w.sum * 8.0 / ((gdouble) covered / GST_SECOND);
}

gint
rc_double_cmp (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y;
}
