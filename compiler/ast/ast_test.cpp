// The syntax tree's compact parts: a node's packed location (packLocation).
#include "compiler/ast/ast.h"

#include <gtest/gtest.h>

namespace inmanta::compiler::ast {
namespace {

SourceLocation roundTrip(SourceLocation at) {
  Node node(Kind::Literal, at);
  return node.loc();
}

TEST(Node, KeepsEveryFileLineAndColumnTheLoaderAccepts) {
  static_assert(sizeof(Node) == 8);
  for (SourceLocation at :
       {SourceLocation{0, 1, 1}, SourceLocation{7, 2300000, 45}, SourceLocation{kMaxFiles - 1, kMaxLines, kMaxColumn},
        SourceLocation{3, 12, 0}, SourceLocation{0, 0, 0}}) {
    SourceLocation back = roundTrip(at);
    EXPECT_EQ(back.file, at.file);
    EXPECT_EQ(back.line, at.line);
    EXPECT_EQ(back.col, at.col);
  }
  Node kinded(Kind::Index, SourceLocation{kMaxFiles - 1, kMaxLines, kMaxColumn});
  EXPECT_EQ(kinded.kind, Kind::Index);
}

TEST(Node, NoFileStaysNoFileAndALongLinesColumnBecomesTheLineOnly) {
  SourceLocation none = roundTrip({});
  EXPECT_EQ(none.file, kNoFile);
  EXPECT_FALSE(none.valid());
  SourceLocation far = roundTrip(SourceLocation{2, 40, kMaxColumn + 1});
  EXPECT_EQ(far.file, 2u);
  EXPECT_EQ(far.line, 40u);
  EXPECT_EQ(far.col, 0u);  // "only the line is known"
  EXPECT_TRUE(far.valid());
}

}  // namespace
}  // namespace inmanta::compiler::ast
