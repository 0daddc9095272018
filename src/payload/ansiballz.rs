//! AnsiballZ, the wrapper in which Ansible ships a module and its arguments to a host: a python
//! program whose `ANSIBALLZ_PARAMS` literal holds the task's JSON arguments and whose `ZIPDATA`
//! holds the module's code, run as `runpy.run_module(mod_name=…)`. Decoded within bounds; a
//! wrapper that is truncated, malformed or over a bound is an error, never an empty task.

use base64::Engine as _;
use serde_json::{Map, Value};
use std::io::Read;
use std::ops::Range;

/// Bounds on one decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Largest wrapper decoded, in bytes.
    pub max_bytes: usize,
    /// Most entries in the zip.
    pub max_entries: usize,
    /// Largest total of the entries' uncompressed sizes, as the zip declares them.
    pub max_unpacked: u64,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            max_bytes: 8 << 20,
            max_entries: 4_096,
            max_unpacked: 64 << 20,
        }
    }
}

/// Collection modules known by name (the modules the state-changing table covers that moved
/// out of ansible-core).
pub const KNOWN_COLLECTIONS: &[(&str, &[&str])] = &[
    ("ansible.posix", &["mount", "authorized_key"]),
    ("community.general", &["filesystem", "parted"]),
];

/// One decoded task.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    /// The module that runs, as `runpy` is told (`ansible.modules.file`).
    pub fqn: String,
    /// The task's arguments (`ANSIBLE_MODULE_ARGS`), internal `_ansible_*` keys included.
    pub args: Map<String, Value>,
}

impl Task {
    /// The module's short name when it is a builtin (`file` for `ansible.modules.file`) or one
    /// of the well-known collection modules that do the same as a builtin-style name
    /// ([`KNOWN_COLLECTIONS`]); `None` for any other module, whose name says nothing certain.
    pub fn known_name(&self) -> Option<&str> {
        if let Some(name) = self.fqn.strip_prefix("ansible.modules.") {
            return Some(name);
        }
        let rest = self.fqn.strip_prefix("ansible_collections.")?;
        KNOWN_COLLECTIONS.iter().find_map(|(collection, names)| {
            let name = rest
                .strip_prefix(collection)?
                .strip_prefix(".plugins.modules.")?;
            names.contains(&name).then_some(name)
        })
    }

    /// The task was marked `no_log`: its arguments are never written to a log.
    pub fn no_log(&self) -> bool {
        self.args.get("_ansible_no_log") == Some(&Value::Bool(true))
    }

