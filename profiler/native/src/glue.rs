//! The pyo3 glue every part shares: a fast hash for one log's maps, reading a str, an int or
//! None without a copy, and making strs and tuples the caller owns.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyString;
use pyo3::AsPyPointer;

/// A fast hash for the maps of one log (pids, paths, names: no untrusted peer to defend
/// against, and SipHash was a tenth of a summary's time).
#[derive(Default, Clone, Copy)]
pub(crate) struct Fx(u64);

impl Fx {
    #[inline]
    pub(crate) fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl std::hash::Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(b) ^ ((rest.len() as u64) << 56));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64)
    }
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64)
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i)
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64)
    }
    fn write_i64(&mut self, i: i64) {
        self.add(i as u64)
    }
}

pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<Fx>>;
pub(crate) type HashSet<K> = std::collections::HashSet<K, std::hash::BuildHasherDefault<Fx>>;

extern "C" {
    // in every CPython 3 (in the limited API from 3.10 only, so pyo3 reads a str through a copy
    // into a bytes object for abi3-py37; this reads the str's own cached UTF-8)
    pub(crate) fn PyUnicode_AsUTF8AndSize(unicode: *mut ffi::PyObject, size: *mut ffi::Py_ssize_t) -> *const std::os::raw::c_char;
}

/// A str's text, without a copy (valid while the str lives).
pub(crate) fn utf8(s: &PyString) -> PyResult<&str> {
    let mut size: ffi::Py_ssize_t = 0;
    let data = unsafe { PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size) };
    if data.is_null() {
        return Err(PyErr::fetch(s.py()));
    }
    // CPython's UTF-8 of a str is valid UTF-8
    Ok(unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(data as *const u8, size as usize)) })
}

/// One str per text (names, errnos, paths: the same paths come back in every process of a log,
/// and one object for all saves making and freeing each copy).
pub(crate) fn interned(py: Python, names: &mut HashMap<String, PyObject>, s: &str) -> PyObject {
    match names.get(s) {
        Some(o) => o.clone_ref(py),
        None => {
            let o = pystr(py, s);
            names.insert(s.to_string(), o.clone_ref(py));
            o
        }
    }
}

/// A new str, owned by the caller (not registered in pyo3's pool of the call's objects, which
/// would hold every row's strings until the call returns).
pub(crate) fn pystr(py: Python, s: &str) -> PyObject {
    unsafe {
        PyObject::from_owned_ptr(
            py,
            ffi::PyUnicode_FromStringAndSize(s.as_ptr() as *const std::os::raw::c_char, s.len() as ffi::Py_ssize_t),
        )
    }
}

/// A new tuple of `items`, owned by the caller (see pystr).
pub(crate) fn pytuple(py: Python, items: Vec<PyObject>) -> PyObject {
    unsafe {
        let t = ffi::PyTuple_New(items.len() as ffi::Py_ssize_t);
        let t = PyObject::from_owned_ptr(py, t);
        for (i, o) in items.into_iter().enumerate() {
            ffi::PyTuple_SetItem(t.as_ptr(), i as ffi::Py_ssize_t, o.into_ptr());
        }
        t
    }
}

/// Take a tuple that can be in no reference cycle out of the cyclic collector's care.
pub(crate) unsafe fn untrack(t: &PyObject) {
    // (PyObject_GC_UnTrack is a no-op on an object already untracked)
    ffi::PyObject_GC_UnTrack(t.as_ptr() as *mut std::os::raw::c_void);
}

pub(crate) fn opt_str(o: &PyAny) -> PyResult<Option<&str>> {
    if o.is_none() {
        Ok(None)
    } else {
        Ok(Some(str_of(o)?))
    }
}

/// A str's text (PyUnicode_AsUTF8AndSize checks the type itself: a TypeError for another).
pub(crate) fn str_of(o: &PyAny) -> PyResult<&str> {
    let mut size: ffi::Py_ssize_t = 0;
    let data = unsafe { PyUnicode_AsUTF8AndSize(o.as_ptr(), &mut size) };
    if data.is_null() {
        return Err(PyErr::fetch(o.py()));
    }
    Ok(unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(data as *const u8, size as usize)) })
}

/// An int's value (an OverflowError past 64 bits, as extract gives).
pub(crate) fn int_of(o: &PyAny) -> PyResult<i64> {
    let v = unsafe { ffi::PyLong_AsLongLong(o.as_ptr()) };
    if v == -1 && unsafe { !ffi::PyErr_Occurred().is_null() } {
        return Err(PyErr::fetch(o.py()));
    }
    Ok(v)
}

pub(crate) fn names_of(o: Option<&PyAny>) -> PyResult<HashSet<String>> {
    let mut out = HashSet::default();
    if let Some(o) = o {
        for item in o.iter()? {
            out.insert(item?.extract()?);
        }
    }
    Ok(out)
}
