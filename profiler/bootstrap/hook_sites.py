"""importprof hook `sites`: the file:line of the import statement that triggered each module.
Standard library only, Python 3.8+.

It turns on the `phases` hook's site recording (installing that hook first when the launcher
was not asked for it): for each import, the first frame outside importlib's machinery and
importprof's hooks is the importing statement; its file, line and module `__name__` go on the
module's record as "site": [file, line, importer]. An import made by a `.pth` line is
attributed to the `.pth` file and its line number (the `site` hook labels those lines).
"""

import sys


def _phases(options):
    mod = sys.modules.get("_importprof_hook_phases")
    if mod is None:
        import importlib.util

        path = __file__.rsplit("/", 1)[0] + "/hook_phases.py"
        spec = importlib.util.spec_from_file_location("_importprof_hook_phases", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        mod.install(options)
    return mod


def install(options):
    phases = _phases(options)
    phases.skip_file(__file__)
    phases.enable_sites()
