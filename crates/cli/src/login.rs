//! `switchboard auth login SERVER`: the authorization code flow from a terminal, with the
//! browser sent back to a loopback listener of this process.

use crate::args::Global;
use crate::setup;
use anyhow::{Context, bail};
use serde_json::json;
use std::process::ExitCode;
use std::time::Duration;
use switchboard_core::{OAuthSpec, ServerStatus, Transport};
use switchboard_registry::ServerInfo;

/// Authorizations in one login, at most (a server asking for more scope each time stops here).
const MAX_ROUNDS: usize = 3;

pub(crate) async fn run(
    global: &Global,
    server: &str,
    open_with: Option<String>,
    port: u16,
    force: bool,
    wait: Duration,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let config = setup::load_config(global)?;
    let spec = setup::server_spec(&config, server)?.clone();
    match &spec.transport {
        Transport::Http(http)
            if matches!(http.oauth, Some(OAuthSpec::AuthorizationCode { .. })) => {}
        _ => bail!(
            "server {server} does not use auth type authorizationCode, so there is nothing to log in to; its credentials come from its config entry"
        ),
    }
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .with_context(|| format!("cannot listen on 127.0.0.1:{port} for the callback"))?;
    let base = format!("http://{}", listener.local_addr()?);
    // The browser comes back to this process, whatever the gateway's redirect base is.
    let oauth = setup::oauth_opening_store(global, &config)
        .await?
        .with_redirect_base(base);
    let tokens = oauth.tokens.clone();
    let registry = setup::registry(global, &config, None, None, Some(oauth), None, None)?;
    let callback = tokio::spawn(switchboard_server::serve_oauth_callback(
        listener,
        registry.clone(),
    ));

    let mut info = registry.add_server(spec.clone()).await;
    let key = switchboard_upstream::auth::token_key(&spec);
    let wanted = tokens
        .load(&key)
        .await
        .ok()
        .flatten()
        .is_some_and(|r| !r.wanted_scopes.is_empty());
    if info.status == ServerStatus::Ready && (force || wanted) {
        info = registry
            .reauthorize(server)
            .await
            .map_err(anyhow::Error::msg)?;
    }
    let mut rounds = 0;
    while info.status == ServerStatus::Authenticating {
        rounds += 1;
        if rounds > MAX_ROUNDS {
            bail!(
                "auth_unavailable: server {server} still refuses after {MAX_ROUNDS} authorizations: {}",
                info.last_error.unwrap_or_default()
            );
        }
        let url = info.authorize_url.clone().unwrap_or_default();
        // Only what happens after the browser is sent off counts (nothing can come back
        // before, so subscribing here misses nothing).
        let mut changes = registry.subscribe_status();
        match &open_with {
            Some(program) => {
                let status = tokio::process::Command::new(program)
                    .arg(&url)
                    .status()
                    .await
                    .with_context(|| format!("cannot run {program}"))?;
                if !status.success() {
                    tracing::warn!("{program} exited with {status}");
                }
            }
            None => eprintln!(
                "Open this URL to authorize {server} (waiting up to {}s):\n\n  {url}\n",
                wait.as_secs()
            ),
        }
        info = tokio::time::timeout(wait, settled(&mut changes, server))
            .await
            .map_err(|_| {
                anyhow::anyhow!(
                    "auth_unavailable: nobody came back from the authorization page within {}s; run the command again",
                    wait.as_secs()
                )
            })??;
    }
    callback.abort();
    registry.shutdown().await;
    if json {
        println!(
            "{}",
            json!({"server": server, "status": info.status, "tool_count": info.tool_count, "error": info.last_error})
        );
    }
    if info.status != ServerStatus::Ready {
        bail!(
            "auth_unavailable: server {server} is {}: {}",
            info.status,
            info.last_error.unwrap_or_default()
        );
    }
    if !json {
        println!(
            "{server} is authorized: ready, {} tool(s); its tokens are saved for `switchboard serve`",
            info.tool_count
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The next state of `server` after the callback: past `connecting`.
async fn settled(
    changes: &mut tokio::sync::broadcast::Receiver<ServerInfo>,
    server: &str,
) -> anyhow::Result<ServerInfo> {
    loop {
        match changes.recv().await {
            Ok(info) if info.name == server && info.status != ServerStatus::Connecting => {
                return Ok(info);
            }
            Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
            Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                bail!("the registry stopped")
            }
        }
    }
}
