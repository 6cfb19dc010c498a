-- Values of VS Code `${input:ID}` placeholders (`switchboard input set ID`), sealed.
CREATE TABLE inputs (
    input_id TEXT PRIMARY KEY,
    sealed TEXT NOT NULL,
    saved_at BIGINT NOT NULL
);
