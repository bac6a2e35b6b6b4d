/* rcsim scenarios: the parsed form of a scenario file (docs/scenarios.md),
 * read by the simulation (sim.c) and by the metrics (metrics.c). */
#ifndef __RCSIM_SCENARIO_H__
#define __RCSIM_SCENARIO_H__

#include <gst/gst.h>
#include "rc-sender.h"
#include "encoder.h"
#include "rc-link.h"

G_BEGIN_DECLS

typedef enum
{
  SIM_FLOW_MEDIA = 0,
  SIM_FLOW_TCP,
  SIM_FLOW_CBR,
} SimFlowKind;

typedef enum
{
  SIM_TCP_CUBIC = 0,
  SIM_TCP_NEWRENO,
} SimTcpCc;

typedef struct
{
  GstClockTime from, to;
} SimPeriod;

/* A value that changes at given times (from `at` on). */
typedef struct
{
  GstClockTime at;
  guint64 value;
} SimStep;

/* One flow as the scenario describes it (a section with count=N gives N). */
typedef struct
{
  gchar *name;
  SimFlowKind kind;
  gboolean reverse;             /* data on the reverse link, feedback forward */
  GstClockTime start, stop;
  GstClockTime delay;           /* one-way propagation delay, data direction */
  GstClockTime return_delay;    /* one-way propagation delay, feedback/ACKs */

  /* media */
  RcSenderConfig sender;        /* controller, its parameters, bitrate
                                 * limits, pacing: as urcpsender has them */
  gdouble fps;
  SimEncoderConfig encoder;     /* the source: model, content, picture size */
  guint mtu_payload;            /* RTP payload bytes per packet, at most */
  GArray *app_limit;            /* SimStep: the most the source can produce
                                 * (bit/s, 0: no limit), like an encoder on
                                 * content that cannot fill its target */
  gboolean twcc;                /* per-packet feedback; FALSE: RTCP RR only */
  GstClockTime feedback_interval;
  gboolean feedback_per_frame;  /* a message per frame, bundled per
                                 * interval (stock rtpbin); FALSE: one
                                 * message per interval */
  GstClockTime rtcp_interval;   /* mean interval of SRs and RRs */
  gint receiver_reports;        /* the receiver adds rcreceiver's blocks
                                 * (discards, NADU) to its RRs: 1, 0, or
                                 * -1: if the controller reads them */
  gint adapt_rtcp_interval;     /* the receiver's RR interval follows
                                 * C-NADU Algorithm 1: 1, 0, -1: with
                                 * receiver reports */
  GstClockTime playout_latency; /* the receiver's playout budget */
  GstClockTime clock_offset;    /* receiver clock minus sender clock */
  gdouble clock_skew_ppm;       /* receiver clock runs fast by this */
  GArray *pauses;               /* SimPeriod: source produces nothing */
  guint temporal_layers;        /* 1, or 2: every other frame is a
                                 * non-reference frame the sender may drop
                                 * (urcpsender's temporal-layers) */
  gdouble fec_overhead;         /* `fec`: -1 none (no FEC encoder); 0 only
                                 * what the controller asks for (probe);
                                 * > 0 repair packets per media packet, %,
                                 * as fecenc's overhead, unless the
                                 * controller asks for a rate */

  /* tcp */
  SimTcpCc cc;
  guint64 size_min, size_max;   /* bytes per transfer; 0/0: long-lived */
  GstClockTime think_mean;      /* mean idle time between transfers */
  gboolean initially_on;        /* first transfer at start, else after idle */

  /* cbr */
  guint64 rate_bps;
  guint packet_size;            /* bytes on the wire */
} SimFlowConfig;

typedef struct
{
  gchar *path;
  gchar *name;
  gchar *description;
  GstClockTime duration;
  guint32 seed;
  RcLinkConfig link;
  RcLinkConfig reverse;
  gboolean has_reverse;         /* FALSE: uncongested reverse path */
  GPtrArray *flows;             /* SimFlowConfig* */
} SimScenario;

SimScenario *sim_scenario_load (const gchar * path, GError ** error);
/* From text (tests); `name` names it, relative trace files are looked up
 * in `dir` (may be NULL: the current directory). */
SimScenario *sim_scenario_load_data (const gchar * text, const gchar * name,
    const gchar * dir, GError ** error);
void sim_scenario_free (SimScenario * s);
/* Overrides every media flow's controller. */
gboolean sim_scenario_set_controller (SimScenario * s, const gchar * name,
    GError ** error);
/* Shortens (or lengthens) the run; flows stopping later are cut, and when
 * it lengthens, flows that ran to the old end run to the new one. */
void sim_scenario_set_duration (SimScenario * s, GstClockTime duration);
const gchar *sim_flow_kind_to_string (SimFlowKind k);
/* Whether the media flow's source is paused at `t` (its `pause` key). */
gboolean sim_flow_paused (const SimFlowConfig * c, GstClockTime t);

G_END_DECLS
#endif
