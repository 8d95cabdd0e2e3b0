// An entity instance at run time: one slot per attribute and relation end (spec 4.8 step 5).
// An instance and its slots are one block of memory (InstanceStore): the slots follow the
// instance at offsets its entity's layout gives, so an instance keeps no list of them.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ast/arena.h"
#include "compiler/model/model.h"
#include "compiler/runtime/slots.h"

namespace inmanta::compiler::runtime {

// A list that most often holds one item: that one inline, the others on the heap.
template <class T>
class MostlyOne {
 public:
  void push_back(const T& item) {
    if (size_ == 0) first_ = item;
    else {
      if (!rest_) rest_ = std::make_unique<std::vector<T>>();
      rest_->push_back(item);
    }
    ++size_;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](size_t i) const { return i == 0 ? first_ : (*rest_)[i - 1]; }
  template <class F>
  bool any(F&& f) const {
    for (size_t i = 0; i < size_; ++i)
      if (f((*this)[i])) return true;
    return false;
  }

 private:
  T first_{};
  uint32_t size_ = 0;
  std::unique_ptr<std::vector<T>> rest_;
};

// The same for pointers that are never null: 16 bytes, the first one telling whether there is any.
template <class T>
class MostlyOne<T*> {
 public:
  void push_back(T* item) {
    assert(item != nullptr);
    if (first_ == nullptr) first_ = item;
    else {
      if (!rest_) rest_ = std::make_unique<std::vector<T*>>();
      rest_->push_back(item);
    }
  }
  size_t size() const { return first_ == nullptr ? 0 : 1 + (rest_ ? rest_->size() : 0); }
  bool empty() const { return first_ == nullptr; }
  T* operator[](size_t i) const { return i == 0 ? first_ : (*rest_)[i - 1]; }
  template <class F>
  bool any(F&& f) const {
    if (first_ == nullptr) return false;
    if (f(first_)) return true;
    if (rest_)
      for (T* item : *rest_)
        if (f(item)) return true;
    return false;
  }

 private:
  T* first_ = nullptr;
  std::unique_ptr<std::vector<T*>> rest_;
};

// What the instances of an entity share (one per entity and compile): where they keep their
// slots, the offset of each (parallel to entity->order, as the policies) from the start of the
// instance, the size of the whole block; the policies of the inline slots by their offset in
// 8-byte words (SlotTable::policiesByWord points into byWord); and how display() formats a
// location.
struct SlotLayout : SlotTable {
  std::vector<uint32_t> offsets;
  std::vector<const SlotPolicy*> byWord;
  uint32_t size = 0;
  const std::function<std::string(const SourceLocation&)>* where = nullptr;
  // The number of an implementation among those run for the entity's instances (numbered in the
  // order first run: an instance keeps which it ran as bits).
  size_t implementationNumber(const model::Implementation* impl) const {
    for (size_t i = 0; i < implementations.size(); ++i)
      if (implementations[i] == impl) return i;
    implementations.push_back(impl);
    return implementations.size() - 1;
  }

 private:
  mutable std::vector<const model::Implementation*> implementations;  // (few: searched linearly)
};

// An instance's header is 48 bytes (a compile has 740,000 at 100,000 services): its entity's
// layout and the entity, where it was first constructed (packed) and its number, the first 32
// implementations run for it (bits), and its scope. What few instances have (more constructor
// calls that matched it, more implementations) is kept aside (InstanceExtras), which a bit of
// the header says.
class Instance : public SlotOwner {
 public:
  // The slots are made by the creator, in the block the layout describes, before the instance is
  // used; the instance destroys them. The layout outlives the instance.
  Instance(const model::Entity* type, size_t number, const SlotLayout* layout, SourceLocation constructed)
      : SlotOwner(layout),
        entity(type),
        constructed_(packLocation(constructed)),
        ordinal(static_cast<uint32_t>(number)) {}
  ~Instance() override {
    for (size_t i = 0; i < slotCount(); ++i) slot(i)->destroy();
    if (hasExtras()) dropExtras();
  }
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  std::string display() const override {
    std::string out = entity->fullName + " (instantiated at " + (*layout()->where)(constructedAt());
    if (hasExtras())
      for (const SourceLocation& at : extras().locations) out += "," + (*layout()->where)(at);
    return out + ")";
  }

