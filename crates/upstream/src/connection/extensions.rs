//! Requests of the extensions a server declares: the tasks extension's (`tasks/get`,
//! `tasks/update`, `tasks/cancel`) to the server that made a task, each declaring the
//! extension as a 2026-07-28 request must; the skills extension's directory listing.

use super::Connection;
use crate::UpstreamError;
use crate::relay::TASKS_EXTENSION;
use rmcp::model::{
    CancelTaskParams, CancelTaskRequest, ClientCapabilities, ClientRequest, GetTaskParams,
    GetTaskRequest, GetTaskResult, InputResponses, RequestMetaObject, ServerResult,
    UpdateTaskParams, UpdateTaskRequest,
};
use rmcp::service::PeerRequestOptions;

/// One request about an upstream's task, by the upstream's own id.
#[derive(Debug, Clone)]
pub enum TaskRequest {
    Get,
    Update(InputResponses),
    Cancel,
}

/// What the server answered a [`TaskRequest`].
#[derive(Debug)]
pub enum TaskAnswer {
    Task(Box<GetTaskResult>),
    /// The empty acknowledgement of `tasks/update` and `tasks/cancel`.
    Ack,
}

impl Connection {
    /// Sends `request` about the task `task_id` (the server's id) within the call timeout.
    pub async fn task(
        &self,
        task_id: &str,
        request: TaskRequest,
    ) -> Result<TaskAnswer, UpstreamError> {
        if !self.asks_for_input {
            return Err(UpstreamError::Unsupported(format!(
                "{} does not speak 2026-07-28, the revision of the tasks extension",
                self.server
            )));
        }
        let request = match request {
            TaskRequest::Get => {
                ClientRequest::GetTaskRequest(GetTaskRequest::new(GetTaskParams::new(task_id)))
            }
            TaskRequest::Update(responses) => ClientRequest::UpdateTaskRequest(
                UpdateTaskRequest::new(UpdateTaskParams::new(task_id, responses)),
            ),
            TaskRequest::Cancel => ClientRequest::CancelTaskRequest(CancelTaskRequest::new(
                CancelTaskParams::new(task_id),
            )),
        };
        let mut caps = ClientCapabilities::default();
        caps.extensions = Some([(TASKS_EXTENSION.to_string(), Default::default())].into());
        let mut meta = RequestMetaObject::new();
        meta.set_client_capabilities(caps);
        let options = PeerRequestOptions::no_options().with_meta(meta);
        let send = async {
            self.peer
                .send_request_with_option(request, options)
                .await?
                .await_response()
                .await
        };
        let answer = tokio::time::timeout(self.call_timeout, send)
            .await
            .map_err(|_| UpstreamError::Timeout(self.call_timeout))?
            .map_err(UpstreamError::from_service)?;
        match answer {
            ServerResult::GetTaskResult(task) => Ok(TaskAnswer::Task(Box::new(task))),
            ServerResult::TaskAckResult(_) | ServerResult::EmptyResult(_) => Ok(TaskAnswer::Ack),
            _ => Err(UpstreamError::Unexpected),
        }
    }
}

impl Connection {
    /// One page of the children of a directory resource (`resources/directory/read`, the
    /// skills extension's `directoryRead`), within the call timeout.
    pub async fn read_directory(
        &self,
        uri: &str,
        cursor: Option<String>,
    ) -> Result<rmcp::model::ReadResourceDirectoryResult, UpstreamError> {
        let offers =
            (self.peer.peer_info()).is_some_and(|i| i.capabilities.supports_directory_read());
        if !offers {
            return Err(UpstreamError::Unsupported(format!(
                "{} does not offer resources/directory/read",
                self.server
            )));
        }
        let mut params = rmcp::model::ReadResourceDirectoryRequestParams::new(uri);
        params.cursor = cursor;
        self.bounded(self.peer.read_resource_directory(params))
            .await
    }
}
