/* Fuzz target: text from files users hand to rcsim and linksim: the
 * scenario parser (sim_scenario_load_data, every section and key), and on
 * the same text the capacity-schedule, Mahimahi-trace and loss-episode
 * parsers of rc-link. A scenario that loads must have what the simulator
 * relies on. The corpus is the shipped scenarios and traces
 * (tests/scenarios), so no seeds are made, plus corpus/scenario: inputs
 * that found defects (count-out-of-range.ini: a flow count of 6.7e100
 * cast to an integer before its range check, undefined behaviour). */
#include "fuzz.h"
#include <string.h>
#include "rc-link.h"
#include "scenario.h"

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  gchar *text = size ? g_strndup ((const gchar *) data, size) : g_strdup ("");
  SimScenario *scen;
  RcCapacityStep *steps = NULL;
  RcLossEpisode *eps = NULL;
  guint32 *trace = NULL;
  guint n = 0;
  GError *err = NULL;

  fuzz_init_gst ();
  /* Trace files named in a fuzzed scenario are looked up under /dev/null,
   * which holds none: the scenario fails to load, as it should. */
  scen = sim_scenario_load_data (text, "fuzz", "/dev/null", &err);
  if (scen) {
    g_assert (scen->flows->len > 0);
    sim_scenario_free (scen);
  } else {
    g_assert (err != NULL && err->message != NULL);
    g_clear_error (&err);
  }
  if (rc_link_parse_schedule (text, &steps, &n, &err))
    g_assert (n > 0);
  g_clear_error (&err);
  g_free (steps);
  if (rc_link_parse_trace (text, &trace, &n, &err))
    g_assert (n > 0 && trace[n - 1] > 0);
  g_clear_error (&err);
  g_free (trace);
  if (rc_link_parse_loss_episodes (text, &eps, &n, &err)) {
    guint i;
    for (i = 0; i < n; i++)
      g_assert (eps[i].from < eps[i].to);
  }
  g_clear_error (&err);
  g_free (eps);
  g_free (text);
  return 0;
}

void
fuzz_make_seeds (const char *dir)
{
  g_printerr ("fuzz_scenario: its corpus is tests/scenarios\n");
}
