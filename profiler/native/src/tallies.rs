//! The summary's tallies in one pass (tally_calls, the fast path of
//! profiler/analysis/syscalls.py `tally_calls`) and the kinds of call each part reads.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use pyo3::AsPyPointer;

use crate::glue::*;
use crate::store::Call;

// ---------------------------------------------------------------------------------------------
// The summary of a trace in one native pass: the tallies (the fast path of
// profiler/analysis/syscalls.py `tally_calls`) and the attribution of each call to the import
// that made it (the fast path of profiler/analysis/attribution.py `_attribute_owners`). Their
// pure-Python twins give the same figures; tests compare both on real logs.

#[derive(Clone, Copy)]
pub(crate) struct Kind {
    pub(crate) family: i64,       // index in FAMILIES, -1 for none
    pub(crate) path_arg: bool,    // in PATH_ARG (a failed lookup when ENOENT/ENOTDIR)
    pub(crate) open: bool,        // in OPENS
    pub(crate) read: bool,        // in READS
    pub(crate) marker: bool,      // a call an import marker can be (attribution._MARKER_CALLS)
    pub(crate) module_open: bool, // a call that can open a module's file (attribution._MODULE_OPENS)
    pub(crate) listing: bool,     // a call that can list a sys.path entry (open, openat)
    pub(crate) layout: bool,      // a call ProcessLayout reads (forks, execs)
}

impl Kind {
    /// A call of no kind importprof reads.
    const NONE: Kind =
        Kind { family: -1, path_arg: false, open: false, read: false, marker: false, module_open: false, listing: false, layout: false };
}

/// Keys in first-seen order.
pub(crate) struct Ordered<K: std::hash::Hash + Eq + Clone, V> {
    pub(crate) at: HashMap<K, usize>,
    pub(crate) items: Vec<(K, V)>,
}

impl<K: std::hash::Hash + Eq + Clone, V: Default> Ordered<K, V> {
    pub(crate) fn new() -> Self {
        Ordered { at: HashMap::default(), items: Vec::new() }
    }
    pub(crate) fn get(&mut self, k: &K) -> &mut V {
        let i = match self.at.get(k) {
            Some(&i) => i,
            None => {
                self.items.push((k.clone(), V::default()));
                self.at.insert(k.clone(), self.items.len() - 1);
                self.items.len() - 1
            }
        };
        &mut self.items[i].1
    }
}

impl<V: Default> Ordered<String, V> {
    /// get() without making a String for a key already there.
    pub(crate) fn get_str(&mut self, k: &str) -> &mut V {
        let i = match self.at.get(k) {
            Some(&i) => i,
            None => {
                self.items.push((k.to_string(), V::default()));
                self.at.insert(k.to_string(), self.items.len() - 1);
                self.items.len() - 1
            }
        };
        &mut self.items[i].1
    }
}

/// Each syscall name's kind, read once per name object (the parser shares one str per name).
pub(crate) struct Kinds {
    pub(crate) table: HashMap<String, Kind>,
    pub(crate) nfam: usize,
    pub(crate) by_ptr: HashMap<usize, (Kind, usize)>,
    pub(crate) names: Vec<PyObject>,
    pub(crate) name_at: HashMap<String, usize>,
}

impl Kinds {
    pub(crate) fn new(
        kinds: &PyDict,
        markers: Option<&PyAny>,
        module_opens: Option<&PyAny>,
        listings: Option<&PyAny>,
        layout: Option<&PyAny>,
    ) -> PyResult<Self> {
        let markers = names_of(markers)?;
        let module_opens = names_of(module_opens)?;
        let listings = names_of(listings)?;
        let layout = names_of(layout)?;
        let mut table: HashMap<String, Kind> = HashMap::default();
        let mut nfam = 0usize;
        let none = Kind::NONE;
        for (key, value) in kinds.iter() {
            let (family, path_arg, open, read): (i64, bool, bool, bool) = value.extract()?;
            if family >= 0 {
                nfam = nfam.max(family as usize + 1);
            }
            table.insert(key.extract()?, Kind { family, path_arg, open, read, ..none });
        }
        for (set, which) in [(&markers, 0), (&module_opens, 1), (&listings, 2), (&layout, 3)] {
            for n in set.iter() {
                let k = table.entry(n.clone()).or_insert(none);
                match which {
                    0 => k.marker = true,
                    1 => k.module_open = true,
                    2 => k.listing = true,
                    _ => k.layout = true,
                }
            }
        }
        Ok(Kinds { table, nfam, by_ptr: HashMap::default(), names: Vec::new(), name_at: HashMap::default() })
    }

