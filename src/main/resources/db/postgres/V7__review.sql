-- Version 7: the review gate (issue 32; the SQLite schema's V15__review.sql has the comments).
ALTER TABLE items ADD COLUMN review_since BIGINT;
