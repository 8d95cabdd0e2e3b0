#include "compiler/parse/fast_parser.h"

#include <sys/mman.h>

#include <array>
#include <atomic>
#include <bit>
#include <cstring>
#include <string>
#include <system_error>
#include <thread>

#include "compiler/parse/tokens.h"

namespace inmanta::compiler {

namespace {

using namespace tok;

// ------------------------------------------------------------------ the lexer
// One pass over the bytes, dispatching on a class table. The text ends with the '\n' parseFile
// appends, so every scan that stops at a newline (names, numbers, blanks, string bodies) needs no
// bound check, and looking one byte past anything but a newline stays inside the text.

static_assert(std::endian::native == std::endian::little, "keyword() compares little-endian words");

// The byte classes the lexer dispatches on: one per byte that starts a token of its own.
enum CharClass : uint8_t {
  kOther,    // gives up (ERRCHAR, '\r', non-ASCII outside strings, ...)
  kBlank,    // ' ', '\t'
  kNewline,  // '\n'
  kHash,     // '#': a comment
  kLower,    // a-z, '_': a name or a keyword
  kUpper,    // A-Z: a class name
  kDigit,
  kMinus,
  kDot,
  kQuote,  // '"', '\''
  kLess,
  kGreater,
  kEquals,
  kBang,
  kPlus,
  kStar,
  kColon,
  kSlash,
  kPercent,
  kQMark,
  kComma,
  kLParen,
  kRParen,
  kLBrack,
  kRBrack,
  kLBrace,
  kRBrace,
};

constexpr std::array<uint8_t, 256> kClass = [] {
  std::array<uint8_t, 256> t{};
  t[' '] = t['\t'] = kBlank;
  t['\n'] = kNewline;
  t['#'] = kHash;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kLower;
  t['_'] = kLower;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kUpper;
  for (int c = '0'; c <= '9'; ++c) t[c] = kDigit;
  t['-'] = kMinus;
  t['.'] = kDot;
  t['"'] = t['\''] = kQuote;
  t['<'] = kLess;
  t['>'] = kGreater;
  t['='] = kEquals;
  t['!'] = kBang;
  t['+'] = kPlus;
  t['*'] = kStar;
  t[':'] = kColon;
  t['/'] = kSlash;
  t['%'] = kPercent;
  t['?'] = kQMark;
  t[','] = kComma;
  t['('] = kLParen;
  t[')'] = kRParen;
  t['['] = kLBrack;
  t[']'] = kRBrack;
  t['{'] = kLBrace;
  t['}'] = kRBrace;
  return t;
}();

// [A-Za-z0-9_-]: the characters after the first of a name
constexpr std::array<bool, 256> kIdChar = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  return t;
}();

// The bytes a string or regex body takes without a second look: all but the quotes, '/', '\\',
// '\n' and the non-ASCII bytes (whose continuation bytes the column count needs).
constexpr std::array<bool, 256> kPlainBody = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x80; ++c) t[c] = c != '"' && c != '\'' && c != '/' && c != '\\' && c != '\n';
  return t;
}();

constexpr bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }
constexpr bool isContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }
// the white space the REGEX rule allows between `matching` and `/`
constexpr bool isRegexSpace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || (c >= 0x1C && c <= 0x1F);
}

// Up to 8 bytes of a name as a little-endian word, for a keyword compared in one go.
constexpr uint64_t word(std::string_view w) {
  uint64_t v = 0;
  for (size_t k = 0; k < w.size(); ++k) v |= static_cast<uint64_t>(static_cast<unsigned char>(w[k])) << (8 * k);
  return v;
}
template <size_t N>
uint64_t load(const char* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, N);
  return v;
}

// The keyword a name starting with a lower-case letter or '_' spells, or ID.
uint8_t keyword(const char* p, size_t n) {
  switch (n) {
    case 2:
      switch (load<2>(p)) {
        case word("as"): return AS;
        case word("in"): return IN;
        case word("or"): return OR;
        case word("is"): return IS;
        case word("if"): return IF;
        default: return ID;
      }
    case 3:
      switch (load<3>(p)) {
        case word("end"): return END;
        case word("for"): return FOR;
        case word("and"): return AND;
        case word("not"): return NOT;
        default: return ID;
      }
    case 4:
      switch (load<4>(p)) {
        case word("when"): return WHEN;
        case word("true"): return KW_TRUE;
        case word("dict"): return DICT;
        case word("null"): return KW_NULL;
        case word("else"): return ELSE;
        case word("elif"): return ELIF;
        default: return ID;
      }
    case 5:
      switch (load<5>(p)) {
        case word("index"): return INDEX;
        case word("using"): return USING;
        case word("false"): return KW_FALSE;
        case word("undef"): return UNDEF;
        default: return ID;
      }
    case 6:
      switch (load<6>(p)) {
        case word("entity"): return ENTITY;
        case word("import"): return IMPORT;
        default: return ID;
      }
    case 7:
      switch (load<7>(p)) {
        case word("typedef"): return TYPEDEF;
        case word("extends"): return EXTENDS;
        case word("defined"): return DEFINED;
        case word("parents"): return PARENTS;
        default: return ID;
      }
    case 8: return load<8>(p) == word("matching") ? MATCHING : ID;
    case 9: return std::memcmp(p, "implement", 9) == 0 ? IMPLEMENT : ID;
    case 14: return std::memcmp(p, "implementation", 14) == 0 ? IMPLEMENTATION : ID;
    default: return ID;
  }
}

// The tokens end with kLookahead EOF tokens: the parser stops at the first, and looks at most
// kLookahead - 1 tokens further.
constexpr size_t kLookahead = 4;

