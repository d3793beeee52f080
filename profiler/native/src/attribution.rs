//! The attribution of each call to the import that made it (attribute_calls: the fast path of
//! profiler/analysis/attribution.py `_attribute_owners`, then the tallies) and select_calls.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use pyo3::AsPyPointer;

use crate::glue::*;
use crate::store::{store_of, Call, Row};
use crate::tallies::*;

// --- the attribution ---------------------------------------------------------------------------

pub(crate) const OUTSIDE: &str = "(outside imports)";

/// posixpath.split's head: the folder of a path (trailing slashes dropped unless all slashes).
pub(crate) fn dirname(p: &str) -> &str {
    let i = p.rfind('/').map_or(0, |i| i + 1);
    let head = &p[..i];
    if !head.is_empty() && head.bytes().any(|b| b != b'/') {
        head.trim_end_matches('/')
    } else {
        head
    }
}

pub(crate) fn basename(p: &str) -> &str {
    &p[p.rfind('/').map_or(0, |i| i + 1)..]
}

/// attribution._flags_text: an open's arguments after the path string.
pub(crate) fn flags_text<'a, C: Call<'a>>(c: C, name: &str) -> PyResult<String> {
    let text: String = match c.args_str()? {
        Some(s) => s.to_string(),
        None => {
            let parts: Vec<String> = c.args_obj().extract()?;
            parts.join(", ")
        }
    };
    match text.rfind('"') {
        Some(q) => Ok(text[q + 1..].to_string()),
        None => {
            // no string: the arguments split (the model's splitter), as the Python side reads them
            let py = c.name_obj().py();
            let args: Vec<String> = c.record().getattr(py, "args")?.extract(py)?;
            Ok(if name != "open" && args.len() > 2 {
                args[2].clone()
            } else if args.len() > 1 {
                args[1].clone()
            } else {
                String::new()
            })
        }
    }
}

/// A successful call's returned path, else its path argument (`ret_path or path`), when the
/// call succeeded (ret >= 0, no errno).
pub(crate) fn opened<'a, C: Call<'a>>(c: C) -> PyResult<Option<&'a str>> {
    match c.ret()? {
        None => return Ok(None),
        Some(r) if r < 0 => return Ok(None),
        _ => {}
    }
    if c.errno()?.is_some_and(|e| !e.is_empty()) {
        return Ok(None);
    }
    let p = match c.ret_path()? {
        Some(x) if !x.is_empty() => Some(x),
        _ => c.path()?,
    };
    Ok(p)
}

/// attribution._module_file: the .pyc/.py/.so a successful read-only open returned.
pub(crate) fn module_file<'a, C: Call<'a>>(c: C, name: &str) -> PyResult<Option<&'a str>> {
    let path = match opened(c)? {
        Some(p) if !p.is_empty() => p,
        _ => return Ok(None),
    };
    if !(path.ends_with(".pyc") || path.ends_with(".py") || path.ends_with(".so")) {
        return Ok(None);
    }
    let flags = flags_text(c, name)?;
    if flags.contains("O_WRONLY") || flags.contains("O_RDWR") || flags.contains("O_CREAT") {
        return Ok(None);
    }
    Ok(Some(path))
}

/// attribution._module_path: /lib/json/__pycache__/decoder.cpython-311.pyc → /lib/json/decoder.
pub(crate) fn module_path(path: &str) -> String {
    let mut folder = dirname(path);
    let base = basename(path);
    if base.ends_with(".pyc") && basename(folder) == "__pycache__" {
        folder = dirname(folder);
    }
    let stem = if let Some(stem) = base.strip_suffix(".py") { stem } else { base.split('.').next().unwrap_or("") };
    if stem == "__init__" {
        folder.to_string()
    } else if folder.is_empty() || folder.ends_with('/') {
        format!("{}{}", folder, stem)
    } else {
        format!("{}/{}", folder, stem)
    }
}

