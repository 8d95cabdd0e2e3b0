// The syntax tree of one `.cf` file (spec 2). Immutable after the builder made it; every node
// lives in the compile's Arena and carries the location the reference reports for it (spec 6.3).
//
// Block statements are kept in source order; the reversed emission order of spec 2.5 is the
// compiler's business, not the tree's.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "compiler/ast/arena.h"
#include "compiler/runtime/value.h"
#include "compiler/runtime/variable.h"
#include "compiler/source/source.h"

namespace inmanta::compiler::ast {

// A name as written, possibly qualified (`std::print`), with where it was written: 24 bytes (the
// text's pointer, its size, then the location's three words), as a syntax tree holds one per
// reference and argument. The parser interns every name (interned()): two names of one tree are
// the same exactly when their texts are at the same address (symbol()), and such a name has its
// SymbolTable header (hash, binding). A name made of a constant text has none.
class Name {
 public:
  Name() = default;
  // (`text` outlives the name: a constant)
  Name(std::string_view text, SourceLocation at)
      : data_(text.data()), size_(static_cast<uint32_t>(text.size())), loc(at) {}
  // A name whose text the SymbolTable interned.
  static Name interned(std::string_view text, SourceLocation at) {
    Name n(text, at);
    n.size_ |= kInterned;
    return n;
  }
  std::string_view text() const { return {data_, size_ & ~kInterned}; }
  bool empty() const { return (size_ & ~kInterned) == 0; }
  // the identity of an interned name
  const void* symbol() const { return data_; }
  // its header in the SymbolTable, or null when the text is not interned
  SymbolHeader* header() const { return (size_ & kInterned) != 0 ? SymbolHeader::of(data_) : nullptr; }
  // one past its last column, on loc.line
  uint32_t endCol() const;
  // Its text without its location (a node whose location is the name's keeps only this).
  struct Text {
    const char* data;
    uint32_t size;
  };
  Text bare() const { return {data_, size_}; }
  static Name of(Text text, SourceLocation at) {
    Name n;
    n.data_ = text.data;
    n.size_ = text.size;
    n.loc = at;
    return n;
  }

 private:
  static constexpr uint32_t kInterned = uint32_t(1) << 31;
  const char* data_ = "";
  uint32_t size_ = 0;

 public:
  SourceLocation loc;  // start of the name
};
static_assert(sizeof(Name) == 24, "a name is its text's pointer and size and its location");

enum class Kind : uint8_t {
  // expressions
  Literal,
  StringFormat,
  FString,
  Regex,
  VarRef,
  AttrRef,
  MapLookup,
  IsDefined,
  Binary,
  Not,
  Conditional,
  Call,
  Constructor,
  IndexLookup,
  ShortIndexLookup,
  ListLit,
  ListComp,
  DictLit,
  // statements
  ExprStmt,
  Assign,
  For,
  If,
  // definitions
  Import,
  Entity,
  Implementation,
  Implement,
  Relation,
  Typedef,
  Index,
};

// The case labels of every expression kind and of every statement kind (definitions included),
// for a switch that treats a whole group alike: `INMANTA_AST_STATEMENT_CASES: return;` in a walk
// over expressions (the macro leaves out the last colon, so a use reads as a label). A new kind is
// added to its group here; -Wswitch-enum asks every other switch about it.
#define INMANTA_AST_EXPRESSION_CASES                     \
  case ::inmanta::compiler::ast::Kind::Literal:          \
  case ::inmanta::compiler::ast::Kind::StringFormat:     \
  case ::inmanta::compiler::ast::Kind::FString:          \
  case ::inmanta::compiler::ast::Kind::Regex:            \
  case ::inmanta::compiler::ast::Kind::VarRef:           \
  case ::inmanta::compiler::ast::Kind::AttrRef:          \
  case ::inmanta::compiler::ast::Kind::MapLookup:        \
  case ::inmanta::compiler::ast::Kind::IsDefined:        \
  case ::inmanta::compiler::ast::Kind::Binary:           \
  case ::inmanta::compiler::ast::Kind::Not:              \
  case ::inmanta::compiler::ast::Kind::Conditional:      \
  case ::inmanta::compiler::ast::Kind::Call:             \
  case ::inmanta::compiler::ast::Kind::Constructor:      \
  case ::inmanta::compiler::ast::Kind::IndexLookup:      \
  case ::inmanta::compiler::ast::Kind::ShortIndexLookup: \
  case ::inmanta::compiler::ast::Kind::ListLit:          \
  case ::inmanta::compiler::ast::Kind::ListComp:         \
  case ::inmanta::compiler::ast::Kind::DictLit
#define INMANTA_AST_STATEMENT_CASES                    \
  case ::inmanta::compiler::ast::Kind::ExprStmt:       \
  case ::inmanta::compiler::ast::Kind::Assign:         \
  case ::inmanta::compiler::ast::Kind::For:            \
  case ::inmanta::compiler::ast::Kind::If:             \
  case ::inmanta::compiler::ast::Kind::Import:         \
  case ::inmanta::compiler::ast::Kind::Entity:         \
  case ::inmanta::compiler::ast::Kind::Implementation: \
  case ::inmanta::compiler::ast::Kind::Implement:      \
  case ::inmanta::compiler::ast::Kind::Relation:       \
  case ::inmanta::compiler::ast::Kind::Typedef:        \
  case ::inmanta::compiler::ast::Kind::Index

const char* kindName(Kind kind);

// A node is 8 bytes before its parts (a tree has millions): its kind, then where it was written,
// packed in the 7 bytes after it (packLocation).
struct Node {
  Kind kind;
  explicit Node(Kind k, SourceLocation l = {}) : kind(k) {
    uint64_t bits = packLocation(l);
    std::memcpy(loc_, &bits, sizeof loc_);
  }
  [[gnu::always_inline]] SourceLocation loc() const {
    // (the node's 8 bytes in one load: the kind in the low byte, the location above it)
    uint64_t bits = 0;
    std::memcpy(&bits, static_cast<const void*>(this), sizeof bits);
    return unpackLocation(bits >> 8);
  }

