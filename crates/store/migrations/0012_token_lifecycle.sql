-- Tokens and orgs with a lifecycle: a token may expire; a deleted org keeps its row (its audit
-- rows and servers name it) under a freed name, and its tokens are revoked.
ALTER TABLE api_tokens ADD COLUMN expires_at BIGINT;
ALTER TABLE orgs ADD COLUMN deleted_at BIGINT;