pub(crate) fn is_identifier(py: Python, s: &str) -> PyResult<bool> {
    if s.is_ascii() {
        let b = s.as_bytes();
        return Ok(!b.is_empty()
            && (b[0].is_ascii_alphabetic() || b[0] == b'_')
            && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_'));
    }
    PyString::new(py, s).call_method0("isidentifier")?.extract()
}

/// sys.path entries as the trace shows them (attribution._Roots), longest first.
pub(crate) struct Roots {
    pub(crate) roots: Vec<String>,
    pub(crate) set: HashSet<String>,
}

impl Roots {
    pub(crate) fn module_name(&self, py: Python, path: &str) -> PyResult<Option<String>> {
        let m = module_path(path);
        for r in &self.roots {
            let rest = if r == "/" {
                if !m.starts_with('/') {
                    continue;
                }
                &m[1..]
            } else if m.len() > r.len() && m.starts_with(r.as_str()) && m.as_bytes()[r.len()] == b'/' {
                &m[r.len()..]
            } else {
                continue;
            };
            let parts: Vec<&str> = rest.trim_matches('/').split('/').collect();
            for p in &parts {
                if !is_identifier(py, p)? {
                    return Ok(None);
                }
            }
            return Ok(Some(parts.join(".")));
        }
        Ok(None)
    }

    pub(crate) fn is_listing<'a, C: Call<'a>>(&self, c: C, name: &str) -> PyResult<bool> {
        match opened(c)? {
            Some(p) => Ok(self.set.contains(p.trim_end_matches('/')) && flags_text(c, name)?.contains("O_DIRECTORY")),
            None => Ok(false),
        }
    }
}

/// One (pid, module) accumulator: attribution._Acc.
#[derive(Default)]
pub(crate) struct Acc {
    pub(crate) pid: i64,
    pub(crate) name: String,
    pub(crate) imports: i64,
    pub(crate) cumulative: i64,
    pub(crate) failures: i64,
}

pub(crate) struct Walk {
    pub(crate) accs: Vec<Acc>,
    pub(crate) number: HashMap<(i64, String), usize>,
    pub(crate) touched: Vec<i64>,
    pub(crate) touched_set: HashSet<i64>,
}

impl Walk {
    pub(crate) fn touch(&mut self, pid: i64) {
        if self.touched_set.insert(pid) {
            self.touched.push(pid);
        }
    }
    pub(crate) fn owner(&mut self, pid: i64, name: &str) -> usize {
        self.touch(pid);
        if let Some(&o) = self.number.get(&(pid, name.to_string())) {
            return o;
        }
        self.accs.push(Acc { pid, name: name.to_string(), ..Default::default() });
        self.number.insert((pid, name.to_string()), self.accs.len() - 1);
        self.accs.len() - 1
    }
}

pub(crate) type Span = (String, i64, Option<f64>, Option<f64>, usize);

/// attribute_calls(calls, prefix, layout, kinds, marker_calls, module_opens, listing_calls,
/// layout_calls) → (pids, modes, touched, accs, spans, tallies, times): what
/// attribution._attribute_owners and then tally_calls give, in one native pass over the calls
/// without a Python step per call.
/// - `layout(first, picked)`: called once, after the first pass, with [(pid, time of its first
///   call)] and the calls whose name is in `layout_calls` (forks, execs): the caller's process
///   layout → ({thread pid: its process}, {process: line of its last exec}, the processes whose
///   program's name is a Python's, {process: (script argument, "/" + its path without leading
///   ./ and /)} of `python … app.py`);
/// - `pids`: the calls' pids in first-seen order; `modes`: [(pid, True for "markers")] of the
///   Python pids, in that order; `touched`: the pids in the order the careful walk first gave
///   them a table; `accs`: [(pid, module, syscalls, failed, opened, bytes_read, seconds,
///   imports, cumulative_syscalls, failures)] in the order they were made; `spans`: [(module,
///   pid, begin, end, depth)], unsorted; `tallies`: tally_calls' result over the calls not
///   markers (unnamed reads by position in `calls`; by_owner empty); `times`: (min, max) of the
///   calls' times, or None.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub(crate) fn attribute_calls(
    py: Python,
    calls: &PyAny,
    prefix: &str,
    layout: &PyAny,
    kinds: &PyDict,
    marker_calls: &PyAny,
    module_opens: &PyAny,
    listing_calls: &PyAny,
    layout_calls: &PyAny,
) -> PyResult<PyObject> {
    let k = Kinds::new(kinds, Some(marker_calls), Some(module_opens), Some(listing_calls), Some(layout_calls))?;
    if let Some(d) = store_of(calls)? {
        return attribute_rows(py, d.len(), |i| Row { d, i, py }, prefix, layout, k);
    }
    let items: Vec<&PyTuple> = if let Ok(t) = calls.downcast::<PyTuple>() {
        t.iter().map(|x| x.downcast::<PyTuple>()).collect::<Result<_, _>>()?
    } else {
        calls.downcast::<PyList>()?.iter().map(|x| x.downcast::<PyTuple>()).collect::<Result<_, _>>()?
    };
    attribute_rows(py, items.len(), |i| items[i], prefix, layout, k)
}

