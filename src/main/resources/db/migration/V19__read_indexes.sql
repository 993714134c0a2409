-- Schema 19: indexes for the read side at a million items (issue 33). No table changes.
--   items_by_status   status counts (the dashboard's overview, an aggregate read from the index
--                     alone) and a status-filtered page of the item list in backlog order
--   items_finished    items done or blocked since a run began: the overview's ETA
--   items_follow_ups  the follow-ups of one item (an item's page): only items with an origin
CREATE INDEX items_by_status ON items(status, seq);
CREATE INDEX items_finished ON items(status, updated_at);
CREATE INDEX items_follow_ups ON items(origin) WHERE origin IS NOT NULL;
