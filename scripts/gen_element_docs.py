#!/usr/bin/python3
"""Generates the element reference, docs/elements/ELEMENT.md (and an index,
docs/elements/README.md), from what the built plugin registers and from each
element's SECTION comment in gst/, as GStreamer's own documentation is made
from its plugins cache and its SECTION comments:

- the element's metadata, type hierarchy and interfaces;
- its SECTION comment (description, examples, stats fields) as Markdown;
- its pad templates with caps, and the properties of its own pad types;
- every property: type, range or enum values, default, flags (readable,
  writable, in which states it may change);
- for an element with a `controller` enum (urcpsender), each controller's
  parameters, the `<controller>-<parameter>` properties, under that
  controller;
- the fields of a new element's `stats` structure, and its signals.

    scripts/gen_element_docs.py [--build DIR] [--output DIR] [--check]

--build is the Meson build directory (default build/; the plugin is
DIR/gst). Only that plugin is loaded, with a private registry, so an
installed copy never stands in for it. --check writes nothing: it generates
into a scratch directory, compares with --output, prints the differences and
exits 1 when they differ (the suite `docs` runs it). Python with GObject
introspection: Debian's python3-gi and python3-gst-1.0."""

import argparse
import difflib
import glob
import os
import re
import shlex
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLUGIN = "ratecontrol"
# Hand-written docs of an element that are not docs/<element>.md.
DESIGN_DOCS = {"fecenc": "fec.md", "fecdec": "fec.md"}
RANKS = {0: "none", 64: "marginal", 128: "secondary", 256: "primary"}

Gst = GObject = None


def init_gst(plugin_dir, registry):
    """GStreamer with this plugin directory alone (system plugins would only
    slow the scan, and an installed copy of ours could shadow the build)."""
    global Gst, GObject
    for var in ("GST_PLUGIN_PATH", "GST_PLUGIN_LOADING_WHITELIST"):
        os.environ.pop(var, None)
    os.environ["GST_PLUGIN_SYSTEM_PATH_1_0"] = ""
    os.environ["GST_PLUGIN_PATH_1_0"] = plugin_dir
    os.environ["GST_REGISTRY_1_0"] = registry
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import GObject as _GObject, Gst as _Gst
    Gst, GObject = _Gst, _GObject
    Gst.init(None)


# --- SECTION comments --------------------------------------------------------

SOURCES = os.path.join(ROOT, "gst")


def section_comment(name):
    """The lines of the `SECTION:element-NAME` comment in gst/*.c, without
    the comment markers, and the file it is in; ([], None) if there is none."""
    for path in sorted(glob.glob(os.path.join(SOURCES, "*.c"))):
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        for i, line in enumerate(lines):
            if re.match(rf"\s*\*\s*SECTION:element-{re.escape(name)}\s*$", line):
                out = []
                for body in lines[i + 1:]:
                    if re.match(r"\s*\*/", body):
                        break
                    out.append(re.sub(r"^\s*\* ?", "", body))
                return out, "gst/" + os.path.basename(path)
    return [], None


def section_markdown(lines, gtype_name):
    """gtk-doc markup to Markdown: @title and @short_description taken out
    (the short description is returned apart), |[ ]| code blocks fenced,
    #Type:property references to this element's properties linked to their
    entries below, other #Type references in code style, headings one level
    down (they sit under ## Description)."""
    short, body, in_short, in_code = [], [], False, False
    for line in lines:
        if not in_code:
            m = re.match(r"@(\w+):\s*(.*)", line)
            if m:
                in_short = m.group(1) == "short_description"
                if in_short:
                    short.append(m.group(2))
                continue
            if in_short:
                if line.strip():
                    short.append(line.strip())
                    continue
                in_short = False
        # Code blocks and headings stand apart from the text around them.
        if re.match(r"\|\[", line):
            in_code = True
            body += [""] if body and body[-1].strip() else []
            body.append("```")
            continue
        if line.startswith("]|"):
            in_code = False
            body += ["```", ""]
            continue
        if not in_code:
            line = re.sub(rf"#{gtype_name}:([\w-]+)", r"[`\1`](#\1-property)", line)
            line = re.sub(r"#(Gst\w+(?::[\w-]+)?)", r"`\1`", line)
            if re.match(r"#{2,5} ", line):
                # One level down: they sit under ## Description.
                body += [""] if body and body[-1].strip() else []
                body += ["#" + line, ""]
                continue
            if not line.strip() and body and not body[-1].strip():
                continue
        body.append(line)
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    return " ".join(short), body


