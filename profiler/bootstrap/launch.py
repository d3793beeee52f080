"""importprof's launcher: runs INSIDE the measured interpreter. Standard library only, Python
3.8+, and it never imports the rest of the `profiler` package.

    python -S [flags] .../bootstrap/launch.py OPTIONS_HEX (-c CODE | -m MODULE | SCRIPT) [ARGS...]

OPTIONS_HEX is a dict serialized by `marshal` (format 4) and hex-encoded:
  {"hooks": ["phases", ...],   # modules hook_<name>.py beside this file, installed in order
   "site": True,               # run site.main() after the hooks (False for the no-site variant)
   "hook_cache": "/folder",    # optional: compiled hooks are kept there (see _hook_code)
   ... any per-hook options ...}
Each hook module defines `install(options)`; it is called before `site` runs, so imports made
by `site` and `.pth` files are seen too. Hooks reach the launcher's helpers through
`_importprof["_importprof_launch"]` (each hook's global `_importprof`, never in sys.modules): `load_hook(name, options)` (load and install another hook
once) and `at_exit(fn)`. Then the target runs as python itself would run it:
`-c` code in `__main__` with sys.argv[0] == '-c'; `-m` through runpy (as python does) with
sys.argv[0] the module's file; a script compiled and run in `__main__` with sys.path[0] its
folder.

The launcher imports NOTHING that a bare `python -S` has not already imported (sys, marshal,
posix and the builtins only: no json, no os, no importlib.util), so that every module the
target or `site` imports is still imported for real, under the hooks. Hooks are loaded by
compiling their source into a fresh module object for the same reason.

The interpreter is started with -S so that the hooks come first; when `site` is to run (every
variant but no-site), `sys.flags.no_site` is set back to 0 before `site.main()`, so the program
sees the flags of a plain run: 3.13+'s traceback does not blame a disabled site for a
ModuleNotFoundError, and `subprocess._args_from_interpreter_flags()` (multiprocessing's spawn and
forkserver children) does not pass -S on (see _site_flag_restorer). Differences from a plain
run, documented: `sys.orig_argv` names the launcher; an uncaught exception of the program is
printed by `sys.excepthook` with the launcher's and the hooks' frames removed (the traceback
python itself would print), and the exit code is 1, as python's.
"""

# eager, always: an import inside `try` is never lazy under PEP 810 (-X lazy_imports=all, or the
# program's own filter), so importprof's code never leaves a lazy import for the program to resolve
try:
    import marshal
    import posix
    import sys
finally:
    pass

_HERE = __file__.rpartition("/")[0] or "."


def _abspath(path):
    return path if path.startswith("/") else posix.getcwd() + "/" + path


# importprof's own modules (the launcher's API, the hooks loaded), kept out of sys.modules: the
# program sees its own sys.modules (a program that counts or walks it notices nothing); each hook
# finds the others through this dict, its global `_importprof`
_OWN = {}


def load_hook(name, options, _own=_OWN):
    """Load and install hook_<name>.py once (a hook may ask for another it builds on)."""
    key = "_importprof_hook_%s" % name
    if key in _own:
        return _own[key]
    path = _HERE + "/hook_%s.py" % name
    module = type(sys)(key)
    module.__file__ = path
    module._importprof = _own
    _own[key] = module
    exec(_hook_code(name, path, options.get("hook_cache")), module.__dict__)
    module.install(options)
    return module


# Hooks whose functions run INSIDE the import machinery (around `_find_and_load`, a loader's
# `get_code`, a lazy name's resolution) are compiled under importlib's own frame name, so that
# what python does with importlib's frames it does with theirs: a traceback through an import
# leaves them out (import.c's remove_importlib_frames matches this exact name), and
# `warnings.warn(stacklevel=N)` in a module body skips them (it skips frames whose file names
# "importlib" and "_bootstrap"), so a warning names the program's import statement, as without
# importprof. Their module's `__file__` stays the real path.
_MACHINERY = ("phases", "lazy", "lazy_bind", "lazy_rewrite")
_MACHINERY_NAME = "<frozen importlib._bootstrap>"


def _hook_code(name, path, cache):
    """The hook's code: compiled from its source or, with a `hook_cache` folder in the options,
    read from the marshal file compiled there by an earlier run (keyed by the interpreter's
    cache tag and the source's mtime and size), so that timed runs do not pay for compiling."""
    cached = None
    filename = _MACHINERY_NAME if name in _MACHINERY else path
    if cache:
        st = posix.stat(path)
        cached = "%s/hook_%s.%s.%d.%d%s.bin" % (cache, name, sys.implementation.cache_tag, st.st_mtime_ns, st.st_size,
                                                ".m" if filename != path else "")
        try:
            with open(cached, "rb") as fh:
                return marshal.loads(fh.read())
        except (OSError, ValueError, EOFError, TypeError):
            pass
    with open(path, "rb") as fh:
        code = compile(fh.read(), filename, "exec")
    if cached:
        tmp = "%s.%d.tmp" % (cached, posix.getpid())
        try:
            with open(tmp, "wb") as fh:
                fh.write(marshal.dumps(code))
            posix.rename(tmp, cached)
        except OSError:
            pass
    return code


