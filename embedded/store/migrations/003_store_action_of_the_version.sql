-- The store action of a version is about every resource of that version. Instead of a copy of the
-- version's 10,000 resource rows in resource_action_resource (half of the rows put_version wrote),
-- it is flagged resources_of_version and the store reads its resources from `resource`
-- (sql_store.cpp: queryResourceActions, loadActionResources). Actions stored before keep their rows.
ALTER TABLE resource_action ADD COLUMN resources_of_version BOOLEAN NOT NULL DEFAULT FALSE;
