//! Call-time rules: action globs, who is calling, argument predicates; effects allow, deny
//! and verify; enforce or observe per rule set.

pub mod verify;

pub use switchboard_policy_doc::{Glob, Predicate};

use crate::doc::{DefaultEffect, DocProblem, PolicyDoc, RuleEffect, RuleMode};
use serde_json::{Value, json};
use switchboard_core::{CallContext, CallError, Effect, ErrorKind, Verdict};
use switchboard_upstream::UpstreamHttp;
use verify::Evaluator;

#[derive(Debug, Clone)]
pub struct Rule {
    pub name: String,
    pub actions: Vec<Glob>,
    orgs: Option<Vec<String>>,
    agents: Option<Vec<String>>,
    end_users: Option<Vec<String>>,
    pub when: Vec<Predicate>,
    effect: RuleEffect,
    reason: Option<String>,
    verify: Option<Evaluator>,
}

/// A compiled rule set (the operator's, or one org's).
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    observe: bool,
    default_deny: bool,
    pub rules: Vec<Rule>,
}

/// What the rules decided.
#[derive(Debug, Default)]
pub struct RulesOutcome {
    pub refused: Option<CallError>,
    /// An `allow` rule matched: the call is explicitly allowed (information flows too).
    pub allowed: bool,
}

