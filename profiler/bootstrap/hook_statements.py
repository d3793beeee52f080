"""importprof hook `statements`: which top-level statements of each module's body cost its
self time (an SSL context built at import, a regex table compiled, a config file parsed).
Standard library only (builtin modules: sys, _thread, time), Python 3.8+; it never imports
the rest of the `profiler` package.

How: sampling, as pyinstrument does. A thread (started with `_thread`, so `threading` is not
imported) wakes every INTERVAL_NS and looks at the main thread's stack: the innermost frame
running a module body (a `<module>` code object: an imported module's body or the program's
own `__main__`) and its current line get the time since the previous sample. A statement's
figure is so its self time: the functions it calls count for it, the bodies of the modules it
imports count for those (they are innermost then); what importlib does to find and load a
module stays with the import statement. Line tracing (sys.settrace, sys.monitoring's LINE)
was tried first: it costs ~100 µs per line event in a big body (html.entities: 25 ms became
700 ms), so it would rank statements by their tracing cost.

The switch interval is lowered to 0.5 ms while the hook runs (the sampler needs the GIL; at the
default 5 ms it would wake only that often): the program runs a little slower, evenly.

Records go to options["statements_path"] at exit, one line per statement:
`module<TAB>file<TAB>line<TAB>sampled_ns<TAB>samples`, then `#total<TAB>ns sampled`.
"""

# eager, always: an import inside `try` is never lazy under PEP 810 (-X lazy_imports=all, or the
# program's own filter), so importprof's code never leaves a lazy import for the program to resolve
try:
    import sys
    import _thread
    from time import perf_counter_ns as _ns, sleep as _sleep
finally:
    pass

INTERVAL_NS = 250_000
_MAIN = _thread.get_ident()
_HERE = __file__.rsplit("/", 1)[0] + "/"
_ROWS = {}  # (name, file, line) -> [ns, samples]
_STATE = {"run": True, "total": 0, "switch": None}
_OPTIONS = {}
_SHOWN = _importprof["_importprof_launch"].shown  # the script's file as the command line named it


def _sample(last):
    now = _ns()
    frame = sys._current_frames().get(_MAIN)
    while frame is not None:
        code = frame.f_code
        # a module body's frame: not code exec'd from a string (dataclasses' and namedtuple's
        # generated methods, a .pth line: "<string>"), whose lines are the statement that
        # exec'd it, further up; frozen modules ("<frozen os>") are module bodies all the same
        filename = code.co_filename
        if (code.co_name == "<module>" and not filename.startswith(_HERE)
                and (not filename.startswith("<") or filename.startswith("<frozen "))):
            line = frame.f_lineno
            if line is not None:  # None on an instruction of no line (3.11+): counted in the total only
                key = (frame.f_globals.get("__name__", "?"), _SHOWN.get(filename, filename), line)
                row = _ROWS.get(key)
                if row is None:
                    row = _ROWS[key] = [0, 0]
                row[0] += now - last
                row[1] += 1
            break
        frame = frame.f_back
    _STATE["total"] += now - last
    return now


def _sampler():
    last = _ns()
    while _STATE["run"]:
        _sleep(INTERVAL_NS / 1e9)
        last = _sample(last)


def _dump():
    _STATE["run"] = False
    if _STATE["switch"] is not None:
        sys.setswitchinterval(_STATE["switch"])
    path = _OPTIONS.get("statements_path")
    if not path:
        return
    with open(path, "w", encoding="utf-8") as fh:
        for (name, file, line), (ns, samples) in list(_ROWS.items()):
            fh.write("%s\t%s\t%d\t%d\t%d\n" % (name, file, line, ns, samples))
        fh.write("#total\t%d\n" % _STATE["total"])


def install(options):
    _OPTIONS.update(options)
    _STATE["switch"] = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)
    _thread.start_new_thread(_sampler, ())
    _importprof["_importprof_launch"].at_exit(_dump)
