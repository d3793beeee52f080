"""test_transparency.py's real-program tests on 3.15: the same test functions, collected here
with this file's venv. A file of their own because `make test` hands whole files to its two
workers (--dist loadfile): the 3.11 half and this one (about 220 s each here) run at once, not
one after the other at the end of the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_transparency import (  # noqa: F401  (collected here, on 3.15)
    test_an_instrument_leaves_the_program_as_it_runs_bare,
    test_every_command_runs_the_program_as_it_runs_bare,
)
from test_transparency import programs_venv

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session", params=("3.15",))
def venv(request) -> Path:
    return programs_venv(request.param)
