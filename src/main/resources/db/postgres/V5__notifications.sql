-- Version 5: what a run's notifications came to (issue 32; the SQLite schema's V13__notifications.sql has the comments).
ALTER TABLE runs ADD COLUMN notify_delivered BIGINT;
ALTER TABLE runs ADD COLUMN notify_failed BIGINT;
ALTER TABLE runs ADD COLUMN notify_lost BIGINT;
ALTER TABLE runs ADD COLUMN notify_error TEXT;