    /// (kind, name slot) of a call's name object; the pointer stays valid while the calls are
    /// held by the caller.
    pub(crate) fn of(&mut self, py: Python, name_obj: &PyAny) -> PyResult<(Kind, usize)> {
        let ptr = name_obj.as_ptr() as usize;
        if let Some(&v) = self.by_ptr.get(&ptr) {
            return Ok(v);
        }
        let s: &str = str_of(name_obj)?;
        let none = Kind::NONE;
        let kind = *self.table.get(s).unwrap_or(&none);
        let slot = match self.name_at.get(s) {
            Some(&j) => j,
            None => {
                self.names.push(name_obj.into_py(py));
                self.name_at.insert(s.to_string(), self.names.len() - 1);
                self.names.len() - 1
            }
        };
        self.by_ptr.insert(ptr, (kind, slot));
        Ok((kind, slot))
    }
}

/// The counters of tally_calls, filled call by call.
pub(crate) struct Tally {
    pub(crate) names: Vec<(i64, i64, f64)>, // per name slot
    pub(crate) name_order: Vec<usize>,      // the slots in first-seen order
    pub(crate) pids: Ordered<i64, (i64, i64, f64)>,
    pub(crate) fams: Vec<(i64, i64, f64)>,
    pub(crate) failed_paths: Ordered<String, i64>,
    pub(crate) opens: Ordered<String, i64>,
    pub(crate) read_by_file: Ordered<String, i64>,
    pub(crate) unnamed: Vec<(usize, i64)>,
    pub(crate) reads: i64,
    pub(crate) read_total: i64,
    pub(crate) hist: Ordered<i64, (i64, i64)>,
    pub(crate) own: Vec<(i64, i64, i64, i64, f64)>,
}

impl Tally {
    pub(crate) fn new(nfam: usize) -> Self {
        Tally {
            names: Vec::new(),
            name_order: Vec::new(),
            pids: Ordered::new(),
            fams: vec![(0, 0, 0.0); nfam],
            failed_paths: Ordered::new(),
            opens: Ordered::new(),
            read_by_file: Ordered::new(),
            unnamed: Vec::new(),
            reads: 0,
            read_total: 0,
            hist: Ordered::new(),
            own: Vec::new(),
        }
    }

    /// One call (`pos`: its position, for the unnamed reads; `owner`: its owner's number or -1).
    pub(crate) fn add<'a, C: Call<'a>>(&mut self, kind: Kind, slot: usize, pos: usize, c: C, pid: i64, owner: i64) -> PyResult<()> {
        let ret: Option<i64> = c.ret()?;
        let errno = c.errno()?;
        let failed_call = errno.is_some_and(|e| !e.is_empty());
        let dur: f64 = c.dur()?.unwrap_or(0.0);
        // the three _tally counters (per name, per pid, per family)
        if self.names.len() <= slot {
            self.names.resize(slot + 1, (0, 0, 0.0));
        }
        let n = &mut self.names[slot];
        if n.0 == 0 {
            self.name_order.push(slot);
        }
        n.0 += 1;
        if failed_call {
            n.1 += 1;
        }
        if dur != 0.0 {
            n.2 += dur;
        }
        let p = self.pids.get(&pid);
        p.0 += 1;
        if failed_call {
            p.1 += 1;
        }
        if dur != 0.0 {
            p.2 += dur;
        }
        if kind.family >= 0 {
            let f = &mut self.fams[kind.family as usize];
            f.0 += 1;
            if failed_call {
                f.1 += 1;
            }
            if dur != 0.0 {
                f.2 += dur;
            }
        }
        // the file-system view, and what an owner's accumulator adds
        let lookup_failed = kind.path_arg && matches!(errno, Some("ENOENT") | Some("ENOTDIR"));
        let mut opened = false;
        let mut got: i64 = 0;
        if lookup_failed {
            if let Some(path) = c.path()? {
                *self.failed_paths.get_str(path) += 1;
            }
        } else if kind.open {
            if let Some(r) = ret {
                if r >= 0 && !failed_call {
                    let rp = c.ret_path()?;
                    let path = match rp {
                        Some(x) if !x.is_empty() => Some(x),
                        _ => c.path()?,
                    };
                    if let Some(path) = path {
                        opened = true;
                        *self.opens.get_str(path) += 1;
                    }
                }
            }
        } else if kind.read && !failed_call {
            if let Some(r) = ret {
                self.reads += 1;
                self.read_total += r;
                let lo = if r <= 0 { 0 } else { 1i64 << (63 - r.leading_zeros() as i64) };
                let h = self.hist.get(&lo);
                h.0 += 1;
                h.1 += r;
                match c.fd_path()? {
                    Some(fp) if !fp.is_empty() => *self.read_by_file.get_str(fp) += r,
                    _ => self.unnamed.push((pos, r)),
                }
                if r > 0 {
                    got = r;
                }
            }
        }
        if owner >= 0 {
            let o = owner as usize;
            if self.own.len() <= o {
                self.own.resize(o + 1, (0, 0, 0, 0, 0.0));
            }
            let a = &mut self.own[o];
            a.0 += 1;
            if dur != 0.0 {
                a.4 += dur;
            }
            if lookup_failed {
                a.1 += 1;
            } else if opened {
                a.2 += 1;
            } else {
                a.3 += got;
            }
        }
        Ok(())
    }

