// Source files of one compile and positions inside them.
// Lines are 1-based; columns are 1-based and count Unicode code points (spec 0).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace inmanta::compiler {

using FileId = uint32_t;
inline constexpr FileId kNoFile = UINT32_MAX;
// What a packed location can name (packLocation): the loader refuses a project of more files or
// a file of more lines; a column past the last is kept as "only the line".
inline constexpr uint32_t kMaxFiles = 4094;
inline constexpr uint32_t kMaxLines = (uint32_t(1) << 25) - 1;
inline constexpr uint32_t kMaxColumn = (uint32_t(1) << 19) - 1;

struct SourceLocation {
  FileId file = kNoFile;
  uint32_t line = 0;
  uint32_t col = 0;  // 0: only the line is known
  bool valid() const { return file != kNoFile && line != 0; }
};

// A location in the low 56 bits of a word, as the many holders of one keep it (syntax nodes,
// instances, units): the file (12 bits: its number + 1, 0 for none), the line (25 bits) and the
// column (19 bits). The high byte is 0, for the holder's own use.
inline constexpr unsigned kPackedLocationBits = 56;
inline uint64_t packLocation(SourceLocation at) {
  uint64_t file = at.file == kNoFile || at.file >= kMaxFiles ? 0 : uint64_t(at.file) + 1;
  uint64_t line = at.line <= kMaxLines ? at.line : 0;
  uint64_t col = at.col <= kMaxColumn ? at.col : 0;
  return file | (line << 12) | (col << 37);
}
inline SourceLocation unpackLocation(uint64_t bits) {
  uint64_t file = bits & 0xFFF;
  return SourceLocation{file == 0 ? kNoFile : static_cast<FileId>(file - 1),
                        static_cast<uint32_t>((bits >> 12) & kMaxLines),
                        static_cast<uint32_t>((bits >> 37) & kMaxColumn)};
}
static_assert(kMaxFiles + 1 < (1u << 12) && kMaxLines == (1u << 25) - 1 && kMaxColumn == (1u << 19) - 1 &&
                  12 + 25 + 19 == kPackedLocationBits,
              "a packed location is 56 bits");

struct SourceRange {
  SourceLocation begin;
  uint32_t endLine = 0;
  uint32_t endCol = 0;
};

// One loaded file: its text with line endings normalised to '\n' (Python universal newlines).
struct SourceFile {
  SourceFile() = default;
  SourceFile(const SourceFile&) = delete;  // `text` views its own storage
  SourceFile& operator=(const SourceFile&) = delete;
  std::string path;       // as opened
  std::string display;    // as printed in messages: ./main.cf, ./libs/m/model/_init.cf
  std::string_view text;  // (in `stored`; empty once the text is released)
  // byte offset of each line (freed with the text, and made again when the text is read again)
  mutable std::vector<uint32_t> lineStarts;
  // the number of lines (kept when the text is released)
  size_t lineCount() const { return lines_; }

  // A line without its newline. Once the text is released (SourceManager::releaseTexts), the
  // file is read again for the first line asked; when it is no longer the text that was parsed,
  // no line is shown (empty).
  std::string_view lineText(uint32_t line) const;
  // The line that a location's line number names. The reference's lexer does not count the
  // newlines between `matching` and a regex's `/`, and our locations number the lines as it does:
  // after such a regex, a location's line is that many less than the line of the text.
  std::string_view reportedLineText(uint32_t line) const;
  // The text with the newline the parsers want at its end (spec 1.1), without a copy.
  std::string_view parseText() const { return std::string_view(stored); }

 private:
  friend class SourceManager;
  void reload() const;
  mutable std::string stored;  // the text and that newline
  size_t size_ = 0;            // of the text
  size_t lines_ = 0;
  uint64_t digest_ = 0;  // of the text, once released
  bool released_ = false;
  mutable bool reloaded_ = false;
  // (reportedLineText) the regexes with newlines before their `/`: the line number of their
  // `matching` as reported, and the newlines uncounted up to and including it
  mutable std::vector<std::pair<uint32_t, uint32_t>> uncounted_;
  mutable bool scanned_ = false;
};

// Owns every file of a compile; FileIds index into it.
class SourceManager {
 public:
  FileId add(std::string path, std::string display, std::string text);
  const SourceFile& file(FileId id) const { return *files_.at(id); }
  size_t size() const { return files_.size(); }
  // Frees the files' texts (after the parse: only messages read them then, a line at a time).
  void releaseTexts();
  // "./main.cf:3:5" or "./main.cf:3" when the column is unknown.
  std::string format(const SourceLocation& loc, bool withColumn = true) const;

 private:
  std::vector<std::unique_ptr<SourceFile>> files_;
};

// \r\n and lone \r become \n.
std::string normaliseNewlines(std::string_view text);
// The same in place, without a copy (nor any work when there is no \r).
void normaliseNewlinesInPlace(std::string& text);

// Byte offset of the first invalid UTF-8 sequence, or npos when the text is valid.
size_t findInvalidUtf8(std::string_view text);

// Number of code points in a UTF-8 string.
size_t codePointCount(std::string_view text);

// The code point starting at byte `i` of valid UTF-8 text; advances `i` past it. A truncated
// sequence at the end is taken byte by byte.
char32_t nextCodePoint(std::string_view text, size_t& i);

// Appends the UTF-8 encoding of a code point.
void appendUtf8(std::string& out, uint32_t cp);

}  // namespace inmanta::compiler
