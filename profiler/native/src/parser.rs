//! The strace line parser, parse_lines:
//!
//! The fast path of profiler/parse/strace.py, line for line the general path's decisions: a
//! completed call in any form strace writes (a pid, `[pid N]` or none; a -t/-tt/-ttt time or
//! none; with or without -T durations and -y paths) becomes the fields of a Syscall, the usual
//! unfinished/resumed halves are joined and process events made; any other line is returned as
//! its text for the Python general path (noise, the cut last line, escaped paths, odd shapes,
//! anything not plain ASCII where Python's `\d` or `\s` could read it otherwise).

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};
use pyo3::AsPyPointer;
use regex::Regex;

use crate::glue::*;

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

pub(crate) fn join(base: &str, path: &str) -> String {
    if base.ends_with('/') {
        format!("{}{}", base, path)
    } else {
        format!("{}/{}", base, path)
    }
}

pub(crate) fn digits(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    i
}

/// `(?:AT_FDCWD|-?\d+)` at i: its end, or None.
pub(crate) fn fd_token(b: &[u8], i: usize) -> Option<usize> {
    if b[i..].starts_with(b"AT_FDCWD") {
        return Some(i + 8);
    }
    let s = if i < b.len() && b[i] == b'-' { i + 1 } else { i };
    let e = digits(b, s);
    if e == s {
        None
    } else {
        Some(e)
    }
}

/// `<([^<>\\]*(?:\\.[^<>\\]*)*)>` at i: (inside start, inside end, end), or None.
pub(crate) fn deco(b: &[u8], i: usize) -> Option<(usize, usize, usize)> {
    if i >= b.len() || b[i] != b'<' {
        return None;
    }
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => {
                if j + 1 >= b.len() {
                    return None;
                }
                j += 2;
            }
            b'<' => return None,
            b'>' => return Some((i + 1, j, j + 1)),
            _ => j += 1,
        }
    }
    None
}

/// The closing quote of the string whose opening quote is at i (a backslash escapes the next
/// byte); None when the string is not closed.
fn closing_quote(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        match *b.get(j)? {
            b'\\' => {
                if j + 1 >= b.len() {
                    return None;
                }
                j += 2;
            }
            b'"' => return Some(j),
            _ => j += 1,
        }
    }
}

/// `"([^"\\]*(?:\\.[^"\\]*)*)"(\.\.\.)?(?:, |$)` at i: (inside start, inside end, cut).
pub(crate) fn quoted(b: &[u8], i: usize) -> Option<(usize, usize, bool)> {
    if i >= b.len() || b[i] != b'"' {
        return None;
    }
    let j = closing_quote(b, i)?;
    let inside = (i + 1, j);
    let k = j + 1;
    if b[k..].starts_with(b"...") {
        // `(\.\.\.)?` is greedy but gives way when what follows does not match
        let after = k + 3;
        if after == b.len() || b[after..].starts_with(b", ") {
            return Some((inside.0, inside.1, true));
        }
    }
    if k == b.len() || b[k..].starts_with(b", ") {
        return Some((inside.0, inside.1, false));
    }
    None
}

/// A quoted string inside an array at i (no escapes: the caller refused backslashes):
/// (inside start, inside end, end).
pub(crate) fn quoted_in_array(b: &[u8], i: usize) -> Option<(usize, usize, usize)> {
    let mut j = i + 1;
    while j < b.len() {
        if b[j] == b'"' {
            return Some((i + 1, j, j + 1));
        }
        j += 1;
    }
    None
}

/// The path of a call whose path comes first (kind 0) or after a dirfd (kind 1): (dirfd's -y
/// path, path inside the quotes, cut), or None when the arguments have another shape.
pub(crate) fn path_arg(args: &str, kind: i64) -> Option<(Option<&str>, &str, bool)> {
    let b = args.as_bytes();
    if kind == 0 {
        let (s, e, cut) = quoted(b, 0)?;
        return Some((None, &args[s..e], cut));
    }
    let f = fd_token(b, 0)?;
    let (base, i) = match deco(b, f) {
        Some((s, e, end)) => (Some(&args[s..e]), end),
        None => (None, f),
    };
    if !b[i..].starts_with(b", ") {
        return None;
    }
    let (s, e, cut) = quoted(b, i + 2)?;
    Some((base, &args[s..e], cut))
}

