"""`importprof report`: one self-contained HTML page holding a whole investigation."""

from __future__ import annotations

from typing import List, Optional

import typer

from profiler.commands._options import path_value, integer, FlagsOpt, IgnoreFailureOpt, PythonOpt, format_opt, runs_opt, variant_opt, warmup_opt
from profiler.commands._target import TargetCommand
from profiler.model.variant import DEFAULT_STARTUP_VARIANTS


def register(app: typer.Typer) -> None:
    app.command(
        "report",
        cls=_FromFiles,
        help=(
            "Write ONE self-contained HTML page (no network; opens from file://): start-up "
            "variants, the import tree (icicle), syscalls, site/.pth findings, machine facts. "
            "Runs the target, or builds the page from saved JSON documents with --from FILE..."
        ),
    )(report)


class _FromFiles(TargetCommand):
    """`report --from a.json b.json -o page.html`: the words after --from are more files."""

    files_option = "--from"


def report(
    ctx: typer.Context,
    python: PythonOpt = None,
    variant: variant_opt(f"Default: {','.join(DEFAULT_STARTUP_VARIANTS)}.") = None,
    flags: FlagsOpt = None,
    runs: runs_opt("Start-up runs per variant, and the doctor part's timed runs per command. Default: adaptive (at least 10, about 1 s per variant; the doctor's 10).") = None,
    import_runs: int = typer.Option(5, "--import-runs", metavar="N", parser=integer("--import-runs", 1), help="Runs of the import capture (medians)."),
    warmup: warmup_opt(1) = 1,
    skip: Optional[List[str]] = typer.Option(None, "--skip", metavar="PART[,PART...]", help="Parts not to run, comma-separated: startup, imports, trace, site, doctor."),
    compare: bool = typer.Option(False, "--compare", help="Also build and time the oxidized variants (importprof compare: traditional, no-site, oxidized, filesystem, in-memory). Slow the first time: it builds."),
    include: Optional[List[str]] = typer.Option(None, "--include", metavar="FILE", parser=path_value("--include"), help="Add a saved JSON document to a live report (e.g. compare --export-json FILE)."),
    from_: Optional[List[str]] = typer.Option(None, "--from", metavar="FILE", parser=path_value("--from"), help="Build the page from saved JSON documents (any importprof kind; more files may follow)."),
    title: Optional[str] = typer.Option(None, "--title", metavar="TEXT", help="The page's title."),
    ignore_failure: IgnoreFailureOpt = False,
    fmt: format_opt("html", "json") = None,
    output: Optional[str] = typer.Option(None, "-o", "--output", metavar="FILE", parser=path_value("-o"), help="Write the page to FILE atomically (default: stdout)."),
) -> None:
    from profiler.commands._common import Progress, check_outputs, deliver, info, suggesting_ignore_failure, warner
    from profiler.commands._target import files_of, has_target, target_of
    from profiler.errors import UsageError

    if from_:
        files = list(from_) + files_of(ctx)
        if has_target(ctx) or python or variant or flags or runs is not None or skip or include or compare or ignore_failure:
            raise UsageError("--from builds the page from saved documents: give no target, --python, --variant, --flags, --runs, --skip, --include, --compare or --ignore-failure with it")
        check_outputs(output)
        from profiler.compose.report import report_from_files

        page = report_from_files(files, title=title, warn=warner(ctx))
    else:
        target = target_of(ctx)
        check_outputs(output)
        from profiler.compose.report import ReportOptions, load_documents, report_live

        from profiler.commands._options import python_for, session_of

        included = load_documents(include) if include else []  # a bad document refused before anything runs

        opts = ReportOptions(
            target=target,
            python=python_for(ctx, python, target),  # resolved once, here
            variants=variant or [],
            flags=flags or [],
            runs=runs,
            import_runs=import_runs,
            warmup=warmup,
            skip=[p.strip() for item in (skip or []) for p in item.split(",") if p.strip()],
            include=include or [],
            included=included,
            compare=compare,
            title=title,
            ignore_failure=ignore_failure,
        )
        from profiler.commands._common import showing_partial
        from profiler.render.console_startup import render_startup_table

        # Ctrl-C while the start-up part measures: its runs so far as startup shows them
        with showing_partial(render_startup_table), suggesting_ignore_failure(), Progress("report", session_of(ctx)):
            page = report_live(opts, session=session_of(ctx))

    from profiler.render.console_report import render_report_summary

    deliver(page, fmt=fmt or "html", output=output, table=render_report_summary)
    if output and output != "-":
        import os

        info(f"wrote {output} ({os.path.getsize(output) / 1024:.0f} KiB)")
