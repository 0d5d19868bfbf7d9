-- The command index is not the projection's to keep: the service recognises
-- a repeated command id from the battle's own stream (docs/architecture.md),
-- and nothing read this table. Dropping it saves a write per event.
DROP TABLE commands;
