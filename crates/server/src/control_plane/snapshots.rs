//! Discovery snapshots kept in the store, so a lazy stdio server's tools are listed at
//! start-up without running it.

use std::sync::Arc;
use switchboard_registry::SnapshotCache;
use switchboard_store::Store;
use switchboard_upstream::Snapshot;

pub struct StoreSnapshots(pub Arc<dyn Store>);

/// Fingerprints name command lines; the store keeps only their hash.
fn key(fingerprint: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(fingerprint.as_bytes()))
}

#[async_trait::async_trait]
impl SnapshotCache for StoreSnapshots {
    async fn load(&self, fingerprint: &str) -> Option<Snapshot> {
        match self.0.load_snapshot(&key(fingerprint)).await {
            Ok(json) => json.and_then(|j| serde_json::from_str(&j).ok()),
            Err(e) => {
                tracing::warn!("cannot read a discovery snapshot: {e}");
                None
            }
        }
    }

    async fn save(&self, fingerprint: &str, snapshot: &Snapshot) {
        let Ok(json) = serde_json::to_string(snapshot) else {
            return;
        };
        if let Err(e) = self.0.save_snapshot(&key(fingerprint), &json).await {
            tracing::warn!("cannot save a discovery snapshot: {e}");
        }
    }
}
