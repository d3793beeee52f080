"""The `import-stdlib` workload: import every module listed in import_stdlib.txt (beside this
file), in order; print how many imported. Standard library only; runs in every variant."""
import warnings

warnings.simplefilter("ignore")  # deprecated modules (asynchat, imp, ...) warn when imported


def main():
    here = __file__.rpartition("/")[0]
    with open(here + "/import_stdlib.txt") as fh:
        names = [ln.strip() for ln in fh if ln.strip() and not ln.startswith("#")]
    imported = 0
    for name in names:
        try:
            __import__(name)
        except ImportError:  # optional C libraries missing on this machine (e.g. _gdbm)
            continue
        imported += 1
    print(f"imported {imported} of {len(names)} stdlib modules")


main()
