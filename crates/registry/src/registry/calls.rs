//! The one call pipeline: route → policy → limits → connect → upstream → classify, with the
//! audit record around all of it.

use super::Registry;
use super::traced::{call_span, routed, stage, to_upstream, traced};
use crate::catalog::ExposedTool;
use rmcp::model::{CallToolResult, JsonObject};
use serde_json::Value;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use switchboard_core::{
    CallContext, CallError, CallRecord, Caller, Effect, ErrorKind, ServerStatus, ToolRef, Verdict,
};
use switchboard_upstream::{CallOptions, Connection, UpstreamError, result_size};

impl Registry {
    /// Calls a tool by its exposed name, through the whole pipeline; every call, refused or
    /// not, is heard by the observer (the audit log) with each stage's verdict.
    pub async fn call_tool(
        &self,
        exposed: &str,
        arguments: Option<Value>,
        opts: CallOptions,
    ) -> Result<CallToolResult, CallError> {
        let span = call_span("tools/call", exposed, &opts.caller);
        let work = self.call_tool_observed(exposed, arguments, opts);
        traced(span, work, |r| r.is_error == Some(true)).await
    }

    async fn call_tool_observed(
        &self,
        exposed: &str,
        arguments: Option<Value>,
        opts: CallOptions,
    ) -> Result<CallToolResult, CallError> {
        let started = Instant::now();
        // Sizes are for the audit log: skip the serialisation when nobody records them.
        let request_bytes = match (&self.inner.observer, &arguments) {
            (Some(o), Some(a)) if o.needs_sizes() => serde_json::to_vec(a).map_or(0, |v| v.len()),
            _ => 0,
        };
        let catalog = self.catalog();
        let tool = catalog.tool(exposed);
        let (caller, end_user_id) = (opts.caller.clone(), opts.end_user_id.clone());
        let relay_notes = opts.relay_notes.clone();
        let mut verdicts = Vec::new();
        let mut upstream = None;
        // Strict audit durability with the store not taking rows: fail closed before the
        // call can have an effect upstream.
        let audit_refusal = (self.inner.observer.as_ref()).and_then(|o| o.refuses_calls());
        let audit_refusal = audit_refusal.or_else(|| opts.refusal.clone());
        let outcome = match (tool, audit_refusal) {
            (None, _) => Err(self.unknown_tool(exposed)),
            (Some(_), Some(refusal)) => Err(refusal),
            (Some(tool), None) => {
                self.guarded_call(
                    tool,
                    arguments,
                    opts,
                    (&caller, end_user_id.as_deref()),
                    (&mut verdicts, &mut upstream),
                )
                .await
            }
        };
        if let (Err(e), Some(tool)) = (&outcome, tool)
            && matches!(e.kind, ErrorKind::PolicyDenied | ErrorKind::RateLimited)
        {
            // A refusal is an operator's event: one line (the audit row has the verdicts).
            tracing::info!(
                action = %tool.action_id,
                agent = caller.agent_id.as_deref().unwrap_or(""),
                surface = caller.surface.map(switchboard_core::Surface::as_str),
                kind = %e.kind,
                reason = %e.message,
                "refused"
            );
        }
        if let Some(observer) = &self.inner.observer {
            // What the upstream asked that nobody could answer, the grant used: in the row.
            verdicts.extend(
                (relay_notes.take().into_iter())
                    .map(|(stage, note)| Verdict::new(stage, Effect::Note).reason(note)),
            );
            let (action_id, server, server_org) = match tool {
                Some(t) => (
                    t.action_id.to_string(),
                    Some(t.server.to_string()),
                    self.inner.owner_org.clone(),
                ),
                None => (format!("mcp.unknown.{exposed}"), None, None),
            };
            let record = CallRecord {
                caller,
                end_user_id,
                action_id,
                server,
                server_org,
                outcome: outcome.as_ref().map(|_| ()).map_err(|e| e.kind),
                duration: started.elapsed(),
                upstream,
                request_bytes,
                response_bytes: outcome.as_ref().map_or(0, result_size),
                verdicts,
            };
            if let Some(committed) = observer.observe_durably(record)
                && let Err(unavailable) = committed.await
            {
                // The answer is withheld: without its audit row it may not be released.
                tracing::debug!(exposed, "answer withheld: {}", unavailable.message);
                return Err(unavailable);
            }
        }
        outcome
    }

