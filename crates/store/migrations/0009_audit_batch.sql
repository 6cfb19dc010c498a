-- The audit writer's id for the batch a row was committed in, on the batch's first row: a
-- commit whose answer was lost (the connection cut after COMMIT) is found on retry and not
-- written twice. Not part of the row's MAC.
ALTER TABLE audit ADD COLUMN batch TEXT;
CREATE INDEX audit_batch ON audit (batch) WHERE batch IS NOT NULL;
