"""`lazy --apply` on 3.15 reaches a fixed point in one run: the edited program is profiled again
until a pass changes nothing, and a line where a use of a lazy name loads its module (no import
statement there) is never chosen. A second --apply on the tree it leaves changes nothing."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from profiler.compose.lazy_apply_select import NOT_A_STATEMENT
from tests._interpreters import pyenv_python
from tests.conftest import write_tree

pytestmark = pytest.mark.slow

# vlib (outside the folder edited) imports vcostly and never uses it at start-up; mypkg/uses.py
# imports vlib and calls it at its top level. Made lazy, `import vlib` is loaded at once by that
# call (uses.py:3), and vcostly with it: the profile of the edited program charges vcostly to
# line 3, which is no import statement.
PROJECT = {
    "app.py": """\
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(here, "src"), os.path.join(here, "vendor")]
import mypkg.main

print(mypkg.main.VALUE)
""",
    "vendor/vlib.py": "import vcostly\n\n\ndef f():\n    return 1\n",
    "vendor/vcostly.py": "N = sum(i * i for i in range(400000))\n",
    "src/mypkg/__init__.py": "",
    "src/mypkg/main.py": "import mypkg.uses\nimport mypkg.late\n\nVALUE = mypkg.uses.VALUE\n",
    "src/mypkg/uses.py": "import vlib\n\nVALUE = vlib.f()\n",
    "src/mypkg/late.py": "import vcostly\n\n\ndef g():\n    return vcostly.N\n",
}
FAST = ("--runs", "3", "--warmup", "1", "--profile-runs", "1", "--min-ms", "0.3")


def _digest(root: Path) -> dict:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_use_site_is_never_chosen_and_a_second_apply_changes_nothing(tmp_path, cli):
    py315 = pyenv_python("3.15")
    root = write_tree(tmp_path / "demo", PROJECT)
    first = cli("lazy", "--python", py315, "--apply", "src", *FAST, "--format", "json", "app.py", cwd=root)
    assert first.returncode == 0, first
    doc = first.json()
    sites = {s["site"].rpartition("mypkg/")[2]: s for s in doc["statements"]}
    assert sites["uses.py:1"]["decision"] == "applied"  # import vlib, charged vcostly's cost
    assert "late.py:1" in {f"{f['path'].rpartition('/')[2]}:{ln}" for f in doc["files"] for ln in f["lines"]}
    # the later pass saw vcostly loaded at uses.py:3 (vlib.f() runs there): reported, not chosen
    use = sites.get("uses.py:3")
    assert use is not None and use["decision"] == "skipped" and use["why"] == NOT_A_STATEMENT, doc["statements"]
    assert not any("cap reached" in n for n in doc["notes"])
    was = _digest(root)
    second = cli("lazy", "--python", py315, "--apply", "src", *FAST, "--format", "json", "app.py", cwd=root)
    assert second.returncode == 0, second
    assert _digest(root) == was
    assert {f["status"] for f in second.json()["files"]} <= {"unchanged"}
    assert (root / "src/mypkg/uses.py").read_text() == '__lazy_modules__ = ["vlib"]\n' + PROJECT["src/mypkg/uses.py"]