    /// Policy, then the upstream call, then what the policy learns from the answer; says
    /// each stage's verdict and how long the upstream request itself took.
    async fn guarded_call(
        &self,
        tool: &ExposedTool,
        arguments: Option<Value>,
        opts: CallOptions,
        (caller, end_user): (&Caller, Option<&str>),
        (verdicts, upstream): (&mut Vec<Verdict>, &mut Option<std::time::Duration>),
    ) -> Result<CallToolResult, CallError> {
        routed(tool.action_id.as_str(), tool.server.as_str());
        let arguments = object_arguments(arguments)?;
        // Quarantine comes from the guard's review, so the guard also enforces it.
        let guard = self.guard();
        let tool_ref = ToolRef {
            owner: &self.inner.owner,
            server: &tool.server,
            tool: &tool.upstream_name,
            action: &tool.action_id,
        };
        if let Some(guard) = &guard {
            let call = CallContext {
                tool: tool_ref,
                caller,
                end_user,
                arguments: arguments.as_ref(),
                quarantined: tool.quarantined(),
            };
            let admission = stage("policy.admit", guard.admit(call)).await;
            verdicts.extend(admission.verdicts);
            if let Some(refused) = admission.refused {
                return Err(match refused.kind {
                    // Hidden tools answer exactly as unknown ones do.
                    ErrorKind::ToolNotFound => self.unknown_tool(&tool.exposed_name),
                    _ => refused,
                });
            }
        }
        let upstream_name = tool.upstream_name.clone();
        let upstream_nanos = AtomicU64::new(u64::MAX);
        let took = &upstream_nanos;
        let server = tool.server.as_str();
        let outcome = self
            .on_server(server, opts, |conn, opts| async move {
                let sent = Instant::now();
                let request = conn.call_tool(&upstream_name, arguments, opts);
                let answer = to_upstream("tools/call", &upstream_name, server, request).await;
                took.store(sent.elapsed().as_nanos() as u64, Ordering::Relaxed);
                answer
            })
            .await;
        *upstream = match upstream_nanos.load(Ordering::Relaxed) {
            u64::MAX => None,
            nanos => Some(std::time::Duration::from_nanos(nanos)),
        };
        // A task names where it runs, for the surface that keeps it (not the catalogue, which
        // may have changed since the call started).
        let outcome = outcome.map_err(|e| with_origin(e, server, &tool.upstream_name));
        if let Some(guard) = &guard {
            // A task's result reaches the caller later, through the gateway: what the call's
            // labels say about its data applies from now (information-flow taint).
            let task = matches!(&outcome, Err(e) if e.kind == ErrorKind::TaskCreated);
            let ok = task || matches!(&outcome, Ok(r) if r.is_error != Some(true));
            let json = match &outcome {
                Ok(result) if guard.wants_results() => serde_json::to_value(result).ok(),
                _ => None,
            };
            let call = CallContext {
                tool: tool_ref,
                caller,
                end_user,
                arguments: None,
                quarantined: None,
            };
            let finished = guard.finished(call, ok, json.as_ref());
            verdicts.extend(stage("policy.finished", finished).await);
        }
        outcome
    }

    /// Why `exposed` names no tool: unknown, or (likely) one of a server whose tools are not
    /// known yet because it waits for authorization.
    pub(super) fn unknown_tool(&self, exposed: &str) -> CallError {
        let waiting = self
            .inner
            .servers
            .read()
            .iter()
            .find(|e| {
                let prefix = self.inner.naming.prefix(&e.spec.name);
                e.status() == ServerStatus::Authenticating
                    && !prefix.is_empty()
                    && exposed.starts_with(&prefix)
            })
            .cloned();
        match waiting {
            Some(entry) => {
                let why = entry.waiting_for_authorization();
                CallError::new(
                    why.kind,
                    format!("no tool named {exposed:?} is known yet: {}", why.message),
                )
            }
            None => CallError::new(
                ErrorKind::ToolNotFound,
                format!("no tool named {exposed:?}; `switchboard tools` lists the available names"),
            ),
        }
    }

