//! The fast path of profiler/parse/strace.py, line for line the same decisions: a completed
//! call in the usual `-f -tt -T -y` (or -ttt) form becomes the fields of a Syscall; any other
//! line is returned as its text for the Python general path (unfinished/resumed halves,
//! signals, exits, noise, the cut last line, escaped paths, exec calls, odd shapes).
use pyo3::prelude::*;
use pyo3::AsPyPointer;
use pyo3::ffi;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};
use regex::Regex;
use std::collections::HashMap;


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

/// The pieces the fast regular expression of strace.py captures, found by hand (the same
/// leftmost-first, greedy choices): pid, (h, m, s) or epoch seconds, name, args, ret, ret
/// path, extra, duration.
struct Line<'a> {
    pid: &'a str,
    hms: Option<(&'a str, &'a str, &'a str)>,
    epoch: &'a str,
    name: &'a str,
    args: &'a str,
    ret: &'a str,
    rpath: Option<&'a str>,
    extra: &'a str,
    dur: &'a str,
}

fn split_line(line: &str) -> Option<Line<'_>> {
    let b = line.as_bytes();
    // (\d+) +
    let e = digits(b, 0);
    if e == 0 || e >= b.len() || b[e] != b' ' {
        return None;
    }
    let pid = &line[..e];
    let mut i = e;
    while i < b.len() && b[i] == b' ' {
        i += 1;
    }
    // (\d+):(\d\d):(\d\d\.\d+) | (\d+\.\d+), then one space
    let start = i;
    let d = digits(b, i);
    if d == start || d >= b.len() {
        return None;
    }
    let (hms, epoch, after) = if b[d] == b':' {
        let m0 = d + 1;
        if m0 + 3 > b.len() || !b[m0].is_ascii_digit() || !b[m0 + 1].is_ascii_digit() || b[m0 + 2] != b':' {
            return None;
        }
        let s0 = m0 + 3;
        if s0 + 3 > b.len() || !b[s0].is_ascii_digit() || !b[s0 + 1].is_ascii_digit() || b[s0 + 2] != b'.' {
            return None;
        }
        let s1 = digits(b, s0 + 3);
        if s1 == s0 + 3 {
            return None;
        }
        (Some((&line[start..d], &line[m0..m0 + 2], &line[s0..s1])), "", s1)
    } else if b[d] == b'.' {
        let f = digits(b, d + 1);
        if f == d + 1 {
            return None;
        }
        (None, &line[start..f], f)
    } else {
        return None;
    };
    if after >= b.len() || b[after] != b' ' {
        return None;
    }
    // ([A-Za-z_][A-Za-z0-9_]*)\(
    let n0 = after + 1;
    if n0 >= b.len() || !(b[n0].is_ascii_alphabetic() || b[n0] == b'_') {
        return None;
    }
    let mut n1 = n0 + 1;
    while n1 < b.len() && (b[n1].is_ascii_alphanumeric() || b[n1] == b'_') {
        n1 += 1;
    }
    if n1 >= b.len() || b[n1] != b'(' {
        return None;
    }
    let a0 = n1 + 1;
    // the end: " <(\d+\.\d+)>" then an optional \r
    let mut end = b.len();
    if end > 0 && b[end - 1] == b'\r' {
        end -= 1;
    }
    if end == 0 || b[end - 1] != b'>' {
        return None;
    }
    let close = end - 1;
    let mut k = close;
    while k > 0 && b[k - 1].is_ascii_digit() {
        k -= 1;
    }
    if k == close || k == 0 || b[k - 1] != b'.' {
        return None;
    }
    let dot = k - 1;
    let mut k2 = dot;
    while k2 > 0 && b[k2 - 1].is_ascii_digit() {
        k2 -= 1;
    }
    if k2 == dot || k2 < 2 || b[k2 - 1] != b'<' || b[k2 - 2] != b' ' {
        return None;
    }
    let dur = &line[k2..close];
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
        let r1 = if r0 < suffix && (b[r0] == b'-' || b[r0].is_ascii_digit()) {
            let s = if b[r0] == b'-' { r0 + 1 } else { r0 };
            let e = digits(&b[..suffix], s);
            if e == s {
                0
            } else {
                e
            }
        } else {
            0
        };
        let r1 = if r1 != 0 {
            r1
        } else if r0 + 2 < suffix && b[r0] == b'0' && b[r0 + 1] == b'x' && b[r0 + 2].is_ascii_hexdigit() {
            let mut e = r0 + 2;
            while e < suffix && b[e].is_ascii_hexdigit() {
                e += 1;
            }
            e
        } else if r0 < suffix && b[r0] == b'?' {
            r0 + 1
        } else {
            continue;
        };
        // (?:<([^<>\\]*(?:\\.[^<>\\]*)*)>)?
        let mut rpath = None;
        let mut x0 = r1;
        if r1 < suffix && b[r1] == b'<' {
            let mut j = r1 + 1;
            let mut ok = false;
            while j < suffix {
                match b[j] {
                    b'\\' => {
                        if j + 1 >= suffix {
                            break;
                        }
                        j += 2;
                        continue;
                    }
                    b'<' => break,
                    b'>' => {
                        ok = true;
                        break;
                    }
                    _ => j += 1,
                }
            }
            if ok {
                rpath = Some(&line[r1 + 1..j]);
                x0 = j + 1;
            }
        }
        return Some(Line {
            pid,
            hms,
            epoch,
            name: &line[n0..n1],
            args: &line[a0..p],
            ret: &line[r0..r1],
            rpath,
            extra: &line[x0..suffix],
            dur,
        });
    }
    None
}

