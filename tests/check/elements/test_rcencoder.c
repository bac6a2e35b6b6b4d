/* Tests for gstrcencoder.c (compiled into this test): the encoder table,
 * bitrate units and clamping on the installed encoders, their real-time
 * set-up, and the upstream walk that finds an encoder across payloaders,
 * queues, capsfilters and bins.
 *
 * Rows whose encoder is not installed are skipped and say so;
 * scripts/setup.sh installs vp8enc, vp9enc, x264enc, x265enc, openh264enc,
 * av1enc and theoraenc.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include "gstrcencoder.h"

static const GstRcEncoderInfo *
table_row (guint i)
{
  guint n;
  const GstRcEncoderInfo *table = gst_rc_encoder_info_list (&n);

  fail_unless (i < n);
  return &table[i];
}

static guint
table_length (void)
{
  guint n;

  gst_rc_encoder_info_list (&n);
  return n;
}

/* A new `factory` element, or NULL (and a note: the row is skipped) if it
 * is not installed. */
static GstElement *
make_element (const gchar * factory)
{
  GstElement *enc = gst_element_factory_make (factory, NULL);

  if (!enc)
    g_print ("%s not installed: row skipped\n", factory);
  return enc;
}

/* `prop` of `obj` as guint64 (bitrate properties are non-negative). */
static guint64
get_uint64 (gpointer obj, const gchar * prop)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (obj),
      prop);
  GValue raw = G_VALUE_INIT, v = G_VALUE_INIT;
  guint64 r;

  fail_unless (ps != NULL, "no property %s", prop);
  g_value_init (&raw, ps->value_type);
  g_object_get_property (G_OBJECT (obj), prop, &raw);
  fail_unless (G_VALUE_TYPE (&raw) == ps->value_type);
  g_value_init (&v, G_TYPE_UINT64);
  fail_unless (g_value_transform (&raw, &v));
  r = g_value_get_uint64 (&v);
  g_value_unset (&raw);
  g_value_unset (&v);
  return r;
}

/* ------------------------------------------------------------ the table */

GST_START_TEST (test_table_row)
{
  const GstRcEncoderInfo *row = table_row (__i__);
  guint j;

  fail_unless (row->factory && *row->factory);
  fail_unless (row->property && *row->property);
  fail_unless (row->divisor == 1 || row->divisor == 1000,
      "%s: divisor %u is neither bit/s nor kbit/s", row->factory,
      row->divisor);
  for (j = 0; j < table_length (); j++)
    fail_unless (j == (guint) __i__ || !g_str_equal (table_row (j)->factory,
            row->factory), "%s listed twice", row->factory);
  fail_unless (gst_rc_encoder_info_lookup (row->factory) == row);
}

GST_END_TEST;

GST_START_TEST (test_lookup_unknown)
{
  GstElement *q = gst_element_factory_make ("queue", NULL);

  fail_unless (gst_rc_encoder_info_lookup ("queue") == NULL);
  fail_unless (gst_rc_encoder_info_lookup ("") == NULL);
  fail_unless (gst_rc_encoder_info_for (q) == NULL);
  gst_object_unref (q);
}

GST_END_TEST;

/* ------------------------------------------- units, on installed encoders */

/* Each encoder gets the target in its own unit (checked with gst-inspect on
 * Debian 12): the property exists, 640 kbit/s reads back as 640000 / divisor
 * in the property's own type, and the property's blurb names the same unit
 * where it names one. */
GST_START_TEST (test_encoder_units)
{
  GstElement *enc = make_element (table_row (__i__)->factory);
  const GstRcEncoderInfo *info;
  GParamSpec *ps;
  gchar *blurb;
  gboolean says_k;

  if (!enc)
    return;
  info = gst_rc_encoder_info_for (enc);
  fail_unless (info == table_row (__i__), "%s has no property %s",
      table_row (__i__)->factory, table_row (__i__)->property);
  gst_rc_encoder_set_bitrate (enc, info, 640000);
  fail_unless_equals_uint64 (get_uint64 (enc, info->property),
      640000 / info->divisor);

  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (enc),
      info->property);
  blurb = g_ascii_strdown (g_param_spec_get_blurb (ps), -1);
  says_k = strstr (blurb, "kbit") || strstr (blurb, "kilobit") ||
      strstr (blurb, "kbps");
  if (says_k || strstr (blurb, "bit")) {
    fail_unless_equals_int (info->divisor, says_k ? 1000 : 1);
  } else {
    g_print ("%s: blurb \"%s\" names no unit\n", info->factory, blurb);
  }
  g_free (blurb);
  gst_object_unref (enc);
}