    /// The arguments the task author wrote (without the `_ansible_*` bookkeeping).
    pub fn user_args(&self) -> Map<String, Value> {
        self.args
            .iter()
            .filter(|(k, _)| !k.starts_with("_ansible_"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}

/// Why a wrapper could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PayloadError {
    #[error("the AnsiballZ payload is over {0} bytes")]
    TooLarge(usize),
    #[error("the AnsiballZ payload has no {0}")]
    Missing(&'static str),
    #[error("the AnsiballZ payload's {what} is malformed: {message}")]
    Malformed { what: &'static str, message: String },
    #[error("the AnsiballZ payload's zip is over its bounds: {0}")]
    OverBounds(String),
}

impl PayloadError {
    /// A wrapper of a shape this build does not know (as opposed to a damaged one).
    pub fn is_unknown_format(&self) -> bool {
        matches!(self, PayloadError::Missing(_))
    }
}

/// Whether `text` is an AnsiballZ wrapper: its marker line within the first lines.
pub fn is_wrapper(text: &str) -> bool {
    text.lines()
        .take(8)
        .any(|l| l.trim_start().starts_with("_ANSIBALLZ_WRAPPER = True"))
}

/// Decodes a wrapper (see [`is_wrapper`]).
pub fn decode(text: &str, bounds: &Bounds) -> Result<Task, PayloadError> {
    if text.len() > bounds.max_bytes {
        return Err(PayloadError::TooLarge(bounds.max_bytes));
    }
    // The template ends by calling its main function: a wrapper without that last line was cut.
    let last = text.lines().rev().find(|l| !l.trim().is_empty());
    if last.is_none_or(|l| l.trim() != "_ansiballz_main()") {
        return Err(PayloadError::Malformed {
            what: "wrapper",
            message: "it is truncated (it does not end by calling _ansiballz_main())".into(),
        });
    }
    let spans = locate(text)?;
    let args = params(&text[spans.params.clone()])?;
    let zip = zipdata(&text[spans.zipdata.clone()])?;
    check_zip(&zip, &spans.fqn, bounds)?;
    Ok(Task {
        fqn: spans.fqn,
        args,
    })
}

/// Where a wrapper keeps its data: the `ANSIBALLZ_PARAMS` literal (quotes included), the
/// `ZIPDATA` contents (inside the triple quotes), and the module `runpy` is told to run.
struct Spans {
    params: Range<usize>,
    zipdata: Range<usize>,
    fqn: String,
}

const PARAMS: &str = "ANSIBALLZ_PARAMS = ";
const ZIPDATA: &str = "ZIPDATA = \"\"\"";
const RUN_MODULE: &str = "run_module(mod_name=";

/// Each of the three exactly where the template puts it and nowhere else: one line that is
/// just `ANSIBALLZ_PARAMS = '<literal>'`, one that is `ZIPDATA = """<base64>"""`, and every
/// `run_module(mod_name=…)` naming the same module. A decoy (a second assignment, a comment
/// naming another module, code after a literal on its line) makes the wrapper malformed, so
/// what the decoder reads is what python runs.
fn locate(text: &str) -> Result<Spans, PayloadError> {
    let malformed = |what: &'static str, message: &str| PayloadError::Malformed {
        what,
        message: message.into(),
    };
    let mut params = Vec::new();
    let mut zipdata = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let indent = body.len() - body.trim_start().len();
        let start = offset + indent;
        let stmt = body.trim_start();
        if let Some(rest) = stmt.strip_prefix(PARAMS) {
            let literal = rest.trim_end();
            if literal.starts_with(['\'', '"', 'b', 'u']) {
                let at = start + PARAMS.len();
                params.push((at..at + literal.len(), literal_closes(literal)));
            }
        }
        if stmt.starts_with(ZIPDATA) {
            zipdata.push(start + ZIPDATA.len());
        }
        offset += line.len();
    }
    let (params, closed) = match params.as_slice() {
        [] => return Err(PayloadError::Missing("ANSIBALLZ_PARAMS")),
        [one] => one.clone(),
        _ => {
            return Err(malformed(
                "ANSIBALLZ_PARAMS",
                "it is assigned more than once",
            ))
        }
    };
    if !closed {
        return Err(malformed(
            "ANSIBALLZ_PARAMS",
            "its line is not one closed string literal",
        ));
    }
    let zip_start = match zipdata.as_slice() {
        [] => return Err(PayloadError::Missing("ZIPDATA")),
        [one] => *one,
        _ => return Err(malformed("ZIPDATA", "it is assigned more than once")),
    };
    let len = text[zip_start..]
        .find("\"\"\"")
        .ok_or_else(|| malformed("ZIPDATA", "not closed"))?;
    let after = &text[zip_start + len + 3..];
    if !after
        .split('\n')
        .next()
        .unwrap_or_default()
        .trim()
        .is_empty()
    {
        return Err(malformed("ZIPDATA", "code follows it on its line"));
    }
    let mut names = text
        .match_indices(RUN_MODULE)
        .map(|(at, _)| module_fqn(&text[at + RUN_MODULE.len()..]));
    let fqn = names
        .next()
        .flatten()
        .ok_or(PayloadError::Missing("module name"))?;
    if names.any(|n| n.as_deref() != Some(fqn.as_str())) {
        return Err(malformed(
            "module name",
            "run_module names more than one module",
        ));
    }
    Ok(Spans {
        params,
        zipdata: zip_start..zip_start + len,
        fqn,
    })
}

/// Whether `literal` (a line's rest) is exactly one python string literal.
fn literal_closes(literal: &str) -> bool {
    let body = literal.strip_prefix(['b', 'u']).unwrap_or(literal);
    let Some(quote) = body.chars().next() else {
        return false;
    };
    let mut escaped = false;
    for (i, c) in body.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            c if c == quote => return i + c.len_utf8() == body.len(),
            _ => {}
        }
    }
    false
}

/// The wrapper's own code: `text` with the `ZIPDATA` contents and the `ANSIBALLZ_PARAMS`
/// literal emptied, for the python analysis (what the wrapper itself does, as opposed to the
/// task it carries). `None` when the wrapper does not have them where [`locate`] requires.
pub fn wrapper_code(text: &str) -> Option<String> {
    let spans = locate(text).ok()?;
    let mut code = text.to_string();
    // The later span first, so the earlier one's offsets stay right.
    let mut edits = [(spans.params, "''"), (spans.zipdata, "")];
    edits.sort_by_key(|(span, _)| std::cmp::Reverse(span.start));
    for (span, with) in edits {
        code.replace_range(span, with);
    }
    Some(code)
}

