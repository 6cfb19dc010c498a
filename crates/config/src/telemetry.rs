//! `[telemetry]` in switchboard.toml: where the gateway exports its traces.

use crate::Telemetry;
use crate::settings::Reader;
use serde_json::Value;

const DEFAULT_SERVICE_NAME: &str = "switchboard";

/// The export `[telemetry]` asks for: `None` when it is off (`enabled = false`, or no
/// endpoint) or written wrongly (the problems say how).
pub(crate) fn parse(section: &Value, r: &mut Reader<'_, '_>) -> Option<Telemetry> {
    let Some(table) = section.as_object() else {
        r.problem(
            "",
            "must be a table",
            "write [telemetry] with endpoint = \"http://…\"",
        );
        return None;
    };
    let (mut endpoint, mut endpoint_given) = (None, false);
    let mut enabled = true;
    let mut telemetry = Telemetry {
        endpoint: String::new(),
        service_name: DEFAULT_SERVICE_NAME.to_string(),
        sample_ratio: 1.0,
        headers: Vec::new(),
    };
    for (key, value) in table {
        match key.as_str() {
            "enabled" => match value.as_bool() {
                Some(on) => enabled = on,
                None => r.problem(key, "must be true or false", "write enabled = false"),
            },
            "endpoint" => {
                endpoint_given = true;
                endpoint = r.string(key, value).and_then(|e| checked(e, r));
            }
            "service_name" => {
                if let Some(name) = r.string(key, value) {
                    telemetry.service_name = name;
                }
            }
            "sample_ratio" => match value.as_f64().filter(|n| (0.0..=1.0).contains(n)) {
                Some(ratio) => telemetry.sample_ratio = ratio,
                None => r.problem(
                    key,
                    "must be a number from 0.0 to 1.0",
                    "write e.g. 0.1 to keep one new trace in ten",
                ),
            },
            "headers" => telemetry.headers = headers(value, r),
            _ => r.unknown(key),
        }
    }
    if enabled && !endpoint_given {
        r.problem(
            "endpoint",
            "is missing: traces need somewhere to go",
            "write endpoint = \"http://127.0.0.1:4318\" (an OpenTelemetry collector's OTLP/HTTP port), or enabled = false",
        );
    }
    telemetry.endpoint = endpoint?;
    enabled.then_some(telemetry)
}

fn checked(endpoint: String, r: &mut Reader<'_, '_>) -> Option<String> {
    match url::Url::parse(&endpoint) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => Some(endpoint),
        _ => {
            r.problem(
                "endpoint",
                &format!("{endpoint:?} is not an http(s) URL"),
                "write the collector's OTLP/HTTP address, e.g. \"http://127.0.0.1:4318\" (gRPC is not supported)",
            );
            None
        }
    }
}

fn headers(value: &Value, r: &mut Reader<'_, '_>) -> Vec<(String, String)> {
    let Some(table) = value.as_object() else {
        r.problem(
            "headers",
            "must be a table of strings",
            "write headers = { \"x-api-key\" = \"${COLLECTOR_KEY}\" }",
        );
        return Vec::new();
    };
    table
        .iter()
        .filter_map(|(name, v)| Some((name.clone(), r.string("headers", v)?)))
        .collect()
}

/// The `[telemetry]` of the native files among `paths` (the last one that says wins), read
/// on its own before anything else so that tracing starts with the process. Problems are
/// left to [`crate::load`], which reports them.
pub fn telemetry_of(
    paths: &[std::path::PathBuf],
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<Telemetry> {
    let mut found = None;
    for path in paths
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
    {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let file = path.display().to_string();
        let Ok(doc) = crate::shapes::parse_toml(&file, &text) else {
            continue;
        };
        let Some(section) = doc.get("telemetry") else {
            continue;
        };
        let root = path.parent().unwrap_or(std::path::Path::new("."));
        let ctx = crate::entry::Context {
            file: &file,
            text: &text,
            workspace_root: root,
            env,
            scope: &[],
        };
        let mut problems = Vec::new();
        let mut r = Reader {
            ctx: &ctx,
            section: "telemetry",
            problems: &mut problems,
        };
        found = parse(section, &mut r);
    }
    found
}

#[cfg(test)]
mod tests {
    use crate::{Problems, Telemetry, load_with_env, telemetry_of};
    use std::path::PathBuf;

    fn file(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("switchboard.toml");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    fn env(name: &str) -> Option<String> {
        (name == "COLLECTOR_KEY").then(|| "k-123".to_string())
    }

    fn load(text: &str) -> Result<Option<Telemetry>, Problems> {
        let (_dir, path) = file(text);
        load_with_env(&[path], &env).map(|c| c.gateway.telemetry)
    }

    #[test]
    fn a_telemetry_table_with_an_endpoint_turns_export_on() {
        let text = "[telemetry]\nendpoint = \"http://127.0.0.1:4318\"\nsample_ratio = 0.25\nheaders = { \"x-api-key\" = \"${COLLECTOR_KEY}\" }\n";
        let telemetry = load(text).unwrap().expect("on");
        assert_eq!(telemetry.endpoint, "http://127.0.0.1:4318");
        assert_eq!(telemetry.service_name, "switchboard");
        assert_eq!(telemetry.sample_ratio, 0.25);
        assert_eq!(
            telemetry.headers,
            vec![("x-api-key".into(), "k-123".into())]
        );
        let (_dir, path) = file(text);
        assert_eq!(telemetry_of(&[path], &env), Some(telemetry));
        assert_eq!(load("[gateway]\n").unwrap(), None, "off without the table");
        let off = "[telemetry]\nendpoint = \"http://127.0.0.1:4318\"\nenabled = false\n";
        assert_eq!(load(off).unwrap(), None);
    }

    #[test]
    fn a_wrong_telemetry_table_names_the_key_and_the_fix() {
        let problems = |text: &str| load(text).unwrap_err().to_string();
        let missing = problems("[telemetry]\nservice_name = \"gw\"\n");
        assert!(missing.contains("telemetry.endpoint"), "{missing}");
        assert!(missing.contains("4318"), "{missing}");
        let grpc = problems("[telemetry]\nendpoint = \"grpc://127.0.0.1:4317\"\n");
        assert!(grpc.contains("not an http(s) URL"), "{grpc}");
        assert!(!grpc.contains("is missing"), "{grpc}");
        let ratio = problems("[telemetry]\nendpoint = \"http://c:4318\"\nsample_ratio = 2\n");
        assert!(ratio.contains("telemetry.sample_ratio"), "{ratio}");
        let (_dir, path) = file("[telemetry]\nendpoint = \"grpc://c\"\n");
        assert_eq!(
            telemetry_of(&[path], &env),
            None,
            "left to the full load to report"
        );
    }
}
