/* The link keys: one table, one row per setting of the bottleneck link
 * model (rc-link.h), the only description of those settings.
 *
 * Two front ends set up a link and both read this table:
 *  - the linksim element: each row is a property (name, nick, blurb, type,
 *    range, default, mutability), installed from the row;
 *  - rcsim's scenario files: each row is a [link] / [reverse] key, read and
 *    range-checked through the row (rc_link_key_parse).
 * So the same name means the same thing, in the same unit (times in ns, as
 * linksim has them), with the same default and range, in a gst-launch line
 * and in a scenario file; rtsim hands a file's [link] keys to a real
 * linksim by name.
 *
 * Every row is shared by both front ends. What exists on one side only
 * stays out of the table: linksim's `timestamp`, `stats` and per-pad
 * `delay` (gstlinksim.c); the scenario's [flow:NAME] keys (a flow's
 * `delay-ms` overrides [link] `delay`). RC_LINK_KEY_RCSIM_IGNORES marks
 * the row rcsim reads and checks but does not use.
 *
 * Core: no pads, no threads, no clock reads. */
#ifndef __RC_LINK_KEYS_H__
#define __RC_LINK_KEYS_H__

#include "rc-link.h"

G_BEGIN_DECLS

/* Row indices, in table (and property) order. */
typedef enum
{
  RC_LINK_KEY_CAPACITY,
  RC_LINK_KEY_SCHEDULE,
  RC_LINK_KEY_TRACE_FILE,
  RC_LINK_KEY_QUEUE_LIMIT_MS,
  RC_LINK_KEY_QUEUE_LIMIT_BYTES,
  RC_LINK_KEY_DELAY,
  RC_LINK_KEY_OVERHEAD,
  RC_LINK_KEY_DELIVERY,
  RC_LINK_KEY_NOISE_DISTRIBUTION,
  RC_LINK_KEY_NOISE_MEAN,
  RC_LINK_KEY_NOISE_STDDEV,
  RC_LINK_KEY_NOISE_MAX,
  RC_LINK_KEY_NOISE_SHAPE,
  RC_LINK_KEY_NOISE_CORRELATION,
  RC_LINK_KEY_NOISE_INTERVAL,
  RC_LINK_KEY_LOSS_MODEL,
  RC_LINK_KEY_LOSS_RATE,
  RC_LINK_KEY_GE_P,
  RC_LINK_KEY_GE_R,
  RC_LINK_KEY_GE_LOSS_GOOD,
  RC_LINK_KEY_GE_LOSS_BAD,
  RC_LINK_KEY_LOSS_EPISODES,
  RC_LINK_KEY_SEED,
  RC_LINK_N_KEYS
} RcLinkKeyId;

typedef enum
{
  RC_LINK_TYPE_UINT,            /* guint (G_TYPE_UINT) */
  RC_LINK_TYPE_UINT64,          /* guint64 (G_TYPE_UINT64) */
  RC_LINK_TYPE_DOUBLE,          /* gdouble (G_TYPE_DOUBLE) */
  RC_LINK_TYPE_ENUM,            /* one of `values` (GValue: any enum type) */
  RC_LINK_TYPE_STRING,          /* text the front end keeps and hands to
                                 * rc_link_key_parse when it builds the link */
} RcLinkKeyType;

typedef enum
{
  /* A running link takes a new value (linksim: changeable while PLAYING;
   * without the flag only in NULL or READY). */
  RC_LINK_KEY_LIVE = 1 << 0,
  /* rcsim reads and checks the key but does not use it. */
  RC_LINK_KEY_RCSIM_IGNORES = 1 << 1,
} RcLinkKeyFlags;

typedef struct
{
  const gchar *name;            /* linksim property = scenario key */
  const gchar *nick;            /* short title */
  const gchar *blurb;           /* description, with the unit */
  const gchar *unit;            /* "bit/s", "ns", "ms", "bytes"; NULL: none */
  RcLinkKeyType type;
  RcLinkKeyFlags flags;
  guint64 min, max, def;        /* UINT, UINT64 (in `unit`), ENUM */
  gdouble dmin, dmax, ddef;     /* DOUBLE */
  const GEnumValue *values;     /* ENUM: nick = the name in files and
                                 * gst-launch lines; 0-terminated */
  const GEnumValue *aliases;    /* ENUM: more names a file may use; or NULL */
  /* Where the value lives in an RcLinkConfig (not STRING): a field of
   * `size` bytes (4 or 8) holding value x `scale`. */
  gsize offset;
  guint size;
  guint64 scale;
} RcLinkKey;

extern const RcLinkKey rc_link_keys[RC_LINK_N_KEYS];

/* The row called `name`; NULL if no link setting has that name. */
const RcLinkKey *rc_link_key_find (const gchar * name);

/* The row's value in `cfg` (not STRING). `value` is initialized to the
 * row's type (ENUM: to any enum type). */
void rc_link_key_get_value (const RcLinkKey * k, const RcLinkConfig * cfg,
    GValue * value);
/* Stores `value` (of the row's type, or an enum for ENUM) into `cfg`; the
 * caller has checked the range (a GParamSpec does). Not STRING. */
void rc_link_key_set_value (const RcLinkKey * k, RcLinkConfig * cfg,
    const GValue * value);

/* Reads `text` as a scenario file or a linksim property string holds it
 * and stores it into `cfg`:
 *  - UINT, UINT64: a whole number within [min, max] ("2000000", also
 *    "2e6");
 *  - DOUBLE: a finite number within [dmin, dmax];
 *  - ENUM: a nick of `values` or `aliases`, any case;
 *  - STRING: `schedule` is parsed (rc_link_parse_schedule) and
 *    `trace-file` loaded (rc_link_load_trace; a relative path is the
 *    caller's to resolve); both set `cfg->mode`, and each refuses to
 *    replace the other. `loss-episodes` is parsed
 *    (rc_link_parse_loss_episodes).
 * FALSE with RC_LINK_ERROR set (the message does not repeat the key's
 * name) if it does not. */
gboolean rc_link_key_parse (const RcLinkKey * k, const gchar * text,
    RcLinkConfig * cfg, GError ** error);

G_END_DECLS
#endif
