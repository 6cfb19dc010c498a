//! VS Code `${input:ID}` values: from `SWITCHBOARD_INPUT_<ID>`, sealed in the store, or asked for.

use crate::args::{Global, InputCommand};
use crate::control::Control;
use anyhow::{Context, bail};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::ExitCode;
use switchboard_config::input_variable;
use switchboard_store::Store;

/// The sealing field of an input's value (the id is the row key).
const FIELD: &str = "input";

/// Whether a missing input may be asked for on the terminal (one-off commands only: never
/// under `serve`, and never under `stdio`, whose stdin is the MCP stream).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ask {
    OnTerminal,
    Never,
}

/// Values for the inputs `paths` use that the environment does not give, keyed by their
/// `SWITCHBOARD_INPUT_*` variable: stored ones, then (with [`Ask::OnTerminal`]) typed ones.
/// Inputs with no value stay missing; loading the config names each with its fix.
pub(crate) fn values(
    global: &Global,
    paths: &[PathBuf],
    ask: Ask,
) -> anyhow::Result<BTreeMap<String, String>> {
    let missing: Vec<String> = switchboard_config::inputs_used(paths)
        .into_iter()
        .filter(|id| std::env::var(input_variable(id)).is_err())
        .collect();
    let mut values = BTreeMap::new();
    if missing.is_empty() {
        return Ok(values);
    }
    for (id, value) in stored(global)? {
        if missing.contains(&id) {
            values.insert(input_variable(&id), value);
        }
    }
    let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if ask == Ask::OnTerminal && terminal {
        for id in &missing {
            let var = input_variable(id);
            if values.contains_key(&var) {
                continue;
            }
            let value = rpassword::prompt_password(format!(
                "value for input {id} (hidden; store it with `switchboard input set {id}` to skip this): "
            ))?;
            if !value.is_empty() {
                values.insert(var, value);
            }
        }
    }
    Ok(values)
}

/// The stored inputs, opened; none when there is no store yet (nothing is created here).
fn stored(global: &Global) -> anyhow::Result<Vec<(String, String)>> {
    if global.database_url.is_none() && !global.data.exists() {
        return Ok(Vec::new());
    }
    // Config loading is synchronous: read the store on a runtime of its own.
    let global = global.clone();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        runtime.block_on(async {
            let control = Control::open(&global).await?;
            let mut out = Vec::new();
            for (id, sealed, _) in control.store.inputs().await? {
                let value = control
                    .sealer
                    .open(&id, FIELD, &sealed)
                    .with_context(|| format!("the stored input {id} cannot be opened"))?;
                out.push((id, value));
            }
            Ok(out)
        })
    })
    .join()
    .map_err(|_| anyhow::anyhow!("reading the stored inputs failed"))?
}

pub(crate) async fn run(global: &Global, command: InputCommand) -> anyhow::Result<ExitCode> {
    match command {
        InputCommand::Set { id } => set(global, &id).await,
        InputCommand::List { json } => list(global, json).await,
        InputCommand::Remove { id } => {
            let control = Control::open(global).await?;
            if !control.store.delete_input(&id).await? {
                bail!("no stored input {id}; `switchboard input list` shows the stored ones");
            }
            println!("removed input {id}");
            Ok(ExitCode::SUCCESS)
        }
    }
}

async fn set(global: &Global, id: &str) -> anyhow::Result<ExitCode> {
    let valid = !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !valid {
        bail!(
            "{id:?} is not an input id; use the id from the file's \"inputs\" list (letters, digits, '-', '_', '.')"
        );
    }
    let value = if std::io::stdin().is_terminal() {
        rpassword::prompt_password(format!("value for input {id} (hidden): "))?
    } else {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read the value from stdin")?;
        text.trim_end_matches(['\r', '\n']).to_string()
    };
    if value.is_empty() {
        bail!("the value is empty; nothing stored");
    }
    let control = Control::open(global).await?;
    let sealed = control.sealer.seal(id, FIELD, &value);
    control.store.save_input(id, &sealed).await?;
    println!(
        "stored input {id}, sealed; ${{input:{id}}} now resolves from the store ({} overrides it)",
        input_variable(id)
    );
    Ok(ExitCode::SUCCESS)
}

async fn list(global: &Global, json: bool) -> anyhow::Result<ExitCode> {
    let control = Control::open(global).await?;
    let rows = control.store.inputs().await?;
    if json {
        let list: Vec<_> = rows
            .iter()
            .map(|(id, _, at)| json!({"id": id, "saved_at_ms": at, "variable": input_variable(id)}))
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({ "inputs": list }))?
        );
    } else if rows.is_empty() {
        println!("no stored inputs");
    } else {
        for (id, _, _) in &rows {
            println!("{id}  (overridden by {})", input_variable(id));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Seals every stored input again with the newest key; how many.
pub(crate) async fn reseal(
    control: &Control,
    sealer: &switchboard_store::Sealer,
) -> anyhow::Result<usize> {
    let mut resealed = 0;
    for (id, sealed, _) in control.store.inputs().await? {
        if !sealer.is_stale(&sealed) {
            continue;
        }
        let plain = sealer
            .open(&id, FIELD, &sealed)
            .with_context(|| format!("cannot open the stored input {id}"))?;
        control
            .store
            .save_input(&id, &sealer.seal(&id, FIELD, &plain))
            .await?;
        resealed += 1;
    }
    Ok(resealed)
}
