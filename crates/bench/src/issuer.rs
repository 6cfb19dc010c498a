//! A real OpenID provider for the benches (tests/fixtures/oidc_provider.mjs, oidc-provider from
//! npm as scripts/fixtures.sh installs it) and access tokens signed with its key.

use anyhow::Context;
use std::process::Stdio;
use tokio::io::{AsyncBufReadExt, BufReader};

pub(crate) struct Issuer {
    _child: tokio::process::Child,
    pub(crate) url: String,
    signer: String,
}

impl Issuer {
    /// The provider, or `None` when its fixture is not installed.
    pub(crate) async fn start() -> anyhow::Result<Option<Self>> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let modules = root.join(".fixtures/node/node_modules");
        if !modules.join("oidc-provider").exists() {
            return Ok(None);
        }
        let mut child = tokio::process::Command::new("node")
            .arg(root.join("tests/fixtures/oidc_provider.mjs"))
            .env("SWITCHBOARD_NODE_MODULES", &modules)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .context("start the OpenID provider")?;
        let mut lines = BufReader::new(child.stdout.take().context("stdout")?).lines();
        let line = lines.next_line().await?.context("its address line")?;
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let ready: serde_json::Value = serde_json::from_str(&line)?;
        Ok(Some(Self {
            _child: child,
            url: ready["issuer"].as_str().context("issuer")?.into(),
            signer: ready["signer"].as_str().context("signer")?.into(),
        }))
    }

    /// An RS256 access token (`at+jwt`) for `audience`, valid for a day.
    pub(crate) async fn token(&self, audience: &str) -> anyhow::Result<String> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_secs();
        let claims = serde_json::json!({"iss": self.url, "sub": "bench", "aud": audience,
            "iat": now, "exp": now + 86_400, "scope": "mcp:tools"});
        let body = serde_json::json!({"header": {"typ": "at+jwt"}, "claims": claims});
        let response = reqwest::Client::new()
            .post(&self.signer)
            .json(&body)
            .send()
            .await?;
        Ok(response.text().await?)
    }
}
