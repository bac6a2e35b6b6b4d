"""Rewrites one generated section of a Markdown file (docs/results.md,
docs/encoders.md) between its markers, `<!-- SECTION:begin -->` and
`<!-- SECTION:end -->`, leaving the rest as it is; a file without them gets
the section appended, under `## TITLE` when one is given, and a file that
does not exist yet (its directory too) is created with the section alone."""

import os


def replace_section(path, section, lines, title=None):
    begin, end = f"<!-- {section}:begin -->", f"<!-- {section}:end -->"
    text = ""
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            text = f.read()
    block = "\n".join([begin, ""] + lines + [end])
    if begin in text and end in text:
        text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        head = text.rstrip("\n")
        # A new or empty file starts with the section, not blank lines.
        text = (head + "\n\n" if head else "") + (f"## {title}\n\n" if title else "") + block + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