def _site_flag_restorer():
    """A function that sets `sys.flags.no_site` to 0 (None when it cannot be done).

    sys.flags is a read-only struct sequence that no Python code can make, so its `no_site`
    slot (index 6 on 3.8-3.15) is written in place, through `_ctypes` (the extension module
    alone, not the `ctypes` package: ~1 ms, nothing else imported). `_ctypes` is imported before
    any hook and taken out of sys.modules again: the program's own `import ctypes` is still an
    import. The slot holding the tuple's items is found by matching the objects' addresses, so
    no header layout is assumed (3.14 added a cached hash to tuples)."""
    flags = sys.flags
    if len(flags) < 7 or flags[6] != flags.no_site or not flags.no_site:
        return None
    had = "_ctypes" in sys.modules
    try:
        import _ctypes
    except ImportError:
        return None
    finally:
        if not had:
            sys.modules.pop("_ctypes", None)
    n = len(flags)

    class _Word(_ctypes._SimpleCData):
        _type_ = "P"

    class _Count(_ctypes._SimpleCData):
        _type_ = "q"

    class _Words(_ctypes.Array):
        _type_ = _Word
        _length_ = n + 8

    def restore():
        words = _Words.from_address(id(flags))
        ids = [id(x) for x in flags]
        for offset in range(2, 8):
            if all(words[offset + k] == ids[k] for k in range(n)):
                break
        else:
            return
        old = flags[6]
        new = 0
        if sys.version_info < (3, 12):  # (3.12+: small ints are immortal, their counts fixed)
            _Count.from_address(id(new)).value += 1
        words[offset + 6] = id(new)
        if sys.version_info < (3, 12):
            _Count.from_address(id(old)).value -= 1

    return restore


def own_error(where, exc, sys=sys, open=open, _own=_OWN):
    """importprof's own code failed inside the program: said as importprof's, with its cause,
    in the run's errors file (options["errors_path"], which the capture side reads and reports),
    never as the program's (its stderr stays the program's). Without a file: one line on stderr
    that names importprof. Uses no globals: at exit this module's are gone (it was __main__)."""
    tb = getattr(exc, "__traceback__", None)
    at = ""
    while tb is not None:
        at = " (%s:%d)" % (tb.tb_frame.f_code.co_filename.rpartition("/")[2], tb.tb_lineno)
        tb = tb.tb_next
    try:
        text = "%s: %s: %s%s" % (where, type(exc).__name__, exc, at)
    except Exception:  # an exception whose str() fails
        text = "%s: %s%s" % (where, type(exc).__name__, at)
    text = text.replace("\n", " ")
    path = getattr(_own.get("_importprof_launch"), "errors_path", None)
    try:
        if path:
            with open(path, "a", encoding="utf-8", errors="replace") as fh:
                fh.write(text + "\n")
            return
    except OSError:
        pass
    sys.stderr.write("importprof (its own code, not the program's): %s\n" % text)


def _guarded(fn):
    """An exit handler of importprof's that can only fail as importprof's."""

    def run_guarded(fn=fn, own_error=own_error):  # (no globals at exit: bound here)
        try:
            fn()
        except BaseException as exc:  # (SystemExit too: never the program's exit code)
            own_error("exit handler %s" % getattr(fn, "__qualname__", "?"), exc)
    return run_guarded


def at_exit(fn):
    """atexit.register without leaving `atexit` in sys.modules (the program's own import of
    atexit must still be seen as an import). `fn` runs guarded: a failure is importprof's."""
    had = "atexit" in sys.modules
    import atexit

    atexit.register(_guarded(fn))
    # Before 3.10 the callbacks live in the atexit module object and the interpreter calls back
    # the LAST one created (a borrowed pointer): hidden from sys.modules, the program's own
    # `import atexit` made a second one and ours never ran (and once ours was freed, the exit
    # was a segfault, -11). There, `atexit` (a builtin module) stays imported; 3.10+ keep the
    # callbacks in the interpreter, so hiding it is safe.
    _API._atexit = atexit  # (not a global here: running the target clears __main__'s namespace)
    if not had and sys.version_info >= (3, 10):
        del sys.modules["atexit"]


