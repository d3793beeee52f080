"""importprof's launcher: runs INSIDE the measured interpreter. Standard library only, Python
3.8+, and it never imports the rest of the `profiler` package.

    python -S [flags] .../bootstrap/launch.py OPTIONS_JSON (-c CODE | -m MODULE | SCRIPT) [ARGS...]

OPTIONS_JSON is a JSON object:
  {"hooks": ["markers", ...],  # modules hook_<name>.py beside this file, installed in order
   "site": true,               # run site.main() after the hooks (false for the no-site variant)
   ... any per-hook options ...}
Each hook module defines `install(options)`; it is called before `site` runs, so imports made
by `site` and `.pth` files are seen too. Then the target runs as python itself would run it:
`-c` code in `__main__` with sys.argv[0] == '-c'; `-m` through runpy with sys.argv[0] the
module's file; a script with sys.path[0] its folder.

Difference from a plain run, documented: `sys.flags.no_site` is 1 even when `site` ran (the
interpreter was started with -S so that the hooks come first).
"""

import json
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _load_hook(name):
    import importlib.util

    path = os.path.join(_HERE, "hook_%s.py" % name)
    spec = importlib.util.spec_from_file_location("_importprof_hook_%s" % name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("importprof launch: usage: launch.py OPTIONS_JSON TARGET...\n")
        return 2
    options = json.loads(argv[0])
    target = argv[1:]
    # sys.path[0] is this folder (python put the launcher's dir there): drop it.
    if sys.path and os.path.abspath(sys.path[0] or ".") == _HERE:
        del sys.path[0]
    for name in options.get("hooks", ()):
        _load_hook(name).install(options)
    if options.get("site", True):
        import site

        site.main()
    return _run_target(target)


def _run_target(target):
    import runpy

    kind = target[0]
    if kind == "-c":
        code, rest = target[1], target[2:]
        sys.argv = ["-c"] + rest
        sys.path.insert(0, "")
        main_mod = sys.modules["__main__"]
        namespace = {"__name__": "__main__", "__builtins__": __builtins__, "__doc__": None}
        main_mod.__dict__.clear()
        main_mod.__dict__.update(namespace)
        exec(compile(code, "<string>", "exec"), main_mod.__dict__)
        return 0
    if kind == "-m":
        module, rest = target[1], target[2:]
        sys.argv = [module] + rest  # runpy replaces argv[0] with the module's path
        sys.path.insert(0, os.getcwd())
        runpy._run_module_as_main(module, alter_argv=True)
        return 0
    script, rest = target[0], target[1:]
    sys.argv = [script] + rest
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
