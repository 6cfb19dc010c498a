-- When a downstream session was last used (saved, restored or parked): sessions unused past
-- `[limits] session_expire_secs` are deleted by this, not by their age.
ALTER TABLE mcp_sessions ADD COLUMN used_at BIGINT NOT NULL DEFAULT 0;
UPDATE mcp_sessions SET used_at = created_at;
CREATE INDEX mcp_sessions_used ON mcp_sessions (used_at);
