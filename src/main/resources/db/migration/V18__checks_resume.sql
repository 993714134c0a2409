-- Schema 18: the agent session a red check continues (issue 32, docs/workspaces.md). Written when
-- the item's last phase succeeds, read when its checks turn red (a restarted run, after kill -9
-- even, continues the same session), cleared once used or once the item is integrated otherwise.
--   checks_resume_phase    the phase whose attempt the session worked in; NULL: no session
--   checks_resume_profile  the agent profile that ran it
--   checks_resume_session  the agent CLI's session id
ALTER TABLE workspaces ADD COLUMN checks_resume_phase TEXT;
ALTER TABLE workspaces ADD COLUMN checks_resume_profile TEXT;
ALTER TABLE workspaces ADD COLUMN checks_resume_session TEXT;
