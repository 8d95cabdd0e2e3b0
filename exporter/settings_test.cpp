#include "exporter/settings.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "exporter/push.h"

namespace inmanta::exporter {
namespace {

TEST(Settings, IniFileAndNormalisedOptions) {
  std::string path = testing::TempDir() + "settings_test.ini";
  {
    std::ofstream f(path);
    f << "# comment\n[config]\nenvironment = 11111111-2222-3333-4444-555555555555\n\n"
         "[compiler_rest_transport]\nhost: example.org\nssl_ca_cert_file = /ca.pem\nport=1234\n";
  }
  Settings s;
  ASSERT_TRUE(s.readFile(path));
  EXPECT_EQ(s.get("compiler_rest_transport", "ssl-ca-cert-file"), "/ca.pem");
  s.set("compiler_rest_transport", "port", "99");
  ServerSettings server = serverSettings(s);
  EXPECT_EQ(server.host, "example.org");
  EXPECT_EQ(server.port, 99);
  EXPECT_EQ(server.environment, "11111111-2222-3333-4444-555555555555");
  EXPECT_FALSE(s.readFile(path + ".missing"));
  std::remove(path.c_str());
}

TEST(Settings, MalformedFileNamesTheLine) {
  std::string path = testing::TempDir() + "settings_bad.ini";
  {
    std::ofstream f(path);
    f << "[config]\njust words\n";
  }
  Settings s;
  try {
    s.readFile(path);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(":2:"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(Settings, BooleansAndUuids) {
  EXPECT_TRUE(parseBool("Yes"));
  EXPECT_FALSE(parseBool("off"));
  EXPECT_THROW(parseBool("maybe"), std::runtime_error);
  EXPECT_EQ(normaliseUuid("{11111111222233334444555555555555}"), "11111111-2222-3333-4444-555555555555");
  EXPECT_EQ(normaliseUuid("AAAAAAAA-2222-3333-4444-555555555555"), "aaaaaaaa-2222-3333-4444-555555555555");
  EXPECT_THROW(normaliseUuid("not-a-uuid"), std::runtime_error);
}

TEST(Push, HelpersFollowTheReference) {
  EXPECT_EQ(base64("hello\n"), "aGVsbG8K");
  EXPECT_EQ(base64("listen=8080\nworkers=4\n"), "bGlzdGVuPTgwODAKd29ya2Vycz00Cg==");
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(projectConstraints({"std >= 5.0", "my_mod"}), "inmanta-module-my-mod\ninmanta-module-std>=5.0");
  nlohmann::json meta = exportMetadata("{\"message\": \"hi\", \"type\": \"api\"}", "");
  EXPECT_EQ(meta["message"], "hi");
  EXPECT_EQ(meta["type"], "api");
  EXPECT_TRUE(meta.contains("hostname"));
  EXPECT_EQ(exportMetadata("plain text", "")["message"], "plain text");
  EXPECT_EQ(exportMetadata("", "")["message"], "Manual compile on the CLI by user");
  EXPECT_EQ(exportMetadata("", "from -m")["message"], "from -m");
}

}  // namespace
}  // namespace inmanta::exporter
