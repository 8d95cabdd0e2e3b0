// Files (spec §4.6): PUT/HEAD/GET /api/v1/file/<id>, POST /api/v1/file, POST /api/v1/filediff.
#include <memory>

#include "embedded/server/router.h"
#include "embedded/server/services/context.h"
#include "embedded/server/services/files.h"

namespace inmanta::server {

void addFileRoutes(Router& router, Services& services) {
  auto files = std::make_shared<FileService>(services.store);
  const unsigned everyone = kApi | kAgent | kCompiler;
  router.add({.method = "PUT",
              .path = "/api/v1/file/<id>",
              .args = {req("id", ArgType::string), req("content", ArgType::string)},
              .scope = Scope::any,
              .clientTypes = everyone,
              .handler = [files](Request& r) {
                files->upload(r.str("id"), r.str("content"));
                return Reply::empty();
              }});
  router.add({.method = "HEAD",
              .path = "/api/v1/file/<id>",
              .args = {req("id", ArgType::string)},
              .scope = Scope::any,
              .clientTypes = everyone,
              .handler = [files](Request& r) {
                return Reply{files->exists(r.str("id")) ? 200 : 404, std::nullopt, {}};
              }});
  router.add({.method = "GET",
              .path = "/api/v1/file/<id>",
              .args = {req("id", ArgType::string)},
              .scope = Scope::any,
              .clientTypes = everyone,
              .handler = [files](Request& r) {
                return Reply::json({{"content", files->download(r.str("id"))}});
              }});
  router.add({.method = "POST",
              .path = "/api/v1/file",
              .args = {req("files", ArgType::list, ArgType::string)},
              .scope = Scope::any,
              .clientTypes = everyone,
              .handler = [files](Request& r) {
                return Reply::json({{"files", files->missing(r.args["files"].get<std::vector<std::string>>())}});
              }});
  router.add({.method = "POST",
              .path = "/api/v1/filediff",
              .args = {req("file_id_1", ArgType::string), req("file_id_2", ArgType::string)},
              .scope = Scope::any,
              .handler = [files](Request& r) {
                return Reply::json({{"diff", files->diff(r.str("file_id_1"), r.str("file_id_2"))}});
              }});
}

}  // namespace inmanta::server