 private:
  unsigned char loc_[7];  // (packLocation: its 56 bits)
};
static_assert(sizeof(Node) == 8 && alignof(Node) == 1, "a node is its kind and its packed location");
static_assert(std::endian::native == std::endian::little, "Node::loc reads the kind as the low byte");

struct Expr : Node {
  using Node::Node;
};

struct Stmt : Node {
  using Node::Node;
};

using Block = std::vector<Stmt*>;

// A list of a node's parts, made once by the parser in the tree's Arena: a pointer and a count
// (16 bytes) instead of a vector with its own heap block.
template <class T>
class Span {
 public:
  Span() = default;
  Span(const T* data, size_t size) : data_(data), size_(static_cast<uint32_t>(size)) {}
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](size_t i) const { return data_[i]; }
  const T& front() const { return data_[0]; }
  const T& back() const { return data_[size_ - 1]; }

 private:
  const T* data_ = nullptr;
  uint32_t size_ = 0;
};

// ------------------------------------------------------------------ expressions

// null, a bool, an int, a float or a string: the value the evaluator reads (a string is shared
// with the values made from it, not copied), held as the ready variable an expression reading the
// literal waits on: one per literal, shared by every evaluator of the tree (runtime::
// ConstantVariable), so reading a literal makes no variable.
struct Literal : Expr {
  Literal(SourceLocation l, runtime::Value v) : Expr(Kind::Literal, l), variable_(std::move(v)) {}
  const runtime::Value& value() const { return variable_.value(); }
  // (never changed through the pointer: a constant's set is only the double-set check)
  runtime::Variable* variable() const { return const_cast<runtime::ConstantVariable*>(&variable_); }

 private:
  runtime::ConstantVariable variable_;
};
static_assert(sizeof(Literal) == 24, "a literal is its node and its variable");

// A word a later pass keeps on a node for one compile: `word`, valid for the pass whose unique
// number is `owner` (another pass replaces it). The tree never reads it; what the word means is
// the pass's own (the evaluator's constants and constructor plans, compiler/exec).
struct Annotation {
  uint64_t owner = 0;
  uintptr_t word = 0;
};

