//! The calls of a log kept as columns (`Calls`): one 57-byte row per call, its strings (names,
//! paths, argv) one shared object each, the arguments kept (opens...) one text in an arena, in place of a Syscall tuple of 14
//! objects (~270 bytes a call with its float and ints). A Syscall is made when a caller asks for
//! one (`calls[i]`, iteration); the summary reads the rows natively (`Call`, below), also from
//! the other copy of this library (profiler/analysis/_syscall_tally: `_address`).

use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PySlice, PyString, PyTuple, PyType};
use pyo3::AsPyPointer;

use crate::glue::*;

const TIME_NONE: u8 = 1;
const DUR_NONE: u8 = 2;
const RET_NONE: u8 = 4;
const ARGS_TEXT: u8 = 8; // `args` is an index in `texts`: the arguments' text, kept here (not a str object each)
const UNFINISHED: u8 = 16;
const CUT: u8 = 32;
const WHOLE: u8 = 64; // a call the row cannot hold as it is (a number past 64 bits...): `args` is the Syscall's index in `objs`
const HOLE: u8 = 128; // a place kept for a call still to come (`set`), dropped by `compact`

/// What `_address` answers beside the address: the other copy of the library reads the rows
/// only when it was built with the same row layout.
pub(crate) const LAYOUT_TAG: u64 = (std::mem::size_of::<Rec>() as u64) * 1000 + 1;

#[derive(Clone, Copy)]
#[repr(C, packed)]
pub(crate) struct Rec {
    time: f64,
    ret: i64,
    dur: u32, // µs: strace -T's six decimals (a duration it does not give back exactly: the call kept whole)
    pid: i32,
    line: u32,
    name: u32,
    args: u32,
    errno: u32,
    ret_path: u32,
    path: u32,
    fd_path: u32,
    argv: u32,
    flags: u8,
}

pub(crate) struct StoreData {
    recs: Vec<Rec>,
    objs: Vec<PyObject>,    // objs[0] is None
    texts: Vec<(u32, u32)>, // (start, length) in `arena` of the kept arguments' texts
    arena: String,
    by_ptr: HashMap<usize, u32>,
    record: Option<Py<PyType>>,
}

impl StoreData {
    pub(crate) fn len(&self) -> usize {
        self.recs.len()
    }

    fn obj(&mut self, o: &PyAny) -> u32 {
        if o.is_none() {
            return 0;
        }
        let ptr = o.as_ptr() as usize;
        if let Some(&i) = self.by_ptr.get(&ptr) {
            return i;
        }
        self.objs.push(o.into_py(o.py()));
        let i = (self.objs.len() - 1) as u32;
        self.by_ptr.insert(ptr, i);
        i
    }

    fn push(&mut self, c: &PyAny) -> PyResult<()> {
        if c.is_none() {
            self.recs.push(self.hole());
            return Ok(());
        }
        let t: &PyTuple = c.downcast()?;
        let rec = match self.row(t) {
            Ok(r) => r,
            Err(_) => Rec { args: self.obj(c), flags: WHOLE, ..self.hole() },
        };
        self.recs.push(rec);
        Ok(())
    }

    fn hole(&self) -> Rec {
        Rec {
            pid: 0,
            time: 0.0,
            ret: 0,
            dur: 0,
            line: 0,
            name: 0,
            args: 0,
            errno: 0,
            ret_path: 0,
            path: 0,
            fd_path: 0,
            argv: 0,
            flags: HOLE,
        }
    }

