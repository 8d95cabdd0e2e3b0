// The parser: lexer quirks (spec 1.11), every grammar rule (2.1), precedence (2.2) and the
// parse-time desugarings and checks (2.3). Trees are compared through ast::dump.
#include <gtest/gtest.h>

#include "compiler/parse/parse_test_util.h"

namespace inmanta::compiler {
namespace {

// ------------------------------------------------------------------ lexer quirks (1.11)

TEST(LexerQuirks, MinusGluedToDigitStartsANumber) {
  EXPECT_EQ(parsed("x = 2-1"), "(= x 2) ; -1");
  EXPECT_EQ(parsed("x = a -1"), "(= x a) ; -1");
  EXPECT_EQ(parsed("x = 7 -2"), "(= x 7) ; -2");
}

TEST(LexerQuirks, HyphenInsideANameIsPartOfIt) {
  EXPECT_EQ(parsed("x = a-1"), "(= x a-1)");
  EXPECT_EQ(parsed("x = count-b"), "(= x count-b)");
}

TEST(LexerQuirks, SpacedMinusSubtracts) { EXPECT_EQ(parsed("x = a - 1"), "(= x (- a 1))"); }

TEST(LexerQuirks, RelationTokenWinsOverMinusAndLess) {
  EXPECT_FALSE(parseSource("x = 2--1").ok);
  EXPECT_FALSE(parseSource("x = a<-1").ok);
  EXPECT_EQ(parsed("x = 2 - -1"), "(= x (- 2 -1))");
  EXPECT_EQ(parsed("x = a < -1"), "(= x (< a -1))");
}

TEST(LexerQuirks, DottedFloatsSplit) { EXPECT_EQ(parsed("x = 1.2.3"), "(= x 1.2f) ; 0.29999999999999999f"); }

TEST(LexerQuirks, NoExponentSyntax) { EXPECT_EQ(parsed("x = 1e5"), "(= x 1) ; e5"); }

TEST(LexerQuirks, FloatForms) {
  EXPECT_EQ(parsed("x = .5"), "(= x 0.5f)");
  EXPECT_EQ(parsed("x = -.25"), "(= x -0.25f)");
  EXPECT_EQ(parsed("x = 007"), "(= x 7)");
  EXPECT_FALSE(parseSource("x = 5.").ok);
}

TEST(LexerQuirks, PrefixedStringsNeedNoSpace) {
  EXPECT_EQ(parsed("x = r\"a\\nb\""), "(= x 'a\\\\nb')");
  EXPECT_EQ(parsed("x = r \"a\""), "(= x r) ; 'a'");
  EXPECT_EQ(parsed("x = f\"{a}\""), "(= x (f '{a}' a))");
  EXPECT_EQ(parsed("x = f \"a\""), "(= x f) ; 'a'");
}

TEST(LexerQuirks, MatchingFollowedBySlashIsARegexToken) {
  EXPECT_EQ(parsed("typedef t as string matching /^a$/"), "(typedef t string (regex '^a$'))");
  EXPECT_EQ(parsed("typedef t as string matching\n  /a\\/b/"), "(typedef t string (regex 'a\\\\/b'))");
  EXPECT_EQ(parsed("y = x matching /a/"), "(= y x) ; (regex 'a')");
}

TEST(LexerQuirks, UnterminatedTripleQuoteScansToTheNextOne) {
  EXPECT_EQ(parsed("x = \"\"\"a\ny = 2\n\"\"\""), "(= x 'a\\ny = 2\\n')");
}

TEST(LexerQuirks, MultiLineStringQuoteRuns) {
  EXPECT_EQ(parsed("x = \"\"\"\"a\" b\"\"\""), "(= x '\"a\" b')");
  EXPECT_EQ(parsed("x = \"\"\"String: \"\"\"\"\""), "(= x 'String: \"\"')");
  EXPECT_EQ(parsed("x = \"\"\"\"\"a\"\"\"\"\""), "(= x '\"\"a\"\"')");
  EXPECT_EQ(parsed("x = \"\"\"\"\"\""), "(= x '')");
}

TEST(LexerQuirks, TripleSingleQuotesAreThreeStrings) { EXPECT_EQ(parsed("x = '''x'''"), "(= x '') ; 'x' ; ''"); }

TEST(LexerQuirks, NewlinesAreNotSignificant) {
  EXPECT_EQ(parsed("a=true b=false"), "(= a true) ; (= b false)");
  EXPECT_EQ(parsed("x = 1 +\n 2"), "(= x (+ 1 2))");
}

TEST(LexerQuirks, CommentsAndCarriageReturns) {
  EXPECT_EQ(parsed("x = 1 # c\r\ny = 2\r# end"), "(= x 1) ; (= y 2)");
  EXPECT_EQ(parsed("x = \"a#b\""), "(= x 'a#b')");
}

TEST(LexerQuirks, KeywordsOnlyAsWholeWords) {
  EXPECT_EQ(parsed("end_date = 1 is_ok = 2 format = 3 x = index-2"),
            "(= end_date 1) ; (= is_ok 2) ; (= format 3) ; (= x index-2)");
}

TEST(LexerQuirks, CapitalisedNamesAreNotLiterals) { EXPECT_FALSE(parseSource("x = True").ok); }

TEST(LexerQuirks, EmptyAndCommentOnlyFiles) {
  EXPECT_EQ(parsed(""), "");
  EXPECT_EQ(parsed("  \n# only a comment"), "");
}

// ------------------------------------------------------------------ strings (1.7)

TEST(Strings, EscapesAreDecoded) {
  EXPECT_EQ(parsed("x = \"a\\tb\\x41\\u0043\\101\""), "(= x 'a\\tbACA')");
  EXPECT_EQ(parsed("x = \"\\N{BULLET}\""), "(= x '\xE2\x80\xA2')");
}

TEST(Strings, UnknownEscapeIsKeptWithAWarning) {
  ParseOutcome outcome = parseSource("x = \"a\\.b\"");
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.statements[0], "(= x 'a\\\\.b')");
  ASSERT_EQ(outcome.warnings.size(), 1u);
  EXPECT_NE(outcome.warnings[0].message.find("Invalid escape sequence"), std::string::npos);
}

TEST(Strings, Utf8TextIsKept) { EXPECT_EQ(parsed("x = \"\xC2\xA7\xC3\xA9\""), "(= x '\xC2\xA7\xC3\xA9')"); }

TEST(Strings, Interpolation) {
  EXPECT_EQ(parsed("x = \"a {{ b }} {{c.d.e}}\""), "(= x (fmt 'a {{ b }} {{c.d.e}}' b c.d.e))");
  EXPECT_EQ(parsed("x = \"{{x::y}}\""), "(= x '{{x::y}}')");
  EXPECT_EQ(parsed("x = r'{{a}}'"), "(= x '{{a}}')");
  EXPECT_EQ(parsed("x = \"\"\"{{\na\n}}\"\"\""), "(= x (fmt '{{\\na\\n}}' a))");
}

TEST(Strings, FStringFieldsIncludingNestedSpecs) {
  EXPECT_EQ(parsed("x = f\"{ a . n }:{v:{w}.{p}f}\""), "(= x (f '{ a . n }:{v:{w}.{p}f}' a.n v w p))");
}

TEST(Strings, FStringStopsAtTheFirstChunkWithoutAField) {
  // spec 1.7 quirk: an escaped brace before a field hides that field
  EXPECT_EQ(parsed("x = f\"{{x}} {y}\""), "(= x (f '{{x}} {y}'))");
  EXPECT_EQ(parsed("x = f\"{y} {{x}}\""), "(= x (f '{y} {{x}}' y))");
  EXPECT_EQ(parsed("x = f\"{}\""), "(= x (f '{}'))");
}

TEST(Strings, AdjacentStringsAreSeparateStatements) { EXPECT_EQ(parsed("x = 'a' \"b\""), "(= x 'a') ; 'b'"); }

// ------------------------------------------------------------------ definitions

TEST(Grammar, Entity) {
  EXPECT_EQ(parsed(
                "entity A extends B, m::C:\n \"\"\"doc\"\"\"\n string a\n int b = 1\n float? c = null\n"
                " string[] d = [\"x\", \"y\",]\n int e = undef\n dict f\n dict? g = null\n dict h = {\"a\": 1}\nend"),
            "(entity A <B <m::C (string a undef) (int b = 1) (float? c = null) (string[] d = ['x' 'y']) "
            "(int e undef) (dict f undef) (dict? g = null) (dict h = {'a':1}))");
  EXPECT_EQ(parsed("entity A:\nend"), "(entity A)");
  EXPECT_EQ(parsed("entity A: \"\"\"only a doc\"\"\" end"), "(entity A)");
}

TEST(Grammar, Relations) {
  EXPECT_EQ(parsed("A.b [1] -- B.a [0:]"), "(relation A.b[1:1] B.a[0:])");
  EXPECT_EQ(parsed("A.b [2:5] -> B"), "(relation A.b[2:5] B)");
  EXPECT_EQ(parsed("A.b [:3] <- m::B.a [1:]"), "(relation A.b[0:3] m::B.a[1:])");
  EXPECT_EQ(parsed("A.b [0:1] foo, bar B.a [1]"), "(relation A.b[0:1] B.a[1:1] @foo @bar)");
  EXPECT_EQ(parsed("A.b [1] -- B\n[1]"), "(relation A.b[1:1] B) ; [1]");
}

TEST(Grammar, ImplementationsAndImplement) {
  EXPECT_EQ(parsed("implementation i for A:\n \"\"\"doc\"\"\"\n x = 1\nend"), "(implementation i for A (do (= x 1)))");
  EXPECT_EQ(parsed("implement A using i, parents, m::j"), "(implement A using i m::j parents)");
  EXPECT_EQ(parsed("implement A using i when x > 1"), "(implement A using i when (> x 1))");
  EXPECT_EQ(parsed("implement A using parents when true"), "(implement A using parents when true)");
  EXPECT_EQ(parsed("implement A using std::none \"\"\"doc\"\"\""), "(implement A using std::none)");
}

TEST(Grammar, TypedefsIndexesImports) {
  EXPECT_EQ(parsed("typedef port as int matching self >= 0 and self < 65536"),
            "(typedef port int (and (>= self 0) (< self 65536)))");
  EXPECT_EQ(parsed("index A(x, y)"), "(index A x y)");
  EXPECT_EQ(parsed("import a::b\nimport c as d"), "(import a::b as a::b) ; (import c as d)");
}

// ------------------------------------------------------------------ statements

TEST(Grammar, AssignmentsAndAttributeChains) {
  EXPECT_EQ(parsed("a.b.c = 1"), "(= a.b.c 1)");
  EXPECT_EQ(parsed("a.b += B()"), "(+= a.b (new B))");
  EXPECT_EQ(parsed("x = std::linux"), "(= x std::linux)");
}

TEST(Grammar, IfElifElse) {
  EXPECT_EQ(parsed("if a:\n x = 1\nelif b:\n x = 2\nelse:\n x = 3\nend"),
            "(if a (then (= x 1)) (else (if b (then (= x 2)) (else (= x 3)))))");
  EXPECT_EQ(parsed("if true: else: end"), "(if true (then) (else))");
}

TEST(Grammar, For) { EXPECT_EQ(parsed("for x in l:\n std::print(x)\nend"), "(for x l (do (call std::print x)))"); }

// ------------------------------------------------------------------ expressions

TEST(Grammar, CallsMixArguments) {
  EXPECT_EQ(parsed("f(1, a=2, **d, 3,)"), "(call f 1 3 a=2 **d)");
  EXPECT_EQ(parsed("std::print()"), "(call std::print)");
}

TEST(Grammar, ConstructorsAndLookups) {
  EXPECT_EQ(parsed("A(x=1, **d)"), "(new A x=1 **d)");
  EXPECT_EQ(parsed("m::A()"), "(new m::A)");
  EXPECT_EQ(parsed("A[x=1, **d]"), "(index A x=1 **d)");
  EXPECT_EQ(parsed("A[]"), "(index A)");
  EXPECT_EQ(parsed("h.files[path=\"/a\"]"), "(index h.files path='/a')");
  EXPECT_EQ(parsed("d[\"a\"][k]"), "(lookup (lookup d 'a') k)");
}

TEST(Grammar, IsDefinedForms) {
  EXPECT_EQ(parsed("x is defined"), "(defined x)");
  EXPECT_EQ(parsed("a.b.c is defined"), "(defined a.b.c)");
  EXPECT_EQ(parsed("d[\"k\"] is defined"), "(and (and (in 'k' d) (!= (lookup d 'k') null)) (!= (lookup d 'k') []))");
  EXPECT_FALSE(parseSource("a::b is defined").ok);
  EXPECT_FALSE(parseSource("(x) is defined").ok);
}

TEST(Grammar, ListsDictsComprehensions) {
  EXPECT_EQ(parsed("x = [1, [2, 3], a]"), "(= x [1 [2 3] a])");
  EXPECT_EQ(parsed("x = {\"a\": 1, r\"b\": [c],}"), "(= x {'a':1 'b':[c]})");
  EXPECT_EQ(parsed("x = [v for v in l if v > 1]"), "(= x (comp v for v in l if (> v 1)))");
  EXPECT_EQ(parsed("x = [x + y for x in a for y in b if g1 if g2]"),
            "(= x (comp (comp (+ x y) for y in b if (and g1 g2)) for x in a))");
}

TEST(Grammar, ShapeRestrictions) {
  EXPECT_EQ(parsed("x = {\"a\": 1}[\"a\"]"), "(= x {'a':1}) ; ['a']");
  EXPECT_EQ(parsed("y = l\n[\"a\"]"), "(= y (lookup l 'a'))");
  EXPECT_EQ(parsed("x = std::print\n(\"merged\")"), "(= x (call std::print 'merged'))");
  EXPECT_FALSE(parseSource("x = f(a).b").ok);
  EXPECT_FALSE(parseSource("x = l[1:2]").ok);
}

// ------------------------------------------------------------------ precedence (2.2)

TEST(Precedence, Table) {
  EXPECT_EQ(parsed("x = not a == b"), "(= x (== (not a) b))");
  EXPECT_EQ(parsed("x = not a and b"), "(= x (and (not a) b))");
  EXPECT_EQ(parsed("x = not a + 1"), "(= x (+ (not a) 1))");
  EXPECT_EQ(parsed("x = not a in b"), "(= x (not (in a b)))");
  EXPECT_EQ(parsed("x = not x.y is defined"), "(= x (not (defined x.y)))");
  EXPECT_EQ(parsed("x = a + b in c"), "(= x (+ a (in b c)))");
  EXPECT_EQ(parsed("x = 1 in l == true"), "(= x (== (in 1 l) true))");
  EXPECT_EQ(parsed("x = a not in b"), "(= x (not (in a b)))");
  EXPECT_EQ(parsed("x = 2 ** 3 ** 2"), "(= x (** (** 2 3) 2))");
  EXPECT_EQ(parsed("x = 10 - 2 - 3"), "(= x (- (- 10 2) 3))");
  EXPECT_EQ(parsed("x = 100 / 10 / 5"), "(= x (/ (/ 100 10) 5))");
  EXPECT_EQ(parsed("x = 1 + 2 * 3 % 4"), "(= x (+ 1 (% (* 2 3) 4)))");
  EXPECT_EQ(parsed("x = 1 < 2 < 3"), "(= x (< (< 1 2) 3))");
  EXPECT_EQ(parsed("x = a or b and c"), "(= x (or a (and b c)))");
  EXPECT_EQ(parsed("x = a or b ? c : d"), "(= x (? (or a b) c d))");
  EXPECT_EQ(parsed("x = a ? b : c ? d : e"), "(= x (? a b (? c d e)))");
  EXPECT_EQ(parsed("x = a ? b ? c : d : e"), "(= x (? a (? b c d) e))");
  EXPECT_EQ(parsed("x = c ? a : b or d"), "(= x (? c a (or b d)))");
  EXPECT_EQ(parsed("x = {\"a\": true ? 1 : 2}"), "(= x {'a':(? true 1 2)})");
  EXPECT_EQ(parsed("x = [c ? v : 0 for v in l]"), "(= x (comp (? c v 0) for v in l))");
}

TEST(Precedence, NoUnaryMinus) {
  EXPECT_FALSE(parseSource("x = -a").ok);
  EXPECT_FALSE(parseSource("x = - 1").ok);
}

// ------------------------------------------------------------------ parse-time checks (2.3, 6.2)

TEST(ParseChecks, Hyphens) {
  EXPECT_EQ(parseSource("entity A-b:\nend").error.kind, ErrorKind::HyphenException);
  EXPECT_EQ(parseSource("entity A:\n int a-b\nend").error.kind, ErrorKind::HyphenException);
  EXPECT_EQ(parseSource("var-x = 1").error.kind, ErrorKind::HyphenException);
  EXPECT_EQ(parseSource("implementation a-b for A:\nend").error.kind, ErrorKind::HyphenException);
  EXPECT_EQ(parseSource("typedef a-b as int matching self > 0").error.kind, ErrorKind::HyphenException);
  EXPECT_EQ(parseSource("A.b-c [1] -- B").error.kind, ErrorKind::HyphenException);
  EXPECT_EQ(parseSource("import x as a-b").error.kind, ErrorKind::HyphenException);
  ParseOutcome module = parseSource("import my-mod");
  EXPECT_EQ(module.error.kind, ErrorKind::CompilerException);
  EXPECT_FALSE(module.error.location.valid());
  EXPECT_TRUE(parseSource("for a-b in l:\n std::print(a-b)\nend").ok);
}

TEST(ParseChecks, RepeatedArgumentsAndKeys) {
  ParseOutcome call = parseSource("std::print(message=1, message=2)");
  EXPECT_EQ(call.error.kind, ErrorKind::RuntimeException);
  EXPECT_NE(call.error.message.find("repeated in function call std::print()"), std::string::npos);
  EXPECT_EQ(parseSource("A(n=1, n=2)").error.kind, ErrorKind::RuntimeException);
  ParseOutcome dict = parseSource("x = {\"a\": 1, \"a\": 2}");
  EXPECT_EQ(dict.error.kind, ErrorKind::DuplicateException);
}

TEST(ParseChecks, TypedefMustReadSelf) {
  EXPECT_EQ(parseSource("typedef t as int matching true").error.kind, ErrorKind::TypingException);
  EXPECT_EQ(parseSource("typedef t as int matching self is defined").error.kind, ErrorKind::TypingException);
  EXPECT_TRUE(parseSource("typedef t as int matching t > 0").ok);
  EXPECT_TRUE(parseSource("typedef t as string matching self == \"a\" or matching /^b/").ok);
}

TEST(ParseChecks, ConditionalParents) {
  ParseOutcome outcome = parseSource("implement A using parents when x");
  EXPECT_EQ(outcome.error.kind, ErrorKind::RuntimeException);
  EXPECT_EQ(outcome.error.location.line, 1u);
  EXPECT_EQ(outcome.error.location.col, 11u);
}

TEST(ParseChecks, BuiltInTypeOverrideWarns) {
  ParseOutcome outcome = parseSource("typedef string as int matching self > 0");
  ASSERT_TRUE(outcome.ok);
  ASSERT_EQ(outcome.warnings.size(), 1u);
  EXPECT_NE(outcome.warnings[0].message.find("override a built-in type: string"), std::string::npos);
}

// ------------------------------------------------------------------ locations (6.3)

TEST(Locations, NodesCarryTheReferencePositions) {
  SourceManager sources;
  ast::Context ctx;
  FileId id = sources.add("main.cf", "./main.cf", "x = A\n(n=1)\ny = a + \n  b\nz = std::print(1)\n");
  ast::File* file = parseFile(ctx, sources, id, {});
  ASSERT_EQ(file->statements.size(), 3u);
  auto* assign = static_cast<const ast::Assign*>(file->statements[0]);
  EXPECT_EQ(assign->loc().line, 1u);
  EXPECT_EQ(assign->loc().col, 3u);
  EXPECT_EQ(assign->value->loc().line, 2u);  // a constructor reports the line of `(`
  auto* sum = static_cast<const ast::Assign*>(file->statements[1])->value;
  EXPECT_EQ(sum->loc().line, 3u);  // an operator reports its own line
  EXPECT_EQ(sum->loc().col, 7u);
  auto* call = static_cast<const ast::Assign*>(file->statements[2])->value;
  EXPECT_EQ(call->loc().col, 5u);  // a call reports the start of its name
}

// ------------------------------------------------------------------ the fast path
// parseSource checks every source of these tests on both paths; the inputs below are shapes the
// fast path must take itself (not leave to ANTLR), with columns that depend on its bookkeeping.

bool fastPathTakes(const std::string& text) {
  std::string tree;
  return parseSourceIn(text, ParseMode::FastOnly, tree).ok;
}

TEST(FastPath, TakesTheTrickyTokenShapesAndAgreesWithAntlr) {
  const char* sources[] = {
      "x = \"\xC3\xA9t\xC3\xA9\" + y\nz = 1",                       // columns after non-ASCII count code points
      "x = \"\"\"a\nb\"\"\" + y\nz = y",                            // tokens after a multi-line MLS (spec 1.11)
      "x = \"\"\"a\n\xC3\xA9\"\"\" + y",                            // ... with non-ASCII inside it
      "x = \"\"\"\"q\"\"\"\" ; y = \"\"\"e\"\"\"\"\"",              // 4- and 5-quote runs
      "typedef t as string matching\n  /a\\/b/ + 1",                // regex after a newline, escaped slash
      "x = f\"{a}\" + r'\\d' + 'q'",                                // f-, raw and single-quoted strings
      "x = [1, 2,]\ny = {\"a\": 1,}\nz = A(a=1,)\nw = f(1, k=2,)",  // trailing commas
      "x = a not in b\ny = not a in b ? c : d\nz = -.5 - -1",       // NOT_IN, prefix not, signed numbers
      "x = a.b[c].d\n",                                             // ends at the lookup: `.d` is an error
      "# comment at the end without newline",
  };
  for (const char* text : sources) {
    ParseOutcome outcome = parseSource(text);  // cross-checks with ANTLR
    if (outcome.ok) {
      EXPECT_TRUE(fastPathTakes(text)) << text;
    }
  }
  EXPECT_FALSE(parseSource("x = a.b[c].d\n").ok);
  EXPECT_TRUE(parseSource("# comment at the end without newline").ok);
}

// The lexer's shortcuts: columns counted from continuation bytes, keywords compared as words,
// checks only for strings with a backslash and long integers, the bracket stack of the retyping,
// the parser's scratch lists and contiguous names. Each source parses on both paths (parseSource)
// with the same tree, locations and warnings, and the fast path takes it.
TEST(FastPath, TakesWhatItsShortcutsCover) {
  std::string deep = "x = ";  // brackets nested past the retyper's 64-bit stack
  for (int i = 0; i < 70; ++i) deep += "[";
  deep += "a[1][2], b not in c";
  for (int i = 0; i < 70; ++i) deep += "]";
  deep += "\ny = z[0] not in w";
  std::string wide = "x = {";  // past the 16 keys a dict literal scans for duplicates
  for (int i = 0; i < 40; ++i) wide += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
  wide += "}";
  const std::string sources[] = {
      // columns after 2-, 3- and 4-byte characters, in every kind of body
      "x = \"\xC3\xA9\xE6\x97\xA5\xF0\x9F\x98\x80\" + y + 'q'\nz = 1",
      "x = '\xC3\xA9' + f\"\xE6\x97\xA5{y}\" + r'\xF0\x9F\x98\x80' + z",
      "x = \"\\\xC3\xA9\" + y",  // an escaped non-ASCII character (kept with a warning)
      "typedef t as string matching /\xC3\xA9+/\ntypedef u as string matching /\xE6\x97\xA5/ y = 1",
      "x = \"\"\"\xC3\xA9\n\xE6\x97\xA5\xF0\x9F\x98\x80\"\"\" + y + \"\xC3\xA9\" + z\nw = 2",
      // escapes: decoded, unknown (a warning) in each string kind
      "x = \"a\\nb\\x41\\u00e9\\U0001F600\\101\\\\\" + 'c\\'d' + \"\\q\"",
      "x = f\"{a}\\t\\q\" + \"\"\"m\\q\n\"\"\" + y",
      "x = \"{{a}} \\n {{ b.c }}\"\ny = {\"k\\n\": 1, r\"r\\q\": 2, 'p': 3}",
      // tabs, blank lines and comments between tokens
      "x =\t1\n\ty\t=\t[1,\t2]  # c\xC3\xA9\n\n# only a comment\nz = y",
      // keywords of every length next to names that only start like them
      "implementation i for A:\nend\nimplement A using i, parents when true\nx = implements + ifx + "
      "elif_ + matchingx + undefined + nulls + a-b + index2 + as_ + not_ + is_defined",
      "entity A extends B:\n dict? d = null\n string[] s = undef\n number n = 1.5\nend\nindex A(n)\n"
      "A.b [0:1] -- B\nimport std as s\nfor i in l:\n if i is defined and not i or true:\n x = 1\n "
      "elif false:\n y = 2\n else:\n z = 3\n end\nend",
      // integers around the 18 digits that need no range check
      "x = 999999999999999999 + -999999999999999999 + 9223372036854775807 + -9223372036854775808 + 007",
      // names of several tokens, with and without blanks between them
      "x = std::print(1) + std :: print(2) + a :: b::C(x=1) + a::b",
      // nested argument lists on the scratch stacks
      "x = A(a=B(b=C(c=[1, 2, f(x, y, k=[3, g(4)], **d), [], {}])), d=2, **e)\ny = f(1, a=2, **{})",
      "x = [for_ for for_ in l if for_ if a]\ny = [[1, [2, [3]]], [], [4,]]",
      deep,
      wide,
  };
  for (const std::string& text : sources) {
    ParseOutcome outcome = parseSource(text);  // cross-checks with ANTLR
    EXPECT_TRUE(fastPathTakes(text)) << text;
    (void)outcome;
  }
  // CRLF and lone CR line ends become newlines before the lexer sees them
  EXPECT_EQ(parsed("x = \"\xC3\xA9\"\r\ny = 1\rz = \"\"\"a\r\nb\"\"\" + x"),
            parsed("x = \"\xC3\xA9\"\ny = 1\nz = \"\"\"a\nb\"\"\" + x"));
}

TEST(FastPath, LeavesErrorsToAntlr) {
  std::string wideDuplicate = "x = {";  // a duplicate past the 16 keys scanned
  for (int i = 0; i < 20; ++i) wideDuplicate += "\"k" + std::to_string(i) + "\": 1, ";
  wideDuplicate += "\"k3\": 2}";
  for (const std::string text :
       {"x = ", "entity a:\nend", "x = 1 $", "x = \"\\x4\"", "typedef t as string matching /(/",
        "x = 99999999999999999999", "x = 9223372036854775808", "x = -9223372036854775809", "a += 1",
        "x = {\"a\": 1, \"a\": 2}", "import a-b", "x = \"a\\N{NOPE}\"", "x = f\"\\x4\"", "x = \"\"\"\\U00110000\"\"\"",
        "x = \"\\\n\"", "x = '\xC3\xA9\nb'", "x = a \xC3\xA9", wideDuplicate.c_str()}) {
    EXPECT_FALSE(fastPathTakes(text)) << text;
    EXPECT_FALSE(parseSource(text).ok) << text;
  }
}

// ------------------------------------------------------------------ shared literal strings

// The value of a literal's text (statement `i` of `file` is `x = <literal>`).
const runtime::Value& literalOf(const ast::File* file, size_t i) {
  const auto* assign = static_cast<const ast::Assign*>(file->statements.at(i));
  EXPECT_EQ(assign->value->kind, ast::Kind::Literal);
  return static_cast<const ast::Literal*>(assign->value)->value();
}

TEST(LiteralStrings, OneValuePerDistinctTextWhateverTheQuoting) {
  for (ParseMode mode : {ParseMode::FastOnly, ParseMode::Antlr}) {
    SourceManager sources;
    ast::Context ctx;
    FileId id = sources.add("main.cf", "./main.cf",
                            normaliseNewlines("a = \"root\"\nb = 'root'\nc = r\"root\"\nd = \"roots\"\n"));
    ast::File* file = parseFile(
        ctx, sources, id, [](const Diagnostic&) {}, mode);
    ASSERT_NE(file, nullptr);
    const std::string& a = literalOf(file, 0).asString();
    EXPECT_EQ(a, "root");
    EXPECT_EQ(literalOf(file, 1).asString().data(), a.data());  // the very same text
    EXPECT_EQ(literalOf(file, 2).asString().data(), a.data());
    EXPECT_EQ(literalOf(file, 3).asString(), "roots");
    EXPECT_NE(literalOf(file, 3).asString().data(), a.data());
  }
}

TEST(LiteralStrings, TheTableGrowsAndIsForgottenAfterTheParse) {
  ast::Context ctx;
  std::vector<runtime::Value> first;
  for (int i = 0; i < 5000; ++i) first.push_back(ctx.string("svc_" + std::to_string(i)));
  first.push_back(ctx.string(""));
  for (int i = 0; i < 5000; ++i) {
    runtime::Value again = ctx.string("svc_" + std::to_string(i));
    EXPECT_EQ(again.asString(), "svc_" + std::to_string(i));
    EXPECT_EQ(again.asString().data(), first[static_cast<size_t>(i)].asString().data());
    EXPECT_EQ(again.holderWord(), 0u);  // the table's hash stays in the table
  }
  EXPECT_EQ(ctx.string("").asString().data(), first.back().asString().data());
  ctx.forgetStrings();
  runtime::Value fresh = ctx.string("svc_1");
  EXPECT_EQ(fresh.asString(), "svc_1");
  EXPECT_NE(fresh.asString().data(), first[1].asString().data());  // a new value: the old one lives on
  EXPECT_EQ(first[1].asString(), "svc_1");
}

// A large file is lexed on a thread of its own while it is parsed (from 256 KiB on): the same
// trees and warnings as ANTLR's, in the same order, whether the parser or the lexer is ahead, and
// the same errors when either gives up, wherever that happens.
std::string largeSource(const std::string& head, const std::string& tail) {
  std::string text = head;
  for (int i = 0; text.size() < 400 * 1024; ++i) {
    std::string n = std::to_string(i);
    text += "svc_" + n + " = Service(name=\"svc-" + n + "\", port=" + n + ", tags=[\"a\", \"b\"])\n";
    if (i % 4000 == 0) text += "w_" + n + " = \"odd\\.escape\"  # a warning on the way\n";
  }
  return text + tail;
}

TEST(FastPath, LargeFilesLexOnAThreadOfTheirOwn) {
  std::string tree;
  ParseOutcome fine = parseSource(largeSource("\"\"\"the doc\"\"\"\nx = \"a\\.b\"\n", "z = \"end\\.\"\n"));
  ASSERT_TRUE(fine.ok);
  EXPECT_GT(fine.warnings.size(), 3u);
  EXPECT_TRUE(fastPathTakes(largeSource("", "")));
  // the lexer gives up at the end, while the parser waits for it; then at the start
  for (const std::string& text : {largeSource("", "x = 1 $ 2\n"), largeSource("x = \xC3\xA9\n", "")}) {
    ParseOutcome failed = parseSource(text);
    EXPECT_FALSE(failed.ok);
    EXPECT_FALSE(fastPathTakes(text));
  }
  // the parser gives up at the start, while the lexer goes on to the end
  std::string early = largeSource("x = = 1\n", "");
  EXPECT_FALSE(parseSource(early).ok);
  EXPECT_FALSE(fastPathTakes(early));
}

}  // namespace
}  // namespace inmanta::compiler
