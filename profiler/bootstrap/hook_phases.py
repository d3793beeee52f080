"""importprof hook `phases`: split each import into find / read / unmarshal / exec, timed inside
the real interpreter. Standard library only (builtin modules: sys, _thread, time, _imp), Python
3.8+; it never imports the rest of the `profiler` package.

How: importlib's own entry point for a module that is not in sys.modules yet,
`importlib._bootstrap._find_and_load` (the C `import` statement, `__import__` and
`importlib.import_module` all call it by attribute), is wrapped, and so are the steps inside it:

  find       from entering `_find_and_load` until `_find_spec` returns (module lock, sys.path
             finders: stats, listdirs, the FileFinder directory cache)
  read       `FileLoader.get_data` and `SourceFileLoader.path_stats` called from `get_code`
             (reading the .pyc or the source, stat of the source to validate the .pyc)
  unmarshal  the rest of `get_code` (pyc header checks, marshal.loads, or compiling the source
             and writing the new .pyc when no valid .pyc exists; `_imp.get_frozen_object` for
             frozen modules)
  exec       everything else until `_find_and_load` returns: module object creation and the
             module body, its children (nested imports) excluded

Accounting is exact by construction: one clock (perf_counter_ns // 1000, integer µs), and every
interval between two events is charged to the phase of the module on top of the import stack.
So for every record: find + read + unmarshal + exec + Σ children's cumulative == cumulative.

Records (one JSON object per line, in import order) go to options["phases_path"] at exit.
Other hooks use this module through `_importprof["_importprof_hook_phases"]`: CONTEXT (a stack
of labels such as ["pth", path, lineno] stored on each record), ON_DONE callbacks, and
enable_sites() (file:line of the import statement on each record).
"""

# eager, always: an import inside `try` is never lazy under PEP 810 (-X lazy_imports=all, or the
# program's own filter), so importprof's code never leaves a lazy import for the program to resolve
try:
    import sys
    import _thread
    from time import perf_counter_ns as _perf_ns
finally:
    pass

_MAIN = _thread.get_ident()
_RECORDS = []
_STACK = []
_LAST = [0]
CONTEXT = [None]
ON_DONE = []
_SITES = [False]
_INSTALLED = [False]
_STOPPED = [False]
_OPTIONS = {}

_SKIP_FILES = set()
_LAUNCH = [__file__.rsplit("/", 1)[0] + "/launch.py"]
_LAUNCH_API = _importprof["_importprof_launch"]
_SHOWN = _LAUNCH_API.shown  # the script's file as the command line named it


def _now():
    return _perf_ns() // 1000


def _charge(now):
    top = _STACK[-1]
    top[top["phase"]] += now - _LAST[0]
    _LAST[0] = now


def _top_in(phase):
    """The record on top of the import stack when it is in `phase` (main thread only)."""
    if not _STACK or _thread.get_ident() != _MAIN:
        return None
    top = _STACK[-1]
    return top if top["phase"] == phase else None


def _top_for(name, phase):
    """The record being loaded for `name` when it is in `phase` (main thread only)."""
    top = _top_in(phase)
    return top if top is not None and top["name"] == name else None


def _switch(top, phase):
    _charge(_now())
    prev = top["phase"]
    top["phase"] = phase
    return prev


def _import_site(frame):
    """file, line and importing module of the statement that triggered an import: the first
    frame outside importlib's machinery (and outside importprof's hooks)."""
    f = frame
    while f is not None:
        fn = f.f_code.co_filename
        if fn.startswith("<frozen importlib") or fn in _SKIP_FILES:
            f = f.f_back
            continue
        break
    if f is None:
        return None
    fn = f.f_code.co_filename
    fn = _SHOWN.get(fn, fn)
    ctx = CONTEXT[-1]
    if fn == "<string>" and ctx is not None and ctx[0] == "pth":
        return [ctx[1], ctx[2], None]
    return [fn, f.f_lineno, f.f_globals.get("__name__")]


def _disguised(wrapper, orig):
    """`wrapper` answering to `orig`'s names (__name__, __qualname__, __module__, __doc__, and
    __wrapped__ as functools.wraps sets it), so that what the program reads of a wrapped
    method of importlib's classes, or of builtins.__import__, is the original's."""
    for attr in ("__name__", "__qualname__", "__module__", "__doc__"):
        try:
            setattr(wrapper, attr, getattr(orig, attr))
        except (AttributeError, TypeError):
            pass
    wrapper.__wrapped__ = orig
    return wrapper


