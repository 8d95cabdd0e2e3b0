// Test helper: parses each .cf file given and prints one line per file, "OK" or
// "ERR LINE:COL KIND: MESSAGE". Used by the parser fuzz test and for differential checks.
#include <fstream>
#include <iostream>
#include <sstream>

#include "compiler/ast/ast.h"
#include "compiler/diag/diagnostic.h"
#include "compiler/parse/parser.h"
#include "compiler/source/source.h"

using namespace inmanta::compiler;

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    SourceManager sources;
    ast::Context ctx;
    std::string raw = buffer.str();
    if (findInvalidUtf8(raw) != std::string::npos) {
      std::cout << "ERR invalid-utf8\n";
      continue;
    }
    FileId id = sources.add(argv[i], "f", normaliseNewlines(raw));
    try {
      parseFile(ctx, sources, id, {});
      std::cout << "OK\n";
    } catch (const CompileError& e) {
      const Diagnostic& d = e.diagnostic();
      std::cout << "ERR " << d.location.line << ":" << d.location.col << " " << kindName(d.kind) << ": "
                << d.message.substr(0, d.message.find('\n')) << "\n";
    }
  }
  return 0;
}