// Where the lexer puts its tokens: a vector, or an array that a parser on another thread reads
// while the lexer fills it (TokenPipe): the count made so far is published every few tokens and
// at the end, with the kLookahead EOF tokens.
class TokenSink {
 public:
  explicit TokenSink(std::vector<FastToken>& tokens) : vector_(&tokens) {}
  TokenSink(FastToken* array, size_t capacity, std::atomic<size_t>& ready)
      : array_(array), capacity_(capacity), ready_(&ready) {}
  void reserve(size_t n) {
    if (vector_ != nullptr) vector_->reserve(n);
  }
  // false: the array is full (it is made for every token a text can have: cannot happen)
  bool push(const FastToken& token) {
    if (vector_ != nullptr) {
      vector_->push_back(token);
      return true;
    }
    if (count_ == capacity_) return false;
    array_[count_++] = token;
    if ((count_ & 63) == 0) ready_->store(count_, std::memory_order_release);
    return true;
  }
  // the last token, repeated to the lookahead's length (the array's; a vector's caller adds them)
  bool finish(const FastToken& eof) {
    if (vector_ != nullptr) return push(eof);
    for (size_t k = 0; k < kLookahead; ++k)
      if (!push(eof)) return false;
    ready_->store(count_, std::memory_order_release);
    return true;
  }

 private:
  std::vector<FastToken>* vector_ = nullptr;
  FastToken* array_ = nullptr;
  size_t capacity_ = 0;
  size_t count_ = 0;
  std::atomic<size_t>* ready_ = nullptr;
};

class Lexer {
 public:
  Lexer(std::string_view text, FileId file, TokenSink out, std::vector<Diagnostic>& warnings)
      : s_(reinterpret_cast<const unsigned char*>(text.data())),
        n_(text.size()),
        file_(file),
        out_(out),
        warnings_(warnings) {}

  bool run() {
    if (n_ == 0 || s_[n_ - 1] != '\n') return false;  // not as parseFile passes it
    out_.reserve(n_ / 4 + 16);
    const unsigned char* s = s_;
    size_t i = 0;
    for (;;) {
      unsigned char c = s[i];
      size_t start = i;
      uint8_t kind;
      bool check = false;  // the token needs checkToken
      uint32_t line = line_;
      uint32_t col = column(start);
      switch (kClass[c]) {
        case kBlank:
          do c = s[++i];
          while (c == ' ' || c == '\t');
          continue;
        case kHash:
          i = static_cast<size_t>(static_cast<const unsigned char*>(std::memchr(s + i, '\n', n_ - i)) - s);
          [[fallthrough]];
        case kNewline:
          newline(++i);
          if (i == n_) return finish();
          continue;
        case kLower: {
          size_t j = i + 1;
          while (kIdChar[s[j]]) ++j;
          if (j - i == 1 && (c == 'f' || c == 'r') && (s[j] == '"' || s[j] == '\'')) {
            if (!quoted(j)) return false;
            kind = c == 'f' ? FSTRING : RSTRING;
            check = c == 'f' && escapes_;
            i = end_;
            break;
          }
          kind = keyword(reinterpret_cast<const char*>(s + i), j - i);
          if (kind == MATCHING && regex(j)) {
            kind = REGEX;
            check = true;
            i = end_;
          } else {
            i = j;
          }
          break;
        }
        case kUpper: {
          size_t j = i + 1;
          while (kIdChar[s[j]]) ++j;
          kind = CID;
          i = j;
          break;
        }
        case kDigit:
          kind = number(i, i);
          check = kind == INT && i - start > 18;  // 18 digits fit in an int64_t
          break;
        case kMinus:
          if (isDigit(s[i + 1]) || (s[i + 1] == '.' && isDigit(s[i + 2]))) {
            kind = number(i + 1, i);
            check = kind == INT && i - start > 18;
          } else if (s[i + 1] == '-' || s[i + 1] == '>') {
            kind = REL;
            i += 2;
          } else {
            kind = MINUS_OP;
            ++i;
          }
          break;
        case kDot:
          if (isDigit(s[i + 1])) {
            kind = number(i, i);
          } else {
            kind = DOT;
            ++i;
          }
          break;
        case kQuote:
          if (c == '"' && s[i + 1] == '"' && s[i + 2] == '"') {
            if (!mls(i)) return false;
            kind = MLS;
          } else {
            if (!quoted(i)) return false;
            kind = STRING;
          }
          check = escapes_;
          i = end_;
          break;
        case kLess:
          if (s[i + 1] == '=') kind = CMP_OP, i += 2;
          else if (s[i + 1] == '-') kind = REL, i += 2;
          else kind = CMP_OP, ++i;
          break;
        case kGreater:
          kind = CMP_OP;
          i += s[i + 1] == '=' ? 2 : 1;
          break;
        case kEquals:
          if (s[i + 1] == '=') kind = CMP_OP, i += 2;
          else kind = ASSIGN, ++i;
          break;
        case kBang:
          if (s[i + 1] != '=') return false;
          kind = CMP_OP, i += 2;
          break;
        case kPlus:
          if (s[i + 1] == '=') kind = PEQ, i += 2;
          else kind = PLUS_OP, ++i;
          break;
        case kStar:
          if (s[i + 1] == '*') kind = DOUBLE_STAR, i += 2;
          else kind = STAR, ++i;
          break;
        case kColon:
          if (s[i + 1] == ':') kind = SEP, i += 2;
          else kind = COLON, ++i;
          break;
        case kSlash: kind = DIVISION_OP, ++i; break;
        case kPercent: kind = PERCENT, ++i; break;
        case kQMark: kind = QMARK, ++i; break;
        case kComma: kind = COMMA, ++i; break;
        case kLParen: kind = LPAREN, ++i; break;
        case kRParen: kind = RPAREN, ++i; break;
        case kLBrack: kind = LBRACK, ++i; break;
        case kRBrack: kind = RBRACK, ++i; break;
        case kLBrace: kind = LBRACE, ++i; break;
        case kRBrace: kind = RBRACE, ++i; break;
        default: return false;  // ERRCHAR, '\r', '\f', non-ASCII...: the ANTLR path reports it
      }
      if (check) {
        TokenCheck result = checkToken(kind, std::string_view(reinterpret_cast<const char*>(s + start), i - start));
        if (result.error) return false;
        if (result.warning)
          warnings_.emplace_back(ErrorKind::ParserException, *result.warning, SourceLocation{file_, line, 0}, false);
      }
      if (!out_.push({static_cast<uint8_t>(retyper_.retype(kind)), static_cast<uint32_t>(start),
                      static_cast<uint32_t>(i), line, col}))
        return false;
    }
  }

