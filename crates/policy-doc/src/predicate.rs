//! Argument predicates: a value found by JSON pointer (or dotted path) tested with equals,
//! in, matches, a numeric comparison or presence.

use crate::PredicateDoc;
use regex::Regex;
use serde_json::{Map, Value};

#[derive(Debug, Clone)]
pub enum Test {
    Equals(Value),
    In(Vec<Value>),
    Matches(Regex),
    Gt(f64),
    Gte(f64),
    Lt(f64),
    Lte(f64),
    Present(bool),
}

/// One compiled predicate.
#[derive(Debug, Clone)]
pub struct Predicate {
    /// As a JSON pointer.
    pointer: String,
    test: Test,
}

impl Predicate {
    /// Compiles a predicate; the error says which part is wrong (`path`, or the test key).
    pub fn compile(doc: &PredicateDoc) -> Result<Self, (&'static str, String, String)> {
        let pointer = pointer_of(&doc.path).map_err(|m| {
            (
                "path",
                m,
                "write a JSON pointer such as /amount or /to/0, or a dotted path such as to.0"
                    .into(),
            )
        })?;
        let mut tests = Vec::new();
        if let Some(v) = &doc.equals {
            tests.push(Test::Equals(v.clone()));
        }
        if let Some(v) = &doc.one_of {
            tests.push(Test::In(v.clone()));
        }
        if let Some(re) = &doc.matches {
            let re = Regex::new(re).map_err(|e| {
                (
                    "matches",
                    format!("not a valid regular expression: {e}"),
                    "fix the expression (Rust regex syntax, no look-around)".into(),
                )
            })?;
            tests.push(Test::Matches(re));
        }
        for (value, make) in [
            (doc.gt, Test::Gt as fn(f64) -> Test),
            (doc.gte, Test::Gte),
            (doc.lt, Test::Lt),
            (doc.lte, Test::Lte),
        ] {
            if let Some(n) = value {
                if !n.is_finite() {
                    return Err((
                        "gt",
                        "the comparison needs a finite number".into(),
                        "write a number".into(),
                    ));
                }
                tests.push(make(n));
            }
        }
        if let Some(p) = doc.present {
            tests.push(Test::Present(p));
        }
        match tests.len() {
            1 => Ok(Self {
                pointer,
                test: tests.remove(0),
            }),
            0 => Err((
                "path",
                "the predicate tests nothing".into(),
                "add one of equals, in, matches, gt, gte, lt, lte or present".into(),
            )),
            _ => Err((
                "path",
                "the predicate has more than one test".into(),
                "write one test per predicate; list several predicates under `when` (all must hold)"
                    .into(),
            )),
        }
    }

    /// The top-level argument this predicate reads (for checking it against a schema).
    pub fn root_field(&self) -> Option<String> {
        let first = self.pointer.split('/').nth(1)?;
        Some(first.replace("~1", "/").replace("~0", "~"))
    }

    pub fn holds(&self, arguments: Option<&Map<String, Value>>) -> bool {
        let value = arguments.and_then(|args| lookup(args, &self.pointer));
        match (&self.test, value) {
            (Test::Present(want), v) => v.is_some() == *want,
            (_, None) => false,
            (Test::Equals(want), Some(v)) => same(v, want),
            (Test::In(set), Some(v)) => set.iter().any(|want| same(v, want)),
            (Test::Matches(re), Some(Value::String(s))) => re.is_match(s),
            (Test::Matches(_), Some(_)) => false,
            (test, Some(v)) => {
                let Some(n) = number(v) else { return false };
                match test {
                    Test::Gt(x) => n > *x,
                    Test::Gte(x) => n >= *x,
                    Test::Lt(x) => n < *x,
                    Test::Lte(x) => n <= *x,
                    _ => false,
                }
            }
        }
    }
}

/// A number, or a string that is one ("500"): an upstream that reads either must not let a
/// caller dodge a numeric rule by quoting the value.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|n| n.is_finite()),
        _ => None,
    }
}

/// Equal as JSON, or as numbers (100 and 100.0 and "100").
fn same(value: &Value, want: &Value) -> bool {
    value == want
        || (want.is_number()
            && number(value)
                .zip(want.as_f64())
                .is_some_and(|(a, b)| a == b))
}

fn lookup<'a>(args: &'a Map<String, Value>, pointer: &str) -> Option<&'a Value> {
    let mut parts = pointer.split('/').skip(1);
    let first = parts.next()?.replace("~1", "/").replace("~0", "~");
    let mut value = args.get(&first)?;
    for part in parts {
        let part = part.replace("~1", "/").replace("~0", "~");
        value = match value {
            Value::Object(map) => map.get(&part)?,
            Value::Array(items) => items.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(value)
}

/// A JSON pointer from `/a/b` or `a.b`.
fn pointer_of(path: &str) -> Result<String, String> {
    if path.is_empty() || path == "/" {
        return Err("the path is empty: it must name an argument".into());
    }
    if path.starts_with('/') {
        return Ok(path.to_string());
    }
    if path.split('.').any(str::is_empty) {
        return Err(format!("{path:?} has an empty segment"));
    }
    Ok(path
        .split('.')
        .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pred(v: Value) -> Predicate {
        let doc: PredicateDoc = serde_json::from_value(v).unwrap();
        Predicate::compile(&doc).unwrap()
    }

    #[test]
    fn predicates_test_arguments() {
        let args = json!({"amount": 250, "quoted": "500", "to": ["a@x.com"], "meta": {"env": "prod"}, "name": "x"});
        let args = args.as_object();
        let cases = [
            (json!({"path": "/amount", "gt": 100}), true),
            (json!({"path": "amount", "lte": 100}), false),
            (json!({"path": "/meta/env", "equals": "prod"}), true),
            (json!({"path": "meta.env", "in": ["dev", "test"]}), false),
            (json!({"path": "/to/0", "matches": "@x\\.com$"}), true),
            (json!({"path": "/missing", "present": false}), true),
            (json!({"path": "/missing", "equals": 1}), false),
            (json!({"path": "/name", "gt": 1}), false),
            (json!({"path": "/quoted", "gt": 100}), true),
            (json!({"path": "/amount", "equals": 250.0}), true),
            (json!({"path": "/amount", "in": [1, 250]}), true),
        ];
        for (doc, want) in cases {
            assert_eq!(pred(doc.clone()).holds(args), want, "{doc}");
        }
        assert!(!pred(json!({"path": "/amount", "gt": 1})).holds(None));
    }

    #[test]
    fn predicates_that_cannot_be_evaluated_are_refused() {
        for bad in [
            json!({"path": "", "equals": 1}),
            json!({"path": "/a"}),
            json!({"path": "/a", "gt": 1, "lt": 2}),
            json!({"path": "/a", "matches": "("}),
            json!({"path": "a..b", "equals": 1}),
        ] {
            let doc: PredicateDoc = serde_json::from_value(bad.clone()).unwrap();
            assert!(Predicate::compile(&doc).is_err(), "{bad}");
        }
    }
}