    /// Runs `work` on `server`'s connection within the server's concurrency limit; failures
    /// come back classified, with the server's secrets redacted.
    pub(super) async fn on_server<T, F, Fut>(
        &self,
        server: &str,
        opts: CallOptions,
        work: F,
    ) -> Result<T, CallError>
    where
        F: FnOnce(Arc<Connection>, CallOptions) -> Fut,
        Fut: Future<Output = Result<T, UpstreamError>>,
    {
        let entry = self.entry(server).ok_or_else(|| {
            CallError::new(
                ErrorKind::ToolNotFound,
                format!("server {server} is not configured"),
            )
        })?;
        // One budget for the whole call: the queue wait, a restart's backoff and the
        // upstream request each spend what is left of it, never the whole timeout again.
        let limit = opts.timeout.unwrap_or(entry.spec.call_timeout());
        let deadline = tokio::time::Instant::now() + limit;
        let left = || deadline.saturating_duration_since(tokio::time::Instant::now());
        let _slot = entry.acquire(limit).await?;
        // The shared connection, to drop if the call finds it lost (not per-session ones).
        let mut shared = None;
        // A per-end-user server: the end user's own session, and its grant's key.
        let mut end_user = None;
        let conn = match opts.session_processes.as_ref() {
            _ if entry.spec.end_user_credentials.is_some() => {
                let (conn, key, grant) = self.end_user_connection(&entry, &opts).await?;
                end_user = Some((key, grant));
                conn
            }
            // A stdio server run once per session: this session's own process.
            Some(processes) if entry.spec.per_session => {
                let key = format!("{}|{server}", self.inner.owner.key());
                processes
                    .connection(&key, &entry.spec, &self.inner.connect)
                    .await
                    .map_err(|e| {
                        let e = entry.call_error(e);
                        CallError::new(e.kind, format!("server {server}: {}", e.message))
                    })?
            }
            _ => {
                let before = entry.status();
                let conn = match entry.connection(&self.inner.connect, left()).await {
                    Ok(conn) => conn,
                    Err(e) => {
                        self.publish(&entry);
                        return Err(e);
                    }
                };
                if entry.status() != before {
                    self.publish(&entry);
                }
                if before == ServerStatus::Error && entry.spec.is_remote() {
                    // Back after an outage (or a restart): it may offer other tools now.
                    let (registry, server) = (self.clone(), server.to_string());
                    tokio::spawn(async move { registry.rediscover(&server).await });
                }
                shared = Some(conn.id());
                (self.for_callers_set(&entry.spec, &opts, conn).await)
                    .map_err(|e| entry.call_error(e))?
            }
        };
        let rest = left();
        // Said as the call's whole timeout, which is what ran out, with what the wait took.
        let timed_out = || {
            let mut e = entry.call_error(UpstreamError::Timeout(limit));
            let waited = limit.saturating_sub(rest);
            if waited >= limit / 10 {
                e.message.push_str(&format!(
                    " ({} ms of it waiting for a call slot or a restart: if calls queue, raise its max_concurrent_calls)",
                    waited.as_millis()
                ));
            }
            e
        };
        // Nothing left: the request is not sent only to be cancelled.
        if rest.is_zero() {
            return Err(timed_out());
        }
        let user = opts.end_user_id.clone().unwrap_or_default();
        // Where an end user whose tokens were refused signs in again.
        let issuer = (end_user.is_some())
            .then(|| super::end_users::token_issuer(&opts.caller).map(String::from))
            .flatten();
        let outcome = match (work(conn, opts.with_timeout(rest)).await, &end_user) {
            (Ok(done), _) => Ok(done),
            (Err(UpstreamError::Timeout(_)), _) => Err(timed_out()),
            (Err(e), Some((key, grant))) => {
                let failed = (user.as_str(), key.as_str(), grant.as_ref());
                Err(self
                    .end_user_failed(&entry, failed, e, issuer.as_deref())
                    .await)
            }
            // A stdio child that died is found by the next call, with its stderr.
            (Err(e), None) if e.connection_lost() && entry.spec.is_remote() => {
                if let Some(conn) = shared
                    && entry.lost(conn, &e)
                {
                    self.publish(&entry);
                }
                Err(entry.call_error(e))
            }
            (Err(e), None) => match entry.authorize(&e, &self.inner.connect, true).await {
                // Tokens revoked mid-session, or a tool needing more scope: a person must act.
                Some(refused) => {
                    self.publish(&entry);
                    Err(refused)
                }
                None => Err(entry.call_error(e)),
            },
        };
        // A round handed back to the caller is the server working, not failing.
        entry.mark_used(
            outcome
                .as_ref()
                .map_or_else(|e| !e.kind.is_failure(), |_| true),
        );
        outcome
    }
}

pub(super) fn object_arguments(arguments: Option<Value>) -> Result<Option<JsonObject>, CallError> {
    match arguments {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        Some(other) => Err(CallError::new(
            ErrorKind::InvalidRequest,
            format!("arguments must be a JSON object, got {other}"),
        )),
    }
}

/// The `_meta` key a task's result carries its origin under between the registry and the
/// surface that keeps the task (removed before the caller sees it).
pub const TASK_ORIGIN_KEY: &str = "switchboard/origin";

/// A task (`TaskCreated`) with the server and upstream tool that made it, in its `_meta`.
fn with_origin(mut error: CallError, server: &str, tool: &str) -> CallError {
    if error.kind == ErrorKind::TaskCreated
        && let Some(data) = error.data.as_deref_mut()
        && let Some(task) = data.as_object_mut()
    {
        let meta = task.entry("_meta").or_insert_with(|| serde_json::json!({}));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(
                TASK_ORIGIN_KEY.into(),
                serde_json::json!({"server": server, "tool": tool}),
            );
        }
    }
    error
}
