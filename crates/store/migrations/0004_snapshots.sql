-- What each server offered at its last discovery, so a lazy stdio server's tools are listed
-- before it ever runs. Keyed by a hash of what the snapshot depends on (name, command line).
CREATE TABLE snapshots (
    fingerprint TEXT PRIMARY KEY,
    snapshot TEXT NOT NULL,
    saved_at BIGINT NOT NULL
);
