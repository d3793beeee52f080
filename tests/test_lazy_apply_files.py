"""The files `importprof lazy --apply` writes: which it may write (links out of DIR, hard links,
read-only files, other owners), the writes (mode, owner, modification time kept), putting
everything back, and the bytecode refresh by the real interpreter of each cache tag (its
optimization level and invalidation mode kept, PYTHONDONTWRITEBYTECODE=1 set)."""

from __future__ import annotations

import importlib.util
import os
import stat
import subprocess
import sys

import pytest

from profiler.session import Session
from tests._interpreters import pyenv_python

# ------------------------------------------------------------------ analysis/pyc.py (pure)


def test_cache_entry_names_the_tag_and_the_optimization_level():
    from profiler.analysis.pyc import cache_entry

    assert cache_entry("mod.py", "mod.cpython-315.pyc") == ("cpython-315", 0)
    assert cache_entry("mod.py", "mod.cpython-311.opt-2.pyc") == ("cpython-311", 2)
    assert cache_entry("mod.py", "mod.cpython-313t.opt-1.pyc") == ("cpython-313t", 1)
    assert cache_entry("mod.py", "model.cpython-315.pyc") is None  # another module's
    assert cache_entry("mod.py", "mod.cpython-315.pyc.12345") is None  # py_compile's temporary
    assert cache_entry("mod.txt", "mod.cpython-315.pyc") is None


def test_tag_version():
    from profiler.analysis.pyc import tag_version

    assert tag_version("cpython-315") == (3, 15)
    assert tag_version("cpython-39") == (3, 9)
    assert tag_version("cpython-313t") == (3, 13)
    assert tag_version("pypy39") is None


def test_invalidation_mode_from_the_header_flags():
    from profiler.analysis.pyc import invalidation_mode

    magic = b"\x00\x00\r\n"
    assert invalidation_mode("cpython-315", magic + (0).to_bytes(4, "little") + b"\x00" * 8) == "timestamp"
    assert invalidation_mode("cpython-315", magic + (3).to_bytes(4, "little") + b"\x00" * 8) == "checked-hash"
    assert invalidation_mode("cpython-315", magic + (1).to_bytes(4, "little") + b"\x00" * 8) == "unchecked-hash"
    assert invalidation_mode("cpython-315", magic + (4).to_bytes(4, "little") + b"\x00" * 8) is None
    assert invalidation_mode("cpython-315", magic) is None  # cut short
    # before 3.7 the second word is the source's mtime, not flags
    assert invalidation_mode("cpython-36", magic + (3).to_bytes(4, "little") + b"\x00" * 4) == "timestamp"


# ------------------------------------------------------------------ which files may be written


def test_refusal_of_links_out_hard_links_and_read_only_files(tmp_path):
    from profiler.compose.lazy_apply_files import refusal

    outside = tmp_path / "shared" / "heavy.py"
    outside.parent.mkdir()
    outside.write_text("import json\n")
    tree = tmp_path / "pkg"
    tree.mkdir()
    (tree / "out.py").symlink_to(outside)
    (tree / "mine.py").write_text("import json\n")
    (tree / "alias.py").symlink_to(tree / "mine.py")
    (tree / "linked.py").write_text("import json\n")
    os.link(tree / "linked.py", tmp_path / "elsewhere.py")
    (tree / "ro.py").write_text("import json\n")
    (tree / "ro.py").chmod(0o444)
    root = os.path.realpath(tree)
    assert refusal(str(tree / "mine.py"), root) is None
    assert refusal(str(tree / "alias.py"), root) is None  # a link that stays inside
    assert refusal(str(tree / "out.py"), root) == f"leads to {os.path.realpath(outside)}, outside {root}"
    assert refusal(str(tree / "linked.py"), root).startswith("has 2 hard links")
    assert refusal(str(tree / "ro.py"), root) == "read-only"  # even for root: its owner marked it so


def test_a_symlinked_dir_is_what_the_user_named(tmp_path):
    from profiler.compose.lazy_apply_files import refusal

    real = tmp_path / "real"
    real.mkdir()
    (real / "a.py").write_text("import json\n")
    (tmp_path / "link").symlink_to(real)
    assert refusal(str(tmp_path / "link" / "a.py"), os.path.realpath(tmp_path / "link")) is None


# ------------------------------------------------------------------ writes and putting back


def _tree_files(tmp_path, files: dict):
    from profiler.compose.lazy_apply_files import TreeFiles

    for name, text in files.items():
        (tmp_path / name).write_text(text)
    edits = TreeFiles(os.path.realpath(tmp_path), "lazy-modules")
    for name in files:
        path = os.path.realpath(tmp_path / name)
        edits.add(path, (tmp_path / name).read_bytes())
    return edits


