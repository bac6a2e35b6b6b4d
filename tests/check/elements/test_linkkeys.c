/* The link key table (gst/rc-link-keys.h) against its two front ends, the
 * linksim element and rcsim's scenario files, row by row:
 *  - linksim has a property of the row's name, type, range, default and
 *    mutability, with the row's unit in its blurb, and no other link
 *    property;
 *  - a scenario [link] section with the key at a value other than its
 *    default loads into the same RcLinkConfig as setting that value on
 *    linksim. linksim keeps its link settings in an RcLinkConfig through
 *    the same rows, so its property read back and stored through the row is
 *    the config it builds its link from; the whole config is compared, so
 *    a key that moved another field on one side only would show;
 *  - out-of-range values are refused by the scenario parser with the
 *    table's range. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include "rc-link-keys.h"
#include "sim.h"

static gchar *tmp_dir;

static void
setup (void)
{
  tmp_dir = g_dir_make_tmp ("linkkeys-XXXXXX", NULL);
  fail_unless (tmp_dir != NULL);
}

static void
teardown (void)
{
  GDir *d = g_dir_open (tmp_dir, 0, NULL);
  const gchar *name;

  while (d && (name = g_dir_read_name (d))) {
    gchar *p = g_build_filename (tmp_dir, name, NULL);
    g_unlink (p);
    g_free (p);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (tmp_dir);
  g_clear_pointer (&tmp_dir, g_free);
}

static gchar *
write_tmp (const gchar * name, const gchar * text)
{
  gchar *path = g_build_filename (tmp_dir, name, NULL);

  fail_unless (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* A scenario whose [link] has `key`=`value` (and one media flow). */
static SimScenario *
load_link (const gchar * key, const gchar * value, GError ** error)
{
  gchar *text = g_strdup_printf ("[link]\n%s=%s\n[flow:v]\nkind=media\n",
      key, value);
  gchar *path = write_tmp ("link.ini", text);
  SimScenario *sc = sim_scenario_load (path, error);

  g_free (text);
  g_free (path);
  return sc;
}

static GstElement *
linksim_new (void)
{
  GstElement *e = gst_element_factory_make ("linksim", NULL);

  fail_unless (e != NULL, "linksim not found; GST_PLUGIN_PATH?");
  return e;
}

/* ------------------------------------------------- linksim's properties */

