//! The strace line parser, parse_lines:
//!
//! The fast path of profiler/parse/strace.py, line for line the general path's decisions: a
//! completed call in any form strace writes (a pid, `[pid N]` or none; a -t/-tt/-ttt time or
//! none; with or without -T durations and -y paths) becomes the fields of a Syscall, the usual
//! unfinished/resumed halves are joined and process events made; any other line is returned as
//! its text for the Python general path (noise, the cut last line, escaped paths, odd shapes,
//! anything not plain ASCII where Python's `\d` or `\s` could read it otherwise).

//!
//! The line's lexical reads are in `scan`, a call's body made a Syscall's fields in `record`;
//! here the lines of a log (or a piece of one) are walked: heads and times, the joined
//! unfinished/resumed pairs, process events, and the rows handed to Python.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};
use pyo3::AsPyPointer;

use crate::glue::*;
use crate::record::*;
use crate::scan::*;

pub(crate) const UNFINISHED: &str = " <unfinished ...>";

/// What parse_lines shares across the pieces of one log (Memo()): one str per name, errno and
/// path and one int per pid, as when the log is parsed whole.
#[pyclass]
#[derive(Default)]
pub(crate) struct Memo {
    pub(crate) names: HashMap<String, PyObject>,
    pub(crate) pids: HashMap<i64, PyObject>,
    pub(crate) numbers: Numbers,
}

#[pymethods]
impl Memo {
    #[new]
    fn new() -> Self {
        Memo::default()
    }
}

pub(crate) struct Pending<'a> {
    pub(crate) slot: usize,
    pub(crate) line: &'a str, // the unfinished line, without trailing \r and without " <unfinished ...>"
    pub(crate) body: usize,   // where its body begins in `line`
    pub(crate) name: &'a str,
    pub(crate) time: Option<f64>,
    pub(crate) lineno: usize,
}