# --- values ------------------------------------------------------------------

def fmt_number(v):
    if isinstance(v, float):
        text = repr(v)
        return text[:-2] if text.endswith(".0") else text
    return str(v)


def enum_values(cls):
    """[(value, nick, description)] of a GEnum or GFlags class."""
    values = getattr(cls, "__enum_values__", None) or getattr(cls, "__flags_values__", {})
    return [(int(k), v.value_nick, v.value_name) for k, v in sorted(values.items())]


def fmt_default(ps):
    v = ps.default_value
    t = ps.value_type
    if GObject.type_is_a(t, GObject.TYPE_ENUM) or GObject.type_is_a(t, GObject.TYPE_FLAGS):
        return f"`{v.value_nick if hasattr(v, 'value_nick') else v}` ({int(v)})"
    if t == GObject.TYPE_BOOLEAN:
        return f"`{'true' if v else 'false'}`"
    if t == GObject.TYPE_STRING:
        return "none (NULL)" if v is None else f'`"{v}"`'
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return f"`{fmt_number(v)}`"
    return "none (NULL)" if v is None else f"`{v}`"


def type_text(ps):
    t = ps.value_type
    if GObject.type_is_a(t, GObject.TYPE_ENUM):
        return f"enum `{t.name}`"
    if GObject.type_is_a(t, GObject.TYPE_FLAGS):
        return f"flags `{t.name}`"
    if GObject.type_is_a(t, GObject.TYPE_BOXED):
        return f"boxed `{t.name}`"
    if GObject.type_is_a(t, GObject.TYPE_OBJECT):
        return f"object `{t.name}`"
    return f"`{t.name}`"


def flags_text(ps):
    f = int(ps.flags)
    out = [w for bit, w in ((GObject.ParamFlags.READABLE, "readable"),
                            (GObject.ParamFlags.WRITABLE, "writable"),
                            (GObject.ParamFlags.CONSTRUCT_ONLY, "construct-only"),
                            (Gst.PARAM_CONTROLLABLE, "controllable"))
           if f & int(bit)]
    # gst-inspect-1.0's wording: the highest state the value may change in.
    if f & int(GObject.ParamFlags.WRITABLE):
        if f & Gst.PARAM_MUTABLE_PLAYING:
            out.append("changeable in NULL, READY, PAUSED or PLAYING state")
        elif f & Gst.PARAM_MUTABLE_PAUSED:
            out.append("changeable only in NULL, READY or PAUSED state")
        elif f & Gst.PARAM_MUTABLE_READY:
            out.append("changeable only in NULL or READY state")
    return ", ".join(out)


def property_entry(ps, level, owner_note="", kind="property"):
    # "NAME property": its anchor (#NAME-property) is apart from the
    # description's headings (a "Circuit breaker" section beside a
    # circuit-breaker property).
    out = [f"{'#' * level} `{ps.name}` {kind}", ""]
    blurb = ps.blurb or ""
    out += [blurb + owner_note, ""] if blurb or owner_note else []
    out.append(f"- Type: {type_text(ps)}")
    if hasattr(ps, "minimum") and hasattr(ps, "maximum"):
        out.append(f"- Range: `{fmt_number(ps.minimum)}` to `{fmt_number(ps.maximum)}`")
    cls = getattr(ps, "enum_class", None) or getattr(ps, "flags_class", None)
    if cls is not None:
        out.append("- Values:")
        out += [f"  - `{nick}` ({val}): {desc}" for val, nick, desc in enum_values(cls)]
    # A read-only structure or object has no default worth saying.
    if ps.default_value is not None or int(ps.flags) & int(GObject.ParamFlags.WRITABLE):
        out.append(f"- Default: {fmt_default(ps)}")
    out.append(f"- Flags: {flags_text(ps)}")
    out.append("")
    return out


