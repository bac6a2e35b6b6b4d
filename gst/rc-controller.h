/* Rate controller interface and registry (core: no pads, no threads, no
 * clock reads).
 *
 * Every controller sees the same calls: feedback in, packets-sent in, an
 * optional periodic tick, an optional rate limit from the sender session,
 * optionally whether the session caps its rate, and a decision out. Time is always a parameter. Units are SI: rates in
 * bit/s, times in GstClockTime nanoseconds.
 *
 * The registry is the only list of controllers. The element's `controller`
 * enum, its per-controller properties, `rcsim --list-controllers`, the
 * scenario keys and every runner derive from it. Adding a controller is one
 * core file (with an RcControllerInfo), one line in rc-controller.c's
 * table and one meson line; tests and applications can also add one at run
 * time with rc_controller_register().
 *
 * Parameters: each controller declares its own as GParamSpecs (name,
 * range, default, a description for users). A parameter `p` of controller
 * `c` is the property `c-p` of the sender element and the key `c-p` of a
 * scenario's media flow. Values reach the controller as a GstStructure
 * whose fields are named like the specs; missing fields take the spec's
 * default. Nothing that belongs to one algorithm lives in the shared
 * structures below.
 */
#ifndef __RC_CONTROLLER_H__
#define __RC_CONTROLLER_H__

#include <gst/gst.h>
#include "rc-feedback.h"

G_BEGIN_DECLS

/* The bounds every controller works within (the application's choice).
 * min and max may change while it runs (rc_sender_set_limits() writes
 * RcController.limits): read them where they are used. */
typedef struct
{
  guint64 min_bps;
  guint64 start_bps;            /* clamped to min..max */
  guint64 max_bps;
} RcRateLimits;

void rc_rate_limits_init (RcRateLimits * l);    /* 50 kbit/s, 300 kbit/s, 20 Mbit/s */

typedef struct
{
  guint64 media_bps;            /* what the encoder should produce */
  guint64 fec_bps;              /* FEC (repair or probe) rate to ask for */
  guint64 pacing_bps;           /* what the pacer should drain at; 0: the
                                 * sender's default (pacing-factor x the
                                 * media plus FEC rate) */
  guint64 pacing_cap_bps;       /* the pacer drains no faster than this
                                 * (it lowers pacing_bps or the default,
                                 * never raises them); 0: no cap */
  gboolean pacing_cap_keeps_pair;       /* the cap spaces a frame's packets
                                         * from its second on: its first two
                                         * keep the uncapped spacing */
  guint64 send_cap_bps;         /* selective transmission (rc-select.h):
                                 * media sent above this rate loses its
                                 * non-reference frames; 0: no cap */
  const gchar *phase;           /* static: short name of the controller's
                                 * phase, e.g. "startup-low", "steady" */
  const gchar *reason;          /* static: why the rate is what it is, in
                                 * words for users (equations belong in the
                                 * code and the docs, not here) */
} RcDecision;

typedef struct _RcController RcController;

/* What a controller implements. on_tick and limit_rate may be NULL. */
typedef struct
{
  void (*free) (RcController * c);
  /* Per-packet results and/or report blocks, at their arrival `now`. */
  void (*on_feedback) (RcController * c, const RcFeedback * fb,
      GstClockTime now);
  /* A packet left the pacer at `now`. `index` counts packets this sender
   * released, from 0, one per packet in sending order. Transport-wide
   * feedback numbers packets in the same order, but possibly with an
   * offset and with gaps (other streams share its counter), so do not
   * match results to sent packets by it. */
  void (*on_packet_sent) (RcController * c, guint64 index, guint size,
      gboolean is_fec, GstClockTime now);
  /* Called by the sender session once per RC_CONTROLLER_TICK at most:
   * at the first poll at or after each tick time, with that poll's `now`.
   * For timers of the controller's own. */
  void (*on_tick) (RcController * c, GstClockTime now);
  /* The sender session is climbing back after missing feedback (it only
   * capped the decision meanwhile) and the controller cut its rate on the
   * way, so it saw congestion: lower your rate and whatever your next
   * decision starts from to at most `bps`, what is being sent. If NULL,
   * the session keeps capping the decision until its ramp meets the
   * controller's rate. */
  void (*limit_rate) (RcController * c, guint64 bps, GstClockTime now);
  RcDecision (*get_decision) (RcController * c);
  /* The controller's learned parameters and counters, newly allocated;
   * field names in lower-case-with-dashes, documented in the controller's
   * file and docs. */
  GstStructure *(*get_stats) (RcController * c);
  /* May be NULL. TRUE: from `now` the session sends below the
   * controller's rate (feedback is missing, the circuit breaker tripped,
   * or it is climbing back after either), so rates measured meanwhile say
   * nothing about the path: do not learn from them. FALSE: the session
   * follows the controller again. */
  void (*set_capped) (RcController * c, gboolean capped, GstClockTime now);
  /* May be NULL. A static sentence for users if the feedback the
   * controller is built on has not arrived (e.g. a receiver without the
   * reports it reads) and it falls back to less; NULL while all is there.
   * The element warns once with it. */
  const gchar *(*feedback_problem) (RcController * c);
  /* TRUE: RTCP receiver reports reach on_feedback even while per-packet
   * feedback is fresh (controllers built on RTCP reports); FALSE: only
   * while it is stale. */
  gboolean reports_always;
} RcControllerClass;

