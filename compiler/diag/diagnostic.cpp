#include "compiler/diag/diagnostic.h"

#include <string_view>

namespace inmanta::compiler {

namespace {
struct KindInfo {
  const char* name;
  ErrorKind parent;
  int importance;
};
constexpr KindInfo kKinds[] = {
#define KIND(name, parent, importance) {#name, ErrorKind::parent, importance},
#include "compiler/diag/error_kinds.def"
#undef KIND
};

// The source line of `loc` with a caret under its column, underlined (^~~~) up to `lastCol` when
// the construct it names is known to end further on that line; tabs are 4 columns wide.
void appendSourceLine(std::string& out, const SourceManager& sources, const SourceLocation& loc,
                      const std::string& indent, const Style& style, uint32_t lastCol = 0) {
  if (!loc.valid() || loc.file >= sources.size()) return;
  std::string_view raw = sources.file(loc.file).reportedLineText(loc.line);
  if (raw.empty() && loc.line > sources.file(loc.file).lineCount()) return;
  // never echo bytes that are not UTF-8 text
  std::string clean;
  for (size_t i = 0; i < raw.size();) {
    size_t bad = findInvalidUtf8(raw.substr(i));
    if (bad == std::string_view::npos) {
      clean.append(raw.substr(i));
      break;
    }
    clean.append(raw.substr(i, bad));
    clean += "\xEF\xBF\xBD";
    i += bad + 1;
  }
  std::string_view line = clean;
  std::string shown;
  std::string caret;
  uint32_t col = 1;
  uint32_t target = loc.col;
  if (target == 0) {  // whole-line location: caret under the first non-blank character
    target = 1;
    size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos) target = static_cast<uint32_t>(codePointCount(line.substr(0, first))) + 1;
  }
  bool placed = false;
  size_t underline = 0;  // display width of the construct after its first column
  for (size_t i = 0; i < line.size();) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
    if (!placed && col == target) placed = true;
    size_t width = c == '\t' ? 4 : 1;
    if (c == '\t') {
      shown += "    ";
      if (!placed) caret += "    ";
    } else {
      shown.append(line.substr(i, len));
      if (!placed) caret += ' ';
    }
    if (placed && col > target && col <= lastCol) underline += width;
    i += len;
    ++col;
  }
  // Clip very long lines to keep the caret visible.
  constexpr size_t kMax = 160;
  if (shown.size() > kMax && caret.size() > kMax / 2) {
    size_t cut = caret.size() - kMax / 2;
    shown = "..." + shown.substr(cut);
    caret = "   " + caret.substr(cut);
  }
  if (shown.size() > kMax) shown = shown.substr(0, kMax) + "...";
  out += indent + "    " + shown + "\n";
  out += indent + "    " + caret + style.caret("^" + std::string(underline, '~')) + "\n";
}

bool sameLine(const SourceLocation& a, const SourceLocation* b) {
  return b != nullptr && a.file == b->file && a.line == b->line;
}

// `shown`: the place whose source line the enclosing diagnostic printed (null: none); a cause or
// a note on that line does not print it again (issue 32).
void renderInto(std::string& out, const Diagnostic& diag, const SourceManager& sources, const std::string& indent,
                bool first, const Style& style, const SourceLocation* shown) {
  std::string_view message = diag.message;
  size_t nl = message.find('\n');
  std::string_view head = message.substr(0, nl);
  std::string rest = nl == std::string_view::npos ? std::string() : std::string(message.substr(nl + 1));
  if (!first) out += indent;
  out += style.error(kindName(diag.kind));
  out += ": ";
  out += head;
  if (diag.location.valid() || (diag.wholeFile && diag.location.file != kNoFile))
    out += " (" + style.location(sources.format(diag.location, diag.showColumn)) + ")";
  out += "\n";
  size_t pos = 0;
  while (pos < rest.size()) {
    size_t end = rest.find('\n', pos);
    if (end == std::string::npos) end = rest.size();
    out += indent + "        " + rest.substr(pos, end - pos) + "\n";
    pos = end + 1;
  }
  if (diag.kind == ErrorKind::MultiException) {
    for (size_t i = 0; i < diag.causes.size(); ++i) {
      out += indent + style.label("error " + std::to_string(i) + ":") + " ";
      renderInto(out, diag.causes[i], sources, indent + "  ", true, style, nullptr);
    }
    return;
  }
  const SourceLocation& at = diag.caret.valid() ? diag.caret : diag.location;
  if (!sameLine(at, shown)) {
    bool ends = !diag.caret.valid() && diag.end.valid() && sameLine(diag.end, &at);
    appendSourceLine(out, sources, at, indent, style, ends ? diag.end.col : 0);
    if (at.valid()) shown = &at;
  }
  for (const Diagnostic& cause : diag.causes) {
    out += indent + style.label("caused by:") + " ";
    renderInto(out, cause, sources, indent + "  ", true, style, shown);
  }
  if (!diag.nativeCause.empty()) out += indent + style.label("caused by:") + " " + diag.nativeCause + "\n";
  for (const DiagnosticNote& note : diag.notes) {
    out += indent + style.label("note:") + " " + note.message;
    if (note.location.valid()) out += " (" + style.location(sources.format(note.location)) + ")";
    out += "\n";
    if (!sameLine(note.location, shown)) appendSourceLine(out, sources, note.location, indent, style);
  }
}
}  // namespace

const char* kindName(ErrorKind kind) { return kKinds[static_cast<int>(kind)].name; }
ErrorKind kindParent(ErrorKind kind) { return kKinds[static_cast<int>(kind)].parent; }
int kindImportance(ErrorKind kind) { return kKinds[static_cast<int>(kind)].importance; }

bool isA(ErrorKind kind, ErrorKind ancestor) {
  for (;;) {
    if (kind == ancestor) return true;
    ErrorKind parent = kindParent(kind);
    if (parent == kind) return false;
    kind = parent;
  }
}

std::string renderDiagnostic(const Diagnostic& diag, const SourceManager& sources, const Style& style) {
  std::string out;
  renderInto(out, diag, sources, "", true, style, nullptr);
  return out;
}

}  // namespace inmanta::compiler
