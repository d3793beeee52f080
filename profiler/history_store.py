"""The start-up history store: one SQLite file (the standard library's sqlite3, WAL), by
default `.importprof/history.sqlite` beside the project's pyproject.toml.

One row per recorded `check` run (`runs`), its modules' self and cumulative times packed into
one small blob (`pack_modules`: module names interned once in `names`, each row three
varints, the whole zlib-compressed: a 500-module run takes a few KB). `PRAGMA user_version` is
the store's schema version; an older store is migrated in place (`MIGRATIONS`), a newer one is
refused. A file that is not a sound SQLite database is reported and never written to.
Concurrent writers (two `check --record` at once) each write in one immediate transaction
and wait for the other (`busy_timeout`).

  HistoryStore.open(path, create=) -> HistoryStore
  store.add(run) / store.runs(check=) / store.has(check, commit, machine, python)
  store.export_lines() / store.import_lines(lines, source)
"""

from __future__ import annotations

import json
import os
import sqlite3
import zlib
from typing import Iterable, Iterator, Sequence

from profiler.errors import BadInput
from profiler.model.history import ModuleTimes, StoredRun

SCHEMA_VERSION = 1
EXPORT_SCHEMA = "importprof.history_export/1"
BUSY_TIMEOUT_MS = 60_000

_CREATE_V1 = """
CREATE TABLE IF NOT EXISTS names (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    check_name TEXT NOT NULL,
    commit_sha TEXT,
    subject TEXT,
    commit_time INTEGER,
    dirty INTEGER NOT NULL DEFAULT 0,
    recorded_at TEXT NOT NULL,
    machine TEXT NOT NULL,
    machine_info TEXT NOT NULL,
    python TEXT,
    status TEXT NOT NULL,
    error TEXT,
    wall_ms REAL,
    wall_ms_runs TEXT NOT NULL DEFAULT '[]',
    import_ms REAL,
    instructions INTEGER,
    instructions_runs TEXT NOT NULL DEFAULT '[]',
    instructions_method TEXT,
    modules BLOB
);
CREATE INDEX IF NOT EXISTS runs_by_series ON runs (check_name, machine, python, commit_sha);
"""

# version N -> N+1: each a list of statements, run in one transaction with the version bump
MIGRATIONS: dict[int, Sequence[str]] = {
    0: [s for s in _CREATE_V1.split(";") if s.strip()],
}


# ---------------------------------------------------------------- the modules' compact form (pure)
def _varint(n: int, out: bytearray) -> None:
    n = (n << 1) ^ (n >> 63) if n < 0 else n << 1  # zigzag: a negative time stays small
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


def _read_varints(data: bytes) -> Iterator[int]:
    n = shift = 0
    for b in data:
        n |= (b & 0x7F) << shift
        if b & 0x80:
            shift += 7
            continue
        yield (n >> 1) ^ -(n & 1)
        n = shift = 0
    if shift:
        raise ValueError("truncated varint")


def pack_modules(rows: Iterable[tuple[int, int, int]]) -> bytes:
    """(name id, self µs, cumulative µs) rows → bytes: the ids sorted and written as gaps,
    the cumulative time as what it adds to the self time (0 for a module that imports nothing),
    each number a zigzag varint, the whole zlib-compressed."""
    out = bytearray()
    prev = 0
    rows = sorted(rows)
    _varint(len(rows), out)
    for name_id, self_us, cum_us in rows:
        _varint(name_id - prev, out)
        _varint(self_us, out)
        _varint(cum_us - self_us, out)
        prev = name_id
    return zlib.compress(bytes(out), 6)


def unpack_modules(blob: bytes) -> list[tuple[int, int, int]]:
    """pack_modules' rows back (sorted by name id)."""
    numbers = list(_read_varints(zlib.decompress(blob)))
    if not numbers or len(numbers) != 1 + 3 * numbers[0]:
        raise ValueError("module rows do not add up")
    out, prev = [], 0
    for i in range(numbers[0]):
        gap, self_us, below_us = numbers[1 + 3 * i: 4 + 3 * i]
        prev += gap
        out.append((prev, self_us, self_us + below_us))
    return out


