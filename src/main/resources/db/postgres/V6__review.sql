-- Version 6: the review gate (issue 32; the SQLite schema's V14__review.sql has the comments).
ALTER TABLE items ADD COLUMN review_since BIGINT;
