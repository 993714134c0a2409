-- Version 22: the jobs of one agent profile, newest first (orchestrate agents: each profile's recent
-- outcomes), read through an index so that a profile that seldom runs costs as few rows as one
-- that runs all the time. No table changes.
CREATE INDEX jobs_by_agent ON jobs(agent, id);