GST_END_TEST;

/* `prop` of `enc` set directly to `val`, as the encoder reads it back (vp8enc
 * keeps whole kbit/s; theoraenc keeps bit/s in a gint, so it wraps above
 * 2147483 kbit/s by itself). */
static guint64
own_reading (GstElement * enc, const gchar * prop, guint64 val)
{
  gchar *str = g_strdup_printf ("%" G_GUINT64_FORMAT, val);

  gst_util_set_object_arg (G_OBJECT (enc), prop, str);
  g_free (str);
  return get_uint64 (enc, prop);
}

/* Values below and beyond the property's range are clamped into it, not
 * refused and not wrapped around (vp8enc's is a gint, openh264enc's a
 * guint: one past their maximum used to wrap to 0): the encoder then reads
 * as after being set to its own minimum or maximum. */
GST_START_TEST (test_encoder_clamps)
{
  GstElement *enc = make_element (table_row (__i__)->factory);
  const GstRcEncoderInfo *info;
  GParamSpec *ps;
  guint64 lo, hi, at_lo, at_hi;

  if (!enc)
    return;
  info = gst_rc_encoder_info_for (enc);
  fail_unless (info != NULL);
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (enc),
      info->property);
  if (G_IS_PARAM_SPEC_INT (ps)) {
    lo = MAX (G_PARAM_SPEC_INT (ps)->minimum, 0);
    hi = G_PARAM_SPEC_INT (ps)->maximum;
  } else {
    fail_unless (G_IS_PARAM_SPEC_UINT (ps), "%s: %s is a %s; extend the test",
        info->factory, info->property, G_PARAM_SPEC_TYPE_NAME (ps));
    lo = G_PARAM_SPEC_UINT (ps)->minimum;
    hi = G_PARAM_SPEC_UINT (ps)->maximum;
  }
  at_lo = lo > 0 ? own_reading (enc, info->property, lo) : 0;
  at_hi = own_reading (enc, info->property, hi);

  gst_rc_encoder_set_bitrate (enc, info, 640000);
  gst_rc_encoder_set_bitrate (enc, info, (hi + 1) * info->divisor);
  fail_unless_equals_uint64 (get_uint64 (enc, info->property), at_hi);
  gst_rc_encoder_set_bitrate (enc, info, 640000);
  gst_rc_encoder_set_bitrate (enc, info, G_MAXUINT64);
  fail_unless_equals_uint64 (get_uint64 (enc, info->property), at_hi);
  /* Below: only where the minimum is above 0 (x264enc: 1 kbit/s); 0 is
   * vp8enc's "auto". */
  if (lo > 0) {
    gst_rc_encoder_set_bitrate (enc, info, 640000);
    gst_rc_encoder_set_bitrate (enc, info, 0);
    fail_unless_equals_uint64 (get_uint64 (enc, info->property), at_lo);
  }
  gst_object_unref (enc);
}

GST_END_TEST;

/* -------------------------------------------------------------- set-up */

static const struct
{
  const gchar *factory, *property, *value;
} setup_cases[] = {
  {"vp8enc", "end-usage", "cbr"},
  {"vp8enc", "deadline", "1"},
  {"vp9enc", "end-usage", "cbr"},
  {"vp9enc", "deadline", "1"},
  /* a fixed speed, not libvpx's automatic one, and no lag */
  {"vp8enc", "cpu-used", "-6"},
  {"vp8enc", "lag-in-frames", "0"},
  {"vp9enc", "cpu-used", "6"},
  {"vp9enc", "lag-in-frames", "0"},
  {"openh264enc", "rate-control", "bitrate"},
  {"x264enc", "pass", "cbr"},
};

GST_START_TEST (test_encoder_configure)
{
  const gchar *factory = setup_cases[__i__].factory;
  const gchar *prop = setup_cases[__i__].property;
  GstElement *enc = make_element (factory);
  GParamSpec *ps;
  GValue got = G_VALUE_INIT, want = G_VALUE_INIT;

  if (!enc)
    return;
  gst_rc_encoder_configure (enc, gst_rc_encoder_info_for (enc));
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (enc), prop);
  fail_unless (ps != NULL);
  g_value_init (&got, ps->value_type);
  g_value_init (&want, ps->value_type);
  g_object_get_property (G_OBJECT (enc), prop, &got);
  fail_unless (gst_value_deserialize (&want, setup_cases[__i__].value));
  fail_unless (gst_value_compare (&got, &want) == GST_VALUE_EQUAL,
      "%s %s is %s, not %s", factory, prop, gst_value_serialize (&got),
      setup_cases[__i__].value);
  g_value_unset (&got);
  g_value_unset (&want);
  gst_object_unref (enc);
}

