"""`importprof lazy --apply DIR` end to end on a real Python 3.15 (PEP 810): a fixture project
whose imports have side effects (a plugin registering itself, an atexit handler, a codec
registered and used only by another subcommand, a module used at top level, a registration
whose result is kept, so the AST cannot see it) keeps those eager and makes the costly rest
lazy; the output stays identical before and after on 3.15 and on the oldest interpreter the
project allows; a second run changes nothing; bad inputs touch nothing. Real interpreters, real
runs, no timing thresholds."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest

from tests._interpreters import pyenv_python
from tests._signals import start_importprof
from tests.conftest import assert_one_line_error, write_tree

pytestmark = pytest.mark.slow

PROJECT = {
    "pyproject.toml": '[project]\nname = "demo"\nrequires-python = ">=3.9"\n',
    "app.py": """\
\"\"\"A program whose imports have side effects.\"\"\"
import sys
import mylib.plugin_hello  # registers itself into mylib.registry
import mylib.registry
import mylib.goodbye  # prints at exit
import mylib.rot  # registers a codec that `app.py encode` uses
import mylib.config
import mylib.fmt
import mylib.report
import decimal

TITLE = mylib.config.NAME.upper()


def money():
    return decimal.Decimal("1.10")


def format_name():
    return mylib.fmt.FORMAT


command = sys.argv[1] if len(sys.argv) > 1 else ""
if command == "report":
    print(mylib.report.render({"a": 1}))
elif command == "encode":
    print("abc".encode("myrot"))
elif command == "list":
    import mylib.formats
    print("formats:", ",".join(mylib.formats.names()))
print(TITLE, "plugins:", ",".join(mylib.registry.names()))
""",
    "mylib/__init__.py": "",
    "mylib/registry.py": "_NAMES = []\n\n\ndef register(name):\n    _NAMES.append(name)\n\n\ndef names():\n    return list(_NAMES)\n",
    "mylib/formats.py": "_NAMES = []\n\n\ndef add(name):\n    _NAMES.append(name)\n    return name\n\n\ndef names():\n    return list(_NAMES)\n",
    "mylib/plugin_hello.py": 'from mylib.registry import register\n\nregister("hello")\n',
    "mylib/goodbye.py": 'import atexit\n\natexit.register(print, "goodbye")\n',
    "mylib/rot.py": """\
import codecs


def _search(name):
    if name == "myrot":
        return codecs.CodecInfo(lambda s, e="strict": (s[::-1].encode(), len(s)),
                                lambda b, e="strict": (bytes(b)[::-1].decode(), len(b)), name="myrot")
    return None


codecs.register(_search)
""",
    "mylib/config.py": 'import decimal\nNAME = "demo"\n\n\ndef price():\n    return decimal.Decimal(1)\n',
    "mylib/fmt.py": 'import difflib\nimport pprint\nfrom mylib.formats import add\n\nFORMAT = add("fmt")\n\n\ndef show(x):\n    return pprint.pformat(x) + "".join(difflib.ndiff(["a"], ["b"]))\n',
    "mylib/report.py": """\
import asyncio
import email.parser
import xml.dom.minidom


def render(data):
    return xml.dom.minidom.parseString("<a/>").toxml() + str(data)
