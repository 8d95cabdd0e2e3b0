// std's resource types for the exporter (export spec 1.2, 1.3, 1.6, 1.8).
#include <algorithm>
#include <fstream>
#include <sstream>

#include "modules/std/plugins/std_plugins.h"
#include "util/digest.h"

namespace inmanta::stdmodule {

namespace {

using compiler::ExportSink;
using compiler::readAttribute;
using compiler::ResourceError;
using compiler::ResourceField;
using compiler::ResourceTypeSpec;
using compiler::runtime::Instance;
using compiler::runtime::Value;

// The marker std::file leaves in `content` (its bytes are read at export time).
constexpr std::string_view kFileMarker = "imp-module-source:file://";

const Instance& asInstance(const Value& v) { return *static_cast<const Instance*>(v.asInstance()); }

// The joined text of std::Content blocks: sorted on sorting_key (or value), each followed by
// the separator. Unknown when any block is.
std::optional<std::string> contentBlocks(const Value& blocks, const std::string& sep) {
  std::vector<std::pair<std::string, std::string>> items;  // key, value
  if (!blocks.isList()) return std::string();
  for (const Value& b : blocks.asList()) {
    if (!b.isInstance()) continue;
    Value value = readAttribute(asInstance(b), "value");
    Value key = readAttribute(asInstance(b), "sorting_key");
    if (value.isUnknown() || key.isUnknown()) return std::nullopt;
    std::string v = value.isString() ? value.asString() : compiler::runtime::str(value);
    items.emplace_back(key.isString() ? key.asString() : v, v);
  }
  std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (auto& [k, v] : items) out += v + sep;
  return out;
}

// File.hash: the SHA-1 of the final content, queued for upload (1.8).
Value fileHash(const Instance& file, ExportSink& sink) {
  Value content = readAttribute(file, "content");
  if (content.isUnknown()) return Value::unknown();
  if (!content.isString()) throw ResourceError("content is not a string");
  std::string text = content.asString();
  if (isFileMarker(content) && text.rfind(kFileMarker, 0) == 0) {
    std::string path = text.substr(kFileMarker.size());
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ResourceError("Unable to read " + path);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    text = bytes.str();
  }
  // (the separator is only read when there are blocks to join, as std's store_file)
  Value prefixBlocks = readAttribute(file, "prefix_content");
  Value suffixBlocks = readAttribute(file, "suffix_content");
  auto blocks = [](const Value& b) { return b.isList() && !b.asList().empty(); };
  std::string sep;
  if (blocks(prefixBlocks) || blocks(suffixBlocks)) {
    Value sepValue = readAttribute(file, "content_seperator");
    if (sepValue.isUnknown()) return Value::unknown();
    sep = sepValue.isString() ? sepValue.asString() : std::string();
  }
  auto prefix = contentBlocks(prefixBlocks, sep);
  auto suffix = contentBlocks(suffixBlocks, sep);
  if (!prefix || !suffix) return Value::unknown();
  if (!prefix->empty()) text = *prefix + sep + text;
  if (!suffix->empty()) text = text + sep + *suffix;
  std::string hash = util::sha1Hex(text);
  sink.addFile(hash, std::move(text));
  return Value(hash);
}

// `permissions` = int(mode)
Value modeAsInt(const Instance& i, ExportSink&) {
  Value mode = readAttribute(i, "mode");
  if (mode.isUnknown() || mode.isNull()) return mode;
  if (mode.isNumber()) return Value(mode.toInt());
  auto r = compiler::runtime::cast(compiler::runtime::CastType::Int, mode);
  if (r.error) throw ResourceError(r.error->message);
  return r.value;
}

std::vector<ResourceField> withFields(std::vector<ResourceField> base, std::vector<ResourceField> own) {
  for (auto& f : own) {
    bool seen = std::any_of(base.begin(), base.end(), [&](const ResourceField& b) { return b.name == f.name; });
    if (!seen) base.push_back(std::move(f));
  }
  return base;
}

ResourceField attr(const char* name) { return {name, {}}; }

bool isFalse(const Value& v) { return v.isBool() && !v.asBool(); }

std::string pathOf(const compiler::ResourceRecord& r) {
  Value p = readAttribute(*r.instance, "path");
  return p.isString() ? p.asString() : std::string();
}

}  // namespace

std::vector<Value>& fileMarkers() {
  static std::vector<Value> markers;
  return markers;
}

bool isFileMarker(const Value& v) {
  const void* identity = v.sharedIdentity();
  return identity != nullptr && std::any_of(fileMarkers().begin(), fileMarkers().end(),
                                            [&](const Value& m) { return m.sharedIdentity() == identity; });
}

void registerStdResourceTypes(compiler::ResourceTypeRegistry& registry) {
  auto base = compiler::baseResourceFields;
  registry.add({"std::Service",
                {"host", "name"},
                "name",
                withFields(base(false, false), {attr("onboot"), attr("state"), attr("name"), attr("reload")}),
                {}});
  registry.add({"std::File",
                {"host", "name"},
                "path",
                withFields(base(false, true), {attr("path"),
                                               attr("owner"),
                                               {"hash", fileHash},
                                               attr("group"),
                                               {"permissions", modeAsInt},
                                               attr("reload")}),
                {}});
  registry.add({"std::Directory",
                {"host", "name"},
                "path",
                withFields(base(false, true),
                           {attr("path"), attr("owner"), attr("group"), {"permissions", modeAsInt}, attr("reload")}),
                {}});
  registry.add({"std::Package",
                {"host", "name"},
                "name",
                withFields(base(false, false), {attr("name"), attr("state"), attr("reload")}),
                {}});
  registry.add({"std::Symlink",
                {"host", "name"},
                "target",
                withFields(base(false, true), {attr("source"), attr("target"), attr("reload")}),
                {}});
  registry.add({"std::testing::NullResource",
                {"agentname"},
                "name",
                withFields(base(true, true), {attr("name"), attr("agentname"), attr("fail")}),
                [](const Instance& i) { return isFalse(readAttribute(i, "managed")); }});
  registry.add({"std::AgentConfig",
                {"agent"},
                "agentname",
                withFields(base(false, true), {attr("agentname"), attr("uri"), attr("autostart")}),
                [](const Instance& i) {
                  Value autostart = readAttribute(i, "autostart");
                  return !(autostart.isBool() && autostart.asBool());
                }});

  // Directory before file (1.6): a File or Directory requires every Directory on the same host
  // instance whose path is a plain string prefix of its own.
  registry.addDependencyManager([](std::vector<compiler::ResourceRecord*>& resources) {
    std::map<const compiler::runtime::InstanceBase*, std::vector<std::pair<std::string, std::string>>> dirs;
    auto hostOf = [](const compiler::ResourceRecord& r) -> const compiler::runtime::InstanceBase* {
      Value h = readAttribute(*r.instance, "host");
      return h.isInstance() ? h.asInstance() : nullptr;
    };
    for (auto* r : resources)
      if (r->type == "std::Directory") dirs[hostOf(*r)].emplace_back(pathOf(*r), r->rid);
    for (auto* r : resources) {
      if (r->type != "std::File" && r->type != "std::Directory") continue;
      auto it = dirs.find(hostOf(*r));
      if (it == dirs.end()) continue;
      std::string path = pathOf(*r);
      for (const auto& [dirPath, rid] : it->second)
        if (path != dirPath && path.rfind(dirPath, 0) == 0) r->requires_.insert(rid);
    }
  });
}

}  // namespace inmanta::stdmodule
