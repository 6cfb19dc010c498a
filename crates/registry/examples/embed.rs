//! Embedding Switchboard as a library: load config files, connect, list, call or search the
//! tools, shut down.
//!
//! `cargo run -p switchboard-registry --example embed -- examples/switchboard.toml [TOOL [ARGS_JSON] | --search QUERY]`
//! (built with `--no-default-features`, search ranks by words alone and links no model).

use switchboard_core::Caller;
use switchboard_registry::{CallOptions, Registry, RegistryOptions};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let config_path = args
        .next()
        .ok_or("usage: embed CONFIG [TOOL [ARGS_JSON] | --search QUERY]")?;
    let config = switchboard_config::load(&[config_path.into()])?;

    let registry = Registry::new(RegistryOptions::default());
    for server in registry.apply_config(&config).await {
        println!(
            "{:<16} {:<6} {:<8} {} tools {}",
            server.name,
            server.transport,
            server.status,
            server.tool_count,
            server.last_error.unwrap_or_default()
        );
    }
    for tool in registry.tools() {
        println!("  {}  ->  {}", tool.exposed_name, tool.action_id);
    }
    let first = args.next();
    if first.as_deref() == Some("--search") {
        let query = args.next().ok_or("--search needs a query")?;
        for found in (registry.search_tools(&Caller::default(), &query, None, 5)).await {
            println!("{:.3}  {}", found.score, found.tool.exposed_name);
        }
    } else if let Some(tool) = first {
        let arguments = args.next().map(|a| serde_json::from_str(&a)).transpose()?;
        let options = CallOptions::default().with_end_user("example-user");
        match registry.call_tool(&tool, arguments, options).await {
            Ok(result) => println!("{}", serde_json::to_string_pretty(&result)?),
            Err(error) => eprintln!("{}: {}", error.kind, error.message),
        }
    }
    registry.shutdown().await;
    Ok(())
}
