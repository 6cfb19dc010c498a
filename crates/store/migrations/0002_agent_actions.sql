-- Which actions each agent may use (the "Agents > Actions" toggles).
CREATE TABLE agent_actions (
    org_id TEXT NOT NULL REFERENCES orgs (id),
    agent_id TEXT NOT NULL,
    action_id TEXT NOT NULL,
    enabled BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (org_id, agent_id, action_id)
);
