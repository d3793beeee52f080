//! One call's body → the fields of a Syscall (a tuple), as the general path of
//! profiler/parse/strace_lines.py reads it (`_parse_call`, `_fast_call`; strace_args.py `decoded_paths`): the pieces of
//! the body (call_of), its decoded paths and argv, and the Python objects of its fields, one
//! object per repeated name, path, pid and number (Numbers).

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use regex::Regex;

use crate::glue::*;
use crate::scan::*;

pub(crate) struct Res {
    pub(crate) errno: Regex,
    // None: every row keeps its argument text; else {name: 1 (kept), 2 (kept when the call has
    // no -y fd path)}, the others' arguments are left out (an empty tuple)
    pub(crate) keep: Option<HashMap<String, u8>>,
    // the arguments of a row that has none or leaves them out (one object, not one per row)
    pub(crate) empty: Option<PyObject>,
}

pub(crate) fn res() -> Res {
    Res { errno: Regex::new(r"^\s+(E[A-Z0-9_]+)\b").unwrap(), keep: None, empty: None }
}

/// The pieces of a call's body (what follows the head) the general path reads: name, args
/// (the text between the parentheses), ret, ret path, extra (after them), duration.
pub(crate) struct Line<'a> {
    pub(crate) name: &'a str,
    pub(crate) args: &'a str,
    pub(crate) ret: &'a str,
    pub(crate) rpath: Option<&'a str>,
    pub(crate) extra: &'a str,
    pub(crate) dur: Option<&'a str>,
}

/// The call in a line's body, as the general path reads it (`_parse_call`): with a -T
/// duration at the end, what its fast pattern takes (`NAME\((.*)\) *= RET(<PATH>)?(.*?)
/// <DUR>`); without one, the argument list split_args closes, then `\s*=\s+RET(<PATH>)?EXTRA`
/// with no `<` or `>` in EXTRA. None for any other shape (the general path decides).
pub(crate) fn call_of(body: &str) -> Option<Line<'_>> {
    let b = body.as_bytes();
    // ([A-Za-z_][A-Za-z0-9_]*)\(
    let n1 = call_name(body)?.len();
    let a0 = n1 + 1;
    let end = b.len();
    // the end: " <(\d+\.\d+)>"
    let mut dur = None;
    if end > 0 && b[end - 1] == b'>' {
        let close = end - 1;
        let mut k = close;
        while k > 0 && b[k - 1].is_ascii_digit() {
            k -= 1;
        }
        if k != close && k > 0 && b[k - 1] == b'.' {
            let dot = k - 1;
            let mut k2 = dot;
            while k2 > 0 && b[k2 - 1].is_ascii_digit() {
                k2 -= 1;
            }
            if k2 != dot && k2 >= 2 && b[k2 - 1] == b'<' && b[k2 - 2] == b' ' {
                dur = Some((k2, close));
            }
        }
    }
    let (k2, close) = match dur {
        Some(d) => d,
        None => return plain_call(body, n1),
    };
    let dur = Some(&body[k2..close]);
    let suffix = k2 - 2; // where " <dur>" begins: extra ends here
                         // greedy (.*)\) *= : the last ')' after which ` *= ` and a return value follow
    let mut p = suffix;
    while p > a0 {
        p -= 1;
        if b[p] != b')' {
            continue;
        }
        let mut q = p + 1;
        while q < suffix && b[q] == b' ' {
            q += 1;
        }
        if q + 2 > suffix || b[q] != b'=' || b[q + 1] != b' ' {
            continue;
        }
        let r0 = q + 2;
        // (-?\d+|0x[0-9a-fA-F]+|\?) — in this order, as the alternation tries them
        match ret_end(b, r0, suffix)? {
            Some(r1) => return Some(with_result(body, n1, p, r0, r1, suffix, dur)),
            None => continue,
        }
    }
    None
}

