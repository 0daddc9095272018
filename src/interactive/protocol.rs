//! The check server's wire format, pure. A request is `NONCE SP FLAG SP TEXT NUL`: the text is
//! bash's `$BASH_COMMAND` (which cannot contain NUL); the flag is `-`, or `guard` when the hook
//! has already refused the command itself (it touches the hook's own names or channel) and
//! only wants it decided and recorded. A reply is one line, `NONCE SP allow` or
//! `NONCE SP deny SP REASON`. The nonce is fresh per request, so a reply cannot be replayed or
//! answered out of turn.

/// What the server answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Allow,
    Deny(String),
}

/// One parsed request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request<'a> {
    pub nonce: &'a str,
    /// The hook refused the command itself.
    pub hook_refused: bool,
    pub text: String,
}

/// Parses a request (without its NUL). The nonce is 1 to 40 ASCII digits and the flag `-` or
/// `guard`; anything else is malformed.
pub fn parse_request(request: &[u8]) -> Option<Request<'_>> {
    let mut parts = request.splitn(3, |b| *b == b' ');
    let nonce = std::str::from_utf8(parts.next()?).ok()?;
    if nonce.is_empty() || nonce.len() > 40 || !nonce.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hook_refused = match parts.next()? {
        b"-" => false,
        b"guard" => true,
        _ => return None,
    };
    let text = String::from_utf8_lossy(parts.next()?).into_owned();
    Some(Request {
        nonce,
        hook_refused,
        text,
    })
}

/// One reply line, newline-terminated; the reason is kept on one line.
pub fn format_reply(nonce: &str, reply: &Reply) -> String {
    match reply {
        Reply::Allow => format!("{nonce} allow\n"),
        Reply::Deny(reason) => {
            let reason: String = reason
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            format!("{nonce} deny {reason}\n")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests() {
        let r = |nonce, hook_refused, text: &str| {
            Some(Request {
                nonce,
                hook_refused,
                text: text.into(),
            })
        };
        assert_eq!(parse_request(b"12 - ls -l"), r("12", false, "ls -l"));
        assert_eq!(parse_request(b"7 - "), r("7", false, ""));
        assert_eq!(
            parse_request(b"7 guard exec 63<f"),
            r("7", true, "exec 63<f")
        );
        assert_eq!(
            parse_request(b"7 - cat <<E\nx\nE\n"),
            r("7", false, "cat <<E\nx\nE\n")
        );
        assert_eq!(parse_request(b"x1 - ls"), None);
        assert_eq!(parse_request(b" - ls"), None);
        assert_eq!(parse_request(b"123"), None);
        assert_eq!(parse_request(b"123 -"), None);
        assert_eq!(parse_request(b"123 allow ls"), None);
    }

    #[test]
    fn replies() {
        assert_eq!(format_reply("5", &Reply::Allow), "5 allow\n");
        assert_eq!(
            format_reply("5", &Reply::Deny("a\nb".into())),
            "5 deny a b\n"
        );
    }
}
