//! The strace line's lexical reads, each the byte-level twin of one piece of a pattern in
//! profiler/parse/strace.py (a head, a quoted string, a -y decoration, the argument list's end,
//! a return value, a call name, a process event): pure functions over bytes, no Python objects.
//! Each answers None where the general path could read the text otherwise (non-ASCII where
//! Python's `\d` or `\s` could take it, an unclosed string): the caller then leaves the line to it.

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
