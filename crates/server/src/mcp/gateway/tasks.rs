//! Tasks (the tasks extension, SEP-2663) through the gateway: the task an upstream makes of a
//! call reaches its caller under the gateway's own random id, kept in the store (any replica
//! answers for it) and bound to the identity that made it; `tasks/get|update|cancel` go to
//! that upstream by its own id, and each task's end is audited once.

use super::{Gateway, error_data};
use rmcp::model::{CreateTaskResult, ErrorData, GetTaskResult, InputResponses, TaskStatus};
use rmcp::service::{RequestContext, RoleServer};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::LazyLock;
use std::time::Duration;
use switchboard_core::{CallError, Caller, ErrorKind};
use switchboard_registry::{CallOptions, Registry, TASK_ORIGIN_KEY};
use switchboard_store::{AuditEntry, new_id, now_ms};
use switchboard_sync::Mutex;
use switchboard_upstream::{TaskAnswer, TaskRequest};

/// The gateway's task ids start with this.
const PREFIX: &str = "task";

/// The longest a task is kept: its upstream's TTL, cut to this (also when it names none).
pub(crate) const MAX_KEPT: Duration = Duration::from_secs(24 * 3600);

/// What a gateway task id stands for.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Record {
    /// The registry that ran the call (its owner's key: `-` or the org).
    registry: String,
    server: String,
    /// The upstream tool, for the audit row's action id.
    tool: String,
    upstream_id: String,
    /// For a stdio server: the replica whose process runs the task (it lives there only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    replica: Option<String>,
}

/// A task found for its owner, with how it ended if it did.
struct Found {
    id: String,
    record: Record,
    ended: Option<String>,
}

/// The tasks this process keeps when there is no store (`switchboard stdio`, the library):
/// owner, record, expiry, terminal status.
type LocalTask = (String, Record, i64, Option<String>);
static LOCAL: LazyLock<Mutex<HashMap<String, LocalTask>>> = LazyLock::new(Mutex::default);

/// The most tasks a process without a store keeps at once; past it a new task is cancelled
/// upstream and its call fails (the store has the scheduled clean-up instead).
const MAX_LOCAL: usize = 10_000;

/// Whether a call's error is its upstream's task, and the task.
pub(super) fn created(error: &CallError) -> Option<CreateTaskResult> {
    if error.kind != ErrorKind::TaskCreated {
        return None;
    }
    serde_json::from_value(error.data.as_deref()?.clone()).ok()
}

/// Who may see a task: the identity that made it (org, agent, API token, access token's
/// issuer and subject, end user). Anyone else is answered as for an unknown task.
fn owner(opts: &CallOptions) -> String {
    let c = &opts.caller;
    format!(
        "{:?}|{:?}|{:?}|{:?}|{:?}",
        c.org_id, c.agent_id, c.token_id, c.subject, opts.end_user_id
    )
}

fn unknown_task(id: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("unknown task {id:?} (never made, another caller's, or expired)"),
        None,
    )
}

fn terminal(status: TaskStatus) -> Option<&'static str> {
    match status {
        TaskStatus::Completed => Some("completed"),
        TaskStatus::Failed => Some("failed"),
        TaskStatus::Cancelled => Some("cancelled"),
        _ => None,
    }
}

