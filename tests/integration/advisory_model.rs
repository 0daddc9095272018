//! The advisory model against a local HTTP server on 127.0.0.1 that plays an OpenAI-compatible
//! endpoint: a good answer, JSON inside prose, a chunked answer, malformed output, a slow answer
//! past the timeout, an error status, nothing listening. In every case the verdict, the exit
//! status and every other line are the same as without the advisory; the shell surface never
//! asks the model at all.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::setup::text;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug)]
enum Model {
    Good,
    Prose,
    Chunked,
    Malformed,
    Slow,
    Error,
}

const ANSWER: &str = r#"{"risk": "high", "reasons": ["deletes_files", "recursive"], "explanation": "Deletes the app cache recursively."}"#;

fn chat(content: &str) -> String {
    serde_json::json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}).to_string()
}

/// A one-behaviour model server; records every request body it receives.
struct Server {
    port: u16,
    requests: Arc<Mutex<Vec<(String, String)>>>,
}

impl Server {
    fn start(model: Model) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let seen = Arc::clone(&seen);
                std::thread::spawn(move || serve(stream, model, &seen));
            }
        });
        Server { port, requests }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }
}

fn serve(stream: TcpStream, model: Model, seen: &Mutex<Vec<(String, String)>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    reader.read_line(&mut request_line).unwrap();
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" || line.is_empty() {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    seen.lock().unwrap().push((
        request_line.trim().to_string(),
        String::from_utf8(body).unwrap(),
    ));
    let mut stream = stream;
    let ok = |body: &str| {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let response = match model {
        Model::Good => ok(&chat(ANSWER)),
        Model::Prose => ok(&chat(&format!(
            "Sure! Here is my classification:\n```json\n{ANSWER}\n```\nStay safe."
        ))),
        Model::Chunked => {
            let body = chat(ANSWER);
            let (a, b) = body.split_at(body.len() / 2);
            format!("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n", a.len(), b.len())
        }
        Model::Malformed => ok(&chat(
            "I think this command is probably risky, but I am not sure.",
        )),
        Model::Slow => {
            std::thread::sleep(Duration::from_secs(4));
            ok(&chat(ANSWER))
        }
        Model::Error => {
            "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 5\r\n\r\nerror".to_string()
        }
    };
    let _ = stream.write_all(response.as_bytes());
}

/// The shared setup with target `prod-1` and a short advisory timeout.
struct Setup {
    base: crate::setup::Setup,
}

impl Setup {
    fn new() -> Setup {
        let base = crate::setup::Setup::with(
            "[policy]\nallow_env_dir = false\n[target]\nname = \"prod-1\"\n[advisory]\ntimeout_ms = 500\n",
        );
        Setup { base }
    }

    fn run(&self, args: &[&str], llm: Option<&str>, stdin: &[u8]) -> (Output, Duration) {
        let mut c = self.base.command(args);
        c.env_remove("OPENAI_API_KEY")
            .env("OPENAI_MODEL", "test-model")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        match llm {
            Some(url) => c.env("HONEY_RISK_LLM", "1").env("OPENAI_BASE_URL", url),
            None => c.env_remove("HONEY_RISK_LLM").env_remove("OPENAI_BASE_URL"),
        };
        let started = Instant::now();
        let mut child = c.spawn().unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        let out = child.wait_with_output().unwrap();
        (out, started.elapsed())
    }
}

fn policy() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/review/policy")
        .display()
        .to_string()
}

/// The output without the advisory lines.
fn without_advisory(out: &str) -> String {
    out.lines()
        .filter(|l| !l.trim_start().starts_with("LLM "))
        .map(|l| format!("{l}\n"))
        .collect()
}

const CMD: &str = "rm -rf /var/cache/app/*";

/// (model, the advisory lines expected in `--check`)
fn table() -> Vec<(Model, Vec<String>)> {
    let good = vec![
        "LLM advisory (not authoritative): risk=high reasons=[deletes_files recursive]".to_string(),
        "LLM explanation: Deletes the app cache recursively.".to_string(),
    ];
    vec![
        (Model::Good, good.clone()),
        (Model::Prose, good.clone()),
        (Model::Chunked, good),
        (
            Model::Malformed,
            vec![
                "LLM advisory: unavailable (malformed answer: no JSON object in the answer)".into(),
            ],
        ),
        (
            Model::Slow,
            vec!["LLM advisory: unavailable (timed out after 500 ms)".into()],
        ),
        (
            Model::Error,
            vec!["LLM advisory: unavailable (HTTP status 500)".into()],
        ),
    ]
}

#[test]
fn check_shows_the_advisory_and_never_changes_the_decision() {
    let s = Setup::new();
    let p = policy();
    for args in [
        vec!["--check", CMD],
        vec!["--check", CMD, "--policy-dir", &p],
        vec!["--check", "rm -rf /", "--policy-dir", &p],
    ] {
        let (plain, _) = s.run(&args, None, b"");
        for (model, lines) in table() {
            let server = Server::start(model);
            let (out, took) = s.run(&args, Some(&server.url()), b"");
            let shown = text(&out.stdout);
            assert_eq!(out.status.code(), plain.status.code(), "{model:?} {args:?}");
            assert_eq!(
                without_advisory(&shown),
                text(&plain.stdout),
                "{model:?} {args:?}"
            );
            let advisory: Vec<&str> = shown.lines().filter(|l| l.starts_with("LLM ")).collect();
            assert_eq!(advisory, lines, "{model:?}");
            // Advisory lines sit just before the decision line.
            let last = shown.lines().last().unwrap();
            assert!(
                last.starts_with("Decision:") || last.starts_with("Policy["),
                "{shown}"
            );
            assert!(took < Duration::from_secs(3), "{model:?} took {took:?}");
        }
    }
}

