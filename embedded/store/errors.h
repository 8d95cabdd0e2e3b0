// The store's errors. Their messages are written for a client: the server passes them on as the
// error body's `message` (spec §3.4), mapping the class to a status code.
#pragma once

#include <stdexcept>
#include <string>

namespace inmanta::store {

// Base class; thrown as such for engine or I/O failures (disk full, lost connection, a database
// that cannot be opened or is held by another server). The server answers 500 / exits 4.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The named thing (project, environment, version, dry-run, setting, …) does not exist. → 404
class NotFound : public StoreError {
 public:
  using StoreError::StoreError;
};

// The operation clashes with what is stored: a duplicate name or version, a version already
// released, a project that still has environments. → 409 (or the code the spec gives)
class Conflict : public StoreError {
 public:
  using StoreError::StoreError;
};

// The request itself is wrong whatever is stored around it: a version number that is not
// positive or was never reserved, deleting the active version. → 400
class Invalid : public StoreError {
 public:
  using StoreError::StoreError;
};

}  // namespace inmanta::store