def _begin(name, caller, phase):
    """An import of `name` starts (`caller`: the frame that asked for it): its record, on top of
    the import stack from now on. None when it is not recorded (already imported, stopped, another
    thread)."""
    if name in sys.modules or _STOPPED[0] or _thread.get_ident() != _MAIN:
        return None
    site = _import_site(caller) if _SITES[0] else None
    now = _now()
    if _STACK:
        _charge(now)
        parent = _STACK[-1]["i"]
    else:
        parent = -1
    rec = {
        "i": len(_RECORDS),
        "name": name,
        "parent": parent,
        "depth": len(_STACK),
        "start_us": now,
        "cumulative_us": 0,
        "phase": phase,
        "find": 0,
        "read": 0,
        "unmarshal": 0,
        "exec": 0,
        "compiled": False,
        "failed": False,
        "site": site,
        "context": CONTEXT[-1],
        # imported by the launcher itself (runpy to run the target), not by the program
        "launcher": caller is not None and caller.f_code.co_filename == _LAUNCH[0],
    }
    _RECORDS.append(rec)
    _STACK.append(rec)
    _LAST[0] = now
    return rec


def _end(rec):
    """The import `rec` records returned (or raised: rec["failed"] set before)."""
    now = _now()
    _charge(now)
    _STACK.pop()
    rec["cumulative_us"] = now - rec["start_us"]
    if rec["name"] == "site" and _OPTIONS.get("site") and not rec["failed"] and not _SITE_MAIN[0]:
        _charge_site_main(rec)
    for cb in ON_DONE:
        cb(rec)


def _wrap_find_and_load(orig):
    # every argument forwarded as given: 3.15 added `lazy_submodule=` (PEP 810), and the next
    # interpreter may add more (tests/test_replaced_signatures.py holds each version's signature)
    def _find_and_load(name, *args, **kwargs):
        rec = _begin(name, sys._getframe(1), "find")
        if rec is None:
            return orig(name, *args, **kwargs)
        try:
            return orig(name, *args, **kwargs)
        except BaseException:
            rec["failed"] = True
            raise
        finally:
            _end(rec)
    return _disguised(_find_and_load, orig)


# ------------------------------------------------------------------ 3.12+: nothing replaced
# Where the phase split is not asked (import boundaries, failures and sites: `imports`' outcome
# run, `why`, `lazy`'s profile, `--lazy-candidates`), 3.12+ records each import from
# sys.monitoring's events on importlib's own `_find_and_load` code object (PY_START, PY_RETURN,
# and PY_UNWIND, which is only global: filtered by code object), under a tool id of its own:
# no function of the interpreter's is replaced, whatever its signature becomes.

_MONITOR = {"tool": None, "code": None}
_MON_STACK = []  # one entry per running _find_and_load frame of the main thread: its record, or None


def _on_start(code, offset):
    if _thread.get_ident() != _MAIN:
        return
    frame = sys._getframe(1)
    try:
        name = frame.f_locals["name"]
    except Exception:
        name = None
    _MON_STACK.append(_begin(name, frame.f_back, "exec") if type(name) is str else None)


def _on_return(code, offset, retval):
    if _thread.get_ident() != _MAIN or not _MON_STACK:
        return
    rec = _MON_STACK.pop()
    if rec is not None:
        _end(rec)


def _on_unwind(code, offset, exc):
    if code is not _MONITOR["code"] or _thread.get_ident() != _MAIN or not _MON_STACK:
        return
    rec = _MON_STACK.pop()
    if rec is not None:
        rec["failed"] = True
        _end(rec)


def _monitor(bootstrap):
    """Start recording through sys.monitoring; False when it cannot (no free tool id)."""
    mon = getattr(sys, "monitoring", None)
    code = getattr(getattr(bootstrap, "_find_and_load", None), "__code__", None)
    if mon is None or code is None:
        return False
    for tool in (4, 3):  # ids no tool claims by convention (0 debugger, 1 coverage, 2 profiler, 5 optimizer)
        if mon.get_tool(tool) is None:
            break
    else:
        return False
    mon.use_tool_id(tool, "importprof")
    _MONITOR["tool"], _MONITOR["code"] = tool, code
    events = mon.events
    mon.register_callback(tool, events.PY_START, _on_start)
    mon.register_callback(tool, events.PY_RETURN, _on_return)
    mon.register_callback(tool, events.PY_UNWIND, _on_unwind)
    mon.set_events(tool, events.PY_UNWIND)
    mon.set_local_events(tool, code, events.PY_START | events.PY_RETURN)
    return True


