-- The first schema (spec §10). Written in the SQL both engines accept: TEXT ids (UUIDs),
-- BIGINT timestamps (microseconds since the epoch, UTC), JSON as TEXT, BOOLEAN.
-- Differences from the spec's proposal: settings, dry-run results and the resources of an action
-- are child tables instead of JSON columns (one row changes without rewriting the others), and
-- parameters (facts) have a table of their own.

CREATE TABLE project (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);

CREATE TABLE environment (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES project (id),
  name TEXT NOT NULL,
  repo_url TEXT NOT NULL DEFAULT '',
  repo_branch TEXT NOT NULL DEFAULT '',
  description TEXT NOT NULL DEFAULT '',
  icon TEXT NOT NULL DEFAULT '',
  halted BOOLEAN NOT NULL DEFAULT FALSE,
  is_marked_for_deletion BOOLEAN NOT NULL DEFAULT FALSE,
  last_version BIGINT NOT NULL DEFAULT 0,
  UNIQUE (project_id, name)
);

CREATE TABLE setting (
  environment TEXT NOT NULL REFERENCES environment (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  protected BOOLEAN NOT NULL DEFAULT FALSE,
  protected_by TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (environment, name)
);

CREATE TABLE file (
  content_hash TEXT PRIMARY KEY,
  content BYTEA NOT NULL
);

CREATE TABLE model_version (
  environment TEXT NOT NULL REFERENCES environment (id) ON DELETE CASCADE,
  version BIGINT NOT NULL,
  date BIGINT NOT NULL,
  released BOOLEAN NOT NULL DEFAULT FALSE,
  version_info TEXT NOT NULL,
  total BIGINT NOT NULL,
  undeployable TEXT NOT NULL,
  skipped_for_undeployable TEXT NOT NULL,
  partial_base BIGINT,
  is_suitable_for_partial_compiles BOOLEAN NOT NULL,
  pip_config TEXT NOT NULL,
  project_constraints TEXT NOT NULL,
  PRIMARY KEY (environment, version)
);

CREATE TABLE resource (
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
  PRIMARY KEY (environment, version, resource_id),
  FOREIGN KEY (environment, version) REFERENCES model_version (environment, version) ON DELETE CASCADE
);
CREATE INDEX resource_by_id ON resource (environment, resource_id);

CREATE TABLE unknown_parameter (
  environment TEXT NOT NULL,
  version BIGINT NOT NULL,
  resource_id TEXT NOT NULL,
  name TEXT NOT NULL,
  source TEXT NOT NULL,
  metadata TEXT NOT NULL,
  PRIMARY KEY (environment, version, resource_id, name),
  FOREIGN KEY (environment, version) REFERENCES model_version (environment, version) ON DELETE CASCADE
);

CREATE TABLE resource_state (
  environment TEXT NOT NULL REFERENCES environment (id) ON DELETE CASCADE,
  resource_id TEXT NOT NULL,
  resource_type TEXT NOT NULL,
  agent TEXT NOT NULL,
  resource_id_value TEXT NOT NULL,
  created BIGINT NOT NULL,
  current_intent_attribute_hash TEXT NOT NULL,
  last_deployed_attribute_hash TEXT,
  last_deployed_version BIGINT,
  last_handler_run_at BIGINT,
  last_success BIGINT,
  last_produced_events BIGINT,
  is_undefined BOOLEAN NOT NULL,
  orphaned_after BIGINT,
  is_deploying BOOLEAN NOT NULL,
  last_handler_run TEXT NOT NULL,
  last_handler_run_compliant BOOLEAN,
  blocked TEXT NOT NULL,
  last_non_deploying_status TEXT NOT NULL,
  PRIMARY KEY (environment, resource_id)
);

CREATE TABLE resource_action (
  action_id TEXT PRIMARY KEY,
  environment TEXT NOT NULL REFERENCES environment (id) ON DELETE CASCADE,
  version BIGINT NOT NULL,
  action TEXT NOT NULL,
  started BIGINT NOT NULL,
  finished BIGINT,
  status TEXT,
  change TEXT,
  changes TEXT NOT NULL,
  messages TEXT NOT NULL,
  send_event BOOLEAN
);
CREATE INDEX resource_action_by_time ON resource_action (environment, started, action_id);
CREATE INDEX resource_action_by_version ON resource_action (environment, version);
CREATE INDEX resource_action_by_start ON resource_action (started);

CREATE TABLE resource_action_resource (
  action_id TEXT NOT NULL REFERENCES resource_action (action_id) ON DELETE CASCADE,
  environment TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  resource_version_id TEXT NOT NULL,
  resource_type TEXT NOT NULL,
  agent TEXT NOT NULL,
  resource_id_value TEXT NOT NULL,
  started BIGINT NOT NULL,
  PRIMARY KEY (action_id, resource_version_id)
);
CREATE INDEX resource_action_resource_by_resource
  ON resource_action_resource (environment, resource_id, started);

CREATE TABLE agent (
  environment TEXT NOT NULL REFERENCES environment (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  paused BOOLEAN NOT NULL DEFAULT FALSE,
  unpause_on_resume BOOLEAN,
  PRIMARY KEY (environment, name)
);

CREATE TABLE parameter (
  environment TEXT NOT NULL REFERENCES environment (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  value TEXT NOT NULL,
  source TEXT NOT NULL,
  metadata TEXT NOT NULL,
  updated BIGINT NOT NULL,
  PRIMARY KEY (environment, name, resource_id)
);

CREATE TABLE dryrun (
  id TEXT PRIMARY KEY,
  environment TEXT NOT NULL,
  version BIGINT NOT NULL,
  date BIGINT NOT NULL,
  total BIGINT NOT NULL,
  todo BIGINT NOT NULL,
  FOREIGN KEY (environment, version) REFERENCES model_version (environment, version) ON DELETE CASCADE
);
CREATE INDEX dryrun_by_version ON dryrun (environment, version);

CREATE TABLE dryrun_resource (
  dryrun_id TEXT NOT NULL REFERENCES dryrun (id) ON DELETE CASCADE,
  resource_version_id TEXT NOT NULL,
  entry TEXT NOT NULL,
  PRIMARY KEY (dryrun_id, resource_version_id)
);

CREATE TABLE scheduler (
  environment TEXT PRIMARY KEY REFERENCES environment (id) ON DELETE CASCADE,
  last_processed_model_version BIGINT
);
