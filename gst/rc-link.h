/* Bottleneck link model (core: no pads, no threads, no clock reads).
 *
 * One FIFO tail-drop queue shared by every flow that enters it, drained at a
 * capacity that is constant, follows a piecewise schedule, or replays a
 * Mahimahi trace. After the queue each packet may be lost (Bernoulli or
 * Gilbert-Elliott) and is then delayed by its flow's propagation delay plus
 * delay noise that never reorders a flow's packets. Everything random comes
 * from the seeded generator inside the link, so the same seed and the same
 * calls give the same results.
 *
 * Sans-IO: every call takes `now` (the caller's timebase: virtual time in
 * rcsim, running time in linksim). Times in the configuration (schedule
 * steps, trace opportunities) are in the same timebase, starting at 0.
 *
 * Use: rc_link_enqueue() each packet as it enters; ask rc_link_next_event()
 * when something will next come out; rc_link_pop() every packet whose
 * arrival (or loss) time is <= now, in that order.
 */
#ifndef __RC_LINK_H__
#define __RC_LINK_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define RC_LINK_MAX_FLOWS 64

typedef enum
{
  RC_NOISE_NONE = 0,
  RC_NOISE_UNIFORM,             /* uniform in [0, 2 mean] */
  RC_NOISE_EXPONENTIAL,         /* exponential with that mean */
  RC_NOISE_PARETO,              /* Pareto, shape `pareto_shape`, scaled to that mean */
  RC_NOISE_NORMAL,              /* normal (mean, stddev) truncated at 0 */
} RcNoiseDist;

typedef struct
{
  RcNoiseDist dist;
  GstClockTime mean;            /* mean extra delay */
  GstClockTime stddev;          /* RC_NOISE_NORMAL only */
  gdouble pareto_shape;         /* RC_NOISE_PARETO only, > 1 */
  GstClockTime max;             /* cap on one sample; 0 = no cap */
  gdouble correlation;          /* 0..1: weight of the previous sample (AR(1)) */
  GstClockTime interval;        /* 0: a new sample per packet; > 0: a new
                                 * sample per `interval` of link time (by
                                 * enqueue time), shared by the packets in
                                 * it, so the delay statistics do not depend
                                 * on the packet rate */
} RcDelayNoise;

typedef enum
{
  RC_LOSS_NONE = 0,
  RC_LOSS_BERNOULLI,            /* each packet lost with probability `rate` */
  RC_LOSS_GILBERT_ELLIOTT,      /* two-state Markov chain, per packet */
} RcLossKind;

typedef struct
{
  RcLossKind kind;
  gdouble rate;                 /* Bernoulli */
  gdouble p;                    /* GE: P(good -> bad) per packet */
  gdouble r;                    /* GE: P(bad -> good) per packet */
  gdouble loss_good;            /* GE: loss probability in the good state (1 - k) */
  gdouble loss_bad;             /* GE: loss probability in the bad state (1 - h) */
} RcLossModel;

typedef struct
{
  GstClockTime at;              /* link time the step starts */
  guint64 bps;                  /* 0: an outage (never the last step) */
} RcCapacityStep;

/* A loss episode: a packet accepted into the link at a time in
 * [from, to) is lost after the queue with probability `rate`, on top of
 * the loss model (a packet is lost if either loses it). */
typedef struct
{
  GstClockTime from, to;
  gdouble rate;                 /* 0..1 */
} RcLossEpisode;

typedef enum
{
  RC_CAPACITY_CONSTANT = 0,
  RC_CAPACITY_SCHEDULE,
  RC_CAPACITY_TRACE,
} RcCapacityMode;

/* When a packet that has won the link reaches the far end. */
typedef enum
{
  /* A link that serializes: at the end of the packet's time on it (size /
   * capacity after it started); DSL, a Wi-Fi or cellular hop. */
  RC_DELIVERY_END_OF_SLOT = 0,
  /* A token-bucket shaper in front of a much faster hop (Linux `tbf` on a
   * veth, an ISP's policer): at the start of that time, when the shaper
   * lets it go; the next packet still waits for the whole slot. */
  RC_DELIVERY_START_OF_SLOT,
} RcDelivery;

