//! The check server's wire format, pure. A request is `NONCE SP FLAG SP TEXT NUL`. The flag is
//! `-` for one simple command (the text is bash's `$BASH_COMMAND`, which cannot contain NUL),
//! `approved` for one of the line the server last approved (a held verdict of it is approved as
//! the line was), `guard` for one the hook has already refused itself (it touches the hook's own
//! names or channel) and only wants decided and recorded, or `line` for a whole submitted line: the text
//! is then what `fc -ln -0` printed for the line's history entry (the hook runs it in POSIX
//! mode, where fc prints a tab before the text and a newline after it), which [`line_text`]
//! takes apart. A reply is one line,
//! `NONCE SP allow`, `NONCE SP approved` (allowed by an approval of its held verdict) or
//! `NONCE SP deny SP REASON`; to a line it may first be `NONCE SP need SP TOKENS`, which the
//! hook answers with `NONCE SP state SP TEXT NUL` (the session's state the line is judged with)
//! before the line's own reply; and before a confirmation is asked on the terminal,
//! `NONCE SP wait SP SECONDS` (the hook waits that much longer for the reply). The nonce is
//! fresh per request, so a reply cannot be replayed or answered out of turn; a reply to an
//! earlier request (one abandoned by Ctrl-C) is skipped by the hook.

/// What the server answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Allow,
    /// Allowed by an approval of its held verdict.
    Approved,
    Deny(String),
    /// A confirmation is being asked on the terminal: the reply may take this many seconds.
    Wait(u64),
    /// For a line: what the hook is to read from bash and send back in a `state` request with
    /// the same nonce before the line is decided (see [`need_tokens`]).
    Need(Vec<String>),
}

/// What a request asks about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// One simple command, as the DEBUG trap sees it.
    Command,
    /// A whole submitted line, before any part of it runs.
    Line,
    /// The session's state for the line just asked about, in answer to its `need` reply: what
    /// bash printed for `declare -p` of the variables, `declare -f` of the functions and
    /// `set --` with the positional parameters (`printf %q`).
    State,
}

/// One parsed request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request<'a> {
    pub nonce: &'a str,
    pub unit: Unit,
    /// The hook refused the command itself.
    pub hook_refused: bool,
    /// The hook says the command is part of the line the server approved last.
    pub of_approved_line: bool,
    /// bash's command number when the request was made (`FLAG:N`): the line's, which nothing
    /// the user runs can change (`\#`); the server holds each command to the line it judged.
    pub number: Option<u64>,
    pub text: String,
}

/// Parses a request (without its NUL). The nonce is 1 to 40 ASCII digits and the flag `-`,
/// `approved`, `guard`, `line` or `state`, optionally followed by `:N`, bash's command number
/// (1 to 20 digits); anything else is malformed.
pub fn parse_request(request: &[u8]) -> Option<Request<'_>> {
    let mut parts = request.splitn(3, |b| *b == b' ');
    let nonce = std::str::from_utf8(parts.next()?).ok()?;
    if nonce.is_empty() || nonce.len() > 40 || !nonce.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (flag, number) = match parts.next()?.splitn(2, |b| *b == b':').collect::<Vec<_>>()[..] {
        [flag] => (flag, None),
        [flag, n] if !n.is_empty() && n.len() <= 20 && n.iter().all(u8::is_ascii_digit) => {
            (flag, std::str::from_utf8(n).ok()?.parse().ok())
        }
        _ => return None,
    };
    let (unit, hook_refused, of_approved_line) = match flag {
        b"-" => (Unit::Command, false, false),
        b"approved" => (Unit::Command, false, true),
        b"guard" => (Unit::Command, true, false),
        b"line" => (Unit::Line, false, false),
        b"state" => (Unit::State, false, false),
        _ => return None,
    };
    let text = String::from_utf8_lossy(parts.next()?).into_owned();
    Some(Request {
        nonce,
        unit,
        hook_refused,
        of_approved_line,
        number,
        text,
    })
}

/// The line itself from `fc -ln -0`'s output in POSIX mode: the leading tab and the newlines
/// after it removed. `None` when the output is not in that shape or holds no command (no
/// history entry, an error): the line cannot be judged.
pub fn line_text(fc_output: &str) -> Option<&str> {
    let rest = fc_output.strip_prefix('\t')?;
    let text = rest.trim_end_matches('\n');
    (!text.trim().is_empty()).then_some(text)
}

/// One reply line, newline-terminated; the reason is kept on one line.
pub fn format_reply(nonce: &str, reply: &Reply) -> String {
    match reply {
        Reply::Allow => format!("{nonce} allow\n"),
        Reply::Approved => format!("{nonce} approved\n"),
        Reply::Wait(seconds) => format!("{nonce} wait {seconds}\n"),
        Reply::Deny(reason) => {
            let reason: String = reason
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            format!("{nonce} deny {reason}\n")
        }
        Reply::Need(tokens) => format!("{nonce} need {}\n", tokens.join(" ")),
    }
}

/// Most names one `need` reply asks for, of each kind.
const MAX_NEEDED: usize = 64;

