-- The event index is not the projection's to keep: the log is read
-- directly wherever events are shown (ledger log, the API's events, the
-- audit), and writing every event here again was half the cost of a
-- rebuild (docs/performance.md).
DROP TABLE events;