/// One line → Some(tuple of Syscall fields) or None (the general path takes it).
fn fast<'p>(
    py: Python<'p>,
    r: &Res,
    kinds: &HashMap<String, i64>,
    names: &mut HashMap<String, PyObject>,
    line: &str,
    lineno: usize,
) -> Option<(&'p PyTuple, f64)> {
    let c = split_line(line)?;
    let pid: i64 = c.pid.parse().ok()?;
    let t: f64 = if let Some((h, m, s)) = c.hms {
        let h: i64 = h.parse().ok()?;
        let m: i64 = m.parse().ok()?;
        let s: f64 = s.parse().ok()?;
        (h * 3600 + m * 60) as f64 + s
    } else {
        c.epoch.parse().ok()?
    };
    let name = c.name;
    let args = c.args;
    let mut path: Option<String> = None;
    let mut fdp: Option<&str> = None;
    let mut cut = false;
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
        Some(_) => return None, // exec calls: their argv is decoded by the Python path
    }
    let ret_s = c.ret;
    let ret: PyObject = if ret_s == "?" {
        py.None()
    } else if let Some(hex) = ret_s.strip_prefix("0x") {
        i64::from_str_radix(hex, 16).ok()?.into_py(py)
    } else {
        ret_s.parse::<i64>().ok()?.into_py(py)
    };
    let errno: PyObject = if c.extra.is_empty() {
        py.None()
    } else {
        match r.errno.captures(c.extra) {
            Some(m) => m.get(1)?.as_str().into_py(py),
            None => py.None(),
        }
    };
    let rpath: PyObject = match c.rpath {
        Some(m) => m.into_py(py),
        None => py.None(),
    };
    let dur: f64 = c.dur.parse().ok()?;
    let args_obj: PyObject = if args.is_empty() { PyTuple::empty(py).into_py(py) } else { PyString::new(py, args).into_py(py) };
    let name_obj = match names.get(name) {
        Some(o) => o.clone_ref(py),
        None => {
            let o: PyObject = PyString::new(py, name).into_py(py);
            names.insert(name.to_string(), o.clone_ref(py));
            o
        }
    };
    let items: [PyObject; 14] = [
        pid.into_py(py),
        t.into_py(py),
        name_obj,
        args_obj,
        ret,
        errno,
        rpath,
        dur.into_py(py),
        lineno.into_py(py),
        false.into_py(py),
        path.map_or_else(|| py.None(), |p| p.into_py(py)),
        fdp.map_or_else(|| py.None(), |p| p.into_py(py)),
        cut.into_py(py),
        py.None(),
    ];
    Some((PyTuple::new(py, items), t))
}

