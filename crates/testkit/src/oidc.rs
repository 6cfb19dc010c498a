//! A real OpenID provider on loopback (tests/fixtures/oidc_provider.mjs: oidc-provider from
//! npm) and its signer, which signs any claims with the provider's own key.

use serde_json::{Value, json};
use std::process::Stdio;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// A running provider: its issuer URL and the URL of its signer.
pub struct Provider {
    _child: Child,
    pub issuer: String,
    pub signer: String,
}

impl Provider {
    pub async fn start() -> Self {
        let mut child = Command::new("node")
            .arg(crate::repo_root().join("tests/fixtures/oidc_provider.mjs"))
            .env("SWITCHBOARD_NODE_MODULES", crate::node_modules())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start the OpenID provider");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let line = lines.next_line().await.unwrap().expect("its address line");
        let ready: Value = serde_json::from_str(&line).expect("JSON");
        // Whatever it prints later is read, so it never writes to a closed pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Self {
            _child: child,
            issuer: ready["issuer"].as_str().unwrap().into(),
            signer: ready["signer"].as_str().unwrap().into(),
        }
    }

    /// `claims` signed with the provider's own key (`header` overrides the JWS header;
    /// `hmac` signs HS256 with that secret instead).
    pub async fn sign(&self, header: Value, claims: Value, hmac: Option<&str>) -> String {
        let body = json!({"header": header, "claims": claims, "hmac": hmac});
        let response = reqwest::Client::new()
            .post(&self.signer)
            .json(&body)
            .send()
            .await
            .unwrap();
        response.text().await.unwrap()
    }

    /// An access token for `sub` at `resource`, valid for ten minutes, with the scope
    /// `mcp:tools` and the group `mcp-users`.
    pub async fn access_token(&self, sub: &str, resource: &str) -> String {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let claims = json!({"iss": self.issuer, "sub": sub, "aud": resource,
            "exp": now + 600, "iat": now, "scope": "mcp:tools", "groups": ["mcp-users"]});
        self.sign(json!({"typ": "at+jwt"}), claims, None).await
    }
}
