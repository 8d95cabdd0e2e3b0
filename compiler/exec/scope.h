// The scopes of names during execution (spec 3.13): a block's variables chained to the
// enclosing block's, and an instance's scope that finds its attributes and `self`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/model/model.h"
#include "compiler/runtime/instance.h"
#include "compiler/runtime/variable.h"

namespace inmanta::compiler::exec {

using runtime::Variable;

// A name a scope is asked for: its text, and its SymbolTable header when the text is interned (a
// name of the syntax tree), which most often leads to its variable without hashing or probing.
struct ScopeName {
  std::string_view text;
  SymbolHeader* header = nullptr;
  ScopeName(std::string_view t) : text(t) {}                             // NOLINT: any text
  ScopeName(const char* t) : text(t) {}                                  // NOLINT
  ScopeName(const std::string& t) : text(t) {}                           // NOLINT
  ScopeName(const ast::Name& n) : text(n.text()), header(n.header()) {}  // NOLINT
  uint32_t hash() const { return header != nullptr ? header->hash : NameHashing::hash(text); }
};

// A block's variables (spec 3.13), chained to the enclosing block, and at the root to the
// namespace's top-level scope. 40 bytes (a compile has a scope per instance that runs an
// implementation, and one per block that declares a name: 870,000 at 100,000 services): a lookup
// passing through a scope that lacks the name reads these bytes and nothing else.
//
// An instance's scope (the `when` conditions and implementations of one namespace run in it)
// declares nothing: it finds the instance's attributes, and `self`, which it holds in the place
// a block keeps its list of variables (no variable or list of its own per instance).
class Scope {
 public:
  // `bindings`: the number (SymbolHeader::owner) under which the scopes of one evaluator keep
  // bindings in the names' headers: the first scope to declare an interned name binds it there
  // to its variable (0: none). A nested scope uses its enclosing scope's.
  Scope(Scope* enclosing, model::Namespace* owner, uint32_t bindings = 0)
      : parent(enclosing), ns(owner), bindings_(enclosing != nullptr ? enclosing->bindings_ : bindings) {
    new (&names_) Names();
  }
  // The scope of `self` in the namespace `owner`, inside that namespace's top-level scope.
  Scope(Scope* enclosing, model::Namespace* owner, runtime::Instance* self);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
  Scope* const parent;
  model::Namespace* const ns;
  // An instance's scope: its attributes and `self` (null for a block's scope).
  const runtime::Instance* instance() const;
  // The innermost declaring scope's variable, else null.
  Variable* find(const ScopeName& name) const;
  // This block's own variable of that name, else null.
  Variable* own(const ScopeName& name) const;
  // Declares `name` (text that outlives the scope: the syntax tree's) unless it is declared (never
  // in an instance's scope).
  void declare(const ScopeName& name, Variable* variable);

 private:
  // A block's names and their variables, in the order declared, in one block of memory (none
  // until the first): most blocks declare a handful, searched in order; a top-level scope with
  // many gets an index as well: open addressing (linear probing, power-of-two size, at most half
  // full) over one word per name, its hash and its position (8 bytes a slot: the index of a file
  // that declares 200,000 names stays small enough to be mostly in cache).
  class Names {
   public:
    using Entry = std::pair<std::string_view, Variable*>;
    Names() = default;
    Names(const Names&) = delete;
    Names& operator=(const Names&) = delete;
    ~Names();
    size_t size() const { return block_ != nullptr ? block_->size : 0; }
    const Entry& operator[](size_t i) const { return block_->entries()[i]; }
    const Entry* begin() const { return block_ != nullptr ? block_->entries() : nullptr; }
    const Entry* end() const { return begin() + size(); }
    void push_back(const Entry& entry);
    // the index (null until the scope has kIndexFrom names)
    std::vector<uint64_t>* index() const { return block_ != nullptr ? block_->index : nullptr; }
    std::vector<uint64_t>& makeIndex();

   private:
    // (its `capacity` entries follow it)
    struct Block {
      uint32_t size;
      uint32_t capacity;
      std::vector<uint64_t>* index;
      Entry* entries() { return reinterpret_cast<Entry*>(this + 1); }
    };
    Block* block_ = nullptr;
  };
  static constexpr size_t kIndexFrom = 16;
  uint32_t bindings_ : 31;
  uint32_t isInstance_ : 1 = 0;
  // bit (hash % 32) of every name it declares: most names asked of a scope that holds a few are
  // not among them, and this word (beside the scope's pointers) says so without reading its
  // names (an instance's scope declares none: 0)
  uint32_t filter_ = 0;
  static uint32_t filterBit(uint32_t hash) { return uint32_t(1) << (hash & 31); }
  union {
    Names names_;                     // a block's scope
    runtime::ConstantVariable self_;  // an instance's scope
  };
  void indexSlot(size_t position);
  void growIndex();
};
static_assert(sizeof(Scope) == 40, "a scope is its chain, its filter and its names (or self)");

}  // namespace inmanta::compiler::exec