impl RuleSet {
    /// Compiles the rules of `doc`; every problem is reported, each with its field.
    pub fn compile(doc: &PolicyDoc) -> Result<Self, Vec<DocProblem>> {
        let mut problems = Vec::new();
        let mut rules = Vec::new();
        for (i, r) in doc.rules.iter().enumerate() {
            let at = |field: &str| format!("rules[{i}].{field}");
            let mut problem = |path: String, message: String, fix: String| {
                problems.push(DocProblem { path, message, fix })
            };
            if r.name.trim().is_empty() {
                problem(
                    at("name"),
                    "a rule needs a name".into(),
                    "name it: the name appears in denials and audit rows".into(),
                );
            }
            if r.actions.is_empty() {
                problem(
                    at("actions"),
                    "the rule names no action".into(),
                    "list action globs such as \"mcp.github.*\"".into(),
                );
            }
            let mut actions = Vec::new();
            for (j, pattern) in r.actions.iter().enumerate() {
                match Glob::new(pattern) {
                    Ok(g) => actions.push(g),
                    Err(m) => problem(
                        at(&format!("actions[{j}]")),
                        m,
                        "write mcp.<server>.<tool> with * where anything goes".into(),
                    ),
                }
            }
            let mut when = Vec::new();
            for (j, p) in r.when.iter().enumerate() {
                match Predicate::compile(p) {
                    Ok(p) => when.push(p),
                    Err((field, m, fix)) => problem(at(&format!("when[{j}].{field}")), m, fix),
                }
            }
            let verify = match (&r.effect, &r.verify) {
                (RuleEffect::Verify, Some(v)) => match Evaluator::compile(v) {
                    Ok(e) => Some(e),
                    Err((field, m, fix)) => {
                        problem(at(&format!("verify.{field}")), m, fix);
                        None
                    }
                },
                (RuleEffect::Verify, None) => {
                    problem(
                        at("verify"),
                        "effect verify needs an evaluator".into(),
                        "add verify = { webhook = \"https://…\" } or { command = [\"prog\"] }"
                            .into(),
                    );
                    None
                }
                (_, Some(_)) => {
                    problem(
                        at("verify"),
                        "only effect = \"verify\" asks an evaluator".into(),
                        "set effect = \"verify\" or remove verify".into(),
                    );
                    None
                }
                (_, None) => None,
            };
            rules.push(Rule {
                name: r.name.clone(),
                actions,
                orgs: r.orgs.clone(),
                agents: r.agents.clone(),
                end_users: r.end_users.clone(),
                when,
                effect: r.effect,
                reason: r.reason.clone(),
                verify,
            });
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Self {
            observe: doc.mode == Some(RuleMode::Observe),
            default_deny: doc.default == Some(DefaultEffect::Deny),
            rules,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty() && !self.default_deny
    }

    /// List time: the reason an enforced rule denies this action to this caller whatever
    /// the arguments and end user (rules that look at either never hide a tool).
    pub fn denies_always(
        &self,
        org: Option<&str>,
        agent: Option<&str>,
        action: &str,
    ) -> Option<String> {
        if self.observe {
            return None;
        }
        self.rules
            .iter()
            .find(|r| {
                r.effect == RuleEffect::Deny
                    && r.when.is_empty()
                    && r.end_users.is_none()
                    && r.matches_who(org, agent, None)
                    && r.matches_action(action)
            })
            .map(|r| r.denial())
    }

    /// Call time: every matching rule, in order; `verdicts` hears each.
    pub async fn evaluate(
        &self,
        call: &CallContext<'_>,
        http: &UpstreamHttp,
        verdicts: &mut Vec<Verdict>,
    ) -> RulesOutcome {
        let mut outcome = RulesOutcome::default();
        let action = call.tool.action.as_str();
        let (org, agent) = (
            call.caller.org_id.as_deref(),
            call.caller.agent_id.as_deref(),
        );
        for rule in &self.rules {
            if !rule.matches_action(action)
                || !rule.matches_who(org, agent, Some(call.end_user))
                || !rule.when.iter().all(|p| p.holds(call.arguments))
            {
                continue;
            }
            let (allow, effect, reason) = match (&rule.effect, &rule.verify) {
                (RuleEffect::Allow, _) => (true, Effect::Allow, None),
                (RuleEffect::Deny, _) => (false, Effect::Deny, Some(rule.denial())),
                (RuleEffect::Verify, Some(evaluator)) => {
                    let answer = evaluator.ask(http, &verify_request(call)).await;
                    (answer.allow, Effect::Verify, Some(answer.reason))
                }
                (RuleEffect::Verify, None) => (false, Effect::Verify, Some("no evaluator".into())),
            };
            let mut verdict = Verdict::new("rules", effect).rule(&rule.name);
            if let Some(reason) = &reason {
                verdict = verdict.reason(reason.clone());
            }
            if allow {
                outcome.allowed |= rule.effect == RuleEffect::Allow;
                verdicts.push(verdict);
                continue;
            }
            if self.observe {
                verdicts.push(verdict.observed());
                continue;
            }
            verdicts.push(verdict);
            let why = reason.unwrap_or_default();
            outcome.refused = Some(CallError::new(
                ErrorKind::PolicyDenied,
                format!("rule {:?}: {why}", rule.name),
            ));
            return outcome;
        }
        if self.default_deny && !outcome.allowed {
            let verdict = Verdict::new("rules", Effect::Deny)
                .rule("default")
                .reason("no allow rule matches and the default is deny");
            if self.observe {
                verdicts.push(verdict.observed());
            } else {
                verdicts.push(verdict);
                outcome.refused = Some(CallError::new(
                    ErrorKind::PolicyDenied,
                    format!("no rule allows {action} (the policy's default is deny)"),
                ));
            }
        }
        outcome
    }

    /// Warnings for rules naming servers or argument fields not offered now (checked at
    /// every discovery): `servers` are the known server names, `fields` answers a tool's
    /// argument names by action id.
    pub fn lint(
        &self,
        servers: &[&str],
        fields: &dyn Fn(&str) -> Option<Vec<String>>,
    ) -> Vec<String> {
        let mut warnings = Vec::new();
        for rule in &self.rules {
            for glob in &rule.actions {
                if let Some(server) = glob.server()
                    && !servers.contains(&server)
                {
                    warnings.push(format!(
                        "rule {:?}: no server {server:?} is known yet ({}); the rule applies once it is",
                        rule.name,
                        glob.as_str()
                    ));
                }
                if glob.as_str().contains(['*', '?']) {
                    continue;
                }
                let Some(known) = fields(glob.as_str()) else {
                    continue;
                };
                for p in &rule.when {
                    if let Some(field) = p.root_field()
                        && !known.contains(&field)
                    {
                        warnings.push(format!(
                            "rule {:?}: {} has no argument {field:?} in its schema; the predicate can only match if the tool accepts it",
                            rule.name,
                            glob.as_str()
                        ));
                    }
                }
            }
        }
        warnings
    }
}

impl Rule {
    fn matches_action(&self, action: &str) -> bool {
        self.actions.iter().any(|g| g.matches(action))
    }

    /// `end_user`: `None` at list time (unknown), `Some(x)` at call time.
    fn matches_who(
        &self,
        org: Option<&str>,
        agent: Option<&str>,
        end_user: Option<Option<&str>>,
    ) -> bool {
        let within = |list: &Option<Vec<String>>, who: Option<&str>| match list {
            None => true,
            Some(list) => who.is_some_and(|w| list.iter().any(|l| l == w || l == "*")),
        };
        within(&self.orgs, org)
            && within(&self.agents, agent)
            && end_user.is_none_or(|user| within(&self.end_users, user))
    }

    fn denial(&self) -> String {
        self.reason
            .clone()
            .unwrap_or_else(|| format!("denied by rule {:?}", self.name))
    }
}

/// What an evaluator is given.
pub fn verify_request(call: &CallContext<'_>) -> Value {
    json!({
        "action": call.tool.action.as_str(),
        "server": call.tool.server.as_str(),
        "tool": call.tool.tool,
        "arguments": call.arguments,
        "org": call.caller.org_id,
        "agent": call.caller.agent_id,
        "end_user": call.end_user,
        "session": call.caller.session,
    })
}

#[cfg(test)]
mod tests;