 private:
  bool finish() { return out_.finish({kEOF, static_cast<uint32_t>(n_), static_cast<uint32_t>(n_), line_, column(n_)}); }

  // Columns count code points from the start of the line of the last newline that moved the
  // column mark; a newline inside an MLS does not move it (spec 1.11, ColumnMap in parser.cpp).
  // Non-ASCII bytes only occur inside string, MLS and regex bodies (anywhere else the lexer gives
  // up), whose scans count the UTF-8 continuation bytes since the mark.
  uint32_t column(size_t pos) const { return static_cast<uint32_t>(pos - base_ - continuations_ + 1); }
  void newline(size_t after) {
    ++line_;
    base_ = after;
    continuations_ = 0;
  }

  // Scans a body from `k` up to the unescaped `stop` character: a backslash takes the next
  // character with it, a newline ends the scan. The position of `stop`, or npos. Sets escapes_;
  // adds the body's continuation bytes to `continuations`.
  size_t body(size_t k, unsigned char stop, size_t& continuations) {
    const unsigned char* s = s_;
    bool escapes = false;
    for (;;) {
      while (kPlainBody[s[k]]) ++k;
      unsigned char ch = s[k];
      if (ch == stop) {
        escapes_ = escapes;
        return k;
      }
      if (ch == '\n') return std::string_view::npos;
      if (ch == '\\') {
        unsigned char next = s[k + 1];
        if (next == '\n') return std::string_view::npos;
        continuations += isContinuation(next);
        escapes = true;
        k += 2;
      } else {
        continuations += isContinuation(ch);
        ++k;
      }
    }
  }

  // A string delimited by the quote at `q`. Sets end_ past the closing quote.
  bool quoted(size_t q) {
    size_t close = body(q + 1, s_[q], continuations_);
    if (close == std::string_view::npos) return false;
    end_ = close + 1;
    return true;
  }

  // A number from `from` (past a leading '-'): digits, then '.' and digits for a FLOAT. Sets
  // `end` past it.
  uint8_t number(size_t from, size_t& end) {
    const unsigned char* s = s_;
    size_t j = from;
    while (isDigit(s[j])) ++j;
    uint8_t kind = INT;
    if (s[j] == '.' && isDigit(s[j + 1])) {
      j += 2;
      while (isDigit(s[j])) ++j;
      kind = FLOAT;
    }
    end = j;
    return kind;
  }

  // `"""...."""`, as ANTLR's longest match of the MLS rule: an opening run of q quotes (3 to 5,
  // plus up to 2 that start the body, so q <= 7), a body without three quotes in a row, and the
  // first run of three or more quotes after it, of which up to 5 close. Bodiless runs and
  // unterminated strings are left to the ANTLR path. Sets end_ and escapes_.
  bool mls(size_t start) {
    size_t q = 0;
    while (start + q < n_ && s_[start + q] == '"') ++q;
    if (q > 7 || start + q >= n_) return false;
    size_t k = start + q;
    uint32_t lines = 0;
    size_t continuations = 0;
    bool escapes = false;
    while (k + 2 < n_) {
      unsigned char ch = s_[k];
      if (ch == '"' && s_[k + 1] == '"' && s_[k + 2] == '"') {
        size_t run = 3;
        while (k + run < n_ && s_[k + run] == '"') ++run;
        end_ = k + (run < 5 ? run : 5);
        line_ += lines;
        continuations_ += continuations;
        escapes_ = escapes;
        return true;
      }
      if (ch == '\n') ++lines;
      else if (ch == '\\') escapes = true;
      else continuations += isContinuation(ch);
      ++k;
    }
    return false;
  }

  // After `matching`: white space from `j`, then /body/. Sets end_. False: `matching` is a
  // keyword. As the reference's lexer, newlines in the white space move neither the line count
  // nor the column mark: the lines after such a regex are numbered one less per newline.
  bool regex(size_t j) {
    size_t k = j;
    while (k < n_ && isRegexSpace(s_[k])) ++k;
    if (k == j || k >= n_ || s_[k] != '/') return false;
    size_t continuations = 0;
    size_t close = body(k + 1, '/', continuations);
    if (close == std::string_view::npos || close == k + 1) return false;
    continuations_ += continuations;
    end_ = close + 1;
    return true;
  }

  const unsigned char* s_;
  size_t n_;
  FileId file_;
  TokenSink out_;
  std::vector<Diagnostic>& warnings_;
  Retyper retyper_;
  uint32_t line_ = 1;
  size_t base_ = 0;           // where the column count starts
  size_t continuations_ = 0;  // UTF-8 continuation bytes between base_ and the scan
  size_t end_ = 0;            // past the string, MLS or regex just scanned
  bool escapes_ = false;      // whether it has a backslash
};

// ------------------------------------------------------------------ the parser

struct GiveUp {};

constexpr int kMaxDepth = 200;
// Operators chained in one expression, `elif`s in one `if` and attributes in one `a.b.c` make
// trees as deep as they are long, which the compile walks recursively: past this many (with
// the nesting around them), the ANTLR parser's check reports it (checkNesting).
constexpr int kMaxChain = 1000;