/// What the hook is to read from bash for `line`, as `need` tokens: `$NAME` for each variable
/// the line names (`$NAME`, `${NAME…}`, `${#NAME}`, `${!NAME}`), `@` when it uses the
/// positional parameters, and `NAME` for each of `commands` (the line's command names) that
/// could be a function. Every token is safe as a word for the hook (`[A-Za-z0-9_.:+%@-]`, not
/// starting with `-`); at most [`MAX_NEEDED`] of each kind, in order of first use.
pub fn need_tokens<'a>(line: &str, commands: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut vars: Vec<String> = Vec::new();
    let mut positional = false;
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        i += 1;
        if bytes.get(i) == Some(&b'{') {
            i += 1;
            if matches!(bytes.get(i), Some(b'#' | b'!')) {
                i += 1;
            }
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        let name = &line[start..i];
        match bytes.get(start) {
            Some(b) if b.is_ascii_digit() => positional = true,
            Some(b'@' | b'*' | b'#') if name.is_empty() => positional = true,
            _ => {}
        }
        if !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && vars.len() < MAX_NEEDED
            && !vars.iter().any(|v| v == name)
        {
            vars.push(name.to_string());
        }
    }
    let mut tokens: Vec<String> = vars.into_iter().map(|v| format!("${v}")).collect();
    if positional {
        tokens.push("@".into());
    }
    let mut functions = 0;
    for name in commands {
        let safe = !name.is_empty()
            && !name.starts_with('-')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.:+%@-".contains(c));
        if safe && functions < MAX_NEEDED && !tokens.iter().any(|t| t == name) && name != "@" {
            tokens.push(name.to_string());
            functions += 1;
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests() {
        let r = |nonce, unit, hook_refused, text: &str| {
            Some(Request {
                nonce,
                unit,
                hook_refused,
                of_approved_line: false,
                number: None,
                text: text.into(),
            })
        };
        let (c, l) = (Unit::Command, Unit::Line);
        assert_eq!(parse_request(b"12 - ls -l"), r("12", c, false, "ls -l"));
        assert_eq!(parse_request(b"7 - "), r("7", c, false, ""));
        assert_eq!(
            parse_request(b"7 guard exec 63<f"),
            r("7", c, true, "exec 63<f")
        );
        assert_eq!(
            parse_request(b"7 - cat <<E\nx\nE\n"),
            r("7", c, false, "cat <<E\nx\nE\n")
        );
        assert_eq!(
            parse_request(b"8 line \t a; b\n"),
            r("8", l, false, "\t a; b\n")
        );
        assert_eq!(
            parse_request(b"9 state declare -- x=\"1\"\n"),
            r("9", Unit::State, false, "declare -- x=\"1\"\n")
        );
        let of_line = parse_request(b"7 approved rm -r d").unwrap();
        assert_eq!((of_line.unit, of_line.hook_refused), (c, false));
        assert!(of_line.of_approved_line);
        assert_eq!(of_line.text, "rm -r d");
        assert_eq!(parse_request(b"8 line-guard a"), None);
        assert_eq!(parse_request(b"8 approved-line a"), None);
        let numbered = |r: &[u8]| parse_request(r).map(|r| (r.unit, r.number));
        assert_eq!(numbered(b"7 -:12 ls"), Some((c, Some(12))));
        assert_eq!(numbered(b"7 line:3 \tls\n"), Some((l, Some(3))));
        assert_eq!(numbered(b"7 -: ls"), None);
        assert_eq!(numbered(b"7 -:1x ls"), None);
        assert_eq!(numbered(b"7 -:1:2 ls"), None);
        assert_eq!(parse_request(b"x1 - ls"), None);
        assert_eq!(parse_request(b" - ls"), None);
        assert_eq!(parse_request(b"123"), None);
        assert_eq!(parse_request(b"123 -"), None);
        assert_eq!(parse_request(b"123 allow ls"), None);
    }

    #[test]
    fn line_texts() {
        assert_eq!(line_text("\techo a;  b\n"), Some("echo a;  b"));
        assert_eq!(line_text("\t*glob\n"), Some("*glob"));
        assert_eq!(line_text("\t lead\n"), Some(" lead"));
        assert_eq!(line_text("\tcat <<E\nx\nE\n\n"), Some("cat <<E\nx\nE"));
        assert_eq!(line_text(""), None);
        assert_eq!(line_text("\t \n"), None);
        assert_eq!(line_text("echo a\n"), None);
    }

    #[test]
    fn needs() {
        let need = |line, cmds: &[&'static str]| need_tokens(line, cmds.iter().copied());
        assert_eq!(need("ls -la", &["ls"]), ["ls"]);
        assert_eq!(
            need("dd of=$dev ${disk[1]} ${#n} ${!ref} $x$x", &["dd"]),
            ["$dev", "$disk", "$n", "$ref", "$x", "dd"]
        );
        assert_eq!(need("echo $1 \"$@\"", &["echo"]), ["@", "echo"]);
        assert_eq!(need("echo ${10} $# $? $$ $!", &["echo"]), ["@", "echo"]);
        assert_eq!(need("echo 'it costs $5'", &["echo"]), ["@", "echo"]);
        // Only safe words for the hook: no path, option, expansion or quoting.
        assert_eq!(
            need(
                "x",
                &["/bin/ls", "-x", "a b", "$(x)", "my-fn", "pkg.sub:run"]
            ),
            ["my-fn", "pkg.sub:run"]
        );
        let many: String = (0..100).map(|i| format!("$v{i} ")).collect();
        assert_eq!(need(&many, &[]).len(), MAX_NEEDED);
    }

    #[test]
    fn replies() {
        assert_eq!(format_reply("5", &Reply::Allow), "5 allow\n");
        assert_eq!(format_reply("5", &Reply::Approved), "5 approved\n");
        assert_eq!(format_reply("5", &Reply::Wait(60)), "5 wait 60\n");
        assert_eq!(
            format_reply("5", &Reply::Need(vec!["$x".into(), "@".into(), "f".into()])),
            "5 need $x @ f\n"
        );
        assert_eq!(
            format_reply("5", &Reply::Deny("a\nb".into())),
            "5 deny a b\n"
        );
    }
}
