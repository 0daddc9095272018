//! Commands that run an argv once per input item, with arguments only known at run time:
//! `xargs` (filled from static text piped into it), `parallel` (`:::` inputs) and
//! `find -exec`/`-execdir`/`-ok`.

use super::{argv, joined, skip_options, Inner};
use crate::ir::{piped_text, Analysis, Stdin, Via, Word};
use crate::parse::word::split_words;

/// The argument words `xargs` appends, when static text is piped into it.
pub(super) fn xargs_input(stdin: &Stdin, analysis: &Analysis) -> Vec<Word> {
    piped_text(stdin, analysis)
        .map(|t| split_words(&t).iter().map(|w| Word::literal(w)).collect())
        .unwrap_or_default()
}

pub(super) fn xargs(args: &[Word], stdin: &Stdin, analysis: &Analysis) -> Vec<Inner> {
    let replace = args.iter().enumerate().find_map(|(k, w)| {
        let v = w.value()?;
        match v {
            "-I" | "--replace" => args.get(k + 1).and_then(Word::value).map(str::to_string),
            "-i" => Some("{}".to_string()),
            _ => v
                .strip_prefix("-I")
                .or_else(|| v.strip_prefix("--replace="))
                .filter(|r| !r.is_empty())
                .map(str::to_string),
        }
    });
    let at = skip_options(
        args,
        "IiLlnPsadEe",
        &[
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--arg-file",
            "--delimiter",
            "--eof",
            "--replace",
            "--process-slot-var",
        ],
    );
    if at >= args.len() {
        return Vec::new();
    }
    let input = xargs_input(stdin, analysis);
    let mut words: Vec<Word> = args.get(at..).unwrap_or_default().to_vec();
    match (&replace, input.first()) {
        (Some(r), Some(first)) => {
            for w in &mut words {
                if let (Some(v), Some(with)) = (w.value(), first.value()) {
                    if v.contains(r.as_str()) {
                        *w = Word::literal(&v.replace(r.as_str(), with));
                    }
                }
            }
        }
        (None, _) => words.extend(input),
        _ => {}
    }
    argv("xargs", &words, 0, true)
}

pub(super) fn parallel(args: &[Word]) -> Vec<Inner> {
    let at = skip_options(
        args,
        "jSInNxXE",
        &["--jobs", "--sshlogin", "--results", "--joblog"],
    );
    let end = args
        .iter()
        .position(|w| matches!(w.value(), Some(":::" | "::::" | ":::+" | "::::+")))
        .unwrap_or(args.len());
    let inputs: Vec<Word> = args
        .get(end..)
        .unwrap_or_default()
        .iter()
        .filter(|w| !matches!(w.value(), Some(":::" | "::::" | ":::+" | "::::+")))
        .cloned()
        .collect();
    let words = args.get(at..end).unwrap_or_default();
    if words.len() == 1 && words[0].value().is_some_and(|v| v.contains(' ')) {
        let mut code = words.to_vec();
        code.extend(inputs);
        return vec![joined(Via::Shell("parallel".into()), &code, false)];
    }
    let mut words = words.to_vec();
    words.extend(inputs);
    argv("parallel", &words, 0, true)
}

pub(super) fn find(args: &[Word]) -> Vec<Inner> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if matches!(
            args[i].value(),
            Some("-exec" | "-execdir" | "-ok" | "-okdir")
        ) {
            let start = i + 1;
            let mut end = start;
            while end < args.len() && !matches!(args[end].value(), Some(";" | "+")) {
                end += 1;
            }
            let words: Vec<Word> = args[start..end]
                .iter()
                .map(|w| {
                    if w.value() == Some("{}") {
                        Word::unknown("{}")
                    } else {
                        w.clone()
                    }
                })
                .collect();
            out.extend(argv("find -exec", &words, 0, true));
            i = end;
        }
        i += 1;
    }
    out
}
