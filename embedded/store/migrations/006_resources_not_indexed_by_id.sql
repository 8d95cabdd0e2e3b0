-- The index of every version's resources by resource id goes. Each stored version added one entry
-- per resource to it, scattered over the whole index (the versions of one resource sit together),
-- so that storing a version of 10,000 resources changed thousands of its pages: in a project with
-- 60 stored versions, PUT /api/v1/version took 0.5-0.8 s against 0.18 s without it, and more with
-- every version. Its one reader was the removal of a version, which drops the state rows of the
-- resources no other version has; that now starts from the removed version's own resources and
-- looks each up in the other versions by the primary key (sql_store.cpp: removeVersion).
DROP INDEX IF EXISTS resource_by_id;