/// `(?:[^,"<>(\[{]*, )*?(?:AT_FDCWD|-?\d+)<deco>(?:, |$)`: the first decorated fd after plain
/// arguments only.
pub(crate) fn first_fd(args: &str) -> Option<&str> {
    let b = args.as_bytes();
    let mut i = 0;
    loop {
        // try the fd here (the lazy repetition tries the shortest prefix first)
        if let Some(f) = fd_token(b, i) {
            if let Some((s, e, end)) = deco(b, f) {
                if end == b.len() || b[end..].starts_with(b", ") {
                    return Some(&args[s..e]);
                }
            }
        }
        // else one more plain argument: [^,"<>(\[{]*,
        let mut j = i;
        while j < b.len() && !matches!(b[j], b',' | b'"' | b'<' | b'>' | b'(' | b'[' | b'{') {
            j += 1;
        }
        if j + 1 < b.len() && b[j] == b',' && b[j + 1] == b' ' {
            i = j + 2;
        } else {
            return None;
        }
    }
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

/// A character Python's `\s` takes among the ASCII ones.
#[inline]
pub(crate) fn py_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | 0x1c..=0x1f)
}

/// The byte at i, 0 past the end.
#[inline]
pub(crate) fn at(b: &[u8], i: usize) -> u8 {
    if i < b.len() {
        b[i]
    } else {
        0
    }
}

/// `\s*` at i, ASCII: its end, or None when a non-ASCII character follows (Python's `\s` and
/// `\d` take some of those: the general path decides).
#[inline]
pub(crate) fn skip_ws(b: &[u8], mut i: usize) -> Option<usize> {
    while i < b.len() && py_ws(b[i]) {
        i += 1;
    }
    if at(b, i) >= 0x80 {
        None
    } else {
        Some(i)
    }
}

/// `\d+` at i, ASCII: its end (i when none), or None when a non-ASCII character follows.
#[inline]
pub(crate) fn digits_sure(b: &[u8], i: usize) -> Option<usize> {
    let e = digits(b, i);
    if at(b, e) >= 0x80 {
        None
    } else {
        Some(e)
    }
}

/// What the general path's head pattern reads at the start of a (\r-trimmed) line:
/// `(?:\[pid\s+(\d+)\]\s+|(\d+)\s+)?` then `(?:(\d+):(\d\d):(\d\d(?:\.\d+)?)\s+|(\d+\.\d+)\s+)?`
/// → (pid, 0 without one; seconds, None without a time; where the body begins). None when
/// unsure: a non-ASCII character where the pattern could take it as a digit or white space, or
/// a number past 64 bits.
pub(crate) fn head(line: &str) -> Option<(i64, Option<f64>, usize)> {
    let b = line.as_bytes();
    if at(b, 0) >= 0x80 {
        return None;
    }
    let mut pid: i64 = 0;
    let mut i = 0;
    if b.starts_with(b"[pid") {
        let j = skip_ws(b, 4)?;
        if j > 4 {
            let e = digits_sure(b, j)?;
            if e > j && at(b, e) == b']' {
                let k = skip_ws(b, e + 1)?;
                if k > e + 1 {
                    pid = line[j..e].parse().ok()?;
                    i = k;
                }
            }
        }
    } else if at(b, 0).is_ascii_digit() {
        let e = digits_sure(b, 0)?;
        if py_ws(at(b, e)) {
            pid = line[..e].parse().ok()?;
            i = skip_ws(b, e)?;
        }
    }
    let mut t = None;
    if at(b, i).is_ascii_digit() {
        let d = digits_sure(b, i)?;
        if at(b, d) == b':' {
            // (\d+):(\d\d):(\d\d(?:\.\d+)?)\s+
            for k in [d + 1, d + 2, d + 4, d + 5] {
                if at(b, k) >= 0x80 {
                    return None;
                }
            }
            if at(b, d + 1).is_ascii_digit()
                && at(b, d + 2).is_ascii_digit()
                && at(b, d + 3) == b':'
                && at(b, d + 4).is_ascii_digit()
                && at(b, d + 5).is_ascii_digit()
            {
                let mut s1 = d + 6;
                if at(b, s1) == b'.' {
                    let f = digits_sure(b, s1 + 1)?;
                    if f > s1 + 1 && py_ws(at(b, f)) {
                        s1 = f;
                    }
                }
                if py_ws(at(b, s1)) {
                    let h: i64 = line[i..d].parse().ok()?;
                    let m: i64 = line[d + 1..d + 3].parse().ok()?;
                    let s: f64 = line[d + 4..s1].parse().ok()?;
                    t = Some((h * 3600 + m * 60) as f64 + s);
                    i = skip_ws(b, s1)?;
                } else if at(b, s1) >= 0x80 {
                    return None;
                }
            }
        } else if at(b, d) == b'.' {
            // (\d+\.\d+)\s+
            let f = digits_sure(b, d + 1)?;
            if f > d + 1 && py_ws(at(b, f)) {
                t = Some(line[i..f].parse().ok()?);
                i = skip_ws(b, f)?;
            }
        }
    }
    Some((pid, t, i))
}

