//! The label sets of the metric families: bounded values only (server slugs, the org that
//! declared a server, catalogue action ids, outcome kinds, stages, states).

use prometheus_client::encoding::EncodeLabelSet;
use std::sync::Arc;

/// The org that declared a server (its id); `None` (written `org=""`) for the operator's config
/// servers and for names nobody has. Shared, so a call's label set costs no copy of it.
pub(crate) type Org = Option<Arc<str>>;

/// `org` for a label set: an empty id is the operator's.
pub(crate) fn org(id: &str) -> Org {
    (!id.is_empty()).then(|| Arc::from(id))
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct CallLabels {
    pub server: String,
    pub org: Org,
    pub action: String,
    pub outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct ServerLabel {
    pub server: String,
    pub org: Org,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct StatusLabels {
    pub server: String,
    pub org: Org,
    pub status: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct TransitionLabels {
    pub server: String,
    pub org: Org,
    pub to: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct ConnectLabels {
    pub server: String,
    pub org: Org,
    pub outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct EgressRefusalLabels {
    pub server: String,
    pub org: Org,
    pub reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct LimitLabel {
    pub limit: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct ReasonLabel {
    pub reason: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct VerdictLabels {
    pub stage: String,
    pub effect: &'static str,
}
