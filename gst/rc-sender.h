/* The sender session (core, sans-IO): everything between a rate controller
 * and the pads.
 *
 * It owns the controller, the pacing queue, feedback intake (transport-wide
 * per-packet results and RTCP report blocks, with their time translation
 * and arbitration), the encoder-update policy, the FEC rate the controller
 * asks for, the no-feedback watchdog and the RFC 8083 circuit breaker.
 * The urcpsender element runs it on its streaming threads, rcsim in
 * virtual time: what rcsim measures is what ships.
 *
 * Sans-IO (the model: gst-plugins-rs rtpbin2's session): nothing here reads
 * a clock, takes a lock or touches a pad. Time comes in as `now`, always in
 * one timebase (running time in the element, virtual time in rcsim), and
 * what to do comes out as values. Not thread-safe: one caller at a time.
 *
 * The calls and what each means:
 *   rc_sender_push()      an item enters the pacing queue at `now`
 *   rc_sender_next_send() when rc_sender_pop() will have the head item
 *   rc_sender_pop()       the head item, if due at `now`; a packet popped
 *                         is sent at `now` (the controller hears of it)
 *   rc_sender_on_*()      feedback arrived at `now`
 *   rc_sender_poll()      runs what is due at `now` and returns actions:
 *                         set the encoder's bitrate, set the FEC rate, warn;
 *                         and when the next controller tick is due. Call it
 *                         after any of the calls above. The controller's
 *                         on_tick runs from here, once per
 *                         RC_CONTROLLER_TICK at most. rcsim also polls at
 *                         the time poll returned; urcpsender polls on every
 *                         packet and every feedback message, so there a
 *                         controller's timers run while media flows and
 *                         feedback comes, not while the source is idle.
 */
#ifndef __RC_SENDER_H__
#define __RC_SENDER_H__

#include <gst/gst.h>
#include "rc-controller.h"
#include "rc-twcc.h"
#include "rc-select.h"

G_BEGIN_DECLS

typedef struct
{
  const RcControllerInfo *controller;
  GstStructure *params;         /* parameters of any controllers, fields
                                 * named "<controller>-<parameter>"; the
                                 * chosen controller's apply, missing ones
                                 * take its defaults; may be NULL */
  RcRateLimits limits;
  gboolean pacing;              /* FALSE: every item is due when pushed */
  gdouble pacing_factor;        /* pacing rate = factor x (media + FEC), when
                                 * the controller does not set one */
  GstClockTime max_queue_time;  /* no packet waits longer in the pacer;
                                 * 0: no bound */
  gboolean circuit_breaker;     /* the RFC 8083 circuit breaker (see
                                 * rc_sender_admit) */
  GstClockTime feedback_gather; /* per-packet feedback messages that arrive
                                 * within this of the first of them reach
                                 * the controller as one, this long after
                                 * it; 0: each at once (see
                                 * rc_sender_on_packet_results) */
} RcSenderConfig;

/* urcp, rc_rate_limits_init(), pacing on, factor 1.5, 250 ms, circuit
 * breaker on, feedback gathered for 5 ms. */
void rc_sender_config_init (RcSenderConfig * cfg);
void rc_sender_config_copy (RcSenderConfig * dst, const RcSenderConfig * src);
void rc_sender_config_clear (RcSenderConfig * cfg);

typedef enum
{
  RC_SENDER_ITEM_MEDIA = 0,
  RC_SENDER_ITEM_FEC,           /* a repair packet: paced, reported as FEC */
  RC_SENDER_ITEM_MARKER,        /* not a packet (e.g. a serialized event):
                                 * keeps its place, leaves as soon as it is
                                 * at the head, is not counted */
} RcSenderItemKind;

typedef enum
{
  RC_SENDER_SET_ENCODER,        /* bps: give the encoder this target */
  RC_SENDER_SET_FEC,            /* bps: ask the FEC encoder for this rate */
  RC_SENDER_WARN_NO_FEEDBACK,   /* once: packets went out for a while and no
                                 * feedback of any kind came back */
  RC_SENDER_BREAKER_TRIPPED,    /* bps: the floor. The circuit breaker
                                 * tripped: see rc_sender_get_breaker() */
  RC_SENDER_BREAKER_RESET,      /* bps: the rate the recovery heads for.
                                 * Media reaches the receiver again */
} RcSenderActionKind;

