#include "compiler/source/source.h"

#include <bit>
#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#define XXH_INLINE_ALL  // (header-only: libxxhash-dev's header, no library to link)
#include <xxhash.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace inmanta::compiler {

namespace {

// The bytes of text[i, i + 16) equal to `c` as the bits of a mask (SSE2), or the bytes of
// text[i, i + 8) as their high bits elsewhere; kStep bytes per call either way.
#if defined(__SSE2__)
constexpr size_t kStep = 16;
inline uint32_t bytesEqual(const char* p, char c) {
  __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(block, _mm_set1_epi8(c))));
}
inline bool allAscii(const char* p) {
  return _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))) == 0;
}
inline size_t firstSet(uint32_t mask) { return static_cast<size_t>(std::countr_zero(mask)); }
#else
constexpr size_t kStep = 8;
inline uint64_t bytesEqual(const char* p, char c) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  uint64_t x = w ^ (0x0101010101010101ull * static_cast<unsigned char>(c));  // 0 where equal
  constexpr uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Full;
  return ~(((x & kLow7) + kLow7) | x | kLow7);  // the high bit of each zero byte
}
inline bool allAscii(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return (w & 0x8080808080808080ull) == 0;
}
inline size_t firstSet(uint64_t mask) { return static_cast<size_t>(std::countr_zero(mask)) / 8; }
#endif

// Calls `f` with the offset after each newline of p[0, n), in order: a block at a time, lines
// being short.
template <class F>
void forEachLineStart(const char* p, size_t n, F&& f) {
  size_t i = 0;
  for (; i + kStep <= n; i += kStep)
    for (auto newlines = bytesEqual(p + i, '\n'); newlines != 0; newlines &= newlines - 1)
      f(i + firstSet(newlines) + 1);
  for (; i < n; ++i)
    if (p[i] == '\n') f(i + 1);
}

// The offsets of the lines of `text` (the first is 0).
void indexLines(std::string_view text, std::vector<uint32_t>& starts) {
  size_t lines = 1;  // counted first: no growth
  forEachLineStart(text.data(), text.size(), [&lines](size_t) { ++lines; });
  starts.clear();
  starts.reserve(lines);
  starts.push_back(0);
  forEachLineStart(text.data(), text.size(),
                   [&starts](size_t start) { starts.push_back(static_cast<uint32_t>(start)); });
}

}  // namespace

std::string_view SourceFile::lineText(uint32_t line) const {
  if (line == 0 || line > lines_) return {};
  if (released_ && !reloaded_) reload();
  if (stored.size() != size_ + 1) return {};  // released, and not the same text any more
  std::string_view all(stored.data(), size_);
  size_t begin = lineStarts[line - 1];
  size_t end = all.find('\n', begin);
  if (end == std::string::npos) end = all.size();
  return all.substr(begin, end - begin);
}

std::string_view SourceFile::reportedLineText(uint32_t line) const {
  if (!scanned_) {
    scanned_ = true;
    if (released_ && !reloaded_) reload();
    if (stored.size() == size_ + 1) {
      // tokens as far as they matter here: comments, strings (one line), MLS, names
      std::string_view t(stored.data(), size_);
      uint32_t reported = 1;
      uint32_t total = 0;
      auto isId = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; };
      for (size_t i = 0; i < t.size();) {
        char c = t[i];
        if (c == '\n') {
          ++reported;
          ++i;
        } else if (c == '#') {
          size_t end = t.find('\n', i);
          i = end == std::string_view::npos ? t.size() : end;
        } else if (t.compare(i, 3, "\"\"\"") == 0) {
          size_t end = t.find("\"\"\"", i + 3);
          end = end == std::string_view::npos ? t.size() : end + 3;
          for (size_t k = i; k < end; ++k) reported += t[k] == '\n';
          i = end;
        } else if (c == '"' || c == '\'') {
          size_t k = i + 1;
          while (k < t.size() && t[k] != c && t[k] != '\n') k += t[k] == '\\' ? 2 : 1;
          i = k < t.size() && t[k] == c ? k + 1 : k;
        } else if (isId(c)) {
          size_t k = i;
          while (k < t.size() && isId(t[k])) ++k;
          if (t.substr(i, k - i) == "matching") {
            size_t w = k;
            uint32_t newlines = 0;
            while (w < t.size() && std::isspace(static_cast<unsigned char>(t[w]))) newlines += t[w++] == '\n';
            if (newlines != 0 && w < t.size() && t[w] == '/') {
              total += newlines;
              uncounted_.emplace_back(reported, total);
              k = w;  // the newlines are not counted
            }
          }
          i = k;
        } else {
          ++i;
        }
      }
    }
  }
  uint32_t physical = line;
  for (const auto& [at, total] : uncounted_)
    if (at < line) physical = line + total;
  return lineText(physical);
}