/// The module name at the start of `rest` (after `run_module(mod_name=`): a quoted dotted name.
fn module_fqn(rest: &str) -> Option<String> {
    let quote = rest.chars().next().filter(|c| matches!(c, '\'' | '"'))?;
    let end = rest.get(1..)?.find(quote)?;
    let name = rest.get(1..1 + end)?;
    let valid = !name.is_empty()
        && name.split('.').all(|part| {
            !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
    valid.then(|| name.to_string())
}

/// The `ANSIBALLZ_PARAMS` literal: a python string literal of the JSON
/// `{"ANSIBLE_MODULE_ARGS": …}`.
fn params(literal: &str) -> Result<Map<String, Value>, PayloadError> {
    let malformed = |message: String| PayloadError::Malformed {
        what: "ANSIBALLZ_PARAMS",
        message,
    };
    let value = python_literal(literal).ok_or_else(|| malformed("not a closed string".into()))?;
    let json: Value = serde_json::from_str(&value).map_err(|e| malformed(e.to_string()))?;
    match json.get("ANSIBLE_MODULE_ARGS") {
        Some(Value::Object(args)) => Ok(args.clone()),
        _ => Err(malformed("no ANSIBLE_MODULE_ARGS object".into())),
    }
}
/// The value of a one-line python string literal (`'…'` or `"…"`, with `b`/`u` prefixes and
/// backslash escapes) at the start of `text`.
fn python_literal(text: &str) -> Option<String> {
    let text = text.strip_prefix(['b', 'u']).unwrap_or(text);
    let mut chars = text.chars();
    let quote = chars.next().filter(|c| matches!(c, '\'' | '"'))?;
    let mut out = String::new();
    let mut rest = chars.as_str();
    loop {
        let mut it = rest.chars();
        match it.next()? {
            '\n' => return None,
            c if c == quote => return Some(out),
            '\\' => {
                let (decoded, after) = escape(it.as_str())?;
                out.push(decoded);
                rest = after;
                continue;
            }
            c => out.push(c),
        }
        rest = it.as_str();
    }
}

/// One escape after a backslash: `\\ \' \" \n \r \t \xNN \uNNNN \UNNNNNNNN`.
fn escape(text: &str) -> Option<(char, &str)> {
    let mut it = text.chars();
    let c = it.next()?;
    let hex = |len: usize| -> Option<(char, &str)> {
        let digits = text.get(1..1 + len)?;
        let code = u32::from_str_radix(digits, 16).ok()?;
        Some((char::from_u32(code)?, text.get(1 + len..)?))
    };
    match c {
        'n' => Some(('\n', it.as_str())),
        'r' => Some(('\r', it.as_str())),
        't' => Some(('\t', it.as_str())),
        '\\' | '\'' | '"' => Some((c, it.as_str())),
        'x' => hex(2),
        'u' => hex(4),
        'U' => hex(8),
        _ => None,
    }
}

/// The `ZIPDATA` contents: base64.
fn zipdata(encoded: &str) -> Result<Vec<u8>, PayloadError> {
    let encoded: String = encoded
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    base64::engine::general_purpose::STANDARD
        .decode(encoded.as_bytes())
        .map_err(|e| PayloadError::Malformed {
            what: "ZIPDATA",
            message: e.to_string(),
        })
}

/// The zip opens, stays within the bounds, and holds the module `fqn` names, whose code
/// decompresses whole (its checksum verified).
fn check_zip(zip: &[u8], fqn: &str, bounds: &Bounds) -> Result<(), PayloadError> {
    let malformed = |message: String| PayloadError::Malformed {
        what: "zip",
        message,
    };
    let mut archive =
        zip::ZipArchive::new(std::io::Cursor::new(zip)).map_err(|e| malformed(e.to_string()))?;
    if archive.len() > bounds.max_entries {
        return Err(PayloadError::OverBounds(format!(
            "{} entries (at most {})",
            archive.len(),
            bounds.max_entries
        )));
    }
    let mut unpacked: u64 = 0;
    for i in 0..archive.len() {
        let entry = archive
            .by_index_raw(i)
            .map_err(|e| malformed(e.to_string()))?;
        unpacked = unpacked.saturating_add(entry.size());
    }
    if unpacked > bounds.max_unpacked {
        return Err(PayloadError::OverBounds(format!(
            "{unpacked} bytes unpacked (at most {})",
            bounds.max_unpacked
        )));
    }
    let module = format!("{}.py", fqn.replace('.', "/"));
    let package = format!("{}/__init__.py", fqn.replace('.', "/"));
    let name = [module, package]
        .into_iter()
        .find(|n| archive.index_for_name(n).is_some())
        .ok_or_else(|| malformed(format!("it does not hold the module {fqn}")))?;
    let mut entry = archive
        .by_name(&name)
        .map_err(|e| malformed(e.to_string()))?;
    let mut code = Vec::new();
    entry
        .by_ref()
        .take(bounds.max_unpacked)
        .read_to_end(&mut code)
        .map_err(|e| malformed(format!("{name}: {e}")))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_literals() {
        let cases: [(&str, Option<&str>); 7] = [
            (r#"'{"a": 1}' rest"#, Some(r#"{"a": 1}"#)),
            (r"'it\'s' x", Some("it's")),
            (r"b'x\\y'", Some(r"x\y")),
            (r"'\x41\u00e9\n'", Some("Aé\n")),
            ("'open", None),
            ("'line\nbreak'", None),
            (r"'\q'", None),
        ];
        for (text, want) in cases {
            assert_eq!(python_literal(text).as_deref(), want, "{text}");
        }
    }

    #[test]
    fn module_names() {
        let cases: [(&str, Option<&str>); 4] = [
            (
                "runpy.run_module(mod_name='ansible.modules.file', x)",
                Some("ansible.modules.file"),
            ),
            ("run_module(mod_name=\"a_b.c\")", Some("a_b.c")),
            ("run_module(mod_name='a..b')", None),
            ("run_module(mod_name=name)", None),
        ];
        for (text, want) in cases {
            let rest = &text[text.find(RUN_MODULE).unwrap() + RUN_MODULE.len()..];
            assert_eq!(module_fqn(rest).as_deref(), want, "{text}");
        }
    }
}
