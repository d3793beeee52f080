"""importprof hook `import_sites`: the file:line of the import statement that triggered each module.
Standard library only, Python 3.8+.

It turns on the `phases` hook's site recording (installing that hook first when the launcher
was not asked for it): for each import, the first frame outside importlib's machinery and
importprof's hooks is the importing statement; its file, line and module `__name__` go on the
module's record as "site": [file, line, importer]. An import made by a `.pth` line is
attributed to the `.pth` file and its line number (the `site` hook labels those lines).
"""


def install(options):
    phases = _importprof["_importprof_launch"].load_hook("phases", options)
    phases.skip_file(__file__)
    phases.enable_sites()
