-- OAuth tokens per upstream server (and the client registered for it), sealed: kept across
-- restarts so nobody has to authorize again. Keyed by `config:<server>` or `api:<row id>`.
CREATE TABLE oauth_tokens (
    token_key TEXT PRIMARY KEY,
    sealed TEXT NOT NULL,
    saved_at BIGINT NOT NULL
);
