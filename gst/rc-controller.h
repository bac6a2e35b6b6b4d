/* Rate controller interface (core: no pads, no threads, no clock reads).
 *
 * Every controller sees the same three calls: feedback in, packets-sent in,
 * decision out. Time is always a parameter. Units are SI throughout: rates in
 * bit/s, times in GstClockTime nanoseconds, delays converted to seconds only
 * inside the arithmetic.
 *
 * Adding a controller means adding one core file with a
 * rc_<name>_controller_new() and one RcControllerKind value.
 */
#ifndef __RC_CONTROLLER_H__
#define __RC_CONTROLLER_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* One packet's fate, as transport-wide feedback reports it. */
typedef struct
{
  guint64 seq;                  /* extended (unwrapped) transport sequence number */
  GstClockTime send_ts;         /* sender clock; NONE if unknown */
  GstClockTime recv_ts;         /* receiver clock (any offset); NONE if lost */
  guint size;                   /* bytes */
  gboolean lost;
} RcPacketResult;

/* One feedback message: per-packet results (TWCC) and/or a report summary
 * (RTCP receiver report). Either part may be absent. */
typedef struct
{
  const RcPacketResult *packets;
  guint n_packets;

  gboolean has_report;
  gdouble fraction_lost;        /* 0..1, from the RR block */
  GstClockTime rtt;             /* from LSR/DLSR; NONE if unknown */
  GstClockTime jitter;          /* interarrival jitter; NONE if unknown */
} RcFeedback;

typedef enum
{
  RC_CONTROLLER_URCP = 0,
  RC_CONTROLLER_UM = 1,
} RcControllerKind;

typedef enum
{
  RC_STATE_STARTUP_LOW = 0,     /* URCP sec. VI-A: low-rate phase, learn delta^MIN */
  RC_STATE_STARTUP_RAMP,        /* URCP sec. VI-A: slow-start ramp, learn R^MAX */
  RC_STATE_STEADY,              /* Table I: adapt estimates, k0, k2, then rate */
  RC_STATE_HOLD,                /* feedback missing: rate held */
  RC_STATE_BACKOFF,             /* feedback missing for long: rate backs off */
} RcState;

typedef struct
{
  guint64 media_bps;            /* what the encoder should produce */
  guint64 fec_bps;              /* FEC / probe overhead to request (0 for URCP) */
  guint64 pacing_bps;           /* what the pacer should drain at */
  RcState state;
  const gchar *reason;          /* static string: why the last change happened */
} RcDecision;

typedef struct
{
  RcControllerKind kind;
  guint64 min_bps;
  guint64 start_bps;
  guint64 max_bps;
  gdouble beta;                 /* URCP sec. VI-B */
  gdouble m;                    /* URCP sec. VI-C */
  gdouble pacing_factor;        /* pacing rate = factor x target */
} RcConfig;

void rc_config_init_defaults (RcConfig * cfg);

typedef struct _RcController RcController;

/* The vtable a controller implements; see rc-urcp.c. */
typedef struct
{
  const gchar *name;
  void (*free) (RcController * c);
  void (*on_feedback) (RcController * c, const RcFeedback * fb, GstClockTime now);
  void (*on_packet_sent) (RcController * c, guint64 seq, guint size,
      gboolean is_fec, GstClockTime now);
  void (*on_tick) (RcController * c, GstClockTime now);
  RcDecision (*get_decision) (RcController * c);
  GstStructure *(*get_stats) (RcController * c);
} RcControllerClass;

struct _RcController
{
  const RcControllerClass *klass;
  RcConfig cfg;
};

RcController *rc_controller_new (const RcConfig * cfg);
void rc_controller_free (RcController * c);
const gchar *rc_controller_name (RcController * c);
void rc_controller_on_feedback (RcController * c, const RcFeedback * fb,
    GstClockTime now);
void rc_controller_on_packet_sent (RcController * c, guint64 seq, guint size,
    gboolean is_fec, GstClockTime now);
/* Called periodically (e.g. every 100 ms) so a controller can notice that
 * feedback stopped. */
void rc_controller_on_tick (RcController * c, GstClockTime now);
RcDecision rc_controller_get_decision (RcController * c);
GstStructure *rc_controller_get_stats (RcController * c);

const gchar *rc_state_to_string (RcState s);
const gchar *rc_controller_kind_to_string (RcControllerKind k);

/* Constructors, one per controller file. */
RcController *rc_urcp_controller_new (const RcConfig * cfg);

G_END_DECLS

#endif
