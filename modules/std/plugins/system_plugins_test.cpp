// Unit tests of the std plugins that touch the environment, files and settings (spec A.8).
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "modules/std/plugins/plugin_test_support.h"

namespace inmanta::stdmodule::testing {
namespace {

namespace fs = std::filesystem;

// A fixture with a scratch project folder and a module `mod` with a files/ folder.
class SystemPlugins : public StdPluginTest {
 protected:
  SystemPlugins() {
    std::string pattern = (fs::temp_directory_path() / "inmanta_std_test_XXXXXX").string();
    root_ = mkdtemp(pattern.data());
    ctx.project = root_ + "/project";
    fs::create_directories(ctx.project + "/files");
    fs::create_directories(root_ + "/mod/files/sub");
    ctx.moduleDirs["mod"] = root_ + "/mod";
    write(root_ + "/mod/files/hello.txt", "hello\r\nworld\rend\n");
    write(root_ + "/mod/files/b.txt", "b");
    write(root_ + "/mod/files/a.txt", "a");
    write(ctx.project + "/files/top.txt", "top");
  }
  ~SystemPlugins() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  static void write(const std::string& path, const std::string& content) {
    std::ofstream out(path, std::ios::binary);
    out << content;
  }
  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::string passwordFile() const { return ctx.project + "/data/std/passwordfile.txt"; }