""",
}
FAST = ("--runs", "3", "--warmup", "1", "--profile-runs", "1", "--min-ms", "0.3")
VERIFY = ("--verify-with", "{python} app.py encode", "--verify-with", "{python} app.py list")


def _digest(root: Path) -> dict:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _outputs(py: str, root: Path) -> list:
    return [subprocess.run([py, "app.py", *args], cwd=root, capture_output=True, text=True)
            for args in ((), ("encode",), ("list",), ("report",))]


def py315_path() -> str:
    return pyenv_python("3.15")


@pytest.fixture(scope="module")
def py315():
    return py315_path()


@pytest.fixture(scope="module")
def applied(tmp_path_factory, cli, py315):
    """PROJECT applied once; the tree had its 3.15 .pyc (PYTHONDONTWRITEBYTECODE=1, as in many
    containers: compiled ahead, as a wheel install compiles)."""
    root = write_tree(tmp_path_factory.mktemp("lazyapply") / "demo", PROJECT)
    original = {p: (root / p).read_bytes() for p in PROJECT}
    subprocess.run([py315, "-m", "compileall", "-q", str(root)], check=True,
                   env={k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"})
    assert all(_pyc_valid(py315, root).values())
    before = [(r.stdout, r.stderr, r.returncode) for r in _outputs(py315, root)]
    res = cli("lazy", "--python", py315, "--apply", ".", *FAST, *VERIFY, "-o", "apply.json", "app.py", cwd=root,
              env={"PYTHONDONTWRITEBYTECODE": "1"})
    assert res.returncode == 0, res
    doc = json.loads((root / "apply.json").read_text())
    (root / "apply.json").unlink()
    return root, original, before, doc, res


def _decisions(doc) -> dict:
    return {s["site"].rpartition(":")[0].rpartition("/")[2] + ":" + s["site"].rpartition(":")[2]: s for s in doc["statements"]}


def test_side_effect_imports_stay_eager_and_the_costly_rest_is_applied(applied):
    root, original, _, doc, _ = applied
    app = (root / "app.py").read_text()
    # exactly the two costly imports without side effects are lazy, declared before the first
    assert '__lazy_modules__ = ["mylib.report", "decimal"]\nimport mylib.report\n' in app
    assert app.replace('__lazy_modules__ = ["mylib.report", "decimal"]\n', "") == original["app.py"].decode()
    # decimal is first imported by mylib.config (used at top level, so it runs): that statement
    # is charged the saving, and app.py's own `import decimal` goes lazy with it, or it would
    # load decimal itself
    config = (root / "mylib" / "config.py").read_text()
    assert config == '__lazy_modules__ = ["decimal"]\n' + original["mylib/config.py"].decode()
    d = _decisions(doc)
    assert d["app.py:9"]["decision"] == d["config.py:1"]["decision"] == "applied"
    assert "app.py:10" not in d
    assert d["app.py:3"]["decision"] == "eager" and d["app.py:3"]["measured"].startswith("differs")  # plugin
    assert d["app.py:5"]["decision"] == "eager" and d["app.py:5"]["measured"].startswith("differs")  # atexit
    # the codec: identical in this run's output, kept eager by its static reason, the disagreement said
    assert d["app.py:6"]["decision"] == "eager" and d["app.py:6"]["measured"] == "identical"
    assert any("codec" in s["text"] for s in d["app.py:6"]["static"]) and d["app.py:6"]["disagreement"]
    # the registration the AST cannot see: measured identical, taken back by --verify-with app.py list
    assert d["app.py:8"]["measured"] == "differs in verification" and d["app.py:8"]["decision"] == "eager"
    assert doc["bisect_runs"] >= 1
    # the module used at top level saves nothing: never a candidate, never edited
    assert "app.py:7" not in d
    for name, text in original.items():
        if name not in ("app.py", "mylib/config.py"):
            assert (root / name).read_bytes() == text, name
    # on 3.15 the deferred modules are really never imported now
    log = subprocess.run([py315_path(), "-X", "importtime", "app.py"], cwd=root, capture_output=True, text=True).stderr
    imported = {ln.rsplit("|", 1)[-1].strip() for ln in log.splitlines() if ln.startswith("import time:")}
    assert "mylib.config" in imported and not {"decimal", "mylib.report", "asyncio"} & imported


def test_verified_identical_before_and_after_on_315_and_the_oldest(applied, py315):
    root, _, before, doc, _ = applied
    assert [(r.stdout, r.stderr, r.returncode) for r in _outputs(py315, root)] == before
    pythons = {c["python"] for c in doc["checks"]}
    assert py315 in pythons and len(pythons) == 2  # 3.15 and the oldest requires-python allows
    assert all(c["identical"] for c in doc["checks"])
    assert {c["command"] for c in doc["checks"]} == {"app.py", "{python} app.py encode", "{python} app.py list"}


def test_the_proof_shows_both_interpreters_before_and_after(applied, py315):
    _, _, _, doc, res = applied
    rows = {r["python_version"][:4]: r for r in doc["proof"]}
    assert set(rows) == {"3.15", "3.9."}
    lazy, inert = rows["3.15"], rows["3.9."]
    assert lazy["lazy"] is True and inert["lazy"] is False
    assert lazy["output_identical"] and inert["output_identical"]
    # on 3.15 the deferred modules are really not loaded; on 3.9 the declaration is inert
    assert lazy["after"]["modules"] < lazy["before"]["modules"]
    assert inert["after"]["modules"] == inert["before"]["modules"]
    assert lazy["before"]["unreified"] is not None and inert["before"]["unreified"] is None
    for side in ("before", "after"):
        assert lazy[side]["mean_s"] > 0 and lazy[side]["import_us"] > 0
    assert doc["predicted_us"] > 0


def test_a_second_run_changes_nothing(applied, cli, py315):
    """A second --apply changes no byte (the refreshed .pyc included) and no time."""
    root, _, _, _, _ = applied
    was = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(root.rglob("*")) if p.is_file()}
    res = cli("lazy", "--python", py315, "--apply", ".", *FAST, *VERIFY, "--format", "json", "app.py", cwd=root,
              env={"PYTHONDONTWRITEBYTECODE": "1"})
    assert res.returncode == 0, res
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(root.rglob("*")) if p.is_file()} == was
    assert {f["status"] for f in res.json()["files"]} <= {"unchanged"}
    assert res.json()["edited_files"] == 0


def test_diff_prints_a_unified_diff_and_writes_nothing(tmp_path, cli, py315):
    root = write_tree(tmp_path / "demo", PROJECT)
    was = _digest(root)
    res = cli("lazy", "--python", py315, "--apply", ".", "--diff", *FAST, "app.py", cwd=root)
    assert res.returncode == 0, res
    assert _digest(root) == was
    assert res.stdout.startswith("--- a/app.py\n+++ b/app.py\n")
    # mylib.formats: app.py imports it again in a module-level branch, so it goes lazy with mylib.fmt
    assert '+__lazy_modules__ = ["mylib.fmt", "mylib.report", "decimal", "mylib.formats"]\n import mylib.fmt\n' in res.stdout
    assert '--- a/mylib/config.py\n+++ b/mylib/config.py\n' in res.stdout
    patched = subprocess.run(["patch", "-p1", "--dry-run"], input=res.stdout, cwd=root, capture_output=True, text=True)
    assert patched.returncode == 0, patched.stderr


def test_filter_out_keeps_the_must_stay_eager_set(tmp_path, cli, py315):
    root = write_tree(tmp_path / "demo", PROJECT)
    was = _digest(root)
    out = tmp_path / "sitecustomize.py"
    res = cli("lazy", "--python", py315, "--filter-out", str(out), *FAST, "--format", "json", "app.py", cwd=root)
    assert res.returncode == 0, res
    doc = res.json()
    assert {"mylib.plugin_hello", "mylib.goodbye"} <= set(doc["filter_eager"])
    assert doc["checks"] and all(c["identical"] for c in doc["checks"])
    assert _digest(root) == was
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    got = subprocess.run([py315, "-X", "lazy_imports=all", "app.py"], cwd=root, env=env, capture_output=True, text=True)
    plain = subprocess.run([py315, "app.py"], cwd=root, capture_output=True, text=True)
    assert (got.stdout, got.returncode) == (plain.stdout, plain.returncode) == ("DEMO plugins: hello\ngoodbye\n", 0)


VERSIONED = {
    "app.py": ("import sys\nimport reg.plugin_a\nif sys.version_info >= (3, 15):\n    import reg.plugin_b\nimport reg\n"
               "print('PEP 810' if sys.version_info >= (3, 15) else 'no PEP 810', 'plugins', reg.NAMES)\n"),
    "reg/__init__.py": "NAMES = []\n",
    "reg/plugin_a.py": "import reg\nreg.NAMES.append('a')\n",
    "reg/plugin_b.py": "import reg\nreg.NAMES.append('b')\n",  # imported on 3.15 only: only the bare check finds it
}


def test_filter_out_on_311_is_lazys_bare_check_on_the_provisioned_315(tmp_path, cli, py315):
    """One mechanism (issue 41): on 3.11, `lazy` checks its set on the provisioned 3.15 bare
    (this program prints its version, so against 3.15's own bare eager run, said in
    `plain_check.reference`), and `--filter-out` writes that set with that check as its row:
    no check of its own."""
    py311 = pyenv_python("3.11")
    root = write_tree(tmp_path / "demo", VERSIONED)
    out = tmp_path / "sitecustomize.py"
    lazy = cli("lazy", "--python", py311, *FAST[:6], "--format", "json", "app.py", cwd=root)
    assert lazy.returncode == 0, lazy
    plain = lazy.json()["plain_check"]
    assert plain["runs"] == 3 and plain["identical"] is True and plain["python"] == py315
    assert {"reg.plugin_a", "reg.plugin_b"} <= set(plain["eager"]) and "differs from 3.11" in plain["reference"]
    assert {m["name"] for m in lazy.json()["must_stay_eager"]} == set(plain["eager"])  # one set: the report's is the bare check's
    res = cli("lazy", "--python", py311, "--filter-out", str(out), *FAST, "--format", "json", "app.py", cwd=root)
    assert res.returncode == 0, res
    doc = res.json()
    assert doc["filter_eager"] == sorted(plain["eager"])
    assert len(doc["checks"]) == 1 and doc["checks"][0]["identical"] is True
    assert "the bare check of importprof lazy, 3 runs, against the bare eager run on 3.15" in doc["checks"][0]["command"]
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    got = subprocess.run([py315, "-X", "lazy_imports=all", "app.py"], cwd=root, env=env, capture_output=True, text=True)
    bare = subprocess.run([py315, "app.py"], cwd=root, capture_output=True, text=True)
    assert (got.stdout, got.returncode) == (bare.stdout, bare.returncode) == ("PEP 810 plugins ['a', 'b']\n", 0)


# ------------------------------------------------------------------ bad inputs touch nothing


@pytest.fixture
def project(tmp_path):
    return write_tree(tmp_path / "demo", PROJECT)


def test_a_missing_folder(project, cli, py315):
    res = cli("lazy", "--python", py315, "--apply", "nowhere", *FAST, "app.py", cwd=project)
    assert_one_line_error(res, 2, "nowhere: no such folder")


def test_site_packages_is_refused(tmp_path, cli, py315):
    site = write_tree(tmp_path / "lib" / "site-packages", {"pkg/__init__.py": "import json\n"})
    was = _digest(site)
    res = cli("lazy", "--python", py315, "--apply", str(site), *FAST, "-c", "pass", cwd=tmp_path)
    assert_one_line_error(res, 2, "inside site-packages")
    assert _digest(site) == was


def test_the_stdlib_is_refused(project, cli, py315):
    stdlib = subprocess.run([py315, "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"],
                            capture_output=True, text=True, check=True).stdout.strip()
    res = cli("lazy", "--python", py315, "--apply", stdlib, *FAST, "app.py", cwd=project)
    assert_one_line_error(res, 2, "holds the standard library")


def test_a_folder_the_target_does_not_import(project, tmp_path, cli, py315):
    other = write_tree(tmp_path / "other", {"lib.py": "import json\n"})
    was, was_project = _digest(other), _digest(project)
    res = cli("lazy", "--python", py315, "--apply", str(other), *FAST, "app.py", cwd=project)
    assert_one_line_error(res, 2, "the target imports nothing from this folder")
    assert _digest(other) == was and _digest(project) == was_project


def test_keyword_style_needs_requires_python_315(project, cli, py315):
    res = cli("lazy", "--python", py315, "--apply", ".", "--style", "keyword", *FAST, "app.py", cwd=project)
    assert_one_line_error(res, 2, "requires-python '>=3.9'")
    assert "use --style lazy-modules" in res.stderr


def test_a_file_that_does_not_parse_here_is_left_alone(tmp_path, cli, py315):
    """PEP 798 unpacking in a comprehension: 3.15 runs it, importprof's own interpreter cannot
    parse it, so that file is left as it is (one line saying so) and the others are still edited."""
    import sys

    if sys.version_info >= (3, 15):
        pytest.skip("importprof's own interpreter parses 3.15 syntax: no file here fails to parse")
    files = dict(PROJECT)
    files["app.py"] += "FLAT = [*x for x in [[1], [2]]]\n"
    files["mylib/config.py"] = 'import decimal\nNAME = "demo"\n\n\ndef price():\n    return decimal.Decimal(1)\n'
    root = write_tree(tmp_path / "demo", files)
    was = _digest(root)
    res = cli("lazy", "--python", py315, "--apply", ".", "--diff", *FAST, "--format", "json", "app.py", cwd=root)
    assert res.returncode == 0, res
    doc = res.json()
    status = {f["path"].rpartition("/")[2]: f["status"] for f in doc["files"]}
    assert status["app.py"].startswith("does not parse") and status["config.py"] == "would edit"
    assert [ln for ln in res.stderr.splitlines() if "app.py: does not parse" in ln]
    assert "app.py" not in doc["diff"] and '+__lazy_modules__ = ["decimal"]' in doc["diff"]
    assert _digest(root) == was


def test_a_read_only_file_is_left_alone(tmp_path, cli, py315):
    from tests._mounts import _mount, _umount

    mnt = tmp_path / "ro"
    _mount(str(mnt), "size=1m")
    try:
        write_tree(mnt, PROJECT)
        r = subprocess.run(["mount", "-o", "remount,ro", str(mnt)], capture_output=True, text=True)
        if r.returncode != 0:
            pytest.skip(f"remount read-only denied here: {r.stderr.strip()}")
        was = _digest(mnt)
        res = cli("lazy", "--python", py315, "--apply", ".", *FAST, "--format", "json", "app.py", cwd=mnt)
        assert res.returncode == 0, res
        doc = res.json()
        assert {f["status"] for f in doc["files"]} == {"read-only"}
        assert all(s["decision"] == "skipped" for s in doc["statements"])
        assert any("read-only: left as it is" in line for line in res.stderr.splitlines())
        assert _digest(mnt) == was
    finally:
        _umount(str(mnt))


def test_without_a_315_it_says_so_and_shows_the_prediction(project, tmp_path, cli):
    """A machine with no 3.15: PYENV_ROOT names an empty pyenv, the target runs on 3.11 (the
    lazy measurement emulates PEP 810 there). The edit is written (inert on 3.11), verified, and
    the saving shown is the measurement's prediction."""
    py311 = pyenv_python("3.11")
    empty = tmp_path / "no-pyenv"
    (empty / "versions").mkdir(parents=True)
    res = cli("lazy", "--python", py311, "--apply", ".", *FAST, "--format", "json", "app.py", cwd=project,
              env={"PYENV_ROOT": str(empty)})
    assert res.returncode == 0, res
    doc = res.json()
    note = next(n for n in doc["notes"] if n.startswith("no Python 3.15 here"))
    assert f"{doc['predicted_us'] / 1000:.1f} ms" in note and doc["predicted_us"] > 0
    assert [r["lazy"] for r in doc["proof"]] == [False]
    assert doc["proof"][0]["output_identical"] and all(c["identical"] for c in doc["checks"])
    assert "__lazy_modules__" in (project / "app.py").read_text()