#[test]
fn the_request_asks_to_classify_only() {
    let s = Setup::new();
    let server = Server::start(Model::Good);
    s.run(&["--check", CMD], Some(&server.url()), b"");
    let requests = server.requests.lock().unwrap();
    assert_eq!(requests.len(), 1);
    let (line, body) = &requests[0];
    assert_eq!(line, "POST /v1/chat/completions HTTP/1.1");
    let body: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["max_tokens"], 400);
    assert_eq!(body["messages"][0]["role"], "system");
    assert!(body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("must NOT decide"));
    assert!(body["messages"][1]["content"]
        .as_str()
        .unwrap()
        .contains(CMD));
}

#[test]
fn check_file_and_dry_run_json_carry_the_advisory_per_step() {
    let s = Setup::new();
    let p = policy();
    let script = format!("ls\n{CMD}\n");
    for (model, lines) in table() {
        let server = Server::start(model);
        let args = ["--check-file", "-", "--policy-dir", &p];
        let (plain, _) = s.run(&args, None, script.as_bytes());
        let (out, _) = s.run(&args, Some(&server.url()), script.as_bytes());
        assert_eq!(out.status.code(), plain.status.code(), "{model:?}");
        assert_eq!(out.status.code(), Some(3));
        assert_eq!(
            without_advisory(&text(&out.stdout)),
            text(&plain.stdout),
            "{model:?}"
        );
        let indented: Vec<String> = lines.iter().map(|l| format!("  {l}")).collect();
        let shown: Vec<String> = text(&out.stdout)
            .lines()
            .filter(|l| l.starts_with("  LLM "))
            .map(str::to_string)
            .collect();
        assert_eq!(
            shown,
            [indented.clone(), indented].concat(),
            "{model:?}: one advisory per step"
        );

        let json_args = ["--check-file", "-", "--policy-dir", &p, "--json"];
        let (plain, _) = s.run(&json_args, None, script.as_bytes());
        let (out, _) = s.run(&json_args, Some(&server.url()), script.as_bytes());
        let (plain, mut advised): (serde_json::Value, serde_json::Value) = (
            serde_json::from_slice(&plain.stdout).unwrap(),
            serde_json::from_slice(&out.stdout).unwrap(),
        );
        for step in advised["risk_assessment"].as_array_mut().unwrap() {
            let advisory = step.as_object_mut().unwrap().remove("advisory").unwrap();
            assert_eq!(advisory["authoritative"], false);
            match model {
                Model::Good | Model::Prose | Model::Chunked => assert_eq!(advisory["risk"], "high"),
                _ => assert!(advisory["unavailable"].is_string(), "{advisory}"),
            }
        }
        assert_eq!(advised, plain, "{model:?}: only the advisory differs");
    }
}

#[test]
fn unreachable_or_unset_endpoint_is_unavailable() {
    let s = Setup::new();
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let cases = [
        (format!("http://127.0.0.1:{closed}/v1"), format!("LLM advisory: unavailable (cannot connect to 127.0.0.1:{closed})")),
        ("https://api.example.com/v1".to_string(), "LLM advisory: unavailable (unsupported base URL 'https://api.example.com/v1' (only http:// is supported))".to_string()),
        (String::new(), "LLM advisory: unavailable (OPENAI_BASE_URL is not set)".to_string()),
    ];
    for (url, line) in cases {
        let (out, _) = s.run(&["--check", "ls"], Some(&url), b"");
        assert_eq!(out.status.code(), Some(0));
        assert!(
            text(&out.stdout).lines().any(|l| l == line),
            "{url}: {}",
            text(&out.stdout)
        );
    }
    for off in ["0", "false", ""] {
        let server = Server::start(Model::Good);
        let out = s
            .base
            .command(&["--check", "ls"])
            .env("HONEY_RISK_LLM", off)
            .env("OPENAI_BASE_URL", server.url())
            .output()
            .unwrap();
        assert!(!text(&out.stdout).contains("LLM"), "HONEY_RISK_LLM={off:?}");
        assert!(server.requests.lock().unwrap().is_empty());
    }
}

#[test]
fn the_shell_surface_never_asks_the_model() {
    let s = Setup::new();
    let server = Server::start(Model::Slow);
    for cmd in ["echo hi", "rm -rf /"] {
        let (out, took) = s.run(&["-c", cmd], Some(&server.url()), b"");
        assert!(!text(&out.stderr).contains("LLM"), "{}", text(&out.stderr));
        assert!(took < Duration::from_secs(2), "{cmd}: {took:?}");
    }
    let (out, _) = s.run(&["-c", "echo hi"], Some(&server.url()), b"");
    assert_eq!(text(&out.stdout), "hi\n");
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        server.requests.lock().unwrap().is_empty(),
        "the shell surface contacted the model"
    );
}
