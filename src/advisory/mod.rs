//! The advisory model: an optional, never-authoritative classification of a command
//! (`{risk, reasons, explanation}`) shown next to the deterministic verdict on the review
//! surface only. It is computed after the verdict and only ever rendered; nothing reads it back.
//!
//! [`Advisor`] is the seam: today an OpenAI-compatible chat endpoint ([`openai::ChatAdvisor`],
//! typically a local llama.cpp or Ollama over plain `http://`), tomorrow a local classifier.

mod http;
pub mod openai;

use crate::context::{truthy, Context};
use crate::signals::Signal;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// `[advisory]` in the configuration.
#[derive(Clone, Debug, Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(default, deny_unknown_fields)]
pub struct AdvisoryConfig {
    /// Wall-clock bound on one answer (connect, send, receive), in milliseconds.
    pub timeout_ms: u64,
    /// Wall-clock bound on all answers of one review (`--check-file` asks once per step).
    pub budget_ms: u64,
    /// `max_tokens` asked of the model.
    pub max_tokens: u32,
    /// The model name when `OPENAI_MODEL` is unset.
    pub default_model: String,
}

impl Default for AdvisoryConfig {
    fn default() -> Self {
        AdvisoryConfig {
            timeout_ms: 3_000,
            budget_ms: 10_000,
            max_tokens: 400,
            default_model: "local".into(),
        }
    }
}

/// What an advisor says about a command. Display only.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Advice {
    pub risk: String,
    pub reasons: Vec<String>,
    pub explanation: String,
}

/// Why there is no advice; never fatal.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AdvisoryError {
    #[error("OPENAI_BASE_URL is not set")]
    NotConfigured,
    #[error("unsupported base URL '{0}' (only http:// is supported)")]
    BadUrl(String),
    #[error("cannot connect to {0}")]
    Connect(String),
    #[error("timed out after {0} ms")]
    Timeout(u64),
    #[error("advisory time budget spent")]
    Budget,
    #[error("i/o error: {0}")]
    Io(String),
    #[error("HTTP status {0}")]
    Status(u16),
    #[error("malformed answer: {0}")]
    Malformed(String),
}

impl AdvisoryError {
    pub fn reason_id(&self) -> &'static str {
        match self {
            AdvisoryError::NotConfigured => "advisory.not_configured",
            AdvisoryError::BadUrl(_) => "advisory.bad_url",
            AdvisoryError::Connect(_) => "advisory.connect",
            AdvisoryError::Timeout(_) => "advisory.timeout",
            AdvisoryError::Budget => "advisory.budget",
            AdvisoryError::Io(_) => "advisory.io",
            AdvisoryError::Status(_) => "advisory.status",
            AdvisoryError::Malformed(_) => "advisory.malformed",
        }
    }
}

/// Anything that can classify a command. Implementations must be bounded in time.
pub trait Advisor {
    fn advise(
        &self,
        command: &str,
        signals: &[Signal],
        timeout: Duration,
    ) -> Result<Advice, AdvisoryError>;
}

/// The advisor the review surface uses, with its time budget. `None` when `HONEY_RISK_LLM` is
/// not truthy (the reference's reading: set and not empty, `0` or `false`).
pub struct Session {
    advisor: Box<dyn Advisor>,
    timeout: Duration,
    deadline: std::time::Instant,
}

impl Session {
    pub fn from_context(ctx: &Context, config: &AdvisoryConfig) -> Option<Session> {
        let enabled = ctx
            .var("HONEY_RISK_LLM")
            .is_some_and(|v| truthy(&v.to_string_lossy()));
        if !enabled {
            return None;
        }
        let var = |n: &str| {
            ctx.var(n)
                .map(|v| v.to_string_lossy().into_owned())
                .filter(|v| !v.is_empty())
        };
        let advisor = openai::ChatAdvisor {
            base_url: var("OPENAI_BASE_URL"),
            model: var("OPENAI_MODEL").unwrap_or_else(|| config.default_model.clone()),
            api_key: var("OPENAI_API_KEY"),
            max_tokens: config.max_tokens,
        };
        Some(Session::new(Box::new(advisor), config))
    }