    /// The first ten items of tally_calls' result (by_owner is the caller's).
    pub(crate) fn finish(self, py: Python, kinds: &Kinds) -> PyResult<Vec<PyObject>> {
        let by_name = PyDict::new(py);
        for slot in self.name_order {
            let (count, errors, seconds) = self.names[slot];
            by_name.set_item(kinds.names[slot].clone_ref(py), (count, errors, seconds))?;
        }
        let by_pid = PyDict::new(py);
        for (pid, v) in self.pids.items {
            by_pid.set_item(pid, v)?;
        }
        let counter = |o: Ordered<String, i64>| -> PyResult<&PyDict> {
            let d = PyDict::new(py);
            for (k, v) in o.items {
                d.set_item(k, v)?;
            }
            Ok(d)
        };
        let sizes = PyDict::new(py);
        for (lo, v) in self.hist.items {
            sizes.set_item(lo, v)?;
        }
        Ok(vec![
            by_name.into_py(py),
            by_pid.into_py(py),
            self.fams.into_py(py),
            counter(self.failed_paths)?.into_py(py),
            counter(self.opens)?.into_py(py),
            counter(self.read_by_file)?.into_py(py),
            self.unnamed.into_py(py),
            self.reads.into_py(py),
            self.read_total.into_py(py),
            sizes.into_py(py),
        ])
    }
}

/// tally_calls(calls, owners, kinds) → (by_name, by_pid, families, failed_paths, opens,
/// read_by_file, unnamed_reads, reads, read_total, read_sizes, by_owner):
/// - by_name / by_pid: {key: (count, errors, seconds)} (first-seen order);
/// - families: [(count, errors, seconds)] per family index;
/// - failed_paths: {path: n} of the failed lookups that have a path; opens: {path: n};
/// - read_by_file: {fd path: bytes}; unnamed_reads: [(position, bytes)] of reads without an fd
///   path (the caller reads their first argument);
/// - read_sizes: {lowest size of the power-of-two bucket (0 for 0): (count, bytes)};
/// - by_owner (when `owners` gives an owner number per call, -1 for none): per number
///   (syscalls, failed lookups, opens, bytes read, seconds), as attribution._Acc.add sums them.
/// `kinds`: {syscall name: (family index or -1, path_arg, open, read)}.
#[pyfunction]
pub(crate) fn tally_calls(py: Python, calls: &PyList, owners: Option<&PyList>, kinds: &PyDict) -> PyResult<PyObject> {
    let mut k = Kinds::new(kinds, None, None, None, None)?;
    let mut tally = Tally::new(k.nfam);
    let owner_of: Option<Vec<i64>> = match owners {
        Some(o) => Some(o.extract()?),
        None => None,
    };
    for (i, item) in calls.iter().enumerate() {
        let c: &PyTuple = item.downcast()?;
        let (kind, slot) = k.of(py, c.get_item(2)?)?;
        let o = match &owner_of {
            Some(ow) => ow[i],
            None => -1,
        };
        tally.add(kind, slot, i, c, int_of(c.get_item(0)?)?, o)?;
    }
    let own = std::mem::take(&mut tally.own);
    let mut items = tally.finish(py, &k)?;
    let owners_out = PyList::empty(py);
    for a in own {
        owners_out.append(a)?;
    }
    items.push(owners_out.into_py(py));
    Ok(PyTuple::new(py, items).into_py(py))
}
