//! MCP Apps' UI resources at discovery: each `ui://` resource a tool names is read then, so its
//! HTML is pinned and scanned with the tool (a changed UI is a changed definition).

use rmcp::model::{ReadResourceRequestParams, ResourceContents, Tool};
use rmcp::{Peer, RoleClient};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};

/// The scheme of an MCP Apps resource.
pub const UI_SCHEME: &str = "ui://";

/// UI resources read per discovery, at most.
const MAX_APPS: usize = 32;

/// UI resources read at once (a server with several apps does not add a round trip each).
const READS_AT_ONCE: usize = 4;

/// HTML longer than this is pinned by its hash alone (and not shown by `tools diff`).
const MAX_KEPT_BYTES: usize = 256 * 1024;

/// One UI resource as discovery read it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AppUi {
    pub mime_type: Option<String>,
    /// SHA-256 (hex) of the content as sent (its text, or its base64 blob).
    pub sha256: String,
    /// The HTML, when at most 256 KiB.
    pub html: Option<String>,
    /// Of a larger UI, what the poisoning scan reads (its text, comments and script
    /// sentences as a small HTML document, at most 256 KiB): pinned and diffed instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The content's `_meta.ui` (`csp`, `permissions`, `domain`, `prefersBorder`).
    pub ui: Option<Value>,
}

/// The `ui://` resource a tool names as its app (`_meta.ui.resourceUri`, or the older
/// `_meta["ui/resourceUri"]`), if any.
pub fn app_of(tool: &Tool) -> Option<&str> {
    let meta = tool.meta.as_ref()?;
    let nested = meta.get("ui").and_then(|ui| ui.get("resourceUri"));
    (nested.or_else(|| meta.get("ui/resourceUri")))
        .and_then(Value::as_str)
        .filter(|uri| uri.starts_with(UI_SCHEME))
}

impl AppUi {
    fn of(contents: &[ResourceContents]) -> Option<Self> {
        let (mime_type, body, meta) = match contents.first()? {
            ResourceContents::TextResourceContents {
                mime_type,
                text,
                meta,
                ..
            } => (mime_type, text, meta),
            ResourceContents::BlobResourceContents {
                mime_type,
                blob,
                meta,
                ..
            } => (mime_type, blob, meta),
            _ => return None,
        };
        let whole = body.len() <= MAX_KEPT_BYTES;
        let text = (!whole).then(|| {
            let html = match &contents[0] {
                ResourceContents::BlobResourceContents { .. } => {
                    use base64::Engine;
                    let bytes = base64::engine::general_purpose::STANDARD.decode(body);
                    String::from_utf8_lossy(&bytes.unwrap_or_default()).into_owned()
                }
                _ => body.clone(),
            };
            let mut text = switchboard_scan::reduced_ui(&html);
            if text.len() > MAX_KEPT_BYTES {
                let mut cut = MAX_KEPT_BYTES;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
                // The scan says what it could not read.
                text.push_str(switchboard_scan::UI_TEXT_CUT);
            }
            text
        });
        Some(Self {
            mime_type: mime_type.clone(),
            sha256: hex::encode(Sha256::digest(body.as_bytes())),
            html: whole.then(|| body.clone()),
            text,
            ui: meta.as_ref().and_then(|m| m.get("ui").cloned()),
        })
    }
}

/// Reads the UI resource of each tool that names one; one that cannot be read is left out
/// (its tool then pins without it).
pub(crate) async fn read(peer: &Peer<RoleClient>, tools: &[Tool]) -> BTreeMap<String, AppUi> {
    use futures::StreamExt;
    let uris: BTreeSet<String> = tools.iter().filter_map(app_of).map(String::from).collect();
    let reads = uris.into_iter().take(MAX_APPS).map(|uri| async move {
        let read = peer.read_resource(ReadResourceRequestParams::new(uri.clone()));
        match read.await {
            Ok(result) => AppUi::of(&result.contents).map(|app| (uri, app)),
            Err(e) => {
                tracing::debug!(uri, "cannot read the app's UI at discovery: {e}");
                None
            }
        }
    });
    let read: Vec<Option<(String, AppUi)>> = (futures::stream::iter(reads))
        .buffer_unordered(READS_AT_ONCE)
        .collect()
        .await;
    read.into_iter().flatten().collect()
}
