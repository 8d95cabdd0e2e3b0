// Fuzz-style parser test (seeded, deterministic): mutations of every conformance model must
// either parse or fail with a located ParserException-family diagnostic — never crash, hang,
// or fail without a location. Run under ASan+UBSan by the suite's sanitizer build.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "compiler/ast/ast.h"
#include "compiler/diag/diagnostic.h"
#include "compiler/parse/parser.h"
#include "compiler/source/source.h"

namespace fs = std::filesystem;
using namespace inmanta::compiler;

namespace {

// The .cf files under `dir`, sorted (directory order is not stable).
std::vector<std::string> modelsUnder(const char* dir) {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".cf") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    files.push_back(buffer.str());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> corpus() { return modelsUnder(INMANTA_FUZZ_CORPUS); }

const char* const kPieces[] = {"(",
                               ")",
                               "[",
                               "]",
                               "{",
                               "}",
                               ":",
                               ",",
                               ".",
                               "=",
                               "+=",
                               "-",
                               "--",
                               "->",
                               "<-",
                               "**",
                               "*",
                               "/",
                               "%",
                               "?",
                               "not",
                               "in",
                               "is defined",
                               "end",
                               "if",
                               "for",
                               "entity",
                               "X",
                               "x",
                               "\"s\"",
                               "'",
                               "\"",
                               "\"\"\"",
                               "1",
                               "-1",
                               ".5",
                               "matching /a/",
                               "dict",
                               "null",
                               "true",
                               "::",
                               "A.b",
                               "\n",
                               " ",
                               "f\"{x}\"",
                               "r\"a\"",
                               "#",
                               "typedef",
                               "implement",
                               "using",
                               "when",
                               "index",
                               "import",
                               "elif",
                               "else",
                               "as",
                               "&",
                               "\\",
                               "\xC3\xA9",
                               "\t",
                               "\"\\x4\"",
                               "99999999999999999999",
                               "f\"{\"",
                               "{{a}}"};

std::string mutate(std::string s, std::mt19937& rng) {
  int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    size_t pos = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 4) {
      case 0: s.insert(pos, kPieces[rng() % (sizeof kPieces / sizeof kPieces[0])]); break;
      case 1: s.erase(pos, 1 + rng() % 8); break;
      case 2: {
        size_t from = s.empty() ? 0 : rng() % s.size();
        s.insert(pos, s.substr(from, 1 + rng() % 30));
        break;
      }
      default:
        if (!s.empty() && pos < s.size()) s[pos] = static_cast<char>(32 + rng() % 95);
        break;
    }
  }
  return s;
}

