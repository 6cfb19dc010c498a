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
    /// A provider whose access tokens are JWTs.
    pub async fn start() -> Self {
        Self::start_with("jwt").await
    }

    /// A provider whose access tokens are opaque (checked by introspection).
    pub async fn start_opaque() -> Self {
        Self::start_with("opaque").await
    }

    async fn start_with(format: &str) -> Self {
        let mut child = Command::new("node")
            .arg(crate::repo_root().join("tests/fixtures/oidc_provider.mjs"))
            .env("OIDC_ACCESS_TOKEN_FORMAT", format)
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

    /// A client-credentials token of the client `machine` (scope `mcp:tools`), for
    /// `resource` when given.
    pub async fn machine_token(&self, resource: Option<&str>) -> String {
        let mut form = vec![("grant_type", "client_credentials"), ("scope", "mcp:tools")];
        if let Some(resource) = resource {
            form.push(("resource", resource));
        }
        let response = reqwest::Client::new()
            .post(format!("{}/token", self.issuer))
            .basic_auth("machine", Some("machine-secret"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form_body(&form))
            .send()
            .await
            .unwrap();
        let body: Value = response.json().await.unwrap();
        body["access_token"]
            .as_str()
            .unwrap_or_else(|| panic!("no access token: {body}"))
            .to_string()
    }

    /// Revokes `token` at the provider (RFC 7009) as the client `machine`.
    /// How many tokens the provider exchanged (RFC 8693) so far.
    pub async fn exchanges(&self) -> u64 {
        let text = reqwest::get(format!("{}/exchanges", self.signer))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        text.parse().unwrap()
    }

    pub async fn revoke(&self, token: &str) {
        let status = reqwest::Client::new()
            .post(format!("{}/token/revocation", self.issuer))
            .basic_auth("machine", Some("machine-secret"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form_body(&[("token", token)]))
            .send()
            .await
            .unwrap()
            .status();
        assert!(status.is_success(), "revocation answered {status}");
    }
}

fn form_body(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// The claims of a compact JWT (its signature unchecked: for tests that read what they got).
pub fn claims_of(jwt: &str) -> Value {
    use base64::Engine;
    let payload = jwt.split('.').nth(1).unwrap_or_default();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap_or_default();
    serde_json::from_slice(&bytes).unwrap_or(Value::Null)
}
