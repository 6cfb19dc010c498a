-- What each end user granted a per-end-user server (`credentials = "per_end_user"`): one row
-- per (org, server, end user), listed and revoked by person. The secret itself is sealed in
-- oauth_tokens under the same key (so a key rotation reseals it with the rest).
CREATE TABLE end_user_grants (
    grant_key TEXT PRIMARY KEY,
    grant_id TEXT NOT NULL,
    org_id TEXT NOT NULL,
    owner TEXT NOT NULL,
    server TEXT NOT NULL,
    end_user TEXT NOT NULL,
    kind TEXT NOT NULL,
    scopes TEXT NOT NULL,
    issued_at BIGINT NOT NULL,
    last_used_at BIGINT,
    expires_at BIGINT
);
CREATE INDEX end_user_grants_by_user ON end_user_grants (org_id, end_user);
CREATE INDEX end_user_grants_by_server ON end_user_grants (owner, server, last_used_at);
