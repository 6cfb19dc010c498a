//! How an endpoint hands out its tools: every definition in `tools/list`, or a few meta-tools
//! that search the catalogue (`search`), or search once the catalogue is large (`auto`).

use serde::{Deserialize, Serialize};

/// The meta-tools of search mode. No upstream tool is exposed under these names: one that
/// would be is renamed with its server (`{server}__{tool}`) and a warning.
pub const META_TOOLS: [&str; 4] = [
    "search_tools",
    "describe_tool",
    "call_tool",
    "search_resources",
];

/// The `auto` threshold when none is configured: search once a caller sees more tools.
pub const DEFAULT_SEARCH_THRESHOLD: usize = 40;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolsMode {
    /// Every visible tool in `tools/list` (the default).
    #[default]
    All,
    /// Only the meta-tools; the catalogue is reached through `search_tools`.
    Search,
    /// `search` once the caller sees more tools than the threshold, else `all`.
    Auto,
}

impl ToolsMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolsMode::All => "all",
            ToolsMode::Search => "search",
            ToolsMode::Auto => "auto",
        }
    }

    /// Whether a caller who sees `visible` tools gets the meta-tools.
    pub fn searches(self, visible: usize, threshold: usize) -> bool {
        match self {
            ToolsMode::All => false,
            ToolsMode::Search => true,
            ToolsMode::Auto => visible > threshold,
        }
    }
}

impl std::str::FromStr for ToolsMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "all" => Ok(ToolsMode::All),
            "search" => Ok(ToolsMode::Search),
            "auto" => Ok(ToolsMode::Auto),
            other => Err(format!(
                "{other:?} is not a tools mode: use \"all\", \"search\" or \"auto\""
            )),
        }
    }
}

/// An endpoint's mode, the `auto` threshold, whether tools a session found are added to its
/// own `tools/list` (for hosts that call only listed tools), and whether search ranks by
/// meaning as well as by words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolsSetting {
    pub mode: ToolsMode,
    pub threshold: usize,
    pub list_found: bool,
    pub meaning: bool,
}

impl Default for ToolsSetting {
    fn default() -> Self {
        Self {
            mode: ToolsMode::All,
            threshold: DEFAULT_SEARCH_THRESHOLD,
            list_found: false,
            meaning: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_auto_switches_above_the_threshold() {
        assert_eq!("auto".parse::<ToolsMode>(), Ok(ToolsMode::Auto));
        assert!(
            "everything"
                .parse::<ToolsMode>()
                .unwrap_err()
                .contains("\"all\"")
        );
        assert!(!ToolsMode::Auto.searches(40, 40));
        assert!(ToolsMode::Auto.searches(41, 40));
        assert!(ToolsMode::Search.searches(0, 40));
        assert!(!ToolsMode::All.searches(10_000, 40));
    }
}
