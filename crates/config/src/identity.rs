//! `[[identity.issuers]]` and `[gateway] public_url`: the issuers whose access tokens the
//! gateway accepts and how their claims map onto org, roles, agent and end user.

use crate::settings::Reader;
use serde_json::Value;
use switchboard_core::IssuerSpec;

pub use switchboard_core::identity::ROLES;
/// Entra ID's multi-tenant issuers: tokens name the tenant, so these are templates.
const ENTRA_MULTI_TENANT: [&str; 3] = ["common", "organizations", "consumers"];

/// The issuers of `[identity]`; each problem names the issuer's key.
pub(crate) fn parse(section: &Value, r: &mut Reader<'_, '_>) -> Option<Vec<IssuerSpec>> {
    let Some(table) = section.as_object() else {
        r.problem("", "must be a table", "write [[identity.issuers]] tables");
        return None;
    };
    let mut specs = Vec::new();
    for (key, value) in table {
        if key != "issuers" {
            r.unknown(key);
            continue;
        }
        let Some(list) = value.as_array() else {
            r.problem(
                key,
                "must be a list of tables",
                "write each issuer as [[identity.issuers]]",
            );
            continue;
        };
        for item in list {
            specs.extend(issuer(item, r));
        }
    }
    Some(specs)
}

/// One `[[identity.issuers]]` table: placeholders resolved, checked, and a multi-tenant
/// Entra issuer expanded into one issuer per listed tenant.
fn issuer(item: &Value, r: &mut Reader<'_, '_>) -> Vec<IssuerSpec> {
    let Some(mut table) = item.as_object().cloned() else {
        r.problem("issuers", "must be a table", "write [[identity.issuers]]");
        return Vec::new();
    };
    let tenants = table.remove("tenants");
    let spec: IssuerSpec = match serde_json::from_value(Value::Object(table)) {
        Ok(spec) => spec,
        Err(e) => {
            r.problem(
                "issuers",
                &e.to_string(),
                "see [[identity.issuers]] in docs/identity.md",
            );
            return Vec::new();
        }
    };
    let Some(mut spec) = checked(spec, r) else {
        return Vec::new();
    };
    // A sign-in client's secret may be a placeholder ({env:VAR}).
    if let Some(client) = &mut spec.sign_in
        && let Some(secret) = client.client_secret.take()
    {
        client.client_secret = r.string("sign_in", &Value::String(secret));
    }
    if let Some(client) = &mut spec.introspection
        && let Some(secret) = client.client_secret.take()
    {
        client.client_secret = r.string("introspection", &Value::String(secret));
    }
    if let Some(client) = &mut spec.token_exchange
        && let Some(secret) = client.client_secret.take()
    {
        client.client_secret = r.string("token_exchange", &Value::String(secret));
    }
    let tenants: Vec<String> = match tenants {
        None => Vec::new(),
        Some(list) => match r.strings("tenants", &list) {
            Some(list) => list,
            None => return Vec::new(),
        },
    };
    let Some(template) = entra_template(&spec.issuer) else {
        if !tenants.is_empty() {
            r.problem(
                "tenants",
                "is for Entra ID's multi-tenant issuers only",
                "remove tenants, or set issuer to https://login.microsoftonline.com/common/v2.0",
            );
        }
        return vec![spec];
    };
    if tenants.is_empty() {
        r.problem(
            "issuer",
            &format!("{} accepts tokens of every Entra tenant", spec.issuer),
            "list the tenant ids you trust in tenants = [\"…\"], or use your tenant's own issuer https://login.microsoftonline.com/<tenant id>/v2.0",
        );
        return Vec::new();
    }
    (tenants.iter())
        .map(|tenant| IssuerSpec {
            issuer: template.replace("{tenant}", tenant),
            ..spec.clone()
        })
        .collect()
}

/// `https://login.microsoftonline.com/{tenant}/v2.0` for a multi-tenant Entra issuer.
fn entra_template(issuer: &str) -> Option<String> {
    let url = url::Url::parse(issuer).ok()?;
    if url.host_str() != Some("login.microsoftonline.com") {
        return None;
    }
    let first = url.path_segments()?.next()?;
    ENTRA_MULTI_TENANT
        .contains(&first)
        .then(|| issuer.replacen(&format!("/{first}/"), "/{tenant}/", 1))
}

fn checked(mut spec: IssuerSpec, r: &mut Reader<'_, '_>) -> Option<IssuerSpec> {
    let problems = spec.problems();
    for p in &problems {
        r.problem(p.key, &p.problem, &p.fix);
    }
    for audience in &mut spec.audiences {
        *audience = audience.trim().to_string();
    }
    problems.is_empty().then_some(spec)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_multi_tenant_entra_issuer_is_a_template() {
        assert_eq!(
            super::entra_template("https://login.microsoftonline.com/organizations/v2.0")
                .as_deref(),
            Some("https://login.microsoftonline.com/{tenant}/v2.0")
        );
        assert_eq!(
            super::entra_template("https://login.microsoftonline.com/1234/v2.0"),
            None
        );
    }
}
