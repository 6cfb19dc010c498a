//! The labelled query sets' files (`evalset*/tools.json`, `queries.json`), read for the eval
//! example and the recall test alike.

use serde::Deserialize;
use serde_json::Value;
use switchboard_search::Document;

#[derive(Deserialize)]
pub(crate) struct ToolDef {
    pub(crate) server: String,
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: String,
    #[serde(rename = "inputSchema")]
    pub(crate) input_schema: Value,
}

impl ToolDef {
    /// `server/name`, as the sets name their targets.
    pub(crate) fn key(&self) -> String {
        format!("{}/{}", self.server, self.name)
    }

    /// What the search indexes of it, as the gateway builds it.
    pub(crate) fn document(&self) -> Document {
        let details = match &self.input_schema {
            Value::Object(schema) => Document::schema_details(schema),
            _ => Vec::new(),
        };
        Document {
            server: self.server.clone(),
            name: self.name.clone(),
            title: self.title.clone(),
            description: self.description.clone(),
            details,
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct Query {
    pub(crate) id: String,
    pub(crate) query: String,
    pub(crate) targets: Vec<String>,
    pub(crate) split: String,
}

/// `folder/file` parsed, or a panic naming the file.
pub(crate) fn read<T: for<'de> Deserialize<'de>>(folder: &str, file: &str) -> T {
    let path = format!("{folder}/{file}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}
