-- The modules' Python code a version was exported with (put_version's module_version_info: per
-- module its files' names and hashes, requirements and agents), which the server's executors load
-- to run the modules' own handlers. NULL for versions stored before, and for exports without it.
ALTER TABLE model_version ADD COLUMN module_version_info TEXT;
