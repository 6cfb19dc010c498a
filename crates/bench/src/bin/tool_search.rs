//! Issue 16's context figures through `switchboard serve` (release build): the evaluation
//! set's tools (crates/search/evalset/tools.json, each server an rmcp echo server offering its
//! share over stdio) behind one `/mcp`, listed in `all` mode, against search mode's
//! `tools/list` plus a typical `search_tools` answer and one `describe_tool` (the held-out
//! queries; medians), in bytes and approximate tokens (bytes ÷ 4); and the p50 of a
//! `search_tools` call over `/mcp`, with the meaning ranking and with words alone.
//!
//! Run: `cargo build --release -p switchboard -p switchboard-testkit -p switchboard-bench`,
//! then `target/release/tool-search` (`--json` for a JSON line).

#[path = "../procs.rs"]
#[allow(dead_code)]
mod procs;
#[path = "../raw.rs"]
mod raw;

use anyhow::{Context, ensure};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn eval_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../search/evalset")
        .join(name)
}

/// The JSON-RPC result in an answer (plain JSON, or the response event of an SSE stream).
fn result_of(body: &str) -> anyhow::Result<Value> {
    let message = (body.lines())
        .filter_map(|l| l.strip_prefix("data: "))
        .chain(std::iter::once(body))
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .find(|m| m.get("id").is_some())
        .with_context(|| format!("no JSON-RPC response in {body:.200}"))?;
    ensure!(
        message["result"].is_object(),
        "not a result: {message:.300}"
    );
    Ok(message["result"].clone())
}

/// The size a model is handed: the result as compact JSON.
fn size(result: &Value) -> usize {
    result.to_string().len()
}

/// A gateway over `servers` with `settings` as its `[gateway]` table; `label` names its
/// files and data folder.
async fn gateway(
    bin: &Path,
    dir: &Path,
    label: &str,
    settings: &str,
    servers: &Value,
) -> anyhow::Result<procs::Spawned> {
    let config = dir.join(format!("{label}.json"));
    std::fs::write(
        &config,
        serde_json::to_vec(&json!({"mcpServers": servers}))?,
    )?;
    let settings_file = dir.join(format!("{label}.toml"));
    std::fs::write(&settings_file, format!("[gateway]\n{settings}\n"))?;
    procs::serve(
        &bin.join("switchboard"),
        &[&config, &settings_file],
        &dir.join(label),
        &[],
        "switchboard ready: ",
    )
    .await
}

/// Search mode ranking by words alone.
const WORDS_ONLY: &str = "tools_mode = \"search\"\ntools_search_meaning = false";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let as_json = std::env::args().any(|a| a == "--json");
    let bin = procs::release_dir()?;
    let tools_file = eval_file("tools.json");
    let tools: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&tools_file)?)?;
    let names: BTreeSet<&str> = tools.iter().filter_map(|t| t["server"].as_str()).collect();
    let echo = bin.join("echo-server");
    let servers: serde_json::Map<String, Value> = names
        .iter()
        .map(|name| {
            let args = json!(["--tools-file", tools_file, "--tools-server", name]);
            (name.to_string(), json!({"command": echo, "args": args}))
        })
        .collect();
    let servers = Value::Object(servers);
    let queries: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(eval_file("queries.json"))?)?;
    let held_out: Vec<&str> = queries
        .iter()
        .filter(|q| q["split"] == "held_out")
        .filter_map(|q| q["query"].as_str())
        .collect();
    let dir = tempfile::tempdir()?;
    let http = reqwest::Client::new();

    let all = gateway(&bin, dir.path(), "all", "tools_mode = \"all\"", &servers).await?;
    let mut session = raw::RawSession::open(http.clone(), &all.url).await?;
    let listed = result_of(&session.request("tools/list", json!({})).await?)?;
    let all_count = listed["tools"].as_array().map_or(0, Vec::len);
    let all_bytes = size(&listed);
    drop(all);

    let search = gateway(
        &bin,
        dir.path(),
        "search",
        "tools_mode = \"search\"",
        &servers,
    )
    .await?;
    let mut session = raw::RawSession::open(http, &search.url).await?;
    let meta = result_of(&session.request("tools/list", json!({})).await?)?;
    let meta_bytes = size(&meta);
    let (mut answers, mut described) = (Vec::new(), Vec::new());
    for query in &held_out {
        let params = json!({"name": "search_tools", "arguments": {"query": query}});
        let found = result_of(&session.request("tools/call", params).await?)?;
        answers.push(size(&found));
        let Some(first) = found["structuredContent"]["tools"][0]["name"].as_str() else {
            continue;
        };
        let params = json!({"name": "describe_tool", "arguments": {"name": first}});
        described.push(size(&result_of(
            &session.request("tools/call", params).await?,
        )?));
    }
    let (answer, describe) = (procs::median(answers), procs::median(described));
    let search_total = meta_bytes + answer + describe;
    let saved = 1.0 - search_total as f64 / all_bytes as f64;
    // Latency: the same calls to this gateway and to one with words alone
    // (`tools_search_meaning = false`), same binary, both running, taking turns query by
    // query (which goes first alternates), three passes; so a slow moment of the machine
    // falls on both.
    let words = gateway(&bin, dir.path(), "words", WORDS_ONLY, &servers).await?;
    let mut words_session = raw::RawSession::open(reqwest::Client::new(), &words.url).await?;
    let (mut times, mut words_times) = (Vec::new(), Vec::new());
    for (turn, query) in held_out.iter().cycle().take(3 * held_out.len()).enumerate() {
        let params = json!({"name": "search_tools", "arguments": {"query": query}});
        for side in [turn % 2, 1 - turn % 2] {
            let (target, into) = if side == 0 {
                (&mut session, &mut times)
            } else {
                (&mut words_session, &mut words_times)
            };
            let started = Instant::now();
            result_of(&target.request("tools/call", params.clone()).await?)?;
            into.push(started.elapsed());
        }
    }
    let p50: Duration = procs::median(times);
    let words_p50: Duration = procs::median(words_times);
    drop((search, words));
    let report = json!({
        "tools": all_count, "servers": names.len(), "queries": held_out.len(),
        "all_mode_list_bytes": all_bytes, "search_mode_list_bytes": meta_bytes,
        "search_answer_bytes_p50": answer, "describe_answer_bytes_p50": describe,
        "search_mode_total_bytes": search_total, "saved": (saved * 1000.0).round() / 1000.0,
        "search_tools_call_p50_us": p50.as_micros() as u64,
        "search_tools_words_only_call_p50_us": words_p50.as_micros() as u64,
    });
    if as_json {
        println!("{report}");
        return Ok(());
    }
    println!(
        "{all_count} tools from {} servers; {} held-out queries",
        names.len(),
        held_out.len()
    );
    println!(
        "all mode:    tools/list {all_bytes} bytes (~{} tokens)",
        all_bytes / 4
    );
    println!(
        "search mode: tools/list {meta_bytes} + search_tools answer {answer} (median) + describe_tool {describe} (median) = {search_total} bytes (~{} tokens)",
        search_total / 4
    );
    println!(
        "search mode hands a model {:.1} % fewer bytes",
        saved * 100.0
    );
    println!(
        "search_tools over /mcp: p50 {p50:?}, words alone (tools_search_meaning = false) {words_p50:?} ({} calls each, taking turns)",
        3 * held_out.len()
    );
    Ok(())
}
