/* rcsim: runs a scenario (docs/scenarios.md) with the real controller,
 * pacer and link code in virtual time and prints the metrics of
 * docs/metrics.md; or, with --from-log, prints the same metrics of a real
 * run from its packet log (docs/metrics.md, "Packet log": what rtsim
 * measures at linksim).
 *
 *   rcsim SCENARIO [--controller NAME] [--seed N] [--json] [--csv DIR]
 *         [--duration S] [--bench]
 *   rcsim SCENARIO --from-log FILE [--controller NAME] [--seed N] [--json]
 *         [--csv DIR] [--duration S]
 *   rcsim --list-controllers [--receiver-assisted | --receiver-requests]
 *
 * SCENARIO is a file, or the name of an installed one (rcsim clean-1mbps:
 * RCSIM_SCENARIO_DIR, else DATADIR/gst-ratecontrol/scenarios).
 *
 * The same scenario and seed (or log) always print the same bytes. The
 * wall clock is read only for --bench, whose report goes to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"
#include "pktlog.h"

static gchar *opt_controller;
static gint64 opt_seed = -1;
static gboolean opt_json;
static gchar *opt_csv;
static gdouble opt_duration;
static gboolean opt_bench;
static gboolean opt_list, opt_assisted, opt_requests;
static gchar *opt_log;

/* VmHWM of /proc/self/status (Linux); 0 where there is none. For the soak
 * (benchmarks/soak.py): a parent's rusage would count its own RSS too. */
static gdouble
peak_rss_mib (void)
{
  gchar *status = NULL, *line;
  gdouble mib = 0;

  if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL) &&
      (line = strstr (status, "VmHWM:")))
    mib = g_ascii_strtod (line + 6, NULL) / 1024.0;
  g_free (status);
  return mib;
}

static GOptionEntry entries[] = {
  {"controller", 'c', 0, G_OPTION_ARG_STRING, &opt_controller,
        "Controller for every media flow (overrides the scenario); with "
        "--from-log only their label, any name", "NAME"},
  {"seed", 's', 0, G_OPTION_ARG_INT64, &opt_seed,
      "Seed of every random draw (default: the scenario's, else 1)", "N"},
  {"json", 'j', 0, G_OPTION_ARG_NONE, &opt_json,
      "Print one JSON object instead of the table", NULL},
  {"csv", 0, 0, G_OPTION_ARG_FILENAME, &opt_csv,
      "Write 200 ms time series (capacity.csv, flows.csv, flow-ID.csv) here",
      "DIR"},
  {"duration", 'd', 0, G_OPTION_ARG_DOUBLE, &opt_duration,
      "Run this many seconds instead of the scenario's duration (longer: "
        "flows that ran to its end run to the new one)", "S"},
  {"bench", 0, 0, G_OPTION_ARG_NONE, &opt_bench,
      "Report wall time and speed-up over real time on stderr", NULL},
  {"from-log", 0, 0, G_OPTION_ARG_FILENAME, &opt_log,
        "Do not simulate: compute the metrics from this packet log ('-': "
        "standard input)", "FILE"},
  {"list-controllers", 0, 0, G_OPTION_ARG_NONE, &opt_list,
      "List the controller names and exit", NULL},
  {"receiver-assisted", 0, 0, G_OPTION_ARG_NONE, &opt_assisted,
        "With --list-controllers: only those that read rcreceiver's reports "
        "(the runners put one on their receiving side)", NULL},
  {"receiver-requests", 0, 0, G_OPTION_ARG_NONE, &opt_requests,
        "With --list-controllers: only those that follow the rate requests "
        "rcreceiver computes for them (rcreceiver r3cp=true)", NULL},
  {NULL}
};

/* SCENARIO as given when it is a file or has a directory part; else the
 * installed scenario of that name (with or without .ini), so that an
 * installed rcsim runs the shipped scenarios by name. Relative trace files
 * are then found next to it there, as for any scenario file. */
static gchar *
find_scenario (const gchar * arg)
{
  const gchar *dir = g_getenv ("RCSIM_SCENARIO_DIR");
  gchar *file, *path;

  if (strchr (arg, G_DIR_SEPARATOR) || g_file_test (arg, G_FILE_TEST_EXISTS))
    return g_strdup (arg);
  if (!dir || !*dir)
    dir = RCSIM_SCENARIO_DIR;
  file = g_str_has_suffix (arg, ".ini") ? g_strdup (arg) :
      g_strconcat (arg, ".ini", NULL);
  path = g_build_filename (dir, file, NULL);
  g_free (file);
  if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return path;
  g_free (path);
  /* Not there either: the loader says the name given was not found. */
  return g_strdup (arg);
}

