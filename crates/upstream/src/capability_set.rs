//! What a caller can be asked, as one upstream session declares it: a server on a revision
//! before 2026-07-28 learns its client's capabilities once, at `initialize`, so callers who can
//! answer different things get sessions of their own, one per distinct set.

use rmcp::model::ClientCapabilities;
use serde_json::Value;
use std::sync::LazyLock;

/// A set of relayable capabilities with a canonical key (equal sets, equal keys).
#[derive(Debug, Clone)]
pub struct CapabilitySet {
    capabilities: ClientCapabilities,
    /// The capabilities as JSON with every object's keys sorted.
    canonical: Value,
    key: String,
    /// Equal to the shared session's set (compared once, not per call).
    is_gateway: bool,
}

/// Everything the gateway can relay: what its shared session with each server declares.
static GATEWAY: LazyLock<CapabilitySet> = LazyLock::new(|| {
    let mut set = CapabilitySet::new(crate::events::relayed_capabilities());
    set.is_gateway = true;
    set
});

impl CapabilitySet {
    fn new(capabilities: ClientCapabilities) -> Self {
        let canonical = sorted(serde_json::to_value(&capabilities).unwrap_or_default());
        let key = canonical.to_string();
        Self {
            capabilities,
            canonical,
            key,
            is_gateway: false,
        }
    }

    /// Whether a session declaring this set is the shared session.
    pub fn is_gateway(&self) -> bool {
        self.is_gateway
    }

    /// What the caller declared, as far as the gateway relays it (nothing for a caller
    /// nobody can answer).
    pub fn of(caller: Option<&ClientCapabilities>) -> Self {
        let mut caps = crate::relay::relayable_capabilities(caller);
        // Tasks are a 2026-07-28 extension: no reason for a session of its own here.
        if let Some(extensions) = &mut caps.extensions {
            extensions.remove(crate::relay::TASKS_EXTENSION);
            if extensions.is_empty() {
                caps.extensions = None;
            }
        }
        let mut set = Self::new(caps);
        set.is_gateway = set.key == GATEWAY.key;
        set
    }

    /// The set the shared session declares.
    pub fn gateway() -> &'static CapabilitySet {
        &GATEWAY
    }

    pub fn key(&self) -> &str {
        &self.key
    }

    pub fn capabilities(&self) -> &ClientCapabilities {
        &self.capabilities
    }

    /// Whether a session declaring `other` asks nothing this set cannot answer (every
    /// capability of `other`, and every setting of it, is in this one).
    pub fn covers(&self, other: &CapabilitySet) -> bool {
        within(&other.canonical, &self.canonical)
    }

    /// How much the set declares (its settings, counted), to prefer the fuller of two.
    pub fn size(&self) -> usize {
        count(&self.canonical)
    }
}

impl PartialEq for CapabilitySet {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// Whether every key of `inner` (at every depth) is in `outer` with the same leaf values.
fn within(inner: &Value, outer: &Value) -> bool {
    match (inner, outer) {
        (Value::Object(i), Value::Object(o)) => i
            .iter()
            .all(|(k, v)| o.get(k).is_some_and(|ov| within(v, ov))),
        (i, o) => i == o,
    }
}

fn count(value: &Value) -> usize {
    match value {
        Value::Object(map) => map.values().map(|v| 1 + count(v)).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{ElicitationCapability, FormElicitationCapability};

    #[test]
    fn sets_are_keyed_canonically_and_compared_by_what_they_declare() {
        let nothing = CapabilitySet::of(None);
        let gateway = CapabilitySet::gateway();
        assert!(gateway.covers(&nothing) && !nothing.covers(gateway));
        let mut form = ClientCapabilities::default();
        form.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
        let form = CapabilitySet::of(Some(&form));
        assert_ne!(form, *gateway);
        assert!(
            gateway.covers(&form),
            "{} within {}",
            form.key(),
            gateway.key()
        );
        assert!(form.covers(&nothing) && !form.covers(gateway));
        assert!(gateway.size() > form.size() && form.size() > nothing.size());
        // The gateway's own set, declared by a caller, is the gateway's key.
        let all = CapabilitySet::of(Some(gateway.capabilities()));
        assert_eq!(all, *gateway);
        assert!(all.is_gateway() && !form.is_gateway() && !nothing.is_gateway());
    }
}
