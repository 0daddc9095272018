//! The OpenAI-compatible advisor: one `/chat/completions` request (system prompt: classify
//! only, never decide; `max_tokens` bounded), and a tolerant reading of the answer — the text
//! from the first `{` to the last `}` of the first choice's content.

use super::http::{parse_url, post_json};
use super::{Advice, Advisor, AdvisoryError};
use crate::signals::Signal;
use serde_json::{json, Value};
use std::time::Duration;

pub const SYSTEM_PROMPT: &str = "You classify the risk of one shell command for a human reviewer. \
You must NOT decide whether it runs: a deterministic engine and a policy decide; your answer is \
advisory text only. Reply with JSON only: {\"risk\": \"low|medium|high|critical\", \"reasons\": \
[short labels such as read_only, deletes_files, privilege_escalation, network_download_execute, \
service_restart, cloud_destructive, kubernetes_destructive, prod_sensitive], \"explanation\": \
\"one or two sentences\"}.";

/// An OpenAI-compatible chat endpoint (`OPENAI_BASE_URL`, e.g. `http://127.0.0.1:8080/v1`).
#[derive(Clone, Debug)]
pub struct ChatAdvisor {
    pub base_url: Option<String>,
    pub model: String,
    pub api_key: Option<String>,
    pub max_tokens: u32,
}

impl Advisor for ChatAdvisor {
    fn advise(
        &self,
        command: &str,
        signals: &[Signal],
        timeout: Duration,
    ) -> Result<Advice, AdvisoryError> {
        let base = self
            .base_url
            .as_deref()
            .ok_or(AdvisoryError::NotConfigured)?;
        let url = parse_url(base)?;
        let body = request_body(&self.model, self.max_tokens, command, signals);
        let (status, body) = post_json(
            &url,
            "/chat/completions",
            &body,
            self.api_key.as_deref(),
            timeout,
        )?;
        if !(200..300).contains(&status) {
            return Err(AdvisoryError::Status(status));
        }
        parse_answer(&String::from_utf8_lossy(&body))
    }
}

pub fn request_body(model: &str, max_tokens: u32, command: &str, signals: &[Signal]) -> String {
    let found: Vec<String> = signals
        .iter()
        .map(|s| format!("{} ({})", s.id(), s.severity()))
        .collect();
    let user = format!(
        "Command:\n{command}\n\nDeterministic signals: {}",
        if found.is_empty() {
            "none".to_string()
        } else {
            found.join(", ")
        }
    );
    json!({
        "model": model,
        "max_tokens": max_tokens,
        "temperature": 0,
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": user},
        ],
    })
    .to_string()
}

/// Reads a chat completion: `choices[0].message.content`, then `{…}` inside it (first `{` to
/// last `}`, or failing that the first complete object after the first `{`).
pub fn parse_answer(body: &str) -> Result<Advice, AdvisoryError> {
    let malformed = |m: &str| AdvisoryError::Malformed(m.to_string());
    let envelope: Value =
        serde_json::from_str(body).map_err(|_| malformed("response is not JSON"))?;
    let content = envelope
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| malformed("no choices[0].message.content"))?;
    let (start, end) = match (content.find('{'), content.rfind('}')) {
        (Some(s), Some(e)) if s < e => (s, e),
        _ => return Err(malformed("no JSON object in the answer")),
    };
    // The reference's reading first; then the first complete object, for prose with braces after.
    let inner: Value = serde_json::from_str(content.get(start..=end).unwrap_or_default())
        .ok()
        .or_else(|| {
            let rest = content.get(start..).unwrap_or_default();
            serde_json::Deserializer::from_str(rest)
                .into_iter::<Value>()
                .next()
                .and_then(Result::ok)
        })
        .ok_or_else(|| malformed("the answer's JSON does not parse"))?;
    let risk = inner
        .get("risk")
        .and_then(Value::as_str)
        .filter(|r| !r.trim().is_empty())
        .ok_or_else(|| malformed("no risk"))?;
    let reasons = match inner.get("reasons") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        Some(Value::String(s)) => vec![s.clone()],
        _ => Vec::new(),
    };
    Ok(Advice {
        risk: risk.trim().to_string(),
        reasons,
        explanation: inner
            .get("explanation")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn chat(content: &str) -> String {
        json!({"choices": [{"message": {"role": "assistant", "content": content}}]}).to_string()
    }

    #[test]
    fn answers_table() {
        let ok: &[(&str, &str, &[&str])] = &[
            (r#"{"risk":"high","reasons":["deletes_files"],"explanation":"e"}"#, "high", &["deletes_files"]),
            ("Sure! Here you go:\n```json\n{\"risk\": \"low\", \"reasons\": []}\n```\nHope it helps {really}", "low", &[]),
            (r#"{"risk":"medium","reasons":"network"}"#, "medium", &["network"]),
        ];
        for (content, risk, reasons) in ok {
            let a = parse_answer(&chat(content)).unwrap();
            assert_eq!(
                (
                    a.risk.as_str(),
                    a.reasons
                        .iter()
                        .map(String::as_str)
                        .collect::<Vec<_>>()
                        .as_slice()
                ),
                (*risk, *reasons),
                "{content}"
            );
        }
    }

    #[test]
    fn malformed_table() {
        for body in [
            "not json".to_string(),
            json!({"choices": []}).to_string(),
            chat("I think it is risky"),
            chat("{risk: high}"),
            chat(r#"{"reasons": ["x"]}"#),
            chat("} backwards {"),
        ] {
            assert!(
                matches!(parse_answer(&body), Err(AdvisoryError::Malformed(_))),
                "{body}"
            );
        }
    }
}
