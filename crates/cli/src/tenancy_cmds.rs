//! `org` and `token`: tenants and their API tokens, created, listed, changed, deleted and
//! revoked at the command line (the operator's own store), each change audited.

use crate::args::{Global, OrgCommand, TokenCommand};
use crate::control::Control;
use crate::table;
use serde_json::{Value, json};
use std::process::ExitCode;
use switchboard_server::ApiError;
use switchboard_server::tenancy::{self, Actor};
use switchboard_store::{Store, now_ms};

/// An API error as the command line says it (the message names the fix).
fn said(e: ApiError) -> anyhow::Error {
    anyhow::anyhow!("{}", e.message())
}

fn print(json: bool, value: &Value, text: impl FnOnce() -> String) -> anyhow::Result<ExitCode> {
    match json {
        true => println!("{}", serde_json::to_string_pretty(value)?),
        false => print!("{}", text()),
    }
    Ok(ExitCode::SUCCESS)
}

/// A Unix time in ms as RFC 3339 (seconds), or `-`.
fn when(ms: Option<i64>) -> String {
    ms.and_then(|ms| u64::try_from(ms).ok())
        .map(|ms| std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms))
        .map_or("-".into(), |t| {
            humantime::format_rfc3339_seconds(t).to_string()
        })
}

pub(crate) async fn org(global: &Global, command: OrgCommand) -> anyhow::Result<ExitCode> {
    let control = Control::open(global).await?;
    let store: &dyn Store = control.store.as_ref();
    let (org, entry, json, done) = match command {
        OrgCommand::List { json } => {
            let orgs = store.orgs().await?;
            let rows: Vec<Vec<String>> = (orgs.iter())
                .map(|o| {
                    vec![
                        o.name.clone(),
                        o.id.clone(),
                        o.features.join(", "),
                        when(Some(o.created_at)),
                    ]
                })
                .collect();
            return print(json, &json!({"orgs": orgs}), || {
                table::render(&["NAME", "ID", "FEATURES", "CREATED"], &rows)
            });
        }
        OrgCommand::Create {
            name,
            features,
            json,
        } => {
            let (org, entry) =
                (tenancy::create_org(store, Actor::CLI, &name, &features).await).map_err(said)?;
            (org, entry, json, "created")
        }
        OrgCommand::Set {
            name,
            features,
            json,
            ..
        } => {
            let (org, entry) = (tenancy::set_org_features(store, Actor::CLI, &name, &features)
                .await)
                .map_err(said)?;
            (org, entry, json, "updated")
        }
        OrgCommand::Delete { name, json } => {
            let (org, entry) =
                (tenancy::delete_org(store, Actor::CLI, &name).await).map_err(said)?;
            (org, entry, json, "deleted")
        }
    };
    control.record(entry).await;
    print(json, &serde_json::to_value(&org)?, || {
        format!(
            "{done} org {} ({}) features: {}\n",
            org.name,
            org.id,
            org.features.join(", ")
        )
    })
}

pub(crate) async fn token(global: &Global, command: TokenCommand) -> anyhow::Result<ExitCode> {
    let control = Control::open(global).await?;
    let store: &dyn Store = control.store.as_ref();
    match command {
        TokenCommand::Create {
            org,
            roles,
            expires,
            json,
        } => {
            let (secret, token, entry) =
                (tenancy::create_token(store, Actor::CLI, &org, &roles, expires.as_deref()).await)
                    .map_err(said)?;
            control.record(entry).await;
            if json {
                let shown = json!({"id": token.id, "token": secret, "org": org, "roles": token.roles, "expires_at": token.expires_at});
                println!("{shown}");
            } else {
                println!("{secret}");
                eprintln!(
                    "token {} for org {org} with roles {}, expires {}: shown once, store it now",
                    token.id,
                    token.roles.join(", "),
                    token.expires_at.map_or("never".into(), |t| when(Some(t)))
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        TokenCommand::List { org, json } => {
            let tokens =
                (tenancy::list_tokens(store, Actor::CLI, org.as_deref()).await).map_err(said)?;
            let text = |v: &Value, k: &str| v[k].as_str().unwrap_or_default().to_string();
            let rows: Vec<Vec<String>> = (tokens.iter())
                .map(|t| {
                    let roles: Vec<&str> = (t["roles"].as_array().into_iter().flatten())
                        .filter_map(Value::as_str)
                        .collect();
                    vec![
                        text(t, "id"),
                        text(t, "org"),
                        roles.join(","),
                        text(t, "state"),
                        when(t["created_at"].as_i64()),
                        when(t["expires_at"].as_i64()),
                    ]
                })
                .collect();
            print(json, &json!({"tokens": tokens}), || {
                table::render(
                    &["ID", "ORG", "ROLES", "STATE", "CREATED", "EXPIRES"],
                    &rows,
                )
            })
        }
        TokenCommand::Revoke { id, json } => {
            let (token, entry) =
                (tenancy::revoke_token(store, Actor::CLI, &id).await).map_err(said)?;
            control.record(entry).await;
            let org = (store.org(&token.org_id).await?).map_or(String::new(), |o| o.name);
            print(
                json,
                &json!({"revoked": tenancy::shown(&token, &org, now_ms())}),
                || {
                    format!(
                        "revoked token {} of org {org}; every replica refuses it from now on\n",
                        token.id
                    )
                },
            )
        }
    }
}