typedef struct
{
  RcSenderActionKind kind;
  guint64 bps;
} RcSenderAction;

/* The no-feedback watchdog's view. */
typedef enum
{
  RC_SENDER_FEEDBACK_OK = 0,
  RC_SENDER_FEEDBACK_HOLD,      /* missing a while: the decision is capped
                                 * at what it was when the hold began */
  RC_SENDER_FEEDBACK_BACKOFF,   /* missing long: the rate halves each second */
  RC_SENDER_FEEDBACK_RECOVER,   /* back after a back-off or a trip: the cap
                                 * doubles each half second up to the
                                 * controller's rate */
  RC_SENDER_FEEDBACK_TRIPPED,   /* the circuit breaker tripped: the rate is
                                 * at the floor (min-bitrate) and media above
                                 * it is not admitted */
} RcSenderFeedbackState;

/* The circuit breaker's view, for messages to users. */
typedef struct
{
  gboolean tripped;
  const gchar *reason;          /* static, in words for users: why it
                                 * tripped last (NULL if never) */
  GstClockTime timeout;         /* the silence that trips it now */
  GstClockTime silent;          /* how long media has gone unconfirmed
                                 * (at the last poll) */
  guint64 rate_before;          /* the rate when it tripped last */
  guint64 floor;                /* the rate while tripped */
  guint trips;
  guint64 dropped_packets;      /* not admitted while tripped */
} RcSenderBreaker;

typedef struct _RcSender RcSender;

/* NULL with `error` if the configuration is invalid (min > max, a
 * parameter the controller does not have or out of its range). */
RcSender *rc_sender_new (const RcSenderConfig * cfg, GError ** error);
void rc_sender_free (RcSender * s);
const RcSenderConfig *rc_sender_get_config (RcSender * s);
/* New min and max bitrates (start_bps is not used: the start is past),
 * for the controller too, from the next decision on. FALSE, and nothing
 * changed, if min > max. */
gboolean rc_sender_set_limits (RcSender * s, guint64 min_bps,
    guint64 max_bps);

/* The media stream's SSRC (RTCP blocks about other streams are ignored
 * once it is known) and RTP payload type (per-packet results with another
 * payload type are repair packets: is_fec). */
void rc_sender_set_ssrc (RcSender * s, guint32 ssrc);
void rc_sender_set_media_pt (RcSender * s, gint pt);

/* ---- pacing queue */
/* Whether a packet may enter at `now`. Always TRUE unless the circuit
 * breaker has tripped; then media and repair packets are admitted only up
 * to twice the floor rate (so an encoder that follows the floor passes,
 * key frames included, and one the element does not drive is cut to it).
 * Call it before rc_sender_push() or rc_sender_send_now(); a packet not
 * admitted is the caller's to drop. Counts what it refuses. */
gboolean rc_sender_admit (RcSender * s, guint size, RcSenderItemKind kind,
    GstClockTime now);
void rc_sender_push (RcSender * s, gpointer data, guint size,
    RcSenderItemKind kind, GstClockTime now);
/* Selective transmission: whether a media packet (its frame described by
 * `f`) goes out, under the controller's send cap (RcDecision.send_cap_bps;
 * none while the circuit breaker holds the rate at its floor). Call it for
 * media packets before rc_sender_push() or rc_sender_send_now(); a packet
 * refused is the caller's to drop, and the caller keeps the stream's
 * sequence numbers gapless. See rc-select.h. */
gboolean rc_sender_select (RcSender * s, const RcFrameInfo * f, guint size,
    GstClockTime now);
/* NONE: the queue is empty. */
GstClockTime rc_sender_next_send (RcSender * s);
/* The head item if it is due at `now` (NULL if not, or if the queue is
 * empty); with `now` NONE (no clock) the head item whatever its time,
 * and the controller is not told of it (it measures rates and delays).
 * `index` (may be NULL): the packet's send index, see on_packet_sent in
 * rc-controller.h; G_MAXUINT64 for a marker or a packet not reported. */