    fn row(&mut self, c: &PyTuple) -> PyResult<Rec> {
        if c.len() != 14 {
            return Err(PyTypeError::new_err("a call of 14 fields"));
        }
        let mut flags = 0u8;
        let num = |o: &PyAny, none: u8, flags: &mut u8| -> PyResult<f64> {
            if o.is_none() {
                *flags |= none;
                return Ok(0.0);
            }
            // a float only: another number would come back as a float
            Ok(o.downcast::<PyFloat>().map_err(|_| PyTypeError::new_err("a float"))?.value())
        };
        let flag = |o: &PyAny| -> PyResult<bool> {
            if o.as_ptr() == unsafe { ffi::Py_True() } {
                Ok(true)
            } else if o.as_ptr() == unsafe { ffi::Py_False() } {
                Ok(false)
            } else {
                Err(PyTypeError::new_err("a bool"))
            }
        };
        let exact_int = |o: &PyAny| -> PyResult<i64> {
            if unsafe { ffi::PyLong_CheckExact(o.as_ptr()) } == 0 {
                return Err(PyTypeError::new_err("an int"));
            }
            int_of(o)
        };
        let pid = i32::try_from(exact_int(c.get_item(0)?)?).map_err(|_| PyTypeError::new_err("a pid of 32 bits"))?;
        let time = num(c.get_item(1)?, TIME_NONE, &mut flags)?;
        let dur_s = num(c.get_item(7)?, DUR_NONE, &mut flags)?;
        let us = (dur_s * 1e6).round();
        if !(0.0..=u32::MAX as f64).contains(&us) || (us as u32) as f64 / 1e6 != dur_s {
            return Err(PyTypeError::new_err("a duration of whole microseconds"));
        }
        let dur = us as u32;
        let line = u32::try_from(exact_int(c.get_item(8)?)?).map_err(|_| PyTypeError::new_err("a line of 32 bits"))?;
        let ret_o = c.get_item(4)?;
        let ret = if ret_o.is_none() {
            flags |= RET_NONE;
            0
        } else {
            exact_int(ret_o)?
        };
        let args_o = c.get_item(3)?;
        let args_text = match args_o.downcast::<PyString>() {
            Ok(t) => Some(utf8(t)?),
            Err(_) => None,
        };
        if let Some(t) = args_text {
            if self.arena.len() + t.len() > u32::MAX as usize || self.texts.len() >= u32::MAX as usize {
                return Err(PyTypeError::new_err("arguments past 4 GB"));
            }
        }
        if flag(c.get_item(9)?)? {
            flags |= UNFINISHED;
        }
        if flag(c.get_item(12)?)? {
            flags |= CUT;
        }
        let rec = Rec {
            pid,
            time,
            ret,
            dur,
            line,
            name: self.obj(c.get_item(2)?),
            args: match args_text {
                Some(t) => {
                    flags |= ARGS_TEXT;
                    self.texts.push((self.arena.len() as u32, t.len() as u32));
                    self.arena.push_str(t);
                    (self.texts.len() - 1) as u32
                }
                None => self.obj(args_o),
            },
            errno: self.obj(c.get_item(5)?),
            ret_path: self.obj(c.get_item(6)?),
            path: self.obj(c.get_item(10)?),
            fd_path: self.obj(c.get_item(11)?),
            argv: self.obj(c.get_item(13)?),
            flags,
        };
        Ok(rec)
    }

    fn text(&self, k: u32) -> &str {
        let (start, len) = self.texts[k as usize];
        &self.arena[start as usize..(start + len) as usize]
    }

    /// The Syscall of row i, as the parser makes them.
    pub(crate) fn record(&self, py: Python, i: usize) -> PyObject {
        let r = &self.recs[i];
        if r.flags & HOLE != 0 {
            return py.None();
        }
        if r.flags & WHOLE != 0 {
            return self.objs[r.args as usize].clone_ref(py);
        }
        let o = |k: u32| -> PyObject { self.objs[k as usize].clone_ref(py) };
        let f = |v: f64, none: u8| -> PyObject {
            if r.flags & none != 0 {
                py.None()
            } else {
                v.into_py(py)
            }
        };
        let b = |bit: u8| -> PyObject { (r.flags & bit != 0).into_py(py) };
        let ret = if r.flags & RET_NONE != 0 { py.None() } else { r.ret.into_py(py) };
        let items = vec![
            (r.pid as i64).into_py(py),
            f(r.time, TIME_NONE),
            o(r.name),
            if r.flags & ARGS_TEXT != 0 { pystr(py, self.text(r.args)) } else { o(r.args) },
            ret,
            o(r.errno),
            o(r.ret_path),
            f(r.dur as f64 / 1e6, DUR_NONE),
            (r.line as i64).into_py(py),
            b(UNFINISHED),
            o(r.path),
            o(r.fd_path),
            b(CUT),
            o(r.argv),
        ];
        let t = pytuple(py, items);
        unsafe {
            if let Some(cls) = &self.record {
                let tp = cls.as_ptr();
                ffi::Py_INCREF(tp);
                let old = (*t.as_ptr()).ob_type;
                (*t.as_ptr()).ob_type = tp as *mut ffi::PyTypeObject;
                let _ = old; // tuple's type is static: no reference to drop
            }
            untrack(&t);
        }
        t
    }
}