GST_START_TEST (test_properties_match_table)
{
  GstElement *e = linksim_new ();
  GObjectClass *klass = G_OBJECT_GET_CLASS (e);
  RcLinkConfig def;
  GParamSpec **specs;
  guint i, n;

  rc_link_config_init (&def);
  for (i = 0; i < RC_LINK_N_KEYS; i++) {
    const RcLinkKey *k = &rc_link_keys[i];
    GParamSpec *p = g_object_class_find_property (klass, k->name);
    GParamFlags when = k->flags & RC_LINK_KEY_LIVE ?
        GST_PARAM_MUTABLE_PLAYING : GST_PARAM_MUTABLE_READY;
    GValue now = G_VALUE_INIT, table = G_VALUE_INIT;

    fail_unless (p != NULL, "linksim has no property '%s'", k->name);
    fail_unless (rc_link_key_find (k->name) == k);
    fail_unless_equals_string (g_param_spec_get_nick (p), k->nick);
    fail_unless_equals_string (g_param_spec_get_blurb (p), k->blurb);
    fail_unless (k->unit == NULL || strstr (k->blurb, k->unit) != NULL,
        "%s: the blurb does not say the unit (%s)", k->name, k->unit);
    fail_unless ((p->flags & when) == when && (p->flags & G_PARAM_READWRITE)
        == G_PARAM_READWRITE, "%s: flags 0x%x", k->name, p->flags);
    switch (k->type) {
      case RC_LINK_TYPE_UINT:{
        GParamSpecUInt *u = G_PARAM_SPEC_UINT (p);
        fail_unless (u->minimum == k->min && u->maximum == k->max &&
            u->default_value == k->def, "%s: range or default", k->name);
        break;
      }
      case RC_LINK_TYPE_UINT64:{
        GParamSpecUInt64 *u = G_PARAM_SPEC_UINT64 (p);
        fail_unless (u->minimum == k->min && u->maximum == k->max &&
            u->default_value == k->def, "%s: range or default", k->name);
        break;
      }
      case RC_LINK_TYPE_DOUBLE:{
        GParamSpecDouble *d = G_PARAM_SPEC_DOUBLE (p);
        fail_unless (d->minimum == k->dmin && d->maximum == k->dmax &&
            d->default_value == k->ddef, "%s: range or default", k->name);
        break;
      }
      case RC_LINK_TYPE_ENUM:{
        GParamSpecEnum *en = G_PARAM_SPEC_ENUM (p);
        const GEnumValue *v;
        fail_unless_equals_int (en->default_value, (gint) k->def);
        for (v = k->values; v->value_nick; v++)
          fail_unless (g_enum_get_value_by_nick (en->enum_class,
                  v->value_nick)->value == v->value, "%s: %s", k->name,
              v->value_nick);
        fail_unless_equals_int (en->enum_class->n_values, v - k->values);
        break;
      }
      case RC_LINK_TYPE_STRING:
        fail_unless (G_IS_PARAM_SPEC_STRING (p), "%s: not a string", k->name);
        fail_unless (G_PARAM_SPEC_STRING (p)->default_value == NULL);
        break;
    }
    if (k->type == RC_LINK_TYPE_STRING)
      continue;
    /* A new linksim and rc_link_config_init start at the default. */
    g_value_init (&now, G_PARAM_SPEC_VALUE_TYPE (p));
    g_value_init (&table, G_PARAM_SPEC_VALUE_TYPE (p));
    g_object_get_property (G_OBJECT (e), k->name, &now);
    rc_link_key_get_value (k, &def, &table);
    fail_unless (g_param_value_defaults (p, &now), "%s", k->name);
    fail_unless (g_param_value_defaults (p, &table), "%s", k->name);
    g_value_unset (&now);
    g_value_unset (&table);
  }

  /* Every other property of linksim's own is a linksim-only one. */
  specs = g_object_class_list_properties (klass, &n);
  for (i = 0; i < n; i++) {
    if (specs[i]->owner_type != G_OBJECT_TYPE (e) ||
        rc_link_key_find (specs[i]->name))
      continue;
    fail_unless (g_str_equal (specs[i]->name, "timestamp") ||
        g_str_equal (specs[i]->name, "stats"),
        "linksim property '%s' is not in the link key table",
        specs[i]->name);
  }
  g_free (specs);
  gst_object_unref (e);
}

GST_END_TEST;

/* ----------------------------------------------- scenario = linksim */

/* A value of row `k` other than its default, as linksim takes it (`v`,
 * initialized to the property's type) and as text. */
static gchar *
other_value (const RcLinkKey * k, GParamSpec * p, GValue * v)
{
  g_value_init (v, G_PARAM_SPEC_VALUE_TYPE (p));
  switch (k->type) {
    case RC_LINK_TYPE_UINT:
    case RC_LINK_TYPE_UINT64:{
      /* Halfway to a bound: large numbers too, which a double would not
       * hold exactly. */
      guint64 u = k->def < k->max ? k->def + (k->max - k->def) / 2 + 1 :
          k->min + (k->max - k->min) / 2;
      if (k->type == RC_LINK_TYPE_UINT)
        g_value_set_uint (v, (guint) u);
      else
        g_value_set_uint64 (v, u);
      return g_strdup_printf ("%" G_GUINT64_FORMAT, u);
    }
    case RC_LINK_TYPE_DOUBLE:{
      gdouble d = k->ddef < k->dmax ? (k->ddef + k->dmax) / 2 :
          (k->dmin + k->ddef) / 2;
      gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_value_set_double (v, d);
      return g_strdup (g_ascii_dtostr (buf, sizeof (buf), d));
    }
    case RC_LINK_TYPE_ENUM:{
      const GEnumValue *e = &k->values[k->def + 1];
      g_value_set_enum (v, e->value);
      return g_strdup (e->value_nick);
    }
    case RC_LINK_TYPE_STRING:
      if (k == &rc_link_keys[RC_LINK_KEY_SCHEDULE])
        g_value_set_string (v, "0:1500000,2.5:0,3:3000000");
      else if (k == &rc_link_keys[RC_LINK_KEY_LOSS_EPISODES])
        g_value_set_string (v, "1.5:2,30:33:0.25");
      else
        g_value_take_string (v, write_tmp ("link.trace", "3\n5\n5\n20\n"));
      return g_value_dup_string (v);
  }
  g_return_val_if_reached (NULL);
}