/* The run's metrics, simulated or from the log; NULL (reported) on a bad
 * log. */
static SimMetrics *
compute (SimScenario * scen, guint32 seed, Sim ** sim)
{
  SimMetrics *m;
  GError *err = NULL;
  gint64 t0 = 0;

  if (opt_log) {
    m = sim_metrics_new (scen, seed, SIM_METRICS_LOGGED);
    if (opt_controller)
      sim_metrics_set_controller (m, opt_controller);
    if (!sim_log_read (m, scen, opt_log, &err)) {
      g_printerr ("rcsim: %s\n", err->message);
      g_error_free (err);
      sim_metrics_free (m);
      return NULL;
    }
    sim_metrics_finish (m);
    return m;
  }
  *sim = sim_new (scen, seed);
  if (opt_bench)
    t0 = g_get_monotonic_time ();
  sim_run (*sim);
  if (opt_bench) {
    gdouble wall = MAX (g_get_monotonic_time () - t0, 1) / 1e6;
    gdouble simulated = (gdouble) scen->duration / GST_SECOND;

    g_printerr ("rcsim: %s: %.1f s simulated in %.3f s wall, %.0fx real "
        "time, %" G_GUINT64_FORMAT " events, peak RSS %.1f MiB\n",
        scen->name, simulated, wall, simulated / wall, sim_n_events (*sim),
        peak_rss_mib ());
  }
  return sim_get_metrics (*sim);
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx;
  GError *err = NULL;
  SimScenario *scen;
  Sim *sim = NULL;
  SimMetrics *m;
  GString *out;
  guint32 seed;
  gchar *scen_path;
  int ret = 0;

  gst_init (NULL, NULL);
  ctx = g_option_context_new ("SCENARIO - rate control in virtual time");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx,
      "SCENARIO: a scenario file, or the name of an installed one (e.g. "
      "clean-1mbps) in $RCSIM_SCENARIO_DIR, else " RCSIM_SCENARIO_DIR ".\n"
      "Scenario keys: docs/scenarios.md. Metrics and the packet log format: "
      "docs/metrics.md.");
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("rcsim: %s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);

  if (opt_list) {
    guint k, n;
    const RcControllerInfo *const *l = rc_controller_list (&n);
    for (k = 0; k < n; k++)
      if ((!opt_assisted || l[k]->receiver_assisted) && (!opt_requests ||
              l[k]->receiver_requests))
        g_print ("%s\n", l[k]->name);
    return 0;
  }
  if (argc != 2) {
    g_printerr ("usage: rcsim SCENARIO [--controller NAME] [--seed N] "
        "[--json] [--csv DIR] [--duration S] [--bench | --from-log FILE]\n");
    return 2;
  }
  if (opt_log && opt_bench) {
    g_printerr ("rcsim: --bench times a simulation: not with --from-log\n");
    return 2;
  }
  if (opt_log && opt_controller && !*opt_controller) {
    g_printerr ("rcsim: --controller: a name\n");
    return 2;
  }

  scen_path = find_scenario (argv[1]);
  scen = sim_scenario_load (scen_path, &err);
  g_free (scen_path);
  if (!scen) {
    g_printerr ("rcsim: %s\n", err->message);
    return 1;
  }
  if (!opt_log && opt_controller &&
      !sim_scenario_set_controller (scen, opt_controller, &err)) {
    g_printerr ("rcsim: %s\n", err->message);
    return 2;
  }
  if (opt_duration < 0 || opt_duration > 1e6) {
    g_printerr ("rcsim: --duration: seconds, > 0\n");
    return 2;
  }
  if (opt_duration > 0)
    sim_scenario_set_duration (scen,
        (GstClockTime) (opt_duration * GST_SECOND + 0.5));
  if (opt_seed > G_MAXUINT32) {
    g_printerr ("rcsim: --seed: 0..%u\n", G_MAXUINT32);
    return 2;
  }
  seed = opt_seed >= 0 ? (guint32) opt_seed : scen->seed;

  m = compute (scen, seed, &sim);
  if (!m) {
    ret = 1;
    goto done;
  }
  out = g_string_new (NULL);
  if (opt_json)
    sim_metrics_write_json (m, out);
  else
    sim_metrics_write_table (m, out);
  fwrite (out->str, 1, out->len, stdout);
  g_string_free (out, TRUE);

  if (opt_csv && !sim_metrics_write_csv (m, opt_csv, &err)) {
    g_printerr ("rcsim: %s\n", err->message);
    ret = 1;
  }
  if (!sim)
    sim_metrics_free (m);
done:
  sim_free (sim);
  sim_scenario_free (scen);
  g_free (opt_controller);
  g_free (opt_csv);
  g_free (opt_log);
  return ret;
}
