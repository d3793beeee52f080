"""`importprof report`: one self-contained HTML page holding a whole investigation."""

from __future__ import annotations

from typing import List, Optional

import typer
from typer.core import TyperCommand


def register(app: typer.Typer) -> None:
    app.command(
        "report",
        cls=_FromFiles,
        context_settings={"allow_interspersed_args": False},
        help=(
            "Write ONE self-contained HTML page (no network; opens from file://): start-up "
            "variants, the import tree (icicle), syscalls, site/.pth findings, machine facts. "
            "Runs the target (-c CODE | -m MODULE | SCRIPT [ARGS...] | -- COMMAND...; default "
            "-c pass), or builds the page from saved JSON documents with --from FILE..."
        ),
    )(report)


class _FromFiles(TyperCommand):
    """`report --from a.json b.json -o page.html`: the files after the first are positional, and
    with interspersed arguments off (a SCRIPT keeps its own options) click would stop reading
    options at them. When --from comes before any positional there is no SCRIPT, so click may
    read options anywhere."""

    def parse_args(self, ctx, args):
        parsed, _, _ = self.make_parser(ctx).parse_args(list(args))
        if parsed.get("from_"):
            ctx.allow_interspersed_args = True
        return super().parse_args(ctx, args)


def report(
    positional: Optional[List[str]] = typer.Argument(None, metavar="[SCRIPT [ARGS...] | -- COMMAND... | FILE... with --from]", show_default=False),
    code: Optional[str] = typer.Option(None, "-c", "--code", help="Python code to run (default: pass)."),
    module: Optional[str] = typer.Option(None, "-m", "--module", help="Module to run as __main__."),
    python: Optional[str] = typer.Option(None, "--python", help="Interpreter. Default: python3 on PATH, shims resolved."),
    variant: Optional[List[str]] = typer.Option(None, "--variant", help="Start-up variants (default: default,no-site,isolated,no-frozen)."),
    flags: Optional[List[str]] = typer.Option(None, "--flags", help='A custom start-up variant named by its flags, e.g. --flags="-X dev".'),
    runs: Optional[int] = typer.Option(None, "--runs", "-r", help="Start-up runs per variant. Default: adaptive (at least 10, about 1 s per variant)."),
    import_runs: int = typer.Option(5, "--import-runs", help="Runs of the import capture (medians)."),
    warmup: int = typer.Option(1, "--warmup", "-w", help="Warm-up runs, not measured."),
    skip: Optional[List[str]] = typer.Option(None, "--skip", help="Parts not to run, comma-separated: startup, imports, trace, site."),
    compare: bool = typer.Option(False, "--compare", help="Also build and time the oxidized variants (importprof compare: traditional, no-site, oxidized, filesystem, in-memory). Slow the first time: it builds."),
    include: Optional[List[str]] = typer.Option(None, "--include", help="Add a saved JSON document to a live report (e.g. compare --export-json FILE)."),
    from_: Optional[List[str]] = typer.Option(None, "--from", help="Build the page from saved JSON documents (any importprof kind; more files may follow)."),
    title: Optional[str] = typer.Option(None, "--title", help="The page's title."),
    fmt: Optional[str] = typer.Option(None, "--format", help="html (default) or json (the page's data, importprof.report/1, which --from reads back)."),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="Write the page to FILE atomically (default: stdout)."),
) -> None:
    from profiler.commands._common import Progress, check_outputs, deliver, info, make_target, warn
    from profiler.errors import UsageError

    if from_:
        files = list(from_) + list(positional or [])
        if code is not None or module is not None or python or variant or flags or runs is not None or skip or include or compare:
            raise UsageError("--from builds the page from saved documents: give no target, --python, --variant, --flags, --runs, --skip, --include or --compare with it")
        check_outputs(output)
        from profiler.workflows.report import report_from_files

        page = report_from_files(files, title=title)
    else:
        if import_runs < 1:
            raise UsageError("--import-runs must be at least 1")
        target = make_target(code, module, positional)
        check_outputs(output)
        from profiler.workflows.report import ReportOptions, report_live

        opts = ReportOptions(
            target=target,
            python=python,
            variants=variant or [],
            flags=flags or [],
            runs=runs,
            import_runs=import_runs,
            warmup=warmup,
            skip=[p.strip() for item in (skip or []) for p in item.split(",") if p.strip()],
            include=include or [],
            compare=compare,
            title=title,
        )
        with Progress("report") as bar:
            page = report_live(opts, progress=bar.update, warn=warn)

    deliver(page, fmt=fmt or "html", output=output, table=_summary, formats=("html", "json"))
    if output and output != "-":
        import os

        info(f"wrote {output} ({os.path.getsize(output) / 1024:.0f} KiB)")


def _summary(page, tty: bool) -> str:
    from profiler.render.console import new_table, render_tables
    from profiler.workflows.report import kind_of

    table = new_table(tty, title="importprof report")
    table.add_column("part")
    table.add_column("from")
    table.add_column("what")
    for source, doc in page.documents:
        table.add_row(kind_of(doc), source, _what(kind_of(doc), doc))
    for s in page.skipped:
        table.add_row(s["part"], "-", f"not included: {s['reason']}")
    return render_tables([table], tty)


def _what(kind: str, doc: dict) -> str:
    def n(count, word):
        return f"{count} {word}" + ("" if count == 1 else "s")

    if kind in ("startup", "compare"):
        return n(len(doc.get("results") or []), "variant")
    if kind == "imports":
        return n(len(doc.get("modules") or []), "module")
    if kind == "trace":
        if doc.get("variants"):
            return n(len(doc["variants"]), "variant")
        return f"{n(len(doc.get('syscalls') or []), 'syscall kind')}, {n(len(doc.get('modules') or []), 'module')}"
    if kind == "site":
        return n(len(doc.get("pth") or []), ".pth file")
    return str(doc.get("schema") or "")
