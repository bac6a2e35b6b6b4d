/* Selective transmission (core), see rc-select.h. */
#include "rc-select.h"

#include <string.h>

gboolean
rc_vp8_frame_info (const guint8 * payload, gsize len, RcFrameInfo * out)
{
  memset (out, 0, sizeof (*out));
  if (len < 1)
    return FALSE;
  /* |X|R|N|S|R| PID | */
  out->frame_start = (payload[0] & 0x10) && (payload[0] & 0x07) == 0;
  out->droppable = (payload[0] & 0x20) != 0;
  return TRUE;
}

void
rc_select_init (RcSelect * s)
{
  memset (s, 0, sizeof (*s));
  s->last = GST_CLOCK_TIME_NONE;
}

gboolean
rc_select_packet (RcSelect * s, const RcFrameInfo * f, guint size,
    guint64 cap_bps, GstClockTime window, GstClockTime now)
{
  gdouble depth = (gdouble) cap_bps / 8 * window / GST_SECOND;

  if (f->frame_start)
    s->dropping = FALSE;
  if (cap_bps == 0 || !GST_CLOCK_TIME_IS_VALID (now)) {
    /* No cap: nothing banked for the next one, nothing dropped but the
     * rest of a frame already dropped (half a frame is no use). */
    s->tokens = 0;
    s->last = GST_CLOCK_TIME_NONE;
    goto out;
  }
  if (!GST_CLOCK_TIME_IS_VALID (s->last))
    s->tokens = depth;          /* a cap starts with a full window */
  else if (now > s->last)
    s->tokens += (gdouble) cap_bps / 8 * (now - s->last) / GST_SECOND;
  s->tokens = CLAMP (s->tokens, -depth, depth);
  s->last = now;

  if (f->frame_start && f->droppable && s->tokens < 0) {
    s->dropping = TRUE;
    s->dropped_frames++;
  }
out:
  if (s->dropping) {
    s->dropped_packets++;
    s->dropped_bytes += size;
    return FALSE;
  }
  if (cap_bps)
    s->tokens -= size;
  return TRUE;
}
