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
#include "rc-controller.h"
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
  RcConfig rc;                  /* controller kind and bitrate limits */
  gdouble fps;
  GstClockTime key_interval;    /* 0: only the first frame is a key frame */
  gdouble key_factor;           /* key frame size / mean frame size */
  gdouble frame_noise;          /* sigma of the lognormal frame-size factor */
  GstClockTime encoder_lag;     /* first-order time constant */
  guint mtu_payload;            /* RTP payload bytes per packet, at most */
  GstClockTime feedback_interval;
  GstClockTime pacer_max_queue;
  gboolean pacing;
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
void sim_scenario_free (SimScenario * s);
/* Overrides every media flow's controller. */
gboolean sim_scenario_set_controller (SimScenario * s, const gchar * name,
    GError ** error);
/* Shortens (or lengthens) the run; flows stopping later are cut. */
void sim_scenario_set_duration (SimScenario * s, GstClockTime duration);
gboolean sim_controller_from_string (const gchar * name,
    RcControllerKind * out);
const gchar *sim_flow_kind_to_string (SimFlowKind k);

typedef struct _Sim Sim;

Sim *sim_new (const SimScenario * scen, guint32 seed);
void sim_free (Sim * sim);
void sim_run (Sim * sim);
/* Output, after sim_run. */
void sim_write_json (Sim * sim, GString * out);
void sim_write_table (Sim * sim, GString * out);
gboolean sim_write_csv (Sim * sim, const gchar * dir, GError ** error);
/* Events processed, for the --bench report. */
guint64 sim_n_events (Sim * sim);

G_END_DECLS
#endif
