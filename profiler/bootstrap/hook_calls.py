"""importprof hook `calls`: which imported modules were ever *called into* after they finished
importing (for `importprof imports --lazy-candidates`). Standard library only, Python 3.8+.

Each time the `phases` hook sees a module finish importing, the module's file (and, for a
frozen module, the `<frozen NAME>` file name its code objects carry) is put on a watch list.
A profile function (`sys.setprofile`, main thread) then marks a module used the first time a
code object whose `co_filename` is that file starts running (a function, method, lambda,
generator or class body defined in it), or a builtin function whose `__module__` is that
module is called (extension modules). Calls made while the module itself is still importing
do not count. Not seen: reading a constant or a class attribute, isinstance checks,
instantiating a class that defines no Python method, calls in other threads.

The names of the used modules (one per line, as JSON strings) go to options["calls_path"] at
exit; the module list itself comes from the `phases` records.
"""

# eager, always: an import inside `try` is never lazy under PEP 810 (-X lazy_imports=all, or the
# program's own filter), so importprof's code never leaves a lazy import for the program to resolve
try:
    import sys
finally:
    pass

_WATCH = {}  # co_filename -> module name (finished importing, not used yet)
_WATCH_C = {}  # module name -> module name (builtin functions' __module__)
_USED = []
_OPTIONS = {}


def _done(rec):
    if rec["failed"]:
        return
    name = rec["name"]
    mod = sys.modules.get(name)
    if mod is None:
        return
    path = _importprof["_importprof_launch"].module_file(mod)  # read without trusting the object
    if path:
        _WATCH[path] = name
    _WATCH["<frozen %s>" % name] = name
    _WATCH_C[name] = name


def _profile(frame, event, arg):
    if event == "call":
        name = _WATCH.pop(frame.f_code.co_filename, None)
        if name is not None:
            _USED.append(name)
            _WATCH_C.pop(name, None)
    elif event == "c_call":
        try:
            mod = getattr(arg, "__module__", None)
        except Exception:  # a callable whose __module__ raises: not one of ours to watch
            return
        if type(mod) is str and mod in _WATCH_C:
            del _WATCH_C[mod]
            _USED.append(mod)


def _dump():
    phases = _importprof.get("_importprof_hook_phases")
    if phases is not None:
        phases.stop()
    sys.setprofile(None)
    path = _OPTIONS.get("calls_path")
    if not path:
        return
    dumps = _importprof["_importprof_launch"].dumps  # (no `import json` at exit)
    with open(path, "w", encoding="utf-8") as fh:
        for name in _USED:
            fh.write(dumps(name) + "\n")


def install(options):
    _OPTIONS.update(options)

    phases = _importprof["_importprof_launch"].load_hook("phases", options)
    phases.skip_file(__file__)
    phases.ON_DONE.append(_done)
    _importprof["_importprof_launch"].at_exit(_dump)
    sys.setprofile(_profile)
