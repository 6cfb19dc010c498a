//! One rule set ready to run: the document checked and compiled, and what it says about
//! visibility (agent server lists, rules that deny whatever the arguments).

use crate::doc::{DocProblem, PolicyDoc};
use crate::ifc::FlowPolicy;
use crate::ratelimit::LimitRule;
use crate::rules::RuleSet;
use switchboard_core::{Caller, ToolRef, Visibility};

#[derive(Debug, Clone, Default)]
pub struct Compiled {
    pub doc: PolicyDoc,
    pub rules: RuleSet,
    pub limits: Vec<LimitRule>,
    pub flow: FlowPolicy,
}

impl Compiled {
    /// Checks and compiles `doc`; every problem is reported with its field.
    pub fn compile(doc: PolicyDoc) -> Result<Self, Vec<DocProblem>> {
        let mut problems = Vec::new();
        let rules = RuleSet::compile(&doc).map_err(|p| problems.extend(p)).ok();
        let limits = LimitRule::compile(&doc.rate_limits)
            .map_err(|p| problems.extend(p))
            .ok();
        let flow = FlowPolicy::compile(&doc)
            .map_err(|p| problems.extend(p))
            .ok();
        for (agent, a) in &doc.agents {
            if a.servers.is_empty() {
                problems.push(DocProblem {
                    path: format!("agents.{agent}.servers"),
                    message: "an empty list hides every server from this agent".into(),
                    fix: "list the servers it may see, or [\"*\"] for all".into(),
                });
            }
        }
        if doc.replicas == Some(0) {
            problems.push(DocProblem {
                path: "replicas".into(),
                message: "replicas must be at least 1".into(),
                fix: "write the number of gateway processes sharing the store".into(),
            });
        }
        match (rules, limits, flow) {
            (Some(rules), Some(limits), Some(flow)) if problems.is_empty() => Ok(Self {
                doc,
                rules,
                limits,
                flow,
            }),
            _ => Err(problems),
        }
    }

    /// Whether this set says anything about calls (so an empty one costs nothing).
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
            && self.limits.is_empty()
            && !self.flow.enabled
            && self.doc.agents.is_empty()
    }

    /// The agent's server list, when this set gives one.
    pub fn agent_servers(&self, agent: Option<&str>) -> Option<&[String]> {
        self.doc.agents.get(agent?).map(|a| a.servers.as_slice())
    }

    /// List-time visibility of one tool under this set (toggles are the pipeline's).
    pub fn visibility(&self, caller: &Caller, tool: &ToolRef<'_>) -> Visibility {
        if let Some(servers) = self.agent_servers(caller.agent_id.as_deref())
            && !servers
                .iter()
                .any(|s| s == "*" || s == tool.server.as_str())
        {
            return Visibility::Hidden;
        }
        match self.rules.denies_always(
            caller.org_id.as_deref(),
            caller.agent_id.as_deref(),
            tool.action.as_str(),
        ) {
            Some(reason) => Visibility::Denied(reason),
            None => Visibility::Visible,
        }
    }
}
