-- Schema 15: the review gate (issue 32, docs/review.md). review_since is when the item last entered
-- awaiting_review (epoch milliseconds), set by the write that moves it there and cleared by the one
-- that moves it on; a run applies a pipeline's on_review_timeout once review_timeout has passed
-- since. NULL: the item does not await review.
ALTER TABLE items ADD COLUMN review_since INTEGER;
