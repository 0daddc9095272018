//! The values a parameter expansion can take, as pure functions: the operators bash applies to
//! a known value (case modification, substrings, prefix, suffix and pattern replacement), the
//! literal word of a default or alternative (`${V:-w}`, `${V:+w}`), and glob matching against
//! the embedded list of standard system paths (never the host's filesystem).

/// Most readings one word keeps (each default or alternative taken forks the word).
pub const MAX_READINGS: usize = 8;

/// Longest reading kept, in characters (a longer one is left unknown).
pub const MAX_READING_CHARS: usize = 4096;

/// An expansion operator, split from the text after the parameter's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operator<'o> {
    /// `${V}`: the value.
    Plain,
    /// `${V:-w}`, `${V-w}`, `${V:=w}`, `${V=w}`: the value when set (and, with the colon, not
    /// empty), else `w`.
    Default { colon: bool, word: &'o str },
    /// `${V:+w}`, `${V+w}`: `w` when set (and not empty with the colon), else nothing.
    Alternative { colon: bool, word: &'o str },
    /// `${V:?}`, `${V?msg}`: the value, or the shell stops.
    Guard,
    /// Every other operator (case modification, substring, pattern): a function of the value.
    Transform(&'o str),
}

impl<'o> Operator<'o> {
    pub fn parse(op: &'o str) -> Self {
        let colon = op.starts_with(':');
        let rest = op.strip_prefix(':').unwrap_or(op);
        match rest.chars().next() {
            None if !colon => Operator::Plain,
            Some('-' | '=') => Operator::Default {
                colon,
                word: &rest[1..],
            },
            Some('+') => Operator::Alternative {
                colon,
                word: &rest[1..],
            },
            Some('?') => Operator::Guard,
            _ => Operator::Transform(op),
        }
    }
}

/// The value of a default or alternative word written without expansions (`/dev/sdb`,
/// `'/dev/sdb'`, `"a b"`, `\$x`), or `None` when it holds an expansion or substitution.
pub fn literal_word(word: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = word.chars();
    let (mut single, mut double) = (false, false);
    while let Some(c) = chars.next() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '\\' if !single => out.extend(chars.next()),
            '$' | '`' if !single => return None,
            c => out.push(c),
        }
    }
    (!single && !double).then_some(out)
}

/// `op` (a [`Operator::Transform`]'s text) applied to the known `value`, or `None` for an
/// operator this does not evaluate (then the word is only known at run time).
pub fn transform(value: &str, op: &str) -> Option<String> {
    if let Some(pattern) = op.strip_prefix("##") {
        return Some(strip_prefix(value, &literal_word(pattern)?, true));
    }
    if let Some(pattern) = op.strip_prefix('#') {
        return Some(strip_prefix(value, &literal_word(pattern)?, false));
    }
    if let Some(pattern) = op.strip_prefix("%%") {
        return Some(strip_suffix(value, &literal_word(pattern)?, true));
    }
    if let Some(pattern) = op.strip_prefix('%') {
        return Some(strip_suffix(value, &literal_word(pattern)?, false));
    }
    if let Some(rest) = op.strip_prefix('/') {
        return replace(value, rest);
    }
    if let Some(rest) = op.strip_prefix(':') {
        return substring(value, rest);
    }
    let chars: Vec<char> = value.chars().collect();
    let map = |f: fn(char) -> String, all: bool| -> String {
        chars
            .iter()
            .enumerate()
            .map(|(i, c)| if all || i == 0 { f(*c) } else { c.to_string() })
            .collect()
    };
    let upper = |c: char| c.to_uppercase().collect::<String>();
    let lower = |c: char| c.to_lowercase().collect::<String>();
    let toggle = |c: char| {
        if c.is_uppercase() {
            c.to_lowercase().collect::<String>()
        } else {
            c.to_uppercase().collect::<String>()
        }
    };
    match op {
        "^^" => Some(map(upper, true)),
        "^" => Some(map(upper, false)),
        ",," => Some(map(lower, true)),
        "," => Some(map(lower, false)),
        "~~" => Some(map(toggle, true)),
        "~" => Some(map(toggle, false)),
        "@Q" | "@E" | "@P" | "@A" | "@a" | "@K" | "@k" => None,
        "@U" => Some(map(upper, true)),
        "@u" => Some(map(upper, false)),
        "@L" => Some(map(lower, true)),
        _ => None,
    }
}