/* The whole configs: every row's field (as a value of linksim's property
 * type) and the capacity mode's data. */
static void
assert_same_config (GObjectClass * klass, const RcLinkConfig * a,
    const RcLinkConfig * b, const gchar * what)
{
  guint j;

  for (j = 0; j < RC_LINK_N_KEYS; j++) {
    const RcLinkKey *k = &rc_link_keys[j];
    GParamSpec *p = g_object_class_find_property (klass, k->name);
    GValue va = G_VALUE_INIT, vb = G_VALUE_INIT;

    if (k->type == RC_LINK_TYPE_STRING)
      continue;
    g_value_init (&va, G_PARAM_SPEC_VALUE_TYPE (p));
    g_value_init (&vb, G_PARAM_SPEC_VALUE_TYPE (p));
    rc_link_key_get_value (k, a, &va);
    rc_link_key_get_value (k, b, &vb);
    fail_unless (gst_value_compare (&va, &vb) == GST_VALUE_EQUAL,
        "%s: field of '%s' differs: %s vs %s", what, k->name,
        gst_value_serialize (&va), gst_value_serialize (&vb));
    g_value_unset (&va);
    g_value_unset (&vb);
  }
  fail_unless_equals_int (a->mode, b->mode);
  fail_unless_equals_int (a->n_steps, b->n_steps);
  fail_unless (a->n_steps == 0 || memcmp (a->steps, b->steps,
          a->n_steps * sizeof (RcCapacityStep)) == 0, "%s: steps", what);
  fail_unless_equals_int (a->n_trace, b->n_trace);
  fail_unless (a->n_trace == 0 || memcmp (a->trace_ms, b->trace_ms,
          a->n_trace * sizeof (guint32)) == 0, "%s: trace", what);
  fail_unless_equals_int (a->n_episodes, b->n_episodes);
  fail_unless (a->n_episodes == 0 || memcmp (a->episodes, b->episodes,
          a->n_episodes * sizeof (RcLossEpisode)) == 0, "%s: episodes", what);
}

