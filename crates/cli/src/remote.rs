//! Commands that talk to a running gateway's REST API: `status [--watch]` and `server OP ID`.

use crate::args::{Remote, ServerOperation};
use crate::table;
use anyhow::{Context, bail};
use futures::StreamExt;
use serde_json::Value;
use std::process::ExitCode;

fn client() -> reqwest::Client {
    reqwest::Client::new()
}

async fn answer(response: reqwest::Response) -> anyhow::Result<Value> {
    let status = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    if !status.is_success() {
        let message = body["error"]["message"].as_str().unwrap_or("no details");
        bail!("the gateway answered {status}: {message}");
    }
    Ok(body)
}

fn unreachable(remote: &Remote) -> String {
    format!(
        "cannot reach the gateway at {}; is `switchboard serve` running there (see --url)?",
        remote.url
    )
}

/// What a person should know about a server beyond its state: where to authorize it, or
/// its last error.
fn detail(server: &Value) -> String {
    match server["authorize_url"].as_str() {
        Some(url) => format!("authorize at {url}"),
        None => server["last_error"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    }
}

/// The servers the gateway lists for this token (config-file and API ones).
async fn servers(remote: &Remote) -> anyhow::Result<Vec<Value>> {
    let response = client()
        .get(format!("{}/api/integrations/mcp/servers", remote.url))
        .bearer_auth(remote.token()?)
        .send()
        .await
        .with_context(|| unreachable(remote))?;
    let body = answer(response).await?;
    Ok(body["servers"].as_array().cloned().unwrap_or_default())
}

pub(crate) async fn status(remote: &Remote, watch: bool, json: bool) -> anyhow::Result<ExitCode> {
    if watch {
        return watch_status(remote, json).await;
    }
    let servers = servers(remote).await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&servers)?);
        return Ok(ExitCode::SUCCESS);
    }
    let rows: Vec<Vec<String>> = servers
        .iter()
        .map(|s| {
            vec![
                s["slug"].as_str().unwrap_or_default().to_string(),
                s["id"].as_str().unwrap_or_default().to_string(),
                s["source"].as_str().unwrap_or("api").to_string(),
                s["status"].as_str().unwrap_or_default().to_string(),
                s["discovered_tools"]
                    .as_array()
                    .map_or(0, Vec::len)
                    .to_string(),
                detail(s),
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(&["NAME", "ID", "SOURCE", "STATUS", "TOOLS", "ERROR"], &rows)
    );
    Ok(ExitCode::SUCCESS)
}

/// Prints every state change the gateway announces (server-sent events) until it goes away.
async fn watch_status(remote: &Remote, json: bool) -> anyhow::Result<ExitCode> {
    let response = client()
        .get(format!("{}/api/integrations/mcp/events", remote.url))
        .bearer_auth(remote.token()?)
        .send()
        .await
        .with_context(|| unreachable(remote))?;
    if !response.status().is_success() {
        answer(response).await?;
        return Ok(ExitCode::FAILURE);
    }
    let mut body = response.bytes_stream();
    let mut pending = String::new();
    while let Some(chunk) = body.next().await {
        pending.push_str(&String::from_utf8_lossy(
            &chunk.context("the event stream broke")?,
        ));
        while let Some(end) = pending.find('\n') {
            let line: String = pending.drain(..=end).collect();
            let Some(data) = line.trim_end().strip_prefix("data:") else {
                continue;
            };
            let event: Value = serde_json::from_str(data.trim()).unwrap_or(Value::Null);
            let line = match json {
                true => event.to_string(),
                false => format!(
                    "{:<20} {:<7} {:<13} tools={:<4} pid={:<7} {}",
                    event["server"].as_str().unwrap_or_default(),
                    event["source"].as_str().unwrap_or_default(),
                    event["status"].as_str().unwrap_or_default(),
                    event["tool_count"],
                    event["pid"],
                    detail(&event),
                ),
            };
            // A reader that went away (`| head`) ends the watch quietly.
            if !said(&line) {
                return Ok(ExitCode::SUCCESS);
            }
        }
    }
    eprintln!("the gateway closed the event stream");
    Ok(ExitCode::SUCCESS)
}

/// Writes one line to stdout; `false` once nobody reads it (a closed pipe).
fn said(line: &str) -> bool {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").and_then(|()| out.flush()).is_ok()
}

/// A server's id from what a person typed: an id (`srv_…`, `config:NAME`) as it is, else the
/// name of one server the gateway lists (`time` for `config:time`).
async fn server_id(remote: &Remote, typed: &str) -> anyhow::Result<String> {
    if typed.starts_with("srv_") || typed.contains(':') {
        return Ok(typed.to_string());
    }
    // A token that may operate config-file servers but not list the org's: a name is one of
    // the config files'.
    let Ok(servers) = servers(remote).await else {
        return Ok(format!("config:{typed}"));
    };
    let live = |s: &&Value| s["status"].as_str() != Some("deleted");
    let named: Vec<&Value> = (servers.iter())
        .filter(live)
        .filter(|s| s["slug"].as_str() == Some(typed))
        .collect();
    match named.as_slice() {
        [one] => Ok(one["id"].as_str().unwrap_or(typed).to_string()),
        [] => bail!("no server named {typed:?} here; `switchboard status` lists the names and ids"),
        _ => bail!(
            "several servers are named {typed:?} (a config-file one and an API one); pass the id from `switchboard status`"
        ),
    }
}

pub(crate) async fn operate(
    remote: &Remote,
    operation: ServerOperation,
    id: &str,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let name = format!("{operation:?}").to_lowercase();
    let id = &server_id(remote, id).await?;
    let request = match operation {
        ServerOperation::Remove => {
            client().delete(format!("{}/api/integrations/mcp/servers/{id}", remote.url))
        }
        _ => client().post(format!(
            "{}/api/integrations/mcp/servers/{id}/{name}",
            remote.url
        )),
    };
    let response = request
        .bearer_auth(remote.token()?)
        .send()
        .await
        .with_context(|| unreachable(remote))?;
    let row = answer(response).await?;
    if json {
        println!("{row}");
    } else {
        println!(
            "{} {}: {}{}",
            row["slug"]
                .as_str()
                .or_else(|| row["server"].as_str())
                .unwrap_or(id),
            name,
            row["status"].as_str().unwrap_or_default(),
            row["last_error"]
                .as_str()
                .map(|e| format!(" ({e})"))
                .unwrap_or_default()
        );
    }
    Ok(ExitCode::SUCCESS)
}
