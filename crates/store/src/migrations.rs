//! The schema's migrations, compiled in: what `sqlx::migrate!` embedded, without its proc
//! macro, whose dependencies built sqlx's SQLite and Postgres drivers and SQLite's C code a
//! second time for the build host (issue 38: the binary's cold build).

use sqlx::SqlStr;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use std::borrow::Cow;

/// Version, description (the file name's, as sqlx reads it) and SQL of each migration, in order.
/// A new file in `migrations/` is added here too; a unit test compares the two.
const MIGRATIONS: [(i64, &str, &str); 14] = [
    (1, "init", include_str!("../migrations/0001_init.sql")),
    (
        2,
        "agent actions",
        include_str!("../migrations/0002_agent_actions.sql"),
    ),
    (3, "cluster", include_str!("../migrations/0003_cluster.sql")),
    (
        4,
        "snapshots",
        include_str!("../migrations/0004_snapshots.sql"),
    ),
    (
        5,
        "oauth tokens",
        include_str!("../migrations/0005_oauth_tokens.sql"),
    ),
    (6, "policy", include_str!("../migrations/0006_policy.sql")),
    (7, "inputs", include_str!("../migrations/0007_inputs.sql")),
    (
        8,
        "session use",
        include_str!("../migrations/0008_session_use.sql"),
    ),
    (
        9,
        "audit batch",
        include_str!("../migrations/0009_audit_batch.sql"),
    ),
    (
        10,
        "input rounds",
        include_str!("../migrations/0010_input_rounds.sql"),
    ),
    (
        11,
        "end user grants",
        include_str!("../migrations/0011_end_user_grants.sql"),
    ),
    (
        12,
        "token lifecycle",
        include_str!("../migrations/0012_token_lifecycle.sql"),
    ),
    (
        13,
        "pins by launch",
        include_str!("../migrations/0013_pins_by_launch.sql"),
    ),
    (14, "tasks", include_str!("../migrations/0014_tasks.sql")),
];

/// The migrator `sqlx::migrate!("./migrations")` made: same versions, same checksums (of the
/// same text), so databases migrated before this change go on as they were.
pub(crate) fn migrator() -> Migrator {
    Migrator::with_migrations(
        MIGRATIONS
            .iter()
            .map(|&(version, description, sql)| {
                Migration::new(
                    version,
                    Cow::Borrowed(description),
                    MigrationType::Simple,
                    SqlStr::from_static(sql),
                    sql.starts_with("-- no-transaction"),
                )
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_in_the_migrations_folder_is_compiled_in_as_sqlx_reads_it() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        let on_disk = sqlx::migrate::resolve_blocking(&folder).unwrap();
        let compiled = migrator();
        assert_eq!(on_disk.len(), compiled.migrations.len());
        for ((file, path), ours) in on_disk.iter().zip(compiled.migrations.iter()) {
            assert_eq!(file.version, ours.version, "{}", path.display());
            assert_eq!(file.description, ours.description, "{}", path.display());
            assert_eq!(
                file.migration_type,
                ours.migration_type,
                "{}",
                path.display()
            );
            assert_eq!(file.checksum, ours.checksum, "{}", path.display());
            assert_eq!(file.no_tx, ours.no_tx, "{}", path.display());
        }
    }
}
