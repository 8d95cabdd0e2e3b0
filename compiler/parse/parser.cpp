// parseFile: the fast path (fast_parser.cpp), and the ANTLR parser of libinmanta_antlr.so
// (antlr_parser.h), loaded with dlopen() the first time the fast path gives up.
#include "compiler/parse/parser.h"

#include <string>

#include "compiler/parse/antlr_parser.h"
#include "compiler/parse/ast_factory.h"
#include "compiler/parse/fast_parser.h"
#include "compiler/shared_module.h"

#ifndef INMANTA_ANTLR_MODULE_NAME
#error "INMANTA_ANTLR_MODULE_NAME must be defined"
#endif

namespace inmanta::compiler {

namespace {

// The outcome of loading the module, once per process: the parser, or why there is none.
struct Loaded {
  AntlrParser* parser = nullptr;
  std::string error;
};

Loaded load() {
  const std::string what = "the ANTLR parser";
  SharedModule module = loadSharedModule(what, INMANTA_ANTLR_MODULE_NAME, "INMANTA_ANTLR_MODULE", kAntlrParserEntry);
  if (module.entry == nullptr) return {nullptr, module.error};
  using Entry = AntlrParser* (*)(uint64_t);
  AntlrParser* parser = reinterpret_cast<Entry>(module.entry)(kAntlrParserAbi);
  if (parser == nullptr)
    return {nullptr, sharedModuleMismatch(what, INMANTA_ANTLR_MODULE_NAME, module, "its syntax tree differs")};
  return {parser, {}};
}

AntlrParser& antlrParser(const SourceFile& file) {
  static const Loaded loaded = load();
  if (loaded.parser == nullptr)
    throw CompileError(
        Diagnostic(ErrorKind::CompilerException, "cannot check the syntax of " + file.display + ": " + loaded.error));
  return *loaded.parser;
}

}  // namespace

ast::File* parseFile(ast::Context& ctx, const SourceManager& sources, FileId fileId, const WarningSink& warn,
                     ParseMode mode) {
  const SourceFile& file = sources.file(fileId);
  if (file.text.empty()) {
    auto* empty = ctx.arena.make<ast::File>();
    empty->id = fileId;
    return empty;
  }
  // The reference appends a newline before lexing (spec 1.1).
  std::string_view data = file.parseText();

  if (mode == ParseMode::Auto || mode == ParseMode::FastOnly) {
    // Warnings wait until the fast path's tree is kept; if it gives up, the ANTLR path gives them.
    std::vector<Diagnostic> warnings;
    WarningSink buffer = [&warnings](const Diagnostic& d) { warnings.push_back(d); };
    AstFactory fast(ctx, fileId, buffer);
    if (ast::File* tree = fastParse(fast, data, warnings)) {
      if (warn)
        for (const Diagnostic& d : warnings) warn(d);
      return tree;
    }
    if (mode == ParseMode::FastOnly) return nullptr;
  }
  return antlrParser(file).parse(ctx, fileId, data, warn, mode == ParseMode::AntlrLL);
}

}  // namespace inmanta::compiler
