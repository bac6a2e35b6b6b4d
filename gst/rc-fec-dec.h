/* XOR parity FEC decoder (core): takes media and RFC 8627 flexible FEC or
 * RFC 5109 ULPFEC repair packets plus the current time and hands back
 * every packet a parity equation can rebuild. Sans-IO: no pads, no clock. */
#ifndef __RC_FEC_DEC_H__
#define __RC_FEC_DEC_H__

#include "rc-fec.h"

G_BEGIN_DECLS

typedef struct
{
  RcFecFormat format;
  guint8 pt;                    /* payload type of repair packets */
  gboolean match_fec_ssrc;      /* flexfec: only accept repair from */
  guint32 fec_ssrc;             /*   this SSRC */
  gboolean match_media_ssrc;    /* only repair this media SSRC */
  guint32 media_ssrc;
  /* Memory bound: packets older than this are forgotten. */
  GstClockTime window;
} RcFecDecoderConfig;

typedef enum
{
  RC_FEC_OK = 0,                /* stored / used */
  RC_FEC_NOT_RTP,               /* not a valid RTP packet */
  RC_FEC_DUPLICATE,             /* seen before: drop it */
  RC_FEC_OLD,                   /* media older than the window: pass it */
  RC_FEC_REJECT_MALFORMED,      /* repair packet failed parsing */
  RC_FEC_REJECT_WRONG_SSRC,
  RC_FEC_REJECT_OUT_OF_WINDOW,  /* protects seqnums the window cannot hold */
  RC_FEC_REJECT_STALE,          /* protects packets already forgotten */
  RC_FEC_REJECT_INCONSISTENT,   /* does not match the packets it protects */
} RcFecResult;

typedef struct
{
  guint64 media_received;       /* distinct media packets */
  guint64 fec_received;         /* repair packets that arrived */
  guint64 recovered;
  guint64 rejected;             /* malformed, wrong SSRC, window, stale */
  guint64 duplicates;           /* media or repair seen twice */
  guint64 unrecoverable;        /* lost media no repair could rebuild */
  guint64 lost_before;          /* media never received (settled) */
  guint64 lost_after;           /* ... and not recovered either */
  /* Media frames (one RTP timestamp, up to the marker bit) that lost a
   * packet, and of those the ones whose every lost packet was rebuilt
   * (FRACTaL's FFRE = frames_recovered / frames_hit); settled with the
   * loss counts. */
  guint64 frames_hit;
  guint64 frames_recovered;
} RcFecDecoderStats;

typedef struct _RcFecDecoder RcFecDecoder;

void rc_fec_decoder_config_init (RcFecDecoderConfig * cfg);
RcFecDecoder *rc_fec_decoder_new (const RcFecDecoderConfig * cfg);
void rc_fec_decoder_free (RcFecDecoder * dec);
/* TRUE if `buf` is a repair packet for this decoder: by payload type (for
 * flexfec, not if it is on the configured media SSRC). push_fec() then
 * checks the SSRCs. */
gboolean rc_fec_decoder_is_fec (RcFecDecoder * dec, GstBuffer * buf);
/* Feeds a media packet (a ref is kept while it is in the window) or a
 * repair packet. Recovered packets (new GstBuffer refs, owned by the
 * caller) are appended to `out` in the order recovered. */
RcFecResult rc_fec_decoder_push_media (RcFecDecoder * dec, GstBuffer * buf,
    GstClockTime now, GPtrArray * out);
/* The same two for a packet whose fixed header the caller has read already
 * (rc_fec_read_header), so it is read once per packet. */
gboolean rc_fec_decoder_is_fec_hdr (RcFecDecoder * dec, const guint8 * hdr);
RcFecResult rc_fec_decoder_push_media_hdr (RcFecDecoder * dec,
    GstBuffer * buf, const guint8 * hdr, GstClockTime now, GPtrArray * out);
RcFecResult rc_fec_decoder_push_fec (RcFecDecoder * dec, GstBuffer * buf,
    GstClockTime now, GPtrArray * out);
typedef enum
{
  RC_FEC_SEQ_UNKNOWN = 0,       /* unknown stream, or outside the window */
  RC_FEC_SEQ_MISSING,           /* expected: neither received nor rebuilt */
  RC_FEC_SEQ_RECEIVED,          /* a media packet that arrived */
  RC_FEC_SEQ_RECOVERED,         /* rebuilt */
  RC_FEC_SEQ_REPAIR,            /* an ULPFEC repair packet's seqnum */
} RcFecSeqState;

/* What the decoder knows about seq `seq` of media SSRC `ssrc`; if it was
 * rebuilt and `recovered` is not NULL, a new ref of the packet (the
 * decoder keeps its own). For a consumer that gets the media in order
 * after a jitterbuffer while the decoder is fed ahead of it: it looks up
 * each seqnum it sees missing before it passes the next packet on. */
RcFecSeqState rc_fec_decoder_lookup (RcFecDecoder * dec, guint32 ssrc,
    guint16 seq, GstBuffer ** recovered);
/* Forgets what is older than the window; settles loss counts. */
void rc_fec_decoder_expire (RcFecDecoder * dec, GstClockTime now);
/* Forgets everything (settling loss counts), e.g. at EOS or flush. */
void rc_fec_decoder_reset (RcFecDecoder * dec);
void rc_fec_decoder_get_stats (RcFecDecoder * dec, RcFecDecoderStats * st);
/* Packets and bytes held right now (for the memory-bound test). */
guint rc_fec_decoder_held_packets (RcFecDecoder * dec);
const gchar *rc_fec_result_to_string (RcFecResult r);

G_END_DECLS
#endif
