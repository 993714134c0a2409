-- Schema 13: what a run's notifications came to (issue 32, docs/notifications.md). Written at the
-- run's end, after the notifier had its last few seconds to deliver: documents delivered,
-- documents that failed after their retries, documents lost (dropped from a full queue, or still
-- queued when the run ended), and the last failure's text (short, secrets masked; no URL). NULL:
-- a run without notify: sinks, one still going or one that died, or a run before schema 13.
ALTER TABLE runs ADD COLUMN notify_delivered INTEGER;
ALTER TABLE runs ADD COLUMN notify_failed INTEGER;
ALTER TABLE runs ADD COLUMN notify_lost INTEGER;
ALTER TABLE runs ADD COLUMN notify_error TEXT;