void SourceFile::reload() const {
  reloaded_ = true;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string again = std::move(buffer).str();
  normaliseNewlinesInPlace(again);  // as it was read for the parse
  if (again.size() != size_ || XXH3_64bits(again.data(), again.size()) != digest_) return;
  stored = std::move(again);
  stored.push_back('\n');
  indexLines(std::string_view(stored.data(), size_), lineStarts);
}

void SourceManager::releaseTexts() {
  for (const auto& file : files_) {
    if (file->released_) continue;
    file->digest_ = XXH3_64bits(file->text.data(), file->text.size());
    file->released_ = true;
    file->text = {};
    std::string().swap(file->stored);
    std::vector<uint32_t>().swap(file->lineStarts);  // (2.3 million lines: 9 MB)
  }
}

FileId SourceManager::add(std::string path, std::string display, std::string text) {
  auto file = std::make_unique<SourceFile>();
  file->path = std::move(path);
  file->display = std::move(display);
  file->stored = std::move(text);
  file->stored.push_back('\n');
  file->text = std::string_view(file->stored).substr(0, file->stored.size() - 1);
  file->size_ = file->text.size();
  indexLines(file->text, file->lineStarts);
  file->lines_ = file->lineStarts.size();
  files_.push_back(std::move(file));
  return static_cast<FileId>(files_.size() - 1);
}

std::string SourceManager::format(const SourceLocation& loc, bool withColumn) const {
  if (loc.file == kNoFile || loc.file >= files_.size()) return {};
  std::string out = files_[loc.file]->display + ":" + std::to_string(loc.line);
  if (withColumn && loc.col != 0) out += ":" + std::to_string(loc.col);
  return out;
}

void normaliseNewlinesInPlace(std::string& text) {
  const char* first = static_cast<const char*>(std::memchr(text.data(), '\r', text.size()));
  if (first == nullptr) return;  // most files: nothing to do
  size_t out = static_cast<size_t>(first - text.data());
  for (size_t i = out; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\r') {
      text[out++] = '\n';
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      text[out++] = c;
    }
  }
  text.resize(out);
}

std::string normaliseNewlines(std::string_view text) {
  if (text.find('\r') == std::string_view::npos) return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\r') {
      out.push_back('\n');
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

size_t findInvalidUtf8(std::string_view text) {
  size_t i = 0;
  const size_t n = text.size();
  const char* p = text.data();
  while (i < n) {
    // ASCII: a block at a time, then byte by byte up to the first other one
    while (i + kStep <= n && allAscii(p + i)) i += kStep;
    while (i < n && static_cast<unsigned char>(p[i]) < 0x80) ++i;
    if (i == n) break;
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t len;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return i;
    }
    if (i + len > n) return i;
    for (size_t k = 1; k < len; ++k) {
      unsigned char cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // overlong forms, surrogates and values past U+10FFFF are invalid
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return i;
    i += len;
  }
  return std::string_view::npos;
}

char32_t nextCodePoint(std::string_view s, size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
  if (i + len > s.size()) len = 1;
  char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += len;
  return cp;
}

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

size_t codePointCount(std::string_view text) {
  // every byte but the continuation bytes (10xxxxxx) starts a code point; 8 bytes at a time
  const char* p = text.data();
  size_t n = text.size();
  size_t continuations = 0;
  size_t i = 0;
  for (uint64_t w; i + 8 <= n; i += 8) {
    std::memcpy(&w, p + i, 8);
    continuations += static_cast<size_t>(std::popcount(w & ~(w << 1) & 0x8080808080808080ull));
  }
  for (; i < n; ++i) continuations += (static_cast<unsigned char>(p[i]) & 0xC0) == 0x80;
  return n - continuations;
}

}  // namespace inmanta::compiler
