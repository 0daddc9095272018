//! The analysis as the gate runs it: `parse` lowers the shell text into the IR, `interp`
//! analyses the interpreter programs found in it, and the script files those programs come
//! from are read through the caller's reader during that one pass. Wiring only.

use crate::interp::Analyser;
use crate::ir::{Analysis, Limits};
use crate::parse;

/// Analyses `text` as a shell script, interpreter programs included; no script file is read.
pub fn analyse(text: &str, limits: &Limits) -> Analysis {
    parse::analyse(text, limits, &Analyser, &mut |_: &str| None)
}

/// `analyse` with every text, plain command lines included, parsed by tree-sitter: the reference
/// the plain-line path is compared with (`tests/integration/parse_plain.rs`).
pub fn analyse_grammar_only(text: &str, limits: &Limits) -> Analysis {
    parse::analyse_grammar_only(text, limits, &Analyser, &mut |_: &str| None)
}

/// Analyses `text`, reading the script files it runs (`python3 x.py`, `./x.py`, `python3 <
/// x.py`) through `read` (the edge supplies it: bounded, regular files only), each path once,
/// at most 16 per text and three scripts deep. Pure apart from what `read` does.
pub fn analyse_reading(
    text: &str,
    limits: &Limits,
    read: &mut dyn FnMut(&str) -> Option<String>,
) -> Analysis {
    parse::analyse(text, limits, &Analyser, read)
}

/// [`analyse_reading`] for a line of an interactive session, after the session's `state` (what
/// the hook read from bash for it: see [`parse::analyse_in_session`]).
pub fn analyse_in_session(
    state: &str,
    line: &str,
    limits: &Limits,
    read: &mut dyn FnMut(&str) -> Option<String>,
) -> Analysis {
    parse::analyse_in_session(state, line, limits, &Analyser, read)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Analyses `text` with `files` readable, returning the analysis and every path asked for.
    fn reading(text: &str, files: &[(&str, &str)]) -> (Analysis, Vec<String>) {
        let mut asked = Vec::new();
        let mut read = |path: &str| {
            asked.push(path.to_string());
            files
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, t)| t.to_string())
        };
        let analysis = analyse_reading(text, &Limits::default(), &mut read);
        (analysis, asked)
    }

    fn run(next: &str) -> String {
        format!("import subprocess\nsubprocess.run(['python3', '{next}'])\n")
    }

    #[test]
    fn scripts_are_read_three_deep() {
        let (a, b, c) = (run("b.py"), run("c.py"), run("d.py"));
        let files = [
            ("a.py", a.as_str()),
            ("b.py", &b),
            ("c.py", &c),
            ("d.py", "x = 1\n"),
        ];
        let (analysis, asked) = reading("python3 a.py", &files);
        assert_eq!(asked, ["a.py", "b.py", "c.py"]);
        assert_eq!(analysis.programs.len(), 3);
    }

    #[test]
    fn a_script_that_runs_itself_is_analysed_once() {
        let selfish = format!("{}{}", run("a.py"), run("b.py"));
        let files = [("a.py", selfish.as_str()), ("b.py", &run("a.py"))];
        let (analysis, asked) = reading("python3 a.py", &files);
        assert_eq!(asked, ["a.py", "b.py"]);
        assert_eq!(analysis.programs.len(), 2);
    }

    #[test]
    fn at_most_sixteen_files_are_asked_for() {
        let text: Vec<String> = (0..20).map(|i| format!("python3 s{i}.py")).collect();
        let (_, asked) = reading(&text.join("; "), &[]);
        let want: Vec<String> = (0..16).map(|i| format!("s{i}.py")).collect();
        assert_eq!(asked, want);
    }

    #[test]
    fn a_program_on_stdin_from_a_file_is_read() {
        let files = [("job.py", "import shutil\nshutil.rmtree('/')\n")];
        for text in ["python3 < job.py", "python3 - < job.py"] {
            let (analysis, asked) = reading(text, &files);
            assert_eq!(asked, ["job.py"], "{text}");
            assert_eq!(analysis.programs.len(), 1, "{text}");
        }
    }

    #[test]
    fn without_a_reader_nothing_is_read() {
        let analysis = analyse("python3 a.py; ./b.py", &Limits::default());
        assert!(analysis.scripts.is_empty());
        assert!(analysis.programs.is_empty());
    }
}
