/* rcsim packet logs: every packet that crossed a scenario's links, one line
 * each (the format is in docs/metrics.md, "Packet log"), read into the
 * metrics instead of simulating: `rcsim SCENARIO --from-log FILE`. rtsim
 * writes them from what it measures at a real linksim. */
#ifndef __RCSIM_PKTLOG_H__
#define __RCSIM_PKTLOG_H__

#include <gst/gst.h>
#include "metrics.h"

G_BEGIN_DECLS

#define SIM_LOG_ERROR (sim_log_error_quark ())
GQuark sim_log_error_quark (void);

/* Feeds the log at `path` ("-": standard input) to `m`, made for `scen`
 * with SIM_METRICS_LOGGED; does not finish it. FALSE at the first bad
 * line, with "PATH:LINE: what is wrong" (SIM_LOG_ERROR, or G_FILE_ERROR
 * when the file cannot be read). */
gboolean sim_log_read (SimMetrics * m, const SimScenario * scen,
    const gchar * path, GError ** error);

G_END_DECLS
#endif