// The tokens of a large file while a lexer on another thread makes them: the parser reads the
// ones it has published, and waits for the next ones.
class TokenPipe {
 public:
  // (what the lexer made; once it is done, whether it succeeded)
  std::atomic<size_t> ready{0};
  std::atomic<int> state{kLexing};
  static constexpr int kLexing = 0, kDone = 1, kFailed = 2;
  // Waits until token `i` is made; false when the lexer gave up or ended before it.
  bool wait(size_t i, size_t& seen) const {
    for (unsigned spins = 0;; ++spins) {
      int st = state.load(std::memory_order_acquire);  // (before the count: a final count is read whole)
      seen = ready.load(std::memory_order_acquire);
      if (i < seen) return true;
      if (st != kLexing) return false;
      if (spins < 4096) pause();
      else std::this_thread::yield();
    }
  }

 private:
  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
};

class Parser {
 public:
  // `tokens`: all of them, or (with `pipe`) as many as the pipe says are ready
  Parser(AstFactory& f, std::string_view text, const FastToken* tokens, const TokenPipe* pipe, size_t ready)
      : f_(f), text_(text), t_(tokens), pipe_(pipe), seen_(ready) {}

  ast::File* file() {
    auto* result = f_.make<ast::File>();
    result->id = f_.file();
    if (kind() == MLS) result->doc = f_.mlsValue(text(p_++));
    size_t mark = stmts_.size();
    while (kind() != kEOF) stmts_.push_back(topStatement());
    take(stmts_, mark, result->statements);
    return result;
  }

 private:
  // ---------------------------------------------------------------- tokens
  // The tokens end with kLookahead EOF tokens: the parser stops at the first, and looks at most
  // kLookahead - 1 tokens further. Every read goes through tok(): the token is there, or (its
  // lexer on another thread) waited for.
  const FastToken& tok(size_t i) const {
    if (i >= seen_ && (pipe_ == nullptr || !pipe_->wait(i, seen_))) throw GiveUp{};
    return t_[i];
  }
  uint32_t kind(size_t ahead = 0) const { return tok(p_ + ahead).kind; }
  std::string_view text(size_t i) const {
    const FastToken& t = tok(i);
    return std::string_view(text_.data() + t.begin, t.end - t.begin);
  }
  SourceLocation at(size_t i) const {
    const FastToken& t = tok(i);
    return SourceLocation{f_.file(), t.line, t.col};
  }
  size_t expect(uint8_t k) {
    if (tok(p_).kind != k) throw GiveUp{};
    return p_++;
  }
  bool accept(uint8_t k) {
    if (tok(p_).kind != k) return false;
    ++p_;
    return true;
  }
  // names are ASCII: the lexer takes no other characters in them
  ast::Name name(size_t i) { return f_.asciiName(text(i), at(i)); }
  // A name of several tokens (`a::b`), spelled as ANTLR's getText() joins them: the source text
  // itself when nothing stands between the tokens.
  ast::Name joined(size_t first, size_t last) {
    if (first == last) return name(first);
    bool contiguous = true;
    for (size_t i = first; i < last; ++i) contiguous = contiguous && tok(i).end == tok(i + 1).begin;
    if (contiguous)
      return f_.asciiName(std::string_view(text_.data() + tok(first).begin, tok(last).end - tok(first).begin),
                          at(first));
    std::string spelled;
    for (size_t i = first; i <= last; ++i) spelled += text(i);
    return f_.asciiName(spelled, at(first));
  }

  // Lists of the tree are gathered on a stack of scratch entries (nested lists above the outer
  // one's) and copied out once complete: one allocation of the final size per list.
  template <class T>
  static void take(std::vector<T>& scratch, size_t mark, std::vector<T>& out) {
    out.insert(out.end(), scratch.begin() + static_cast<std::ptrdiff_t>(mark), scratch.end());
    scratch.resize(mark);
  }
  // The same into the tree's arena.
  template <class T>
  ast::Span<T> takeSpan(std::vector<T>& scratch, size_t mark) {
    ast::Span<T> out = f_.ctx().span(scratch.data() + mark, scratch.size() - mark);
    scratch.resize(mark);
    return out;
  }

  struct Depth {
    explicit Depth(int& d) : depth(d) {
      if (++depth > kMaxDepth) throw GiveUp{};
    }
    ~Depth() { --depth; }
    int& depth;
  };
  // The links of the chains being parsed (operators, `elif`s, attributes), given back when the
  // chain's node is made.
  struct Chain {
    explicit Chain(Parser& p) : parser(p) {}
    void add(size_t n = 1) {
      links += n;
      parser.chain_ += n;
      if (parser.chain_ + static_cast<size_t>(parser.depth_) > static_cast<size_t>(kMaxChain)) throw GiveUp{};
    }
    ~Chain() { parser.chain_ -= links; }
    Parser& parser;
    size_t links = 0;
  };

  // ---------------------------------------------------------------- names

  // ID (SEP ID)*: returns the index of its last token.
  size_t nsRefEnd() {
    expect(ID);
    while (kind() == SEP && kind(1) == ID) p_ += 2;
    return p_ - 1;
  }

  // A class reference `(ID SEP)* CID`.
  ast::Name classRef() {
    size_t first = p_;
    while (kind() == ID && kind(1) == SEP) p_ += 2;
    size_t last = expect(CID);
    return joined(first, last);
  }

  // ---------------------------------------------------------------- statements

  ast::Stmt* topStatement() {
    switch (kind()) {
      case ENTITY: return entity();
      case IMPLEMENT: return implement();
      case IMPLEMENTATION: return implementation();
      case TYPEDEF: return typedefDef();
      case INDEX: return indexDef();
      case IMPORT: return importDef();
      case ID:
      case CID: {
        size_t i = 0;
        while (kind(i) == ID && kind(i + 1) == SEP) i += 2;
        if (kind(i) == CID && kind(i + 1) == DOT) return relation();
        break;
      }
      default: break;
    }
    return statement();
  }

