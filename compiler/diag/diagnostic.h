// Compiler diagnostics: the error kinds of the reference, located messages with causes, and
// the renderer of spec 9.4 (kind first, source line with a caret, "caused by:" chain).
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/diag/style.h"
#include "compiler/source/source.h"

namespace inmanta::compiler {

enum class ErrorKind {
#define KIND(name, parent, importance) name,
#include "compiler/diag/error_kinds.def"
#undef KIND
};

const char* kindName(ErrorKind kind);
ErrorKind kindParent(ErrorKind kind);
int kindImportance(ErrorKind kind);
// True when `kind` is `ancestor` or derives from it.
bool isA(ErrorKind kind, ErrorKind ancestor);

// A place that explains a diagnostic without being where it went wrong: the statement that
// reported an error found in one of its parts (the constructor call of a wrong argument).
struct DiagnosticNote {
  std::string message;
  SourceLocation location;
};

struct Diagnostic {
  ErrorKind kind = ErrorKind::CompilerException;
  std::string message;      // may span several lines
  SourceLocation location;  // invalid: no location
  bool showColumn = true;   // print FILE:LINE:COL rather than FILE:LINE
  SourceLocation caret;     // where to draw the caret when not at `location` (a syntax error
                            // is reported after its token, but the token is what to point at)
  SourceLocation end;       // where the wrong construct ends (its last column), when known: the
                            // caret underlines it, --json gives it as the range's end
  std::vector<Diagnostic> causes;
  std::vector<DiagnosticNote> notes;
  std::string nativeCause;  // "AssertionError: boom" for a plugin's non-compiler failure
  std::string warningName;  // for warnings: TypeDeprecationWarning, VariableShadowWarning, ...
  bool wholeFile = false;   // `location` names a file without a line: printed FILE:0
  std::string nativeTrace;  // the Python traceback of `nativeCause`, shown with -X

  Diagnostic() = default;
  Diagnostic(ErrorKind k, std::string msg, SourceLocation loc = {}, bool column = true)
      : kind(k), message(std::move(msg)), location(loc), showColumn(column) {}
};

// Thrown by every compiler stage; carries one diagnostic (a MultiException holds several as
// causes).
class CompileError : public std::exception {
 public:
  explicit CompileError(Diagnostic diag) : diag_(std::move(diag)) {}
  const Diagnostic& diagnostic() const { return diag_; }
  Diagnostic& diagnostic() { return diag_; }
  const char* what() const noexcept override { return diag_.message.c_str(); }

 private:
  Diagnostic diag_;
};

// Renders a diagnostic as the block that follows "Error: " in the compile summary, in colour when
// `style` says so.
std::string renderDiagnostic(const Diagnostic& diag, const SourceManager& sources, const Style& style = Style());

// Receives warnings (ParserWarning, ...) as they are found.
using WarningSink = std::function<void(const Diagnostic&)>;

}  // namespace inmanta::compiler
