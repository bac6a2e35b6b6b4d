/* Parse GStreamer's RTPTWCCPackets feedback into RcPacketResult (core). */
#ifndef __RC_TWCC_H__
#define __RC_TWCC_H__

#include <gst/gst.h>
#include "rc-controller.h"

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

G_END_DECLS
#endif