GST_START_TEST (test_scenario_agrees_with_linksim)
{
  const RcLinkKey *k = &rc_link_keys[__i__];
  GstElement *e = linksim_new ();
  GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      k->name);
  GValue set = G_VALUE_INIT, got = G_VALUE_INIT;
  RcLinkConfig from_linksim, def;
  GError *err = NULL;
  SimScenario *sc;
  gchar *text;

  fail_unless (p != NULL);
  text = other_value (k, p, &set);
  GST_INFO ("%s = %s", k->name, text);

  /* linksim: set, read back, stored through the row. */
  g_object_set_property (G_OBJECT (e), k->name, &set);
  g_value_init (&got, G_PARAM_SPEC_VALUE_TYPE (p));
  g_object_get_property (G_OBJECT (e), k->name, &got);
  fail_unless (gst_value_compare (&set, &got) == GST_VALUE_EQUAL,
      "linksim %s: set %s, got %s", k->name, text,
      gst_value_serialize (&got));
  rc_link_config_init (&from_linksim);
  if (k->type == RC_LINK_TYPE_STRING)
    fail_unless (rc_link_key_parse (k, g_value_get_string (&got),
            &from_linksim, NULL));
  else
    rc_link_key_set_value (k, &from_linksim, &got);

  /* The scenario file. */
  sc = load_link (k->name, text, &err);
  fail_unless (sc != NULL, "[link] %s=%s: %s", k->name, text,
      err ? err->message : "?");
  /* The one scenario rule linksim does not have (docs/scenarios.md): a
   * loss-rate without a loss-model means bernoulli. */
  if (k == &rc_link_keys[RC_LINK_KEY_LOSS_RATE])
    from_linksim.loss.kind = RC_LOSS_BERNOULLI;
  assert_same_config (G_OBJECT_GET_CLASS (e), &sc->link, &from_linksim,
      k->name);

  /* And the value did move away from the default. */
  rc_link_config_init (&def);
  if (k == &rc_link_keys[RC_LINK_KEY_LOSS_EPISODES]) {
    fail_unless_equals_int (sc->link.n_episodes, 2);
    fail_unless_equals_uint64 (sc->link.episodes[1].to, 33 * GST_SECOND);
  } else if (k->type == RC_LINK_TYPE_STRING) {
    fail_unless (sc->link.mode != def.mode);
  } else {
    GValue a = G_VALUE_INIT, b = G_VALUE_INIT;
    g_value_init (&a, G_PARAM_SPEC_VALUE_TYPE (p));
    g_value_init (&b, G_PARAM_SPEC_VALUE_TYPE (p));
    rc_link_key_get_value (k, &sc->link, &a);
    rc_link_key_get_value (k, &def, &b);
    fail_unless (gst_value_compare (&a, &b) != GST_VALUE_EQUAL);
    fail_unless (gst_value_compare (&a, &set) == GST_VALUE_EQUAL);
    g_value_unset (&a);
    g_value_unset (&b);
  }

  sim_scenario_free (sc);
  rc_link_config_clear (&from_linksim);
  g_value_unset (&set);
  g_value_unset (&got);
  g_free (text);
  gst_object_unref (e);
}

GST_END_TEST;

/* Without [reverse] the return path has [link]'s overhead; a [reverse]
 * without `overhead` has the default, as a second linksim would. */
GST_START_TEST (test_reverse_overhead)
{
  gchar *path = write_tmp ("rev.ini", "[link]\noverhead=48\n"
      "[flow:v]\nkind=media\n");
  SimScenario *sc = sim_scenario_load (path, NULL);

  fail_unless (sc != NULL);
  fail_unless_equals_int (sc->link.overhead, 48);
  fail_unless_equals_int (sc->reverse.overhead, 48);
  sim_scenario_free (sc);
  g_free (path);
  path = write_tmp ("rev.ini", "[link]\noverhead=48\n[reverse]\n"
      "capacity=500000\n[flow:v]\nkind=media\n");
  sc = sim_scenario_load (path, NULL);
  fail_unless (sc != NULL);
  fail_unless_equals_int (sc->reverse.overhead,
      rc_link_keys[RC_LINK_KEY_OVERHEAD].def);
  sim_scenario_free (sc);
  g_free (path);
}

GST_END_TEST;

/* ------------------------------------------------------------- ranges */

static void
assert_refused (const RcLinkKey * k, const gchar * text, const gchar * want)
{
  GError *err = NULL;
  SimScenario *sc = load_link (k->name, text, &err);
  gchar *prefix = g_strdup_printf ("[link] %s: ", k->name);

  fail_unless (sc == NULL, "[link] %s=%s was taken", k->name, text);
  fail_unless (strstr (err->message, prefix) != NULL &&
      strstr (err->message, want) != NULL,
      "[link] %s=%s: \"%s\" does not say \"%s\"", k->name, text,
      err->message, want);
  g_error_free (err);
  g_free (prefix);
}