def own_properties(gtype, stop_types):
    """The properties of gtype that no type in stop_types declares, in
    declaration order."""
    return [ps for ps in GObject.list_properties(gtype)
            if ps.owner_type.name not in stop_types]


def structure_fields(st):
    return [(st.nth_field_name(i), GObject.type_name(st.get_field_type(st.nth_field_name(i))))
            for i in range(st.n_fields())]


# --- one element -------------------------------------------------------------

def hierarchy(gtype):
    chain = [gtype.name]
    while chain[-1] != "GObject":
        gtype = gtype.parent
        chain.append(gtype.name)
    return list(reversed(chain))


def signals_of(gtype):
    """(name, flags, return type, parameter types) of the signals that
    gtype and its ancestors below GstElement declare."""
    out = []
    t = gtype
    while t.name not in ("GstElement", "GstObject", "GObject"):
        for sid in GObject.signal_list_ids(t):
            q = GObject.signal_query(sid)
            out.append((q.signal_name, int(q.signal_flags), q.return_type.name,
                        [p.name for p in q.param_types]))
        t = t.parent
    return sorted(out)


def element_doc(factory, plugin):
    name = factory.get_name()
    gtype = factory.get_element_type()
    element = factory.create(None)
    lines_src, src_file = section_comment(name)
    short, body = section_markdown(lines_src, gtype.name)

    out = [f"<!-- Generated by scripts/gen_element_docs.py from the plugin and "
           f"{src_file or 'gst/'}: do not edit, regenerate (README.md here). -->",
           f"# {name}", ""]
    desc = factory.get_metadata(Gst.ELEMENT_METADATA_DESCRIPTION)
    out += [desc if desc.endswith((".", "!", "?")) else desc + ".", ""]
    if short:
        out += [short[0].upper() + short[1:], ""]
    rank = factory.get_rank()
    out += ["| | |", "|---|---|",
            f"| Long name | {factory.get_metadata(Gst.ELEMENT_METADATA_LONGNAME)} |",
            f"| Klass | `{factory.get_metadata(Gst.ELEMENT_METADATA_KLASS)}` |",
            f"| Rank | {RANKS.get(rank, 'custom')} ({rank}) |",
            f"| Author | {factory.get_metadata(Gst.ELEMENT_METADATA_AUTHOR)} |",
            f"| Plugin | `{plugin.get_name()}` ({os.path.basename(plugin.get_filename())}), "
            f"{plugin.get_license()}, source module `{plugin.get_source()}` |",
            f"| Type | {' → '.join(f'`{t}`' for t in hierarchy(gtype))} |"]
    ifaces = [i.name for i in GObject.type_interfaces(gtype)]
    out.append(f"| Interfaces | {', '.join(f'`{i}`' for i in ifaces) if ifaces else 'none'} |")
    out.append("")
    design = DESIGN_DOCS.get(name, f"{name}.md")
    if os.path.exists(os.path.join(ROOT, "docs", design)):
        out += [f"Design notes and measurements: [docs/{design}](../{design}).", ""]

    body_text = "\n".join(body)
    if body:
        out += ["## Description", ""] + body + [""]

    # Pad templates, sink pads first; the properties of our own pad types.
    out += ["## Pad templates", ""]
    templates = sorted(element.get_pad_template_list(),
                       key=lambda t: (t.direction != Gst.PadDirection.SINK, t.name_template))
    for t in templates:
        caps = t.get_property("caps")
        out += [f"### `{t.name_template}`", "",
                f"{t.direction.value_nick}, {t.presence.value_nick}", "", "```"]
        out += ["ANY"] if caps.is_any() else [caps.get_structure(i).to_string().rstrip(";")
                                              for i in range(caps.get_size())]
        out += ["```", ""]
        ptype = t.get_property("gtype")
        if ptype.name not in ("void", "GstPad") and GObject.type_is_a(ptype, Gst.Pad):
            props = own_properties(ptype, ("GObject", "GstObject", "GstPad"))
            if props:
                out += [f"Pads of this template are `{ptype.name}`, with the properties:", ""]
                for ps in props:
                    out += property_entry(ps, 4, kind="pad property")

    # Properties; a controller's own parameters go under that controller.
    props = own_properties(gtype, ("GObject", "GstObject"))
    controllers = []
    ctrl = next((p for p in props if p.name == "controller" and getattr(p, "enum_class", None)), None)
    if ctrl is not None:
        controllers = [(nick, desc) for _, nick, desc in enum_values(ctrl.enum_class)]
    per_ctrl = {nick: [p for p in props if p.name.startswith(nick + "-")] for nick, _ in controllers}
    params = {p.name for ps in per_ctrl.values() for p in ps}
    out += ["## Properties", ""]
    if params:
        out += ["Each controller's own parameters are under "
                "[Controller parameters](#controller-parameters).", ""]
    for ps in props:
        if ps.name in params:
            continue
        note = "" if ps.owner_type == gtype else f" (from `{ps.owner_type.name}`)"
        out += property_entry(ps, 3, note)
    if params:
        out += ["## Controller parameters", "",
                "The properties `<controller>-<parameter>` of each value of `controller`; "
                "they apply when that controller is selected.", ""]
        for nick, desc in controllers:
            out += [f"### {nick}", "", desc, ""]
            out += sum((property_entry(p, 4) for p in per_ctrl[nick]), []) or ["No parameters.", ""]

    # The stats structure of a new element: its name and fields.
    for ps in props:
        if ps.value_type.name == "GstStructure" and int(ps.flags) & int(GObject.ParamFlags.READABLE):
            st = element.get_property(ps.name)
            if st is None:
                continue
            meaning = (" Their meaning: [Statistics](#statistics)."
                       if "### Statistics" in body_text else "")
            out += [f"## Fields of `{ps.name}`", "",
                    f"On a new element with default properties, the structure `{st.get_name()}` "
                    f"has these fields.{meaning}", "",
                    "| field | type |", "|---|---|"]
            out += [f"| `{n}` | `{t}` |" for n, t in structure_fields(st)]
            out.append("")

    out += ["## Signals", ""]
    sigs = signals_of(gtype)
    if not sigs:
        out += ["None.", ""]
    for sname, flags, ret, params_ in sigs:
        kind = "action signal" if flags & GObject.SignalFlags.ACTION else "signal"
        args = ", ".join([f"{gtype.name} *object"] + [f"{p} arg{i}" for i, p in enumerate(params_)])
        out += [f"### `{sname}`", "", f"{kind}: `{ret} callback ({args}, gpointer user_data)`", ""]
    element.set_state(Gst.State.NULL)
    text = "\n".join(out).rstrip("\n") + "\n"
    # A SECTION comment naming a property the element no longer has (or a
    # heading that moved) would leave a dead link: an error, not a page.
    anchors = {slug(h) for h in re.findall(r"^#+ (.*)$", text, re.M)}
    dead = sorted(set(re.findall(r"\]\(#([^)]+)\)", text)) - anchors)
    if dead:
        sys.exit(f"gen_element_docs: {name}: links to nothing: "
                 + ", ".join("#" + d for d in dead)
                 + f" (a #{gtype.name}:NAME in {src_file} that is no property?)")
    return text


