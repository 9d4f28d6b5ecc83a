#!/usr/bin/env python3
"""The documentation's links lead to files of the repository: every relative
link of README.md, docs/, bench/README.md, tests/README.md and
formats/FORMAT.md names a file that exists, inside the repository (a link out
of it, such as ../shared/..., would be broken for every reader of a clone),
and an anchor of a page must be one of its headings.

    links_test.py SOURCE_DIR
"""
import os
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"`[^`]*`")


def anchors_of(path):
    """GitHub's anchors of a Markdown file's headings."""
    out = set()
    with open(path) as f:
        for line in f:
            m = re.match(r"#+\s+(.*)", line)
            if m:
                a = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
                out.add(a)
    return out


def pages(root):
    yield os.path.join(root, "README.md")
    yield os.path.join(root, "bench", "README.md")
    yield os.path.join(root, "tests", "README.md")
    yield os.path.join(root, "formats", "FORMAT.md")
    for dirpath, _, files in os.walk(os.path.join(root, "docs")):
        for name in files:
            if name.endswith(".md"):
                yield os.path.join(dirpath, name)


def main():
    root = os.path.realpath(sys.argv[1])
    problems = []
    for page in pages(root):
        in_code = False
        with open(page) as f:
            for number, line in enumerate(f, 1):
                if line.startswith("```"):
                    in_code = not in_code
                if in_code or line.startswith("    "):
                    continue
                for m in LINK.finditer(CODE_SPAN.sub("", line)):
                    target = m.group(1)
                    if re.match(r"[a-z]+:", target):
                        continue  # http:, https:, mailto:
                    path, _, anchor = target.partition("#")
                    where = f"{os.path.relpath(page, root)}:{number}"
                    full = os.path.realpath(os.path.join(os.path.dirname(page), path)) if path else page
                    if not full.startswith(root + os.sep) and full != root:
                        problems.append(f"{where}: '{target}' leads out of the repository")
                    elif not os.path.exists(full):
                        problems.append(f"{where}: '{target}' does not exist")
                    elif anchor and full.endswith(".md") and anchor not in anchors_of(full):
                        problems.append(f"{where}: '{target}': no heading has the anchor #{anchor}")
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        return 1
    print("every documentation link leads to a file of the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())