def _unmonitor():
    tool = _MONITOR["tool"]
    if tool is None:
        return
    _MONITOR["tool"] = None
    mon = sys.monitoring
    try:
        mon.set_local_events(tool, _MONITOR["code"], 0)
        mon.set_events(tool, 0)
        mon.free_tool_id(tool)
    except (ValueError, RuntimeError):
        pass


_SITE_MAIN = [False]


def _charge_site_main(rec):
    """Under the launcher (`python -S` + `site.main()` called after the hooks), `site.main()`
    runs after `import site` returned, while a plain run executes it inside the import of
    `site` (-X importtime's `site` row holds it). So the launcher's one call of `site.main()`
    is charged to the `site` record (exec phase), and what it imports (.pth files,
    sitecustomize) becomes its children, as in the plain run: the phases of `site` then add up
    to its self time."""
    site = sys.modules.get("site")
    orig = getattr(site, "main", None)
    if orig is None:
        return
    _SITE_MAIN[0] = True

    def main(*args, **kwargs):
        site.main = orig  # once: a later call by the program is not part of the import
        if _STOPPED[0] or _thread.get_ident() != _MAIN:
            return orig(*args, **kwargs)
        now = _now()
        if _STACK:
            _charge(now)
        start = now
        prev_phase = rec["phase"]
        rec["phase"] = "exec"
        _STACK.append(rec)
        _LAST[0] = now
        try:
            return orig(*args, **kwargs)
        finally:
            now = _now()
            _charge(now)
            _STACK.pop()
            rec["phase"] = prev_phase
            rec["cumulative_us"] += now - start

    site.main = _disguised(main, orig)


def _wrap_find_spec(orig):
    def _find_spec(name, *args, **kwargs):
        top = _top_for(name, "find")
        if top is None:
            return orig(name, *args, **kwargs)
        try:
            return orig(name, *args, **kwargs)
        finally:
            _switch(top, "exec")
    return _disguised(_find_spec, orig)


def _wrap_phase(orig, phase, top_of):
    """Charge the time spent inside `orig` to `phase` of the record `top_of(*args)` names
    (None: not an import we are timing), then go back to the phase it was in."""

    def wrapper(*args, **kwargs):
        top = top_of(*args, **kwargs)
        if top is None:
            return orig(*args, **kwargs)
        prev = _switch(top, phase)
        try:
            return orig(*args, **kwargs)
        finally:
            _switch(top, prev)
    return _disguised(wrapper, orig)


# which record a wrapped call times (None: not ours)
def _get_code_of(self=None, fullname=None, *args, **kwargs):  # the module being loaded, between find and exec
    return _top_for(fullname, "exec")


def _frozen_code_of(name=None, *args, **kwargs):
    return _top_for(name, "exec")


def _read_by_get_code(*args, **kwargs):  # bytes read while get_code runs
    return _top_in("unmarshal")


def _wrap_source_to_code(orig):
    def source_to_code(*args, **kwargs):
        top = _top_in("unmarshal")
        if top is not None:
            top["compiled"] = True
        return orig(*args, **kwargs)
    return _disguised(source_to_code, orig)


def enable_sites():
    _SITES[0] = True


def skip_file(path):
    """Frames from this file are importprof's, never an import site."""
    _SKIP_FILES.add(path)


def stop():
    """Stop recording (at exit: the hooks' own imports to write their records are not the
    program's)."""
    _STOPPED[0] = True
    _unmonitor()


_IMPORTERS = []
_IMPORTERS_SEEN = set()  # an import statement in a loop is recorded once, not once per pass


def _note_importer(pair):
    if pair not in _IMPORTERS_SEEN:
        _IMPORTERS_SEEN.add(pair)
        _IMPORTERS.append(pair)


