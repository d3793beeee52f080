"""importprof hook `lazy_calibrate`: the emulation's own cost per event in this interpreter (a lazy
binding, a resolution, a module load from the rewritten cache), timed so that importprof can
take it out of the prediction (see hook_lazy.py).

Standard library only; loaded by bootstrap/hook_lazy.py (the `lazy` hook), whose state it shares
(the same objects, bound here by name); it never imports the rest of the `profiler` package."""

_LAZY = _importprof["_importprof_hook_lazy"]
_LOADS = _LAZY._LOADS
_PENDING = _LAZY._PENDING
_COUNTS = _LAZY._COUNTS
_CALIBRATION = _LAZY._CALIBRATION
_BOOT = _LAZY._BOOT
_LAZY_REWRITE = _importprof["_importprof_hook_lazy_rewrite"]
_get_code = _LAZY_REWRITE._get_code
_code_for = _LAZY_REWRITE._code_for
_ORIGINAL_GET_CODE = _LAZY_REWRITE._ORIGINAL_GET_CODE


def _calibrate(n):
    """The emulation's own cost per event, in this interpreter (µs): a lazy binding (the call
    that replaces an import statement), a resolution beyond what the same import statement costs
    when it runs eagerly (3.15 pays that part too), and loading a module's code from the
    rewritten cache beyond python's own .pyc path."""
    import time

    clock = time.process_time  # CPU time: a loaded machine's scheduling does not inflate it
    bind_src = "for _ in range(%d):\n    __importprof_lazy__(2, 'sys', (('path', 'p'),), 0, 1)\n    p\n" % n
    plain_src = "for _ in range(%d):\n    from sys import path as p\n    p\n" % n
    empty_src = "for _ in range(%d):\n    p\n" % n
    timings = {}
    for label, src in (("lazy", bind_src), ("plain", plain_src), ("empty", empty_src)):
        code = compile(src, "<calibration>", "exec")
        best = None
        for _ in range(5):
            ns = {"p": None}
            t0 = clock()
            exec(code, ns)
            t = clock() - t0
            best = t if best is None or t < best else best
        timings[label] = best / n * 1e6
    # bind + resolve (a lookup resolves) beside the plain statement + lookup
    lazy_us = timings["lazy"] - timings["empty"]
    plain_us = timings["plain"] - timings["empty"]
    # the binding alone: the same loop without the lookup that resolves
    code = compile("for _ in range(%d):\n    __importprof_lazy__(2, 'sys', (('path', 'p'),), 0, 1)\n" % n,
                   "<calibration>", "exec")
    best = None
    for _ in range(5):
        ns = {}
        t0 = clock()
        exec(code, ns)
        t = clock() - t0
        best = t if best is None or t < best else best
    bind_us = best / n * 1e6
    _CALIBRATION["binding_us"] = round(bind_us, 4)
    _CALIBRATION["resolution_us"] = round(max(0.0, lazy_us - bind_us - plain_us), 4)
    _CALIBRATION["plain_import_us"] = round(plain_us, 4)
    # loading code: the rewritten cache against python's own .pyc path, same stdlib module
    loader = None
    for name in ("_weakrefset", "genericpath", "posixpath", "stat"):
        spec = _BOOT._find_spec(name, None) if hasattr(_BOOT, "_find_spec") else None
        if spec is not None and type(spec.loader).__name__ == "SourceFileLoader":
            loader = spec.loader
            break
    if loader is not None:
        fullname = loader.name
        _code_for(loader.get_filename(fullname))  # fill the cache
        per = {}
        for label, fn in (("ours", _get_code), ("python", _ORIGINAL_GET_CODE[0])):
            best = None
            for _ in range(5):
                t0 = clock()
                for _ in range(50):
                    fn(loader, fullname)
                t = clock() - t0
                best = t if best is None or t < best else best
            per[label] = best / 50 * 1e6
        _CALIBRATION["load_us"] = round(per["ours"] - per["python"], 4)
        _COUNTS["rewritten_loads"] = 0
    _COUNTS["bindings"] = _COUNTS["resolutions"] = 0
    del _PENDING[:]
    del _LOADS[:]


def install(options):
    """Nothing of its own: the `lazy` hook wires this module in."""