# ------------------------------------------------------------------ reading the program's objects
# The program's modules are read without trusting them: a cffi `Lib` answers isinstance(x,
# ModuleType) through its __class__ and has no __dict__; a module subclass may make __dict__ or
# __getattr__ run code (Mercurial's demandimport proxies, LazyLoader's modules, PEP 810's lazy
# objects, PEP 562's module __getattr__). Only a true module's own namespace is read, through
# ModuleType's own descriptor, and only plain values from it.
# Defined inside a function: these run at exit, when this module's globals are gone (the
# launcher's namespace became the program's __main__), so they see each other through closures.


def _object_readers():
    _ModuleType = type(sys)
    _MODULE_DICT = _ModuleType.__dict__["__dict__"]
    _INF = float("inf")

    def module_dict(mod):
        """The module's own namespace dict, read without running any of its code (None: not a
        module object, or one whose namespace cannot be read)."""
        try:
            if not issubclass(type(mod), _ModuleType):
                return None
            d = _MODULE_DICT.__get__(mod, _ModuleType)
        except Exception:
            return None
        return d if type(d) is dict else None

    def _plain(d, key):
        try:
            v = dict.get(d, key)
        except Exception:
            return None
        return v if type(v) is str else None

    def module_name(mod):
        return _plain(module_dict(mod) or {}, "__name__")

    def module_file(mod):
        return _plain(module_dict(mod) or {}, "__file__")

    def module_spec(mod):
        d = module_dict(mod)
        return dict.get(d, "__spec__") if d is not None else None

    def spec_attr(spec, attr):
        """A ModuleSpec's attribute read from its instance dict (never a property of another class)."""
        try:
            d = object.__getattribute__(spec, "__dict__")
            return dict.get(d, attr) if type(d) is dict else None
        except Exception:
            return None

    def module_origin(mod):
        origin = spec_attr(module_spec(mod), "origin")
        return origin if type(origin) is str else None

    # ------------------------------------------------------------------ JSON without `import json`
    # The hooks write their records at exit, when the program may have replaced builtins.__import__
    # (Mercurial's demandimport) or made every import lazy (-X lazy_imports=all): `import json`
    # there runs under the program's rules, and importing it at start would change which modules the
    # program's own imports execute. So records are encoded here: str, int, float, bool, None,
    # lists, tuples and dicts with str keys, as json.dumps (ensure_ascii) writes them.

    _ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}

    def _string(s):
        if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
            return '"' + s + '"'
        out = []
        for c in s:
            e = _ESCAPES.get(c)
            if e is not None:
                out.append(e)
                continue
            n = ord(c)
            if 0x20 <= n < 0x7F:
                out.append(c)
            elif n > 0xFFFF:
                n -= 0x10000
                out.append("\\u%04x\\u%04x" % (0xD800 | (n >> 10), 0xDC00 | (n & 0x3FF)))
            else:
                out.append("\\u%04x" % n)
        return '"' + "".join(out) + '"'

    def dumps(value):
        t = type(value)
        if t is str:
            return _string(value)
        if value is None:
            return "null"
        if t is bool:
            return "true" if value else "false"
        if t is int:
            return int.__repr__(value)
        if t is float:
            if value != value:
                return "NaN"
            if value in (_INF, -_INF):
                return "Infinity" if value > 0 else "-Infinity"
            return float.__repr__(value)
        if t in (list, tuple):
            return "[" + ", ".join([dumps(v) for v in value]) + "]"
        if t is dict:
            return "{" + ", ".join([_string(k if type(k) is str else str(k)) + ": " + dumps(v) for k, v in value.items()]) + "}"
        if isinstance(value, str):  # a str subclass (a lazy key's text)
            return _string(str.__str__(value))
        if isinstance(value, int):
            return int.__repr__(value)
        raise TypeError("importprof's record cannot hold a %s" % t.__name__)

    return dict(module_dict=module_dict, module_name=module_name, module_file=module_file, module_spec=module_spec,
                module_origin=module_origin, spec_attr=spec_attr, dumps=dumps)


# What hooks may use: _importprof["_importprof_launch"].load_hook / .at_exit / .dumps / .module_*
_API = type(sys)("_importprof_launch")
_API.load_hook = load_hook
_API.at_exit = at_exit
_API.own_error = own_error
_API.errors_path = None
for _name, _fn in _object_readers().items():
    setattr(_API, _name, _fn)
