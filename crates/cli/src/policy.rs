//! The operator's policy from the config files: read, checked with file and line, and built
//! into the pipeline every call passes.

use crate::control::Control;
use std::sync::Arc;
use switchboard_config::{Config, Problem};
use switchboard_policy::{Pipeline, PipelineOptions, PolicyDoc};
use switchboard_store::AuditWriter;
use switchboard_upstream::UpstreamHttp;

/// Every `[policy]` section layered, or every problem in them (each with file and line).
pub fn operator_doc(config: &Config) -> Result<PolicyDoc, Vec<Problem>> {
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
            if p.warning {
                Problem::warning(&source.file, line, &key, p.message, p.fix)
            } else {
                Problem::error(&source.file, line, &key, p.message, p.fix)
            }
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

/// The pipeline for a command: the operator's policy, pins from the store when it is open.
pub async fn pipeline(
    config: &Config,
    http: UpstreamHttp,
    control: Option<&Control>,
    audit: Option<AuditWriter>,
) -> anyhow::Result<Pipeline> {
    let doc = operator_doc(config).map_err(|problems| {
        let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        anyhow::anyhow!("the policy has problems:\n{}", text.join("\n"))
    })?;
    let mut options = PipelineOptions::new(doc, http);
    if let Some(control) = control {
        options = options.with_store(control.store.clone());
    }
    if let Some(audit) = audit {
        options = options.with_audit(audit);
    }
    let pipeline = Pipeline::new(options).map_err(|problems| {
        anyhow::anyhow!(
            "the policy has problems: {}",
            problems
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        )
    })?;
    let pins = pipeline
        .load()
        .await
        .map_err(|e| anyhow::anyhow!("cannot read the tool pins from the store: {e}"))?;
    tracing::debug!(pins, "policy pipeline ready");
    Ok(pipeline)
}

/// As a guard for the registry.
pub fn guard(pipeline: &Pipeline) -> Arc<dyn switchboard_core::CallGuard> {
    Arc::new(pipeline.clone())
}