def test_restore_puts_bytes_and_modification_times_back(tmp_path):
    a = tmp_path / "a.py"
    edits = _tree_files(tmp_path, {"a.py": "import json\n", "b.py": "import os\n"})
    os.utime(a, ns=(1_600_000_000_000_000_000, 1_600_000_000_123_456_789))
    edits.mtime[os.path.realpath(a)] = a.stat().st_mtime_ns
    a.chmod(0o640)
    edits.write({os.path.realpath(a): b"__lazy_modules__ = ['json']\nimport json\n"})
    assert a.read_bytes().startswith(b"__lazy_modules__") and stat.S_IMODE(a.stat().st_mode) == 0o640
    assert a.stat().st_mtime_ns != 1_600_000_000_123_456_789
    b_before = (tmp_path / "b.py").stat()
    edits.restore()
    assert a.read_text() == "import json\n"
    assert a.stat().st_mtime_ns == 1_600_000_000_123_456_789  # its old .pyc is valid again
    assert stat.S_IMODE(a.stat().st_mode) == 0o640
    assert (tmp_path / "b.py").stat().st_ino == b_before.st_ino  # never written: never touched
    assert sorted(os.listdir(tmp_path)) == ["a.py", "b.py"]  # no temporary file left


def test_a_write_through_a_link_leaving_the_folder_is_refused(tmp_path):
    from profiler.errors import BadOutput
    from profiler.sinks import write_atomic

    outside = tmp_path / "outside.py"
    outside.write_text("x = 1\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "m.py").symlink_to(outside)
    with pytest.raises(BadOutput, match="outside"):
        write_atomic(tree / "m.py", "x = 2\n", within=tree)
    assert outside.read_text() == "x = 1\n" and (tree / "m.py").is_symlink()
    write_atomic(tree / "n.py", "y = 1\n", within=tree)
    assert (tree / "n.py").read_text() == "y = 1\n"


# ------------------------------------------------------------------ bytecode refreshed (real interpreters)


def _compile(python: str, path, mode: str = "TIMESTAMP", optimize: int = 0) -> str:
    code = ("import py_compile, sys; print(py_compile.compile(sys.argv[1], doraise=True, optimize=int(sys.argv[3]), "
            "invalidation_mode=py_compile.PycInvalidationMode[sys.argv[2]]))")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPYCACHEPREFIX", "SOURCE_DATE_EPOCH")}
    return subprocess.run([python, "-c", code, str(path), mode, str(optimize)], env=env, capture_output=True,
                          text=True, check=True).stdout.strip()


def _tag(python: str) -> str:
    return subprocess.run([python, "-c", "import sys; print(sys.implementation.cache_tag)"], capture_output=True,
                          text=True, check=True).stdout.strip()


def _pythons_for(*pythons):
    return lambda tag: [p for p in pythons]


def _stale(python: str, source, optimize: int = 0) -> bool:
    """The interpreter's own verdict: does it load the cached bytecode of `source` (False) or
    compile the source again (True)?"""
    code = ("import importlib.util, sys\n"
            "spec = importlib.util.spec_from_file_location('m', sys.argv[1])\n"
            "loader = spec.loader\n"
            "calls = []\n"
            "orig = loader.source_to_code\n"
            "loader.source_to_code = lambda *a, **k: (calls.append(1), orig(*a, **k))[1]\n"
            "loader.get_code('m')\n"
            "print('stale' if calls else 'cached')\n")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPYCACHEPREFIX", None)
    flags = ["-" + "O" * optimize] if optimize else []
    out = subprocess.run([python, *flags, "-c", code, str(source)], env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip() == "stale"


@pytest.mark.slow
def test_bytecode_of_each_tag_refreshed_with_its_mode_and_level(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    py315, py311 = pyenv_python("3.15"), pyenv_python("3.11")
    src = tmp_path / "mod.py"
    src.write_text("import json\nX = 1\n")
    c315 = _compile(py315, src)
    c311 = _compile(py311, src, "CHECKED_HASH", 2)
    os.chmod(c311, 0o600)
    edits = _tree_files(tmp_path, {})
    path = os.path.realpath(src)
    edits.add(path, src.read_bytes())
    edits.write({path: b"__lazy_modules__ = ['json']\nimport json\nX = 1\n"})
    assert _stale(py315, src) and _stale(py311, src, 2)
    notes = edits.refresh_bytecode([path], _pythons_for(py311, py315), session=Session())
    assert notes == []
    assert not _stale(py315, src) and not _stale(py311, src, 2)
    from profiler.analysis.pyc import invalidation_mode

    with open(c311, "rb") as fh:
        assert invalidation_mode(_tag(py311), fh.read(16)) == "checked-hash"
    assert os.path.basename(c311).endswith(".opt-2.pyc") and stat.S_IMODE(os.stat(c311).st_mode) == 0o600
    assert sorted(os.listdir(tmp_path / "__pycache__")) == sorted([os.path.basename(c315), os.path.basename(c311)])
    # and back: the old .pyc bytes and the source's old time, so the old bytecode is valid again
    edits.restore()
    assert src.read_text() == "import json\nX = 1\n"
    assert not _stale(py315, src) and not _stale(py311, src, 2)


@pytest.mark.slow
def test_a_tag_with_no_interpreter_here_is_said_and_left_stale(tmp_path):
    py315 = pyenv_python("3.15")
    src = tmp_path / "mod.py"
    src.write_text("import json\n")
    real = _compile(py315, src)
    cache = tmp_path / "__pycache__"
    timestamp = (cache / "mod.cpython-399.pyc")
    timestamp.write_bytes(b"\x00\x00\r\n" + b"\x00" * 12 + b"old")
    unchecked = (cache / "mod.cpython-398.pyc")
    unchecked.write_bytes(b"\x00\x00\r\n" + (1).to_bytes(4, "little") + b"\x00" * 8 + b"old")
    edits = _tree_files(tmp_path, {})
    path = os.path.realpath(src)
    edits.add(path, src.read_bytes())
    edits.write({path: b"__lazy_modules__ = ['json']\nimport json\n"})
    notes = edits.refresh_bytecode([path], lambda tag: [py315] if tag == _tag(py315) else [py315], session=Session())
    assert any(n.startswith("no interpreter of cache tag cpython-399 here: 1 .pyc of edited files left stale") for n in notes)
    assert any("cpython-398" in n and "unchecked-hash .pyc removed" in n for n in notes)
    assert timestamp.read_bytes().endswith(b"old") and not unchecked.exists()
    assert not _stale(py315, src) and os.path.exists(real)
    edits.restore()  # the removed one comes back too
    assert unchecked.read_bytes().endswith(b"old")


@pytest.mark.slow
def test_a_pyc_that_is_a_link_is_left_alone(tmp_path):
    py315 = pyenv_python("3.15")
    src = tmp_path / "tree" / "mod.py"
    src.parent.mkdir()
    src.write_text("import json\n")
    elsewhere = tmp_path / "elsewhere.pyc"
    cfile = _compile(py315, src)
    os.replace(cfile, elsewhere)
    os.symlink(elsewhere, cfile)
    was = elsewhere.read_bytes()
    edits = _tree_files(src.parent, {})
    path = os.path.realpath(src)
    edits.add(path, src.read_bytes())
    edits.write({path: b"__lazy_modules__ = ['json']\nimport json\n"})
    notes = edits.refresh_bytecode([path], _pythons_for(py315), session=Session())
    assert any(n.startswith(f"{cfile}: leads to") for n in notes)
    assert elsewhere.read_bytes() == was and os.path.islink(cfile)


def test_importlib_agrees_on_the_cache_path():
    """The refresh writes where the interpreter reads: __pycache__/<name>.<tag>[.opt-N].pyc."""
    from profiler.analysis.pyc import cache_entry

    path = importlib.util.cache_from_source("/x/mod.py", optimization=2)
    assert cache_entry("mod.py", os.path.basename(path)) == (sys.implementation.cache_tag, 2)


@pytest.mark.slow
def test_many_files_are_compiled_in_bounded_batches(tmp_path, monkeypatch):
    import profiler.compose.lazy_apply_files as files

    monkeypatch.setattr(files, "BATCH", 2)  # five files: three argument lists, one interpreter
    py315 = pyenv_python("3.15")
    edits = _tree_files(tmp_path, {})
    paths = []
    for i in range(5):
        src = tmp_path / f"m{i}.py"
        src.write_text("import json\n")
        _compile(py315, src)
        path = os.path.realpath(src)
        edits.add(path, src.read_bytes())
        paths.append(path)
    edits.write({p: b"__lazy_modules__ = ['json']\nimport json\n" for p in paths})
    assert edits.refresh_bytecode(paths, _pythons_for(py315), session=Session()) == []
    assert not any(_stale(py315, p) for p in paths)