/// One row of a store, read as the summary reads a Syscall tuple.
#[derive(Clone, Copy)]
pub(crate) struct Row<'a> {
    pub(crate) d: &'a StoreData,
    pub(crate) i: usize,
    pub(crate) py: Python<'a>,
}

/// What the summary reads of a call, from a Syscall tuple or from a store's row: the same
/// values and the same errors (an int past 64 bits is an OverflowError either way).
pub(crate) trait Call<'a>: Copy {
    fn pid(self) -> PyResult<i64>;
    fn time(self) -> PyResult<Option<f64>>;
    fn time_obj(self) -> PyObject;
    fn name_obj(self) -> &'a PyAny;
    fn args_obj(self) -> &'a PyAny;
    /// The arguments' text when they are one text (not split).
    fn args_str(self) -> PyResult<Option<&'a str>>;
    fn ret(self) -> PyResult<Option<i64>>;
    fn errno(self) -> PyResult<Option<&'a str>>;
    fn ret_path(self) -> PyResult<Option<&'a str>>;
    fn dur(self) -> PyResult<Option<f64>>;
    fn line(self) -> PyResult<i64>;
    fn path(self) -> PyResult<Option<&'a str>>;
    fn fd_path(self) -> PyResult<Option<&'a str>>;
    fn path_cut(self) -> PyResult<bool>;
    /// The Syscall itself (a store makes it).
    fn record(self) -> PyObject;
}

fn opt_float(o: &PyAny) -> PyResult<Option<f64>> {
    if o.is_none() {
        Ok(None)
    } else {
        Ok(Some(o.extract()?))
    }
}

impl<'a> Call<'a> for &'a PyTuple {
    fn pid(self) -> PyResult<i64> {
        int_of(self.get_item(0)?)
    }
    fn time(self) -> PyResult<Option<f64>> {
        opt_float(self.get_item(1)?)
    }
    fn time_obj(self) -> PyObject {
        self.get_item(1).map(|o| o.into_py(self.py())).unwrap_or_else(|_| self.py().None())
    }
    fn name_obj(self) -> &'a PyAny {
        self.get_item(2).unwrap_or_else(|_| self.py().None().into_ref(self.py()))
    }
    fn args_obj(self) -> &'a PyAny {
        self.get_item(3).unwrap_or_else(|_| self.py().None().into_ref(self.py()))
    }
    fn args_str(self) -> PyResult<Option<&'a str>> {
        match self.get_item(3)?.downcast::<PyString>() {
            Ok(t) => Ok(Some(utf8(t)?)),
            Err(_) => Ok(None),
        }
    }
    fn ret(self) -> PyResult<Option<i64>> {
        let o = self.get_item(4)?;
        if o.is_none() {
            Ok(None)
        } else {
            Ok(Some(int_of(o)?))
        }
    }
    fn errno(self) -> PyResult<Option<&'a str>> {
        opt_str(self.get_item(5)?)
    }
    fn ret_path(self) -> PyResult<Option<&'a str>> {
        opt_str(self.get_item(6)?)
    }
    fn dur(self) -> PyResult<Option<f64>> {
        opt_float(self.get_item(7)?)
    }
    fn line(self) -> PyResult<i64> {
        int_of(self.get_item(8)?)
    }
    fn path(self) -> PyResult<Option<&'a str>> {
        opt_str(self.get_item(10)?)
    }
    fn fd_path(self) -> PyResult<Option<&'a str>> {
        opt_str(self.get_item(11)?)
    }
    fn path_cut(self) -> PyResult<bool> {
        self.get_item(12)?.is_true()
    }
    fn record(self) -> PyObject {
        self.into_py(self.py())
    }
}

