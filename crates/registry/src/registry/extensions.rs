//! Requests of the extensions routed to one server: a task's `tasks/*` by the server's own
//! task id, and the children of a skill's directory.

use super::Registry;
use rmcp::model::ReadResourceDirectoryResult;
use switchboard_core::{CallError, ErrorKind};
use switchboard_upstream::{CallOptions, TaskAnswer, TaskRequest};

impl Registry {
    /// Sends `request` about `server`'s task `task_id` (the server's id), for a caller who
    /// sees the server.
    pub async fn task(
        &self,
        server: &str,
        task_id: &str,
        request: TaskRequest,
        opts: CallOptions,
    ) -> Result<TaskAnswer, CallError> {
        if !self.server_visible(&opts.caller, server).await {
            return Err(CallError::new(
                ErrorKind::InvalidRequest,
                format!("server {server} is not offered to this caller"),
            ));
        }
        self.on_server(server, opts, |conn, _| async move {
            conn.task(task_id, request).await
        })
        .await
    }

    /// One page of the children of the directory `uri` names on `server` (its upstream
    /// URI), for a caller who sees the server.
    pub async fn read_directory(
        &self,
        server: &str,
        uri: &str,
        cursor: Option<String>,
        opts: CallOptions,
    ) -> Result<ReadResourceDirectoryResult, CallError> {
        if !self.server_visible(&opts.caller, server).await {
            return Err(CallError::new(
                ErrorKind::InvalidRequest,
                format!("no server offers resource {uri:?}"),
            ));
        }
        self.on_server(server, opts, |conn, _| async move {
            conn.read_directory(uri, cursor).await
        })
        .await
    }
}