  ast::Stmt* statement() {
    Depth guard(depth_);
    switch (kind()) {
      case FOR: return forStmt();
      case IF: return ifStmt();
      case ID: {
        size_t i = 1;
        while (kind(i) == SEP && kind(i + 1) == ID) i += 2;
        while (kind(i) == DOT && kind(i + 1) == ID) i += 2;
        if (kind(i) == ASSIGN || kind(i) == PEQ) return assignment();
        break;
      }
      default: break;
    }
    return f_.make<ast::ExprStmt>(expression(0));
  }

  void block(ast::Block& out) {
    size_t mark = stmts_.size();
    while (kind() != END && kind() != ELIF && kind() != ELSE) {
      if (kind() == kEOF) throw GiveUp{};
      ast::Stmt* stmt = statement();
      stmts_.push_back(stmt);
    }
    take(stmts_, mark, out);
  }

  ast::Stmt* assignment() {
    size_t first = p_;
    size_t last = nsRefEnd();
    ast::Expr* target = f_.make<ast::VarRef>(joined(first, last));
    bool plain = kind() != DOT;
    while (kind() == DOT) {
      size_t dot = p_++;
      size_t id = expect(ID);
      target = f_.make<ast::AttrRef>(at(dot), target, name(id));
    }
    size_t op = p_++;
    bool listOnly = tok(op).kind == PEQ;
    if (plain && listOnly) throw GiveUp{};
    ast::Expr* value = expression(0);
    if (plain) f_.checkHyphen(static_cast<ast::VarRef*>(target)->name());
    return f_.make<ast::Assign>(at(op), target, value, listOnly);
  }

  ast::Stmt* forStmt() {
    size_t start = expect(FOR);
    ast::Name var = name(expect(ID));
    expect(IN);
    auto* result = f_.make<ast::For>(at(start), var, expression(0));
    expect(COLON);
    block(result->body);
    expect(END);
    return result;
  }

  ast::Stmt* ifStmt() {
    size_t start = expect(IF);
    auto* result = f_.make<ast::If>(at(start), expression(0));
    expect(COLON);
    block(result->thenBlock);
    ast::If* tail = result;
    Chain elifs(*this);
    while (kind() == ELIF) {
      elifs.add();
      size_t elif = p_++;
      auto* nested = f_.make<ast::If>(at(elif), expression(0));
      expect(COLON);
      block(nested->thenBlock);
      tail->elseBlock.push_back(nested);
      tail = nested;
    }
    if (accept(ELSE)) {
      expect(COLON);
      block(tail->elseBlock);
    }
    expect(END);
    return result;
  }

  // ---------------------------------------------------------------- definitions

  ast::Stmt* importDef() {
    size_t start = expect(IMPORT);
    size_t first = p_;
    ast::Name module = joined(first, nsRefEnd());
    f_.checkModuleName(module);
    ast::Name alias = module;
    if (accept(AS)) alias = name(expect(ID));
    f_.checkHyphen(alias);
    return f_.make<ast::Import>(at(start), module, alias);
  }

  ast::Stmt* entity() {
    size_t start = expect(ENTITY);
    ast::Name n = name(expect(CID));
    std::vector<ast::Name> parents;
    if (accept(EXTENDS)) {
      parents.push_back(classRef());
      while (accept(COMMA)) parents.push_back(classRef());
    }
    expect(COLON);
    std::string doc;
    if (kind() == MLS) doc = f_.mlsValue(text(p_++));
    std::vector<ast::Attribute> attributes;
    while (kind() != END) attributes.push_back(attribute());
    ++p_;
    f_.checkHyphen(n);
    auto* result = f_.make<ast::Entity>(at(start), n);
    result->parents = std::move(parents);
    result->attributes = std::move(attributes);
    result->doc = std::move(doc);
    return result;
  }

  ast::Attribute attribute() {
    ast::Attribute result;
    if (kind() == DICT) {
      size_t dict = p_++;
      result.type.nullable = accept(QMARK);
      result.name = name(expect(ID));
      result.type.base = f_.asciiName("dict", at(dict));
      result.type.isDict = true;
      if (accept(ASSIGN)) {
        if (kind() == LBRACE) {
          result.defaultValue = mapLiteral();
        } else {
          size_t null = expect(KW_NULL);
          if (!result.type.nullable) throw GiveUp{};
          result.defaultValue = f_.make<ast::Literal>(at(null), runtime::Value());
        }
      }
    } else {
      size_t first = p_;
      result.type.base = joined(first, nsRefEnd());
      if (kind() == LBRACK || kind() == LOOKUP_BRACK) {
        ++p_;
        expect(RBRACK);
        result.type.multi = true;
      }
      result.type.nullable = accept(QMARK);
      result.name = name(expect(ID));
      if (accept(ASSIGN)) {
        if (kind() == LBRACK) {
          size_t open = p_++;
          auto* list = f_.make<ast::ListLit>(at(open));
          size_t mark = exprs_.size();
          if (kind() != RBRACK) {
            exprs_.push_back(constant());
            while (accept(COMMA) && kind() != RBRACK) exprs_.push_back(constant());
          }
          list->elements = takeSpan(exprs_, mark);
          expect(RBRACK);
          result.defaultValue = list;
        } else if (!accept(UNDEF)) {
          result.defaultValue = constant();
        }
      }
    }
    result.removeDefault = result.defaultValue == nullptr;
    f_.checkHyphen(result.name);
    return result;
  }

  ast::Stmt* implementation() {
    expect(IMPLEMENTATION);
    size_t nameTok = expect(ID);
    expect(FOR);
    ast::Name entityName = classRef();
    expect(COLON);
    auto* result = f_.make<ast::Implementation>(at(nameTok), name(nameTok), entityName);
    if (kind() == MLS) result->doc = f_.mlsValue(text(p_++));
    block(result->body);
    expect(END);
    f_.checkHyphen(result->name);
    return result;
  }