// A plain or multi-line string with `{{ ref }}` interpolation (spec 1.7, 5.4).
struct StringFormat : Expr {
  struct Part {
    std::string match;  // the whole `{{ a.b }}` text, replaced at run time
    Expr* ref;          // VarRef or AttrRef chain
  };
  std::string text;  // decoded value
  std::vector<Part> parts;
  StringFormat(SourceLocation l, std::string t) : Expr(Kind::StringFormat, l), text(std::move(t)) {}
};

// An f-string (spec 1.7, 5.4). `refs` are the fields the reference collects (it stops at the
// first chunk without a field, a quirk kept on purpose).
struct FString : Expr {
  struct Ref {
    std::string key;  // the field name as written, whitespace included
    Expr* ref;
  };
  std::string format;  // decoded value, parsed with str.format rules at run time
  std::vector<Ref> refs;
  FString(SourceLocation l, std::string f) : Expr(Kind::FString, l), format(std::move(f)) {}
};

// `matching /pattern/`: true when the variable `self` matches (spec 1.8).
struct Regex : Expr {
  std::string pattern;
  SourceLocation patternLoc;  // the `/.../` part
  Regex(SourceLocation l, std::string p, SourceLocation pl)
      : Expr(Kind::Regex, l), pattern(std::move(p)), patternLoc(pl) {}
};

// A name read, possibly qualified (`std::linux`): 24 bytes, its name's location being the node's
// (a tree has one per reference: a million at 100,000 services).
struct VarRef : Expr {
  VarRef(Name n) : Expr(Kind::VarRef, n.loc), text_(n.bare()) {}
  Name name() const { return Name::of(text_, loc()); }

 private:
  Name::Text text_;
};
static_assert(sizeof(VarRef) == 24, "a reference is its node and its name's text");

struct AttrRef : Expr {
  Expr* object;
  Name attribute;
  AttrRef(SourceLocation l, Expr* o, Name a) : Expr(Kind::AttrRef, l), object(o), attribute(a) {}
};

struct MapLookup : Expr {
  Expr* map;
  Expr* key;
  MapLookup(SourceLocation l, Expr* m, Expr* k) : Expr(Kind::MapLookup, l), map(m), key(k) {}
};

// `x is defined` (object null) or `a.b is defined`.
struct IsDefined : Expr {
  Expr* object;
  Name attribute;
  IsDefined(SourceLocation l, Expr* o, Name a) : Expr(Kind::IsDefined, l), object(o), attribute(a) {}
};

enum class BinaryOp : uint8_t { Add, Sub, Mul, Div, Mod, Pow, Eq, Ne, Lt, Gt, Le, Ge, And, Or, In };
const char* binaryOpText(BinaryOp op);

struct Binary : Expr {
  BinaryOp op;
  Expr* lhs;
  Expr* rhs;
  Binary(SourceLocation l, BinaryOp o, Expr* a, Expr* b) : Expr(Kind::Binary, l), op(o), lhs(a), rhs(b) {}
};

struct Not : Expr {
  Expr* operand;
  Not(SourceLocation l, Expr* e) : Expr(Kind::Not, l), operand(e) {}
};

struct Conditional : Expr {
  Expr* condition;
  Expr* whenTrue;
  Expr* whenFalse;
  Conditional(SourceLocation l, Expr* c, Expr* t, Expr* f)
      : Expr(Kind::Conditional, l), condition(c), whenTrue(t), whenFalse(f) {}
};

struct KwArg {
  Name name;
  Expr* value;
};

// Keyword arguments and `**dict` operands shared by calls, constructors and index lookups.
struct Arguments {
  Span<KwArg> kwargs;
  Span<Expr*> wrapped;  // `**d`
};

struct Call : Expr {
  Name function;
  Span<Expr*> args;
  Arguments named;
  Call(SourceLocation l, Name f) : Expr(Kind::Call, l), function(f) {}
};

struct Constructor : Expr {
  Name type;
  Arguments named;
  mutable Annotation annotation;  // (the evaluator's: its entity, then its plan)
  Constructor(SourceLocation l, Name t) : Expr(Kind::Constructor, l), type(t) {}
};
static_assert(sizeof(Constructor) == 80, "a constructor call is its node, type, arguments and cache");

struct IndexLookup : Expr {
  Name type;
  Arguments named;
  IndexLookup(SourceLocation l, Name t) : Expr(Kind::IndexLookup, l), type(t) {}
};

