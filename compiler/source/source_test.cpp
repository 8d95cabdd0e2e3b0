// source/source.h: line offsets and lines of a file, before and after its text is released.
#include "compiler/source/source.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace inmanta::compiler {
namespace {

namespace fs = std::filesystem;

std::string writeFile(const std::string& name, const std::string& bytes) {
  fs::path path = fs::temp_directory_path() / ("inmanta_source_test_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

TEST(SourceManager, LinesBeforeAndAfterTheTextIsReleased) {
  // Windows line ends on disk: the text and the lines are normalised
  std::string bytes = "a = 1\r\nb = \"two\"\r\n\r\nc = 3";
  std::string path = writeFile("lines.cf", bytes);
  SourceManager sources;
  FileId id = sources.add(path, "./lines.cf", normaliseNewlines(bytes));
  const SourceFile& file = sources.file(id);
  ASSERT_EQ(file.lineStarts.size(), 4u);
  EXPECT_EQ(file.lineText(2), "b = \"two\"");
  sources.releaseTexts();
  EXPECT_TRUE(file.text.empty());
  EXPECT_TRUE(file.lineStarts.empty());  // freed with the text
  EXPECT_EQ(file.lineCount(), 4u);
  EXPECT_EQ(file.lineText(1), "a = 1");  // read again
  EXPECT_EQ(file.lineStarts.size(), 4u);
  EXPECT_EQ(file.lineText(2), "b = \"two\"");
  EXPECT_EQ(file.lineText(3), "");
  EXPECT_EQ(file.lineText(4), "c = 3");
  EXPECT_EQ(file.lineText(5), "");
  fs::remove(path);
}

TEST(SourceManager, AReleasedFileThatChangedShowsNoLine) {
  std::string path = writeFile("changed.cf", "x = 1\ny = 2\n");
  SourceManager sources;
  FileId id = sources.add(path, "./changed.cf", "x = 1\ny = 2\n");
  sources.releaseTexts();
  writeFile("changed.cf", "x = 1\ny = 3\n");  // the same size, another text
  EXPECT_EQ(sources.file(id).lineText(2), "");
  SourceManager gone;
  FileId missing = gone.add(path + ".missing", "./missing.cf", "z = 1\n");
  gone.releaseTexts();
  EXPECT_EQ(gone.file(missing).lineText(1), "");
  fs::remove(path);
}

}  // namespace
}  // namespace inmanta::compiler
