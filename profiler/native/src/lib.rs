//! The fast path of profiler/parse/strace.py, line for line the general path's decisions: a
//! completed call in any form strace writes (a pid, `[pid N]` or none; a -t/-tt/-ttt time or
//! none; with or without -T durations and -y paths) becomes the fields of a Syscall, the usual
//! unfinished/resumed halves are joined and process events made; any other line is returned as
//! its text for the Python general path (noise, the cut last line, escaped paths, odd shapes,
//! anything not plain ASCII where Python's `\d` or `\s` could read it otherwise).
use pyo3::prelude::*;
use pyo3::AsPyPointer;
use pyo3::ffi;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};
use regex::Regex;

/// A fast hash for the maps of one log (pids, paths, names: no untrusted peer to defend
/// against, and SipHash was a tenth of a summary's time).
#[derive(Default, Clone, Copy)]
struct Fx(u64);

impl Fx {
    #[inline]
    fn add(&mut self, w: u64) {
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

type HashMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<Fx>>;
type HashSet<K> = std::collections::HashSet<K, std::hash::BuildHasherDefault<Fx>>;


extern "C" {
    // in every CPython 3 (in the limited API from 3.10 only, so pyo3 reads a str through a copy
    // into a bytes object for abi3-py37; this reads the str's own cached UTF-8)
    fn PyUnicode_AsUTF8AndSize(unicode: *mut ffi::PyObject, size: *mut ffi::Py_ssize_t) -> *const std::os::raw::c_char;
}

/// A str's text, without a copy (valid while the str lives).
fn utf8(s: &PyString) -> PyResult<&str> {
    let mut size: ffi::Py_ssize_t = 0;
    let data = unsafe { PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size) };
    if data.is_null() {
        return Err(PyErr::fetch(s.py()));
    }
    // CPython's UTF-8 of a str is valid UTF-8
    Ok(unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(data as *const u8, size as usize)) })
}

struct Res {
    errno: Regex,
}

fn res() -> Res {
    Res {
        errno: Regex::new(r"^\s+(E[A-Z0-9_]+)\b").unwrap(),
    }
}

fn join(base: &str, path: &str) -> String {
    if base.ends_with('/') {
        format!("{}{}", base, path)
    } else {
        format!("{}/{}", base, path)
    }
}

fn digits(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    i
}