impl Gateway {
    /// Keeps the upstream task `created` (made by a call in `registry`) under a new id of the
    /// gateway's, for this caller; the task as its caller sees it. A task that cannot be kept
    /// is cancelled upstream and the call fails.
    pub(super) async fn hand_task(
        &self,
        registry: &Registry,
        mut created: CreateTaskResult,
        context: &RequestContext<RoleServer>,
        caller: &Caller,
    ) -> Result<CreateTaskResult, ErrorData> {
        let opts = self.options(context, caller.clone());
        // Where the registry says the task runs (it names it on every task it hands back).
        let origin = (created.meta.as_mut())
            .and_then(|meta| meta.remove(TASK_ORIGIN_KEY))
            .and_then(|o| {
                Some((
                    o["server"].as_str()?.to_string(),
                    o["tool"].as_str()?.to_string(),
                ))
            });
        if created.meta.as_ref().is_some_and(|m| m.is_empty()) {
            created.meta = None;
        }
        let Some((server, upstream_tool)) = origin else {
            return Err(ErrorData::internal_error(
                "the server's task came back without the server that runs it".to_string(),
                None,
            ));
        };
        let local = registry
            .server(&server)
            .is_some_and(|s| s.transport == "stdio");
        let record = Record {
            registry: registry.owner().key().to_string(),
            server,
            tool: upstream_tool,
            upstream_id: created.task.task_id.clone(),
            replica: (self.orgs.as_ref())
                .filter(|_| local)
                .map(|c| c.replica.to_string()),
        };
        let kept_ms = (created.task.ttl_ms)
            .unwrap_or(u64::MAX)
            .min(MAX_KEPT.as_millis() as u64);
        // The caller is promised no longer than the gateway keeps the task.
        created.task.ttl_ms = Some(kept_ms);
        let id = new_id(PREFIX);
        let expires_ms = now_ms() + kept_ms as i64;
        if let Err(e) = self
            .save_task(&id, &owner(&opts), &record, expires_ms)
            .await
        {
            tracing::warn!(server = %record.server, "a task could not be kept, it is cancelled: {e}");
            let cancel = TaskRequest::Cancel;
            let _ = (registry.task(&record.server, &record.upstream_id, cancel, opts)).await;
            return Err(ErrorData::internal_error(
                format!("cannot keep the task: {e}"),
                None,
            ));
        }
        created.task.task_id = id;
        Ok(created)
    }

    /// `tasks/get`: the upstream's task under the caller's id.
    pub(super) async fn task_get(
        &self,
        id: String,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let (found, registry, opts) = self.find_task(&id, context).await?;
        self.task_state(&found, &registry, opts).await
    }

    /// `tasks/update`: the caller's answers to what the task asks, passed on.
    pub(super) async fn task_update(
        &self,
        id: String,
        responses: InputResponses,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let (found, registry, opts) = self.find_task(&id, context).await?;
        let update = TaskRequest::Update(responses);
        let record = &found.record;
        (registry
            .task(&record.server, &record.upstream_id, update, opts)
            .await)
            .map_err(error_data)?;
        Ok(())
    }

    /// `tasks/cancel`: passed on; the status it settles to is read at once (and audited
    /// when it is terminal), else on the next `tasks/get`.
    pub(super) async fn task_cancel(
        &self,
        id: String,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let (found, registry, opts) = self.find_task(&id, context).await?;
        let record = &found.record;
        let cancel = TaskRequest::Cancel;
        (registry
            .task(&record.server, &record.upstream_id, cancel, opts.clone())
            .await)
            .map_err(error_data)?;
        if found.ended.is_none()
            && let Err(e) = self.task_state(&found, &registry, opts).await
        {
            tracing::debug!(task = %id, "tasks/get after tasks/cancel: {}", e.message);
        }
        Ok(())
    }

    /// The task's state from its upstream, under the caller's id; its end audited once.
    async fn task_state(
        &self,
        found: &Found,
        registry: &Registry,
        opts: CallOptions,
    ) -> Result<GetTaskResult, ErrorData> {
        let record = &found.record;
        let caller = opts.caller.clone();
        let end_user = opts.end_user_id.clone();
        let answer = registry.task(&record.server, &record.upstream_id, TaskRequest::Get, opts);
        let TaskAnswer::Task(mut task) = answer.await.map_err(error_data)? else {
            return Err(ErrorData::internal_error(
                "the server answered tasks/get without the task",
                None,
            ));
        };
        task.task.task.task_id = found.id.clone();
        if let Some(status) = terminal(task.task.status())
            && found.ended.is_none()
            && self.end_task(&found.id, status).await
        {
            let detail = format!(
                "task={} upstream_task={} surface=mcp",
                found.id, record.upstream_id
            );
            self.audit_task(AuditEntry {
                at: now_ms(),
                org_id: caller.org_id,
                agent_id: caller.agent_id,
                end_user_id: end_user,
                token_id: caller.token_id,
                action_id: format!("mcp.{}.{}", record.server, record.tool),
                server: Some(record.server.clone()),
                verdict: "allowed".into(),
                outcome: format!("task_{status}"),
                detail: Some(detail),
                ..Default::default()
            });
        }
        Ok(*task)
    }

