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
#include "metrics.h"

G_BEGIN_DECLS

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

/* One flow over [from, to) of the run so far (metrics.h). */
void sim_flow_window (Sim * sim, guint flow, GstClockTime from,
    GstClockTime to, SimWindow * out);
/* The run's metrics: complete after sim_run (the output functions of
 * metrics.h), partial on the way. */
SimMetrics *sim_get_metrics (Sim * sim);
/* Events processed, for the --bench report. */
guint64 sim_n_events (Sim * sim);

G_END_DECLS
#endif