    pub fn new(advisor: Box<dyn Advisor>, config: &AdvisoryConfig) -> Session {
        Session {
            advisor,
            timeout: Duration::from_millis(config.timeout_ms),
            deadline: std::time::Instant::now()
                + Duration::from_millis(config.budget_ms.max(config.timeout_ms)),
        }
    }

    /// Asks the advisor, within both the per-answer timeout and what is left of the budget.
    pub fn advise(&self, command: &str, signals: &[Signal]) -> Result<Advice, AdvisoryError> {
        let left = self
            .deadline
            .saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Err(AdvisoryError::Budget);
        }
        self.advisor
            .advise(command, signals, self.timeout.min(left))
            .map(sanitise)
    }
}

/// The text lines of an advisory, in the reference format.
pub fn lines(result: &Result<Advice, AdvisoryError>) -> Vec<String> {
    match result {
        Ok(a) => {
            let mut out = vec![format!(
                "LLM advisory (not authoritative): risk={} reasons=[{}]",
                a.risk,
                a.reasons.join(" ")
            )];
            if !a.explanation.is_empty() {
                out.push(format!("LLM explanation: {}", a.explanation));
            }
            out
        }
        Err(e) => vec![format!("LLM advisory: unavailable ({e})")],
    }
}

/// The JSON form: the advice, or `{"unavailable": "<error>"}`.
pub fn json(result: &Result<Advice, AdvisoryError>) -> serde_json::Value {
    match result {
        Ok(a) => {
            serde_json::json!({"authoritative": false, "risk": a.risk, "reasons": a.reasons, "explanation": a.explanation})
        }
        Err(e) => {
            serde_json::json!({"authoritative": false, "unavailable": e.to_string(), "reason_id": e.reason_id()})
        }
    }
}

/// Model text goes to a terminal: no control characters, bounded lengths.
fn sanitise(a: Advice) -> Advice {
    Advice {
        risk: clean(&a.risk, 32),
        reasons: a.reasons.iter().take(8).map(|r| clean(r, 120)).collect(),
        explanation: clean(&a.explanation, 600),
    }
}

fn clean(s: &str, max: usize) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn lines_table() {
        let good = Ok(Advice {
            risk: "high".into(),
            reasons: vec!["deletes_files".into(), "recursive".into()],
            explanation: "x".into(),
        });
        assert_eq!(
            lines(&good),
            [
                "LLM advisory (not authoritative): risk=high reasons=[deletes_files recursive]",
                "LLM explanation: x"
            ]
        );
        assert_eq!(
            lines(&Err(AdvisoryError::Status(500))),
            ["LLM advisory: unavailable (HTTP status 500)"]
        );
    }

    /// The seam: any classifier can stand in for the model.
    struct Fixed;
    impl Advisor for Fixed {
        fn advise(
            &self,
            command: &str,
            _: &[Signal],
            _: Duration,
        ) -> Result<Advice, AdvisoryError> {
            Ok(Advice {
                risk: "low".into(),
                reasons: vec![command.into()],
                explanation: String::new(),
            })
        }
    }

    #[test]
    fn any_advisor_plugs_in_and_the_budget_bounds_it() {
        let config = AdvisoryConfig {
            timeout_ms: 1,
            budget_ms: 1,
            ..AdvisoryConfig::default()
        };
        let session = Session::new(Box::new(Fixed), &config);
        assert_eq!(session.advise("ls", &[]).unwrap().reasons, ["ls"]);
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(session.advise("ls", &[]), Err(AdvisoryError::Budget));
    }

    #[test]
    fn sanitise_strips_control_characters() {
        let a = sanitise(Advice {
            risk: "hi\x1b[31mgh".into(),
            reasons: vec!["a\nb".into()],
            explanation: "e".repeat(700),
        });
        assert_eq!(a.risk, "hi [31mgh");
        assert_eq!(a.reasons, ["a b"]);
        assert_eq!(a.explanation.chars().count(), 601);
    }
}
