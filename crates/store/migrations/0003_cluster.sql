-- Replicas on one Postgres: scheduled jobs claimed once per cluster, and MCP sessions any
-- replica can resume (a load balancer needs no sticky sessions).
CREATE TABLE jobs (
    name TEXT PRIMARY KEY,
    last_run_at BIGINT NOT NULL,
    run_by TEXT NOT NULL
);

CREATE TABLE mcp_sessions (
    id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX mcp_sessions_created ON mcp_sessions (created_at);
