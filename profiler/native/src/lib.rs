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

/// The head both line readers share: `(\d+) +` then `(\d+):(\d\d):(\d\d\.\d+)` or
/// `(\d+\.\d+)` → (pid, (h, m, s) or "", epoch or "", the index just after the time).
fn time_head(line: &str) -> Option<(&str, Option<(&str, &str, &str)>, &str, usize)> {
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
    let start = i;
    let d = digits(b, i);
    if d == start || d >= b.len() {
        return None;
    }
    if b[d] == b':' {
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
        Some((pid, Some((&line[start..d], &line[m0..m0 + 2], &line[s0..s1])), "", s1))
    } else if b[d] == b'.' {
        let f = digits(b, d + 1);
        if f == d + 1 {
            return None;
        }
        Some((pid, None, &line[start..f], f))
    } else {
        None
    }
}

fn split_line(line: &str) -> Option<Line<'_>> {
    let b = line.as_bytes();
    // (\d+) +(\d+):(\d\d):(\d\d\.\d+) | (\d+\.\d+), then one space
    let (pid, hms, epoch, after) = time_head(line)?;
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
    let errno: PyObject = if c.extra.is_empty() {
        py.None()
    } else {
        match r.errno.captures(c.extra) {
            Some(m) => {
                let e = m.get(1)?.as_str();
                match names.get(e) {
                    Some(o) => o.clone_ref(py),
                    None => {
                        let o: PyObject = PyString::new(py, e).into_py(py);
                        names.insert(e.to_string(), o.clone_ref(py));
                        o
                    }
                }
            }
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
        argv.map_or_else(|| py.None(), |a| PyTuple::new(py, a).into_py(py)),
    ];
    Some((PyTuple::new(py, items), t))
}

