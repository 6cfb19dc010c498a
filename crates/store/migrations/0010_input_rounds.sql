-- Input rounds a 2026-07-28 upstream asked, handed back to their caller: the caller's answer
-- may reach any replica, which takes the round (once, only for its owner) and resumes the
-- request.
CREATE TABLE input_rounds (
    round_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    state TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
