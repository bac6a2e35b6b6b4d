/* rcsim: the real core code (controllers, pacer, link model) run in virtual
 * time against a scenario. See docs/scenarios.md for the file format and
 * docs/metrics.md for every number the simulator reports.
 *
 * Nothing here reads a clock: time is the simulator's own virtual time,
 * and every random draw comes from a generator seeded from the run's seed,
 * one generator per component, so a seed and a scenario give one result. */
#ifndef __RCSIM_SIM_H__
#define __RCSIM_SIM_H__

#include <gst/gst.h>
#include "rc-sender.h"
#include "rc-link.h"

G_BEGIN_DECLS

/* Time-series bin of --csv and of the convergence and fairness metrics. */
#define SIM_BIN (200 * GST_MSECOND)

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
  GstClockTime key_interval;    /* 0: only the first frame is a key frame */
  gdouble key_factor;           /* key frame size / mean frame size */
  gdouble frame_noise;          /* sigma of the lognormal frame-size factor */
  GstClockTime encoder_lag;     /* first-order time constant */
  guint mtu_payload;            /* RTP payload bytes per packet, at most */
  GArray *app_limit;            /* SimStep: the most the source can produce
                                 * (bit/s, 0: no limit), like an encoder on
                                 * content that cannot fill its target */
  gboolean twcc;                /* per-packet feedback; FALSE: RTCP RR only */
  GstClockTime feedback_interval;
  GstClockTime rtcp_interval;   /* mean interval of SRs and RRs */
  GstClockTime clock_offset;    /* receiver clock minus sender clock */
  gdouble clock_skew_ppm;       /* receiver clock runs fast by this */
  GArray *pauses;               /* SimPeriod: source produces nothing */

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
/* Shortens (or lengthens) the run; flows stopping later are cut. */
void sim_scenario_set_duration (SimScenario * s, GstClockTime duration);
const gchar *sim_flow_kind_to_string (SimFlowKind k);

typedef struct _Sim Sim;

Sim *sim_new (const SimScenario * scen, guint32 seed);
void sim_free (Sim * sim);
/* Runs the whole scenario (and the drain after it); once. */
void sim_run (Sim * sim);
/* Runs up to virtual time `t` (for tests that look inside on the way);
 * sim_run() finishes the run afterwards. */
void sim_run_until (Sim * sim, GstClockTime t);
GstClockTime sim_get_time (Sim * sim);
/* The sender session of media flow `flow` (index in the scenario's flow
 * order), or NULL if it is not a media flow. */
RcSender *sim_flow_sender (Sim * sim, guint flow);

/* One flow over [from, to) of the run so far, from the 200 ms bins
 * (docs/metrics.md): rates by departure from the bottleneck, drops by
 * entry. */
typedef struct
{
  gdouble goodput_bps;
  gdouble qdelay_mean_ms;       /* over the packets delivered; 0 if none */
  guint64 sent_pkts, delivered_pkts, lost_pkts;
  gdouble target_mean_bps;      /* media: the session's target at each bin
                                 * start, averaged */
} SimWindow;

void sim_flow_window (Sim * sim, guint flow, GstClockTime from,
    GstClockTime to, SimWindow * out);
/* Output, after sim_run. */
void sim_write_json (Sim * sim, GString * out);
void sim_write_table (Sim * sim, GString * out);
gboolean sim_write_csv (Sim * sim, const gchar * dir, GError ** error);
/* Events processed, for the --bench report. */
guint64 sim_n_events (Sim * sim);

G_END_DECLS
#endif