GST_START_TEST (test_scenario_ranges_from_table)
{
  guint i;

  for (i = 0; i < RC_LINK_N_KEYS; i++) {
    const RcLinkKey *k = &rc_link_keys[i];
    gchar *range, *text;

    switch (k->type) {
      case RC_LINK_TYPE_UINT:
      case RC_LINK_TYPE_UINT64:
        range = g_strdup_printf ("%" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT,
            k->min, k->max);
        if (k->max < G_MAXUINT64) {
          text = g_strdup_printf ("%" G_GUINT64_FORMAT, k->max + 1);
          assert_refused (k, text, range);
          g_free (text);
        }
        if (k->min > 0) {
          text = g_strdup_printf ("%" G_GUINT64_FORMAT, k->min - 1);
          assert_refused (k, text, range);
          g_free (text);
        }
        assert_refused (k, "-1", range);
        assert_refused (k, "1.5", range);
        g_free (range);
        break;
      case RC_LINK_TYPE_DOUBLE:
        range = g_strdup_printf ("[%g, %g]", k->dmin, k->dmax);
        text = g_strdup_printf ("%g", k->dmax + 1);
        assert_refused (k, text, range);
        g_free (text);
        text = g_strdup_printf ("%g", k->dmin - 1);
        assert_refused (k, text, range);
        g_free (text);
        assert_refused (k, "nan", range);
        g_free (range);
        break;
      case RC_LINK_TYPE_ENUM:
        assert_refused (k, "nosuch", k->values[1].value_nick);
        break;
      case RC_LINK_TYPE_STRING:
        break;
    }
  }
  /* The string rows say what they expect. */
  {
    const RcLinkKey *ep = &rc_link_keys[RC_LINK_KEY_LOSS_EPISODES];
    const gchar *bad[] = { "", "soon", "5", "5:3", "1:2:1.5", "1:2:x",
      "-1:2", "3:4,1:2", "1:3,2:4", "1:2:0.5:7"
    };
    for (i = 0; i < G_N_ELEMENTS (bad); i++)
      assert_refused (ep, bad[i], "FROM:TO[:RATE]");
    assert_refused (&rc_link_keys[RC_LINK_KEY_SCHEDULE], "0:1000000,5:0",
        "outage");
    assert_refused (&rc_link_keys[RC_LINK_KEY_SCHEDULE], "0:1000000,5:-1",
        "bit/s");
  }
}

GST_END_TEST;

/* Notations scenario files have used: "2e6" for a whole number, "ge"
 * for gilbert-elliott; schedule and trace-file still exclude each other. */
GST_START_TEST (test_scenario_notations)
{
  gchar *trace = write_tmp ("t.trace", "1\n2\n");
  gchar *text;
  SimScenario *sc = load_link ("capacity", "2e6", NULL);
  GError *err = NULL;

  fail_unless (sc != NULL);
  fail_unless_equals_uint64 (sc->link.capacity_bps, 2000000);
  sim_scenario_free (sc);
  sc = load_link ("loss-model", "GE", NULL);
  fail_unless (sc != NULL);
  fail_unless_equals_int (sc->link.loss.kind, RC_LOSS_GILBERT_ELLIOTT);
  sim_scenario_free (sc);

  text = g_strdup_printf ("0:1000000\ntrace-file=%s", trace);
  sc = load_link ("schedule", text, &err);
  fail_unless (sc == NULL);
  fail_unless (strstr (err->message, "exclusive") != NULL, "%s",
      err->message);
  g_error_free (err);
  g_free (text);
  g_free (trace);
}

GST_END_TEST;

static Suite *
linkkeys_suite (void)
{
  Suite *s = suite_create ("linkkeys");
  TCase *tc = tcase_create ("table");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_properties_match_table);
  tcase_add_loop_test (tc, test_scenario_agrees_with_linksim, 0,
      RC_LINK_N_KEYS);
  tcase_add_test (tc, test_reverse_overhead);
  tcase_add_test (tc, test_scenario_ranges_from_table);
  tcase_add_test (tc, test_scenario_notations);
  return s;
}

GST_CHECK_MAIN (linkkeys);