def test_keyword_style_where_requires_python_allows_it(tmp_path, cli, py315):
    files = dict(PROJECT)
    files["pyproject.toml"] = '[project]\nname = "demo"\nrequires-python = ">=3.15"\n'
    root = write_tree(tmp_path / "demo", files)
    res = cli("lazy", "--python", py315, "--apply", ".", "--style", "keyword", *FAST, "--format", "json", "app.py", cwd=root)
    assert res.returncode == 0, res
    app = (root / "app.py").read_text()
    assert "lazy import mylib.report\n" in app and "lazy import decimal\n" in app and "__lazy_modules__" not in app
    assert (root / "mylib" / "config.py").read_text().startswith("lazy import decimal\n")
    doc = res.json()
    assert [r["python_version"][:4] for r in doc["proof"]] == ["3.15"]  # no older interpreter is the project's
    assert doc["proof"][0]["output_identical"] and all(c["identical"] for c in doc["checks"])


# ------------------------------------------------------------------ what --apply may write (issue 36)


def test_links_out_of_the_tree_and_hard_links_are_left_alone(tmp_path, cli, py315):
    """mylib/config.py is a symlink to a shared checkout outside DIR, mylib/fmt.py has a second
    hard link outside DIR: both are reported and left alone (the shared file is not written,
    the hard link not split); a link that stays inside DIR is followed; the rest is edited."""
    root = write_tree(tmp_path / "demo", PROJECT)
    shared = write_tree(tmp_path / "shared", {"config.py": PROJECT["mylib/config.py"]})
    (root / "mylib" / "config.py").unlink()
    (root / "mylib" / "config.py").symlink_to(shared / "config.py")
    os.link(root / "mylib" / "fmt.py", tmp_path / "fmt-elsewhere.py")
    was_shared, was_fmt = (shared / "config.py").read_bytes(), (root / "mylib" / "fmt.py").read_bytes()
    res = cli("lazy", "--python", py315, "--apply", ".", *FAST, "--format", "json", "app.py", cwd=root)
    assert res.returncode == 0, res
    doc = res.json()
    status = {os.path.relpath(f["path"], root): f["status"] for f in doc["files"]}
    assert status["mylib/config.py"] == f"leads to {os.path.realpath(shared / 'config.py')}, outside {os.path.realpath(root)}"
    assert [ln for ln in res.stderr.splitlines() if "mylib/config.py: leads to" in ln and ln.endswith("left as it is")]
    assert (shared / "config.py").read_bytes() == was_shared and (root / "mylib" / "config.py").is_symlink()
    if "mylib/fmt.py" in status:
        assert status["mylib/fmt.py"].startswith("has 2 hard links")
    assert (root / "mylib" / "fmt.py").read_bytes() == was_fmt == (tmp_path / "fmt-elsewhere.py").read_bytes()
    assert os.stat(root / "mylib" / "fmt.py").st_nlink == 2
    assert status["app.py"] == "edited" and "__lazy_modules__" in (root / "app.py").read_text()
    assert not [p for p in root.rglob("*") if ".importprof-" in p.name]


