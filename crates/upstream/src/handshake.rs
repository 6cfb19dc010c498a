//! The handshake with an upstream over each transport: which lifecycle to offer, Streamable
//! HTTP (plain or with OAuth), and the legacy HTTP+SSE transport.

use crate::connection::ConnectOptions;
use crate::direct::{DirectHttp, SessionTarget};
use crate::events::EventHandler;
use crate::{UpstreamError, UpstreamHttp};
use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use std::collections::HashMap;
use switchboard_core::{HttpSpec, Limits};

/// The server's configured headers, each marked sensitive (never logged).
fn header_map(
    spec: &HttpSpec,
) -> Result<HashMap<http::HeaderName, http::HeaderValue>, UpstreamError> {
    let mut headers = HashMap::new();
    for (name, value) in &spec.headers {
        let name = http::HeaderName::try_from(name.as_str())
            .map_err(|_| UpstreamError::Handshake(format!("invalid header name {name:?}")))?;
        let mut value = http::HeaderValue::try_from(value.as_str())
            .map_err(|_| UpstreamError::Handshake(format!("invalid value for header {name}")))?;
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    Ok(headers)
}

/// What the gateway offers an upstream: the version a server entry names, or else the newest
/// both sides speak — `server/discover` at 2026-07-28 first, then `initialize` at 2025-11-25
/// (rmcp falls back when the server answers the probe with a JSON-RPC error or a 4xx, as a
/// server from before 2026-07-28 does).
pub(crate) fn lifecycle(
    requested: Option<&str>,
) -> Result<(ProtocolVersion, ClientLifecycleMode), UpstreamError> {
    let Some(requested) = requested else {
        return Ok((
            ProtocolVersion::LATEST_WITH_INITIALIZE,
            ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::LATEST],
                legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
            },
        ));
    };
    let version: ProtocolVersion = serde_json::from_value(requested.into())
        .map_err(|e| UpstreamError::Handshake(format!("protocol_version {requested:?}: {e}")))?;
    if !ProtocolVersion::KNOWN_VERSIONS.contains(&version) {
        return Err(UpstreamError::Handshake(format!(
            "protocol_version {requested:?} is not one this build knows; use one of {}",
            ProtocolVersion::KNOWN_VERSIONS
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    if version.has_initialize() {
        Ok((version, ClientLifecycleMode::Initialize))
    } else {
        Ok((
            version.clone(),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![version],
            },
        ))
    }
}

/// The handshake over the 2024-11-05 HTTP+SSE transport, through the same egress-checked
/// client and with the same headers.
pub(crate) async fn serve_legacy_sse(
    handler: &EventHandler,
    spec: &HttpSpec,
    opts: &ConnectOptions,
    lifecycle: ClientLifecycleMode,
) -> Result<RunningService<RoleClient, EventHandler>, UpstreamError> {
    if spec.oauth.is_some() {
        return Err(UpstreamError::Handshake(
            "OAuth over the legacy HTTP+SSE transport is not supported: use the server's Streamable HTTP URL, or a bearer token".into(),
        ));
    }
    let url = opts.http.check_url(&spec.url)?;
    let mut headers: reqwest::header::HeaderMap = header_map(spec)?.into_iter().collect();
    if let Some(token) = &spec.bearer_token {
        let mut value = http::HeaderValue::try_from(format!("Bearer {token}"))
            .map_err(|_| UpstreamError::Handshake("invalid bearer token".into()))?;
        value.set_sensitive(true);
        headers.insert(http::header::AUTHORIZATION, value);
    }
    let transport = crate::legacy_sse::LegacySse::connect(
        opts.http.client().clone(),
        url,
        headers,
        opts.limits.max_message_bytes,
        |endpoint| opts.http.check_url(endpoint),
    )
    .await?;
    let transport = crate::tap::TapTransport {
        inner: transport,
        taps: handler.taps.clone(),
        replies: Default::default(),
    };
    // A server on the 2024-11-05 transport predates server/discover: no probe.
    let lifecycle = match lifecycle {
        ClientLifecycleMode::Auto { .. } => ClientLifecycleMode::Initialize,
        named => named,
    };
    handler
        .clone()
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .map_err(classify_init)
}

/// The handshake over Streamable HTTP with `client` (plain, or adding OAuth tokens), and the
/// way to send tool calls on the session it opens without rmcp's transport in between.
pub(crate) async fn serve_http<C>(
    handler: &EventHandler,
    client: C,
    config: StreamableHttpClientTransportConfig,
    lifecycle: ClientLifecycleMode,
) -> Result<(RunningService<RoleClient, EventHandler>, DirectHttp), UpstreamError>
where
    C: rmcp::transport::streamable_http_client::StreamableHttpClient<Error = reqwest::Error> + Sync,
{
    let client = crate::tap::TapClient {
        inner: client,
        taps: handler.taps.clone(),
        session: SessionTarget::default(),
    };
    let direct = DirectHttp::new(
        client.clone(),
        client.session.clone(),
        config.max_sse_event_size,
    );
    let transport = StreamableHttpClientTransport::with_client(client, config);
    let service = handler
        .clone()
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .map_err(classify_init)?;
    Ok((service, direct))
}

pub(crate) fn http_config(
    spec: &HttpSpec,
    http: &UpstreamHttp,
    limits: &Limits,
) -> Result<StreamableHttpClientTransportConfig, UpstreamError> {
    let url = http.check_url(&spec.url)?;
    let headers = header_map(spec)?;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str().to_string())
        .max_concurrent_requests(64);
    config.auth_header = spec.bearer_token.clone();
    config.custom_headers = headers;
    config.max_sse_event_size = limits.max_message_bytes;
    Ok(config)
}

pub(crate) fn classify_init(e: rmcp::service::ClientInitializeError) -> UpstreamError {
    use rmcp::service::ClientInitializeError as Init;
    // server/discover was refused as by a server from before 2026-07-28, then `initialize`
    // failed too: that second failure says what the server is (a 4xx: maybe HTTP+SSE).
    let e = match e {
        Init::LegacyFallbackFailed { fallback, .. } => *fallback,
        other => other,
    };
    if let Init::TransportError { error, .. } = &e
        && let typed @ (UpstreamError::Challenged { .. } | UpstreamError::Unauthorized(_)) =
            crate::http::classify_transport(error)
    {
        return typed;
    }
    if e.is_authorization_required() {
        return UpstreamError::Unauthorized(e.to_string());
    }
    match e {
        Init::NoCompatibleProtocolVersion { .. } | Init::ExpectedInitResult(_) => {
            UpstreamError::DiscoverFailed(crate::http::error_chain(&e))
        }
        Init::TransportError { error, context } => match crate::http::classify_transport(&error) {
            UpstreamError::Transport(reason) => {
                let reason = format!("{reason} (while trying to {context})");
                if refused_status(&error).is_some() {
                    UpstreamError::HandshakeRefused(reason)
                } else {
                    UpstreamError::Handshake(reason)
                }
            }
            typed => typed,
        },
        other => UpstreamError::Handshake(crate::http::error_chain(&other)),
    }
}

/// The 4xx status a server refused a Streamable HTTP POST with. rmcp keeps it only in the
/// message of `UnexpectedServerResponse` ("HTTP 405: body"); a test pins that shape.
fn refused_status(e: &rmcp::transport::DynamicTransportError) -> Option<u16> {
    use rmcp::transport::streamable_http_client::StreamableHttpError;
    match e
        .error
        .downcast_ref::<StreamableHttpError<reqwest::Error>>()?
    {
        StreamableHttpError::UnexpectedServerResponse(message) => status_4xx(message),
        _ => None,
    }
}

fn status_4xx(message: &str) -> Option<u16> {
    let status: u16 = message.strip_prefix("HTTP ")?.get(..3)?.parse().ok()?;
    (400..500).contains(&status).then_some(status)
}

#[cfg(test)]
mod tests {
    use super::status_4xx;

    #[test]
    fn only_a_4xx_status_is_a_refusal() {
        assert_eq!(status_4xx("HTTP 405 Method Not Allowed: "), Some(405));
        assert_eq!(status_4xx("HTTP 404 Not Found: nothing here"), Some(404));
        assert_eq!(status_4xx("HTTP 502 Bad Gateway: "), None);
        assert_eq!(status_4xx("HTTP 200 OK: "), None);
        assert_eq!(status_4xx("connection refused"), None);
    }
}
