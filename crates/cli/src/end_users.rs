//! `switchboard end-users`: set an end user's own key or token for a per-end-user server,
//! list what end users granted, revoke a grant (sealed in the store; audited).

use crate::args::{EndUsersCommand, Global, GrantArgs};
use crate::control::Control;
use anyhow::{Context, bail};
use serde_json::json;
use std::io::{IsTerminal, Read};
use std::process::ExitCode;
use switchboard_core::{GrantKey, Owner};
use switchboard_server::StoredGrants;
use switchboard_store::{Change, ChangeKind, GrantRow, Store, now_ms};

pub(crate) async fn run(global: &Global, command: EndUsersCommand) -> anyhow::Result<ExitCode> {
    match command {
        EndUsersCommand::SetKey { grant, json } => set_key(global, &grant, json).await,
        EndUsersCommand::List {
            end_user,
            org,
            json,
        } => list(global, end_user.as_deref(), org.as_deref(), json).await,
        EndUsersCommand::Revoke { grant } => revoke(global, &grant).await,
    }
}

/// The org id `--org` names (`operator` without it: the end users of the operator's callers).
async fn org_id(control: &Control, org: Option<&str>) -> anyhow::Result<String> {
    let Some(name) = org else {
        return Ok("operator".into());
    };
    match control.store.org_by_name(name).await? {
        Some(org) => Ok(org.id),
        None => bail!("no org named {name:?}; `switchboard org list` shows them"),
    }
}

/// The grant key of `end_user` on `server` for `org_id`: the org's API server of that name,
/// else the operator's config server (it must be per end user).
async fn grant_key(
    global: &Global,
    control: &Control,
    org_id: &str,
    end_user: &str,
    server: &str,
) -> anyhow::Result<GrantKey> {
    // The org's own API server of that name first, as the REST API and calls choose.
    let own = org_id != "operator"
        && (control.store.servers(org_id).await?)
            .iter()
            .any(|r| r.slug == server && r.deleted_at.is_none());
    let config = crate::setup::load_config(global).ok();
    let configured = config
        .as_ref()
        .and_then(|c| c.servers.iter().find(|s| s.name.as_str() == server));
    let owner = match configured {
        _ if own => Owner::Org(org_id.to_string()),
        Some(spec) if spec.end_user_credentials.is_none() => bail!(
            "server {server} uses one credential for every caller: only a server with credentials = \"per_end_user\" keeps one per end user"
        ),
        Some(_) => Owner::Operator,
        None => bail!(
            "no server named {server:?} in the config (or, with --org, among the org's API servers); `switchboard status` lists them"
        ),
    };
    Ok(GrantKey {
        org: org_id.to_string(),
        owner: owner.key(),
        server: server.to_string(),
        end_user: end_user.to_string(),
    })
}

fn read_secret(end_user: &str, server: &str) -> anyhow::Result<String> {
    let secret = if std::io::stdin().is_terminal() {
        rpassword::prompt_password(format!("{end_user}'s key or token for {server} (hidden): "))?
    } else {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read the key from stdin")?;
        text.trim_end_matches(['\r', '\n']).to_string()
    };
    if secret.trim().is_empty() || secret.contains(['\r', '\n']) {
        bail!("the key must be one non-empty line; nothing stored");
    }
    Ok(secret)
}

/// The store, the key of the grant `args` names, and the grants there.
async fn open_grant(
    global: &Global,
    args: &GrantArgs,
) -> anyhow::Result<(Control, GrantKey, StoredGrants)> {
    let control = Control::open(global).await?;
    let org_id = org_id(&control, args.org.as_deref()).await?;
    let key = grant_key(global, &control, &org_id, &args.end_user, &args.server).await?;
    let grants = control.grants.clone();
    Ok((control, key, grants))
}

async fn set_key(global: &Global, args: &GrantArgs, json: bool) -> anyhow::Result<ExitCode> {
    let (control, key, grants) = open_grant(global, args).await?;
    let secret = read_secret(&args.end_user, &args.server)?;
    let row = (grants.set_secret(&key, &secret).await).map_err(anyhow::Error::msg)?;
    changed(&control, &row, "end_user.grant").await?;
    match json {
        true => println!("{}", serde_json::to_string_pretty(&shown(&row))?),
        false => println!(
            "stored {}'s credential for {}, sealed (grant {}); a running gateway uses it at once on Postgres, within 5 s on SQLite",
            args.end_user, args.server, row.id
        ),
    }
    Ok(ExitCode::SUCCESS)
}

async fn revoke(global: &Global, args: &GrantArgs) -> anyhow::Result<ExitCode> {
    let (control, key, grants) = open_grant(global, args).await?;
    let gone = (grants.revoke(&key.store_key()).await).map_err(anyhow::Error::msg)?;
    let Some(row) = gone else {
        bail!(
            "{} has no grant for {}; `switchboard end-users list` shows the grants",
            args.end_user,
            args.server
        );
    };
    changed(&control, &row, "end_user.revoke").await?;
    println!(
        "revoked {}'s grant {} for {}",
        args.end_user, row.id, args.server
    );
    Ok(ExitCode::SUCCESS)
}

/// Audits a change to `row` and tells the running replicas (Postgres; on SQLite a running
/// `serve` reads grants again within 5 s).
async fn changed(control: &Control, row: &GrantRow, action: &str) -> anyhow::Result<()> {
    control
        .record(switchboard_server::grant_audit_entry(
            row,
            action,
            switchboard_core::Surface::Cli,
            None,
        ))
        .await;
    let change = Change {
        org_id: String::new(),
        server_id: row.key.clone(),
        replica: "cli".into(),
        kind: ChangeKind::Grant,
    };
    control.store.publish_change(&change).await?;
    Ok(())
}

fn shown(row: &GrantRow) -> serde_json::Value {
    serde_json::to_value(row).unwrap_or_default()
}

async fn list(
    global: &Global,
    end_user: Option<&str>,
    org: Option<&str>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let control = Control::open(global).await?;
    let org_id = org_id(&control, org).await?;
    let rows = control.store.grants(&org_id, end_user).await?;
    if json {
        let shown: Vec<_> = rows.iter().map(shown).collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({"grants": shown}))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    if rows.is_empty() {
        println!("no grants");
    }
    let when = |ms: Option<i64>| ms.map_or_else(|| "never".to_string(), age);
    for row in &rows {
        println!(
            "{}\t{}\t{}\t{}\tissued {}\tlast used {}",
            row.end_user,
            row.server,
            row.kind,
            row.id,
            age(row.issued_at),
            when(row.last_used_at)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// How long ago `ms` (Unix milliseconds) was, roughly: `40s ago`, `3h ago`.
fn age(ms: i64) -> String {
    let secs = (now_ms() - ms).max(0) / 1000;
    match secs {
        s if s < 120 => format!("{s}s ago"),
        s if s < 7200 => format!("{}m ago", s / 60),
        s if s < 172_800 => format!("{}h ago", s / 3600),
        s => format!("{}d ago", s / 86_400),
    }
}
