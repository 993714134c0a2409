-- Schema 12: the commit that landed (issue 30). Integration by rebase copies an item's phase
-- commits onto the base branch under new ids, so jobs.commit_sha names a commit no branch holds
-- once the item's branch is deleted. landed_sha is the commit of the base branch that carries
-- the job's phase commit (found by the commit's Orchestrate-Job trailer), recorded at
-- integration: the rebased copy, or the phase commit itself after a merge or a fast-forward.
-- NULL: not integrated (yet), no phase commit, or a job integrated before schema 12.
ALTER TABLE jobs ADD COLUMN landed_sha TEXT;
