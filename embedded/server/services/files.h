// Files (spec §4.6): content-addressed by the lowercase hex SHA-1 of their bytes and shared by
// every environment. The rules of upload, lookup and diff, over the store.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "embedded/store/store.h"

namespace inmanta::server {

class FileService {
 public:
  explicit FileService(store::Store& store) : store_(store) {}

  // Stores `base64Content` under `hash`. 400 when the content is not base64 or its SHA-1 is not
  // `hash`; storing a known hash again is accepted.
  void upload(const std::string& hash, const std::string& base64Content);
  bool exists(const std::string& hash);
  // The content as base64; 404 when unknown.
  std::string download(const std::string& hash);
  // The hashes of `hashes` the store does not have, in the given order.
  std::vector<std::string> missing(const std::vector<std::string>& hashes);
  // A unified diff of two files as Python's difflib.unified_diff writes it: `--- a`, `+++ b`, hunks
  // with three lines of context, every line keeping its newline. `""` or `"0"` is the empty file;
  // 404 for an unknown hash.
  std::vector<std::string> diff(const std::string& hashA, const std::string& hashB);

 private:
  std::string contentOrEmpty(const std::string& hash);

  store::Store& store_;
};

// The lines of Python's difflib.unified_diff(a, b, fromfile, tofile) with `a` and `b` split after
// each newline.
std::vector<std::string> unifiedDiff(const std::string& a, const std::string& b, const std::string& fromName,
                                     const std::string& toName);

}  // namespace inmanta::server