GST_END_TEST;

/* A speed or lag the user set is theirs: only the encoder's own defaults
 * are replaced. */
GST_START_TEST (test_encoder_configure_keeps_user_values)
{
  const gchar *factories[] = { "vp8enc", "vp9enc" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (factories); i++) {
    GstElement *enc = make_element (factories[i]);
    gint speed, lag;

    if (!enc)
      continue;
    g_object_set (enc, "cpu-used", 3, "lag-in-frames", 2, NULL);
    gst_rc_encoder_configure (enc, gst_rc_encoder_info_for (enc));
    g_object_get (enc, "cpu-used", &speed, "lag-in-frames", &lag, NULL);
    fail_unless_equals_int (speed, 3);
    fail_unless_equals_int (lag, 2);
    gst_object_unref (enc);
  }
}

GST_END_TEST;

/* ------------------------------------------------------ the upstream walk */

#define NINE_QUEUES "queue ! queue ! queue ! queue ! queue ! " \
  "queue ! queue ! queue ! queue"

/* From the sink pad of the element named "sink" upstream to the element
 * named "enc", or to nothing when `found` is FALSE. */
static const struct
{
  const gchar *desc;
  gboolean found;
} walk_cases[] = {
  {"vp8enc name=enc ! rtpvp8pay ! queue ! capsfilter ! fakesink name=sink",
      TRUE},
  /* into a bin through its ghost src pad */
  {"( vp8enc name=enc ! queue ) ! rtpvp8pay ! fakesink name=sink", TRUE},
  /* out of the bin "sink" is in, through its ghost sink pad */
  {"vp8enc name=enc ! rtpvp8pay ! ( queue ! fakesink name=sink )", TRUE},
  /* both ways */
  {"vp8enc name=enc ! rtpvp8pay ! ( queue ) ! fakesink name=sink", TRUE},
  /* the encoder is the tenth element upstream: found; the eleventh: not */
  {"vp8enc name=enc ! " NINE_QUEUES " ! fakesink name=sink", TRUE},
  {"vp8enc name=enc ! " NINE_QUEUES " ! queue ! fakesink name=sink", FALSE},
  {"videotestsrc ! queue ! fakesink name=sink", FALSE},
  {"fakesink name=sink", FALSE},
};

GST_START_TEST (test_find_upstream)
{
  GError *err = NULL;
  GstElement *bin, *sink, *enc, *found;
  GstPad *pad;
  GstElement *enc_check = make_element ("vp8enc");
  GstElement *pay_check = make_element ("rtpvp8pay");

  if (!enc_check || !pay_check) {
    gst_clear_object (&enc_check);
    gst_clear_object (&pay_check);
    return;
  }
  gst_object_unref (enc_check);
  gst_object_unref (pay_check);

  bin = gst_parse_bin_from_description (walk_cases[__i__].desc, FALSE, &err);
  fail_unless (bin != NULL && err == NULL, "%s: %s", walk_cases[__i__].desc,
      err ? err->message : "?");
  sink = gst_bin_get_by_name (GST_BIN (bin), "sink");
  enc = gst_bin_get_by_name (GST_BIN (bin), "enc");
  pad = gst_element_get_static_pad (sink, "sink");
  found = gst_rc_encoder_find_upstream (pad);
  if (walk_cases[__i__].found)
    fail_unless (found != NULL && found == enc, "%s: found %" GST_PTR_FORMAT,
        walk_cases[__i__].desc, found);
  else
    fail_unless (found == NULL, "%s: found %" GST_PTR_FORMAT,
        walk_cases[__i__].desc, found);
  gst_clear_object (&found);
  gst_clear_object (&enc);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (bin);
}

GST_END_TEST;

static Suite *
rcencoder_suite (void)
{
  Suite *s = suite_create ("rcencoder");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_table_row, 0, table_length ());
  tcase_add_test (tc, test_lookup_unknown);
  tcase_add_loop_test (tc, test_encoder_units, 0, table_length ());
  tcase_add_loop_test (tc, test_encoder_clamps, 0, table_length ());
  tcase_add_loop_test (tc, test_encoder_configure, 0,
      G_N_ELEMENTS (setup_cases));
  tcase_add_test (tc, test_encoder_configure_keeps_user_values);
  tcase_add_loop_test (tc, test_find_upstream, 0, G_N_ELEMENTS (walk_cases));
  return s;
}

GST_CHECK_MAIN (rcencoder);
