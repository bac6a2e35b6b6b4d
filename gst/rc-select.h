/* Selective transmission (core): which media frames go out when a
 * controller caps the rate media may be sent at.
 *
 * R3CP+ (seed 004, sec. 3): "if the available bandwidth is not sufficient,
 * a selective transmission method is employed whereby the sender will give
 * higher transmission priority to more important packets such as I
 * frames"; the sender does it "if the requested rate is less than the
 * desired rate". A live encoder has no B frames; what it can make droppable
 * is an upper temporal layer (vp8enc with two layers: every other frame
 * references only the base layer and nothing references it), which the
 * VP8 payload marks as a non-reference frame (RFC 7741 sec. 4.2, the N
 * bit: it "can be discarded without affecting any other future or past
 * frames"). So here: non-reference frames are dropped whole while the
 * media sent runs above the cap; every other frame always goes out. */
#ifndef __RC_SELECT_H__
#define __RC_SELECT_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct
{
  gboolean frame_start;         /* the first packet of a frame */
  gboolean droppable;           /* a non-reference frame */
} RcFrameInfo;

/* What a VP8 RTP payload's descriptor (RFC 7741 sec. 4.2) says: the S bit
 * with partition index 0 starts a frame, the N bit marks a non-reference
 * frame. FALSE for an empty payload. */
gboolean rc_vp8_frame_info (const guint8 * payload, gsize len,
    RcFrameInfo * out);

typedef struct
{
  gdouble tokens;               /* bytes media may still send now */
  GstClockTime last;            /* when tokens were counted */
  gboolean dropping;            /* the current frame is being dropped */
  guint64 dropped_frames;
  guint64 dropped_packets;
  guint64 dropped_bytes;
} RcSelect;

void rc_select_init (RcSelect * s);

/* Whether a media packet of `size` bytes goes out at `now`. `cap_bps`: the
 * rate media may be sent at, 0: no cap. The sent media may run ahead of the
 * cap by `window` of it (what the encoder's own rate buffer lets it
 * overshoot) before droppable frames go; a debt older than `window` is
 * forgotten, so an undroppable burst (a key frame) does not cost the next
 * seconds' frames. A frame is decided at its first packet; the rest of it
 * follows (a frame whose start was not seen is sent). */
gboolean rc_select_packet (RcSelect * s, const RcFrameInfo * f, guint size,
    guint64 cap_bps, GstClockTime window, GstClockTime now);

G_END_DECLS
#endif
