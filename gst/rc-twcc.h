/* Parse GStreamer's RTPTWCCPackets feedback into RcPacketResult (core). */
#ifndef __RC_TWCC_H__
#define __RC_TWCC_H__

#include <gst/gst.h>
#include "rc-feedback.h"

G_BEGIN_DECLS

#define RC_TWCC_EVENT_NAME "RTPTWCCPackets"
#define RC_TWCC_EXT_URI \
  "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"

/* 16-bit sequence number to a monotonic 64-bit one, across wrap. */
typedef struct
{
  gboolean have;
  guint64 last;
} RcSeqUnwrap;

void rc_seq_unwrap_init (RcSeqUnwrap * u);
guint64 rc_seq_unwrap (RcSeqUnwrap * u, guint16 seq);

typedef struct
{
  guint n_packets;              /* entries in the event */
  guint n_rejected;             /* entries dropped as malformed */
  guint n_duplicates;           /* seqnums reported twice in one event */
  guint n_backward;             /* received entries whose remote time went
                                 * backwards against the previous one */
  const gchar *first_problem;   /* static text for a warning, or NULL */
} RcTwccParseInfo;

/* Parses `s` (an RTPTWCCPackets structure) and appends one RcPacketResult
 * per usable entry to `out`. Returns FALSE if the structure is not usable at
 * all (wrong name, no packets list); bad entries are skipped and counted. */
gboolean rc_twcc_parse (const GstStructure * s, RcSeqUnwrap * uw,
    GArray * out, RcTwccParseInfo * info);

/* rtpsession stamps local-ts with its own GstSystemClock reading when it
 * sends the packet, not with running time; other senders of the event
 * (tests, apps, other GStreamer versions) may use running time. Moves the
 * send times onto the timebase of `now` when the newest of them is closer
 * to `local_now`, the reading at `now` of the clock local-ts comes from.
 * Send times from before that timebase began become NONE. */
void rc_twcc_translate_send_ts (GArray * results, GstClockTime now,
    GstClockTime local_now);

G_END_DECLS
#endif
