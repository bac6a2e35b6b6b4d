/* Controller registry, parameters and dispatch (core). */
#include <string.h>
#include "rc-controller.h"

/* The built-in controllers, one line each: X (name) refers to the
 * RcControllerInfo `rc_<name>_info` defined in that controller's file. */
#define RC_BUILTIN_CONTROLLERS(X) \
  X (urcp) \
  X (um) \
  X (fractal) \
  X (vtum) \
  X (cnadu) \
  X (r3cp)

#define DECLARE_INFO(n) extern const RcControllerInfo rc_##n##_info;
RC_BUILTIN_CONTROLLERS (DECLARE_INFO)
#define LIST_INFO(n) &rc_##n##_info,
     static const RcControllerInfo *const builtin[] = {
       RC_BUILTIN_CONTROLLERS (LIST_INFO)
     };

/* Built-ins plus what rc_controller_register() added. */
static GPtrArray *registry;
static GMutex registry_lock;

static GPtrArray *
registry_get_locked (void)
{
  guint i;

  if (!registry) {
    registry = g_ptr_array_new ();
    for (i = 0; i < G_N_ELEMENTS (builtin); i++)
      g_ptr_array_add (registry, (gpointer) builtin[i]);
  }
  return registry;
}

const RcControllerInfo *const *
rc_controller_list (guint * n)
{
  GPtrArray *r;

  g_mutex_lock (&registry_lock);
  r = registry_get_locked ();
  g_mutex_unlock (&registry_lock);
  if (n)
    *n = r->len;
  return (const RcControllerInfo * const *) r->pdata;
}

const RcControllerInfo *
rc_controller_lookup (const gchar * name)
{
  const RcControllerInfo *const *l;
  guint i, n;

  if (!name)
    return NULL;
  l = rc_controller_list (&n);
  for (i = 0; i < n; i++)
    if (g_ascii_strcasecmp (l[i]->name, name) == 0)
      return l[i];
  return NULL;
}

static gboolean
valid_prefix (const gchar * name)
{
  const gchar *c;

  if (!name || !g_ascii_islower (name[0]))
    return FALSE;
  for (c = name; *c; c++)
    if (!g_ascii_islower (*c) && !g_ascii_isdigit (*c))
      return FALSE;
  return TRUE;
}

gboolean
rc_controller_register (const RcControllerInfo * info)
{
  GPtrArray *r;

  g_return_val_if_fail (info != NULL && info->create != NULL, FALSE);
  if (!valid_prefix (info->name) || rc_controller_lookup (info->name))
    return FALSE;
  g_mutex_lock (&registry_lock);
  r = registry_get_locked ();
  g_ptr_array_add (r, (gpointer) info);
  g_mutex_unlock (&registry_lock);
  return TRUE;
}

/* ------------------------------------------------------------ parameters */

GParamSpec *
rc_controller_find_param (const RcControllerInfo * info, const gchar * name)
{
  GParamSpec **specs;
  guint i, n = 0;

  if (!info->params || !name)
    return NULL;
  specs = info->params (&n);
  for (i = 0; i < n; i++)
    if (g_str_equal (g_param_spec_get_name (specs[i]), name))
      return specs[i];
  return NULL;
}

static GParamSpec *
find_param_or_error (const RcControllerInfo * info, const gchar * name,
    GError ** error)
{
  GParamSpec *ps = rc_controller_find_param (info, name);

  if (!ps)
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "controller %s has no parameter '%s'", info->name, name);
  return ps;
}

gboolean
rc_controller_params_set (const RcControllerInfo * info,
    GstStructure * params, const gchar * name, const GValue * value,
    GError ** error)
{
  GParamSpec *ps = find_param_or_error (info, name, error);
  GValue v = G_VALUE_INIT;

  if (!ps)
    return FALSE;
  g_value_init (&v, ps->value_type);
  if (!g_value_transform (value, &v)) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "%s-%s: a %s is needed", info->name, name,
        g_type_name (ps->value_type));
    g_value_unset (&v);
    return FALSE;
  }
  if (g_param_value_validate (ps, &v)) {
    gchar *s = g_strdup_value_contents (value);
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "%s-%s: %s is out of range", info->name, name, s);
    g_free (s);
    g_value_unset (&v);
    return FALSE;
  }
  gst_structure_take_value (params, name, &v);
  return TRUE;
}

gboolean
rc_controller_params_set_string (const RcControllerInfo * info,
    GstStructure * params, const gchar * name, const gchar * text,
    GError ** error)
{
  GParamSpec *ps = find_param_or_error (info, name, error);
  GValue v = G_VALUE_INIT;
  gboolean ok;

  if (!ps)
    return FALSE;
  g_value_init (&v, ps->value_type);
  if (!gst_value_deserialize (&v, text)) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "%s-%s: '%s' is not a %s", info->name, name, text,
        g_type_name (ps->value_type));
    g_value_unset (&v);
    return FALSE;
  }
  ok = rc_controller_params_set (info, params, name, &v, error);
  g_value_unset (&v);
  return ok;
}

gdouble
rc_controller_param_double (const RcControllerInfo * info,
    const GstStructure * params, const gchar * name)
{
  GParamSpec *ps = rc_controller_find_param (info, name);
  const GValue *set = params ? gst_structure_get_value (params, name) : NULL;
  GValue d = G_VALUE_INIT;
  gdouble r;

  g_return_val_if_fail (ps != NULL, 0);
  g_value_init (&d, G_TYPE_DOUBLE);
  if (!(set && g_value_transform (set, &d)))
    g_value_transform (g_param_spec_get_default_value (ps), &d);
  r = g_value_get_double (&d);
  g_value_unset (&d);
  return r;
}

