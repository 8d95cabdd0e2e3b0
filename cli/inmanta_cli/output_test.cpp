// inmanta-cli's output helpers: tables as the reference draws them, Python's str() of values,
// percent-encoding.
#include <gtest/gtest.h>

#include "cli/inmanta_cli/session.h"

namespace inmanta::cli::client {
namespace {

TEST(InmantaCliTable, BorderCentredHeaderRuleLeftAlignedCells) {
  EXPECT_EQ(formatTable({"ID", "Name"}, {{"1", "demo"}, {"22", "x"}}, 0),
            "+----+------+\n"
            "| ID | Name |\n"
            "+====+======+\n"
            "| 1  | demo |\n"
            "| 22 | x    |\n"
            "+----+------+\n");
}

TEST(InmantaCliTable, HeaderCentredWithTheExtraSpaceOnTheRight) {
  EXPECT_EQ(formatTable({"A"}, {{"abcd"}}, 0), "+------+\n|  A   |\n+======+\n| abcd |\n+------+\n");
}

TEST(InmantaCliTable, NoRowsStillDrawsTheHeader) {
  EXPECT_EQ(formatTable({"Agent"}, {}, 0), "+-------+\n| Agent |\n+=======+\n+-------+\n");
}

TEST(InmantaCliTable, MultiLineCellsAndWrappingToAWidth) {
  EXPECT_EQ(formatTable({"K", "Help"}, {{"a", "one\ntwo"}}, 0),
            "+---+------+\n| K | Help |\n+===+======+\n| a | one  |\n|   | two  |\n+---+------+\n");
  // 20 columns: the widest column narrows to 12 and wraps at a space
  std::string table = formatTable({"K", "Help"}, {{"a", "the quick brown fox"}}, 20);
  EXPECT_EQ(table,
            "+---+--------------+\n| K |     Help     |\n+===+==============+\n| a | the quick    |\n"
            "|   | brown fox    |\n+---+--------------+\n");
  for (std::size_t start = 0, nl; (nl = table.find('\n', start)) != std::string::npos; start = nl + 1)
    EXPECT_LE(nl - start, 20u);
}

TEST(InmantaCliTable, WidthCountsCharactersNotBytes) {
  EXPECT_EQ(formatTable({"N"}, {{"é"}}, 0), "+---+\n| N |\n+===+\n| é |\n+---+\n");
}

TEST(InmantaCliValues, PythonStr) {
  EXPECT_EQ(pythonStr(json(true)), "True");
  EXPECT_EQ(pythonStr(json(false)), "False");
  EXPECT_EQ(pythonStr(json()), "None");
  EXPECT_EQ(pythonStr(json(600)), "600");
  EXPECT_EQ(pythonStr(json(0.1)), "0.1");
  EXPECT_EQ(pythonStr(json("text")), "text");
  EXPECT_EQ(pythonStr(json::parse(R"({"internal": "local:", "n": [1, null, true, "it's"]})")),
            R"({'internal': 'local:', 'n': [1, None, True, "it's"]})");
}

TEST(InmantaCliValues, FieldOfAnObject) {
  json object = {{"id", "x"}, {"none", nullptr}, {"flag", false}};
  EXPECT_EQ(field(object, "id"), "x");
  EXPECT_EQ(field(object, "none"), "");
  EXPECT_EQ(field(object, "missing"), "");
  EXPECT_EQ(field(object, "flag"), "False");
  EXPECT_EQ(field(json::array(), "id"), "");
}

TEST(InmantaCliValues, UrlEncodeEncodesEveryReservedCharacter) {
  EXPECT_EQ(urlEncode("std::File[localhost,path=/tmp/a b],v=3"),
            "std%3A%3AFile%5Blocalhost%2Cpath%3D%2Ftmp%2Fa%20b%5D%2Cv%3D3");
  EXPECT_EQ(urlEncode("a-b_c.d~"), "a-b_c.d~");
}

}  // namespace
}  // namespace inmanta::cli::client
