-- Version 11: indexes for the read side at a million items (issue 33; the SQLite schema's
-- V19__read_indexes.sql has the comments).
CREATE INDEX items_by_status ON items(status, seq);
CREATE INDEX items_finished ON items(status, updated_at);
CREATE INDEX items_follow_ups ON items(origin) WHERE origin IS NOT NULL;