impl<'a> Row<'a> {
    fn r(&self) -> &'a Rec {
        &self.d.recs[self.i]
    }
    /// The Syscall of a row kept whole.
    fn whole(&self) -> Option<&'a PyTuple> {
        let r = self.r();
        if r.flags & WHOLE != 0 {
            self.d.objs[r.args as usize].as_ref(self.py).downcast::<PyTuple>().ok()
        } else {
            None
        }
    }
    fn o(&self, k: u32) -> &'a PyAny {
        self.d.objs[k as usize].as_ref(self.py)
    }
    fn s(&self, k: u32) -> PyResult<Option<&'a str>> {
        if k == 0 {
            Ok(None)
        } else {
            Ok(Some(str_of(self.o(k))?))
        }
    }
}

impl<'a> Call<'a> for Row<'a> {
    fn pid(self) -> PyResult<i64> {
        if let Some(t) = self.whole() {
            return t.pid();
        }
        Ok(self.r().pid as i64)
    }
    fn time(self) -> PyResult<Option<f64>> {
        if let Some(t) = self.whole() {
            return t.time();
        }
        let r = self.r();
        Ok(if r.flags & TIME_NONE != 0 { None } else { Some(r.time) })
    }
    fn time_obj(self) -> PyObject {
        if let Some(t) = self.whole() {
            return t.time_obj();
        }
        match self.time() {
            Ok(Some(t)) => t.into_py(self.py),
            _ => self.py.None(),
        }
    }
    fn name_obj(self) -> &'a PyAny {
        if let Some(t) = self.whole() {
            return t.name_obj();
        }
        self.o(self.r().name)
    }
    fn args_obj(self) -> &'a PyAny {
        if let Some(t) = self.whole() {
            return t.args_obj();
        }
        let r = self.r();
        if r.flags & ARGS_TEXT != 0 {
            return PyString::new(self.py, self.d.text(r.args));
        }
        self.o(r.args)
    }
    fn args_str(self) -> PyResult<Option<&'a str>> {
        if let Some(t) = self.whole() {
            return t.args_str();
        }
        let r = self.r();
        if r.flags & ARGS_TEXT != 0 {
            return Ok(Some(self.d.text(r.args)));
        }
        match self.o(r.args).downcast::<PyString>() {
            Ok(t) => Ok(Some(utf8(t)?)),
            Err(_) => Ok(None),
        }
    }
    fn ret(self) -> PyResult<Option<i64>> {
        if let Some(t) = self.whole() {
            return t.ret();
        }
        let r = self.r();
        if r.flags & RET_NONE != 0 {
            Ok(None)
        } else {
            Ok(Some(r.ret))
        }
    }
    fn errno(self) -> PyResult<Option<&'a str>> {
        if let Some(t) = self.whole() {
            return t.errno();
        }
        self.s(self.r().errno)
    }
    fn ret_path(self) -> PyResult<Option<&'a str>> {
        if let Some(t) = self.whole() {
            return t.ret_path();
        }
        self.s(self.r().ret_path)
    }
    fn dur(self) -> PyResult<Option<f64>> {
        if let Some(t) = self.whole() {
            return t.dur();
        }
        let r = self.r();
        Ok(if r.flags & DUR_NONE != 0 { None } else { Some(r.dur as f64 / 1e6) })
    }
    fn line(self) -> PyResult<i64> {
        if let Some(t) = self.whole() {
            return t.line();
        }
        Ok(self.r().line as i64)
    }
    fn path(self) -> PyResult<Option<&'a str>> {
        if let Some(t) = self.whole() {
            return t.path();
        }
        self.s(self.r().path)
    }
    fn fd_path(self) -> PyResult<Option<&'a str>> {
        if let Some(t) = self.whole() {
            return t.fd_path();
        }
        self.s(self.r().fd_path)
    }
    fn path_cut(self) -> PyResult<bool> {
        if let Some(t) = self.whole() {
            return t.path_cut();
        }
        Ok(self.r().flags & CUT != 0)
    }
    fn record(self) -> PyObject {
        self.d.record(self.py, self.i)
    }
}

