"""Progress and warnings on stderr: a command that runs for more than a second says
where it is, one plain line per phase and no counts when stderr is not a terminal (a rich bar
when it is);
stdout keeps only the output, and every warning the JSON carries also reached stderr."""

from __future__ import annotations

import json
import re


def test_plain_progress_lines_and_warnings_on_stderr(cli):
    res = cli("startup", "--runs", "25", "--warmup", "1", "--variant", "default,no-site", "--format", "json", "-c", "import json")
    assert res.returncode == 0, res
    doc = json.loads(res.stdout)  # stdout: the document only, no progress in it
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("importprof: measuring")]
    assert lines, res.stderr  # 25 runs x 2 variants of `import json`: well over a second
    assert lines == ["importprof: measuring: 2 commands, 25 runs each after 1 warm-up"], lines  # the phase, once
    assert not re.search(r"\(\d+/\d+\)", res.stderr), res.stderr  # no counts in a log
    assert "\x1b[" not in res.stderr  # not a terminal: plain text
    for w in doc["warnings"]:
        assert f"importprof: warning: {w}" in res.stderr, w


def test_report_says_which_part_it_is_in(cli, tmp_path):
    out = tmp_path / "page.html"
    # progress lines start once the command has run a second: a target that sleeps past it in
    # the first part makes every later part announce itself, however fast the machine is
    res = cli("report", "--runs", "1", "--warmup", "0", "--import-runs", "1", "--variant", "default",
              "--skip", "trace,doctor", "-o", out, "-c", "import json, time; time.sleep(1.2)")
    assert res.returncode == 0, res
    parts = [ln.split(": ")[2] for ln in res.stderr.splitlines() if ln.startswith("importprof: report: ")]
    assert {"imports", "site"} <= set(parts), res.stderr  # each part announced once it runs
    assert len(parts) == len(set(parts)), res.stderr  # once each
