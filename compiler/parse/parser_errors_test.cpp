// Error positions of syntax errors, checked against the reference's parser: line and column
// are what the reference reports (spec 2.1, 6.2); the message fragment is ours. Inputs the
// reference crashes on (malformed escapes, huge integers: spec 9.2, 9.3) carry our position.
#include <gtest/gtest.h>

#include "compiler/parse/parse_test_util.h"

namespace inmanta::compiler {
namespace {

struct ErrorCase {
  const char* name;
  const char* source;
  const char* kind;
  uint32_t line;
  uint32_t col;
  const char* fragment;
};

const ErrorCase kCases[] = {
    {"illegal_char", "x = 1\ny = 2 & 3\n", "ParserException", 2, 7, "Syntax error: Illegal character '&'"},
    {"illegal_semicolon", "a = 1; b = 2\n", "ParserException", 1, 6, "Syntax error: Illegal character ';'"},
    {"unterminated_string", "x = \"abc\ny = 1\n", "ParserException", 1, 5, "Syntax error: Illegal character '\"'"},
    {"eof_in_if", "if true:\n  x = 1\n", "ParserException", 4, 2, "Syntax error: Unexpected end of file"},
    {"eof_after_operator", "x = 1 +\n", "ParserException", 3, 2, "Syntax error: Unexpected end of file"},
    {"keyword_as_var", "end = 1\n", "ParserException", 1, 1,
     "Syntax error: invalid identifier, end is a reserved keyword"},
    {"keyword_in_expr", "x = a + end\n", "ParserException", 1, 9,
     "Syntax error: invalid identifier, end is a reserved keyword"},
    {"keyword_attr", "entity A:\n  string index\nend\n", "ParserException", 2, 10,
     "Syntax error: invalid identifier, index is a reserved keywor"},
    {"lower_entity", "entity foo:\nend\n", "ParserException", 1, 8,
     "Syntax error: Invalid identifier: Entity names must start wi"},
    {"upper_attr", "entity A:\n  string Name\nend\n", "ParserException", 2, 10,
     "Syntax error: Invalid identifier: attribute names must start"},
    {"dict_null", "entity A:\n  dict d = null\nend\n", "ParserException", 2, 8,
     "Syntax error: null can not be assigned to dict, did you mean"},
    {"lower_parent", "entity A extends b:\nend\n", "ParserException", 1, 18,
     "Syntax error: Invalid identifier: Entity names must start wi"},
    {"dotted_parent", "entity A extends std.Entity:\nend\n", "InvalidNamespaceAccess", 1, 18,
     "Syntax error: invalid namespace access `std.Entity`. Namespa"},
    {"dotted_call", "x = std.print(1)\n", "InvalidNamespaceAccess", 1, 5,
     "Syntax error: invalid namespace access `std.print`. Namespac"},
    {"method_call", "x = \"a\"\ny = x.upper()\n", "InvalidNamespaceAccess", 2, 5,
     "Syntax error: invalid namespace access `x.upper`. Namespaces"},
    // `a.B` is reduced as soon as it is read, whatever follows (checked on the reference's parser)
    {"dotted_class_eof", "x = a.b.C\n", "InvalidNamespaceAccess", 1, 5,
     "Syntax error: invalid namespace access `a.b.C`. Namespac"},
    {"dotted_class_list", "x = [a.B, 1]\n", "InvalidNamespaceAccess", 1, 6,
     "Syntax error: invalid namespace access `a.B`. Namespaces "},
    {"dotted_class_operand", "x = 1 + a.B\n", "InvalidNamespaceAccess", 1, 9,
     "Syntax error: invalid namespace access `a.B`. Namespaces "},
    // the reference's lexer counts no line for newlines between `matching` and a regex's `/`
    {"regex_next_line", "typedef t as string matching\n  /a/\nx = 1 )\n", "ParserException", 2, 8,
     "Syntax error at token )"},
    {"regex_next_line_error", "typedef t as string matching\n  /a(/\n", "ParserException", 2, 32,
     "Syntax error: Regex error in /a(/: 'mi"},
    {"dotted_class_after_error", "x = 1 +\ny = a.B\n", "ParserException", 2, 4, "Syntax error at token ="},
    {"rel_token", "x = 2--1\n", "ParserException", 1, 8, "Syntax error at token --"},
    {"lt_minus", "x = 1\ny = x<-1\n", "ParserException", 2, 8, "Syntax error at token <-"},
    {"unary_minus", "x = 1\ny = -x\n", "ParserException", 2, 6, "Syntax error at token -"},
    {"missing_rparen", "x = (1 + 2\ny = 3\n", "ParserException", 2, 2, "Syntax error at token y"},
    {"extra_rparen", "x = 1)\n", "ParserException", 1, 7, "Syntax error at token )"},
    {"trailing_comma_index", "entity A:\n string n\nend\nindex A(n,)\n", "ParserException", 4, 12,
     "Syntax error at token )"},
    {"empty_list_comma", "x = [,]\n", "ParserException", 1, 7, "Syntax error at token ,"},
    {"double_comma", "x = [1,,2]\n", "ParserException", 1, 9, "Syntax error at token ,"},
    {"call_comma", "std::print(,)\n", "ParserException", 1, 13, "Syntax error at token ,"},
    {"slice", "l = [1, 2]\nx = l[1:2]\n", "ParserException", 2, 9, "Syntax error at token :"},
    {"positional_index", "entity A:\n string n\nend\nx = A[\"a\"]\n", "ParserException", 4, 10,
     "Syntax error at token \"a\""},
    {"rel_no_annotation", "entity A:\nend\nentity B:\nend\nA.b [1] B.a [1]\n", "ParserException", 5, 11,
     "Syntax error at token ."},
    {"typedef_cid", "typedef Foo as string matching self != \"\"\n", "ParserException", 1, 23,
     "Syntax error: invalid identifier, matching is a reserved key"},
    {"typedef_ctor", "entity A:\nend\ntypedef Foo as A(x=1)\n", "ParserException", 3, 9,
     "Syntax error: The use of default constructors is no longer s"},
    {"bad_regex", "typedef t as string matching /a(/\n", "ParserException", 1, 30,
     "Syntax error: Regex error in /a(/: 'missing ), unterminated s"},
    {"fstring_single_brace", "x = f\"hello {\"\n", "ParserException", 1, 5,
     "Syntax error: Invalid f-string: Single '{' encountered in fo"},
    {"dict_key_interp", "x = {\"{{a}}\": 1}\n", "ParserException", 1, 6,
     "Syntax error: String interpolation is not supported in dicti"},
    {"plus_eq_var", "x = [1]\nx += [2]\n", "ParserException", 2, 1, "Syntax error: Can not perform += on variable x"},
    {"import_in_block", "if true:\n  import std\nend\n", "ParserException", 2, 3,
     "Syntax error: invalid identifier, import is a reserved keywo"},
    {"entity_in_impl", "entity A:\nend\nimplementation i for A:\n  entity B:\n  end\nend\n", "ParserException", 4, 3,
     "Syntax error: invalid identifier, entity is a reserved keywo"},
    {"else_without_if", "else:\nend\n", "ParserException", 1, 1,
     "Syntax error: invalid identifier, else is a reserved keyword"},
    {"matching_empty", "typedef t as string matching //\n", "ParserException", 1, 21,
     "Syntax error: invalid identifier, matching is a reserved key"},
    {"not_after_expr", "x = 1\nnot true\n", "ParserException", 2, 5,
     "Syntax error: invalid identifier, true is a reserved keyword"},
    {"lookup_then_list", "x = y\n[1, 2]\n", "ParserException", 2, 4, "Syntax error at token ,"},
    {"mls_then_illegal", "x = \"\"\"a\nb\"\"\" ;\n", "ParserException", 2, 15, "Syntax error: Illegal character ';'"},
    {"is_defined_ns", "x = a::b is defined\n", "ParserException", 1, 10,
     "Syntax error: invalid identifier, is is a reserved keyword"},
    {"paren_is_defined", "x = (a) is defined\n", "ParserException", 1, 9,
     "Syntax error: invalid identifier, is is a reserved keyword"},
    {"dict_attr_undef", "entity A:\n  dict d = undef\nend\n", "ParserException", 2, 12,
     "Syntax error: invalid identifier, undef is a reserved keywor"},
    {"constructor_positional", "entity A:\nend\nx = A(1)\n", "ParserException", 3, 8, "Syntax error at token 1"},
    {"ns_sep_cid", "implement A using std::\nB\n", "ParserException", 2, 2, "Syntax error at token B"},
    {"for_missing_colon", "for x in [1]\n  std::print(x)\nend\n", "ParserException", 2, 6, "Syntax error at token std"},
    {"string_newline_single", "x = 'abc\n'\n", "ParserException", 1, 5, "Syntax error: Illegal character '''"},
    {"tab_form_feed", "x = 1\n\fy = 2\n", "ParserException", 2, 1, "Syntax error: Illegal character '\f'"},
    {"comment_only_then_error", "# comment\n\n   )\n", "ParserException", 3, 5, "Syntax error at token )"},
    {"bad_escape", "x = \"\\x4\"\n", "ParserException", 1, 5, "Syntax error: invalid escape sequence '\\x4'"},
    {"int_overflow", "x = 99999999999999999999\n", "ParserException", 1, 5,
     "Syntax error: integer literal out of range: 9999999999999999"},
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

class ParserErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ParserErrorTest, ReportsKindAndPosition) {
  const ErrorCase& c = GetParam();
  ParseOutcome outcome = parseSource(c.source);
  ASSERT_FALSE(outcome.ok) << c.name << " parsed without error";
  EXPECT_STREQ(kindName(outcome.error.kind), c.kind) << c.name << ": " << outcome.error.message;
  EXPECT_EQ(outcome.error.location.line, c.line) << c.name << ": " << outcome.error.message;
  EXPECT_EQ(outcome.error.location.col, c.col) << c.name << ": " << outcome.error.message;
  EXPECT_NE(outcome.error.message.find(c.fragment), std::string::npos) << c.name << ": " << outcome.error.message;
}

INSTANTIATE_TEST_SUITE_P(Malformed, ParserErrorTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ErrorCase>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace inmanta::compiler