  std::string root_;
};

bool alphanumeric(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

// ------------------------------------------------------------------ environment variables

TEST_F(SystemPlugins, GetEnv) {
  setenv("INMANTA_STD_TEST_VAR", "value", 1);
  unsetenv("INMANTA_STD_TEST_UNSET");
  EXPECT_EQ(str("get_env", {"INMANTA_STD_TEST_VAR"}), "value");
  EXPECT_EQ(str("get_env", {"INMANTA_STD_TEST_VAR", "dflt"}), "value");
  EXPECT_EQ(str("get_env", {"INMANTA_STD_TEST_UNSET", "dflt"}), "dflt");
  EXPECT_TRUE(call("get_env", {"INMANTA_STD_TEST_UNSET"}).isUnknown());
  EXPECT_TRUE(spec("get_env").params[1].defaultIsNone);
}

TEST_F(SystemPlugins, GetEnvInt) {
  setenv("INMANTA_STD_TEST_INT", " 12 ", 1);
  setenv("INMANTA_STD_TEST_BAD", "abc", 1);
  setenv("INMANTA_STD_TEST_FLOAT", "1.5", 1);
  unsetenv("INMANTA_STD_TEST_UNSET");
  EXPECT_EQ(call("get_env_int", {"INMANTA_STD_TEST_INT"}).asInt(), 12);
  EXPECT_EQ(call("get_env_int", {"INMANTA_STD_TEST_UNSET", 7}).asInt(), 7);
  EXPECT_TRUE(call("get_env_int", {"INMANTA_STD_TEST_UNSET"}).isUnknown());
  EXPECT_EQ(failure("get_env_int", {"INMANTA_STD_TEST_BAD"}),
            "ValueError: invalid literal for int() with base 10: 'abc'");
  EXPECT_EQ(failure("get_env_int", {"INMANTA_STD_TEST_FLOAT"}),
            "ValueError: invalid literal for int() with base 10: '1.5'");
}

// ------------------------------------------------------------------ passwords

TEST_F(SystemPlugins, GeneratePasswordStoresAndReuses) {
  std::string pw = str("generate_password", {"db"});
  EXPECT_EQ(pw.size(), 20u);
  EXPECT_TRUE(alphanumeric(pw));
  EXPECT_EQ(read(passwordFile()), "db=" + pw + "\n");
  EXPECT_EQ(str("generate_password", {"db", 5}), pw);  // reused, whatever the length
  std::string other = str("generate_password", {"web", 8});
  EXPECT_EQ(other.size(), 8u);
  EXPECT_NE(other, pw.substr(0, 8));
  EXPECT_EQ(read(passwordFile()), "db=" + pw + "\nweb=" + other + "\n");
  EXPECT_EQ(str("password", {"db"}), pw);
  EXPECT_EQ(str("password", {"web"}), other);
  EXPECT_TRUE(spec("generate_password").contextAware);
}

TEST_F(SystemPlugins, PasswordsReadAnExistingFile) {
  fs::create_directories(ctx.project + "/data/std");
  write(passwordFile(), "  a1 = secret \n\nxy\nb2=x=y\n");
  EXPECT_EQ(str("password", {"a1"}), "secret");
  EXPECT_EQ(str("password", {"b2"}), "x=y");
  EXPECT_EQ(str("generate_password", {"a1"}), "secret");
  EXPECT_EQ(failure("password", {"xy"}), "Exception: Password xy does not exist in file data/std/passwordfile.txt");
}

TEST_F(SystemPlugins, PasswordFailures) {
  EXPECT_EQ(failure("generate_password", {"a=b"}), "Exception: The password id cannot contain =");
  EXPECT_EQ(failure("password", {"a=b"}), "Exception: The password id cannot contain =");
  EXPECT_EQ(failure("password", {"nope"}), "Exception: Password nope does not exist in file data/std/passwordfile.txt");
  write(passwordFile(), "no equals sign\n");
  EXPECT_EQ(failure("password", {"x"}), "ValueError: substring not found");
}

TEST_F(SystemPlugins, GeneratedPasswordsDiffer) {
  EXPECT_NE(str("generate_password", {"one"}), str("generate_password", {"two"}));
  EXPECT_EQ(str("generate_password", {"zero", 0}), "");
}

// ------------------------------------------------------------------ server settings

TEST_F(SystemPlugins, EnvironmentNeedsTheSetting) {
  const char* missing = "Exception: The environment of this model should be configured in config>environment";
  EXPECT_EQ(failure("environment", {}), missing);
  EXPECT_EQ(failure("environment_name", {}), missing);
  ctx.settings[{"config", "environment"}] = "6c66ca44-da58-4924-ad17-151abc2f3726";
  EXPECT_EQ(str("environment", {}), "6c66ca44-da58-4924-ad17-151abc2f3726");
  EXPECT_TRUE(call("environment_name", {}).isUnknown());
}

TEST_F(SystemPlugins, ServerSettingsAndTheirDefaults) {
  EXPECT_EQ(str("environment_server", {}), "localhost");
  EXPECT_EQ(call("server_port", {}).asInt(), 8888);
  EXPECT_FALSE(truth("server_ssl", {}));
  EXPECT_EQ(str("server_ca", {}), "");
  EXPECT_EQ(str("server_token", {}), "");
  ctx.settings[{"compiler_rest_transport", "host"}] = "orchestrator.example.com";
  ctx.settings[{"compiler_rest_transport", "port"}] = "9443";
  ctx.settings[{"compiler_rest_transport", "ssl"}] = "True";
  EXPECT_EQ(str("environment_server", {}), "orchestrator.example.com");
  EXPECT_EQ(call("server_port", {}).asInt(), 9443);
  EXPECT_TRUE(truth("server_ssl", {}));
  ctx.settings[{"compiler_rest_transport", "ssl"}] = "off";
  EXPECT_FALSE(truth("server_ssl", {}));
  ctx.settings[{"compiler_rest_transport", "ssl"}] = "maybe";
  EXPECT_EQ(failure("server_ssl", {}), "ValueError: Not a boolean: maybe");
  ctx.settings[{"compiler_rest_transport", "port"}] = "x";
  EXPECT_EQ(failure("server_port", {}), "ValueError: invalid literal for int() with base 10: 'x'");
  ctx.settings[{"compiler_rest_transport", "host"}] = "::1";
  EXPECT_TRUE(call("environment_server", {}).isUnknown());
}

TEST_F(SystemPlugins, ServerCa) {
  ctx.settings[{"compiler_rest_transport", "ssl_ca_cert_file"}] = root_ + "/missing.pem";
  EXPECT_EQ(failure("server_ca", {}), "Exception: " + root_ + "/missing.pem isn't a valid file");
  write(root_ + "/ca.pem", "-----BEGIN CERTIFICATE-----\n");
  ctx.settings[{"compiler_rest_transport", "ssl_ca_cert_file"}] = root_ + "/ca.pem";
  EXPECT_EQ(str("server_ca", {}), "-----BEGIN CERTIFICATE-----\n");
}

// A server that answers from the test's function and records each call.
struct FakeServer : compiler::ServerConnection {
  std::vector<std::string> calls;  // `METHOD path body`
  std::function<Reply(const std::string& method, const std::string& path)> answer;
  Reply call(const std::string& method, const std::string& path, const std::string& body) override {
    calls.push_back(method + " " + path + (body.empty() ? "" : " " + body));
    return answer ? answer(method, path) : Reply{0, "connection refused", ""};
  }
  std::string address() const override { return "http://localhost:8888"; }
};

TEST_F(SystemPlugins, ServerTokenAsksTheServer) {
  EXPECT_EQ(compiler::runtime::repr(*spec("server_token").params[0].defaultValue), "['agent']");
  EXPECT_EQ(spec("server_token").params[0].type, "string[]");
  ctx.settings[{"compiler_rest_transport", "token"}] = "abc";
  EXPECT_EQ(failure("server_token", {}),
            "Exception: The environment of this model should be configured in config>environment");
  ctx.settings[{"config", "environment"}] = "env";
  EXPECT_EQ(failure("server_token", {}), "Exception: Unable to get a valid token");  // no server
  FakeServer server;
  ctx.serverConnection = &server;
  server.answer = [](const std::string&, const std::string&) {
    return compiler::ServerConnection::Reply{200, "", R"({"token": "tok-1"})"};
  };
  EXPECT_EQ(str("server_token", {compiler::runtime::ValueList{"agent", "compiler"}}), "tok-1");
  ASSERT_EQ(server.calls.size(), 1u);
  EXPECT_EQ(server.calls[0],
            R"(POST /api/v1/environment_auth {"client_types":["agent","compiler"],"idempotent":true})");
  server.answer = [](const std::string&, const std::string&) {
    return compiler::ServerConnection::Reply{403, "", R"({"message": "no"})"};
  };
  EXPECT_EQ(failure("server_token", {}), "Exception: Unable to get a valid token");
  ASSERT_FALSE(ctx.logs.empty());
  EXPECT_EQ(ctx.logs.back(),
            std::make_pair(std::string("WARNING"), std::string("Unable to get a new token (HTTP 403)")));
}

TEST_F(SystemPlugins, GetfactWithoutServerIsUnknown) {
  FakeInstance file("std::File", {{"path", "/etc/motd"}});
  FakeInstance host("std::Host", {});
  ctx.resourcePrefixes["std::File"] = {"std::File[h1,path=", "path"};
  EXPECT_EQ(failure("getfact", {"x", "size"}), "AttributeError: 'str' object has no attribute '_type'");
  EXPECT_EQ(failure("getfact", {instance(host), "size"}), "Exception: Facts can only be retreived from resources.");
  EXPECT_EQ(failure("getfact", {instance(file), "size"}),
            "Exception: The environment of this model should be configured in config>environment");
  ctx.settings[{"config", "environment"}] = "env";
  EXPECT_TRUE(call("getfact", {instance(file), "size"}).isUnknown());
  EXPECT_EQ(call("getfact", {instance(file), "size", 5}).asInt(), 5);
  // every miss is an entry of the version's unknowns, also when the default was used
  ASSERT_EQ(ctx.unknowns.size(), 2u);
  EXPECT_EQ(ctx.unknowns[1].resource, "std::File[h1,path=/etc/motd]");
  EXPECT_EQ(ctx.unknowns[1].parameter, "size");
  EXPECT_EQ(ctx.unknowns[1].source, "fact");
  ASSERT_EQ(ctx.logs.size(), 2u);
  EXPECT_EQ(ctx.logs[0].first, "WARNING");
  EXPECT_EQ(ctx.logs[0].second,
            "Param size of resource std::File[h1,path=/etc/motd] is unknown because the server could not be reached "
            "(no server is configured for this run)");
}

// A compile with an environment and `server`, where a File's id is `std::File[AGENT,path=...]`.
void useServer(FakePluginContext& ctx, FakeServer& server, const std::string& agent) {
  ctx.settings[{"config", "environment"}] = "env";
  ctx.resourcePrefixes["std::File"] = {"std::File[" + agent + ",path=", "path"};
  ctx.serverConnection = &server;
}

TEST_F(SystemPlugins, GetfactAsksTheServer) {
  FakeInstance file("std::File", {{"path", "/etc/motd"}});
  FakeServer server;
  useServer(ctx, server, "h 1");
  server.answer = [](const std::string& method, const std::string& path) {
    using Reply = compiler::ServerConnection::Reply;
    if (method == "POST" && path == "/api/v1/parameter")
      return Reply{
          200, "",
          R"({"parameters": [{"resource_id": "std::File[h 1,path=/etc/motd]", "name": "size", "value": "42"}]})"};
    if (path == "/api/v1/parameter/owner%20name?resource_id=std%3A%3AFile%5Bh+1%2Cpath%3D%2Fetc%2Fmotd%5D")
      return Reply{200, "", R"({"parameter": {"value": "root"}})"};
    return Reply{404, "", R"({"message": "Parameter not found"})"};
  };
  EXPECT_EQ(str("getfact", {instance(file), "size"}), "42");  // from the list, loaded once
  EXPECT_EQ(str("getfact", {instance(file), "owner name"}), "root");
  EXPECT_TRUE(call("getfact", {instance(file), "mtime"}).isUnknown());
  EXPECT_EQ(str("getfact", {instance(file), "mtime", "never"}), "never");
  std::vector<std::string> expected{
      "POST /api/v1/parameter {}",
      "GET /api/v1/parameter/owner%20name?resource_id=std%3A%3AFile%5Bh+1%2Cpath%3D%2Fetc%2Fmotd%5D",
      "GET /api/v1/parameter/mtime?resource_id=std%3A%3AFile%5Bh+1%2Cpath%3D%2Fetc%2Fmotd%5D",
      "GET /api/v1/parameter/mtime?resource_id=std%3A%3AFile%5Bh+1%2Cpath%3D%2Fetc%2Fmotd%5D"};
  EXPECT_EQ(server.calls, expected);
  ASSERT_EQ(ctx.unknowns.size(), 2u);
  EXPECT_EQ(ctx.unknowns[0].parameter, "mtime");
  EXPECT_EQ(ctx.logs[0], std::make_pair(std::string("INFO"), std::string("Param mtime of resource std::File[h "
                                                                         "1,path=/etc/motd] is unknown")));
  // a resource whose id is not known yet: the fact is unknown, nothing is asked
  FakeInstance unknownPath("std::File", {{"path", compiler::runtime::Value::unknown()}});
  EXPECT_TRUE(call("getfact", {instance(unknownPath), "size"}).isUnknown());
  EXPECT_EQ(server.calls.size(), expected.size());
  // a 200 without the parameter is the reference's KeyError
  server.answer = [](const std::string&, const std::string&) {
    return compiler::ServerConnection::Reply{200, "", "{}"};
  };
  EXPECT_EQ(failure("getfact", {instance(file), "other"}), "KeyError: 'parameter'");
}

TEST_F(SystemPlugins, GetfactReloadsAnEmptyFactList) {
  FakeInstance file("std::File", {{"path", "/a"}});
  FakeServer server;
  useServer(ctx, server, "h");
  server.answer = [](const std::string& method, const std::string&) {
    using Reply = compiler::ServerConnection::Reply;
    if (method == "POST") return Reply{200, "", R"({"parameters": []})"};
    return Reply{200, "", R"({"parameter": {"value": {"n": [1, 2.5, true, null]}}})"};
  };
  EXPECT_EQ(compiler::runtime::repr(call("getfact", {instance(file), "x"})), "{'n': [1, 2.5, True, null]}");
  EXPECT_EQ(compiler::runtime::repr(call("getfact", {instance(file), "x"})), "{'n': [1, 2.5, True, null]}");
  EXPECT_EQ(server.calls.size(), 4u);  // the list is asked again while the server has no facts
  EXPECT_TRUE(ctx.unknowns.empty());
}

// ------------------------------------------------------------------ module files

TEST_F(SystemPlugins, SourceReadsModuleFilesWithUniversalNewlines) {
  EXPECT_EQ(str("source", {"mod/hello.txt"}), "hello\nworld\nend\n");
  EXPECT_EQ(str("source", {"/top.txt"}), "top");
  ctx.module = "mod";
  EXPECT_EQ(str("source", {"./a.txt"}), "a");
  EXPECT_TRUE(spec("source").contextAware);
}

TEST_F(SystemPlugins, SourceFailures) {
  EXPECT_EQ(failure("source", {"mod/missing.txt"}),
            "Exception: mod/missing.txt isn't a valid file (" + root_ + "/mod/files/missing.txt)");
  EXPECT_EQ(failure("source", {"mod/sub"}), "Exception: mod/sub isn't a valid file (" + root_ + "/mod/files/sub)");
  EXPECT_EQ(failure("source", {"nomod/x.txt"}), "Exception: Module nomod does not exist for path nomod/x.txt");
  EXPECT_EQ(failure("source", {"./x.txt"}),
            "Exception: Unable to determine current module for path ./x.txt, called from __config__");
  write(root_ + "/mod/files/bad.txt", "ok\xff");
  EXPECT_EQ(failure("source", {"mod/bad.txt"}),
            "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 2: invalid start byte");
}

TEST_F(SystemPlugins, FileReturnsTheUploadMarker) {
  EXPECT_EQ(str("file", {"mod/a.txt"}), "imp-module-source:file://" + root_ + "/mod/files/a.txt");
  EXPECT_EQ(str("file", {"mod/sub/../a.txt"}), "imp-module-source:file://" + root_ + "/mod/files/a.txt");
  EXPECT_EQ(failure("file", {"mod/missing.txt"}), "Exception: " + root_ + "/mod/files/missing.txt isn't a valid file");
  EXPECT_EQ(failure("file", {"nomod/x"}), "Exception: Module nomod does not exist for path nomod/x");
}

TEST_F(SystemPlugins, ListFilesNamesRegularFilesSorted) {
  EXPECT_EQ(compiler::runtime::repr(call("list_files", {"mod"})), "['a.txt', 'b.txt', 'hello.txt']");
  EXPECT_EQ(compiler::runtime::repr(call("list_files", {"mod/sub"})), "[]");
  EXPECT_EQ(compiler::runtime::repr(call("list_files", {"/"})), "['top.txt']");
  EXPECT_EQ(failure("list_files", {"mod/none"}),
            "FileNotFoundError: [Errno 2] No such file or directory: '" + root_ + "/mod/files/none'");
  EXPECT_EQ(failure("list_files", {"mod/a.txt"}),
            "NotADirectoryError: [Errno 20] Not a directory: '" + root_ + "/mod/files/a.txt'");
  EXPECT_EQ(failure("list_files", {"nomod"}), "Exception: Module nomod does not exist for path nomod");
}

// Rendering itself is tested in template_plugin_test.cpp.
TEST_F(SystemPlugins, TemplateSignature) {
  const PluginSpec& t = spec("template");
  EXPECT_TRUE(t.contextAware);
  EXPECT_TRUE(t.varKeywords);
  EXPECT_EQ(t.returnType, "string");
  ASSERT_EQ(t.params.size(), 1u);
  EXPECT_EQ(t.params[0].name, "path");
  EXPECT_EQ(failure("template", {"./x.j2"}),
            "Exception: Unable to determine current module for path ./x.j2, called from __config__");
}

}  // namespace
}  // namespace inmanta::stdmodule::testing