# ---------------------------------------------------------------- the store
class HistoryStore:
    def __init__(self, path: str, conn: sqlite3.Connection):
        self.path = path
        self.conn = conn
        self._names: dict[str, int] = {}

    @classmethod
    def open(cls, path: str, create: bool = True) -> "HistoryStore":
        """The store at `path` (made, with its folder, when `create` and it does not exist; a
        missing store not to be created is a BadInput)."""
        exists = os.path.exists(path)
        if not exists and not create:
            raise BadInput(f"no history store at {path} (record into it with `importprof check --record` "
                           "or `importprof history record`)")
        if exists and not os.path.isfile(path):
            raise BadInput(f"history store {path} is not a regular file")
        if not exists:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        try:
            conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        except sqlite3.Error as exc:
            raise BadInput(f"history store {path}: cannot open ({exc})") from None
        store = cls(path, conn)
        try:
            store._prepare(exists)
        except BaseException:
            conn.close()
            raise
        return store

    def _corrupt(self, why: object) -> BadInput:
        return BadInput(f"history store {self.path} is corrupt or not an importprof store ({why}); "
                        "it is left as it is: move it away to start a new one")

    def _prepare(self, existed: bool) -> None:
        c = self.conn
        try:
            c.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            version = c.execute("PRAGMA user_version").fetchone()[0]
            if existed:
                check = c.execute("PRAGMA quick_check").fetchone()[0]
                if check != "ok":
                    raise self._corrupt(check)
            if version > SCHEMA_VERSION:
                raise BadInput(f"history store {self.path} was written by a newer importprof (store version {version}; "
                               f"this one reads up to {SCHEMA_VERSION}): upgrade importprof to read it")
            if existed:
                tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                if version == 0 and tables:
                    raise self._corrupt(f"tables {', '.join(sorted(tables))} but no importprof schema version")
                if version >= 1 and not {"runs", "names"} <= tables:
                    raise self._corrupt("its tables are missing")
            if c.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                c.execute("PRAGMA journal_mode = WAL")
            while version < SCHEMA_VERSION:
                c.execute("BEGIN IMMEDIATE")
                try:
                    now = c.execute("PRAGMA user_version").fetchone()[0]  # another writer may have migrated it
                    if now == version:
                        for statement in MIGRATIONS[version]:
                            c.execute(statement)
                        c.execute(f"PRAGMA user_version = {version + 1}")
                    c.execute("COMMIT")
                except BaseException:
                    c.execute("ROLLBACK")
                    raise
                version = c.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise BadInput(f"history store {self.path}: still locked by another writer after "
                               f"{BUSY_TIMEOUT_MS // 1000} s") from None
            raise self._corrupt(exc) from None

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "HistoryStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -------------------------------------------------------------- writing
    def _name_ids(self, names: Iterable[str]) -> dict[str, int]:
        c = self.conn
        wanted = [n for n in dict.fromkeys(names) if n not in self._names]
        for n in wanted:
            c.execute("INSERT OR IGNORE INTO names (name) VALUES (?)", (n,))
        for i in range(0, len(wanted), 500):
            chunk = wanted[i:i + 500]
            marks = ",".join("?" * len(chunk))
            for nid, name in c.execute(f"SELECT id, name FROM names WHERE name IN ({marks})", chunk):
                self._names[name] = nid
        return self._names

    def _insert(self, run: StoredRun) -> bool:
        ids = self._name_ids(m.name for m in run.modules)
        blob = pack_modules((ids[m.name], m.self_us, m.cumulative_us) for m in run.modules) if run.modules else None
        cur = self.conn.execute(
            "INSERT OR IGNORE INTO runs (uid, check_name, commit_sha, subject, commit_time, dirty, recorded_at, machine, "
            "machine_info, python, status, error, wall_ms, wall_ms_runs, import_ms, instructions, instructions_runs, "
            "instructions_method, modules) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (run.uid, run.check, run.commit, run.subject, run.commit_time, int(run.dirty), run.recorded_at, run.machine,
             json.dumps(run.machine_info, sort_keys=True), run.python, run.status, run.error, run.wall_ms,
             json.dumps(list(run.wall_ms_runs)), run.import_ms, run.instructions, json.dumps(list(run.instructions_runs)),
             run.instructions_method, blob),
        )
        return cur.rowcount == 1

    def _write(self, runs: Sequence[StoredRun]) -> int:
        c = self.conn
        try:
            c.execute("BEGIN IMMEDIATE")
            try:
                added = sum(self._insert(r) for r in runs)
                c.execute("COMMIT")
            except BaseException:
                c.execute("ROLLBACK")
                self._names.clear()  # ids handed out in the rolled-back transaction are gone
                raise
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise BadInput(f"history store {self.path}: still locked by another writer after "
                               f"{BUSY_TIMEOUT_MS // 1000} s") from None
            raise BadInput(f"history store {self.path}: cannot write ({exc})") from None
        except sqlite3.DatabaseError as exc:
            raise self._corrupt(exc) from None
        return added

    def add(self, run: StoredRun) -> bool:
        """Record one run (in its own transaction: once this returns, it is kept)."""
        return self._write([run]) == 1

    def add_many(self, runs: Sequence[StoredRun]) -> int:
        """Record runs in one transaction (a run whose uid is there already is not added
        again); the number added."""
        return self._write(runs)

    # -------------------------------------------------------------- reading
    def has(self, check: str, commit: str, machine: str, python: str | None) -> bool:
        """Whether a run of `check` at `commit` was recorded on this machine (and with this
        interpreter version, when given)."""
        sql = "SELECT 1 FROM runs WHERE check_name = ? AND commit_sha = ? AND machine = ?"
        args: list = [check, commit, machine]
        if python is not None:
            sql += " AND python = ?"
            args.append(python)
        return self.conn.execute(sql + " LIMIT 1", args).fetchone() is not None

    def count(self) -> int:
        return self.conn.execute("SELECT count(*) FROM runs").fetchone()[0]

    def checks(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT check_name FROM runs ORDER BY check_name")]

    def runs(self, check: str | None = None, modules: bool = True) -> list[StoredRun]:
        sql = ("SELECT uid, check_name, commit_sha, subject, commit_time, dirty, recorded_at, machine, machine_info, python, "
               "status, error, wall_ms, wall_ms_runs, import_ms, instructions, instructions_runs, instructions_method, "
               f"{'modules' if modules else 'NULL'} FROM runs")
        args: list = []
        if check is not None:
            sql += " WHERE check_name = ?"
            args.append(check)
        try:
            rows = self.conn.execute(sql + " ORDER BY recorded_at, id", args).fetchall()
            names = {}
            if modules:
                names = dict(self.conn.execute("SELECT id, name FROM names"))
            return [self._run(row, names) for row in rows]
        except (sqlite3.DatabaseError, ValueError, KeyError, zlib.error) as exc:
            raise self._corrupt(exc) from None

    @staticmethod
    def _run(row, names: dict[int, str]) -> StoredRun:
        (uid, check, commit, subject, commit_time, dirty, recorded_at, machine, machine_info, python, status, error,
         wall_ms, wall_runs, import_ms, instructions, instr_runs, method, blob) = row
        mods: tuple[ModuleTimes, ...] = ()
        if blob:
            mods = tuple(ModuleTimes(names[i], s, c) for i, s, c in unpack_modules(blob))
        return StoredRun(uid=uid, check=check, commit=commit, subject=subject, commit_time=commit_time, dirty=bool(dirty),
                         recorded_at=recorded_at, machine=machine, machine_info=json.loads(machine_info), python=python,
                         status=status, error=error, wall_ms=wall_ms, wall_ms_runs=tuple(json.loads(wall_runs)),
                         import_ms=import_ms, instructions=instructions, instructions_runs=tuple(json.loads(instr_runs)),
                         instructions_method=method, modules=mods)

    # -------------------------------------------------------------- export / import (JSON lines)
    def export_lines(self, check: str | None = None) -> Iterator[str]:
        """A header line, then one line per run (its modules by name), oldest first."""
        yield json.dumps({"schema": EXPORT_SCHEMA, "store_version": SCHEMA_VERSION}) + "\n"
        for run in self.runs(check):
            yield json.dumps(run_to_dict(run), ensure_ascii=False, separators=(",", ":")) + "\n"

    def import_lines(self, lines: Iterable[str], source: str) -> tuple[int, int]:
        """Every run of an export file, checked whole before any is written; (added, already
        there). A bad line is one BadInput naming the file and line; nothing is imported then."""
        runs = list(read_export(lines, source))
        added = self.add_many(runs)
        return added, len(runs) - added


def run_to_dict(run: StoredRun) -> dict:
    return {
        "uid": run.uid, "check": run.check, "commit": run.commit, "subject": run.subject, "commit_time": run.commit_time,
        "dirty": run.dirty, "recorded_at": run.recorded_at, "machine": run.machine, "machine_info": run.machine_info,
        "python": run.python, "status": run.status, "error": run.error, "wall_ms": run.wall_ms,
        "wall_ms_runs": list(run.wall_ms_runs), "import_ms": run.import_ms, "instructions": run.instructions,
        "instructions_runs": list(run.instructions_runs), "instructions_method": run.instructions_method,
        "modules": [[m.name, m.self_us, m.cumulative_us] for m in run.modules],
    }


_TYPES = {
    "uid": (str,), "check": (str,), "commit": (str, type(None)), "subject": (str, type(None)),
    "commit_time": (int, type(None)), "dirty": (bool,), "recorded_at": (str,), "machine": (str,), "machine_info": (dict,),
    "python": (str, type(None)), "status": (str,), "error": (str, type(None)), "wall_ms": (int, float, type(None)),
    "wall_ms_runs": (list,), "import_ms": (int, float, type(None)), "instructions": (int, type(None)),
    "instructions_runs": (list,), "instructions_method": (str, type(None)), "modules": (list,),
}


def read_export(lines: Iterable[str], source: str) -> Iterator[StoredRun]:
    """The runs of an export file (`history export`), each line checked."""
    first = True
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except ValueError as exc:
            raise BadInput(f"{source}:{n}: not JSON ({exc})") from None
        if first:
            first = False
            schema = d.get("schema") if isinstance(d, dict) else None
            if schema != EXPORT_SCHEMA:
                if isinstance(schema, str) and schema.startswith("importprof.history_export/"):
                    raise BadInput(f"{source}: {schema} was written by a newer importprof (this one reads {EXPORT_SCHEMA})")
                raise BadInput(f"{source}:1: not an importprof history export (its first line must be "
                               f'{{"schema": "{EXPORT_SCHEMA}"}})')
            continue
        if not isinstance(d, dict):
            raise BadInput(f"{source}:{n}: a run must be a JSON object")
        for key, types in _TYPES.items():
            if key not in d:
                raise BadInput(f"{source}:{n}: the run has no {key!r}")
            if not isinstance(d[key], types) or (isinstance(d[key], bool) and bool not in types):
                raise BadInput(f"{source}:{n}: {key!r} has the wrong type ({type(d[key]).__name__})")
        try:
            mods = tuple(ModuleTimes(str(name), int(s), int(c)) for name, s, c in d["modules"])
            run = StoredRun(
                uid=d["uid"], check=d["check"], commit=d["commit"], subject=d["subject"], commit_time=d["commit_time"],
                dirty=d["dirty"], recorded_at=d["recorded_at"], machine=d["machine"], machine_info=d["machine_info"],
                python=d["python"], status=d["status"], error=d["error"], wall_ms=d["wall_ms"],
                wall_ms_runs=tuple(float(v) for v in d["wall_ms_runs"]), import_ms=d["import_ms"],
                instructions=d["instructions"], instructions_runs=tuple(int(v) for v in d["instructions_runs"]),
                instructions_method=d["instructions_method"], modules=mods,
            )
        except (TypeError, ValueError) as exc:
            raise BadInput(f"{source}:{n}: malformed run ({exc})") from None
        yield run
    if first:
        raise BadInput(f"{source}: empty (not an importprof history export)")