/// The record's pieces once the return value is found: `(?:<PATH>)?` after it, the rest up to
/// `suffix` the extra text.
pub(crate) fn with_result<'a>(body: &'a str, n1: usize, p: usize, r0: usize, r1: usize, suffix: usize, dur: Option<&'a str>) -> Line<'a> {
    let b = body.as_bytes();
    let mut rpath = None;
    let mut x0 = r1;
    if let Some((s, e, end)) = deco(&b[..suffix], r1) {
        rpath = Some(&body[s..e]);
        x0 = end;
    }
    Line { name: &body[..n1], args: &body[n1 + 1..p], ret: &body[r0..r1], rpath, extra: &body[x0..suffix], dur }
}

/// A call without a duration (strace without -T, or `= ?`): the general path's split_args end
/// of the arguments, then `\s*=\s+`, the return value, its path, and an extra text holding no
/// `<` or `>` (which the general path could read as a duration).
pub(crate) fn plain_call(body: &str, n1: usize) -> Option<Line<'_>> {
    let b = body.as_bytes();
    let p = close_paren(b, n1 + 1)?;
    let q = skip_ws(b, p + 1)?;
    if at(b, q) != b'=' || !py_ws(at(b, q + 1)) {
        return None;
    }
    let r0 = skip_ws(b, q + 1)?;
    let r1 = ret_end(b, r0, b.len())??;
    let line = with_result(body, n1, p, r0, r1, b.len(), None);
    if line.extra.bytes().any(|c| c == b'<' || c == b'>') {
        return None;
    }
    Some(line)
}