def slug(heading):
    """The anchor GitHub gives a Markdown heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def index_doc(plugin, factories, regen):
    out = ["<!-- Generated by scripts/gen_element_docs.py: do not edit, regenerate. -->",
           "# Element reference", "",
           f"Plugin `{plugin.get_name()}`: {plugin.get_description()}. Licence "
           f"{plugin.get_license()} (LGPL-2.1-or-later), source module `{plugin.get_source()}`.", "",
           "| element | long name | description |", "|---|---|---|"]
    for f in factories:
        out.append(f"| [{f.get_name()}]({f.get_name()}.md) "
                   f"| {f.get_metadata(Gst.ELEMENT_METADATA_LONGNAME)} "
                   f"| {f.get_metadata(Gst.ELEMENT_METADATA_DESCRIPTION)} |")
    out += ["",
            "These pages are generated from the built plugin (what `gst-inspect-1.0` shows: "
            "metadata, pad templates, properties, signals) and from each element's `SECTION` "
            "comment in `gst/` (description, examples, statistics fields). Do not edit them: "
            "change the element, rebuild and regenerate them all with", "",
            f"    {regen}", "",
            "The suite `docs` (`meson test -C build --suite docs`) fails while they are out of date."]
    return "\n".join(out) + "\n"


def generate(build, out_dir, regen):
    plugin_dir = os.path.join(build, "gst")
    with tempfile.TemporaryDirectory(prefix="gen-element-docs-") as tmp:
        init_gst(plugin_dir, os.path.join(tmp, "registry.bin"))
        reg = Gst.Registry.get()
        plugin = reg.find_plugin(PLUGIN)
        if plugin is None:
            sys.exit(f"gen_element_docs: no plugin '{PLUGIN}' in {plugin_dir}: build first "
                     "(ninja -C build)")
        factories = sorted((f for f in reg.get_feature_list_by_plugin(PLUGIN)
                            if isinstance(f, Gst.ElementFactory)), key=lambda f: f.get_name())
        if not factories:
            sys.exit(f"gen_element_docs: {plugin.get_filename()} registers no element")
        factories = [f.load() for f in factories]
        os.makedirs(out_dir, exist_ok=True)
        written = {}
        for f in factories:
            written[f"{f.get_name()}.md"] = element_doc(f, plugin)
        written["README.md"] = index_doc(plugin, factories, regen)
        for name, text in written.items():
            with open(os.path.join(out_dir, name), "w", encoding="utf-8") as fh:
                fh.write(text)
        return sorted(written)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--output", default=os.path.join(ROOT, "docs", "elements"))
    ap.add_argument("--check", action="store_true",
                    help="compare with --output instead of writing it; exit 1 if they differ")
    ap.add_argument("--sources", default=SOURCES, help=argparse.SUPPRESS)  # tests only
    args = ap.parse_args()
    globals()["SOURCES"] = args.sources
    build = os.path.abspath(args.build)

    # The command that regenerates, as the docs and --check print it.
    regen = "ninja -C build && scripts/gen_element_docs.py"
    if args.check:
        # Said as run from the source root.
        rel = os.path.relpath(build, ROOT)
        rel = build if rel.startswith(os.pardir) else rel
        here = f"ninja -C {shlex.quote(rel)} && scripts/gen_element_docs.py"
        if rel != "build":
            here += f" --build {shlex.quote(rel)}"
        if os.path.abspath(args.output) != os.path.join(ROOT, "docs", "elements"):
            here += f" --output {shlex.quote(args.output)}"
        with tempfile.TemporaryDirectory(prefix="element-docs-") as tmp:
            names = generate(build, tmp, regen)
            diffs = []
            for name in names:
                path = os.path.join(args.output, name)
                old = open(path, encoding="utf-8").read().splitlines(True) if os.path.exists(path) else []
                new = open(os.path.join(tmp, name), encoding="utf-8").read().splitlines(True)
                if old != new:
                    diffs += difflib.unified_diff(old, new, f"{path} (checked in)",
                                                  f"{name} (generated)")
            stale = sorted(set(n for n in os.listdir(args.output) if n.endswith(".md")) - set(names)) \
                if os.path.isdir(args.output) else []
            if diffs or stale:
                sys.stdout.writelines(diffs[:400])
                if len(diffs) > 400:
                    print(f"... {len(diffs) - 400} more diff lines")
                for n in stale:
                    print(f"{os.path.join(args.output, n)}: no such element any more (remove it)")
                print(f"\n{args.output} is out of date: regenerate it (from the source root) with"
                      f"\n\n    {here}\n\nand commit the result.")
                return 1
        print(f"{args.output}: up to date ({len(names)} files)")
        return 0
    names = generate(build, args.output, regen)
    for name in names:
        print(os.path.join(args.output, name))
    # Pages of elements that are gone (only generated ones are removed).
    for name in sorted(set(os.listdir(args.output)) - set(names)):
        path = os.path.join(args.output, name)
        if name.endswith(".md"):
            with open(path, encoding="utf-8") as f:
                if f.readline().startswith("<!-- Generated by scripts/gen_element_docs.py"):
                    os.unlink(path)
                    print(f"removed {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