_API.compile_main = None  # set by a hook that compiles the -c/script target itself
# the script's code file name (absolute, as python 3.9+ makes it) -> the path as given: what the
# hooks write in their records, so that a site reads as the command line named the script
_API.shown = {}
_API.__file__ = __file__


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("importprof launch: usage: launch.py OPTIONS_HEX TARGET...\n")
        return 2
    options = marshal.loads(bytes.fromhex(argv[0]))
    target = argv[1:]
    # python put this folder in sys.path[0] (the launcher is a script): drop it.
    if sys.path and _abspath(sys.path[0] or ".").rstrip("/") == _abspath(_HERE).rstrip("/"):
        del sys.path[0]
    _OWN[_API.__name__] = _API
    _API.errors_path = options.get("errors_path")
    run_site = options.get("site", True)
    # made before the hooks: its import of _ctypes is importprof's own, never recorded
    restore_flag = _site_flag_restorer() if run_site and options.get("site_flag", True) else None
    for name in options.get("hooks", ()):
        try:
            load_hook(name, options)
        except Exception as exc:  # importprof's failure: the program is not run under a half-installed hook
            own_error("installing hook %s" % name, exc)
            return 3
    if run_site:
        import site  # (with -S still in the flags: importing site does not run main() itself)

        if restore_flag is not None:
            restore_flag()
        site.main()
    # locals: running the target clears this module's globals (it becomes the program's __main__)
    strip, the_sys = _strip_own_frames, sys
    try:
        return _run_target(target)
    except Exception as exc:
        # the program's traceback as python would print it: without importprof's own frames
        # (this launcher, the hooks wrapping the import machinery)
        strip(exc)
        the_sys.excepthook(type(exc), exc, exc.__traceback__)
        return 1
    except KeyboardInterrupt as exc:  # the same, then die of SIGINT as python does
        strip(exc)
        the_sys.excepthook(type(exc), exc, exc.__traceback__)
        import os
        import signal

        the_sys.stderr.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        return 130


def _strip_own_frames(exc, here=_HERE + "/"):
    """Drop this package's frames (launch.py, hook_*.py: by file, or by their module's name for
    the hooks compiled under importlib's frame name) from exc's traceback and from its
    cause/context chain. Uses no globals: they are gone once the target ran."""
    seen = set()
    todo = [exc]
    while todo:
        exc = todo.pop()
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        frames = []
        tb = exc.__traceback__
        while tb is not None:
            name = tb.tb_frame.f_code.co_filename
            own = name.startswith(here) and name[len(here):].startswith(("launch", "hook_"))
            if not own and not str(tb.tb_frame.f_globals.get("__name__")).startswith("_importprof_hook_"):
                frames.append(tb)
            tb = tb.tb_next
        new = None
        for tb in reversed(frames):
            new = type(tb)(new, tb.tb_frame, tb.tb_lasti, tb.tb_lineno)
        exc.__traceback__ = new
        todo.append(exc.__cause__)
        todo.append(exc.__context__)


def _run_target(target):
    main_mod = sys.modules["__main__"]
    # -P, and -I since 3.11: python puts no script folder / current folder first on sys.path
    safe_path = getattr(sys.flags, "safe_path", False)
    kind = target[0]
    if kind == "-m":
        import runpy  # python itself runs -m through runpy

        module, rest = target[1], target[2:]
        sys.argv = [module] + rest  # runpy replaces argv[0] with the module's path
        if not safe_path:
            sys.path.insert(0, posix.getcwd())
        runpy._run_module_as_main(module, alter_argv=True)
        return 0
    if kind == "-c":
        code, rest = target[1], target[2:]
        sys.argv = ["-c"] + rest
        if not safe_path:
            sys.path.insert(0, "")
        filename = "<string>"
        source = code
        # python's -c: no __file__, the builtin importer as __loader__
        extra = {"__loader__": sys.modules["_frozen_importlib"].BuiltinImporter}
    else:
        script, rest = target[0], target[1:]
        sys.argv = [script] + rest
        if not safe_path:
            sys.path.insert(0, _abspath(script).rpartition("/")[0] or "/")
        with open(script, "rb") as fh:
            source = fh.read()
        # python 3.9+ makes the script's __file__ (and its code's file name) absolute; sys.argv[0]
        # stays as given
        filename = _abspath(script) if sys.version_info >= (3, 9) else script
        if filename != script:
            _API.shown[filename] = script
        loader = sys.modules["_frozen_importlib_external"].SourceFileLoader("__main__", filename)
        extra = {"__file__": filename, "__cached__": None, "__loader__": loader}
    namespace = {"__name__": "__main__", "__builtins__": __builtins__, "__doc__": None,
                 "__loader__": None, "__spec__": None, "__package__": None}
    namespace.update(extra)
    compiler = _API.compile_main or compile  # a hook may compile the target (the lazy hook rewrites it)
    code = compiler(source, filename, "exec")
    if kind == "-c" and sys.version_info >= (3, 13):
        # python 3.13+ registers -c code with linecache (its tracebacks then show the lines)
        import linecache

        register = getattr(linecache, "_register_code", None)
        if register is not None:
            register(code, source, filename)
    # (from here on this module's globals are gone: it is the program's __main__)
    main_mod.__dict__.clear()
    main_mod.__dict__.update(namespace)
    exec(code, main_mod.__dict__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