GParamSpec *
rc_controller_find_key (const gchar * key, const RcControllerInfo ** info)
{
  const RcControllerInfo *const *l;
  guint i, n;

  l = rc_controller_list (&n);
  for (i = 0; key && i < n; i++) {
    gsize len = strlen (l[i]->name);
    if (strncmp (key, l[i]->name, len) == 0 && key[len] == '-') {
      GParamSpec *ps = rc_controller_find_param (l[i], key + len + 1);
      if (ps) {
        if (info)
          *info = l[i];
        return ps;
      }
    }
  }
  return NULL;
}

/* Checks `value` for `key` and stores it under `key`. */
static gboolean
set_key (GstStructure * all, const gchar * key, const GValue * value,
    const gchar * text, GError ** error)
{
  const RcControllerInfo *info = NULL;
  GstStructure *one;
  gboolean ok;

  if (!rc_controller_find_key (key, &info)) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "no controller has a parameter '%s'", key);
    return FALSE;
  }
  one = gst_structure_new_empty ("params");
  ok = value ? rc_controller_params_set (info, one, key +
      strlen (info->name) + 1, value, error) :
      rc_controller_params_set_string (info, one, key +
      strlen (info->name) + 1, text, error);
  if (ok)
    gst_structure_set_value (all, key, gst_structure_get_value (one,
            key + strlen (info->name) + 1));
  gst_structure_free (one);
  return ok;
}

gboolean
rc_controller_params_set_key (GstStructure * all, const gchar * key,
    const GValue * value, GError ** error)
{
  return set_key (all, key, value, NULL, error);
}

gboolean
rc_controller_params_set_key_string (GstStructure * all, const gchar * key,
    const gchar * text, GError ** error)
{
  return set_key (all, key, NULL, text, error);
}

GstStructure *
rc_controller_params_extract (const RcControllerInfo * info,
    const GstStructure * all)
{
  GstStructure *out = gst_structure_new_empty ("params");
  gsize len = strlen (info->name);
  gint i, n = all ? gst_structure_n_fields (all) : 0;

  for (i = 0; i < n; i++) {
    const gchar *key = gst_structure_nth_field_name (all, i);
    if (strncmp (key, info->name, len) == 0 && key[len] == '-' &&
        rc_controller_find_param (info, key + len + 1))
      gst_structure_set_value (out, key + len + 1,
          gst_structure_get_value (all, key));
  }
  return out;
}

/* ------------------------------------------------------------- dispatch */

void
rc_rate_limits_init (RcRateLimits * l)
{
  l->min_bps = 50000;
  l->start_bps = 300000;
  l->max_bps = 20000000;
}

typedef struct
{
  const RcControllerInfo *info;
  GError **error;
  gboolean ok;
} CheckParams;

static gboolean
check_param (GQuark field, const GValue * value, gpointer user_data)
{
  CheckParams *c = user_data;
  GstStructure *tmp = gst_structure_new_empty ("check");

  c->ok = rc_controller_params_set (c->info, tmp, g_quark_to_string (field),
      value, c->error);
  gst_structure_free (tmp);
  return c->ok;
}

RcController *
rc_controller_new (const RcControllerInfo * info, const RcRateLimits * limits,
    const GstStructure * params, GError ** error)
{
  RcRateLimits l = *limits;
  RcController *c;

  g_return_val_if_fail (info != NULL, NULL);
  if (l.min_bps > l.max_bps) {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "min-bitrate (%" G_GUINT64_FORMAT ") is above max-bitrate (%"
        G_GUINT64_FORMAT ")", l.min_bps, l.max_bps);
    return NULL;
  }
  if (params) {
    CheckParams cp = { info, error, TRUE };
    gst_structure_foreach (params, check_param, &cp);
    if (!cp.ok)
      return NULL;
  }
  l.start_bps = CLAMP (l.start_bps, l.min_bps, l.max_bps);
  c = info->create (&l, params);
  g_assert (c && c->klass);
  c->info = info;
  c->limits = l;
  return c;
}

void
rc_controller_free (RcController * c)
{
  if (c)
    c->klass->free (c);
}

const gchar *
rc_controller_name (RcController * c)
{
  return c->info->name;
}

void
rc_controller_on_feedback (RcController * c, const RcFeedback * fb,
    GstClockTime now)
{
  c->klass->on_feedback (c, fb, now);
}

const gchar *
rc_controller_feedback_problem (RcController * c)
{
  return c->klass->feedback_problem ? c->klass->feedback_problem (c) : NULL;
}

void
rc_controller_on_packet_sent (RcController * c, guint64 index, guint size,
    gboolean is_fec, GstClockTime now)
{
  c->klass->on_packet_sent (c, index, size, is_fec, now);
}

void
rc_controller_on_tick (RcController * c, GstClockTime now)
{
  if (c->klass->on_tick)
    c->klass->on_tick (c, now);
}

gboolean
rc_controller_limit_rate (RcController * c, guint64 bps, GstClockTime now)
{
  if (!c->klass->limit_rate)
    return FALSE;
  c->klass->limit_rate (c, bps, now);
  return TRUE;
}

void
rc_controller_set_capped (RcController * c, gboolean capped, GstClockTime now)
{
  if (c->klass->set_capped)
    c->klass->set_capped (c, capped, now);
}

RcDecision
rc_controller_get_decision (RcController * c)
{
  return c->klass->get_decision (c);
}

GstStructure *
rc_controller_get_stats (RcController * c)
{
  return c->klass->get_stats (c);
}
