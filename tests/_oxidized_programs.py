"""The real programs the oxidized, in-memory and frozen builds are proven on: pinned
requirements for `tests/_realprograms.py: real_venv`, the files they work on, and each one's
command line. Shared by tests/test_oxidized_real.py and benchmarks/bench_oxidized.py."""

from __future__ import annotations

from pathlib import Path

REQUIREMENTS = ("black==25.1.0", "httpie==3.2.4", "pygments==2.19.2", "sphinx==8.1.3", "pytest==8.3.4", "pip==24.3.1")
# on CPython 3.12+ (frozen only, no oxidized variants): a mypyc-compiled program
REQUIREMENTS_FROZEN_ONLY = ("black==25.1.0", "pygments==2.19.2")

UNFORMATTED = 'x = {  "a":1 }\n'
FILES = {
    "unformatted.py": UNFORMATTED,
    "formatted.py": 'x = {"a": 1}\n',
    "hello.py": "def f(x):\n    return x + 1\n",
    "suite/test_small.py": (
        "import json\n\n\ndef test_one():\n    assert json.loads('[1, 2]') == [1, 2]\n\n\n"
        "def test_two(tmp_path):\n    (tmp_path / 'x').write_text('y')\n    assert (tmp_path / 'x').read_text() == 'y'\n"
    ),
    # pytest run in-process, reporting each test's outcome without durations (which differ
    # from run to run, and so between variants)
    "run_suite.py": (
        "import sys\n\nimport pytest\n\n\nclass Outcomes:\n"
        "    def pytest_runtest_logreport(self, report):\n"
        "        if report.when == 'call' or report.outcome != 'passed':\n"
        "            print(report.nodeid, report.when, report.outcome)\n\n\n"
        "code = pytest.main(['-p', 'no:cacheprovider', '-p', 'no:terminal', sys.argv[1]], plugins=[Outcomes()])\n"
        "print('pytest exit', int(code))\nsys.exit(int(code))\n"
    ),
}

# name → the target's argv (after `importprof build/compare [options]`), from the venv's bin/
PROGRAMS = {
    "pip --version": lambda b: [f"{b}/pip", "--version"],
    "pip list": lambda b: [f"{b}/pip", "list"],
    "black --check": lambda b: [f"{b}/black", "--check", "formatted.py"],
    "black (formats a file)": lambda b: [f"{b}/black", "-q", "unformatted.py"],
    # --ignore-stdin: a run's stdin is /dev/null, which httpie would read as a request body and refuse beside a=b
    "http --offline": lambda b: [f"{b}/http", "--offline", "--ignore-stdin", "https://example.org/api?q=1", "a=b"],
    "pygmentize": lambda b: [f"{b}/pygmentize", "-f", "terminal", "hello.py"],
    "sphinx-build --version": lambda b: [f"{b}/sphinx-build", "--version"],
    "pytest (a small suite)": lambda b: ["run_suite.py", "suite"],  # run by the venv's python
}


def write_workdir(folder: Path) -> Path:
    for rel, text in FILES.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder
