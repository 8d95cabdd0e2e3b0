#include "compiler/exec/scope.h"

#include <algorithm>
#include <cassert>

namespace inmanta::compiler::exec {

using runtime::Value;

Scope::Names::~Names() {
  if (block_ == nullptr) return;
  delete block_->index;
  ::operator delete(block_);
}

void Scope::Names::push_back(const Entry& entry) {
  size_t n = size();
  if (block_ == nullptr || n == block_->capacity) {
    auto capacity = static_cast<uint32_t>(n == 0 ? 1 : n * 2);
    auto* bigger = static_cast<Block*>(::operator new(sizeof(Block) + capacity * sizeof(Entry)));
    bigger->size = static_cast<uint32_t>(n);
    bigger->capacity = capacity;
    bigger->index = nullptr;
    if (block_ != nullptr) {
      std::copy(begin(), end(), bigger->entries());  // (pairs of a view and a pointer: trivially copied)
      bigger->index = block_->index;
      ::operator delete(block_);
    }
    block_ = bigger;
  }
  block_->entries()[block_->size++] = entry;
}

std::vector<uint64_t>& Scope::Names::makeIndex() {
  if (block_->index == nullptr) block_->index = new std::vector<uint64_t>();
  return *block_->index;
}

const runtime::Instance* Scope::instance() const {
  return isInstance_ ? static_cast<const runtime::Instance*>(self_.value().asInstance()) : nullptr;
}

Variable* Scope::own(const ScopeName& name) const {
  if (isInstance_) return nullptr;  // (it declares nothing)
  // (the syntax tree's names are interned: the same text is most often the very same bytes)
  if (name.header != nullptr && name.header->scope == this && name.header->owner == bindings_ && bindings_ != 0)
    return static_cast<Variable*>(name.header->value);
  std::string_view text = name.text;
  uint32_t h = name.hash();
  if ((filter_ & filterBit(h)) == 0) return nullptr;
  if (const std::vector<uint64_t>* index = names_.index()) {
    const std::vector<uint64_t>& words = *index;
    size_t mask = words.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      uint64_t word = words[i];
      if (word == 0) return nullptr;
      if (static_cast<uint32_t>(word >> 32) != h) continue;
      const auto& [n, v] = names_[static_cast<uint32_t>(word) - 1];
      if ((n.data() == text.data() && n.size() == text.size()) || n == text) return v;
    }
  }
  for (const auto& [n, v] : names_)
    if (n == text) return v;
  return nullptr;
}

void Scope::declare(const ScopeName& name, Variable* variable) {
  assert(!isInstance_ && "an instance's scope declares nothing");
  if (own(name) != nullptr) return;
  names_.push_back({name.text, variable});
  filter_ |= filterBit(name.hash());
  if (std::vector<uint64_t>* index = names_.index()) {
    if (names_.size() * 2 > index->size()) growIndex();
    else indexSlot(names_.size() - 1);
  } else if (names_.size() >= kIndexFrom) {
    names_.makeIndex();
    growIndex();
  }
  // the first scope of this evaluator to declare the name binds it (most names: their only one)
  if (SymbolHeader* h = name.header; h != nullptr && bindings_ != 0 && h->owner != bindings_) {
    h->owner = bindings_;
    h->scope = this;
    h->value = variable;
  }
}

void Scope::indexSlot(size_t position) {
  uint32_t h = NameHashing::hash(names_[position].first);
  freeSlotFor(*names_.index(), h, [](uint64_t word) { return word == 0; }) = (static_cast<uint64_t>(h) << 32) |
                                                                             static_cast<uint32_t>(position + 1);
}

void Scope::growIndex() {
  size_t size = 64;
  while (size < names_.size() * 2) size *= 2;
  names_.index()->assign(size * 2, 0);
  for (size_t position = 0; position < names_.size(); ++position) indexSlot(position);
}

Scope::Scope(Scope* enclosing, model::Namespace* owner, runtime::Instance* self)
    : parent(enclosing), ns(owner), bindings_(enclosing->bindings_), isInstance_(1) {
  new (&self_) runtime::ConstantVariable(Value(static_cast<runtime::InstanceBase*>(self)));
}

Scope::~Scope() {
  if (isInstance_) self_.~ConstantVariable();
  else names_.~Names();
}

Variable* Scope::find(const ScopeName& name) const {
  for (const Scope* s = this; s != nullptr; s = s->parent) {
    if (s->isInstance_) {
      if (name.text == "self") return const_cast<runtime::ConstantVariable*>(&s->self_);
      const runtime::Instance* instance = s->instance();
      if (const size_t* at = instance->entity->positions.find(name.text, name.hash())) return instance->slot(*at);
      continue;  // (it declares nothing)
    }
    if (Variable* v = s->own(name)) return v;
  }
  return nullptr;
}

}  // namespace inmanta::compiler::exec
