//! Input rounds handed back to a 2026-07-28 caller: the call ended with its upstream's round,
//! and the caller's answer resumes the request from the upstream's state on whichever replica
//! it reaches. Kept in the store, shared by replicas and taken once, or without a store (the
//! stdio gateway, the library) in this process.

use crate::mcp::resume::{PARKED_TTL, unknown_state};
use rmcp::model::ErrorData;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};
use std::time::Instant;
use switchboard_store::{Store, new_id, now_ms};
use switchboard_sync::Mutex;

/// Handles of handed-back rounds start with this (parked requests' with `rs_`).
const PREFIX: &str = "rq";

/// What a handle stands for: who may answer, and the upstream's state from its round.
#[derive(Serialize, Deserialize)]
struct Kept {
    owner: String,
    state: Option<String>,
}

/// The rounds this process keeps when there is no store.
static LOCAL: LazyLock<Mutex<HashMap<String, (Kept, Instant)>>> = LazyLock::new(Mutex::default);

/// Whether `handle` names a handed-back round (rather than a request parked here).
pub(crate) fn is_handed_back(handle: &str) -> bool {
    handle
        .strip_prefix(PREFIX)
        .is_some_and(|rest| rest.starts_with('_'))
}

/// Keeps a round for `owner` until it expires; its handle for the caller.
pub(crate) async fn keep(
    store: Option<&Arc<dyn Store>>,
    owner: &str,
    state: Option<String>,
) -> Result<String, ErrorData> {
    let handle = new_id(PREFIX);
    let kept = Kept {
        owner: owner.to_string(),
        state,
    };
    match store {
        Some(store) => {
            let json = serde_json::to_string(&kept).unwrap_or_default();
            let expires = now_ms() + PARKED_TTL.as_millis() as i64;
            store
                .save_round(&handle, &json, expires)
                .await
                .map_err(|e| {
                    ErrorData::internal_error(format!("cannot keep the input round: {e}"), None)
                })?;
        }
        None => {
            let mut local = LOCAL.lock();
            local.retain(|_, (_, at)| at.elapsed() < PARKED_TTL);
            local.insert(handle.clone(), (kept, Instant::now()));
        }
    }
    Ok(handle)
}

/// Takes the round `handle` names for `owner`: the upstream's state, once. Anyone else, and
/// a handle unknown, taken or expired, is answered alike.
pub(crate) async fn take(
    store: Option<&Arc<dyn Store>>,
    handle: &str,
    owner: &str,
) -> Result<Option<String>, ErrorData> {
    let kept = match store {
        Some(store) => store
            .take_round(handle)
            .await
            .map_err(|e| {
                ErrorData::internal_error(format!("cannot read the input round: {e}"), None)
            })?
            .and_then(|json| serde_json::from_str::<Kept>(&json).ok()),
        None => (LOCAL.lock().remove(handle))
            .filter(|(_, at)| at.elapsed() < PARKED_TTL)
            .map(|(kept, _)| kept),
    };
    match kept {
        Some(kept) if kept.owner == owner => Ok(kept.state),
        _ => Err(unknown_state()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_round_is_taken_once_and_only_by_its_owner() {
        let handle = keep(None, "me", Some("upstream state".into()))
            .await
            .unwrap();
        assert!(is_handed_back(&handle), "{handle}");
        assert!(!is_handed_back("rs_123") && !is_handed_back("rqx"));
        assert_eq!(
            take(None, &handle, "me").await.unwrap().as_deref(),
            Some("upstream state")
        );
        assert!(take(None, &handle, "me").await.is_err(), "taken twice");
        let handle = keep(None, "me", None).await.unwrap();
        assert!(take(None, &handle, "someone else").await.is_err());
        assert!(
            take(None, &handle, "me").await.is_err(),
            "gone after a wrong owner"
        );
    }
}