/// The end of the argument list that begins at a0 (just after `name(`), as strace.py's
/// split_args finds it: the bracket closing the call, with quoted strings and `-y` decorations
/// (a `<...>` after a digit or a D) skipped whole. None when a string or decoration is not
/// closed (the general path decides).
pub(crate) fn close_paren(b: &[u8], a0: usize) -> Option<usize> {
    let mut depth = 1usize;
    let mut i = a0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i = closing_quote(b, i)? + 1;
            }
            b'<' if b[i - 1].is_ascii_digit() || b[i - 1] == b'D' => {
                let (_, _, end) = deco(b, i)?;
                i = end;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    None
}

/// `-?\d+` or `\?` at r0 (the return value; a hex value begins with a digit, so the general
/// path's `-?\d+` takes its 0): Some(Some(end)), Some(None) when there is none, None when a
/// non-ASCII character follows the digits (Python's `\d` may take it: the general path decides).
pub(crate) fn ret_end(b: &[u8], r0: usize, lim: usize) -> Option<Option<usize>> {
    let c = at(b, r0);
    if r0 < lim && (c == b'-' || c.is_ascii_digit()) {
        let s = if c == b'-' { r0 + 1 } else { r0 };
        let e = digits(&b[..lim], s);
        if at(b, e) >= 0x80 {
            return None;
        }
        Some(if e == s { None } else { Some(e) })
    } else if r0 < lim && c == b'?' {
        Some(Some(r0 + 1))
    } else {
        Some(None)
    }
}

/// The call in a line's body, as the general path reads it (`_parse_call`): with a -T
/// duration at the end, what its fast pattern takes (`NAME\((.*)\) *= RET(<PATH>)?(.*?)
/// <DUR>`); without one, the argument list split_args closes, then `\s*=\s+RET(<PATH>)?EXTRA`
/// with no `<` or `>` in EXTRA. None for any other shape (the general path decides).
pub(crate) fn call_of(body: &str) -> Option<Line<'_>> {
    let b = body.as_bytes();
    // ([A-Za-z_][A-Za-z0-9_]*)\(
    if b.is_empty() || !(b[0].is_ascii_alphabetic() || b[0] == b'_') {
        return None;
    }
    let mut n1 = 1;
    while n1 < b.len() && (b[n1].is_ascii_alphanumeric() || b[n1] == b'_') {
        n1 += 1;
    }
    if at(b, n1) != b'(' {
        return None;
    }
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

#[pymethods]
impl Memo {
    #[new]
    fn new() -> Self {
        Memo::default()
    }
}

/// The call name at the start of a body: `name(`.
pub(crate) fn call_name(body: &str) -> Option<&str> {
    let b = body.as_bytes();
    if b.is_empty() || !(b[0].is_ascii_alphabetic() || b[0] == b'_') {
        return None;
    }
    let mut i = 1;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    if i < b.len() && b[i] == b'(' {
        Some(&body[..i])
    } else {
        None
    }
}

/// The rest of a `<... NAME resumed>` body after the marker and one optional white space
/// character (the general path's `<\.\.\. NAME resumed>\s?`), when NAME is `name`.
pub(crate) fn resumed_rest<'a>(body: &'a str, name: &str) -> Option<&'a str> {
    let rest = body.strip_prefix("<... ")?.strip_prefix(name)?.strip_prefix(" resumed>")?;
    match rest.as_bytes().first() {
        Some(c) if c.is_ascii_whitespace() => Some(&rest[1..]),
        Some(c) if *c >= 0x80 => None, // a non-ASCII space would be taken too: the general path decides
        _ => Some(rest),
    }
}

/// `(\w+)` at the start of `s`, when its word is ASCII (a non-ASCII one is the general path's).
pub(crate) fn word(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    if i == 0 || (i < b.len() && b[i] >= 0x80) {
        return None;
    }
    Some(&s[..i])
}

/// A process event's body, as the general path reads it: `+++ exited with (-?\d+) +++` →
/// ("exit", code), `+++ killed by (\w+)` → ("killed", signal), `--- (?:stopped by )?(\w+)` →
/// ("signal", name); None for anything else.
pub(crate) fn event_of(body: &str) -> Option<(&'static str, &str)> {
    if let Some(rest) = body.strip_prefix("+++ exited with ") {
        let b = rest.as_bytes();
        let s = if !b.is_empty() && b[0] == b'-' { 1 } else { 0 };
        let e = digits(b, s);
        if e > s && rest[e..].starts_with(" +++") {
            return Some(("exit", &rest[..e]));
        }
        return None;
    }
    if let Some(rest) = body.strip_prefix("+++ killed by ") {
        return word(rest).map(|w| ("killed", w));
    }
    if let Some(rest) = body.strip_prefix("--- ") {
        if let Some(after) = rest.strip_prefix("stopped by ") {
            if let Some(w) = word(after) {
                return Some(("signal", w));
            }
        }
        return word(rest).map(|w| ("signal", w));
    }
    None
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