TEST(ParserFuzz, MutationsParseOrFailWithALocatedSyntaxError) {
  std::vector<std::string> files = corpus();
  ASSERT_FALSE(files.empty());
  long iterations = 20000;
  if (const char* env = std::getenv("INMANTA_FUZZ_ITERATIONS")) iterations = std::atol(env);
  unsigned seed = 20261123;
  if (const char* env = std::getenv("INMANTA_FUZZ_SEED")) seed = static_cast<unsigned>(std::atol(env));
  std::mt19937 rng(seed);
  size_t failures = 0;
  size_t parsed = 0;
  size_t fastAccepted = 0;
  for (long i = 0; i < iterations; ++i) {
    std::string text = mutate(files[static_cast<size_t>(i) % files.size()], rng);
    if (findInvalidUtf8(text) != std::string::npos) continue;  // rejected before parsing
    SourceManager sources;
    ast::Context ctx;
    FileId id = sources.add("fuzz.cf", "./fuzz.cf", normaliseNewlines(text));
    auto start = std::chrono::steady_clock::now();
    // The fast path either gives up or builds the tree ANTLR builds (checked below).
    ast::Context fastCtx;
    ast::File* fast = parseFile(fastCtx, sources, id, {}, ParseMode::FastOnly);
    if (fast != nullptr) ++fastAccepted;
    try {
      ast::File* file = parseFile(ctx, sources, id, {}, ParseMode::Antlr);
      ++parsed;
      std::string antlrTree = ast::dump(file, true);
      if (fast != nullptr && ast::dump(fast, true) != antlrTree) {
        ++failures;
        ADD_FAILURE() << "the fast path and ANTLR build different trees\n--- input ---\n" << text;
      }
      // The SLL stage must build the same tree as full LL prediction (checked on a sample).
      if (parsed % 8 == 0) {
        ast::Context llCtx;
        ast::File* ll = parseFile(llCtx, sources, id, {}, ParseMode::AntlrLL);
        if (antlrTree != ast::dump(ll, true)) {
          ++failures;
          ADD_FAILURE() << "SLL and LL trees differ\n--- input ---\n" << text;
        }
      }
    } catch (const CompileError& e) {
      if (fast != nullptr) {
        ++failures;
        ADD_FAILURE() << "the fast path accepts what ANTLR rejects (" << e.diagnostic().message << ")\n--- input ---\n"
                      << text;
      }
      const Diagnostic& d = e.diagnostic();
      // The reference reports a module name with a hyphen without a location; all else is located.
      bool located = d.location.valid() && d.location.col > 0;
      bool allowedUnlocated = d.kind == ErrorKind::CompilerException;
      if (!located && !allowedUnlocated) {
        ++failures;
        ADD_FAILURE() << "unlocated " << kindName(d.kind) << ": " << d.message << "\n--- input ---\n" << text;
      }
      // only the parse-time kinds may come out of the parser
      if (!isA(d.kind, ErrorKind::ParserException) && d.kind != ErrorKind::HyphenException &&
          d.kind != ErrorKind::RuntimeException && d.kind != ErrorKind::DuplicateException &&
          d.kind != ErrorKind::TypingException && d.kind != ErrorKind::CompilerException) {
        ++failures;
        ADD_FAILURE() << "unexpected kind " << kindName(d.kind) << ": " << d.message;
      }
    }
    auto elapsed = std::chrono::steady_clock::now() - start;
    if (elapsed > std::chrono::seconds(5)) {
      ++failures;
      ADD_FAILURE() << "parse took " << std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()
                    << " ms\n--- input ---\n"
                    << text;
    }
    if (failures > 10) FAIL() << "too many failures";
  }
  RecordProperty("parsed_ok", static_cast<int>(parsed));
  RecordProperty("fast_path_accepted", static_cast<int>(fastAccepted));
}

// Every real model (the conformance cases, the bundled std module, the examples) that ANTLR
// accepts goes through the fast path, which builds the same tree with the same warnings.
TEST(ParserFastPath, TakesAndAgreesOnEveryCorpusFile) {
  std::vector<std::string> files = corpus();
  for (const char* dir : {INMANTA_STD_MODEL_DIR, INMANTA_EXAMPLES_DIR})
    for (std::string& text : modelsUnder(dir)) files.push_back(std::move(text));
  size_t accepted = 0;
  for (const std::string& text : files) {
    SourceManager sources;
    FileId id = sources.add("corpus.cf", "./corpus.cf", normaliseNewlines(text));
    std::vector<std::string> antlrWarnings, fastWarnings;
    auto sink = [](std::vector<std::string>& out) {
      return [&out](const Diagnostic& d) { out.push_back(d.message + "@" + std::to_string(d.location.line)); };
    };
    ast::Context antlrCtx;
    ast::File* antlr = nullptr;
    try {
      antlr = parseFile(antlrCtx, sources, id, sink(antlrWarnings), ParseMode::Antlr);
    } catch (const CompileError&) {
    }
    ast::Context fastCtx;
    ast::File* fast = parseFile(fastCtx, sources, id, sink(fastWarnings), ParseMode::FastOnly);
    if (antlr == nullptr) {
      EXPECT_EQ(fast, nullptr) << "the fast path accepts what ANTLR rejects:\n" << text;
      continue;
    }
    ++accepted;
    ASSERT_NE(fast, nullptr) << "the fast path gave up on a valid model:\n" << text;
    EXPECT_EQ(ast::dump(fast, true), ast::dump(antlr, true)) << text;
    EXPECT_EQ(fastWarnings, antlrWarnings) << text;
  }
  EXPECT_GT(accepted, 100u);
}

TEST(ParserFuzz, DeepNestingIsALocatedErrorNotAStackOverflow) {
  for (const std::string& open : {std::string("("), std::string("["), std::string("not "), std::string("if true:\n")}) {
    std::string text = "x = ";
    for (int i = 0; i < 100000; ++i) text += open;
    SourceManager sources;
    ast::Context ctx;
    FileId id = sources.add("deep.cf", "./deep.cf", text);
    try {
      parseFile(ctx, sources, id, {});
      ADD_FAILURE() << "parsed";
    } catch (const CompileError& e) {
      EXPECT_TRUE(e.diagnostic().location.valid());
    }
  }
}

}  // namespace