// `x.rel[k=v]`
struct ShortIndexLookup : Expr {
  Expr* object;
  Name relation;
  Arguments named;
  ShortIndexLookup(SourceLocation l, Expr* o, Name r) : Expr(Kind::ShortIndexLookup, l), object(o), relation(r) {}
};

struct ListLit : Expr {
  Span<Expr*> elements;
  mutable Annotation annotation;  // (the evaluator's: its constant value when every element is a literal)
  explicit ListLit(SourceLocation l) : Expr(Kind::ListLit, l) {}
};

// `[value for var in iterable if guard]`; several `for`s are nested comprehensions (spec 2.3).
struct ListComp : Expr {
  Expr* value;
  Name variable;
  Expr* iterable;
  Expr* guard;  // may be null
  ListComp(SourceLocation l, Expr* v, Name var, Expr* it, Expr* g)
      : Expr(Kind::ListComp, l), value(v), variable(var), iterable(it), guard(g) {}
};

struct DictLit : Expr {
  // its keys (interned: the tree's SymbolTable) and values, in order
  struct Entry {
    std::string_view key;
    Expr* value;
  };
  Span<Entry> entries;
  mutable Annotation annotation;  // (the evaluator's: its constant value when every entry is a literal)
  explicit DictLit(SourceLocation l) : Expr(Kind::DictLit, l) {}
};

// ------------------------------------------------------------------ statements

struct ExprStmt : Stmt {
  Expr* expr;
  ExprStmt(Expr* e) : Stmt(Kind::ExprStmt, e->loc()), expr(e) {}
};

// `target = value` or `target += value` (listOnly); target is a VarRef or an AttrRef.
struct Assign : Stmt {
  Expr* target;
  Expr* value;
  bool listOnly;
  Assign(SourceLocation l, Expr* t, Expr* v, bool lo) : Stmt(Kind::Assign, l), target(t), value(v), listOnly(lo) {}
};

// The name a statement declares in its block (spec 3.13): an assignment's to a plain variable;
// else none.
std::optional<Name> assignedName(const Stmt* s);

// Calls `f` with each name assigned directly in a block and the assignment, in order.
template <class F>
void forEachAssigned(const Block& block, F&& f) {
  for (const Stmt* s : block)
    if (std::optional<Name> n = assignedName(s)) f(*n, static_cast<const Assign*>(s));
}

struct For : Stmt {
  Name variable;
  Expr* iterable;
  Block body;
  For(SourceLocation l, Name v, Expr* it) : Stmt(Kind::For, l), variable(v), iterable(it) {}
};

// `elif` is an If nested as the only statement of the else block (spec 2.3).
struct If : Stmt {
  Expr* condition;
  Block thenBlock;
  Block elseBlock;
  If(SourceLocation l, Expr* c) : Stmt(Kind::If, l), condition(c) {}
};

// ------------------------------------------------------------------ definitions

struct Import : Stmt {
  Name module;  // a::b
  Name alias;   // the visible name: the module name or the `as` alias
  Import(SourceLocation l, Name m, Name a) : Stmt(Kind::Import, l), module(m), alias(a) {}
};

struct TypeRef {
  Name base;  // `dict` for dict attributes
  bool multi = false;
  bool nullable = false;
  bool isDict = false;
};

struct Attribute {
  TypeRef type;
  Name name;
  Expr* defaultValue = nullptr;  // null: no default
  bool removeDefault = false;    // declared without default, or `= undef`
};

struct Entity : Stmt {
  Name name;
  std::vector<Name> parents;
  std::vector<Attribute> attributes;
  std::string doc;
  Entity(SourceLocation l, Name n) : Stmt(Kind::Entity, l), name(n) {}
};

struct Implementation : Stmt {
  Name name;
  Name entity;
  Block body;
  std::string doc;
  Implementation(SourceLocation l, Name n, Name e) : Stmt(Kind::Implementation, l), name(n), entity(e) {}
};

struct Implement : Stmt {
  Name entity;
  std::vector<Name> implementations;
  bool inheritParents = false;
  Expr* when = nullptr;  // null: `true`
  std::string doc;
  Implement(SourceLocation l, Name e) : Stmt(Kind::Implement, l), entity(e) {}
};