/// `(?:AT_FDCWD|-?\d+)` at i: its end, or None.
fn fd_token(b: &[u8], i: usize) -> Option<usize> {
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
fn deco(b: &[u8], i: usize) -> Option<(usize, usize, usize)> {
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

/// `"([^"\\]*(?:\\.[^"\\]*)*)"(\.\.\.)?(?:, |$)` at i: (inside start, inside end, cut).
fn quoted(b: &[u8], i: usize) -> Option<(usize, usize, bool)> {
    if i >= b.len() || b[i] != b'"' {
        return None;
    }
    let mut j = i + 1;
    loop {
        if j >= b.len() {
            return None;
        }
        match b[j] {
            b'\\' => {
                if j + 1 >= b.len() {
                    return None;
                }
                j += 2;
            }
            b'"' => break,
            _ => j += 1,
        }
    }
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
fn quoted_in_array(b: &[u8], i: usize) -> Option<(usize, usize, usize)> {
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
fn path_arg<'a>(args: &'a str, kind: i64) -> Option<(Option<&'a str>, &'a str, bool)> {
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
fn first_fd(args: &str) -> Option<&str> {
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
struct Line<'a> {
    name: &'a str,
    args: &'a str,
    ret: &'a str,
    rpath: Option<&'a str>,
    extra: &'a str,
    dur: Option<&'a str>,
}

/// A character Python's `\s` takes among the ASCII ones.
#[inline]
fn py_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | 0x1c..=0x1f)
}

/// The byte at i, 0 past the end.
#[inline]
fn at(b: &[u8], i: usize) -> u8 {
    if i < b.len() {
        b[i]
    } else {
        0
    }
}

/// `\s*` at i, ASCII: its end, or None when a non-ASCII character follows (Python's `\s` and
/// `\d` take some of those: the general path decides).
#[inline]
fn skip_ws(b: &[u8], mut i: usize) -> Option<usize> {
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
fn digits_sure(b: &[u8], i: usize) -> Option<usize> {
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
fn head(line: &str) -> Option<(i64, Option<f64>, usize)> {
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
            if at(b, d + 1).is_ascii_digit() && at(b, d + 2).is_ascii_digit() && at(b, d + 3) == b':' && at(b, d + 4).is_ascii_digit() && at(b, d + 5).is_ascii_digit() {
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
fn close_paren(b: &[u8], a0: usize) -> Option<usize> {
    let mut depth = 1usize;
    let mut i = a0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let mut j = i + 1;
                loop {
                    match at(b, j) {
                        0 if j >= b.len() => return None,
                        b'\\' => {
                            if j + 1 >= b.len() {
                                return None;
                            }
                            j += 2;
                        }
                        b'"' => break,
                        _ => j += 1,
                    }
                }
                i = j + 1;
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
fn ret_end(b: &[u8], r0: usize, lim: usize) -> Option<Option<usize>> {
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
fn call_of(body: &str) -> Option<Line<'_>> {
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
fn with_result<'a>(body: &'a str, n1: usize, p: usize, r0: usize, r1: usize, suffix: usize, dur: Option<&'a str>) -> Line<'a> {
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
fn plain_call(body: &str, n1: usize) -> Option<Line<'_>> {
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
fn fast<'p>(
    py: Python<'p>,
    r: &Res,
    kinds: &HashMap<String, i64>,
    names: &mut HashMap<String, PyObject>,
    pid_objs: &mut HashMap<i64, PyObject>, // one int per pid, shared by its rows
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
        ret_s.parse::<i64>().ok()?.into_py(py)
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
    let args_obj: PyObject = if args.is_empty() { PyTuple::empty(py).into_py(py) } else { pystr(py, args) };
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
        dur.map_or_else(|| py.None(), |d| d.into_py(py)),
        lineno.into_py(py),
        false.into_py(py),
        path.map_or_else(|| py.None(), |p| interned(py, names, &p)),
        fdp.map_or_else(|| py.None(), |p| interned(py, names, p)),
        cut.into_py(py),
        argv.map_or_else(|| py.None(), |a| pytuple(py, a.iter().map(|x| pystr(py, x)).collect())),
    ];
    Some(pytuple(py, Vec::from(items)))
}

/// One str per text (names, errnos, paths: the same paths come back in every process of a log,
/// and one object for all saves making and freeing each copy).
fn interned(py: Python, names: &mut HashMap<String, PyObject>, s: &str) -> PyObject {
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
fn pystr(py: Python, s: &str) -> PyObject {
    unsafe { PyObject::from_owned_ptr(py, ffi::PyUnicode_FromStringAndSize(s.as_ptr() as *const std::os::raw::c_char, s.len() as ffi::Py_ssize_t)) }
}

/// A new tuple of `items`, owned by the caller (see pystr).
fn pytuple(py: Python, items: Vec<PyObject>) -> PyObject {
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
unsafe fn untrack(t: &PyObject) {
    // (PyObject_GC_UnTrack is a no-op on an object already untracked)
    ffi::PyObject_GC_UnTrack(t.as_ptr() as *mut std::os::raw::c_void);
}

const UNFINISHED: &str = " <unfinished ...>";

/// The call name at the start of a body: `name(`.
fn call_name(body: &str) -> Option<&str> {
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
fn resumed_rest<'a>(body: &'a str, name: &str) -> Option<&'a str> {
    let rest = body.strip_prefix("<... ")?.strip_prefix(name)?.strip_prefix(" resumed>")?;
    match rest.as_bytes().first() {
        Some(c) if c.is_ascii_whitespace() => Some(&rest[1..]),
        Some(c) if *c >= 0x80 => None, // a non-ASCII space would be taken too: the general path decides
        _ => Some(rest),
    }
}

/// `(\w+)` at the start of `s`, when its word is ASCII (a non-ASCII one is the general path's).
fn word(s: &str) -> Option<&str> {
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
fn event_of(body: &str) -> Option<(&'static str, &str)> {
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

struct Pending<'a> {
    slot: usize,
    line: &'a str, // the unfinished line, without trailing \r and without " <unfinished ...>"
    body: usize,   // where its body begins in `line`
    name: &'a str,
    time: Option<f64>,
    lineno: usize,
}

/// parse_lines(text, kinds, record, pairs=False, event=None) → (rows, general, lines, jumps, n,
/// events): `rows` holds the records in the order of the lines that start them: the fields of a
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
#[pyfunction]
#[pyo3(text_signature = "(text, kinds, record, pairs=False, event=None)")]
fn parse_lines(py: Python, text: &PyString, kinds: &PyDict, record: Option<&PyType>, pairs: Option<bool>, event: Option<&PyType>) -> PyResult<PyObject> {
    let text = utf8(text)?;
    let r = res();
    let mut k: HashMap<String, i64> = HashMap::default();
    for (key, value) in kinds.iter() {
        k.insert(key.extract()?, value.extract()?);
    }
    let mut names: HashMap<String, PyObject> = HashMap::default();
    let mut pid_objs: HashMap<i64, PyObject> = HashMap::default();
    let mut out: Vec<Option<PyObject>> = Vec::new();
    let mut general: Vec<usize> = Vec::new();
    let mut glines: Vec<usize> = Vec::new();
    let mut jumps = false;
    let mut n: usize = 0; // the lines read
    let mut last: Option<f64> = None;
    let pairs = pairs.unwrap_or(false);
    let mut pairing = pairs;
    let mut pending: HashMap<i64, Pending> = HashMap::default();
    // pids whose unfinished call the general path may hold (it saw an unfinished line of theirs
    // and no line since that ends it): their next unfinished line is the general path's too
    let mut held: HashSet<i64> = HashSet::default();
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
    let as_text = |out: &mut Vec<Option<PyObject>>, general: &mut Vec<usize>, glines: &mut Vec<usize>, slot: Option<usize>, line: &str, lineno: usize| {
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
            let lineno = i + 1;
            n = lineno;
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
                                joined = fast(py, &r, &k, &mut names, &mut pid_objs, pid, p.time, &whole, p.lineno);
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
                    if let Some(row) = fast(py, &r, &k, &mut names, &mut pid_objs, pid, t, body, lineno) {
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
    let mut order: Vec<(usize, usize)> = general.into_iter().zip(glines.into_iter()).collect();
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
    Ok((rows, gpos, glin, jumps, n, events).into_py(py))
}

#[pymodule]
fn _strace_native(_py: Python, m: &PyModule) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parse_lines, m)?)?;
    // what parse_lines takes and returns: profiler/parse/strace.py ignores a build of another
    // version (one made before the sources changed and `make setup` rebuilt it)
    m.add("PARSE_LINES_VERSION", 3)?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The summary of a trace in one native pass: the tallies (the fast path of
// profiler/analysis/syscalls.py `tally_calls`) and the attribution of each call to the import
// that made it (the fast path of profiler/analysis/attribution.py `_attribute_owners`). Their
// pure-Python twins give the same figures; tests compare both on real logs.

#[derive(Clone, Copy)]
struct Kind {
    family: i64,       // index in FAMILIES, -1 for none
    path_arg: bool,    // in PATH_ARG (a failed lookup when ENOENT/ENOTDIR)
    open: bool,        // in OPENS
    read: bool,        // in READS
    marker: bool,      // a call an import marker can be (attribution._MARKER_CALLS)
    module_open: bool, // a call that can open a module's file (attribution._MODULE_OPENS)
    listing: bool,     // a call that can list a sys.path entry (open, openat)
    layout: bool,      // a call ProcessLayout reads (forks, execs)
}

/// Keys in first-seen order.
struct Ordered<K: std::hash::Hash + Eq + Clone, V> {
    at: HashMap<K, usize>,
    items: Vec<(K, V)>,
}

impl<K: std::hash::Hash + Eq + Clone, V: Default> Ordered<K, V> {
    fn new() -> Self {
        Ordered { at: HashMap::default(), items: Vec::new() }
    }
    fn get(&mut self, k: &K) -> &mut V {
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
    fn get_str(&mut self, k: &str) -> &mut V {
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

fn opt_str(o: &PyAny) -> PyResult<Option<&str>> {
    if o.is_none() {
        Ok(None)
    } else {
        Ok(Some(str_of(o)?))
    }
}

/// A str's text (PyUnicode_AsUTF8AndSize checks the type itself: a TypeError for another).
fn str_of(o: &PyAny) -> PyResult<&str> {
    let mut size: ffi::Py_ssize_t = 0;
    let data = unsafe { PyUnicode_AsUTF8AndSize(o.as_ptr(), &mut size) };
    if data.is_null() {
        return Err(PyErr::fetch(o.py()));
    }
    Ok(unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(data as *const u8, size as usize)) })
}

/// An int's value (an OverflowError past 64 bits, as extract gives).
fn int_of(o: &PyAny) -> PyResult<i64> {
    let v = unsafe { ffi::PyLong_AsLongLong(o.as_ptr()) };
    if v == -1 && unsafe { !ffi::PyErr_Occurred().is_null() } {
        return Err(PyErr::fetch(o.py()));
    }
    Ok(v)
}

fn names_of(o: Option<&PyAny>) -> PyResult<HashSet<String>> {
    let mut out = HashSet::default();
    if let Some(o) = o {
        for item in o.iter()? {
            out.insert(item?.extract()?);
        }
    }
    Ok(out)
}

/// Each syscall name's kind, read once per name object (the parser shares one str per name).
struct Kinds {
    table: HashMap<String, Kind>,
    nfam: usize,
    by_ptr: HashMap<usize, (Kind, usize)>,
    names: Vec<PyObject>,
    name_at: HashMap<String, usize>,
}

impl Kinds {
    fn new(kinds: &PyDict, markers: Option<&PyAny>, module_opens: Option<&PyAny>, listings: Option<&PyAny>, layout: Option<&PyAny>) -> PyResult<Self> {
        let markers = names_of(markers)?;
        let module_opens = names_of(module_opens)?;
        let listings = names_of(listings)?;
        let layout = names_of(layout)?;
        let mut table: HashMap<String, Kind> = HashMap::default();
        let mut nfam = 0usize;
        let none = Kind { family: -1, path_arg: false, open: false, read: false, marker: false, module_open: false, listing: false, layout: false };
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
    fn of(&mut self, py: Python, name_obj: &PyAny) -> PyResult<(Kind, usize)> {
        let ptr = name_obj.as_ptr() as usize;
        if let Some(&v) = self.by_ptr.get(&ptr) {
            return Ok(v);
        }
        let s: &str = str_of(name_obj)?;
        let none = Kind { family: -1, path_arg: false, open: false, read: false, marker: false, module_open: false, listing: false, layout: false };
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
struct Tally {
    names: Vec<(i64, i64, f64)>, // per name slot
    name_order: Vec<usize>,      // the slots in first-seen order
    pids: Ordered<i64, (i64, i64, f64)>,
    fams: Vec<(i64, i64, f64)>,
    failed_paths: Ordered<String, i64>,
    opens: Ordered<String, i64>,
    read_by_file: Ordered<String, i64>,
    unnamed: Vec<(usize, i64)>,
    reads: i64,
    read_total: i64,
    hist: Ordered<i64, (i64, i64)>,
    own: Vec<(i64, i64, i64, i64, f64)>,
}

impl Tally {
    fn new(nfam: usize) -> Self {
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
    fn add(&mut self, kind: Kind, slot: usize, pos: usize, c: &PyTuple, pid: i64, owner: i64) -> PyResult<()> {
        let ret_o = c.get_item(4)?;
        let ret: Option<i64> = if ret_o.is_none() { None } else { Some(int_of(ret_o)?) };
        let errno = opt_str(c.get_item(5)?)?;
        let failed_call = errno.map_or(false, |e| !e.is_empty());
        let dur_o = c.get_item(7)?;
        let dur: f64 = if dur_o.is_none() { 0.0 } else { dur_o.extract()? };
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
            if let Some(path) = opt_str(c.get_item(10)?)? {
                *self.failed_paths.get_str(path) += 1;
            }
        } else if kind.open {
            if let Some(r) = ret {
                if r >= 0 && !failed_call {
                    let rp = opt_str(c.get_item(6)?)?;
                    let path = match rp {
                        Some(x) if !x.is_empty() => Some(x),
                        _ => opt_str(c.get_item(10)?)?,
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
                match opt_str(c.get_item(11)?)? {
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
    fn finish(self, py: Python, kinds: &Kinds) -> PyResult<Vec<PyObject>> {
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
fn tally_calls(py: Python, calls: &PyList, owners: Option<&PyList>, kinds: &PyDict) -> PyResult<PyObject> {
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

// --- the attribution ---------------------------------------------------------------------------

const OUTSIDE: &str = "(outside imports)";

/// posixpath.split's head: the folder of a path (trailing slashes dropped unless all slashes).
fn dirname(p: &str) -> &str {
    let i = p.rfind('/').map_or(0, |i| i + 1);
    let head = &p[..i];
    if !head.is_empty() && head.bytes().any(|b| b != b'/') {
        head.trim_end_matches('/')
    } else {
        head
    }
}

fn basename(p: &str) -> &str {
    &p[p.rfind('/').map_or(0, |i| i + 1)..]
}

/// attribution._flags_text: an open's arguments after the path string.
fn flags_text(c: &PyTuple, name: &str) -> PyResult<String> {
    let a = c.get_item(3)?;
    let text: String = if let Ok(s) = a.downcast::<PyString>() {
        utf8(s)?.to_string()
    } else {
        let parts: Vec<String> = a.extract()?;
        parts.join(", ")
    };
    match text.rfind('"') {
        Some(q) => Ok(text[q + 1..].to_string()),
        None => {
            // no string: the arguments split (the model's splitter), as the Python side reads them
            let args: Vec<String> = c.getattr("args")?.extract()?;
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
fn opened<'a>(c: &'a PyTuple) -> PyResult<Option<&'a str>> {
    let ret_o = c.get_item(4)?;
    if ret_o.is_none() || int_of(ret_o)? < 0 {
        return Ok(None);
    }
    if opt_str(c.get_item(5)?)?.map_or(false, |e| !e.is_empty()) {
        return Ok(None);
    }
    let p = match opt_str(c.get_item(6)?)? {
        Some(x) if !x.is_empty() => Some(x),
        _ => opt_str(c.get_item(10)?)?,
    };
    Ok(p)
}

/// attribution._module_file: the .pyc/.py/.so a successful read-only open returned.
fn module_file<'a>(c: &'a PyTuple, name: &str) -> PyResult<Option<&'a str>> {
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
fn module_path(path: &str) -> String {
    let mut folder = dirname(path);
    let base = basename(path);
    if base.ends_with(".pyc") && basename(folder) == "__pycache__" {
        folder = dirname(folder);
    }
    let stem = if base.ends_with(".py") { &base[..base.len() - 3] } else { base.split('.').next().unwrap_or("") };
    if stem == "__init__" {
        folder.to_string()
    } else if folder.is_empty() || folder.ends_with('/') {
        format!("{}{}", folder, stem)
    } else {
        format!("{}/{}", folder, stem)
    }
}

fn is_identifier(py: Python, s: &str) -> PyResult<bool> {
    if s.is_ascii() {
        let b = s.as_bytes();
        return Ok(!b.is_empty() && (b[0].is_ascii_alphabetic() || b[0] == b'_') && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_'));
    }
    PyString::new(py, s).call_method0("isidentifier")?.extract()
}

/// sys.path entries as the trace shows them (attribution._Roots), longest first.
struct Roots {
    roots: Vec<String>,
    set: HashSet<String>,
}

impl Roots {
    fn module_name(&self, py: Python, path: &str) -> PyResult<Option<String>> {
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

    fn is_listing(&self, c: &PyTuple, name: &str) -> PyResult<bool> {
        match opened(c)? {
            Some(p) => Ok(self.set.contains(p.trim_end_matches('/')) && flags_text(c, name)?.contains("O_DIRECTORY")),
            None => Ok(false),
        }
    }
}

/// One (pid, module) accumulator: attribution._Acc.
#[derive(Default)]
struct Acc {
    pid: i64,
    name: String,
    imports: i64,
    cumulative: i64,
    failures: i64,
}

struct Walk {
    accs: Vec<Acc>,
    number: HashMap<(i64, String), usize>,
    touched: Vec<i64>,
    touched_set: HashSet<i64>,
}

impl Walk {
    fn touch(&mut self, pid: i64) {
        if self.touched_set.insert(pid) {
            self.touched.push(pid);
        }
    }
    fn owner(&mut self, pid: i64, name: &str) -> usize {
        self.touch(pid);
        if let Some(&o) = self.number.get(&(pid, name.to_string())) {
            return o;
        }
        self.accs.push(Acc { pid, name: name.to_string(), ..Default::default() });
        self.number.insert((pid, name.to_string()), self.accs.len() - 1);
        self.accs.len() - 1
    }
}

fn opt_f64(o: &PyAny) -> PyResult<Option<f64>> {
    if o.is_none() {
        Ok(None)
    } else {
        Ok(Some(o.extract()?))
    }
}

type Span = (String, i64, Option<f64>, Option<f64>, usize);

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
fn attribute_calls(
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
    let mut k = Kinds::new(kinds, Some(marker_calls), Some(module_opens), Some(listing_calls), Some(layout_calls))?;
    let items: Vec<&PyTuple> = if let Ok(t) = calls.downcast::<PyTuple>() {
        t.iter().map(|x| x.downcast::<PyTuple>()).collect::<Result<_, _>>()?
    } else {
        calls.downcast::<PyList>()?.iter().map(|x| x.downcast::<PyTuple>()).collect::<Result<_, _>>()?
    };
    let is_marker_path = |p: Option<&str>| p.map_or(false, |p| p.starts_with(prefix));

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
    let mut kinds_at: Vec<(Kind, usize)> = Vec::with_capacity(items.len());
    let mut pid_at: Vec<i64> = Vec::with_capacity(items.len());
    for c in &items {
        let name_o = c.get_item(2)?;
        let (kind, slot) = k.of(py, name_o)?;
        kinds_at.push((kind, slot));
        let pid: i64 = int_of(c.get_item(0)?)?;
        pid_at.push(pid);
        let time_o = c.get_item(1)?;
        if seen.insert(pid) {
            pids.push(pid);
            first.append((pid, time_o))?;
        }
        if let Some(t) = opt_f64(time_o)? {
            tmin = Some(tmin.map_or(t, |m: f64| if t < m { t } else { m }));
            tmax = Some(tmax.map_or(t, |m: f64| if t > m { t } else { m }));
        }
        if kind.layout {
            picked.append(*c)?;
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
            if is_marker_path(opt_str(c.get_item(10)?)?) {
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
    let mut plain: Vec<usize> = Vec::new();
    let mut owners: Vec<i64> = Vec::new();
    let mut run: HashMap<i64, i64> = HashMap::default();
    let mut top: HashMap<i64, usize> = HashMap::default();
    let mut pending: HashMap<i64, (u64, Vec<usize>)> = HashMap::default();
    let mut seq: u64 = 0;
    let mut current: HashMap<i64, (String, HashSet<String>)> = HashMap::default();
    let mut started: HashSet<i64> = HashSet::default();
    let mut imported: HashMap<i64, HashSet<String>> = HashMap::default();
    let mut outside: HashMap<i64, usize> = HashMap::default();

    fn flush(pid: i64, run: &mut HashMap<i64, i64>, stacks: &HashMap<i64, Vec<(String, Option<f64>)>>, w: &mut Walk) {
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

    for (pos, c) in items.iter().enumerate() {
        let (kind, _) = kinds_at[pos];
        let pid = pid_at[pos];
        let mode = modes.get(&pid).copied().unwrap_or(0);
        let path = if kind.marker || mode == 2 { opt_str(c.get_item(10)?)? } else { None };
        if mode == 0 {
            if kind.marker && is_marker_path(path) {
                continue; // a marker of a process we do not attribute: still not counted
            }
            let o = match outside.get(&pid) {
                Some(&o) => o,
                None => {
                    let o = w.owner(pid, OUTSIDE);
                    outside.insert(pid, o);
                    o
                }
            };
            owners.push(o as i64);
            plain.push(pos);
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
                            let cut = c.get_item(12)?.is_true()?;
                            marker = Some((kd.as_bytes()[0], if cut { format!("{}...", name) } else { name.to_string() }));
                        }
                    }
                }
            }
            if let Some((kd, name)) = marker {
                flush(pid, &mut run, &stacks, &mut w);
                top.remove(&pid);
                w.touch(pid);
                let t = opt_f64(c.get_item(1)?)?;
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
                    let dur = opt_f64(c.get_item(7)?)?.unwrap_or(0.0);
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
            owners.push(o as i64);
            plain.push(pos);
            *run.entry(pid).or_insert(0) += 1;
            continue;
        }
        // lookups
        if kind.marker && is_marker_path(path) {
            continue;
        }
        let i = plain.len();
        plain.push(pos);
        let proc = proc_of(pid);
        let name_s: &str = if kind.listing || kind.module_open { str_of(c.get_item(2)?)? } else { "" };
        if !started.contains(&proc) {
            let line: i64 = int_of(c.get_item(8)?)?;
            if kind.listing && line > *exec_line.get(&proc).unwrap_or(&0) && roots.is_listing(c, name_s)? {
                started.insert(proc); // the first sys.path listing: imports begin
            } else {
                let o = match outside.get(&pid) {
                    Some(&o) => o,
                    None => {
                        let o = w.owner(pid, OUTSIDE);
                        outside.insert(pid, o);
                        o
                    }
                };
                owners.push(o as i64);
                continue;
            }
        }
        owners.push(-1);
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
            if f.ends_with(".py") && imported.get(&proc).map_or(false, |s| s.contains(n)) && cur_name != Some(n.as_str()) {
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
            owners[i] = w.owner(pid, &n) as i64;
        } else if let Some(n) = name {
            imported.entry(proc).or_default().insert(n.clone());
            let o = w.owner(pid, &n);
            w.accs[o].imports += 1;
            let lookups = pending.remove(&pid).map(|x| x.1).unwrap_or_default();
            for &p in &lookups {
                owners[p] = o as i64;
            }
            owners[i] = o as i64;
            let mut files = HashSet::default();
            files.insert(f.to_string());
            current.insert(pid, (n.clone(), files));
            let t = opt_f64(c.get_item(1)?)?;
            let t0 = match lookups.first() {
                Some(&p) => opt_f64(items[plain[p]].get_item(1)?)?,
                None => t,
            };
            let dur = opt_f64(c.get_item(7)?)?.unwrap_or(0.0);
            spans.push((n, pid, t0, t.map(|t| t + dur), 0));
        } else {
            let mine = match current.get(&pid) {
                Some(cur) => {
                    let fd = opt_str(c.get_item(11)?)?;
                    fd.map_or(false, |x| cur.1.contains(x)) || path.map_or(false, |x| cur.1.contains(x))
                }
                None => false,
            };
            if mine {
                let n = current.get(&pid).unwrap().0.clone();
                owners[i] = w.owner(pid, &n) as i64;
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
                owners[p] = o as i64;
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
    for (j, &pos) in plain.iter().enumerate() {
        let (kind, slot) = kinds_at[pos];
        tally.add(kind, slot, pos, items[pos], pid_at[pos], owners[j])?;
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
fn select_calls(py: Python, calls: &PyAny, names: &PyAny) -> PyResult<PyObject> {
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

#[pymodule]
fn _syscall_tally(_py: Python, m: &PyModule) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(select_calls, m)?)?;
    m.add_function(wrap_pyfunction!(tally_calls, m)?)?;
    m.add_function(wrap_pyfunction!(attribute_calls, m)?)?;
    Ok(())
}