/// The head of a line in the strict usual form: `PID +TIME ` (TIME: `H:MM:SS.f` or `S.f`)
/// → (pid, seconds, where the body begins). None for any other shape.
fn strict_head(line: &str) -> Option<(i64, f64, usize)> {
    let b = line.as_bytes();
    let (pid, hms, epoch, after) = time_head(line)?;
    let pid: i64 = pid.parse().ok()?;
    let t = match hms {
        Some((h, m, s)) => {
            let h: i64 = h.parse().ok()?;
            let m: i64 = m.parse().ok()?;
            let s: f64 = s.parse().ok()?;
            (h * 3600 + m * 60) as f64 + s
        }
        None => epoch.parse().ok()?,
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
            // the head is read here only for a pid with an unfinished call held; else after
            // the fast path, when the line is not a usual record
            let mut head = None;
            let mut head_read = !pairing;
            if pairing && !pending.is_empty() {
                let lb = trimmed.as_bytes();
                let e = digits(lb, 0);
                if e > 0 && e < lb.len() && lb[e] == b' ' && trimmed[..e].parse::<i64>().map_or(false, |pid| pending.contains_key(&pid)) {
                    head = strict_head(trimmed);
                    head_read = true;
                }
            }
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
                    if !head_read {
                        head = strict_head(trimmed);
                    }
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

// ---------------------------------------------------------------------------------------------
// The tallies of a trace's summary in one pass (the fast path of profiler/analysis/syscalls.py
// `tally_calls`, whose pure-Python twin gives the same figures; tests compare both).

#[derive(Clone, Copy)]
struct Kind {
    family: i64,     // index in FAMILIES, -1 for none
    path_arg: bool,  // in PATH_ARG (a failed lookup when ENOENT/ENOTDIR)
    open: bool,      // in OPENS
    read: bool,      // in READS
}

/// Keys in first-seen order.
struct Ordered<K: std::hash::Hash + Eq + Clone, V> {
    at: HashMap<K, usize>,
    items: Vec<(K, V)>,
}

impl<K: std::hash::Hash + Eq + Clone, V: Default> Ordered<K, V> {
    fn new() -> Self {
        Ordered { at: HashMap::new(), items: Vec::new() }
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

fn opt_str(o: &PyAny) -> PyResult<Option<&str>> {
    if o.is_none() {
        Ok(None)
    } else {
        Ok(Some(o.downcast::<PyString>()?.to_str()?))
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
    let mut table: HashMap<String, Kind> = HashMap::new();
    let mut nfam = 0usize;
    for (key, value) in kinds.iter() {
        let (family, path_arg, open, read): (i64, bool, bool, bool) = value.extract()?;
        if family >= 0 {
            nfam = nfam.max(family as usize + 1);
        }
        table.insert(key.extract()?, Kind { family, path_arg, open, read });
    }
    let none = Kind { family: -1, path_arg: false, open: false, read: false };
    // per name object (the parser shares one str per name): its kind and its tally slot
    let mut by_ptr: HashMap<usize, (Kind, usize)> = HashMap::new();
    let mut names: Vec<(PyObject, i64, i64, f64)> = Vec::new();
    let mut name_at: HashMap<String, usize> = HashMap::new();
    let mut pids: Ordered<i64, (i64, i64, f64)> = Ordered::new();
    let mut fams: Vec<(i64, i64, f64)> = vec![(0, 0, 0.0); nfam];
    let mut failed_paths: Ordered<String, i64> = Ordered::new();
    let mut opens: Ordered<String, i64> = Ordered::new();
    let mut read_by_file: Ordered<String, i64> = Ordered::new();
    let mut unnamed: Vec<(usize, i64)> = Vec::new();
    let mut reads: i64 = 0;
    let mut read_total: i64 = 0;
    let mut hist: Ordered<i64, (i64, i64)> = Ordered::new();
    let mut own: Vec<(i64, i64, i64, i64, f64)> = Vec::new();
    let owner_of: Option<Vec<i64>> = match owners {
        Some(o) => Some(o.extract()?),
        None => None,
    };
    for (i, item) in calls.iter().enumerate() {
        let c: &PyTuple = item.downcast()?;
        let name_obj = c.get_item(2)?;
        let ptr = name_obj.as_ptr() as usize;
        let (kind, slot) = match by_ptr.get(&ptr) {
            Some(&v) => v,
            None => {
                let s: &str = name_obj.downcast::<PyString>()?.to_str()?;
                let kind = *table.get(s).unwrap_or(&none);
                let slot = match name_at.get(s) {
                    Some(&j) => j,
                    None => {
                        names.push((name_obj.into_py(py), 0, 0, 0.0));
                        name_at.insert(s.to_string(), names.len() - 1);
                        names.len() - 1
                    }
                };
                // the pointer stays valid: `calls` holds the object for the whole pass
                by_ptr.insert(ptr, (kind, slot));
                (kind, slot)
            }
        };
        let pid: i64 = c.get_item(0)?.extract()?;
        let ret_o = c.get_item(4)?;
        let ret: Option<i64> = if ret_o.is_none() { None } else { Some(ret_o.extract()?) };
        let errno = opt_str(c.get_item(5)?)?;
        let failed_call = errno.map_or(false, |e| !e.is_empty());
        let dur_o = c.get_item(7)?;
        let dur: f64 = if dur_o.is_none() { 0.0 } else { dur_o.extract()? };
        // the three _tally counters (per name, per pid, per family)
        let n = &mut names[slot];
        n.1 += 1;
        if failed_call {
            n.2 += 1;
        }
        if dur != 0.0 {
            n.3 += dur;
        }
        let p = pids.get(&pid);
        p.0 += 1;
        if failed_call {
            p.1 += 1;
        }
        if dur != 0.0 {
            p.2 += dur;
        }
        if kind.family >= 0 {
            let f = &mut fams[kind.family as usize];
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
                *failed_paths.get(&path.to_string()) += 1;
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
                        *opens.get(&path.to_string()) += 1;
                    }
                }
            }
        } else if kind.read && !failed_call {
            if let Some(r) = ret {
                reads += 1;
                read_total += r;
                let lo = if r <= 0 { 0 } else { 1i64 << (63 - r.leading_zeros() as i64) };
                let h = hist.get(&lo);
                h.0 += 1;
                h.1 += r;
                match opt_str(c.get_item(11)?)? {
                    Some(fp) if !fp.is_empty() => *read_by_file.get(&fp.to_string()) += r,
                    _ => unnamed.push((i, r)),
                }
                if r > 0 {
                    got = r;
                }
            }
        }
        if let Some(ow) = &owner_of {
            let o = ow[i];
            if o >= 0 {
                let o = o as usize;
                if own.len() <= o {
                    own.resize(o + 1, (0, 0, 0, 0, 0.0));
                }
                let a = &mut own[o];
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
        }
    }
    let by_name = PyDict::new(py);
    for (name, count, errors, seconds) in names {
        by_name.set_item(name, (count, errors, seconds))?;
    }
    let by_pid = PyDict::new(py);
    for (pid, v) in pids.items {
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
    for (lo, v) in hist.items {
        sizes.set_item(lo, v)?;
    }
    let owners_out = PyList::empty(py);
    for a in own {
        owners_out.append(a)?;
    }
    let items: [PyObject; 11] = [
        by_name.into_py(py),
        by_pid.into_py(py),
        fams.into_py(py),
        counter(failed_paths)?.into_py(py),
        counter(opens)?.into_py(py),
        counter(read_by_file)?.into_py(py),
        unnamed.into_py(py),
        reads.into_py(py),
        read_total.into_py(py),
        sizes.into_py(py),
        owners_out.into_py(py),
    ];
    Ok(PyTuple::new(py, items).into_py(py))
}

#[pymodule]
fn _syscall_tally(_py: Python, m: &PyModule) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tally_calls, m)?)?;
    Ok(())
}