  ast::Stmt* implement() {
    expect(IMPLEMENT);
    ast::Name entityName = classRef();
    expect(USING);
    auto* result = f_.make<ast::Implement>(entityName.loc, entityName);
    do {
      if (accept(PARENTS)) {
        result->inheritParents = true;
      } else {
        size_t first = p_;
        result->implementations.push_back(joined(first, nsRefEnd()));
      }
    } while (accept(COMMA));
    if (accept(WHEN)) result->when = expression(0);
    f_.checkImplementCondition(result);
    if (kind() == MLS) result->doc = f_.mlsValue(text(p_++));
    return result;
  }

  ast::Multiplicity multiplicity() {
    if (kind() != LBRACK && kind() != LOOKUP_BRACK) throw GiveUp{};
    ++p_;
    std::string_view lower, upper;
    bool colon = false;
    if (kind() == INT) lower = text(p_++);
    if (accept(COLON)) {
      colon = true;
      if (kind() == INT) upper = text(p_++);
    }
    if (lower.empty() && upper.empty()) throw GiveUp{};
    expect(RBRACK);
    return AstFactory::multiplicity(lower, colon, upper);
  }

  ast::Stmt* relation() {
    ast::Name left = classRef();
    size_t dot = expect(DOT);
    auto* result = f_.make<ast::Relation>(at(dot));
    result->left = left;
    result->leftAttr = name(expect(ID));
    result->leftMult = multiplicity();
    if (!accept(REL)) {
      result->annotations.push_back(expression(0));
      while (accept(COMMA)) result->annotations.push_back(expression(0));
    }
    result->right = classRef();
    if (accept(DOT)) {
      result->rightAttr = name(expect(ID));
      result->rightMult = multiplicity();
      f_.checkHyphen(result->rightAttr);
    }
    f_.checkHyphen(result->leftAttr);
    if (kind() == MLS) result->doc = f_.mlsValue(text(p_++));
    return result;
  }

  ast::Stmt* typedefDef() {
    expect(TYPEDEF);
    ast::Name n = name(expect(ID));
    expect(AS);
    size_t first = p_;
    ast::Name base = joined(first, nsRefEnd());
    ast::Expr* constraint;
    if (kind() == REGEX) {
      constraint = f_.regex(text(p_), at(p_));
      ++p_;
    } else {
      expect(MATCHING);
      constraint = expression(0);
    }
    auto* result = static_cast<ast::Typedef*>(f_.typedefStatement(n, base, constraint));
    if (kind() == MLS) result->doc = f_.mlsValue(text(p_++));
    return result;
  }

  ast::Stmt* indexDef() {
    size_t start = expect(INDEX);
    auto* result = f_.make<ast::Index>(at(start), classRef());
    expect(LPAREN);
    result->attributes.push_back(name(expect(ID)));
    while (accept(COMMA)) result->attributes.push_back(name(expect(ID)));
    expect(RPAREN);
    return result;
  }

  // ---------------------------------------------------------------- expressions
  // Precedence climbing over the levels ANTLR gives the left-recursive `expression` rule: an
  // operator of level L continues the expression when L >= the minimum; left-associative
  // operands are parsed at L + 1, `not`'s at its own level, the conditional's last at its own.

  ast::Expr* expression(int minimum) {
    Depth guard(depth_);
    ast::Expr* lhs;
    if (kind() == NOT) {
      size_t op = p_++;
      lhs = f_.make<ast::Not>(at(op), expression(9));
    } else {
      lhs = primary();
    }
    Chain operators(*this);
    for (;;) {
      uint32_t k = kind();
      int level;
      switch (k) {
        case IN:
        case NOT_IN: level = 10; break;
        case DOUBLE_STAR: level = 8; break;
        case STAR:
        case DIVISION_OP:
        case PERCENT: level = 7; break;
        case PLUS_OP:
        case MINUS_OP: level = 6; break;
        case CMP_OP: level = 5; break;
        case AND: level = 4; break;
        case OR: level = 3; break;
        case QMARK: level = 2; break;
        default: return lhs;
      }
      if (level < minimum) return lhs;
      operators.add();
      size_t op = p_++;
      if (k == QMARK) {
        ast::Expr* whenTrue = expression(0);
        expect(COLON);
        ast::Expr* whenFalse = expression(2);
        lhs = f_.make<ast::Conditional>(lhs->loc(), lhs, whenTrue, whenFalse);
      } else if (k == NOT_IN) {
        expect(IN);
        ast::Expr* rhs = expression(11);
        SourceLocation loc = at(op);
        lhs = f_.make<ast::Not>(loc, f_.make<ast::Binary>(loc, ast::BinaryOp::In, lhs, rhs));
      } else {
        ast::Expr* rhs = expression(level + 1);
        ast::BinaryOp bop = k == IN ? ast::BinaryOp::In : AstFactory::binaryOp(k, text(op));
        lhs = f_.make<ast::Binary>(at(op), bop, lhs, rhs);
      }
    }
  }

  ast::Expr* constant() {
    switch (kind()) {
      case INT:
      case FLOAT:
      case KW_TRUE:
      case KW_FALSE:
      case KW_NULL:
      case STRING:
      case RSTRING:
      case FSTRING:
      case MLS:
      case REGEX: {
        size_t i = p_++;
        return f_.constant(tok(i).kind, text(i), at(i));
      }
      default: throw GiveUp{};
    }
  }

  ast::Expr* primary() {
    switch (kind()) {
      case INT:
      case FLOAT:
      case KW_TRUE:
      case KW_FALSE:
      case KW_NULL:
      case STRING:
      case RSTRING:
      case FSTRING:
      case MLS:
      case REGEX: return constant();
      case LPAREN: {
        ++p_;
        ast::Expr* inner = expression(0);
        expect(RPAREN);
        return inner;
      }
      case LBRACK: return listOrComprehension();
      case LBRACE: return mapLiteral();
      case CID: return classExpression();
      case ID: return nameExpression();
      default: throw GiveUp{};
    }
  }

