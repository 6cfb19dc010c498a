-- Portable across SQLite and Postgres: TEXT and BIGINT only; times are Unix milliseconds.
CREATE TABLE orgs (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    features TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE api_tokens (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs (id),
    token_hash TEXT NOT NULL UNIQUE,
    roles TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);

CREATE TABLE servers (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES orgs (id),
    slug TEXT NOT NULL,
    name TEXT NOT NULL,
    url TEXT NOT NULL,
    auth_method TEXT NOT NULL,
    credentials TEXT,
    status TEXT NOT NULL,
    last_error TEXT,
    discovered_tools TEXT NOT NULL,
    last_discovered_at BIGINT,
    created_at BIGINT NOT NULL,
    deleted_at BIGINT
);

CREATE UNIQUE INDEX servers_live_slug ON servers (org_id, slug) WHERE deleted_at IS NULL;

CREATE TABLE audit (
    seq BIGINT PRIMARY KEY,
    at BIGINT NOT NULL,
    org_id TEXT,
    agent_id TEXT,
    end_user_id TEXT,
    token_id TEXT,
    action_id TEXT NOT NULL,
    server TEXT,
    verdict TEXT NOT NULL,
    outcome TEXT NOT NULL,
    duration_us BIGINT NOT NULL,
    request_bytes BIGINT NOT NULL,
    response_bytes BIGINT NOT NULL,
    detail TEXT,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);

CREATE INDEX audit_org_at ON audit (org_id, at);
