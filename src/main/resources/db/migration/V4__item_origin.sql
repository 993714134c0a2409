-- Schema 4: items created from an agent's follow_ups (never written into the backlog file).

ALTER TABLE items ADD COLUMN origin TEXT;          -- ITEM/phase that reported it; NULL for backlog items
