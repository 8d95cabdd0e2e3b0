// The resource model with a resource type registered by the test (the plugin API a module uses),
// on a real compile of a small project with the bundled std (cross-component: exporter + std).
#include "exporter/resources.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "compiler/driver.h"
#include "exporter/json.h"
#include "modules/std/plugins/std_plugins.h"

namespace inmanta::exporter {
namespace {

namespace fs = std::filesystem;
using compiler::runtime::Value;

struct Exported {
  std::string json;
  std::string error;
  std::vector<std::string> emptiedSets;
};

const compiler::PluginRegistry& stdPlugins() {
  static const compiler::PluginRegistry plugins = [] {
    compiler::PluginRegistry r;
    stdmodule::registerStdPlugins(r);
    return r;
  }();
  return plugins;
}

Exported exportModel(const std::string& main, const compiler::ResourceTypeRegistry& types) {
  fs::path dir = fs::path(testing::TempDir()) / ("resources_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "project.yml") << "name: t\n";
  std::ofstream(dir / "main.cf") << main;
  compiler::CompileOptions options;
  options.projectDir = dir.string();
  options.plugins = &stdPlugins();
  Exported result;
  options.afterCompile = [&](const compiler::CompiledModel& model) -> std::optional<std::string> {
    try {
      ResourceSet set = buildResources(model.instances, types);
      result.json = resourcesJson(set.resources);
      result.emptiedSets = set.emptiedSets;
    } catch (const ExportError& e) {
      result.error = e.what();
    }
    return std::nullopt;
  };
  std::ostringstream out, err;
  compiler::CompileStatus status = compiler::runCompile(options, out, err);
  EXPECT_EQ(status, compiler::CompileStatus::Success) << err.str();
  fs::remove_all(dir);
  return result;
}

// A failure of ours during a compile with --json (an exception that is no compile error) still
// gives the one document on the JSON stream, with the failure as its error, not a bare text line.
TEST(CompileJson, AnInternalErrorIsTheDocumentsError) {
  fs::path dir = fs::path(testing::TempDir()) / ("internal_error_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "project.yml") << "name: t\n";
  std::ofstream(dir / "main.cf") << "x = 1\n";
  compiler::CompileOptions options;
  options.projectDir = dir.string();
  options.plugins = &stdPlugins();
  std::ostringstream document, out, err;
  options.diagnosticsJson = &document;
  options.afterCompile = [](const compiler::CompiledModel&) -> std::optional<std::string> {
    throw std::runtime_error("the exporter broke");
  };
  EXPECT_EQ(compiler::runCompile(options, out, err), compiler::CompileStatus::Failed);
  EXPECT_EQ(err.str(), "");
  nlohmann::json doc = nlohmann::json::parse(document.str());
  EXPECT_EQ(doc["success"], false);
  ASSERT_EQ(doc["diagnostics"].size(), 1U) << doc.dump();
  EXPECT_EQ(doc["diagnostics"][0]["kind"], "InternalError");
  EXPECT_EQ(doc["diagnostics"][0]["message"], "the exporter broke");
  // without --json the exception goes on to the command, which prints it and exits 1
  options.diagnosticsJson = nullptr;
  EXPECT_THROW(compiler::runCompile(options, out, err), std::runtime_error);
  fs::remove_all(dir);
}

const char* kModel = R"(
entity Thing extends std::Resource:
    string name
    string agent = "ag"
    dict d = {}
    list l = []
    float f = 2.0
    int i = -7
    string? maybe = null
end
implement Thing using std::none
)";

compiler::ResourceTypeRegistry thingType() {
  compiler::ResourceTypeRegistry types;
  auto fields = compiler::baseResourceFields(false, false);
  for (const char* f : {"name", "d", "l", "f", "i", "maybe"}) fields.push_back({f, {}});
  fields.push_back({"upper", [](const compiler::runtime::Instance& i, compiler::ExportSink&) {
                      Value v = compiler::readAttribute(i, "name");
                      std::string s = v.isString() ? v.asString() : "";
                      for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
                      return Value(s);
                    }});
  types.add({"__config__::Thing", {"agent"}, "name", fields, {}});
  return types;
}

TEST(Resources, CustomTypeValuesAndOrder) {
  auto types = thingType();
  Exported e = exportModel(std::string(kModel) + R"(
Thing(name="x", d={"a": 1, "b": [1, 2.0, null], "c": {"x": "y"}}, l=["</tag>", true, null, 1.0, 2.5])
Thing(name="w", agent="other", requires=[Thing[name="x"]])
)" + "index Thing(name)\n",
                           types);
  EXPECT_EQ(e.error, "");
  EXPECT_EQ(e.json,
            R"([{"send_event": false, "receive_events": true, "references": [], "mutators": [], "report_only": false, )"
            R"("name": "x", "d": {"a": 1, "b": [1, 2.0, null], "c": {"x": "y"}}, )"
            R"("l": ["<\/tag>", true, null, 1.0, 2.5], "f": 2.0, "i": -7, "maybe": null, "upper": "X", )"
            R"("requires": [], "id": "__config__::Thing[ag,name=x],v=0"}, )"
            R"({"send_event": false, "receive_events": true, "references": [], "mutators": [], "report_only": false, )"
            R"("name": "w", "d": {}, "l": [], "f": 2.0, "i": -7, "maybe": null, "upper": "W", )"
            R"("requires": ["__config__::Thing[ag,name=x]"], "id": "__config__::Thing[other,name=w],v=0"}])");
}

TEST(Resources, AgentPathErrors) {
  auto types = thingType();
  Exported e = exportModel(std::string(kModel) + "Thing(name=\"x\", agent=\"a,b\")\n", types);
  EXPECT_EQ(e.error, "Invalid agent name 'a,b': cannot contain ','.");
  compiler::ResourceTypeRegistry broken;
  broken.add({"__config__::Thing", {"nope", "name"}, "name", compiler::baseResourceFields(false, false), {}});
  e = exportModel(std::string(kModel) + "Thing(name=\"x\")\n", broken);
  EXPECT_NE(e.error.find("Unable to get the name of agent __config__::Thing"), std::string::npos) << e.error;
  EXPECT_NE(e.error.find("In path nope.name, 'nope' does not exist"), std::string::npos) << e.error;
  compiler::ResourceTypeRegistry intAgent;
  intAgent.add({"__config__::Thing", {"i"}, "name", compiler::baseResourceFields(false, false), {}});
  e = exportModel(std::string(kModel) + "Thing(name=\"x\")\n", intAgent);
  EXPECT_EQ(e.error, "The agent attribute should lead to a string, got -7 of type <class 'int'>");
}

TEST(Resources, FailingGetterNamesFieldAndType) {
  compiler::ResourceTypeRegistry types;
  auto fields = compiler::baseResourceFields(false, false);
  fields.push_back({"name", {}});
  fields.push_back({"bad", [](const compiler::runtime::Instance&, compiler::ExportSink&) -> Value {
                      throw compiler::ResourceError("boom");
                    }});
  types.add({"__config__::Thing", {"agent"}, "name", fields, {}});
  Exported e = exportModel(std::string(kModel) + "Thing(name=\"x\")\n", types);
  EXPECT_EQ(e.error, "Failed to get attribute 'bad' for export on '__config__::Thing' (boom)");
}

}  // namespace
}  // namespace inmanta::exporter