/// parse_lines(text, kinds, record, pairs=False, event=None, first_line=1, held=None,
/// last_time=None) → (rows, general, lines, jumps, n, events, last): `rows` holds the records in the order of the lines that start them: the fields of a
/// Syscall (a tuple), or a line's text for the general path; `general` lists the positions of
/// the text items in `rows` and `lines` their (1-based) line numbers; `jumps` says whether the
/// time of a line is more than 12 hours before the previous line's with a time (a log passing
/// midnight: the caller then adds the days line by line), or a line's head is not read here
/// (it may hold a time); without jumps the general path never adds a day; `n` is the
/// number of lines (as the general path counts them). `kinds`: {syscall name: 0 (path first),
/// 1 (path after a dirfd), 2 (exec)}. The last line, when the text does not end with a
/// newline, is always text (a cut line).
///
/// Every head the general path reads is read here (a pid or `[pid N]` or none, a -t/-tt/-ttt
/// time or none), and a call with a -T duration or without one; a line whose head is not
/// plain ASCII where it matters is text, and ends the joining of pairs (its pid is the general
/// path's to read).
///
/// `pairs`: an `<unfinished ...>` line and the `<... NAME resumed>` line of the same pid that
/// comes next for that pid are joined here, as the general path joins them (the record takes
/// the unfinished line's place, time and line number; the resumed line is no item), when
/// nothing else of that pid comes between them, the general path holds no unfinished call of
/// that pid, and the joined text is read here; anything else leaves both lines to the general
/// path, in their places. With pairs the caller parses again without them when the log passes
/// midnight.
///
/// `record`: None, or a subclass of tuple with tuple's exact layout (no __dict__, no extra
/// slots: Syscall, a NamedTuple with `__slots__ = ()`, checked by the caller); the rows are
/// then made instances of it (the tuple's type set to it, with the reference a heap type's
/// instance holds), as `tuple.__new__(record, row)` would make them, without the copy.
///
/// `event`: None, or ProcessEvent (with tuple's layout, as `record`): while pairing, the `+++
/// exited with N +++`, `+++ killed by SIG` and `--- SIGNAL` lines of a pid the general path
/// holds no unfinished call of become its instances in `events` (in line order; the caller
/// merges them with the general path's by line), not text.
///
/// A log read a piece at a time (whole lines each; the caller keeps the general path's state
/// across them): `first_line` is the line number of the piece's first line, `held` the pids
/// whose unfinished call the general path holds from the pieces before (their resumed half is
/// its to join), `last_time` the last time read before the piece (a piece that begins past
/// midnight then has `jumps`); `last` is the piece's last time read, for the next piece.
///
/// `memo`: a Memo kept by the caller across the pieces of one log (None: a whole log).
///
/// `keep_args`: None (every row keeps its argument text), or {syscall name: 1, or 2 for "when
/// it has no -y fd path"}: the other rows made here get an empty tuple for their arguments (a
/// summary reads the arguments of few calls; the rows of a big log are most of its memory).
#[pyfunction]
#[pyo3(text_signature = "(text, kinds, record, pairs=False, event=None)")]
#[allow(clippy::too_many_arguments)]
pub(crate) fn parse_lines(
    py: Python,
    text: &PyString,
    kinds: &PyDict,
    record: Option<&PyType>,
    pairs: Option<bool>,
    event: Option<&PyType>,
    first_line: Option<usize>,
    held_before: Option<&PyAny>,
    last_time: Option<f64>,
    keep_args: Option<&PyDict>,
    memo: Option<&PyCell<Memo>>,
) -> PyResult<PyObject> {
    let first_line = first_line.unwrap_or(1);
    let text = utf8(text)?;
    let mut r = res();
    if let Some(keep) = keep_args {
        let mut m: HashMap<String, u8> = HashMap::default();
        for (key, value) in keep.iter() {
            m.insert(key.extract()?, value.extract()?);
        }
        r.keep = Some(m);
    }
    let mut k: HashMap<String, i64> = HashMap::default();
    for (key, value) in kinds.iter() {
        k.insert(key.extract()?, value.extract()?);
    }
    r.empty = Some(PyTuple::empty(py).into_py(py));
    // one str per text and one int per pid for the whole log: kept across its pieces in `memo`
    let (mut names, mut pid_objs, mut numbers) = match memo {
        Some(m) => {
            let mut m = m.borrow_mut();
            (std::mem::take(&mut m.names), std::mem::take(&mut m.pids), std::mem::take(&mut m.numbers))
        }
        None => (HashMap::default(), HashMap::default(), Numbers::default()),
    };
    let mut out: Vec<Option<PyObject>> = Vec::new();
    let mut general: Vec<usize> = Vec::new();
    let mut glines: Vec<usize> = Vec::new();
    let mut jumps = false;
    let mut n: usize = 0; // the lines read
    let mut last: Option<f64> = last_time;
    let pairs = pairs.unwrap_or(false);
    let mut pairing = pairs;
    let mut pending: HashMap<i64, Pending> = HashMap::default();
    // pids whose unfinished call the general path may hold (it saw an unfinished line of theirs
    // and no line since that ends it): their next unfinished line is the general path's too
    let mut held: HashSet<i64> = HashSet::default();
    if let Some(before) = held_before {
        for pid in before.iter()? {
            // a pid past 64 bits (a log's 45-digit number) is no row of this parser (head() reads
            // no such pid: its lines go to the general path whole), so it has nothing to hold
            match int_of(pid?) {
                Ok(pid) => {
                    held.insert(pid);
                }
                Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(py) => {}
                Err(e) => return Err(e),
            }
        }
    }
    let mut events: Vec<PyObject> = Vec::new();
    let as_event = |pid: i64, t: Option<f64>, kind: &str, value: &str, lineno: usize, cls: &PyType| -> PyObject {
        let time = t.map_or_else(|| py.None(), |t| t.into_py(py));
        let e = pytuple(py, vec![pid.into_py(py), time, pystr(py, kind), pystr(py, value), lineno.into_py(py)]);
        unsafe {
            let tp = cls.as_ptr();
            ffi::Py_INCREF(tp);
            (*e.as_ptr()).ob_type = tp as *mut ffi::PyTypeObject;
            untrack(&e);
        }
        e
    };
    // every time the general path reads, in line order: `jumps` when one is more than 12 hours
    // before the previous one
    let mark = |t: Option<f64>, last: &mut Option<f64>, jumps: &mut bool| {
        if let Some(t) = t {
            if let Some(l) = *last {
                if t < l - 43200.0 {
                    *jumps = true;
                }
            }
            *last = Some(t);
        }
    };
    let as_text = |out: &mut Vec<Option<PyObject>>,
                   general: &mut Vec<usize>,
                   glines: &mut Vec<usize>,
                   slot: Option<usize>,
                   line: &str,
                   lineno: usize| {
        let s: PyObject = pystr(py, line);
        match slot {
            Some(i) => {
                out[i] = Some(s);
                general.push(i);
            }
            None => {
                general.push(out.len());
                out.push(Some(s));
            }
        }
        glines.push(lineno);
    };
    let make = |t: PyObject| -> PyObject {
        unsafe {
            if let Some(cls) = record {
                let tp = cls.as_ptr();
                ffi::Py_INCREF(tp);
                (*t.as_ptr()).ob_type = tp as *mut ffi::PyTypeObject;
            }
            // a row holds only str, int, float, bool, None and a tuple of str (argv): it can be in
            // no reference cycle, so the cyclic collector need not walk it (hundreds of
            // thousands of rows made its passes most of a parse's time)
            untrack(&t);
        }
        t
    };
    if !text.is_empty() {
        let ends = text.ends_with('\n');
        let whole = if ends { &text[..text.len() - 1] } else { text };
        let mut lines = whole.split('\n').enumerate().peekable();
        while let Some((i, line)) = lines.next() {
            let lineno = i + first_line;
            n = i + 1;
            let cut = !ends && lines.peek().is_none();
            let trimmed = line.trim_end_matches('\r');
            let h = head(trimmed);
            match h {
                Some((_, t, _)) => mark(t, &mut last, &mut jumps),
                None => jumps = true, // a time the general path may read and this does not
            }
            if pairing && h.is_none() {
                // a head read the general path's own way: its pid is unknown here, so no more
                // joining in this log
                pairing = false;
                let mut left: Vec<Pending> = pending.drain().map(|(_, p)| p).collect();
                left.sort_by_key(|p| p.slot);
                for p in left {
                    let whole = format!("{}{}", p.line, UNFINISHED);
                    as_text(&mut out, &mut general, &mut glines, Some(p.slot), &whole, p.lineno);
                }
            }
            if let Some((pid, t, b0)) = h {
                let body = &trimmed[b0..];
                if pairing {
                    if let Some(p) = pending.remove(&pid) {
                        let mut joined = None;
                        if !cut {
                            if let Some(rest) = resumed_rest(body, p.name) {
                                let whole = format!("{}{}", &p.line[p.body..], rest);
                                joined = fast(py, &r, &k, &mut names, &mut pid_objs, &mut numbers, pid, p.time, &whole, p.lineno);
                            }
                        }
                        match joined {
                            Some(row) => {
                                out[p.slot] = Some(make(row));
                                continue;
                            }
                            None => {
                                let whole = format!("{}{}", p.line, UNFINISHED);
                                as_text(&mut out, &mut general, &mut glines, Some(p.slot), &whole, p.lineno);
                                held.insert(pid);
                            }
                        }
                    }
                }
                if !cut {
                    if let Some(row) = fast(py, &r, &k, &mut names, &mut pid_objs, &mut numbers, pid, t, body, lineno) {
                        out.push(Some(make(row)));
                        continue;
                    }
                }
                if pairing && !cut && !held.contains(&pid) {
                    if let Some(cls) = event {
                        if let Some((kind, value)) = event_of(body) {
                            events.push(as_event(pid, t, kind, value, lineno, cls));
                            continue;
                        }
                    }
                    if body.ends_with(UNFINISHED) {
                        if let Some(name) = call_name(body) {
                            let line = &trimmed[..trimmed.len() - UNFINISHED.len()];
                            pending.insert(pid, Pending { slot: out.len(), line, body: b0, name, time: t, lineno });
                            out.push(None);
                            continue;
                        }
                    }
                }
                // what the general path does with the call it may hold for this pid
                if body.starts_with("<... ") || body.starts_with("+++ ") {
                    held.remove(&pid);
                } else if body.ends_with(UNFINISHED) {
                    held.insert(pid);
                }
            }
            as_text(&mut out, &mut general, &mut glines, None, line, lineno);
        }
    }
    let mut left: Vec<Pending> = pending.drain().map(|(_, p)| p).collect();
    left.sort_by_key(|p| p.slot);
    for p in left {
        let whole = format!("{}{}", p.line, UNFINISHED);
        as_text(&mut out, &mut general, &mut glines, Some(p.slot), &whole, p.lineno);
    }
    // the text items in the order of their places
    let mut order: Vec<(usize, usize)> = general.into_iter().zip(glines).collect();
    order.sort_unstable();
    let rows: PyObject = unsafe {
        let l = PyObject::from_owned_ptr(py, ffi::PyList_New(out.len() as ffi::Py_ssize_t));
        for (i, item) in out.into_iter().enumerate() {
            ffi::PyList_SetItem(l.as_ptr(), i as ffi::Py_ssize_t, item.expect("every place is filled").into_ptr());
        }
        l
    };
    let gpos = PyList::new(py, order.iter().map(|x| x.0));
    let glin = PyList::new(py, order.iter().map(|x| x.1));
    let events = PyList::new(py, events);
    if let Some(m) = memo {
        let mut m = m.borrow_mut();
        m.names = names;
        m.pids = pid_objs;
        m.numbers = numbers;
    }
    Ok((rows, gpos, glin, jumps, n, events, last).into_py(py))
}
