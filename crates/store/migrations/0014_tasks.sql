-- Tasks an upstream runs for a caller (the tasks extension, SEP-2663), under the gateway's own
-- random id: which server, the server's id, and for a stdio server the replica whose process
-- runs it (the record, JSON). Bound to the identity that created it (owner), readable from any
-- replica until it expires with its upstream TTL; `ended` is the terminal status first seen,
-- recorded once so its audit row is written once.
CREATE TABLE tasks (
    task_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    record TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    ended TEXT
);
CREATE INDEX tasks_expiry ON tasks (expires_at);