/// `${V:offset}`, `${V:offset:length}` with literal numbers (a negative offset counts from the
/// end, as bash's `${V: -3}` does).
fn substring(value: &str, spec: &str) -> Option<String> {
    let chars: Vec<char> = value.chars().collect();
    let (offset, length) = match spec.split_once(':') {
        Some((o, l)) => (o, Some(l)),
        None => (spec, None),
    };
    let len = chars.len() as i64;
    let offset: i64 = offset.trim().parse().ok()?;
    let start = if offset < 0 { len + offset } else { offset };
    if !(0..=len).contains(&start) {
        return Some(String::new());
    }
    let end = match length {
        None => len,
        Some(l) => {
            let l: i64 = l.trim().parse().ok()?;
            if l < 0 {
                len + l
            } else {
                (start + l).min(len)
            }
        }
    };
    if end < start {
        return None;
    }
    Some(chars[start as usize..end as usize].iter().collect())
}

/// `${V/pattern/string}` and its `//`, `/#`, `/%` forms.
fn replace(value: &str, rest: &str) -> Option<String> {
    let (all, anchor, rest) = match rest.chars().next() {
        Some('/') => (true, None, &rest[1..]),
        Some('#') => (false, Some('#'), &rest[1..]),
        Some('%') => (false, Some('%'), &rest[1..]),
        _ => (false, None, rest),
    };
    // The pattern ends at the first `/` not escaped by a backslash (`${d/\/tmp/}`).
    let mut end = None;
    let mut escaped = false;
    for (i, c) in rest.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '/' if !escaped => {
                end = Some(i);
                break;
            }
            _ => escaped = false,
        }
    }
    let (pattern, with) = match end {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, ""),
    };
    let (pattern, with) = (literal_word(pattern)?, literal_word(with)?);
    let chars: Vec<char> = value.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let mut replaced = false;
    while i <= chars.len() {
        let may_start = match anchor {
            Some('#') => i == 0,
            _ => !replaced || all,
        };
        let matched = may_start.then(|| longest_match(&chars[i..], &pattern, anchor == Some('%')));
        match matched.flatten() {
            Some(n) if n > 0 || !pattern.is_empty() => {
                out.push_str(&with);
                replaced = true;
                if n == 0 {
                    out.extend(chars.get(i));
                    i += 1;
                } else {
                    i += n;
                }
            }
            _ => {
                out.extend(chars.get(i));
                i += 1;
            }
        }
    }
    Some(out)
}

/// The length of the longest prefix of `text` that `pattern` matches (the whole of `text` when
/// `whole`), if any.
fn longest_match(text: &[char], pattern: &str, whole: bool) -> Option<usize> {
    let pattern: Vec<char> = pattern.chars().collect();
    if whole {
        return glob_match(&pattern, text).then_some(text.len());
    }
    (0..=text.len())
        .rev()
        .find(|&n| glob_match(&pattern, &text[..n]))
}

fn strip_prefix(value: &str, pattern: &str, longest: bool) -> String {
    let chars: Vec<char> = value.chars().collect();
    let pattern: Vec<char> = pattern.chars().collect();
    let mut ends: Box<dyn Iterator<Item = usize>> = if longest {
        Box::new((0..=chars.len()).rev())
    } else {
        Box::new(0..=chars.len())
    };
    match ends.find(|&n| glob_match(&pattern, &chars[..n])) {
        Some(n) => chars[n..].iter().collect(),
        None => value.to_string(),
    }
}

fn strip_suffix(value: &str, pattern: &str, longest: bool) -> String {
    let chars: Vec<char> = value.chars().collect();
    let pattern: Vec<char> = pattern.chars().collect();
    let mut starts: Box<dyn Iterator<Item = usize>> = if longest {
        Box::new(0..=chars.len())
    } else {
        Box::new((0..=chars.len()).rev())
    };
    match starts.find(|&n| glob_match(&pattern, &chars[n..])) {
        Some(n) => chars[..n].iter().collect(),
        None => value.to_string(),
    }
}

