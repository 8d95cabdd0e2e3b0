-- The two tables that take one row per resource of every stored version, `resource` and
-- `resource_action_resource`, lose their foreign keys. A foreign key is checked row by row
-- (PostgreSQL runs a query per inserted row): it was two fifths of the time of storing a version
-- of 10,000 resources. The store writes these rows in the same transaction as their parent
-- (model_version, resource_action) and deletes them itself where the cascade did (sql_store.cpp:
-- removeVersion, deleteActions, deleteEnvironment, decommissionEnvironment).
-- Both engines change a table's constraints by building it again (SQLite cannot drop one).

CREATE TABLE resource_new (
  environment TEXT NOT NULL,
  version BIGINT NOT NULL,
  resource_id TEXT NOT NULL,
  resource_type TEXT NOT NULL,
  agent TEXT NOT NULL,
  id_attribute TEXT NOT NULL,
  resource_id_value TEXT NOT NULL,
  attributes TEXT NOT NULL,
  attribute_hash TEXT NOT NULL,
  is_undefined BOOLEAN NOT NULL,
  resource_set TEXT,
  PRIMARY KEY (environment, version, resource_id)
);
INSERT INTO resource_new (environment, version, resource_id, resource_type, agent, id_attribute, resource_id_value,
                          attributes, attribute_hash, is_undefined, resource_set)
  SELECT environment, version, resource_id, resource_type, agent, id_attribute, resource_id_value, attributes,
         attribute_hash, is_undefined, resource_set FROM resource;
DROP TABLE resource;
ALTER TABLE resource_new RENAME TO resource;
CREATE INDEX resource_by_id ON resource (environment, resource_id);

CREATE TABLE resource_action_resource_new (
  action_id TEXT NOT NULL,
  environment TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  resource_version_id TEXT NOT NULL,
  resource_type TEXT NOT NULL,
  agent TEXT NOT NULL,
  resource_id_value TEXT NOT NULL,
  started BIGINT NOT NULL,
  PRIMARY KEY (action_id, resource_version_id)
);
INSERT INTO resource_action_resource_new (action_id, environment, resource_id, resource_version_id, resource_type,
                                          agent, resource_id_value, started)
  SELECT action_id, environment, resource_id, resource_version_id, resource_type, agent, resource_id_value, started
  FROM resource_action_resource;
DROP TABLE resource_action_resource;
ALTER TABLE resource_action_resource_new RENAME TO resource_action_resource;
CREATE INDEX resource_action_resource_by_resource
  ON resource_action_resource (environment, resource_id, started);
