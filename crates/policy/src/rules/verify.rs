//! `verify`: ask an external evaluator (an HTTP webhook or a local command) before a call
//! leaves. Both get `{action, server, tool, arguments, org, agent, end_user, session}` and
//! answer `{"effect": "allow"|"deny", "reason"?}`; anything else fails closed by default.

use crate::doc::{DefaultEffect, VerifyDoc};
use serde::Deserialize;
use serde_json::Value;
use std::time::Duration;
use switchboard_upstream::UpstreamHttp;
use tokio::io::AsyncWriteExt;

const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// Largest answer read from an evaluator.
const MAX_ANSWER: usize = 64 * 1024;

#[derive(Debug, Clone)]
pub enum Target {
    Webhook(String),
    Command(Vec<String>),
}

/// A compiled evaluator.
#[derive(Debug, Clone)]
pub struct Evaluator {
    pub target: Target,
    pub timeout: Duration,
    pub fail_open: bool,
}

/// What the evaluator said (or what its failure means).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub allow: bool,
    pub reason: String,
}

#[derive(Deserialize)]
struct Reply {
    effect: String,
    #[serde(default)]
    reason: Option<String>,
}

impl Evaluator {
    /// Checks the shape: exactly one of webhook or command, an http(s) URL, a program.
    pub fn compile(doc: &VerifyDoc) -> Result<Self, (&'static str, String, String)> {
        let target = match (&doc.webhook, &doc.command) {
            (Some(url), None) => {
                let parsed = url::Url::parse(url).map_err(|e| {
                    (
                        "webhook",
                        format!("{url:?} is not a URL: {e}"),
                        "write https://host/path".into(),
                    )
                })?;
                if !matches!(parsed.scheme(), "http" | "https") {
                    return Err((
                        "webhook",
                        format!("{url:?} is not http(s)"),
                        "write https://host/path".into(),
                    ));
                }
                Target::Webhook(url.clone())
            }
            (None, Some(cmd)) if !cmd.is_empty() && !cmd[0].is_empty() => {
                Target::Command(cmd.clone())
            }
            (None, Some(_)) => {
                return Err((
                    "command",
                    "the command is empty".into(),
                    "write [\"program\", \"arg\", …]".into(),
                ));
            }
            _ => {
                return Err((
                    "webhook",
                    "verify needs exactly one of webhook or command".into(),
                    "write verify = { webhook = \"https://…\" } or verify = { command = [\"prog\"] }"
                        .into(),
                ));
            }
        };
        Ok(Self {
            target,
            timeout: doc
                .timeout_ms
                .map(Duration::from_millis)
                .unwrap_or(DEFAULT_TIMEOUT),
            fail_open: doc.on_error == Some(DefaultEffect::Allow),
        })
    }

    /// Asks; never fails: an error becomes the configured answer with the reason.
    pub async fn ask(&self, http: &UpstreamHttp, request: &Value) -> Answer {
        let asked = tokio::time::timeout(self.timeout, async {
            match &self.target {
                Target::Webhook(url) => webhook(http, url, request).await,
                Target::Command(cmd) => command(cmd, request).await,
            }
        })
        .await;
        let reply = match asked {
            Ok(Ok(reply)) => reply,
            Ok(Err(why)) => return self.failed(why),
            Err(_) => {
                return self.failed(format!(
                    "the evaluator did not answer within {} ms",
                    self.timeout.as_millis()
                ));
            }
        };
        match reply.effect.as_str() {
            "allow" | "deny" => Answer {
                allow: reply.effect == "allow",
                reason: reply
                    .reason
                    .unwrap_or_else(|| format!("the evaluator answered {}", reply.effect)),
            },
            other => self.failed(format!(
                "the evaluator answered effect {other:?}; expected \"allow\" or \"deny\""
            )),
        }
    }

    fn failed(&self, why: String) -> Answer {
        let then = if self.fail_open {
            "allowed (on_error = allow)"
        } else {
            "denied (fails closed)"
        };
        Answer {
            allow: self.fail_open,
            reason: format!("verification failed: {why}; {then}"),
        }
    }
}

async fn webhook(http: &UpstreamHttp, url: &str, request: &Value) -> Result<Reply, String> {
    let checked = http.check_url(url).map_err(|e| e.to_string())?;
    let response = http
        .client()
        .post(checked)
        .json(request)
        .send()
        .await
        .map_err(|e| format!("the webhook could not be reached: {e}"))?;
    let status = response.status();
    let body = response
        .bytes()
        .await
        .map_err(|e| format!("the webhook's answer was cut off: {e}"))?;
    if !status.is_success() {
        return Err(format!("the webhook answered HTTP {status}"));
    }
    parse(&body)
}

async fn command(cmd: &[String], request: &Value) -> Result<Reply, String> {
    let mut child = tokio::process::Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd[0]))?;
    if let Some(mut stdin) = child.stdin.take() {
        let body = serde_json::to_vec(request).unwrap_or_default();
        stdin
            .write_all(&body)
            .await
            .map_err(|e| format!("cannot write to {:?}: {e}", cmd[0]))?;
    }
    let out = child
        .wait_with_output()
        .await
        .map_err(|e| format!("{:?} failed: {e}", cmd[0]))?;
    if !out.status.success() {
        return Err(format!("{:?} exited with {}", cmd[0], out.status));
    }
    parse(&out.stdout)
}

fn parse(body: &[u8]) -> Result<Reply, String> {
    if body.len() > MAX_ANSWER {
        return Err(format!("the answer is over {MAX_ANSWER} bytes"));
    }
    serde_json::from_slice(body).map_err(|_| {
        let text = String::from_utf8_lossy(&body[..body.len().min(80)]).into_owned();
        format!("the answer is not {{\"effect\": \"allow\"|\"deny\"}}: {text:?}")
    })
}