/// The head of a line in the strict usual form: `PID +TIME ` (TIME: `H:MM:SS.f` or `S.f`)
/// → (pid, seconds, where the body begins). None for any other shape.
fn strict_head(line: &str) -> Option<(i64, f64, usize)> {
    let b = line.as_bytes();
    let e = digits(b, 0);
    if e == 0 || e >= b.len() || b[e] != b' ' {
        return None;
    }
    let pid: i64 = line[..e].parse().ok()?;
    let mut i = e;
    while i < b.len() && b[i] == b' ' {
        i += 1;
    }
    let start = i;
    let d = digits(b, i);
    if d == start || d >= b.len() {
        return None;
    }
    let (t, after) = if b[d] == b':' {
        let m0 = d + 1;
        if m0 + 3 > b.len() || !b[m0].is_ascii_digit() || !b[m0 + 1].is_ascii_digit() || b[m0 + 2] != b':' {
            return None;
        }
        let s0 = m0 + 3;
        if s0 + 3 > b.len() || !b[s0].is_ascii_digit() || !b[s0 + 1].is_ascii_digit() || b[s0 + 2] != b'.' {
            return None;
        }
        let s1 = digits(b, s0 + 3);
        if s1 == s0 + 3 {
            return None;
        }
        let h: i64 = line[start..d].parse().ok()?;
        let m: i64 = line[m0..m0 + 2].parse().ok()?;
        let s: f64 = line[s0..s1].parse().ok()?;
        ((h * 3600 + m * 60) as f64 + s, s1)
    } else if b[d] == b'.' {
        let f = digits(b, d + 1);
        if f == d + 1 {
            return None;
        }
        (line[start..f].parse().ok()?, f)
    } else {
        return None;
    };
    // exactly one space, then a body that does not begin with white space (the general path's
    // head pattern would take more of it)
    if after + 1 >= b.len() || b[after] != b' ' || b[after + 1].is_ascii_whitespace() {
        return None;
    }
    Some((pid, t, after + 1))
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

struct Pending<'a> {
    slot: usize,
    line: &'a str, // the unfinished line, without trailing \r and without " <unfinished ...>"
    name: &'a str,
    lineno: usize,
}

