//! The operator's policy from the config files: read, checked with file and line, and built
//! into the pipeline every call passes.

use crate::control::Control;
use switchboard_config::{Config, Problem, Problems};
use switchboard_policy::{Pipeline, PipelineOptions, PolicyDoc};
use switchboard_store::AuditWriter;
use switchboard_upstream::UpstreamHttp;

/// Every `[policy]` section layered, or every problem in them (each with file and line).
pub(crate) fn operator_doc(config: &Config) -> Result<PolicyDoc, Vec<Problem>> {
    let mut doc = PolicyDoc::default();
    let mut problems = Vec::new();
    for source in &config.policy {
        let located = |p: switchboard_policy::DocProblem| {
            let key = if p.path.is_empty() {
                "policy".to_string()
            } else {
                format!("policy.{}", p.path)
            };
            let line = source.line(&p.path);
            Problem::error(&source.file, line, &key, p.message, p.fix)
        };
        match Pipeline::check(&source.value) {
            Ok(one) => doc.layer(one),
            Err(found) => problems.extend(found.into_iter().map(located)),
        }
    }
    if problems.is_empty() {
        Ok(doc)
    } else {
        Err(problems)
    }
}

/// The pipeline for a command: the operator's policy, pins from the store.
pub(crate) async fn pipeline(
    config: &Config,
    http: UpstreamHttp,
    control: &Control,
    audit: Option<AuditWriter>,
) -> anyhow::Result<Pipeline> {
    let doc = operator_doc(config)
        .map_err(|problems| anyhow::anyhow!("the policy has problems:\n{}", Problems(problems)))?;
    let mut options = PipelineOptions::new(doc, http).with_store(control.store.clone());
    if let Some(audit) = audit {
        options = options.with_audit(audit);
    }
    // The layers each checked out alone; what remains is how they combine.
    let pipeline = Pipeline::new(options).map_err(|problems| {
        anyhow::anyhow!(
            "the [policy] sections of the config files do not combine:\n{}",
            problems
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        )
    })?;
    let pins = pipeline.load().await.map_err(|e| {
        anyhow::anyhow!(
            "cannot read the tool pins from the store: {e}; check --data (or --database-url) points at this gateway's store"
        )
    })?;
    tracing::debug!(pins, "policy pipeline ready");
    Ok(pipeline)
}
