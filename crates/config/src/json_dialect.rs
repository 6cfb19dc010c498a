//! JSON as the host that owns a file reads it: JSONC (comments, trailing commas) for VS Code's
//! and Zed's files, strict JSON elsewhere (Claude Desktop, Cursor, Claude Code).

use crate::Problem;
use jsonc_parser::ParseOptions;
use serde_json::Value;
use std::path::Path;

/// Whether the host that owns `path` reads it as JSONC: a `.jsonc` file, an editor's
/// `settings.json` (VS Code, Zed), VS Code's workspace `.vscode/mcp.json` and user
/// `…/Code/User/mcp.json`, Zed's `.zed/` folder.
pub(crate) fn reads_jsonc(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let parent = |depth: usize| {
        path.ancestors()
            .nth(depth)
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string()
    };
    let vscode_user = parent(1) == "User"
        && ["Code", "Code - Insiders", "VSCodium"].contains(&parent(2).as_str());
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonc"))
        || name == "settings.json"
        || [".vscode", ".zed", "zed"].contains(&parent(1).as_str())
        || vscode_user
}

/// Comments and trailing commas, and nothing else beyond JSON (no missing commas, single
/// quotes, bare keys or hex numbers, which no host accepts).
fn jsonc() -> ParseOptions {
    ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        ..strict()
    }
}

fn strict() -> ParseOptions {
    ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// The document, and a warning when a file its host reads as strict JSON holds comments or
/// trailing commas (accepted here, refused by that host). Anything else that is not JSON is
/// an error with its line and column.
pub(crate) fn parse(path: &Path, text: &str) -> Result<(Value, Option<Problem>), Problem> {
    let file = path.display().to_string();
    let jsonc_host = reads_jsonc(path);
    let parsed: Option<Value> = jsonc_parser::parse_to_serde_value(text, &jsonc()).map_err(|e| {
        Problem::error(
            &file,
            Some(e.line_display()),
            "",
            format!("invalid JSON at column {}: {}", e.column_display(), e.kind()),
            match jsonc_host {
                true => "fix the syntax (comments and trailing commas are fine in this file)",
                false => "fix the syntax: MCP hosts refuse this file as it is (a missing comma or quote is the usual cause)",
            },
        )
    })?;
    let value = parsed.ok_or_else(|| {
        Problem::error(
            &file,
            Some(1),
            "",
            "the file is empty",
            "declare servers (docs/configuration.md has each shape)",
        )
    })?;
    if jsonc_host {
        return Ok((value, None));
    }
    let warning = jsonc_parser::parse_to_serde_value::<Option<Value>>(text, &strict())
        .err()
        .map(|e| {
            Problem::warning(
                &file,
                Some(e.line_display()),
                "",
                format!(
                    "{} at column {}: read here as JSONC, but hosts that read this file as strict JSON (Claude Desktop, Cursor, Claude Code) refuse it",
                    e.kind(),
                    e.column_display()
                ),
                "remove comments and trailing commas, or name the file .jsonc if only JSONC hosts read it",
            )
        });
    Ok((value, warning))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_comma_is_an_error_with_line_and_column_everywhere() {
        let text = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    \"b\": {\"command\": \"y\"}\n  }\n}\n";
        for name in ["mcp.json", ".vscode/mcp.json"] {
            let e = parse(Path::new(name), text).unwrap_err();
            // Where the comma belongs: the end of the line before the next entry.
            assert_eq!(e.line, Some(3), "{e}");
            assert!(e.message.contains("column 26"), "{e}");
        }
    }

    #[test]
    fn comments_and_trailing_commas_are_silent_for_jsonc_hosts_and_warned_elsewhere() {
        let text = "{\n  // mine\n  \"servers\": {\"a\": {\"command\": \"x\"},},\n}\n";
        for name in [
            "settings.json",
            "/p/.vscode/mcp.json",
            "/h/.config/Code/User/mcp.json",
            "/h/.config/zed/settings.json",
            "x.jsonc",
        ] {
            let (_, warning) = parse(Path::new(name), text).expect(name);
            assert!(warning.is_none(), "{name}: {warning:?}");
        }
        let (value, warning) = parse(Path::new("/p/.cursor/mcp.json"), text).unwrap();
        assert!(value["servers"]["a"].is_object());
        let warning = warning.expect("a warning");
        assert_eq!(warning.line, Some(2), "{warning}");
        assert!(warning.message.contains("Claude Desktop"), "{warning}");
    }

    #[test]
    fn single_quotes_and_bare_keys_are_refused_as_no_host_reads_them() {
        for text in ["{'servers': {}}", "{servers: {}}", "{\"n\": 0x10}"] {
            assert!(parse(Path::new("settings.json"), text).is_err(), "{text}");
        }
    }
}
