"""read_ending on the stderr real interpreters print (each text below was printed by the
python named beside it, by the command shown)."""

import pytest

from profiler.parse.exit_status import read_ending

CASES = [
    # python3.11 bad.py  (bad.py: "x = (")
    (1, '  File "/tmp/bad.py", line 1\n    x = (\n        ^\nSyntaxError: \'(\' was never closed\n', False, "it does not compile"),
    # python3.11 -c 'if 1:\nx'
    (1, '  File "<string>", line 2\n    x\n    ^\nIndentationError: expected an indented block after \'if\' statement on line 1\n', False, "it does not compile"),
    # python3.11 -m nonexistent_mod
    (1, "/usr/bin/python3.11: No module named nonexistent_mod\n", False, "no such module"),
    # python3.11 -m nonexistent_pkg.sub
    (1, "/usr/bin/python3.11: Error while finding module specification for 'nonexistent_pkg.sub' "
        "(ModuleNotFoundError: No module named 'nonexistent_pkg')\n", False, "no such module"),
    # python3.11 -m email
    (1, "/usr/bin/python3.11: No module named email.__main__; 'email' is a package and cannot be directly executed\n",
     False, "no such module"),
    # python3.11 missing.py
    (2, "/usr/bin/python3.11: can't open file '/tmp/missing.py': [Errno 2] No such file or directory\n", False,
     "Python could not open the script"),
    # python3.11 -c 'import nonexistent_mod'
    (1, 'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
        "ModuleNotFoundError: No module named 'nonexistent_mod'\n", False, "it ended in a traceback"),
    # flake8 sample.py (lint errors are on stdout; stderr empty)
    (1, "", True, ""),
    # python3.11 -c 'import sys; sys.exit("E: 3 tests failed")'
    (1, "E: 3 tests failed\n", True, ""),
    (-9, "", False, "killed by signal 9"),
    (0, "SyntaxError: printed by the program itself\n", True, ""),
]


@pytest.mark.parametrize("code, stderr, on_purpose, why", CASES)
def test_read_ending(code, stderr, on_purpose, why):
    ending = read_ending(code, stderr)
    assert (ending.ran_on_purpose, ending.why) == (on_purpose, why)
