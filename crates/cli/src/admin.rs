//! Control-plane commands: orgs, API tokens, key rotation.

use crate::args::Global;
use crate::control::{Control, key_file};

use anyhow::{Context, bail};
use serde_json::json;
use std::process::ExitCode;
use std::sync::Arc;
use switchboard_store::{Sealer, Store, new_api_token};

/// Roles an API token may carry.
const ROLES: [&str; 4] = [
    switchboard_server::MANAGE,
    switchboard_server::VIEW,
    switchboard_server::OPERATE,
    switchboard_core::end_user::ASSERT_ROLE,
];

pub(crate) async fn org_create(
    global: &Global,
    name: &str,
    features: &[String],
    json: bool,
) -> anyhow::Result<ExitCode> {
    let control = Control::open(global).await?;
    let org = control
        .store
        .create_org(name, features)
        .await
        .with_context(|| format!("cannot create org {name:?}"))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&org)?);
    } else {
        println!(
            "created org {} ({}) features: {}",
            org.name,
            org.id,
            org.features.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) async fn token_create(
    global: &Global,
    org: &str,
    roles: &[String],
    json: bool,
) -> anyhow::Result<ExitCode> {
    if let Some(bad) = roles.iter().find(|r| !ROLES.contains(&r.as_str())) {
        bail!("unknown role {bad:?}; use {}", ROLES.join(", "));
    }
    let control = Control::open(global).await?;
    let Some(org) = control.store.org_by_name(org).await? else {
        bail!("no org named {org:?}; create it with `switchboard org create {org}`");
    };
    let (token, hash) = new_api_token();
    let stored = control.store.create_token(&org.id, roles, &hash).await?;
    if json {
        println!(
            "{}",
            json!({"token": token, "id": stored.id, "org": org.name, "roles": stored.roles})
        );
    } else {
        println!("{token}");
        eprintln!(
            "token {} for org {} with roles {}: shown once, store it now",
            stored.id,
            org.name,
            stored.roles.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) async fn keys_rotate(global: &Global) -> anyhow::Result<ExitCode> {
    if std::env::var("SWITCHBOARD_MASTER_KEY").is_ok() {
        bail!(
            "the master key comes from SWITCHBOARD_MASTER_KEY; rotating is for the key file: unset it, or rotate the key where you manage it"
        );
    }
    let control = Control::open(global).await?;
    let new_id = Sealer::rotate_key_file(&key_file(global))?;
    let sealer = Sealer::load(None, &key_file(global))?;
    let mut resealed = 0;
    for mut row in control.store.all_servers().await? {
        let Some(sealed) = row.credentials.clone() else {
            continue;
        };
        if !sealer.is_stale(&sealed) {
            continue;
        }
        let plain = sealer
            .open(&row.id, "credentials", &sealed)
            .with_context(|| format!("cannot open the credentials of server {}", row.id))?;
        row.credentials = Some(sealer.seal(&row.id, "credentials", &plain));
        control.store.update_server(&row).await?;
        resealed += 1;
    }
    let inputs = crate::inputs::reseal(&control, &sealer).await?;
    let tokens = switchboard_server::SealedTokens {
        store: control.store.clone(),
        sealer: Arc::new(sealer),
    }
    .reseal()
    .await
    .map_err(anyhow::Error::msg)?;
    println!(
        "new key {new_id}; re-sealed {resealed} credential(s), {tokens} OAuth token record(s) and {inputs} input(s)"
    );
    Ok(ExitCode::SUCCESS)
}
