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
#include "scenario.h"

G_BEGIN_DECLS

/* Time-series bin of --csv and of the convergence and fairness metrics. */
#define SIM_BIN (200 * GST_MSECOND)

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