def _wrap_import(orig):
    """builtins.__import__: every import statement, also of a module already in sys.modules
    (which `_find_and_load` never sees), as [importer module, imported module]: each package
    of a dotted name, and fromlist names that are submodules."""

    def __import__(name, *args, **kwargs):
        try:
            mod = orig(name, *args, **kwargs)
        except BaseException as exc:
            # python's own __import__ is C: it leaves no frame in the program's traceback. A
            # bare `raise` re-raises with the exception's own traceback from 3.11 on, so this
            # frame's entry is taken out first (3.8-3.10 re-raise sys.exc_info()'s: it stays)
            tb = exc.__traceback__
            if tb is not None and tb.tb_frame is sys._getframe(0):
                exc.__traceback__ = tb.tb_next
            tb = None
            raise
        if _STOPPED[0] or _thread.get_ident() != _MAIN:
            return mod
        try:
            # the arguments as __import__(name, globals=None, locals=None, fromlist=(), level=0)
            # names them, read without assuming their types (the program's own call may pass anything)
            given = dict(zip(("globals", "locals", "fromlist", "level"), args))
            given.update(kwargs)
            globals, fromlist, level = given.get("globals"), given.get("fromlist") or (), given.get("level") or 0
            importer = globals.get("__name__") if isinstance(globals, dict) else None
            # `import a.b.c` returns `a`: the statement names a, a.b, a.b.c; with a fromlist
            # or a relative level the returned module is the one named
            modname = _LAUNCH_API.module_name(mod) if (fromlist or level) else name
            if not isinstance(modname, str):
                return mod  # not a module we can read without running its code (a proxy, a lazy object)
            parts = modname.split(".")
            own = (importer or "") + "."
            for i in range(1, len(parts) + 1):
                prefix = ".".join(parts[:i])
                if not own.startswith(prefix + "."):  # a submodule needs its own package anyway
                    _note_importer((importer, prefix))
            if fromlist:
                for x in fromlist:
                    if not isinstance(x, str):
                        continue
                    sub = modname + "." + x
                    if x != "*" and sub in sys.modules:
                        _note_importer((importer, sub))
        except Exception:
            pass
        return mod
    return _disguised(__import__, orig)


def _dump():
    stop()
    ipath = _OPTIONS.get("importers_path")
    if ipath:
        with open(ipath, "w", encoding="utf-8") as fh:
            seen = set()
            for pair in _IMPORTERS:
                if pair not in seen:
                    seen.add(pair)
                    fh.write("%s %s\n" % (pair[0] or "?", pair[1]))
    path = _OPTIONS.get("phases_path")
    if not path:
        return
    dumps = _LAUNCH_API.dumps  # (no `import json` at exit: the program may have made imports lazy)
    with open(path, "w", encoding="utf-8") as fh:
        for rec in _RECORDS:
            out = dict(rec)
            out.pop("phase", None)
            out["find_us"] = out.pop("find")
            out["read_us"] = out.pop("read")
            out["unmarshal_us"] = out.pop("unmarshal")
            out["exec_us"] = out.pop("exec")
            out["origin"] = _LAUNCH_API.module_origin(sys.modules.get(rec["name"]))
            fh.write(dumps(out) + "\n")


def install(options):
    if _INSTALLED[0]:
        return
    _INSTALLED[0] = True
    _OPTIONS.update(options)
    if options.get("phases_record") is False:
        return  # a baseline: the same launcher, no instrumentation
    bootstrap = sys.modules["_frozen_importlib"]
    external = sys.modules["_frozen_importlib_external"]
    skip_file(__file__)
    skip_file(_LAUNCH[0])
    skip_file(getattr(sys.modules.get("importlib"), "__file__", None) or "")
    split = options.get("phases_split", True) or options.get("importers_path")
    if not split and sys.version_info >= (3, 12):
        _importprof["_importprof_launch"].at_exit(_dump)
        if _monitor(bootstrap):  # from here on every import is recorded, nothing replaced
            return
    import _imp

    bootstrap._find_spec = _wrap_find_spec(bootstrap._find_spec)
    for cls in (external.SourceLoader, external.SourcelessFileLoader):
        cls.get_code = _wrap_phase(cls.get_code, "unmarshal", _get_code_of)
    external.FileLoader.get_data = _wrap_phase(external.FileLoader.get_data, "read", _read_by_get_code)
    external.SourceFileLoader.path_stats = _wrap_phase(external.SourceFileLoader.path_stats, "read", _read_by_get_code)
    external.SourceLoader.source_to_code = _wrap_source_to_code(external.SourceLoader.source_to_code)
    if hasattr(_imp, "get_frozen_object"):
        _imp.get_frozen_object = _wrap_phase(_imp.get_frozen_object, "unmarshal", _frozen_code_of)
    if split or sys.version_info < (3, 12):
        _importprof["_importprof_launch"].at_exit(_dump)
    if options.get("importers_path"):
        import builtins

        builtins.__import__ = _wrap_import(builtins.__import__)
    # last: from here on every import is recorded
    bootstrap._find_and_load = _wrap_find_and_load(bootstrap._find_and_load)