typedef struct
{
  RcCapacityMode mode;
  guint64 capacity_bps;         /* CONSTANT (and the rate before the first step) */
  RcCapacityStep *steps;        /* SCHEDULE: sorted by `at`; copied by rc_link_new */
  guint n_steps;
  guint32 *trace_ms;            /* TRACE: Mahimahi delivery opportunities (ms,
                                 * non-decreasing), each 1500 bytes, looping
                                 * with period = last entry; copied */
  guint n_trace;

  RcDelivery delivery;          /* CONSTANT and SCHEDULE only */

  guint64 queue_limit_bytes;    /* tail-drop limit in bytes; 0 = use queue_limit_time */
  GstClockTime queue_limit_time;        /* limit as time at the current capacity
                                         * (RFC 8867 sec. 5: 300 ms), per instant:
                                         * rc_link_queue_limit_at(); 0 = no limit */

  RcDelayNoise noise;
  RcLossModel loss;
  RcLossEpisode *episodes;      /* in time order, not overlapping; copied */
  guint n_episodes;
  guint32 seed;

  /* Left to the caller (rc_link_new does not read them): */
  GstClockTime delay;           /* propagation delay for rc_link_add_flow of
                                 * a flow that has none of its own */
  guint overhead;               /* bytes a packet takes on the link beyond
                                 * the size the caller's packet has (IPv4 +
                                 * UDP headers: 28); the caller adds them to
                                 * what it enqueues */
} RcLinkConfig;

/* One packet coming out of the link. */
typedef struct
{
  guint flow;
  guint size;                   /* bytes */
  gpointer data;                /* the caller's pointer, returned untouched */
  GstClockTime enqueued;        /* when it entered the queue */
  GstClockTime departed;        /* left the queue: the end of its
                                 * serialization onto the link; with
                                 * START_OF_SLOT its start */
  GstClockTime arrival;         /* at the far end; == departed when lost */
  GstClockTime slot;            /* START_OF_SLOT: its serialization time
                                 * (departed + slot is where END_OF_SLOT
                                 * would have it leave); else 0 */
  gboolean lost;                /* lost by the loss model after the queue */
} RcLinkPacket;

typedef struct
{
  guint64 packets_in, bytes_in;
  guint64 packets_out, bytes_out;       /* delivered (not lost) */
  guint64 dropped_queue, dropped_loss;  /* packets */
  gdouble qdelay_sum;           /* s: departed - enqueued, delivered packets */
  GstClockTime qdelay_max;
  GstClockTime last_qdelay;
  guint64 flushed;              /* packets removed by rc_link_remove_flow_packets */
} RcLinkFlowStats;

typedef struct _RcLink RcLink;

/* Errors of the parsers and validators below. */
#define RC_LINK_ERROR (rc_link_error_quark ())
GQuark rc_link_error_quark (void);
typedef enum
{
  RC_LINK_ERROR_PARSE,          /* schedule / trace text or file */
  RC_LINK_ERROR_INVALID,        /* a configuration value out of range */
} RcLinkError;

/* Every setting at its default: the `def` of its row in the link key table
 * (rc-link-keys.h): 1 Mbit/s, a 300 ms queue, no noise, no loss, 28 bytes
 * of overhead. */
void rc_link_config_init (RcLinkConfig * cfg);
/* Frees the schedule, trace and loss episodes a config owns (after
 * parse/load). */
void rc_link_config_clear (RcLinkConfig * cfg);

/* Checks everything rc_link_new needs: capacity > 0, schedule sorted
 * and not ending at 0 bit/s, trace non-decreasing with a period > 0,
 * Pareto shape > 1, correlation and probabilities within 0..1, loss
 * episodes in time order, not overlapping, each with from < to. */
gboolean rc_link_config_validate (const RcLinkConfig * cfg, GError ** error);
gboolean rc_link_noise_validate (const RcDelayNoise * noise, GError ** error);
gboolean rc_link_loss_validate (const RcLossModel * loss, GError ** error);

/* NULL (with a critical warning) if the config does not validate. */
RcLink *rc_link_new (const RcLinkConfig * cfg);
/* Does not free the packets' `data`: pop or remove them first. */
void rc_link_free (RcLink * l);

/* A flow with its own propagation delay; returns its index (0, 1, ...),
 * G_MAXUINT once RC_LINK_MAX_FLOWS flows exist. */
guint rc_link_add_flow (RcLink * l, GstClockTime prop_delay);
void rc_link_set_prop_delay (RcLink * l, guint flow, GstClockTime prop_delay);

/* While running: switch to a constant capacity from `now`. */
void rc_link_set_capacity (RcLink * l, guint64 bps, GstClockTime now);
/* Noise and loss are drawn when a packet is accepted: new settings apply to
 * packets accepted from then on. */
void rc_link_set_noise (RcLink * l, const RcDelayNoise * noise);
void rc_link_set_loss (RcLink * l, const RcLossModel * loss);
void rc_link_set_queue_limit (RcLink * l, guint64 bytes, GstClockTime time);
/* A trace's rate "at t" is that of its delivery opportunities in
 * [t, t + RC_LINK_TRACE_RATE_WINDOW): 200 ms, the bin of rcsim's time
 * series, so linksim's `capacity` stat at a bin's start is that bin's
 * capacity in capacity.csv. */
