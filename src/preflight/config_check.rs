//! `--validate`'s configuration half: the file loaded by enforcement's own `config::load`, every
//! type error and unknown key (not only the first one the loader stops at), who besides root
//! could write it, and the paths and names it gives (shells, session hook, cache and audit
//! directories, the host-variables file, read by the gate's own `target::resolve`, the
//! approvers group).

use super::provenance::Lines;
use super::{place, writers, Problem};
use crate::config::{self, Config, ConfigError, Located};
use crate::context::Context;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Most problems one file's text is searched for (each one costs a parse).
const MAX_PARSE_PROBLEMS: usize = 32;

/// What the configuration check found.
pub(crate) struct Checked {
    /// The configuration enforcement would run with, when it loads.
    pub config: Option<Config>,
    /// Each key's line in the file.
    pub lines: Lines,
    pub problems: Vec<Problem>,
}

/// Checks the configuration at `located` (loaded as root loads it: the trust rule is checked
/// for every user instead, by [`writers`]).
pub(crate) fn check(ctx: &Context, located: &Located) -> Checked {
    let path = located.path.as_path();
    let mut problems = Vec::new();
    if path.exists() {
        problems.extend(writers::check(path, "the configuration file"));
    }
    let text = read_text(path);
    let lines = Lines::of(text.as_deref().unwrap_or_default());
    let config = match config::load(located, 0, &[]) {
        Ok(config) => Some(config),
        Err(ConfigError::Malformed { .. }) if text.is_some() => {
            problems.extend(malformed(text.as_deref().unwrap_or_default(), path));
            None
        }
        Err(e) => {
            let mut problem = problem_of(&e, path);
            // An invalid value names its key first (`shells.sh must be …`): give its line.
            if let ConfigError::Invalid { message, .. } = &e {
                let key = message.split_whitespace().next().unwrap_or_default();
                if let Some(line) = lines.line(key) {
                    problem.place = Some(place(path, Some(line)));
                }
            }
            problems.push(problem);
            None
        }
    };
    if let Some(config) = &config {
        problems.extend(paths(ctx, config, &lines, path));
    }
    Checked {
        config,
        lines,
        problems,
    }
}

/// The text of the configuration file, when it is a regular file within the loader's bound.
pub(crate) fn read_text(path: &Path) -> Option<String> {
    let max = usize::try_from(config::MAX_BYTES).unwrap_or(usize::MAX);
    let bytes = crate::bounded_read::regular_file(path, max).ok()?;
    String::from_utf8(bytes).ok()
}

/// A loader error as one problem line (its file, and line where it has one).
pub(crate) fn problem_of(error: &ConfigError, path: &Path) -> Problem {
    let text = error.to_string();
    match error {
        ConfigError::Malformed {
            path,
            line,
            message,
            ..
        } => Problem::new(
            Some(place(path, Some(*line))),
            message.clone(),
            error.reason_id(),
        ),
        _ => {
            let prefix = format!("{}: ", path.display());
            let message = text.strip_prefix(&prefix).unwrap_or(&text).to_string();
            Problem::new(Some(path.display().to_string()), message, error.reason_id())
        }
    }
}

/// Every type error and unknown key of `text` (the loader stops at the first): each problem's
/// line is blanked (a table header's whole table) and the text parsed again, until it parses,
/// a syntax error is met (reported, and the search ends: what follows it cannot be trusted),
/// or [`MAX_PARSE_PROBLEMS`] are found.
fn malformed(text: &str, path: &Path) -> Vec<Problem> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut problems = Vec::new();
    while problems.len() < MAX_PARSE_PROBLEMS {
        let current = lines.join("\n");
        let (line, message) = match config::parse(&current, path) {
            Ok(_) => break,
            Err(ConfigError::Malformed { line, message, .. }) => (line, message),
            Err(other) => {
                problems.push(problem_of(&other, path));
                break;
            }
        };
        problems.push(Problem::new(
            Some(place(path, Some(line))),
            message.clone(),
            "config.malformed",
        ));
        let semantic = [
            "unknown field",
            "invalid type",
            "invalid value",
            "missing field",
        ]
        .iter()
        .any(|start| message.starts_with(start));
        if !semantic || !blank(&mut lines, line) {
            break;
        }
    }
    // The loader meets them in its field order; a reader wants the file's.
    problems.sort_by_key(|p| {
        p.place
            .as_deref()
            .and_then(|p| p.rsplit(':').next())
            .and_then(|l| l.parse::<usize>().ok())
    });
    problems
}

/// Blanks line `line` (1-based) of `lines`, and for a table header every line of its table;
/// false when there was nothing left to blank there.
fn blank(lines: &mut [String], line: usize) -> bool {
    let Some(index) = line.checked_sub(1) else {
        return false;
    };
    let Some(first) = lines.get(index) else {
        return false;
    };
    if first.trim().is_empty() {
        return false;
    }
    let header = first.trim_start().starts_with('[');
    for (n, text) in lines.iter_mut().enumerate().skip(index) {
        if n > index && (!header || text.trim_start().starts_with('[')) {
            break;
        }
        text.clear();
    }
    true
}

