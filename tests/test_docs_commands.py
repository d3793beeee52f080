"""The other half of the pages' command lines (test_readme.py's SECOND_WORKER), run the same way
in a file of their own, so that `make test`'s second worker runs them beside the first half."""

from __future__ import annotations

import pytest

from test_readme import PAGES, SECOND_WORKER, page_name, run_page


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if page_name(p) in SECOND_WORKER], ids=page_name)
def test_the_quick_commands_of_each_page_run_and_write_the_files_they_name(page, tmp_path, real_python):
    run_page(page, tmp_path, real_python)