/// Shell pattern matching of the whole `text`: `*`, `?`, `[…]` (with `!`/`^` and ranges), `\`.
pub fn glob_match(pattern: &[char], text: &[char]) -> bool {
    // Iterative with one star backtrack point: linear enough for the short texts seen here.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, t));
                p += 1;
                continue;
            }
            Some('?') => {
                p += 1;
                t += 1;
                continue;
            }
            Some('[') => {
                if let Some((matched, next)) = bracket(pattern, p, text[t]) {
                    if matched {
                        p = next;
                        t += 1;
                        continue;
                    }
                } else if text[t] == '[' {
                    p += 1;
                    t += 1;
                    continue;
                }
            }
            Some('\\') if pattern.get(p + 1) == Some(&text[t]) => {
                p += 2;
                t += 1;
                continue;
            }
            Some(c) if *c == text[t] => {
                p += 1;
                t += 1;
                continue;
            }
            _ => {}
        }
        match star {
            Some((sp, st)) => {
                p = sp + 1;
                t = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    pattern[p.min(pattern.len())..].iter().all(|c| *c == '*')
}

/// A `[…]` class at `pattern[at]`: whether `c` is in it and the index after it, or `None` when
/// the bracket is not closed (then it is a literal `[`).
fn bracket(pattern: &[char], at: usize, c: char) -> Option<(bool, usize)> {
    let mut i = at + 1;
    let negate = matches!(pattern.get(i), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while let Some(&p) = pattern.get(i) {
        if p == ']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if pattern.get(i + 1) == Some(&'-') && pattern.get(i + 2).is_some_and(|e| *e != ']') {
            let hi = pattern[i + 2];
            matched |= (p..=hi).contains(&c);
            i += 3;
        } else {
            matched |= p == c;
            i += 1;
        }
    }
    None
}

/// Standard system paths a glob is matched against: what a glob in a system position can only
/// mean on any Linux host (`/u?r` is `/usr`, `/dev/sd?` is a disk). Embedded, never read from
/// the host.
pub const SYSTEM_PATHS: &[&str] = &[
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib32",
    "/lib64",
    "/media",
    "/mnt",
    "/opt",
    "/proc",
    "/root",
    "/run",
    "/sbin",
    "/srv",
    "/sys",
    "/tmp",
    "/usr",
    "/var",
    "/usr/bin",
    "/usr/sbin",
    "/usr/lib",
    "/usr/lib64",
    "/usr/local",
    "/usr/share",
    "/usr/include",
    "/var/lib",
    "/var/log",
    "/var/cache",
    "/var/spool",
    "/var/www",
    "/etc/passwd",
    "/etc/shadow",
    "/etc/group",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/hosts",
    "/etc/fstab",
    "/etc/crontab",
    "/etc/ssh",
    "/etc/pam.d",
    "/etc/systemd",
    "/etc/profile",
    "/etc/bash.bashrc",
    "/etc/ld.so.preload",
    "/boot/grub",
    "/boot/efi",
    "/dev/sda",
    "/dev/sdb",
    "/dev/sdc",
    "/dev/sda1",
    "/dev/sdb1",
    "/dev/vda",
    "/dev/vdb",
    "/dev/vda1",
    "/dev/xvda",
    "/dev/xvda1",
    "/dev/hda",
    "/dev/nvme0n1",
    "/dev/nvme1n1",
    "/dev/nvme0n1p1",
    "/dev/mmcblk0",
    "/dev/mmcblk0p1",
    "/dev/md0",
    "/dev/dm-0",
    "/dev/loop0",
    "/dev/null",
    "/dev/zero",
    "/dev/random",
    "/dev/urandom",
    "/dev/mem",
    "/dev/kmsg",
    "/proc/sysrq-trigger",
];