/// The paths the configuration names that enforcement would use: they must exist and be of
/// the right kind, and be written by root alone where enforcement checks that.
fn paths(ctx: &Context, config: &Config, lines: &Lines, file: &Path) -> Vec<Problem> {
    let at = |key: &str| Some(place(file, lines.line(key)));
    let origin = |key: &str| match lines.line(key) {
        Some(_) => String::new(),
        None => " (the default)".to_string(),
    };
    let mut problems = Vec::new();
    for (key, shell) in config.shell_paths() {
        let shown = format!("{key} = {}{}", shell.display(), origin(key));
        match std::fs::metadata(shell) {
            Err(e) => problems.push(Problem::new(
                at(key),
                format!("{shown}: {e}"),
                "config.shell_missing",
            )),
            Ok(m) if !m.is_file() || m.permissions().mode() & 0o111 == 0 => {
                problems.push(Problem::new(
                    at(key),
                    format!("{shown}: not an executable file"),
                    "config.shell_not_executable",
                ))
            }
            Ok(_) => {
                if let Err(e) = crate::exec::refuse_self(shell, key) {
                    problems.push(Problem::new(at(key), e.to_string(), e.reason_id()));
                }
            }
        }
    }
    let hook = &config.interactive.hook;
    let shown = format!(
        "interactive.hook = {}{}",
        hook.display(),
        origin("interactive.hook")
    );
    if !hook.is_file() {
        problems.push(Problem::new(
            at("interactive.hook"),
            format!("{shown}: missing or not a regular file (login and interactive sessions are refused)"),
            "session.hook_missing",
        ));
    } else {
        problems.extend(writers::check(hook, "interactive.hook"));
    }
    if let Some(cache) = &config.policy.cache_dir {
        if cache.exists() && !cache.is_dir() {
            problems.push(Problem::new(
                at("policy.cache_dir"),
                format!("policy.cache_dir = {}: not a directory", cache.display()),
                "policy.cache_not_dir",
            ));
        } else if cache.is_dir() {
            problems.extend(writers::check(cache, "policy.cache_dir"));
        }
    }
    if let Some(audit) = &config.audit.file {
        problems.extend(audit_file(audit, at("audit.file")));
    }
    if let Some(group) = &config.approval.group {
        if !matches!(nix::unistd::Group::from_name(group), Ok(Some(_))) {
            problems.push(Problem::new(
                at("approval.group"),
                format!(
                    "approval.group = {group}: no such group (nobody could approve a held command)"
                ),
                "approval.group_missing",
            ));
        }
    }
    if let Some(host_vars) = &config.target.host_vars_file {
        if let Err(failure) = crate::target::resolve(ctx, config, &Default::default()) {
            problems.push(Problem::new(
                at("target.host_vars_file"),
                failure.message,
                failure.reason_id,
            ));
        } else {
            problems.extend(writers::check(host_vars, "target.host_vars_file"));
        }
    }
    problems
}

/// The audit file: its directory must exist and be root's alone; the file, where it exists,
/// must be a regular file and not a link (`audit::file`'s rule).
fn audit_file(file: &Path, at: Option<String>) -> Vec<Problem> {
    let dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return vec![Problem::new(
            at,
            format!(
                "audit.file = {}: its directory {} does not exist",
                file.display(),
                dir.display()
            ),
            "audit.file.dir_missing",
        )];
    }
    let mut problems: Vec<Problem> = writers::check(dir, "the audit file's directory")
        .into_iter()
        .collect();
    match std::fs::symlink_metadata(file) {
        Ok(m) if m.file_type().is_symlink() => problems.push(Problem::new(
            at,
            format!(
                "audit.file = {}: is a symbolic link (never followed)",
                file.display()
            ),
            "audit.file.symlink",
        )),
        Ok(m) if !m.is_file() => problems.push(Problem::new(
            at,
            format!("audit.file = {}: not a regular file", file.display()),
            "audit.file.not_regular",
        )),
        _ => {}
    }
    problems
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn every_semantic_problem_is_found() {
        let text = "[shells]\nsh = 3\nnope = 1\n[limits]\nmax_bytes = \"x\"\n[wrong]\na = 1\nb = 2\n[policy]\nenabled = 1\n";
        let lines: Vec<(Option<String>, &str)> = malformed(text, Path::new("c"))
            .iter()
            .map(|p| (p.place.clone(), p.reason_id))
            .collect();
        let want: Vec<(Option<String>, &str)> = [2, 3, 5, 6, 10]
            .iter()
            .map(|n| (Some(format!("c:{n}")), "config.malformed"))
            .collect();
        assert_eq!(lines, want);
    }

    #[test]
    fn a_syntax_error_ends_the_search() {
        let problems = malformed("[shells]\nsh = \n[nope]\n", Path::new("c"));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].place.as_deref(), Some("c:2"));
    }
}
