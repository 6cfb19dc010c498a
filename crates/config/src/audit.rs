//! `[audit]` in switchboard.toml: how durable a call's audit row is before its answer goes out.

use crate::settings::Reader;
use serde_json::Value;

/// `[audit]`: what the operator chose; unset fields keep the gateway's defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditSettings {
    /// `true` for `durability = "strict"`, `false` for `"buffered"`.
    pub strict: Option<bool>,
    /// Rows that may wait in memory while the store is not taking them.
    pub queue: Option<usize>,
    /// How long a strict call waits for its row's commit, in milliseconds.
    pub strict_wait_ms: Option<usize>,
    /// How often each replica on Postgres logs the chain's signed head, in seconds.
    pub head_log_secs: Option<usize>,
    /// Rows older than this many days are deleted (after a row that records the cut); `None`
    /// keeps every row.
    pub retention_days: Option<usize>,
}

impl AuditSettings {
    /// Later settings win where they say something.
    pub(crate) fn layer(&mut self, later: AuditSettings) {
        self.strict = later.strict.or(self.strict);
        self.queue = later.queue.or(self.queue);
        self.strict_wait_ms = later.strict_wait_ms.or(self.strict_wait_ms);
        self.head_log_secs = later.head_log_secs.or(self.head_log_secs);
        self.retention_days = later.retention_days.or(self.retention_days);
    }
}

pub(crate) fn parse(section: &Value, r: &mut Reader<'_, '_>) -> AuditSettings {
    let mut audit = AuditSettings::default();
    let Some(table) = section.as_object() else {
        r.problem(
            "",
            "must be a table",
            "write [audit] with durability = \"strict\" or \"buffered\"",
        );
        return audit;
    };
    for (key, value) in table {
        match key.as_str() {
            "durability" => match value.as_str() {
                Some("strict") => audit.strict = Some(true),
                Some("buffered") => audit.strict = Some(false),
                _ => r.problem(
                    key,
                    "must be \"buffered\" or \"strict\"",
                    "write durability = \"strict\" (an answer waits for its audit row's commit; calls fail closed while the store is down) or \"buffered\" (the default: answers go out at once, rows follow within milliseconds)",
                ),
            },
            "queue" => audit.queue = r.number(key, value),
            "strict_wait_ms" => audit.strict_wait_ms = r.number(key, value),
            "head_log_secs" => audit.head_log_secs = r.number(key, value),
            "retention_days" => match r.number(key, value) {
                Some(0) => r.problem(
                    key,
                    "must be at least 1",
                    "write retention_days = N to delete rows older than N days (a row records each cut, so `audit verify` still checks the chain), or leave it out to keep every row",
                ),
                days => audit.retention_days = days,
            },
            _ => r.unknown(key),
        }
    }
    audit
}

#[cfg(test)]
mod tests {
    use super::AuditSettings;

    fn load(text: &str) -> Result<AuditSettings, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("switchboard.toml");
        std::fs::write(&path, text).unwrap();
        crate::load_with_env(&[path], &|_| None)
            .map(|c| c.gateway.audit)
            .map_err(|p| p.to_string())
    }

    #[test]
    fn strict_durability_and_its_bounds_are_read_and_later_files_win() {
        let audit = load(
            "[audit]\ndurability = \"strict\"\nqueue = 100\nstrict_wait_ms = 250\nhead_log_secs = 5\nretention_days = 400\n",
        );
        let expected = AuditSettings {
            strict: Some(true),
            queue: Some(100),
            strict_wait_ms: Some(250),
            head_log_secs: Some(5),
            retention_days: Some(400),
        };
        assert_eq!(audit.unwrap(), expected);
        assert_eq!(load("[gateway]\n").unwrap(), AuditSettings::default());
        let mut layered = expected.clone();
        layered.layer(AuditSettings {
            strict: Some(false),
            ..Default::default()
        });
        assert_eq!(layered.strict, Some(false));
        assert_eq!(layered.queue, Some(100));
    }

    #[test]
    fn a_wrong_durability_names_the_key_and_both_choices() {
        let problem = load("[audit]\ndurability = \"fsync\"\n").unwrap_err();
        assert!(problem.contains("audit.durability"), "{problem}");
        assert!(problem.contains("\"strict\""), "{problem}");
        assert!(problem.contains("\"buffered\""), "{problem}");
        let problem = load("[audit]\nqueue = 0\n").unwrap_err();
        assert!(problem.contains("audit.queue"), "{problem}");
        let problem = load("[audit]\nretention_days = 0\n").unwrap_err();
        assert!(problem.contains("audit.retention_days"), "{problem}");
    }
}
