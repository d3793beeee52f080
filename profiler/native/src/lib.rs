//! importprof's native parts of `trace`: the strace parser and the summary's one pass, whose
//! behaviour is defined by their Python twins (profiler/parse/strace.py,
//! profiler/analysis/attribution.py and syscalls.py; tests compare them on real logs).
//!
//! By job: `parser` (strace lines → Syscall fields: `scan` reads a line's pieces, `record` makes a
//! call's fields, `parser` walks the log's lines), `tallies` (the summary's counters),
//! `attribution` (each call to its import, then the tallies), `glue` (what they share with
//! pyo3). One library, two Python modules: profiler/parse/_strace_native (the parser) and
//! profiler/analysis/_syscall_tally (the summary), so that analysis never imports parse.

use pyo3::prelude::*;

mod attribution;
mod glue;
mod parser;
mod record;
mod scan;
mod store;
mod tallies;

#[pymodule]
fn _strace_native(_py: Python, m: &PyModule) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parser::parse_lines, m)?)?;
    m.add_class::<parser::Memo>()?;
    m.add_class::<store::Calls>()?;
    // what parse_lines takes and returns: profiler/parse/strace.py ignores a build of another
    // version (one made before the sources changed and `make setup` rebuilt it)
    m.add("PARSE_LINES_VERSION", 6)?;
    Ok(())
}

#[pymodule]
fn _syscall_tally(_py: Python, m: &PyModule) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(attribution::select_calls, m)?)?;
    m.add_function(wrap_pyfunction!(tallies::tally_calls, m)?)?;
    m.add_function(wrap_pyfunction!(attribution::attribute_calls, m)?)?;
    Ok(())
}
