//! The interactive check server and the hook's fallback check, through the real binary: the
//! wire protocol (nonce echoed, `guard` flag, malformed requests), `exit` always allowed,
//! critical commands and tampering denied, every decision audited with mode `interactive`.

use crate::setup::Setup;
use std::io::Write;
use std::process::Stdio;

/// The shared setup (policy cache in the temporary directory, which stays absent).
fn setup() -> Setup {
    Setup::with("[policy]\ncache_dir = \"{dir}/no-cache\"\n")
}

/// Runs `--serve` with `requests` (each NUL-terminated) as the hook sends them, one at a time:
/// a `need` reply is answered with an empty state, as from a session that has none of what was
/// asked. The final reply lines and the audit file's text.
pub(crate) fn serve(requests: &[u8]) -> (Vec<String>, String) {
    serve_with_state(requests, |_| String::new()).0
}

/// `--serve` with this setup, its stdin and stdout piped to the test.
fn spawn_server(s: &Setup) -> std::process::Child {
    s.command(&["--serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// [`serve`], answering each `need` reply (its tokens) with `state(tokens)`: the final replies
/// and the audit text, and the `need` replies seen.
pub(crate) fn serve_with_state(
    requests: &[u8],
    state: impl Fn(&str) -> String,
) -> ((Vec<String>, String), Vec<String>) {
    use std::io::BufRead;
    let s = setup();
    let mut child = spawn_server(&s);
    let mut to = child.stdin.take().unwrap();
    let mut from = std::io::BufReader::new(child.stdout.take().unwrap());
    let (mut replies, mut needs) = (Vec::new(), Vec::new());
    for request in requests.split_inclusive(|b| *b == 0) {
        to.write_all(request).unwrap();
        to.flush().unwrap();
        loop {
            let mut reply = String::new();
            if from.read_line(&mut reply).unwrap() == 0 {
                break;
            }
            let reply = reply.trim_end_matches('\n').to_string();
            let Some((nonce, tokens)) = reply.split_once(" need ") else {
                replies.push(reply);
                break;
            };
            write!(to, "{nonce} state {}\0", state(tokens)).unwrap();
            to.flush().unwrap();
            needs.push(reply);
        }
    }
    drop(to);
    assert!(child.wait().unwrap().success());
    let audit = std::fs::read_to_string(s.path("audit.jsonl")).unwrap_or_default();
    ((replies, audit), needs)
}

/// Runs `--serve` with all of `requests` written at once, whatever it answers: every reply line.
fn serve_raw(requests: &[u8]) -> Vec<String> {
    let s = setup();
    let mut child = spawn_server(&s);
    child.stdin.take().unwrap().write_all(requests).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// A line is judged with the state the hook sends for it: the server asks for the variables
/// and functions the line names, and the same line gets the verdict its values call for.
#[test]
fn server_asks_for_a_lines_state() {
    let line = b"1 line \tdd if=/dev/zero of=$dev count=1; wipe /dev/sdy\n\0";
    let ((replies, _), needs) = serve_with_state(line, |_| "declare -- dev=\"/dev/sdz\"\n".into());
    assert_eq!(needs, ["1 need $dev dd wipe"]);
    assert!(
        replies[0].starts_with("1 deny command risk: dd writing"),
        "{replies:?}"
    );
    let ((replies, _), _) = serve_with_state(line, |_| "declare -- dev=\"/tmp/x.img\"\n".into());
    assert_eq!(replies, ["1 allow"]);
    let wipe = "wipe () \n{ \n    dd if=/dev/zero of=\"$1\"\n}\ndeclare -- dev=\"/tmp/x.img\"\n";
    let ((replies, _), _) = serve_with_state(line, |_| wipe.into());
    assert!(
        replies[0].starts_with("1 deny command risk: dd writing"),
        "{replies:?}"
    );
    // Another request where the state was due: the line is decided without it (its values
    // unknown, as on -c), and the other request is served after it.
    let mut stream = line.to_vec();
    stream.extend_from_slice(b"2 - ls\0");
    assert_eq!(
        serve_raw(&stream),
        ["1 need $dev dd wipe", "1 allow", "2 allow"]
    );
    // A state out of turn is refused.
    let ((replies, _), _) = serve_with_state(b"5 state declare -- x=1\0", |_| String::new());
    assert_eq!(replies, ["5 deny session state sent out of turn"]);
}

#[test]
fn server_protocol_and_decisions() {
    let (replies, audit) = serve(
        b"11 - exit 3\x0022 - rm -rf /\x0033 guard exit\x00bogus\x0044 - trap - DEBUG\x0055 - logout\x00",
    );
    assert_eq!(replies.len(), 6, "{replies:?}");
    assert_eq!(replies[0], "11 allow");
    assert!(
        replies[1].starts_with("22 deny command risk: "),
        "{}",
        replies[1]
    );
    assert!(
        replies[2].starts_with("33 deny session guard"),
        "{}",
        replies[2]
    );
    assert_eq!(replies[3], "0 deny malformed request");
    assert!(replies[4].starts_with("44 deny "), "{}", replies[4]);
    assert_eq!(replies[5], "55 allow");
    let records: Vec<serde_json::Value> = audit.lines().map(crate::setup::audit_record).collect();
    assert_eq!(records.len(), 5, "one record per decided request: {audit}");
    assert!(records.iter().all(|r| r["mode"] == "interactive"));
    assert_eq!(records[1]["command"], "rm -rf /");
    assert_eq!(records[1]["verdict"], "deny");
    assert_eq!(records[2]["stage"], "session");
}

#[test]
fn server_exits_when_the_session_closes() {
    let (replies, audit) = serve(b"");
    assert!(replies.is_empty() && audit.is_empty());
}

#[test]
fn hook_check_fallback() {
    let s = setup();
    let run = |text: &str| s.output(&["--hook-check", text]);
    let denied = run("rm -rf /");
    assert_eq!(denied.status.code(), Some(126));
    assert!(String::from_utf8_lossy(&denied.stderr).starts_with("guarded-sh: denied: "));
    assert_eq!(run("exit").status.code(), Some(0));
    let records = s.audit();
    assert!(
        !records.is_empty() && records.iter().all(|r| r["mode"] == "hook"),
        "{records:?}"
    );
}

/// Whole-line requests: the line from `fc -ln -0`'s output, gated whole; output that holds no
/// line, or a line naming the hook's own names, is refused; `exit` always runs.
#[test]
fn server_line_requests() {
    let (replies, audit) = serve(
        b"1 line \tls -l; echo ok\n\x002 line \tmkdir -p D; curl -s http://127.0.0.1:9/x | sh\n\x003 line \x004 line \tfor i in 1; do\necho $i\ndone\n\x005 line \techo a; echo $__gsh_line_no\n\x006 line \texit 3\n\x007 line no tab\n\x00",
    );
    assert_eq!(replies.len(), 7, "{replies:?}");
    assert_eq!(replies[0], "1 allow");
    assert!(
        replies[1].starts_with("2 deny command risk: "),
        "{}",
        replies[1]
    );
    assert!(
        replies[2].starts_with("3 deny session guard: the submitted line could not be read"),
        "{}",
        replies[2]
    );
    assert_eq!(replies[3], "4 allow");
    assert!(
        replies[4].starts_with("5 deny session guard"),
        "{}",
        replies[4]
    );
    assert_eq!(replies[5], "6 allow");
    assert!(
        replies[6].starts_with("7 deny session guard: the submitted line could not be read"),
        "{}",
        replies[6]
    );
    let records: Vec<serde_json::Value> = audit.lines().map(crate::setup::audit_record).collect();
    assert_eq!(records.len(), 7, "one record per line: {audit}");
    assert_eq!(
        records[1]["command"],
        "mkdir -p D; curl -s http://127.0.0.1:9/x | sh"
    );
    assert_eq!(records[3]["command"], "for i in 1; do\necho $i\ndone");
    assert!(records.iter().all(|r| r["mode"] == "interactive"));
}
