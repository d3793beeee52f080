"""What `lazy --apply` remembers between invocations (compose/lazy_apply_floor.py): each
module's floor, kept while its file is as recorded, merged lower, ignored when unreadable."""

from __future__ import annotations

import os

from profiler.compose import lazy_apply_floor as floor


def _tree(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text("import b\n")
    (tree / "b.py").write_text("X = 1\n")
    return str(tree), {"a": str(tree / "a.py"), "b": str(tree / "b.py")}


def test_a_second_apply_never_prices_above_the_first(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    tree, files = _tree(tmp_path)
    assert floor.load(tree, "/py", "3.15.2", files) == {}
    floor.save(tree, "/py", "3.15.2", files, {"a": 900, "b": 400, "gone": 7})
    assert floor.load(tree, "/py", "3.15.2", files) == {"a": 900, "b": 400}  # a module without a file: not kept
    floor.save(tree, "/py", "3.15.2", files, {"a": 1100, "b": 300})  # the second's own runs priced a higher
    assert floor.load(tree, "/py", "3.15.2", files) == {"a": 900, "b": 300}
    # another interpreter, another folder: their own memory
    assert floor.load(tree, "/py", "3.15.3", files) == {}
    assert floor.load(str(tmp_path), "/py", "3.15.2", files) == {}
    assert not any(n.endswith(".json") for n in os.listdir(tree))  # nothing written into the tree


def test_a_file_changed_since_is_measured_afresh(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    tree, files = _tree(tmp_path)
    floor.save(tree, "/py", "3.15.2", files, {"a": 900, "b": 400})
    with open(files["b"], "a") as fh:
        fh.write("Y = 2\n")
    assert floor.load(tree, "/py", "3.15.2", files) == {"a": 900}
    assert floor.load(tree, "/py", "3.15.2", {**files, "a": files["b"]}) == {}  # loaded from another file now


def test_an_unreadable_memory_is_ignored(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    tree, files = _tree(tmp_path)
    floor.save(tree, "/py", "3.15.2", files, {"a": 900})
    (path,) = [os.path.join(d, n) for d, _, ns in os.walk(tmp_path / "cache") for n in ns]
    for garbage in ("{", "[]", '{"version": 1, "modules": {"a": [1, 2]}}', '{"version": 99, "modules": {}}'):
        with open(path, "w") as fh:
            fh.write(garbage)
        assert floor.load(tree, "/py", "3.15.2", files) == {}
    floor.save(tree, "/py", "3.15.2", files, {"a": 800})  # and written over
    assert floor.load(tree, "/py", "3.15.2", files) == {"a": 800}


def test_a_memory_unused_for_30_days_is_removed(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    tree, files = _tree(tmp_path)
    floor.save(tree, "/py", "3.15.2", files, {"a": 900})
    (old,) = [os.path.join(d, n) for d, _, ns in os.walk(tmp_path / "cache") for n in ns]
    past = os.stat(old).st_mtime - (floor.KEPT_DAYS + 1) * 86400
    os.utime(old, (past, past))
    floor.save(tree, "/py", "3.14.0", files, {"a": 700})  # another memory written: the old one goes
    assert not os.path.exists(old)
    assert floor.load(tree, "/py", "3.14.0", files) == {"a": 700}