    /// This caller's task `id`, the registry that runs it and the options to reach it with.
    async fn find_task(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<(Found, Registry, CallOptions), ErrorData> {
        let view = self.view(&context.extensions, Some(&context.meta));
        let opts = self.options(context, view.caller.clone());
        let found = self.load_task(id, &owner(&opts)).await?;
        let found = found.ok_or_else(|| unknown_task(id))?;
        let registry = (view.registries.iter())
            .find(|r| r.owner().key() == found.record.registry)
            .cloned()
            .ok_or_else(|| unknown_task(id))?;
        let here = self.orgs.as_ref().map(|c| c.replica.to_string());
        if let Some(owning) = &found.record.replica
            && here.as_ref() != Some(owning)
        {
            return Err(ErrorData::internal_error(
                format!(
                    "task {id:?} runs in the process of stdio server {} on replica {owning}: a stdio server's tasks live in the process that made them; send this caller's requests to that replica (sticky routing, docs/replicas.md)",
                    found.record.server
                ),
                Some(serde_json::json!({"replica": owning})),
            ));
        }
        Ok((found, registry, opts))
    }

    async fn save_task(
        &self,
        id: &str,
        owner: &str,
        record: &Record,
        expires_ms: i64,
    ) -> Result<(), String> {
        match self.orgs.as_ref().map(|c| &c.store) {
            Some(store) => {
                let json = serde_json::to_string(record).map_err(|e| e.to_string())?;
                (store.save_task(id, owner, &json, expires_ms).await).map_err(|e| e.to_string())
            }
            None => {
                let mut local = LOCAL.lock();
                let now = now_ms();
                local.retain(|_, (_, _, expires, _)| *expires > now);
                if local.len() >= MAX_LOCAL {
                    return Err(format!(
                        "this process keeps {MAX_LOCAL} tasks already (without a store, tasks live in the process until they expire)"
                    ));
                }
                let kept = (owner.to_string(), record.clone(), expires_ms, None);
                local.insert(id.to_string(), kept);
                Ok(())
            }
        }
    }

    async fn load_task(&self, id: &str, owner: &str) -> Result<Option<Found>, ErrorData> {
        let (record, ended) = match self.orgs.as_ref().map(|c| &c.store) {
            Some(store) => {
                let row = store.load_task(id, owner).await.map_err(|e| {
                    ErrorData::internal_error(format!("cannot read the task: {e}"), None)
                })?;
                let Some((json, ended)) = row else {
                    return Ok(None);
                };
                let record = serde_json::from_str(&json).map_err(|e| {
                    ErrorData::internal_error(format!("the stored task is unreadable: {e}"), None)
                })?;
                (record, ended)
            }
            None => match LOCAL.lock().get(id) {
                Some((o, record, expires, ended)) if o == owner && *expires > now_ms() => {
                    (record.clone(), ended.clone())
                }
                _ => return Ok(None),
            },
        };
        Ok(Some(Found {
            id: id.to_string(),
            record,
            ended,
        }))
    }

    /// Records the task's end: `true` only for the first to record it (one audit row).
    async fn end_task(&self, id: &str, status: &str) -> bool {
        match self.orgs.as_ref().map(|c| &c.store) {
            Some(store) => store.end_task(id, status).await.unwrap_or_else(|e| {
                tracing::warn!(task = %id, "cannot record the task's end: {e}");
                false
            }),
            None => match LOCAL.lock().get_mut(id) {
                Some((_, _, _, ended @ None)) => {
                    *ended = Some(status.to_string());
                    true
                }
                _ => false,
            },
        }
    }

    fn audit_task(&self, entry: AuditEntry) {
        match (self.orgs.as_ref().map(|c| &c.audit)).or(self.audit.as_ref()) {
            Some(audit) => audit.record_now(entry),
            None => {
                tracing::info!(action = %entry.action_id, outcome = %entry.outcome, "{}", entry.detail.unwrap_or_default())
            }
        }
    }
}
