// From compiled instances to the resource set (export spec 1): ids, fields, requires, resource
// sets, dependency managers, the cycle check. Deterministic (decision X1): resources sorted by
// id, requires sorted.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "compiler/plugin.h"
#include "compiler/resource_types.h"
#include "compiler/runtime/instance.h"

namespace inmanta::exporter {

// An export-phase failure (1.10): the run ends with EXPORT FAILURE and this message.
struct ExportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Resource {
  std::string type;
  std::string rid;  // without version
  std::string agent;
  const compiler::runtime::Instance* instance = nullptr;
  std::vector<std::pair<std::string, compiler::runtime::Value>> fields;  // in export order
  std::vector<std::string> requires_;                                    // sorted rids
  bool undefined = false;  // some field was unknown (exported as "<<undefined>>")
};

struct ResourceSet {
  std::vector<Resource> resources;           // sorted by rid
  std::map<std::string, std::string> setOf;  // rid -> resource set name
  std::vector<std::string> emptiedSets;      // sets none of whose members is exported
  std::map<std::string, std::string> files;  // sha1 -> bytes to upload
  std::vector<std::string> warnings;
  std::vector<std::string> infos;
  std::vector<compiler::UnknownParameter> unknowns;  // facts the server could not give (1.7)
  std::vector<std::string> registeredTypes;          // every registered resource type (3.4)
};

// Where files a getter or an export hook uploads go: a ResourceSet's `files`, by SHA-1.
class FileSink : public compiler::ExportSink {
 public:
  explicit FileSink(std::map<std::string, std::string>& files) : files_(files) {}
  void addFile(const std::string& hash, std::string bytes) override { files_.try_emplace(hash, std::move(bytes)); }

 private:
  std::map<std::string, std::string>& files_;
};

// Builds the resource set. Throws ExportError.
ResourceSet buildResources(const std::vector<compiler::runtime::Instance*>& instances,
                           const compiler::ResourceTypeRegistry& types);

}  // namespace inmanta::exporter