/// One call's body (what follows the line's head) → Some(tuple of Syscall fields) or None (the
/// general path takes it).
#[allow(clippy::too_many_arguments)]
pub(crate) fn fast<'p>(
    py: Python<'p>,
    r: &Res,
    kinds: &HashMap<String, i64>,
    names: &mut HashMap<String, PyObject>,
    pid_objs: &mut HashMap<i64, PyObject>, // one int per pid, shared by its rows
    numbers: &mut Numbers,                 // one float per duration, one int per small return value
    pid: i64,
    t: Option<f64>,
    body: &str,
    lineno: usize,
) -> Option<PyObject> {
    let c = call_of(body)?;
    let name = c.name;
    let args = c.args;
    let mut path: Option<String> = None;
    let mut fdp: Option<&str> = None;
    let mut cut = false;
    let mut argv: Option<Vec<String>> = None;
    match kinds.get(name) {
        None => {
            if args.contains('<') {
                fdp = Some(first_fd(args)?);
            }
        }
        Some(&k) if k == 0 || k == 1 => {
            let (base, raw, cut_s) = path_arg(args, k)?;
            if raw.is_empty() {
                fdp = base;
            } else {
                if raw.contains('\\') {
                    return None; // escapes: decoded by the Python path
                }
                path = Some(match base {
                    Some(b) if !b.is_empty() && !raw.starts_with('/') => join(b, raw),
                    _ => raw.to_string(),
                });
                cut = cut_s;
            }
        }
        Some(_) => {
            // execve("path", ["argv0", ...], envp): the path and the argv array (strings with
            // escapes, execveat and other shapes: the Python path decodes them)
            if name != "execve" || args.contains('\\') {
                return None;
            }
            let b = args.as_bytes();
            let (s, e, cut_s) = quoted(b, 0)?;
            let mut i = e + 1; // after the closing quote
            if cut_s {
                i += 3;
            }
            if !b[i..].starts_with(b", [") {
                return None;
            }
            i += 3;
            let mut items: Vec<String> = Vec::new();
            loop {
                if i >= b.len() {
                    return None;
                }
                match b[i] {
                    b']' => break,
                    b'"' => {
                        let (qs, qe, _) = quoted_in_array(b, i)?;
                        let mut item = args[qs..qe].to_string();
                        i = qe + 1;
                        if b[i..].starts_with(b"...") {
                            item.push_str("...");
                            i += 3;
                        }
                        items.push(item);
                    }
                    b'[' | b'{' | b'(' | b'<' => return None,
                    _ => i += 1,
                }
            }
            if s < e && !args[s..e].is_empty() {
                path = Some(args[s..e].to_string());
                cut = cut_s;
            }
            argv = Some(items);
        }
    }
    let ret_s = c.ret;
    let ret: PyObject = if ret_s == "?" {
        py.None()
    } else if let Some(hex) = ret_s.strip_prefix("0x") {
        i64::from_str_radix(hex, 16).ok()?.into_py(py)
    } else {
        numbers.int(py, ret_s.parse::<i64>().ok()?)
    };
    if c.extra.bytes().any(|x| (0x1c..=0x1f).contains(&x)) {
        return None; // white space to Python's `\s`, not to the regex crate's: the general path reads the errno
    }
    let errno: PyObject = if c.extra.is_empty() {
        py.None()
    } else {
        match r.errno.captures(c.extra) {
            Some(m) => {
                let e = m.get(1)?.as_str();
                match names.get(e) {
                    Some(o) => o.clone_ref(py),
                    None => {
                        let o: PyObject = pystr(py, e);
                        names.insert(e.to_string(), o.clone_ref(py));
                        o
                    }
                }
            }
            None => py.None(),
        }
    };
    let rpath: PyObject = match c.rpath {
        Some(m) => interned(py, names, m),
        None => py.None(),
    };
    let dur: Option<f64> = match c.dur {
        Some(d) => Some(d.parse().ok()?),
        None => None,
    };
    let kept = match &r.keep {
        None => true,
        Some(m) => match m.get(name) {
            Some(1) => true,
            Some(2) => fdp.is_none(),
            _ => false,
        },
    };
    let args_obj: PyObject = if args.is_empty() || !kept {
        match &r.empty {
            Some(e) => e.clone_ref(py),
            None => PyTuple::empty(py).into_py(py),
        }
    } else {
        pystr(py, args)
    };
    let name_obj = match names.get(name) {
        Some(o) => o.clone_ref(py),
        None => {
            let o: PyObject = pystr(py, name);
            names.insert(name.to_string(), o.clone_ref(py));
            o
        }
    };
    let pid_obj = pid_objs.entry(pid).or_insert_with(|| pid.into_py(py)).clone_ref(py);
    let items: [PyObject; 14] = [
        pid_obj,
        t.map_or_else(|| py.None(), |t| t.into_py(py)),
        name_obj,
        args_obj,
        ret,
        errno,
        rpath,
        dur.map_or_else(|| py.None(), |d| numbers.float(py, d)),
        lineno.into_py(py),
        false.into_py(py),
        path.map_or_else(|| py.None(), |p| interned(py, names, &p)),
        fdp.map_or_else(|| py.None(), |p| interned(py, names, p)),
        cut.into_py(py),
        argv.map_or_else(|| py.None(), |a| pytuple(py, a.iter().map(|x| pystr(py, x)).collect())),
    ];
    Some(pytuple(py, Vec::from(items)))
}

/// One Python object per value for the numbers a log repeats: the -T durations (a few thousand
/// distinct values in a log of a million calls) and the return values of byte counts and
/// descriptors (832, 4096...: CPython itself keeps only -5..256). A float or int object is 24-32
/// bytes of every record otherwise; the records of a big log are most of trace's memory.
#[derive(Default)]
pub(crate) struct Numbers {
    floats: HashMap<u64, PyObject>,
    ints: HashMap<i64, PyObject>,
}

impl Numbers {
    pub(crate) fn float(&mut self, py: Python, d: f64) -> PyObject {
        self.floats.entry(d.to_bits()).or_insert_with(|| d.into_py(py)).clone_ref(py)
    }

    pub(crate) fn int(&mut self, py: Python, i: i64) -> PyObject {
        if !(-4096..=1 << 20).contains(&i) {
            return i.into_py(py); // an address, an offset: seldom twice
        }
        self.ints.entry(i).or_insert_with(|| i.into_py(py)).clone_ref(py)
    }
}