def test_a_symlinked_dir_is_edited_as_named(tmp_path, cli, py315):
    root = write_tree(tmp_path / "demo", PROJECT)
    (tmp_path / "link").symlink_to(root)
    res = cli("lazy", "--python", py315, "--apply", str(tmp_path / "link"), *FAST, "--format", "json", "app.py",
              cwd=tmp_path / "link")
    assert res.returncode == 0, res
    assert res.json()["edited_files"] >= 1 and "__lazy_modules__" in (root / "app.py").read_text()
    assert (tmp_path / "link").is_symlink()


def test_a_read_only_file_by_its_mode_is_left_alone_even_for_root(tmp_path, cli, py315):
    root = write_tree(tmp_path / "demo", PROJECT)
    (root / "mylib" / "config.py").chmod(0o444)
    was = (root / "mylib" / "config.py").read_bytes()
    res = cli("lazy", "--python", py315, "--apply", ".", *FAST, "--format", "json", "app.py", cwd=root)
    assert res.returncode == 0, res
    status = {os.path.relpath(f["path"], root): f["status"] for f in res.json()["files"]}
    assert status["mylib/config.py"] == "read-only"
    assert (root / "mylib" / "config.py").read_bytes() == was
    assert stat.S_IMODE((root / "mylib" / "config.py").stat().st_mode) == 0o444


