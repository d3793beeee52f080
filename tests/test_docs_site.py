"""The documentation site builds with the real mkdocs, strictly: a warning (a page left out of
the nav, a link to a page or an anchor that does not exist) fails the build; and every relative
link of the README (read on a forge, outside the site) reaches a file, and an anchor in it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

README = REPO / "README.md"


def build(root: Path, site: Path) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` of root/mkdocs.yml into site (never -q: it hides the warnings
    that --strict counts, and the build then passes)."""
    try:
        import mkdocs  # noqa: F401
    except ImportError:
        pytest.fail("mkdocs is not installed: pip install -e '.[test]' (make setup does)")
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(root / "mkdocs.yml"),
                           "-d", str(site)], capture_output=True, text=True, timeout=300, cwd=root)


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path):
    res = build(REPO, tmp_path / "site")
    assert res.returncode == 0, res.stderr
    assert "WARNING" not in res.stderr, res.stderr
    pages = {p.relative_to(REPO / "docs").with_suffix(".html") for p in (REPO / "docs").rglob("*.md")}
    assert pages and all((tmp_path / "site" / p).is_file() for p in pages), pages
    assert (tmp_path / "site" / "report.png").is_file()


@pytest.mark.slow
def test_a_broken_link_or_anchor_fails_the_build(tmp_path):
    """The strict build really checks links: a copy of the site with one bad anchor and one
    missing page fails, naming both."""
    shutil.copytree(REPO / "docs", tmp_path / "docs")
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    with open(tmp_path / "docs" / "index.md", "a") as f:
        f.write("\nSee [why](commands/why.md#no-such-anchor) and [gone](no-such-page.md).\n")
    res = build(tmp_path, tmp_path / "site")
    assert res.returncode != 0
    assert "no-such-anchor" in res.stderr and "no-such-page.md" in res.stderr, res.stderr


# --- the README's links, as a forge renders them ---------------------------------------------

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def links(text: str) -> list[str]:
    """Every markdown link target outside fenced code and inline code."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            out += LINK.findall(re.sub(r"`[^`]*`", "", line))
    return out


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped (hyphens and
    underscores kept), each space a hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading: its text
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    out, seen, fenced = set(), {}, False
    for line in page.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"#{1,6} (.+)", line)):
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    return out


def test_slug_is_githubs():
    assert slug("The target grammar") == "the-target-grammar"
    assert slug("`importprof startup` — interpreter start-up") == "importprof-startup--interpreter-start-up"
    assert slug("What site costs, and [why](x.md)") == "what-site-costs-and-why"


def test_every_relative_link_of_the_readme_resolves():
    found = [t for t in links(README.read_text()) if not re.match(r"[a-z]+:", t)]
    assert any(t.startswith("docs/") for t in found), found
    bad = []
    for target in found:
        path, _, anchor = target.partition("#")
        page = (README.parent / path).resolve() if path else README
        if not page.exists():
            bad.append(f"{target}: no such file")
        elif anchor and anchor not in anchors(page):
            bad.append(f"{target}: no heading #{anchor} in {page.relative_to(REPO)}")
    assert not bad, "\n".join(bad)


def test_every_docs_page_is_linked_from_the_readme():
    """The front door names the whole site: each page is one click away."""
    linked = {(README.parent / t.partition("#")[0]).resolve() for t in links(README.read_text())}
    pages = {p.resolve() for p in (REPO / "docs").rglob("*.md")}
    assert not pages - linked, sorted(str(p.relative_to(REPO)) for p in pages - linked)
