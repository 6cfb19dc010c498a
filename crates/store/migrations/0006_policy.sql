-- The policy pipeline: stage verdicts in the audit row, approved tool definitions (pins),
-- definitions waiting for approval, information-flow taint, rate-limit cells and per-org
-- policy documents. Portable across SQLite and Postgres.
ALTER TABLE audit ADD COLUMN policy TEXT;

CREATE TABLE tool_pins (
    owner TEXT NOT NULL,
    server TEXT NOT NULL,
    tool TEXT NOT NULL,
    hash TEXT NOT NULL,
    definition TEXT NOT NULL,
    approved_at BIGINT NOT NULL,
    approved_by TEXT NOT NULL,
    PRIMARY KEY (owner, server, tool)
);

CREATE TABLE tool_pending (
    owner TEXT NOT NULL,
    server TEXT NOT NULL,
    tool TEXT NOT NULL,
    hash TEXT NOT NULL,
    definition TEXT NOT NULL,
    reason TEXT NOT NULL,
    seen_at BIGINT NOT NULL,
    PRIMARY KEY (owner, server, tool)
);

CREATE TABLE flow_taint (
    session TEXT NOT NULL,
    label TEXT NOT NULL,
    source TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (session, label)
);

CREATE TABLE rate_limits (
    key TEXT PRIMARY KEY,
    tat BIGINT NOT NULL
);

CREATE TABLE org_policies (
    org_id TEXT PRIMARY KEY,
    document TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);