# ------------------------------------------------------------------ the tree as left runs at full speed (issue 32)


def _pyc_valid(py: str, root: Path) -> dict:
    """source -> does `py` load its cached bytecode as it is (True) or compile it again?"""
    code = ("import importlib.machinery, importlib.util, os, sys, json\n"
            "out = {}\n"
            "for d, _, fs in os.walk(sys.argv[1]):\n"
            "    for f in fs:\n"
            "        if not f.endswith('.py'): continue\n"
            "        src = os.path.join(d, f); c = importlib.util.cache_from_source(src)\n"
            "        if not os.path.exists(c): continue\n"
            "        loader = importlib.machinery.SourceFileLoader('m', src)\n"
            "        calls = []\n"
            "        orig = loader.source_to_code\n"
            "        loader.source_to_code = lambda *a, **k: (calls.append(1), orig(*a, **k))[1]\n"
            "        loader.get_code('m')\n"
            "        out[os.path.relpath(src, sys.argv[1])] = not calls\n"
            "print(json.dumps(out))\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    return json.loads(subprocess.run([py, "-c", code, str(root)], env=env, capture_output=True, text=True,
                                     check=True).stdout)


def test_the_edited_files_bytecode_is_refreshed(applied, py315):
    """As left, every .pyc of the tree is valid for the edited source; the summary counts what
    was written (the second run: test_a_second_run_changes_nothing)."""
    root, _, _, doc, res = applied
    valid = _pyc_valid(py315, root)
    edited = [os.path.relpath(f["path"], root) for f in doc["files"] if f["status"] == "edited"]
    assert edited and all(valid[p] for p in edited), valid
    assert all(valid.values()), valid
    assert doc["edited_files"] == len(edited) and doc["lazy_imports"] >= doc["edited_files"] and doc["lazy_modules"] >= 1
    n, m, f = doc["lazy_imports"], doc["lazy_modules"], doc["edited_files"]
    assert f"{n} import{'s' if n != 1 else ''} of {m} module{'s' if m != 1 else ''} made lazy in {f} file" in res.stdout