#define RC_LINK_TRACE_RATE_WINDOW (200 * GST_MSECOND)
/* Capacity in force at `t`, bit/s: the constant or the schedule's rate at
 * t; TRACE: 1500 bytes per opportunity in [t, t + RC_LINK_TRACE_RATE_WINDOW)
 * over that window. */
guint64 rc_link_capacity_at (RcLink * l, GstClockTime t);
/* Bits the link can put on the wire in [from, to): the integral of the
 * rate (rounded down per schedule step); TRACE: 1500 x 8 bits per
 * delivery opportunity in [from, to). Over a window, divided by its
 * length, it is the mean capacity the metrics report. */
guint64 rc_link_capacity_bits (RcLink * l, GstClockTime from,
    GstClockTime to);
/* The tail-drop limit in bytes for a packet entering at `t`: accepted iff
 * backlog + size <= it. queue_limit_bytes when set; else, with
 * queue_limit_time L, what the link drains in L at the capacity of that
 * moment: L x the rate at t (constant, schedule), or for a trace 1500
 * bytes x the delivery opportunities in [t, t + L) (the bytes it can
 * serve in the next L); in a trace gap longer than L, the opportunities
 * in the L that ends with the last one before t (before the first one:
 * the L that starts with it). G_MAXUINT64: no limit. */
guint64 rc_link_queue_limit_at (RcLink * l, GstClockTime t);

/* A packet enters at `now`. FALSE: tail-dropped (the caller still owns
 * `data`). TRUE: the link holds it until rc_link_pop returns it. */
gboolean rc_link_enqueue (RcLink * l, guint flow, guint size, gpointer data,
    GstClockTime now);

/* Earliest time rc_link_pop will have a packet for; NONE when empty. */
GstClockTime rc_link_next_event (RcLink * l);
/* Next packet whose arrival (or loss) time is <= now, in time order. */
gboolean rc_link_pop (RcLink * l, GstClockTime now, RcLinkPacket * out);

guint64 rc_link_backlog_bytes (RcLink * l, GstClockTime now);
/* Queueing delay a packet entering now would see (backlog over capacity). */
GstClockTime rc_link_queue_delay (RcLink * l, GstClockTime now);
void rc_link_get_flow_stats (RcLink * l, guint flow, RcLinkFlowStats * out);
/* Sums over all flows (qdelay_max: the largest; last_qdelay: 0). */
void rc_link_get_total_stats (RcLink * l, RcLinkFlowStats * out);
/* Flush: drops every packet of `flow` still in the link (queued, in flight
 * or lost-but-not-popped), passing each `data` to `free_data` (may be
 * NULL); a partly serialized head is abandoned and the next packet starts
 * at `now`. Returns how many were removed (counted in `flushed`). */
guint rc_link_remove_flow_packets (RcLink * l, guint flow, GstClockTime now,
    GDestroyNotify free_data);
guint rc_link_n_flows (RcLink * l);

/* "0:1000000,40:2500000" (seconds, bit/s; seconds may be fractional).
 * Steps must be strictly increasing in time. A rate of 0 is an outage:
 * the link serves nothing until the next step, so the last step must be
 * above 0. */
gboolean rc_link_parse_schedule (const gchar * text, RcCapacityStep ** steps,
    guint * n_steps, GError ** error);
/* Mahimahi trace text: one integer (ms) per line, non-decreasing, at least
 * one line with a value > 0 at the end; blank lines ignored. */
gboolean rc_link_parse_trace (const gchar * text, guint32 ** trace_ms,
    guint * n_trace, GError ** error);
/* A trace file: a regular file of at most RC_LINK_TRACE_MAX_BYTES (64 MiB,
 * ~9 million delivery opportunities: a minute at 1.5 Gbit/s); devices and
 * FIFOs are refused, so /dev/zero cannot fill memory nor a FIFO block. */
#define RC_LINK_TRACE_MAX_BYTES (64 << 20)
gboolean rc_link_load_trace (const gchar * path, guint32 ** trace_ms,
    guint * n_trace, GError ** error);
/* "30:32,60:63:0.5" (FROM:TO[:RATE], seconds, fractional ok; RATE a
 * probability, default 1): in time order, not overlapping, FROM < TO. */
gboolean rc_link_parse_loss_episodes (const gchar * text,
    RcLossEpisode ** episodes, guint * n_episodes, GError ** error);
const gchar *rc_noise_dist_to_string (RcNoiseDist d);
gboolean rc_noise_dist_from_string (const gchar * s, RcNoiseDist * out);
/* "none", "bernoulli", "gilbert-elliott" (from_string also takes "ge"). */
const gchar *rc_loss_kind_to_string (RcLossKind k);
gboolean rc_loss_kind_from_string (const gchar * s, RcLossKind * out);

G_END_DECLS
#endif
