//! Input rounds handed back to a 2026-07-28 caller: the call ended with its upstream's round,
//! and the caller's answer resumes the request from the upstream's state on whichever replica
//! it reaches. Kept in the store, shared by replicas and taken once by its owner, or without a
//! store (the stdio gateway, the library) in this process.

use crate::mcp::relay::can_answer;
use crate::mcp::resume::{PARKED_TTL, unknown_state};
use rmcp::model::{ClientCapabilities, ErrorData, InputRequiredResult};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};
use switchboard_store::{Store, new_id, now_ms};
use switchboard_sync::Mutex;
use switchboard_upstream::{Declined, MAX_INPUT_ROUNDS, as_server_request, declined, method_name};

/// Handles of handed-back rounds start with this (parked requests' with `rs_`).
const PREFIX: &str = "rq";

/// What a handle stands for besides its owner: the upstream's state from its round.
#[derive(Serialize, Deserialize)]
struct Kept {
    state: Option<String>,
    expires_ms: i64,
    /// Rounds this request has asked so far (bounded like the rounds of one call).
    round: usize,
}

/// The rounds this process keeps when there is no store, with their owners.
static LOCAL: LazyLock<Mutex<HashMap<String, (String, Kept)>>> = LazyLock::new(Mutex::default);

/// Whether `handle` names a handed-back round (rather than a request parked here).
pub(crate) fn is_handed_back(handle: &str) -> bool {
    handle
        .strip_prefix(PREFIX)
        .is_some_and(|rest| rest.starts_with('_'))
}

/// Refuses a round the caller cannot answer (a question of a kind it did not declare, which
/// the server was told) or one past the bound on rounds per request.
pub(crate) fn check(
    round: &InputRequiredResult,
    caps: &ClientCapabilities,
    asked_before: usize,
) -> Result<(), ErrorData> {
    if asked_before >= MAX_INPUT_ROUNDS {
        return Err(ErrorData::internal_error(
            format!("the server asked for input more than {MAX_INPUT_ROUNDS} times in one request"),
            None,
        ));
    }
    let questions = round.input_requests.iter().flat_map(|q| q.values());
    let undeclared = questions
        .filter_map(|q| as_server_request(q.clone()))
        .find(|r| !can_answer(r, caps));
    match undeclared {
        Some(request) => Err(declined(method_name(&request), Declined::NotDeclared)),
        None => Ok(()),
    }
}

/// Keeps the `round`th round of a request for `owner` until it expires; its handle.
pub(crate) async fn keep(
    store: Option<&Arc<dyn Store>>,
    owner: &str,
    state: Option<String>,
    round: usize,
) -> Result<String, ErrorData> {
    let handle = new_id(PREFIX);
    let kept = Kept {
        state,
        expires_ms: now_ms() + PARKED_TTL.as_millis() as i64,
        round,
    };
    save(store, &handle, owner, kept).await.map_err(|e| {
        tracing::warn!("an input round could not be kept, its call is lost: {e}");
        ErrorData::internal_error(format!("cannot keep the input round: {e}"), None)
    })?;
    Ok(handle)
}

async fn save(
    store: Option<&Arc<dyn Store>>,
    handle: &str,
    owner: &str,
    kept: Kept,
) -> Result<(), switchboard_store::StoreError> {
    match store {
        Some(store) => {
            let json = serde_json::to_string(&kept).unwrap_or_default();
            (store.save_round(handle, owner, &json, kept.expires_ms)).await
        }
        None => {
            let mut local = LOCAL.lock();
            let now = now_ms();
            local.retain(|_, (_, kept)| kept.expires_ms > now);
            local.insert(handle.to_string(), (owner.to_string(), kept));
            Ok(())
        }
    }
}

/// A round taken for its answer.
pub(crate) struct Taken {
    handle: String,
    owner: String,
    kept: Kept,
}

impl Taken {
    /// The upstream's state from the round.
    pub(crate) fn state(&self) -> Option<String> {
        self.kept.state.clone()
    }

    /// How many rounds the request has asked.
    pub(crate) fn round(&self) -> usize {
        self.kept.round
    }

    /// Keeps the round again under its handle: its answer was refused before it reached the
    /// upstream (policy, a rate limit), so the caller may send it again.
    pub(crate) async fn put_back(self, store: Option<&Arc<dyn Store>>) {
        if let Err(e) = save(store, &self.handle, &self.owner, self.kept).await {
            tracing::warn!("an input round could not be kept again for its retry: {e}");
        }
    }
}

/// Takes the round `handle` names for `owner`, once. Anyone else leaves it in place and is
/// answered as for a handle unknown, taken or expired.
pub(crate) async fn take(
    store: Option<&Arc<dyn Store>>,
    handle: &str,
    owner: &str,
) -> Result<Taken, ErrorData> {
    let kept = match store {
        Some(store) => store
            .take_round(handle, owner)
            .await
            .map_err(|e| {
                ErrorData::internal_error(format!("cannot read the input round: {e}"), None)
            })?
            .and_then(|json| serde_json::from_str::<Kept>(&json).ok()),
        None => {
            let mut local = LOCAL.lock();
            match local.get(handle) {
                Some((o, _)) if o == owner => local.remove(handle).map(|(_, kept)| kept),
                _ => None,
            }
        }
    };
    match kept {
        Some(kept) if kept.expires_ms > now_ms() => Ok(Taken {
            handle: handle.to_string(),
            owner: owner.to_string(),
            kept,
        }),
        _ => Err(unknown_state()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_round_is_taken_once_only_by_its_owner_and_put_back_after_a_refusal() {
        let handle = keep(None, "me", Some("upstream state".into()), 1)
            .await
            .unwrap();
        assert!(is_handed_back(&handle), "{handle}");
        assert!(!is_handed_back("rs_123") && !is_handed_back("rqx"));
        // Someone else learns nothing and takes nothing away.
        assert!(take(None, &handle, "someone else").await.is_err());
        let taken = take(None, &handle, "me").await.unwrap();
        assert_eq!(taken.state().as_deref(), Some("upstream state"));
        assert_eq!(taken.round(), 1);
        assert!(take(None, &handle, "me").await.is_err(), "taken twice");
        // Refused before the upstream saw it: the same handle works again.
        taken.put_back(None).await;
        assert!(take(None, &handle, "me").await.is_ok());
    }
}
