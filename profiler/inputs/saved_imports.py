"""A saved `importprof.imports/1` report read back a line at a time (line_reader) into the column
form `imports --from-log` makes (model.import_columns_reader.ModuleColumnsReader), for show, diff,
why --report and report --from; a file that cannot be read so is read whole (documents)."""

from __future__ import annotations

from profiler.inputs.bounded import bad, is_regular_file
from profiler.inputs.documents import read_document
from profiler.inputs.imports_rules import imports_rules_by_segment
from profiler.inputs.layout import document_lines
from profiler.inputs.line_reader import read_streamed_document


def read_imports_report(path: str, what: str = "report", on_block=None):
    """A saved `importprof.imports/1` report as an ImportsReport (show, diff, why --report), read
    a line at a time (stream_imports_report) into the form `imports --from-log` makes
    (model.import_columns_reader.ModuleColumnsReader: a thousand processes of one program held as columns,
    a record line of a layout read before matched as its numbers alone), so reading back what
    `-o` wrote costs about what writing it did. A file not laid out as importprof writes it is
    read whole, as before. `on_block(process, first index, block)`: each process is handed over
    as it is read and not kept (the report's modules are left empty), for a reader that pairs
    them as they come (diff)."""
    report = stream_imports_report(path, on_block, what)
    if report is not None:
        return report
    from profiler.model.imports_report import ImportsReport

    return ImportsReport.from_dict(read_document(path, ["imports"], what))


def stream_imports_report(path: str, on_block, what: str = "report"):
    """The line-at-a-time read: the report with its modules in the column form (or, with
    `on_block(process, first index, block)`, each process handed over as it is read and not
    kept); None when the file is not laid out as importprof writes it — what on_block was
    handed is then to be forgotten, and the file read whole (read_imports_report). Validated
    as it is read; every error one line."""
    from dataclasses import replace

    from profiler.errors import BadInput
    from profiler.model.import_columns_reader import ModuleColumnsReader
    from profiler.model.imports_report import ImportsReport

    reader = ModuleColumnsReader(on_block)
    try:
        doc = read_streamed_document(path, "imports", "modules", reader.take, reader.record, ["imports"], what)
        if doc is None:
            return None
        modules = reader.finish()
        problem = imports_rules_by_segment(reader.segments)
        if problem is not None:
            raise bad(f"{path}: not a valid importprof.imports/1 document: {problem}")
        doc.setdefault("processes", reader.processes)
        doc.setdefault("total_us", reader.roots_cumulative_us)
        return replace(ImportsReport.from_dict(doc), modules=modules)
    except BadInput:
        raise
    except ValueError as exc:
        raise bad(f"{path}: {exc}") from None
    except (KeyError, TypeError) as exc:
        raise bad(f"{path}: not a valid importprof.imports/1 report (bad or missing {exc})") from None


def is_saved_imports(path: str, what: str = "document") -> bool:
    """The file starts as an `importprof.imports/1` report (an object whose first key is its
    schema): read_imports_document may read it a line (or, in another layout, a value) at a
    time. Reads its first piece, and as far as its schema's value."""
    if path == "-" or not is_regular_file(path):
        return False
    try:
        lines = document_lines(path, what, "modules")
    except Exception:  # unreadable: the whole-file reader says why, in its one line
        return False
    try:
        return next(lines, None) == "{" and next(lines, None) == '  "schema": "importprof.imports/1",'
    except Exception:  # unreadable, or not JSON: the whole-file reader says why, in its one line
        return False
    finally:
        lines.close()


def read_imports_document(path: str, what: str = "document", keep=None):
    """A saved `importprof.imports/1` report as the page of `report --from` shows it: its keys as
    saved, in order, and its modules read a line at a time into the column form (as
    read_imports_report reads them, validated as they come: the same one-line errors) — a
    model.report.SavedColumns, whose records' dicts are the saved records (the few not read as a
    layout's numbers are checked to be written back byte for byte). None when the file is not
    laid out so, or a record is not written as importprof writes it (a key left out, a 5.0):
    read it whole then (read_document). `keep(block)`: what is kept of each process as it is
    read (report --from: its columns moved out of the memory), in place of the block."""
    import json

    from profiler.errors import BadInput
    from profiler.model.import_columns import ModuleColumns
    from profiler.model.import_columns_reader import ModuleColumnsReader
    from profiler.model.import_records import ModuleRecord
    from profiler.model.report import SavedColumns

    kept: list = []
    reader = ModuleColumnsReader(None if keep is None else (lambda process, start, block: kept.append(keep(block))))
    exact = [True]
    dumps = json.dumps

    def record(i: int, value: dict) -> None:
        if exact[0]:
            exact[0] = (type(value.get("cumulative_us")) is int and type(value.get("depth")) is int and "find_us" not in value
                        and dumps(ModuleRecord.from_dict(value).to_dict(), ensure_ascii=False) == dumps(value, ensure_ascii=False))
        reader.record(i, value)

    try:
        doc = read_streamed_document(path, "imports", "modules", reader.take, record, ["imports"], what)
        if doc is None or not exact[0]:
            return None
        modules = reader.finish()
        if keep is not None:  # as finish() makes them of the blocks it keeps
            modules = ModuleColumns(kept)
            modules = tuple(modules) if len(reader.segments) <= 1 else modules
        problem = imports_rules_by_segment(reader.segments)
        if problem is not None:
            raise bad(f"{path}: not a valid importprof.imports/1 document: {problem}")
        return SavedColumns(doc, modules)
    except BadInput:
        raise
    except ValueError as exc:
        raise bad(f"{path}: {exc}") from None
    except (KeyError, TypeError) as exc:
        raise bad(f"{path}: not a valid importprof.imports/1 report (bad or missing {exc})") from None
