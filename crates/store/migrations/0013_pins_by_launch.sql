-- Pins keyed by the server's launch (a hash of its command, args, env and cwd, or its URL): an
-- operator's edit to the launch re-pins what the next discovery returns, while a definition that
-- changes under the same launch stays a rug pull; replicas running the old and the new file
-- keep a pin each. Pins from before have an empty launch and stand for any launch.
CREATE TABLE tool_pins_by_launch (
    owner TEXT NOT NULL,
    server TEXT NOT NULL,
    launch TEXT NOT NULL,
    tool TEXT NOT NULL,
    hash TEXT NOT NULL,
    definition TEXT NOT NULL,
    approved_at BIGINT NOT NULL,
    approved_by TEXT NOT NULL,
    PRIMARY KEY (owner, server, launch, tool)
);
INSERT INTO tool_pins_by_launch (owner, server, launch, tool, hash, definition, approved_at, approved_by)
    SELECT owner, server, '', tool, hash, definition, approved_at, approved_by FROM tool_pins;
DROP TABLE tool_pins;
ALTER TABLE tool_pins_by_launch RENAME TO tool_pins;
ALTER TABLE tool_pending ADD COLUMN launch TEXT NOT NULL DEFAULT '';
