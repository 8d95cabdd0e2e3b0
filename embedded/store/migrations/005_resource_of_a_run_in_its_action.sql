-- A run (a deploy, a dry-run's or a fact's action) is about one resource of the action's own
-- version: that resource is now named by columns of the action instead of a row of
-- resource_action_resource (one row and its index entries less for every run the scheduler
-- records). The store writes them when an action has exactly one resource id of its own version
-- (sql_store.cpp: actionRows) and reads both forms (queryResourceActions, loadActionResources);
-- the version's resource id is resource_id || ',v=' || version. Actions stored before keep their rows.
ALTER TABLE resource_action ADD COLUMN resource_id TEXT;
ALTER TABLE resource_action ADD COLUMN resource_type TEXT;
ALTER TABLE resource_action ADD COLUMN agent TEXT;
ALTER TABLE resource_action ADD COLUMN resource_id_value TEXT;
-- Two indexes no query uses: the actions of a resource are found by scanning the environment's
-- actions in time order (resource_action_by_time) and probing each action's resources by its
-- primary key, and pruning old actions goes per environment through resource_action_by_time.
DROP INDEX resource_action_resource_by_resource;
DROP INDEX resource_action_by_start;