gpointer rc_sender_pop (RcSender * s, GstClockTime now,
    RcSenderItemKind * kind, guint64 * index);
/* A packet that bypasses the queue (pacing off, or no time to pace on)
 * leaves now: the same accounting as a popped one. The queue must be
 * empty, so nothing is overtaken. Returns its send index. */
guint64 rc_sender_send_now (RcSender * s, guint size, RcSenderItemKind kind,
    GstClockTime now);
/* Drops every queued item (passing its data to `free_data`, may be NULL)
 * and resets the pacer. */
void rc_sender_flush (RcSender * s, GDestroyNotify free_data);
/* Packets (markers excluded), bytes and the time the queue needs to drain
 * at the current pacing rate. */
void rc_sender_queue_info (RcSender * s, GstClockTime now, guint * packets,
    guint64 * bytes, GstClockTime * drain_time);

/* ---- feedback */
/* An RTPTWCCPackets event's structure (rc-twcc.h). `local_now` is the
 * reading at `now` of the clock its local-ts were taken from (the system
 * clock for rtpsession), NONE if unknown; see rc_twcc_translate_send_ts().
 * FALSE if the structure is unusable. `info` (may be NULL) reports what
 * was rejected. */
gboolean rc_sender_on_twcc (RcSender * s, const GstStructure * event,
    GstClockTime now, GstClockTime local_now, RcTwccParseInfo * info);
/* Per-packet results already on the sender's timebase (rcsim). The array
 * is the caller's; the session fills in is_fec (see
 * rc_sender_set_media_pt). With cfg.feedback_gather > 0 (the default) the
 * results wait, with any that arrive within feedback_gather after them,
 * and reach the controller as one message at the first rc_sender_poll()
 * at or after rc_sender_feedback_due(): a receiver that sends several
 * messages at once (a stock rtpbin: one per frame) is heard once per
 * sending, as one that sends one message would be. */
void rc_sender_on_packet_results (RcSender * s, RcPacketResult * results,
    guint n, GstClockTime now);
/* When gathered feedback is due at the controller (poll then); NONE if
 * nothing waits. */
GstClockTime rc_sender_feedback_due (RcSender * s);
/* Report blocks, as rc_rtcp_parse() gives them. Blocks about other media
 * SSRCs are dropped (not TMMBN, whose SSRC names the entry's owner);
 * receiver reports are dropped while transport-wide feedback is fresh (it
 * is finer). */
void rc_sender_on_reports (RcSender * s, const RcReportBlock * blocks,
    guint n, GstClockTime now);

/* ---- decisions */
/* Runs what is due at `now` (gathered feedback first) and appends
 * RcSenderAction values to `actions`, at most one of each kind. Returns
 * when to poll next: the next controller tick, or gathered feedback if it
 * is due sooner; NONE if `now` is not valid. */
GstClockTime rc_sender_poll (RcSender * s, GstClockTime now,
    GArray * actions);
/* The controller's decision as the session applies it (the watchdog may
 * cap it and names its own phase then). */
RcDecision rc_sender_get_decision (RcSender * s);
/* The target last handed to the encoder (the start bitrate at first); the
 * decision may differ from it by less than the update policy's 2 % for up
 * to a second. */
guint64 rc_sender_get_target (RcSender * s);
/* The FEC rate last asked for. */
guint64 rc_sender_get_fec_rate (RcSender * s);
guint64 rc_sender_get_pacing_rate (RcSender * s);
RcSenderFeedbackState rc_sender_get_feedback_state (RcSender * s);
void rc_sender_get_breaker (RcSender * s, RcSenderBreaker * out);
/* The controller's stats plus the session's: controller, state, reason,
 * target-bitrate, fec-bitrate, pacing-bitrate, fec-packets-sent (repair
 * packets that went through the queue), twcc-events, twcc-rejected,
 * rr-reports, pacing-queue-packets, pacing-queue-bytes, pacing-queue-ms,
 * circuit-breaker-trips, circuit-breaker-dropped.
 * `now` may be NONE. */
GstStructure *rc_sender_get_stats (RcSender * s, GstClockTime now);
RcController *rc_sender_get_controller (RcSender * s);

G_END_DECLS
#endif
