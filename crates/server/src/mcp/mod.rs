//! The aggregated MCP endpoint: the handler (`gateway`), the endpoint assembled once in front of
//! rmcp's Streamable HTTP transport (`endpoint`, with its fast path), what upstreams ask of the
//! caller (`relay`, `resume`), downstream sessions (`sessions`) and the per-agent endpoints.

pub(crate) mod agents;
pub(crate) mod endpoint;
pub(crate) mod fast_path;
pub(crate) mod gateway;
pub(crate) mod handed_back;
pub(crate) mod relay;
pub(crate) mod resume;
pub(crate) mod sessions;

use switchboard_registry::Registry;

/// Serves the aggregated endpoint on this process's stdin/stdout until the client hangs up;
/// what is audited besides calls (a task's end) goes to `audit`.
pub async fn serve_stdio(
    registry: Registry,
    audit: Option<switchboard_store::AuditWriter>,
) -> Result<(), std::io::Error> {
    use rmcp::ServiceExt;
    let mut gateway = gateway::Gateway::new(registry);
    if let Some(audit) = audit {
        gateway = gateway.with_audit(audit);
    }
    let running = gateway
        .serve(rmcp::transport::stdio())
        .await
        .map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    Ok(())
}
