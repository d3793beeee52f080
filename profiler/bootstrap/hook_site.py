"""importprof hook `site`: what `site.main()` costs and why. Standard library only (builtin
modules plus `site` and `os`, which the interpreter loads anyway), Python 3.8+.

Installed before the launcher runs `site.main()`, it wraps, in the `site` module, for that one
call (site's own functions are put back when it returns: the program never sees a wrapper):
  main                   total time, sys.path before/after
  addpackage             each .pth file processed (path, time)
  exec (a module global shadowing the builtin, used by addpackage for `import ...` lines):
                         each executed .pth line (line number, text, time)
  execsitecustomize / execusercustomize: time and the module's file when one was imported
  addusersitepackages    the user site (path, enabled, exists, time)
While a .pth line, sitecustomize or usercustomize runs, a label is pushed on the `phases`
hook's CONTEXT stack (when that hook is installed), so the import records say which .pth line
imported them. The record (one JSON object) goes to options["site_path"] at exit.
"""

# eager, always: an import inside `try` is never lazy under PEP 810 (-X lazy_imports=all, or the
# program's own filter), so importprof's code never leaves a lazy import for the program to resolve
try:
    import sys
    from time import perf_counter_ns as _perf_ns
finally:
    pass

_STATE = {
    "main_us": None,
    "sys_path_before": None,
    "sys_path_after": None,
    "pth": [],
    "sitecustomize": None,
    "usercustomize": None,
    "user_site": None,
    "python": sys.executable,
    "version": "%d.%d.%d" % sys.version_info[:3],
}
_OPTIONS = {}
_PTH = []  # stack of the .pth files being processed
_LOCAL_CONTEXT = [None]
_IN_LINE = [0]


def _now():
    return _perf_ns() // 1000


def _context():
    phases = _importprof.get("_importprof_hook_phases")
    return phases.CONTEXT if phases is not None else _LOCAL_CONTEXT


class _PthFile:
    def __init__(self, path):
        self.path = path
        self.lines = []
        self._cursor = 0
        try:
            with open(path, "rb") as fh:
                text = fh.read().decode("utf-8", "replace")
        except OSError:
            text = ""
        self._file_lines = [ln.rstrip("\r\n") for ln in text.split("\n")]

    def lineno(self, source):
        want = source.rstrip("\r\n")
        for j in range(self._cursor, len(self._file_lines)):
            if self._file_lines[j] == want:
                self._cursor = j + 1
                return j + 1
        return None


_ORIGINALS = {}  # name -> site's own function (_MISSING: site had no such global)
_MISSING = object()


def _restore_site():
    """Put site's own functions back (once the launcher's site.main() ran): what the program
    reads of `site` afterwards is site itself, never a wrapper of importprof's."""
    site = sys.modules.get("site")
    for name, orig in _ORIGINALS.items():
        if site is None or site.__dict__.get(name) is not _WRAPPERS.get(name):
            continue  # replaced since (the phases hook's own site.main restores itself)
        if orig is _MISSING:
            del site.__dict__[name]
        else:
            setattr(site, name, orig)
    _ORIGINALS.clear()


_WRAPPERS = {}


def _wrap_main(orig):
    def main(*args, **kwargs):
        _restore_site_main(main)
        ctx = _context()
        _STATE["sys_path_before"] = list(sys.path)
        ctx.append(["site"])
        t0 = _now()
        try:
            return orig(*args, **kwargs)
        finally:
            _STATE["main_us"] = _now() - t0
            ctx.pop()
            _STATE["sys_path_after"] = list(sys.path)
            _restore_site()

    return main


def _restore_site_main(wrapper):
    site = sys.modules.get("site")
    if site is not None and site.__dict__.get("main") is wrapper and "main" in _ORIGINALS:
        site.main = _ORIGINALS.pop("main")


def _wrap_addpackage(orig):
    def addpackage(sitedir, name, known_paths):
        import os

        pth = _PthFile(os.path.join(sitedir, name))
        _PTH.append(pth)
        t0 = _now()
        try:
            return orig(sitedir, name, known_paths)
        finally:
            us = _now() - t0
            _PTH.pop()
            _STATE["pth"].append({"path": pth.path, "us": us, "lines": pth.lines})

    return addpackage


def _exec(source, globals=None, locals=None):
    import builtins

    if globals is None:
        frame = sys._getframe(1)
        globals = frame.f_globals
        if locals is None:
            locals = frame.f_locals
    elif locals is None:
        locals = globals
    pth = _PTH[-1] if _PTH else None
    if pth is None or _IN_LINE[0] or not isinstance(source, str):
        # not a .pth line (or code a .pth line runs with exec itself: part of that line)
        return builtins.exec(source, globals, locals)
    lineno = pth.lineno(source)
    ctx = _context()
    ctx.append(["pth", pth.path, lineno])
    _IN_LINE[0] = 1
    t0 = _now()
    try:
        return builtins.exec(source, globals, locals)
    finally:
        us = _now() - t0
        _IN_LINE[0] = 0
        ctx.pop()
        text = source.rstrip("\r\n")
        pth.lines.append({"lineno": lineno, "text": text if len(text) <= 300 else text[:297] + "...", "us": us})


def _wrap_customize(orig, which):
    def run(*args, **kwargs):
        ctx = _context()
        ctx.append([which])
        already = which in sys.modules
        t0 = _now()
        try:
            return orig(*args, **kwargs)
        finally:
            us = _now() - t0
            ctx.pop()
            mod = sys.modules.get(which)
            if mod is not None and not already:
                _STATE[which] = {"path": getattr(mod, "__file__", None), "us": us}

    return run


def _wrap_user_site(orig):
    def addusersitepackages(known_paths):
        t0 = _now()
        try:
            return orig(known_paths)
        finally:
            us = _now() - t0
            import os

            site = sys.modules.get("site")
            path = getattr(site, "USER_SITE", None)
            _STATE["user_site"] = {
                "path": path,
                "enabled": bool(getattr(site, "ENABLE_USER_SITE", False)),
                "exists": bool(path) and os.path.isdir(path),
                "us": us,
            }

    return addusersitepackages


def _dump():
    phases = _importprof.get("_importprof_hook_phases")
    if phases is not None:
        phases.stop()
    path = _OPTIONS.get("site_path")
    if not path:
        return
    with open(path, "w", encoding="utf-8") as fh:  # (no `import json` at exit: see launch.dumps)
        fh.write(_importprof["_importprof_launch"].dumps(_STATE) + "\n")


def install(options):
    _OPTIONS.update(options)

    phases = _importprof.get("_importprof_hook_phases")
    if phases is not None:
        phases.skip_file(__file__)
    import site

    wrappers = {
        "main": _wrap_main(site.main),
        "addpackage": _wrap_addpackage(site.addpackage),
        "exec": _exec,
        "execsitecustomize": _wrap_customize(site.execsitecustomize, "sitecustomize"),
        "execusercustomize": _wrap_customize(site.execusercustomize, "usercustomize"),
        "addusersitepackages": _wrap_user_site(site.addusersitepackages),
    }
    for name, wrapper in wrappers.items():
        _ORIGINALS[name] = site.__dict__.get(name, _MISSING)
        _WRAPPERS[name] = wrapper
        setattr(site, name, wrapper)
    _importprof["_importprof_launch"].at_exit(_dump)
