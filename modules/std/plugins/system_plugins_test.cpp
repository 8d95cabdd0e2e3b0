// Unit tests of the std plugins that touch the environment, files and settings (spec A.8).
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "plugin_test_support.h"

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
  EXPECT_EQ(failure("get_env_int", {"INMANTA_STD_TEST_BAD"}), "ValueError: invalid literal for int() with base 10: 'abc'");
  EXPECT_EQ(failure("get_env_int", {"INMANTA_STD_TEST_FLOAT"}), "ValueError: invalid literal for int() with base 10: '1.5'");
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

TEST_F(SystemPlugins, ServerTokenNeedsTheServer) {
  EXPECT_EQ(compiler::runtime::repr(*spec("server_token").params[0].defaultValue), "['agent']");
  EXPECT_EQ(spec("server_token").params[0].type, "string[]");
  ctx.settings[{"compiler_rest_transport", "token"}] = "abc";
  EXPECT_EQ(failure("server_token", {}), "Exception: The environment of this model should be configured in config>environment");
  ctx.settings[{"config", "environment"}] = "env";
  EXPECT_EQ(failure("server_token", {}), "Exception: Unable to get a valid token");
}

TEST_F(SystemPlugins, Getfact) {
  FakeInstance file("std::File", {});
  FakeInstance host("std::Host", {});
  EXPECT_EQ(failure("getfact", {"x", "size"}), "AttributeError: 'str' object has no attribute '_type'");
  EXPECT_EQ(failure("getfact", {instance(host), "size"}), "Exception: Facts can only be retreived from resources.");
  EXPECT_EQ(failure("getfact", {instance(file), "size"}),
            "Exception: The environment of this model should be configured in config>environment");
  ctx.settings[{"config", "environment"}] = "env";
  EXPECT_TRUE(call("getfact", {instance(file), "size"}).isUnknown());
  EXPECT_EQ(call("getfact", {instance(file), "size", 5}).asInt(), 5);
  FakeInstance custom("__config__::MyFile", {});
  custom.isA = {"std::File", "std::Resource"};
  EXPECT_TRUE(call("getfact", {instance(custom), "size"}).isUnknown());
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
  EXPECT_EQ(failure("source", {"./x.txt"}), "Exception: Unable to determine current module for path ./x.txt, called from __config__");
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
  EXPECT_EQ(failure("list_files", {"mod/a.txt"}), "NotADirectoryError: [Errno 20] Not a directory: '" + root_ + "/mod/files/a.txt'");
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
  EXPECT_EQ(failure("template", {"./x.j2"}), "Exception: Unable to determine current module for path ./x.j2, called from __config__");
}

}  // namespace
}  // namespace inmanta::stdmodule::testing
