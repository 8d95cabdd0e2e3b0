-- The actions of a version are indexed with the resource a run names (migration 005), so that the
-- actions of one resource are found from the versions that hold it: they were found by scanning
-- the environment's actions in time order, which for a resource with few or no actions went
-- through all of them (a project with 100 stored versions of 10,000 resources has a million:
-- 2.8 s from memory, nearly a minute from the disk). The new entries of a deploy all go to its
-- own version's end of the index.
DROP INDEX IF EXISTS resource_action_by_version;
CREATE INDEX resource_action_by_version ON resource_action (environment, version, resource_id);
