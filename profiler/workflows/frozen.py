"""The `frozen` variant of `importprof build` / `compare`: an executable whose frozen-modules
table (PyImport_FrozenModules) holds the target's bytecode, so CPython's own FrozenImporter
serves those modules from memory, on CPython 3.8 to 3.13.

Chain: the units the target imports from (one discovery run and one plan, shared with the
oxidized variants: every module of each distribution and standard library package) → what can
be frozen (analysis/frozen.py) → bytecode marshalled by the target interpreter → launcher.o
(gcc, cached per interpreter) + the blob linked into `<folder>/importprof-frozen`.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import replace
from typing import Sequence

from profiler.model.interpreter import Interpreter, require
from profiler.model.packing import FrozenReport, PackPlan, Unpacked
from profiler.session import Session


def build_frozen(interp: Interpreter, pack_plan: PackPlan, folder: str,
                 *, session: Session,
                 imported: Sequence[str] = ()) -> FrozenReport:
    """`imported`: the recording run's modules in the order it imported them; those come first
    in the frozen table (analysis/packing.py: startup_first)."""
    from profiler.analysis.frozen import plan_frozen_units
    from profiler.analysis.packing import startup_first
    from profiler.capture import frozen as cap
    from profiler.capture.oxidized import read_source

    require(interp, "frozen", for_what="variant frozen")
    plan = plan_frozen_units(pack_plan, read_source)
    plan = replace(plan, modules=startup_first(plan.modules, imported))
    obj = cap.launcher_object(interp, session=session)
    os.makedirs(folder, exist_ok=True)
    exe = os.path.join(folder, cap.EXE_NAME)
    session.info(f"freezing {len(plan.modules)} modules")
    with tempfile.TemporaryDirectory(prefix="importprof-frozen-") as tmp:
        blob = os.path.join(tmp, "frozen-modules.bin")
        packed = cap.pack_modules(interp, plan.modules, blob, session=session)
        if packed.failed:  # a source that does not compile here: left out (the packer did), listed
            failed = tuple(Unpacked(n, r) for n, r in packed.failed)
            plan = replace(plan, modules=tuple(m for m in plan.modules if m.name in set(packed.modules)),
                           not_frozen=tuple(sorted(plan.not_frozen + failed, key=lambda u: u.name)))
        size = cap.link(interp, obj, blob, exe, session=session)
    return FrozenReport(
        executable=exe,
        modules=tuple(sorted(packed.modules)),  # by name, as reported before the table was ordered
        packages=tuple(sorted(packed.packages)),
        not_frozen=plan.not_frozen,
        served=plan.served,
        bytecode_bytes=packed.bytecode_bytes,
        executable_bytes=size,
    )
