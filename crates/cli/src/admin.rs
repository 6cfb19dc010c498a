//! Key rotation: a new master key, every sealed credential re-sealed with it.

use crate::args::Global;
use crate::control::{Control, key_file};

use anyhow::{Context, bail};
use std::process::ExitCode;
use std::sync::Arc;
use switchboard_store::{Sealer, Store};

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