/// The store behind a `Calls` object, from either copy of the library (None for another object).
pub(crate) fn store_of(calls: &PyAny) -> PyResult<Option<&StoreData>> {
    let f = match calls.getattr("_address") {
        Ok(f) => f,
        Err(_) => return Ok(None),
    };
    let (addr, tag): (usize, u64) = f.call0()?.extract()?;
    if tag != LAYOUT_TAG || addr == 0 {
        return Err(PyTypeError::new_err("a store of another build"));
    }
    // the store lives as long as `calls`, which the caller holds; it is not changed while read
    Ok(Some(unsafe { &*(addr as *const StoreData) }))
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
extern "C" {
    fn malloc_trim(pad: usize) -> std::os::raw::c_int;
}

/// Once a log is read: what its pieces' texts and rows held (freed, but kept by glibc's heap
/// under what is still in use) goes back to the system before the summary, whose objects come
/// from Python's own arenas and would not reuse it (68 MB log: 4-5 MB of the summary's peak).
fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        malloc_trim(0);
    }
}

/// Calls(record): the calls of a log as columns (see the module's comment). `record`: the
/// Syscall class the rows are made as (None: plain tuples).
#[pyclass]
pub(crate) struct Calls {
    data: StoreData,
}

#[pyclass]
pub(crate) struct CallsIter {
    calls: Py<Calls>,
    at: usize,
}

#[pymethods]
impl CallsIter {
    fn __iter__(slf: PyRef<Self>) -> PyRef<Self> {
        slf
    }
    fn __next__(mut slf: PyRefMut<Self>, py: Python) -> Option<PyObject> {
        let at = slf.at;
        let out = {
            let c = slf.calls.borrow(py);
            if at < c.data.len() {
                Some(c.data.record(py, at))
            } else {
                None
            }
        };
        if out.is_some() {
            slf.at += 1;
        }
        out
    }
}

#[pymethods]
impl Calls {
    #[new]
    fn new(py: Python, record: Option<&PyType>) -> Self {
        Calls {
            data: StoreData {
                recs: Vec::new(),
                objs: vec![py.None()],
                texts: Vec::new(),
                arena: String::new(),
                by_ptr: HashMap::default(),
                record: record.map(|r| r.into()),
            },
        }
    }

    /// Append the Syscalls of `calls` (None: a place kept for a call to come, see `set`). A call
    /// a row cannot hold as it is (a number past 64 bits...) is kept whole.
    fn extend(&mut self, calls: &PyAny) -> PyResult<()> {
        let before = self.data.len();
        for item in calls.iter()? {
            self.data.push(item?)?;
        }
        if self.data.len() - before >= 4096 {
            give_back_freed_memory(); // a piece's text and rows (see there)
        }
        Ok(())
    }

    /// Put a call (or None: no call) in place `i` (a place None kept).
    fn set(&mut self, i: usize, call: &PyAny) -> PyResult<()> {
        if i >= self.data.recs.len() {
            return Err(PyIndexError::new_err("call index out of range"));
        }
        self.data.push(call)?;
        let rec = self.data.recs.pop().unwrap();
        self.data.recs[i] = rec;
        Ok(())
    }

    /// Drop the places no call filled (once every call is in: the table that shares each
    /// object between rows goes too, a call appended after this gets objects of its own; and
    /// the memory the reading freed is given back).
    fn compact(&mut self) {
        self.data.recs.retain(|r| r.flags & HOLE == 0);
        self.data.by_ptr = HashMap::default();
        give_back_freed_memory();
    }

    /// A new store: `parts` in order, each (start, stop) of this store's rows or a Syscall.
    fn spliced(&self, py: Python, parts: &PyAny) -> PyResult<Calls> {
        let mut out = Calls {
            data: StoreData {
                recs: Vec::with_capacity(self.data.recs.len()),
                objs: self.data.objs.iter().map(|o| o.clone_ref(py)).collect(),
                texts: self.data.texts.clone(),
                arena: self.data.arena.clone(),
                by_ptr: HashMap::default(),
                record: self.data.record.as_ref().map(|r| r.clone_ref(py)),
            },
        };
        for (i, o) in out.data.objs.iter().enumerate().skip(1) {
            out.data.by_ptr.insert(o.as_ptr() as usize, i as u32);
        }
        for part in parts.iter()? {
            let part = part?;
            let t: &PyTuple = part.downcast()?;
            if t.len() == 2 {
                let (a, b): (usize, usize) = t.extract()?;
                let b = b.min(self.data.recs.len());
                if a < b {
                    out.data.recs.extend_from_slice(&self.data.recs[a..b]);
                }
            } else {
                out.data.push(part)?;
            }
        }
        Ok(out)
    }