/// attribute_calls over `n` calls, `at(i)` the i-th (a Syscall tuple or a store's row).
fn attribute_rows<'a, C: Call<'a>>(
    py: Python<'a>,
    n: usize,
    at: impl Fn(usize) -> C,
    prefix: &str,
    layout: &PyAny,
    mut k: Kinds,
) -> PyResult<PyObject> {
    let is_marker_path = |p: Option<&str>| p.is_some_and(|p| p.starts_with(prefix));

    // pass 1: pids, the calls of the process layout, sys.path entries, marked pids and the
    // module files opened
    let mut pids: Vec<i64> = Vec::new();
    let mut seen: HashSet<i64> = HashSet::default();
    let first = PyList::empty(py); // (pid, time of its first call)
    let picked = PyList::empty(py); // the calls ProcessLayout reads
    let mut listed: HashSet<String> = HashSet::default();
    let mut packages: HashSet<String> = HashSet::default();
    let mut marked_pids: HashSet<i64> = HashSet::default();
    let mut candidates: Vec<(i64, &str)> = Vec::new();
    let mut tmin: Option<f64> = None;
    let mut tmax: Option<f64> = None;
    for pos in 0..n {
        let c = at(pos);
        let name_o = c.name_obj();
        let (kind, _) = k.of(py, name_o)?;
        let pid: i64 = c.pid()?;
        if seen.insert(pid) {
            pids.push(pid);
            first.append((pid, c.time_obj()))?;
        }
        if let Some(t) = c.time()? {
            tmin = Some(tmin.map_or(t, |m: f64| if t < m { t } else { m }));
            tmax = Some(tmax.map_or(t, |m: f64| if t > m { t } else { m }));
        }
        if kind.layout {
            picked.append(c.record())?;
        }
        if !(kind.listing || kind.marker || kind.module_open) {
            continue;
        }
        let name: &str = str_of(name_o)?;
        if kind.listing {
            if let Some(p) = opened(c)? {
                if !p.is_empty() {
                    if flags_text(c, name)?.contains("O_DIRECTORY") {
                        let r = p.trim_end_matches('/');
                        listed.insert(if r.is_empty() { "/".to_string() } else { r.to_string() });
                    } else if basename(p).starts_with("__init__.") {
                        let mut folder = dirname(p);
                        if basename(folder) == "__pycache__" {
                            folder = dirname(folder);
                        }
                        packages.insert(folder.to_string());
                    }
                }
            }
        }
        if kind.marker {
            if is_marker_path(c.path()?) {
                marked_pids.insert(pid);
            }
        } else if kind.module_open {
            if let Some(f) = module_file(c, name)? {
                candidates.push((pid, f));
            }
        }
    }
    // the process layout, made by the caller from what pass 1 picked
    let (threads, exec_line, named_python, scripts): (&PyDict, &PyDict, &PyAny, &PyDict) = layout.call1((first, picked))?.extract()?;
    let thread_of: HashMap<i64, i64> = threads.extract()?;
    let proc_of = |pid: i64| -> i64 { *thread_of.get(&pid).unwrap_or(&pid) };
    let exec_line: HashMap<i64, i64> = exec_line.extract()?;
    let mut named: HashSet<i64> = HashSet::default();
    for p in named_python.iter()? {
        named.insert(p?.extract()?);
    }
    let scripts: HashMap<i64, (String, String)> = scripts.extract()?;
    let marked: HashSet<i64> = marked_pids.iter().map(|&p| proc_of(p)).collect();
    let is_main_script = |proc: i64, path: &str| -> bool {
        match scripts.get(&proc) {
            Some((a, tail)) => path == a || path.ends_with(tail.as_str()),
            None => false,
        }
    };
    let mut roots: Vec<String> = listed.difference(&packages).cloned().collect();
    roots.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    let set: HashSet<String> = roots.iter().cloned().collect();
    let roots = Roots { roots, set };
    let mut opened_modules: HashSet<i64> = HashSet::default();
    for &(pid, f) in &candidates {
        let proc = proc_of(pid);
        if !opened_modules.contains(&proc) && roots.module_name(py, f)?.is_some() {
            opened_modules.insert(proc);
        }
    }
    // 1 = markers, 2 = lookups
    let mut modes: HashMap<i64, u8> = HashMap::default();
    let mut mode_list: Vec<(i64, bool)> = Vec::new();
    for &pid in &pids {
        let proc = proc_of(pid);
        if marked.contains(&proc) || opened_modules.contains(&proc) || named.contains(&proc) {
            let m = marked.contains(&proc);
            modes.insert(pid, if m { 1 } else { 2 });
            mode_list.push((pid, m));
        }
    }

    // pass 2: the walk (attribution._attribute_owners, line for line)
    let mut w = Walk { accs: Vec::new(), number: HashMap::default(), touched: Vec::new(), touched_set: HashSet::default() };
    let mut stacks: HashMap<i64, Vec<(String, Option<f64>)>> = HashMap::default();
    let mut spans: Vec<Span> = Vec::new();
    // per call its owner's number, -1 for none, SKIP for a marker (counted nowhere)
    const SKIP: i32 = i32::MIN;
    let mut owners: Vec<i32> = vec![SKIP; n];
    let mut run: HashMap<i64, i64> = HashMap::default();
    let mut top: HashMap<i64, usize> = HashMap::default();
    let mut pending: HashMap<i64, (u64, Vec<usize>)> = HashMap::default();
    let mut seq: u64 = 0;
    let mut current: HashMap<i64, (String, HashSet<String>)> = HashMap::default();
    let mut started: HashSet<i64> = HashSet::default();
    let mut imported: HashMap<i64, HashSet<String>> = HashMap::default();
    let mut outside: HashMap<i64, usize> = HashMap::default();

    pub(crate) fn flush(pid: i64, run: &mut HashMap<i64, i64>, stacks: &HashMap<i64, Vec<(String, Option<f64>)>>, w: &mut Walk) {
        let k = run.remove(&pid).unwrap_or(0);
        if k == 0 {
            return;
        }
        if let Some(stack) = stacks.get(&pid) {
            if stack.len() > 1 {
                let inner = &stack[stack.len() - 1].0;
                let mut done: HashSet<&str> = HashSet::default();
                for (n, _) in &stack[..stack.len() - 1] {
                    if n != inner && done.insert(n.as_str()) {
                        let o = w.owner(pid, n);
                        w.accs[o].cumulative += k;
                    }
                }
            }
        }
    }

    for pos in 0..n {
        let c = at(pos);
        let (kind, _) = k.of(py, c.name_obj())?; // (a call's kind is looked up again: not kept, 4 bytes a call)
        let pid = c.pid()?;
        let mode = modes.get(&pid).copied().unwrap_or(0);
        let path = if kind.marker || mode == 2 { c.path()? } else { None };
        if mode == 0 {
            if kind.marker && is_marker_path(path) {
                continue; // a marker of a process we do not attribute: still not counted
            }
            let o = *outside.entry(pid).or_insert_with(|| w.owner(pid, OUTSIDE));
            owners[pos] = o as i32;
            continue;
        }
        if mode == 1 {
            // attribution.marker_of
            let mut marker: Option<(u8, String)> = None;
            if kind.marker {
                if let Some(p) = path {
                    if let Some(rest) = p.strip_prefix(prefix) {
                        let (kd, name) = match rest.find('/') {
                            Some(i) => (&rest[..i], &rest[i + 1..]),
                            None => (rest, ""),
                        };
                        if (kd == "b" || kd == "e" || kd == "f") && !name.is_empty() {
                            let cut = c.path_cut()?;
                            marker = Some((kd.as_bytes()[0], if cut { format!("{}...", name) } else { name.to_string() }));
                        }
                    }
                }
            }
            if let Some((kd, name)) = marker {
                flush(pid, &mut run, &stacks, &mut w);
                top.remove(&pid);
                w.touch(pid);
                let t = c.time()?;
                let stack = stacks.entry(pid).or_default();
                if kd == b'b' {
                    stack.push((name.clone(), t));
                    let o = w.owner(pid, &name);
                    w.accs[o].imports += 1;
                    continue;
                }
                if kd == b'f' {
                    let o = w.owner(pid, &name);
                    w.accs[o].failures += 1;
                }
                if let Some(i) = stack.iter().rposition(|(n, _)| *n == name) {
                    let dur = c.dur()?.unwrap_or(0.0);
                    let end = t.map(|t| t + dur);
                    while stack.len() > i {
                        let (n, t0) = stack.pop().unwrap();
                        spans.push((n, pid, t0, end, stack.len()));
                    }
                }
                continue;
            }
            let o = match top.get(&pid) {
                Some(&o) => o,
                None => {
                    let inner = stacks.get(&pid).and_then(|s| s.last()).map(|x| x.0.clone());
                    let o = w.owner(pid, inner.as_deref().unwrap_or(OUTSIDE));
                    top.insert(pid, o);
                    o
                }
            };
            owners[pos] = o as i32;
            *run.entry(pid).or_insert(0) += 1;
            continue;
        }
        // lookups
        if kind.marker && is_marker_path(path) {
            continue;
        }
        let i = pos;
        let proc = proc_of(pid);
        let name_s: &str = if kind.listing || kind.module_open { str_of(c.name_obj())? } else { "" };
        if !started.contains(&proc) {
            let line: i64 = c.line()?;
            if kind.listing && line > *exec_line.get(&proc).unwrap_or(&0) && roots.is_listing(c, name_s)? {
                started.insert(proc); // the first sys.path listing: imports begin
            } else {
                let o = *outside.entry(pid).or_insert_with(|| w.owner(pid, OUTSIDE));
                owners[pos] = o as i32;
                continue;
            }
        }
        owners[pos] = -1;
        let f = if kind.module_open { module_file(c, name_s)? } else { None };
        let mut name: Option<String> = match f {
            Some(f) => roots.module_name(py, f)?,
            None => None,
        };
        let f = f.unwrap_or("");
        if name.is_some() && is_main_script(proc, f) {
            name = Some("__main__".to_string());
        }
        if let Some(n) = &name {
            let cur_name = current.get(&pid).map(|x| x.0.as_str());
            if f.ends_with(".py") && imported.get(&proc).is_some_and(|s| s.contains(n)) && cur_name != Some(n.as_str()) {
                name = None; // the source of a module already loaded: linecache reading it for a traceback
            }
        }
        let same = match (&name, current.get(&pid)) {
            (Some(n), Some(cur)) => *n == cur.0,
            _ => false,
        };
        if same {
            let n = name.unwrap();
            current.get_mut(&pid).unwrap().1.insert(f.to_string());
            owners[i] = w.owner(pid, &n) as i32;
        } else if let Some(n) = name {
            imported.entry(proc).or_default().insert(n.clone());
            let o = w.owner(pid, &n);
            w.accs[o].imports += 1;
            let lookups = pending.remove(&pid).map(|x| x.1).unwrap_or_default();
            for &p in &lookups {
                owners[p] = o as i32;
            }
            owners[i] = o as i32;
            let mut files = HashSet::default();
            files.insert(f.to_string());
            current.insert(pid, (n.clone(), files));
            let t = c.time()?;
            let t0 = match lookups.first() {
                Some(&p) => at(p).time()?,
                None => t,
            };
            let dur = c.dur()?.unwrap_or(0.0);
            spans.push((n, pid, t0, t.map(|t| t + dur), 0));
        } else {
            let mine = match current.get(&pid) {
                Some(cur) => {
                    let fd = c.fd_path()?;
                    fd.is_some_and(|x| cur.1.contains(x)) || path.is_some_and(|x| cur.1.contains(x))
                }
                None => false,
            };
            if mine {
                let n = current.get(&pid).unwrap().0.clone();
                owners[i] = w.owner(pid, &n) as i32;
            } else {
                let e = pending.entry(pid).or_insert_with(|| {
                    seq += 1;
                    (seq, Vec::new())
                });
                e.1.push(i);
            }
        }
    }
    let mut left: Vec<(u64, i64, Vec<usize>)> = pending.into_iter().map(|(pid, (s, v))| (s, pid, v)).collect();
    left.sort_by_key(|x| x.0);
    for (_, pid, idxs) in left {
        if !idxs.is_empty() {
            let o = w.owner(pid, OUTSIDE);
            for p in idxs {
                owners[p] = o as i32;
            }
        }
    }
    let runs: Vec<i64> = run.keys().copied().collect();
    for pid in runs {
        flush(pid, &mut run, &stacks, &mut w);
    }
    for (pid, stack) in stacks.iter_mut() {
        while let Some((n, t0)) = stack.pop() {
            spans.push((n, *pid, t0, None, stack.len()));
        }
    }

    // pass 3: the tallies of the calls counted, and each owner's sums
    let mut tally = Tally::new(k.nfam);
    for (pos, &o) in owners.iter().enumerate() {
        if o == SKIP {
            continue;
        }
        let c = at(pos);
        let (kind, slot) = k.of(py, c.name_obj())?;
        tally.add(kind, slot, pos, c, c.pid()?, o as i64)?;
    }
    let own = std::mem::take(&mut tally.own);
    let mut t_items = tally.finish(py, &k)?;
    t_items.push(PyList::empty(py).into_py(py));
    let accs = PyList::empty(py);
    for (o, a) in w.accs.iter().enumerate() {
        let (n, failed, opened, nbytes, seconds) = own.get(o).copied().unwrap_or((0, 0, 0, 0, 0.0));
        let row: [PyObject; 10] = [
            a.pid.into_py(py),
            a.name.as_str().into_py(py),
            n.into_py(py),
            failed.into_py(py),
            opened.into_py(py),
            nbytes.into_py(py),
            seconds.into_py(py),
            a.imports.into_py(py),
            (a.cumulative + n).into_py(py),
            a.failures.into_py(py),
        ];
        accs.append(PyTuple::new(py, row))?;
    }
    let times: PyObject = match (tmin, tmax) {
        (Some(a), Some(b)) => (a, b).into_py(py),
        _ => py.None(),
    };
    let out: [PyObject; 7] = [
        pids.into_py(py),
        mode_list.into_py(py),
        w.touched.into_py(py),
        accs.into_py(py),
        spans.into_py(py),
        PyTuple::new(py, t_items).into_py(py),
        times,
    ];
    Ok(PyTuple::new(py, out).into_py(py))
}

/// select_calls(calls, names) → (first, picked): [(pid, time of its first call)] in first-seen
/// order, and the calls whose name is in `names` (in their order): what ProcessLayout reads.
#[pyfunction]
pub(crate) fn select_calls(py: Python, calls: &PyAny, names: &PyAny) -> PyResult<PyObject> {
    let wanted = names_of(Some(names))?;
    let mut by_ptr: HashMap<usize, bool> = HashMap::default();
    let mut seen: HashSet<i64> = HashSet::default();
    let first = PyList::empty(py);
    let picked = PyList::empty(py);
    for item in calls.iter()? {
        let item = item?;
        let c: &PyTuple = item.downcast()?;
        let name_o = c.get_item(2)?;
        let ptr = name_o.as_ptr() as usize;
        let want = match by_ptr.get(&ptr) {
            Some(&w) => w,
            None => {
                let w = wanted.contains(str_of(name_o)?);
                by_ptr.insert(ptr, w);
                w
            }
        };
        let pid = int_of(c.get_item(0)?)?;
        if seen.insert(pid) {
            first.append((pid, c.get_item(1)?))?;
        }
        if want {
            picked.append(c)?;
        }
    }
    Ok((first, picked).into_py(py))
}