  // A constructor `A(...)` or an index lookup `A[...]`.
  ast::Expr* classExpression() {
    ast::Name type = classRef();
    if (kind() == LPAREN) {
      auto* ctor = f_.make<ast::Constructor>(at(p_), type);
      ++p_;
      if (kind() != RPAREN) ctor->named = kwargs();
      expect(RPAREN);
      f_.checkConstructorArguments(ctor);
      return ctor;
    }
    size_t open = expect(LBRACK);
    auto* lookup = f_.make<ast::IndexLookup>(at(open), type);
    if (kind() != RBRACK) lookup->named = kwargs();
    expect(RBRACK);
    return lookup;
  }

  // Everything that starts with an identifier.
  ast::Expr* nameExpression() {
    size_t first = p_;
    ++p_;
    while (kind() == SEP && (kind(1) == ID || kind(1) == CID)) {
      if (kind(1) == CID) {
        p_ = first;
        return classExpression();
      }
      p_ += 2;
    }
    size_t last = p_ - 1;
    if (kind() == LPAREN) {
      auto* call = f_.make<ast::Call>(at(first), joined(first, last));
      ++p_;
      if (kind() != RPAREN) arguments(*call);
      expect(RPAREN);
      return call;
    }
    if (kind() == IS) {
      if (first != last) throw GiveUp{};
      ++p_;
      expect(DEFINED);
      return f_.make<ast::IsDefined>(at(first), nullptr, name(first));
    }
    // the attribute chain: (DOT ID)*
    size_t chainStart = p_;
    while (kind() == DOT && kind(1) == ID) p_ += 2;
    size_t links = (p_ - chainStart) / 2;
    if (kind() == DOT) throw GiveUp{};  // `a.B`: an error production
    Chain attributes(*this);
    attributes.add(links);
    auto chain = [&](size_t count) {
      ast::Expr* result = f_.make<ast::VarRef>(joined(first, last));
      for (size_t l = 0; l < count; ++l) {
        size_t dot = chainStart + 2 * l;
        result = f_.make<ast::AttrRef>(at(dot), result, name(dot + 1));
      }
      return result;
    };
    switch (kind()) {
      case LPAREN: throw GiveUp{};  // `a.b(...)`: an error production
      case IS: {
        if (links == 0) throw GiveUp{};
        ast::Expr* object = chain(links - 1);
        size_t dot = p_ - 2;
        ++p_;
        expect(DEFINED);
        return f_.make<ast::IsDefined>(at(dot), object, name(dot + 1));
      }
      case LOOKUP_BRACK: {
        uint32_t inside = kind(1);
        if (links > 0 && (inside == RBRACK || inside == DOUBLE_STAR || (inside == ID && kind(2) == ASSIGN))) {
          ast::Expr* object = chain(links - 1);
          size_t relation = p_ - 1;
          auto* lookup = f_.make<ast::ShortIndexLookup>(at(p_), object, name(relation));
          ++p_;
          if (kind() != RBRACK) lookup->named = kwargs();
          expect(RBRACK);
          return lookup;
        }
        ast::Expr* result = chain(links);
        ast::Expr* innerMap = result;
        ast::Expr* lastKey = nullptr;
        while (kind() == LOOKUP_BRACK) {
          size_t open = p_++;
          innerMap = result;
          lastKey = expression(0);
          expect(RBRACK);
          result = f_.make<ast::MapLookup>(at(open), result, lastKey);
        }
        if (kind() != IS) return result;
        size_t is = p_++;
        expect(DEFINED);
        return f_.lookupIsDefined(result, innerMap, lastKey, at(is));
      }
      default: return chain(links);
    }
  }

  ast::Expr* listOrComprehension() {
    size_t open = expect(LBRACK);
    if (accept(RBRACK)) return f_.make<ast::ListLit>(at(open));
    ast::Expr* first = expression(0);
    if (kind() == FOR) {
      std::vector<AstFactory::ComprehensionLoop> loops;
      while (accept(FOR)) {
        ast::Name var = name(expect(ID));
        expect(IN);
        loops.push_back({var, expression(0)});
      }
      std::vector<AstFactory::ComprehensionGuard> guards;
      while (kind() == IF) {
        size_t ifTok = p_++;
        guards.push_back({expression(0), at(ifTok)});
      }
      expect(RBRACK);
      return f_.listComprehension(at(open), first, loops, guards);
    }
    auto* list = f_.make<ast::ListLit>(at(open));
    size_t mark = exprs_.size();
    exprs_.push_back(first);
    while (accept(COMMA) && kind() != RBRACK) {
      ast::Expr* element = expression(0);
      exprs_.push_back(element);
    }
    expect(RBRACK);
    list->elements = takeSpan(exprs_, mark);
    return list;
  }

  ast::Expr* mapLiteral() {
    size_t open = expect(LBRACE);
    auto* dict = f_.make<ast::DictLit>(at(open));
    std::unordered_map<std::string, size_t> seen;  // for long literals; short ones are scanned
    constexpr size_t kScanned = 16;
    AstFactory::DictEntries entries;
    while (kind() != RBRACE) {
      if (kind() != STRING && kind() != RSTRING) throw GiveUp{};
      size_t key = p_++;
      std::string decoded = f_.dictKey(tok(key).kind, text(key), at(key));
      expect(COLON);
      ast::Expr* value = expression(0);
      if (entries.size() < kScanned) {
        // a duplicate key is an error: the ANTLR path reports it
        for (const auto& entry : entries)
          if (entry.first == decoded) throw GiveUp{};
        entries.emplace_back(std::move(decoded), value);
      } else {
        if (seen.empty())
          for (size_t k = 0; k < entries.size(); ++k) seen.emplace(entries[k].first, k);
        f_.dictEntry(entries, std::move(decoded), value, seen);
      }
      if (!accept(COMMA)) break;
    }
    expect(RBRACE);
    f_.setEntries(*dict, entries);
    return dict;
  }