struct Multiplicity {
  int64_t lower = 0;
  std::optional<int64_t> upper;  // none: unbounded
};

// `Left.leftAttr [leftMult] -- Right.rightAttr [rightMult]`: leftAttr is an attribute of Left
// holding Right instances; rightAttr (absent for a unidirectional relation) the inverse.
struct Relation : Stmt {
  Name left;
  Name leftAttr;
  Multiplicity leftMult;
  Name right;
  Name rightAttr;
  Multiplicity rightMult;
  std::vector<Expr*> annotations;
  std::string doc;
  Relation(SourceLocation l) : Stmt(Kind::Relation, l) {}
};

struct Typedef : Stmt {
  Name name;
  Name base;
  Expr* constraint;
  std::string doc;
  Typedef(SourceLocation l, Name n, Name b, Expr* c) : Stmt(Kind::Typedef, l), name(n), base(b), constraint(c) {}
};

struct Index : Stmt {
  Name entity;
  std::vector<Name> attributes;
  Index(SourceLocation l, Name e) : Stmt(Kind::Index, l), entity(e) {}
};

// ------------------------------------------------------------------ file

struct File {
  FileId id = kNoFile;
  std::string doc;
  std::vector<Stmt*> statements;  // top level, source order
};

// Everything the trees of one compile point into.
struct Context {
  Arena arena;
  SymbolTable symbols;

  Name name(std::string_view text, SourceLocation loc) { return Name::interned(symbols.intern(text), loc); }
  // The value of a string literal: one shared value per distinct text while files are parsed
  // (values are immutable, and a model repeats its literals: "root", "tcp", its dicts' keys).
  runtime::Value string(std::string_view text) { return strings_.get(text); }
  // Ends the sharing (after the parse: the literals keep their values, the table goes).
  void forgetStrings() { strings_ = LiteralStrings(); }
  // A copy of `items` in the arena.
  template <class T>
  Span<T> span(const T* items, size_t count) {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
    if (count == 0) return {};
    T* copy = static_cast<T*>(arena.allocate(sizeof(T) * count, alignof(T)));
    std::copy(items, items + count, copy);
    return Span<T>(copy, count);
  }
  template <class T>
  Span<T> span(const std::vector<T>& items) {
    return span(items.data(), items.size());
  }

 private:
  // An open-addressing set of string values (linear probing, power-of-two size, at most 3/4
  // full): a slot is only the value, which keeps its text's hash in its holder word.
  class LiteralStrings {
   public:
    runtime::Value get(std::string_view text);

   private:
    void grow();
    std::vector<runtime::Value> slots_;  // null: free
    size_t count_ = 0;
  };
  LiteralStrings strings_;
};

// (inline: the ANTLR front end, a library of its own, makes literals too)
inline runtime::Value Context::LiteralStrings::get(std::string_view text) {
  if ((count_ + 1) * 4 > slots_.size() * 3) grow();
  uint32_t h = NameHashing::hash(text);
  size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    runtime::Value& slot = slots_[i];
    if (slot.isNull()) {
      slot = runtime::Value(std::string(text));
      slot.setHolderTags(0, h);
      ++count_;
      return slot;  // (a copy: without the tags)
    }
    if (slot.holderWord() == h && slot.asString() == text) return slot;
  }
}

inline void Context::LiteralStrings::grow() {
  std::vector<runtime::Value> old(slots_.empty() ? 256 : slots_.size() * 2);
  old.swap(slots_);
  for (runtime::Value& value : old) {
    if (value.isNull()) continue;
    uint32_t h = value.holderWord();
    runtime::Value& to = freeSlotFor(slots_, h, [](const runtime::Value& v) { return v.isNull(); });
    to = std::move(value);  // (moving leaves the tags behind)
    to.setHolderTags(0, h);
  }
}

// A compact, deterministic rendering of a tree for tests: `(+ 1 (* 2 3))`. Detailed: with every
// node's and name's location and the doc strings, to compare trees built by different parsers.
std::string dump(const Expr* expr);
std::string dump(const Stmt* stmt, bool detailed = false);
std::string dump(const File* file, bool detailed = false);

}  // namespace inmanta::compiler::ast