/// parse_lines(text, kinds, record, pairs=False) → (rows, general, lines, jumps): `rows` holds
/// the records in the order of the lines that start them: the fields of a Syscall (a tuple),
/// or a line's text for the general path; `general` lists the positions of the text items in
/// `rows` and `lines` their (1-based) line numbers; `jumps` says whether the time of a line is
/// more than 12 hours before the previous one's (a log passing midnight: the caller then adds
/// the days line by line). `kinds`: {syscall name: 0 (path first), 1 (path after a dirfd), 2
/// (exec)}. The last line, when the text does not end with a newline, is always text (a cut
/// line).
///
/// `pairs`: an `<unfinished ...>` line and the `<... NAME resumed>` line of the same pid that
/// comes next for that pid are joined here, as the general path joins them (the record takes
/// the unfinished line's place, time and line number; the resumed line is no item), when both
/// are in the usual form, nothing else of that pid comes between them, the general path holds
/// no unfinished call of that pid, and the joined text takes the fast path; anything else
/// leaves both lines to the general path, in their places. With pairs the caller parses again
/// without them when the log passes midnight.
///
/// `record`: None, or a subclass of tuple with tuple's exact layout (no __dict__, no extra
/// slots: Syscall, a NamedTuple with `__slots__ = ()`, checked by the caller); the rows are
/// then made instances of it (the tuple's type set to it, with the reference a heap type's
/// instance holds), as `tuple.__new__(record, row)` would make them, without the copy.
#[pyfunction]
#[pyo3(text_signature = "(text, kinds, record, pairs=False)")]
fn parse_lines(py: Python, text: &str, kinds: &PyDict, record: Option<&PyType>, pairs: Option<bool>) -> PyResult<PyObject> {
    let r = res();
    let mut k: HashMap<String, i64> = HashMap::new();
    for (key, value) in kinds.iter() {
        k.insert(key.extract()?, value.extract()?);
    }
    let mut names: HashMap<String, PyObject> = HashMap::new();
    let mut out: Vec<Option<PyObject>> = Vec::new();
    let mut general: Vec<usize> = Vec::new();
    let mut glines: Vec<usize> = Vec::new();
    let mut jumps = false;
    let mut last: Option<f64> = None;
    let pairs = pairs.unwrap_or(false);
    let mut pairing = pairs;
    let mut pending: HashMap<i64, Pending> = HashMap::new();
    // pids whose unfinished call the general path may hold (it saw an unfinished line of theirs
    // and no line since that ends it): their next unfinished line is the general path's too
    let mut held: std::collections::HashSet<i64> = std::collections::HashSet::new();
    let mark = |t: f64, last: &mut Option<f64>, jumps: &mut bool| {
        if let Some(l) = *last {
            if t < l - 43200.0 {
                *jumps = true;
            }
        }
        *last = Some(t);
    };
    let as_text = |out: &mut Vec<Option<PyObject>>, general: &mut Vec<usize>, glines: &mut Vec<usize>, slot: Option<usize>, line: &str, lineno: usize| {
        let s: PyObject = PyString::new(py, line).into_py(py);
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
    let make = |t: &PyTuple| {
        if let Some(cls) = record {
            unsafe {
                let tp = cls.as_ptr();
                ffi::Py_INCREF(tp);
                (*t.as_ptr()).ob_type = tp as *mut ffi::PyTypeObject;
            }
        }
        let o: PyObject = t.into_py(py);
        o
    };
    if !text.is_empty() {
        let ends = text.ends_with('\n');
        let body = if ends { &text[..text.len() - 1] } else { text };
        let n = body.split('\n').count();
        for (i, line) in body.split('\n').enumerate() {
            let lineno = i + 1;
            let cut = lineno == n && !ends;
            if pairing {
                if line.starts_with('[') || (line.as_bytes().first().map_or(false, |c| c.is_ascii_digit()) && {
                    let e = digits(line.as_bytes(), 0);
                    e < line.len() && line.as_bytes()[e] != b' ' && line.as_bytes()[e].is_ascii_whitespace()
                }) {
                    // `[pid N]` heads, or a pid followed by other white space: the general path's
                    // own reading of pids; no more joining in this log
                    pairing = false;
                    let mut left: Vec<Pending> = pending.drain().map(|(_, p)| p).collect();
                    left.sort_by_key(|p| p.slot);
                    for p in left {
                        let whole = format!("{}{}", p.line, UNFINISHED);
                        as_text(&mut out, &mut general, &mut glines, Some(p.slot), &whole, p.lineno);
                    }
                }
            }
            let trimmed = line.trim_end_matches('\r');
            let head = if pairing { strict_head(trimmed) } else { None };
            if let Some((pid, t, b0)) = head {
                if let Some(p) = pending.remove(&pid) {
                    let mut joined = None;
                    if !cut {
                        if let Some(rest) = resumed_rest(&trimmed[b0..], p.name) {
                            mark(t, &mut last, &mut jumps);
                            let whole = format!("{}{}", p.line, rest);
                            if let Some((row, _)) = fast(py, &r, &k, &mut names, &whole, p.lineno) {
                                joined = Some(row);
                            }
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
            let row = if cut { None } else { fast(py, &r, &k, &mut names, line, lineno) };
            match row {
                Some((t, time)) => {
                    mark(time, &mut last, &mut jumps);
                    out.push(Some(make(t)));
                }
                None => {
                    if let Some((pid, t, b0)) = head {
                        let body = &trimmed[b0..];
                        if !cut && body.ends_with(UNFINISHED) && !held.contains(&pid) {
                            if let Some(name) = call_name(body) {
                                mark(t, &mut last, &mut jumps);
                                pending.insert(pid, Pending { slot: out.len(), line: &trimmed[..trimmed.len() - UNFINISHED.len()], name, lineno });
                                out.push(None);
                                continue;
                            }
                        }
                        // what the general path does with the call it may hold for this pid
                        if body.starts_with("<... ") || body.starts_with("+++ ") {
                            held.remove(&pid);
                        } else if body.ends_with(UNFINISHED) {
                            held.insert(pid);
                        }
                    } else if pairing && trimmed.ends_with(UNFINISHED) {
                        // an unfinished call in another form: its pid is the general path's to read
                        let e = digits(trimmed.as_bytes(), 0);
                        match trimmed[..e].parse::<i64>() {
                            Ok(pid) => {
                                held.insert(pid);
                            }
                            Err(_) => pairing = false,
                        }
                    }
                    as_text(&mut out, &mut general, &mut glines, None, line, lineno);
                }
            }
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
    let rows = PyList::empty(py);
    for item in out {
        rows.append(item.expect("every place is filled"))?;
    }
    let gpos = PyList::new(py, order.iter().map(|x| x.0));
    let glin = PyList::new(py, order.iter().map(|x| x.1));
    Ok((rows, gpos, glin, jumps).into_py(py))
}

#[pymodule]
fn _strace_native(_py: Python, m: &PyModule) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parse_lines, m)?)?;
    Ok(())
}