  void arguments(ast::Call& call) {
    // (calls are few: their own lists, not the shared scratch ones)
    std::vector<ast::KwArg> kwargs;
    std::vector<ast::Expr*> wrapped;
    std::vector<ast::Expr*> args;
    do {
      if (kind() == RPAREN) break;  // trailing comma
      if (kind() == ID && kind(1) == ASSIGN) {
        ast::Name n = name(p_);
        p_ += 2;
        f_.checkKeywordArgument(call, kwargs, n);
        kwargs.push_back({n, expression(0)});
      } else if (accept(DOUBLE_STAR)) {
        wrapped.push_back(expression(0));
      } else {
        args.push_back(expression(0));
      }
    } while (accept(COMMA));
    call.named.kwargs = f_.ctx().span(kwargs);
    call.named.wrapped = f_.ctx().span(wrapped);
    call.args = f_.ctx().span(args);
  }

  ast::Arguments kwargs() {
    size_t mark = kwargs_.size();
    size_t wrappedMark = wrapped_.size();
    do {
      if (kind() == RPAREN || kind() == RBRACK) break;  // trailing comma
      if (accept(DOUBLE_STAR)) {
        ast::Expr* value = expression(0);
        wrapped_.push_back(value);
      } else {
        ast::Name n = name(expect(ID));
        expect(ASSIGN);
        ast::Expr* value = expression(0);
        kwargs_.push_back({n, value});
      }
    } while (accept(COMMA));
    return ast::Arguments{takeSpan(kwargs_, mark), takeSpan(wrapped_, wrappedMark)};
  }

  AstFactory& f_;
  std::string_view text_;
  const FastToken* t_;
  const TokenPipe* pipe_;  // null: every token is there
  mutable size_t seen_;    // the tokens known to be there
  size_t p_ = 0;
  int depth_ = 0;
  size_t chain_ = 0;  // (Chain)
  std::vector<ast::Stmt*> stmts_;
  std::vector<ast::Expr*> exprs_;
  std::vector<ast::KwArg> kwargs_;
  std::vector<ast::Expr*> wrapped_;
};

// The memory of a large file's tokens, one slot per byte of text at most (a token takes one
// byte at least) plus the EOF tokens: reserved, not committed (only what the lexer writes takes
// memory), and unmapped when done. Empty when the system refuses the mapping.
class TokenArray {
 public:
  explicit TokenArray(size_t capacity) : capacity_(capacity), bytes_(capacity * sizeof(FastToken)) {
    void* at = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (at != MAP_FAILED) data_ = static_cast<FastToken*>(at);
  }
  ~TokenArray() {
    if (data_ != nullptr) munmap(data_, bytes_);
  }
  TokenArray(const TokenArray&) = delete;
  TokenArray& operator=(const TokenArray&) = delete;
  FastToken* data() const { return data_; }
  size_t capacity() const { return capacity_; }

 private:
  FastToken* data_ = nullptr;
  size_t capacity_;
  size_t bytes_;
};

// From this size on, a file is lexed on a thread of its own while it is parsed.
constexpr size_t kPipelinedFrom = 256 * 1024;

ast::File* parseTokens(AstFactory& factory, std::string_view text, const FastToken* tokens, const TokenPipe* pipe,
                       size_t ready) {
  try {
    return Parser(factory, text, tokens, pipe, ready).file();
  } catch (const GiveUp&) {
    return nullptr;
  } catch (const CompileError&) {
    return nullptr;  // a parse-time check failed: the ANTLR path reports it in the reference's order
  }
}

// A large file: its lexer runs on another thread, a token or so ahead of the parser.
ast::File* pipelinedParse(AstFactory& factory, std::string_view text, std::vector<Diagnostic>& warnings,
                          bool& attempted) {
  TokenArray tokens(text.size() + kLookahead + 1);
  attempted = tokens.data() != nullptr;
  if (!attempted) return nullptr;
  TokenPipe pipe;
  std::vector<Diagnostic> lexWarnings;  // (the lexer's own: the parser's go to `warnings` meanwhile)
  // joined however the parse ends (the parser may give up, or throw, before the lexer is done)
  struct Joined {
    std::thread thread;
    ~Joined() {
      if (thread.joinable()) thread.join();
    }
  } lexer;
  try {
    lexer.thread = std::thread([&] {
      bool ok = false;
      try {
        ok = Lexer(text, factory.file(), TokenSink(tokens.data(), tokens.capacity(), pipe.ready), lexWarnings).run();
      } catch (...) {
        ok = false;
      }
      pipe.state.store(ok ? TokenPipe::kDone : TokenPipe::kFailed, std::memory_order_release);
    });
  } catch (const std::system_error&) {
    attempted = false;  // no thread to be had: lexed first, then parsed
    return nullptr;
  }
  size_t before = warnings.size();
  ast::File* tree = parseTokens(factory, text, tokens.data(), &pipe, 0);
  lexer.thread.join();
  if (pipe.state.load(std::memory_order_acquire) != TokenPipe::kDone) return nullptr;
  // the lexer's warnings first, as when it ran before the parser
  warnings.insert(warnings.begin() + static_cast<std::ptrdiff_t>(before), lexWarnings.begin(), lexWarnings.end());
  return tree;
}

}  // namespace

bool fastLex(std::string_view text, FileId file, std::vector<FastToken>& out, std::vector<Diagnostic>& warnings) {
  return Lexer(text, file, TokenSink(out), warnings).run();
}

ast::File* fastParse(AstFactory& factory, std::string_view text, std::vector<Diagnostic>& warnings) {
  if (text.size() >= kPipelinedFrom) {
    bool attempted = false;
    ast::File* tree = pipelinedParse(factory, text, warnings, attempted);
    if (attempted) return tree;
  }
  std::vector<FastToken> tokens;
  if (!fastLex(text, factory.file(), tokens, warnings)) return nullptr;
  for (size_t k = 1; k < kLookahead; ++k) tokens.push_back(tokens.back());  // EOF
  return parseTokens(factory, text, tokens.data(), nullptr, tokens.size());
}

}  // namespace inmanta::compiler