  size_t slotCount() const { return entity->order.size(); }
  // The memory of slot `position` (parallel to entity->order).
  void* slotMemory(size_t position) { return reinterpret_cast<std::byte*>(this) + layout()->offsets[position]; }
  Variable* slot(size_t position) const {
    return reinterpret_cast<Variable*>(const_cast<Instance*>(this)->slotMemory(position));
  }
  // The slot of an attribute, or null when the entity has none of that name.
  Variable* slot(std::string_view name) const {
    const size_t* at = entity->positions.find(name);
    return at == nullptr ? nullptr : slot(*at);
  }
  // The slot of an attribute of this instance's entity (declared or inherited).
  Variable* slot(const model::Attribute* attribute) const { return slot(entity->positionOf(attribute)); }

  // The constructor call that made it.
  SourceLocation constructedAt() const { return unpackLocation(constructed_ & ~kHasExtras); }
  // Records a later constructor call that matched it (an index match), shown by display().
  void matchedAt(SourceLocation at) { extras().locations.push_back(at); }
  // Whether `impl` was run for it; records it as run when not.
  bool markImplementation(const model::Implementation* impl) {
    size_t number = layout()->implementationNumber(impl);
    if (number < 32) {
      uint32_t bit = uint32_t(1) << number;
      if ((implementationsRun_ & bit) != 0) return false;
      implementationsRun_ |= bit;
      return true;
    }
    // (an entity with that many implementations)
    std::vector<uint64_t>& more = extras().implementationsRun;
    if (more.size() <= (number - 32) / 64) more.resize((number - 32) / 64 + 1, 0);
    uint64_t bit = uint64_t(1) << ((number - 32) % 64);
    uint64_t& word = more[(number - 32) / 64];
    if ((word & bit) != 0) return false;
    word |= bit;
    return true;
  }
  bool ranImplementations() const {
    return implementationsRun_ != 0 || (hasExtras() && !extras().implementationsRun.empty());
  }

  const model::Entity* const entity;

  // What few instances have, kept aside by instance (InstanceExtras).
  struct Extras {
    std::vector<SourceLocation> locations;     // later constructor calls that matched it
    std::vector<uint64_t> implementationsRun;  // implementations 32 and on, by their number
  };

 private:
  // where it was constructed (packLocation), and in its high bit whether it has extras
  static constexpr uint64_t kHasExtras = uint64_t(1) << 63;
  bool hasExtras() const { return (constructed_ & kHasExtras) != 0; }
  Extras& extras();
  const Extras& extras() const { return const_cast<Instance*>(this)->extras(); }
  void dropExtras();
  uint64_t constructed_;

 public:
  const uint32_t ordinal;  // (the instances of a compile are counted in 32 bits)

 private:
  uint32_t implementationsRun_ = 0;  // by number (SlotLayout::implementationNumber), the first 32

 public:
  // the evaluator's scope of this instance in the namespace it was last asked for (opaque here)
  void* scope = nullptr;

 private:
  const SlotLayout* layout() const { return static_cast<const SlotLayout*>(table()); }
};
static_assert(sizeof(Instance) == 48, "an instance's header is 48 bytes");

// The instances of a compile in the order they were made, each in one block with its slots; it
// destroys them.
class InstanceStore {
 public:
  InstanceStore() = default;
  InstanceStore(const InstanceStore&) = delete;
  InstanceStore& operator=(const InstanceStore&) = delete;
  ~InstanceStore() {
    for (Instance* i : all_) i->~Instance();
  }
  // Memory for an instance of that layout; the instance made in it must be added next.
  void* allocate(const SlotLayout& layout) { return memory_.allocate(layout.size, alignof(Instance)); }
  void add(Instance* instance) { all_.push_back(instance); }
  const std::vector<Instance*>& all() const { return all_; }
  size_t size() const { return all_.size(); }

 private:
  std::vector<Instance*> all_;
  Arena memory_;  // (destroyed after the instances in it)
};

}  // namespace inmanta::compiler::runtime
