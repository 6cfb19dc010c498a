//! Flattens a tool definition into the strings a model would read, each with its location.

use serde_json::Value;

/// Where a string sits in the definition; rules weigh the same words differently by place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// The tool's `name`.
    Name,
    /// `title` or `annotations.title`.
    Title,
    /// The tool's `description`.
    Description,
    /// Any other annotation string.
    Annotation,
    /// A property's key in an input or output schema.
    PropertyName,
    /// A property's `description`/`title` or other schema text.
    SchemaText,
    /// An `enum`, `default`, `const` or `examples` string.
    Value,
    /// Strings under `_meta` and unknown top-level keys.
    Meta,
    /// Free text given to `scan_text`.
    FreeText,
    /// What an MCP Apps UI shows, hides in comments, or holds as sentences in its scripts.
    UiText,
}

impl Kind {
    /// Text that describes what to put into an argument: a request there is a request to the model.
    pub(crate) fn is_parameter(self) -> bool {
        matches!(self, Kind::PropertyName | Kind::SchemaText | Kind::Value)
    }
}

/// One string of the definition.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    pub location: String,
    pub kind: Kind,
    pub text: String,
}

/// Every string of `tool` with its location, in document order.
pub(crate) fn collect(tool: &Value) -> Vec<Field> {
    let mut out = Vec::new();
    let Some(obj) = tool.as_object() else {
        return out;
    };
    for (key, value) in obj {
        match key.as_str() {
            "name" => strings(value, "name", Kind::Name, &mut out),
            "title" => strings(value, "title", Kind::Title, &mut out),
            "description" => strings(value, "description", Kind::Description, &mut out),
            "annotations" => annotations(value, &mut out),
            "inputSchema" | "outputSchema" => schema(value, key, Kind::SchemaText, &mut out),
            // An MCP Apps tool's UI (the gateway adds it for pinning): its text, comments and
            // script sentences, not its markup or code.
            "uiResource" => crate::ui::collect(value, &mut out),
            _ => strings(value, key, Kind::Meta, &mut out),
        }
    }
    out
}

fn annotations(value: &Value, out: &mut Vec<Field>) {
    match value.as_object() {
        Some(map) => {
            for (k, v) in map {
                let kind = if k == "title" {
                    Kind::Title
                } else {
                    Kind::Annotation
                };
                strings(v, &format!("annotations.{k}"), kind, out);
            }
        }
        None => strings(value, "annotations", Kind::Annotation, out),
    }
}

fn schema(value: &Value, path: &str, kind: Kind, out: &mut Vec<Field>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let here = format!("{path}.{k}");
                match k.as_str() {
                    "properties" | "patternProperties" | "$defs" | "definitions" => {
                        if let Some(props) = v.as_object() {
                            for (name, sub) in props {
                                let at = format!("{here}.{name}");
                                push(out, &at, Kind::PropertyName, name);
                                schema(sub, &at, Kind::SchemaText, out);
                            }
                        } else {
                            schema(v, &here, kind, out);
                        }
                    }
                    "enum" | "default" | "const" | "examples" | "example" => {
                        strings(v, &here, Kind::Value, out)
                    }
                    // Keys the model sees only as structure.
                    "type" | "$schema" | "$ref" | "format" => {}
                    _ => schema(v, &here, kind, out),
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                schema(v, &format!("{path}[{i}]"), kind, out);
            }
        }
        Value::String(s) => push(out, path, kind, s),
        _ => {}
    }
}

fn strings(value: &Value, path: &str, kind: Kind, out: &mut Vec<Field>) {
    match value {
        Value::String(s) => push(out, path, kind, s),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                strings(v, &format!("{path}[{i}]"), kind, out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                strings(v, &format!("{path}.{k}"), kind, out);
            }
        }
        _ => {}
    }
}

fn push(out: &mut Vec<Field>, location: &str, kind: Kind, text: &str) {
    if !text.is_empty() {
        out.push(Field {
            location: location.to_string(),
            kind,
            text: text.to_string(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn visits_every_place() {
        let tool = json!({
            "name": "t", "title": "T", "description": "d",
            "annotations": {"title": "at", "readOnlyHint": true, "x": "ax"},
            "inputSchema": {"type": "object", "properties": {
                "p": {"type": "string", "description": "pd", "enum": ["e1"], "default": "dv",
                      "items": {"properties": {"q": {"description": "qd"}}}}}},
            "outputSchema": {"properties": {"o": {"examples": ["ex"]}}},
            "_meta": {"k": "mv"}
        });
        let fields = collect(&tool);
        let got: Vec<(Kind, &str)> = fields.iter().map(|f| (f.kind, f.text.as_str())).collect();
        let table = [
            (Kind::Name, "t"),
            (Kind::Title, "T"),
            (Kind::Description, "d"),
            (Kind::Title, "at"),
            (Kind::Annotation, "ax"),
            (Kind::PropertyName, "p"),
            (Kind::SchemaText, "pd"),
            (Kind::Value, "e1"),
            (Kind::Value, "dv"),
            (Kind::PropertyName, "q"),
            (Kind::SchemaText, "qd"),
            (Kind::PropertyName, "o"),
            (Kind::Value, "ex"),
            (Kind::Meta, "mv"),
        ];
        for want in table {
            assert!(got.contains(&want), "missing {want:?} in {got:?}");
        }
    }
}