# ------------------------------------------------------------------ Ctrl-C (issue 36)


def _start(root: Path, py315: str) -> subprocess.Popen:
    return start_importprof(["lazy", "--python", py315, "--apply", ".", *FAST, *VERIFY, "app.py"],
                            cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _error_lines(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.startswith("importprof: error:")]


def test_ctrl_c_before_any_write_says_no_file_changed(tmp_path, py315):
    root = write_tree(tmp_path / "demo", PROJECT)
    was = _digest(root)
    proc = _start(root, py315)
    time.sleep(2.5)  # the probe and the lazy measurement: nothing written yet
    assert proc.poll() is None
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert _error_lines(err) == ["importprof: error: interrupted: no file changed"], err
    assert not [ln for ln in err.splitlines() if ln.startswith("Traceback")]
    assert _digest(root) == was


def test_ctrl_c_once_files_are_written_leaves_no_file_half_written(tmp_path, py315):
    """SIGINT as soon as the first edited file appears: every file is put back (the line says
    so), or, when the proof had begun, the verified edit stays (the line says that); either way
    each file is whole (original or edited, and it compiles) and no temporary file is left."""
    root = write_tree(tmp_path / "demo", PROJECT)
    was = _digest(root)
    original = (root / "app.py").read_bytes()
    proc = _start(root, py315)
    deadline = time.monotonic() + 300
    while (root / "app.py").read_bytes() == original and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, proc.communicate()
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    lines = _error_lines(err)
    assert len(lines) == 1, err
    if "every file was put back as it was (no file changed)" in lines[0]:
        assert _digest(root) == was
    else:
        assert lines[0].startswith("importprof: error: interrupted during the proof: the verified edit stays ("), lines
        assert "__lazy_modules__" in (root / "app.py").read_text()
    for p in root.rglob("*.py"):
        compile(p.read_bytes(), str(p), "exec")
    assert not [p for p in root.rglob("*") if ".importprof-" in p.name]