/* Tick cadence of RcControllerClass.on_tick. */
#define RC_CONTROLLER_TICK (100 * GST_MSECOND)

struct _RcController
{
  const RcControllerClass *klass;
  const struct _RcControllerInfo *info;
  RcRateLimits limits;
};

/* A registry entry. */
typedef struct _RcControllerInfo
{
  const gchar *name;            /* "urcp": enum nick, scenario value, CLI */
  const gchar *description;     /* one line for users (enum value name) */
  /* The controller's parameters: `n` specs owned by the controller file,
   * created once and never freed. NULL if it has none. */
  GParamSpec **(*params) (guint * n);
  /* A new controller; `params` may be NULL (all defaults). Its fields are
   * already validated against the specs. Must set c->klass; the registry
   * fills in c->info and c->limits. */
  RcController *(*create) (const RcRateLimits * limits,
      const GstStructure * params);
  /* TRUE: it reads reports that only a receiver-side element sends
   * (rcreceiver: discards, NADU); runners put one on the receiving side
   * for it. */
  gboolean receiver_assisted;
  /* TRUE: it follows rate requests (TMMBR) that the receiver-side element
   * computes by the controller's own algorithm (rcreceiver r3cp=true);
   * implies receiver_assisted. */
  gboolean receiver_requests;
} RcControllerInfo;

/* Every registered controller, built-ins first, in a stable order. The
 * array is valid until the next rc_controller_register(). */
const RcControllerInfo *const *rc_controller_list (guint * n);
/* By name, case-insensitive; NULL if unknown. */
const RcControllerInfo *rc_controller_lookup (const gchar * name);
/* Adds a controller (for tests and applications). FALSE if the name is
 * taken or not a valid parameter prefix ([a-z][a-z0-9]*). `info` must stay
 * valid for the life of the process. Register at start-up, from one
 * thread, before anything lists the controllers: enumerations built before
 * (the element's) do not show it. */
gboolean rc_controller_register (const RcControllerInfo * info);

/* Parameters. */
GParamSpec *rc_controller_find_param (const RcControllerInfo * info,
    const gchar * name);
/* `value` for parameter `name` (its type converted and range-checked) into
 * `params`; FALSE with `error` if unknown or out of range. */
gboolean rc_controller_params_set (const RcControllerInfo * info,
    GstStructure * params, const gchar * name, const GValue * value,
    GError ** error);
/* The same from text (a scenario file or a command line). */
gboolean rc_controller_params_set_string (const RcControllerInfo * info,
    GstStructure * params, const gchar * name, const gchar * text,
    GError ** error);
/* Every controller's parameters in one structure, as the element and the
 * scenario files hold them: fields named "<controller>-<parameter>".
 * Which controller and parameter `key` names; NULL if none. */
GParamSpec *rc_controller_find_key (const gchar * key,
    const RcControllerInfo ** info);
gboolean rc_controller_params_set_key (GstStructure * all, const gchar * key,
    const GValue * value, GError ** error);
gboolean rc_controller_params_set_key_string (GstStructure * all,
    const gchar * key, const gchar * text, GError ** error);
/* `info`'s fields of `all` (may be NULL), named without the prefix: what
 * rc_controller_new() takes. A new structure. */
GstStructure *rc_controller_params_extract (const RcControllerInfo * info,
    const GstStructure * all);

/* What a controller reads: the field if set, else the spec's default.
 * For use in create(). */
gdouble rc_controller_param_double (const RcControllerInfo * info,
    const GstStructure * params, const gchar * name);

/* A controller of kind `info`; NULL (with `error`) if min > max or a
 * parameter in `params` is unknown to it. */
RcController *rc_controller_new (const RcControllerInfo * info,
    const RcRateLimits * limits, const GstStructure * params,
    GError ** error);
void rc_controller_free (RcController * c);
const gchar *rc_controller_name (RcController * c);
void rc_controller_on_feedback (RcController * c, const RcFeedback * fb,
    GstClockTime now);
void rc_controller_on_packet_sent (RcController * c, guint64 index,
    guint size, gboolean is_fec, GstClockTime now);
void rc_controller_on_tick (RcController * c, GstClockTime now);
/* TRUE if the controller lowered its own rate, FALSE if it has no
 * limit_rate (the caller then caps the decision itself). */
gboolean rc_controller_limit_rate (RcController * c, guint64 bps,
    GstClockTime now);
RcDecision rc_controller_get_decision (RcController * c);
/* NULL if the controller has no feedback_problem or all is there. */
const gchar *rc_controller_feedback_problem (RcController * c);
GstStructure *rc_controller_get_stats (RcController * c);

/* Stats conventions, for every controller and the session: bit rates as
 * guint bit/s (like the elements' bitrate properties; rc_stats_bps()
 * rounds and saturates), times as guint64 ns with GST_CLOCK_TIME_NONE for
 * unknown (rc_stats_time() from seconds), counts as guint64. */
static inline guint
rc_stats_bps (gdouble bps)
{
  if (!(bps > 0))
    return 0;
  return bps >= G_MAXUINT ? G_MAXUINT : (guint) (bps + 0.5);
}

static inline guint64
rc_stats_time (gdouble seconds)
{
  if (!(seconds >= 0) || seconds > 1e9)
    return GST_CLOCK_TIME_NONE;
  return (guint64) (seconds * GST_SECOND + 0.5);
}
void rc_controller_set_capped (RcController * c, gboolean capped,
    GstClockTime now);

G_END_DECLS

#endif
