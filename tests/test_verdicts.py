"""Verdicts that agree with their evidence (issue 41), on pure functions:

- `diff`: modules added or removed are a change whatever the times' spread (deterministic
  evidence), said beside what the times alone say;
- `doctor`: the lazy finding is `lazy`'s measured saving, and none when lazy imports measured no
  faster, within the spread, or changed the output (Mercurial: 1.15x slower lazy, where the old
  estimate recommended 16.6 ms);
- the keep-eager filter `--filter-out` writes keeps exactly what the hook's filter keeps eager
  (a from-list's submodules too), so `lazy` and `--filter-out` give one set.
"""

from __future__ import annotations

import importlib.util
import os

from profiler.analysis.diff import diff_reports, gate_failures
from profiler.analysis.doctor import lazy_finding, lazy_no_gain
from profiler.analysis.lazy_filter import filter_module
from profiler.model.lazy import LazyReport, Prediction
from profiler.model.measurement import TimingResult
from profiler.parse.importtime import parse_importtime
from profiler.render.console_imports import render_diff_table
from profiler.workflows.imports import report_from_logs

HEADER = "import time: self [us] | cumulative | imported package\n"


def row(self_us, cum, depth, name):
    return "import time: %9ld | %10ld | %*s%s\n" % (self_us, cum, depth * 2, "", name)


def rep(*texts):
    return report_from_logs([parse_importtime(t) for t in texts], machine={}, python=None, python_version=None, target=None,
                            source="log")


def test_modules_added_are_significant_whatever_the_spread():
    """The README's example: the times spread widely (runs 60-140 ms), the new capture imports
    more modules: the change is significant, and the line says on what evidence."""
    old = [HEADER + row(t, t, 0, "mylib") for t in (60_000, 100_000, 140_000)]
    new = [HEADER + row(t, t + 9000, 0, "mylib") + row(4000, 9000, 1, "http.client") + row(5000, 5000, 2, "email.parser")
           for t in (55_000, 95_000, 150_000)]
    d = diff_reports(rep(*old), rep(*new))
    assert d.totals.times_significant is False  # the times alone: within the runs' spread
    assert d.totals.significant is True and d.totals.modules_added == 2 and d.totals.modules_removed == 0
    doc = d.to_dict()["totals"]
    assert doc["significant"] is True and doc["modules_added"] == 2 and doc["times_significant"] is False
    line = render_diff_table(d, tty=False).splitlines()[0]
    assert "significant: 2 modules added (a change whatever the times' spread; the times alone: within the runs' spread)" in line
    assert gate_failures(d, 1, None)  # a --fail-over gate trips: the growth is real


def test_no_module_change_keeps_the_times_verdict():
    base = [HEADER + row(100 + j, 100 + j, 0, "a") for j in (0, 2, 4)]
    same = [HEADER + row(101 + j, 101 + j, 0, "a") for j in (0, 2, 4)]
    d = diff_reports(rep(*base), rep(*same))
    assert d.totals.significant is False
    assert d.totals.modules_added is None and "modules_added" not in d.to_dict()["totals"]


def _lazy_report(eager_s, eager_sd, lazy_s, lazy_sd, identical=True):
    """A report as `lazy` times it on 3.15 (the prediction is the measured lazy run)."""
    def timing(variant, mean, sd):
        return TimingResult(command=variant, mean=mean, stddev=sd, median=mean, user=mean / 2, system=0.0, min=mean, max=mean,
                            times=(mean,), exit_codes=(0,), memory_usage_byte=None, variant=variant, key=variant)

    return LazyReport(results=(timing("eager", eager_s, eager_sd), timing("lazy", lazy_s, lazy_sd)), must_stay_eager=(),
                      avoided=(), identical_output=identical, modules_eager=452, modules_lazy=321, statements=(),
                      mode="-X lazy_imports=all", prediction=Prediction(lazy_s, lazy_s / eager_s, 0.0))


def test_doctor_recommends_no_lazy_import_measured_slower():
    """Mercurial's `hg status` on 3.15 (this machine): eager 531.9 ± 131.3 ms, lazy 645.0 ± 108.4 ms."""
    r = _lazy_report(0.5319, 0.1313, 0.6450, 0.1084)
    assert lazy_finding(r) is None
    assert "no faster" in lazy_no_gain(r)


def test_doctor_recommends_no_lazy_import_within_the_spread():
    r = _lazy_report(0.100, 0.010, 0.095, 0.010)
    assert lazy_finding(r) is None
    assert "within the timings' spread" in lazy_no_gain(r)


def test_doctor_recommends_no_lazy_import_that_changes_the_output():
    r = _lazy_report(0.100, 0.001, 0.050, 0.001, identical=False)
    assert lazy_finding(r) is None
    assert "change the program's output" in lazy_no_gain(r)


def test_doctor_lazy_finding_is_the_measured_saving():
    r = _lazy_report(0.100, 0.002, 0.060, 0.002)
    f = lazy_finding(r)
    assert f is not None and f.cost_us == 40_000 and not f.estimate
    assert lazy_no_gain(r) is None


def _hook_filter():
    """The hook's own filter (bootstrap/hook_lazy.py: _keep_filter), loaded from its source."""
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "profiler", "bootstrap", "hook_lazy.py")
    spec = importlib.util.spec_from_file_location("_importprof_hook_lazy_test", here)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_filter_out_and_the_hook_keep_the_same_imports_eager():
    eager = ["re._parser", "mercurial.thirdparty.attr"]
    plain = {}
    exec(filter_module(eager), plain)  # on 3.11 the module defines its filter and installs nothing
    hook = _hook_filter()
    hook._KEEP.update(eager)
    cases = [
        ("mercurial.util", "mercurial.thirdparty", ("attr",)),  # from .thirdparty import attr
        ("mercurial.util", "mercurial.thirdparty", ("zstd",)),
        ("re", "re._parser", None),
        ("app", "re", ("compile",)),
        ("app", "json", None),
        ("app", "mercurial.thirdparty.attr", None),
    ]
    for importer, name, fromlist in cases:
        assert plain["keep_lazy"](importer, name, fromlist) == hook._keep_filter(importer, name, fromlist), (name, fromlist)
    assert plain["keep_lazy"]("mercurial.util", "mercurial.thirdparty", ("attr",)) is False
    assert plain["keep_lazy"]("app", "json", None) is True


def test_in_memory_verified_is_compares_cpu_with_the_wall_beside():
    """--verify's in-memory figure is compare's measured CPU (user + system), the wall said beside."""
    from profiler.analysis.doctor import in_memory_verified
    from profiler.model.doctor import Finding

    f = Finding(kind="in-memory", title="t", where="w", cost_us=15_200, fix="f", estimate=True)
    got = in_memory_verified(f, {"oxidized": (0.380, 0.010), "in-memory": (0.3606, 0.012)},
                             {"oxidized": (0.1200, 0.0010), "in-memory": (0.1024, 0.0012)})
    assert got.measured_us == 17_600 and got.measured_spread_us == 1_562
    assert "CPU time (user + system) saved: 17.6 ms ± 1.6 ms" in got.verify
    assert "wall time saved: 19.4 ms ± 15.6 ms" in got.verify
    wall_only = in_memory_verified(f, {"oxidized": (0.380, 0.010), "in-memory": (0.3606, 0.012)})
    assert wall_only.measured_us == 19_400