    /// Every call's name (the shared str), in order.
    fn names(&self, py: Python) -> Vec<PyObject> {
        (0..self.data.recs.len())
            .map(|i| {
                let r = &self.data.recs[i];
                if r.flags & WHOLE != 0 {
                    self.data.record(py, i).as_ref(py).getattr("name").map(|o| o.into_py(py)).unwrap_or_else(|_| py.None())
                } else {
                    self.data.objs[r.name as usize].clone_ref(py)
                }
            })
            .collect()
    }

    /// Every call's time (None where it has none), in order.
    fn times(&self, py: Python) -> Vec<PyObject> {
        (0..self.data.recs.len())
            .map(|i| {
                let r = &self.data.recs[i];
                if r.flags & WHOLE != 0 {
                    self.data.record(py, i).as_ref(py).getattr("time_s").map(|o| o.into_py(py)).unwrap_or_else(|_| py.None())
                } else if r.flags & TIME_NONE != 0 {
                    py.None()
                } else {
                    r.time.into_py(py)
                }
            })
            .collect()
    }

    /// import_boundaries._own_lookups_before's search: the earliest of the calls in
    /// (max(lo, pos - window), pos) made by `pid` whose path (`ret_path or path`), trailing
    /// slashes dropped, ends in a name that is `last` or starts with `last.`; -1 for none.
    fn own_lookup(&self, py: Python, lo: i64, pos: i64, pid: i64, last: &str, window: i64) -> PyResult<i64> {
        let mut first = -1i64;
        let mut i = pos - 1;
        let stop = lo.max(pos - window);
        while i > stop {
            let c = Row { d: &self.data, i: i as usize, py };
            if c.pid()? == pid {
                let p = match c.ret_path()? {
                    Some(x) if !x.is_empty() => Some(x),
                    _ => c.path()?,
                };
                if let Some(p) = p {
                    if !p.is_empty() {
                        let t = p.trim_end_matches('/');
                        let base = &t[t.rfind('/').map_or(0, |k| k + 1)..];
                        if base == last || (base.len() > last.len() && base.starts_with(last) && base.as_bytes()[last.len()] == b'.') {
                            first = i;
                        }
                    }
                }
            }
            i -= 1;
        }
        Ok(first)
    }

    /// How many calls are `<unfinished ...>` never resumed.
    fn unfinished(&self, py: Python) -> usize {
        (0..self.data.recs.len())
            .filter(|&i| match self.data.recs[i].flags {
                f if f & HOLE != 0 => false,
                f if f & WHOLE != 0 => self.data.record(py, i).as_ref(py).getattr("unfinished").and_then(|u| u.is_true()).unwrap_or(false),
                f => f & UNFINISHED != 0,
            })
            .count()
    }

    /// (the address of the rows, the layout tag): for the summary's native pass.
    fn _address(&self) -> (usize, u64) {
        (&self.data as *const StoreData as usize, LAYOUT_TAG)
    }

    fn __len__(&self) -> usize {
        self.data.len()
    }

    fn __getitem__(&self, py: Python, key: &PyAny) -> PyResult<PyObject> {
        let n = self.data.len() as isize;
        if let Ok(s) = key.downcast::<PySlice>() {
            let ind = s.indices(n as std::os::raw::c_long)?;
            let mut items = Vec::with_capacity(ind.slicelength as usize);
            let mut i = ind.start;
            for _ in 0..ind.slicelength {
                items.push(self.data.record(py, i as usize));
                i += ind.step;
            }
            return Ok(pytuple(py, items));
        }
        let mut i: isize = key.extract()?;
        if i < 0 {
            i += n;
        }
        if i < 0 || i >= n {
            return Err(PyIndexError::new_err("call index out of range"));
        }
        Ok(self.data.record(py, i as usize))
    }

    fn __iter__(slf: PyRef<Self>) -> CallsIter {
        CallsIter { calls: slf.into(), at: 0 }
    }
}
