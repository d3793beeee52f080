"""Reading the files users hand to importprof (saved logs, saved JSON documents): every way
they can be wrong ends as one BadInput line naming the file."""

from __future__ import annotations


def read_text(path: str, what: str = "file") -> str:
    """The file's text (undecodable bytes replaced: logs carry program output)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise _bad(f"cannot read {what} {path}: no such file") from None
    except IsADirectoryError:
        raise _bad(f"cannot read {what} {path}: it is a directory") from None
    except OSError as exc:
        raise _bad(f"cannot read {what} {path}: {exc.strerror}") from None
    return data.decode("utf-8", "replace")


def read_json(path: str, what: str = "JSON document") -> object:
    import json

    text = read_text(path, what)
    try:
        return json.loads(text)
    except ValueError as exc:
        msg = getattr(exc, "msg", str(exc))
        line = getattr(exc, "lineno", None)
        raise _bad(f"{path}: not JSON ({msg}{f' at line {line}' if line else ''})") from None


def _bad(message: str):
    from profiler.errors import BadInput

    return BadInput(message)