/// The system paths an absolute glob (`/u?r`, `/[e]tc`, `/*/`, `/dev/sd*`) can match, in list
/// order; empty for a relative pattern or one that matches none. A trailing `/` is kept on each
/// match, as the shell keeps it.
pub fn system_matches(pattern: &str) -> Vec<String> {
    if !pattern.starts_with('/') {
        return Vec::new();
    }
    let slash = pattern.len() > 1 && pattern.ends_with('/');
    let trimmed: String = {
        let mut p = pattern.trim_end_matches('/').to_string();
        while p.contains("//") {
            p = p.replace("//", "/");
        }
        p
    };
    let want: Vec<&str> = trimmed.split('/').collect();
    SYSTEM_PATHS
        .iter()
        .filter(|path| {
            let have: Vec<&str> = path.split('/').collect();
            have.len() == want.len()
                && have.iter().zip(&want).all(|(h, w)| {
                    let (h, w): (Vec<char>, Vec<char>) = (h.chars().collect(), w.chars().collect());
                    // A leading `.` is matched only by a literal `.`, as bash does.
                    !(h.first() == Some(&'.') && w.first() != Some(&'.')) && glob_match(&w, &h)
                })
        })
        .map(|path| {
            if slash {
                format!("{path}/")
            } else {
                (*path).to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transforms_table() {
        for (value, op, want) in [
            ("/DEV/SDB", ",,", Some("/dev/sdb")),
            ("rm", "^^", Some("RM")),
            ("debug", "^^", Some("DEBUG")),
            ("debug", "^", Some("Debug")),
            ("/dev/sdb1", "%1", Some("/dev/sdb")),
            ("/dev/sdb1", "%[0-9]", Some("/dev/sdb")),
            ("x/dev/sdb", "#x", Some("/dev/sdb")),
            ("a/b/c", "##*/", Some("c")),
            ("a/b/c", "#*/", Some("b/c")),
            ("a/b/c", "%/*", Some("a/b")),
            ("a/b/c", "%%/*", Some("a")),
            ("/dev/sdX", "/X/b", Some("/dev/sdb")),
            ("a-a-a", "//a/b", Some("b-b-b")),
            ("xx/dev/sdb", ":2", Some("/dev/sdb")),
            ("/dev/sdb-unused", ":0:8", Some("/dev/sdb")),
            ("abc", ": -2", Some("bc")),
            ("abc", "@Q", None),
            ("/tmp/etc", "/\\/tmp/", Some("/etc")),
            ("abc", "/$x/y", None),
        ] {
            assert_eq!(transform(value, op).as_deref(), want, "{value} {op}");
        }
    }

    #[test]
    fn operators_table() {
        assert_eq!(
            Operator::parse(":-/dev/sdb"),
            Operator::Default {
                colon: true,
                word: "/dev/sdb"
            }
        );
        assert_eq!(
            Operator::parse("=x"),
            Operator::Default {
                colon: false,
                word: "x"
            }
        );
        assert_eq!(
            Operator::parse(":+y"),
            Operator::Alternative {
                colon: true,
                word: "y"
            }
        );
        assert_eq!(Operator::parse(":?"), Operator::Guard);
        assert_eq!(Operator::parse(""), Operator::Plain);
        assert_eq!(Operator::parse(",,"), Operator::Transform(",,"));
        assert_eq!(Operator::parse(":2:3"), Operator::Transform(":2:3"));
    }

    #[test]
    fn literal_words() {
        assert_eq!(literal_word("'/dev/sdb'").as_deref(), Some("/dev/sdb"));
        assert_eq!(literal_word("\"a b\"").as_deref(), Some("a b"));
        assert_eq!(literal_word("\\$x").as_deref(), Some("$x"));
        assert_eq!(literal_word("$HOME/x"), None);
        assert_eq!(literal_word("'unclosed"), None);
    }

    #[test]
    fn system_globs_table() {
        for (pattern, want) in [
            ("/u?r", vec!["/usr"]),
            ("/[u]sr", vec!["/usr"]),
            ("/[e]tc/pass*", vec!["/etc/passwd"]),
            ("/e*c/", vec!["/etc/"]),
            ("/dev/sd?", vec!["/dev/sda", "/dev/sdb", "/dev/sdc"]),
            ("/dev/nvme0n[0-9]", vec!["/dev/nvme0n1"]),
            ("./build/*", vec![]),
            ("/srv/app/*", vec![]),
            ("/b[!i]ot", vec!["/boot"]),
        ] {
            assert_eq!(system_matches(pattern), want, "{pattern}");
        }
        assert!(system_matches("/*/").len() > 15);
        assert!(system_matches("/*").contains(&"/etc".to_string()));
    }
}
