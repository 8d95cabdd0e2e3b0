// A Python object held by the model (compiler/runtime/value.h, OpaqueObject): what a plugin of a
// module returns when it is no model value (param::report's Result, a set, bytes, a function).
// The reference keeps such an object as the value itself; so does the model, and every question
// the compiler asks of it is answered by Python. Made by module_code.cpp; std::template's Jinja
// engine (jinja_engine.cpp) reads the object back.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "compiler/runtime/value.h"
#include "modules/python/python_runtime.h"

namespace inmanta::python {

class PythonObject final : public compiler::runtime::OpaqueObject {
 public:
  // A model value in the reference's internal form, for `==` with another value (null as its
  // NoneValue, lists and dicts as Python's).
  using InternalForm = py::object (*)(const compiler::runtime::Value& v);
  PythonObject(py::object object, InternalForm internalForm)
      : object_(std::move(object)), internalForm_(internalForm) {}

  // A new model value holding `object` (GIL held).
  static compiler::runtime::Value make(py::object object, InternalForm internalForm) {
    return compiler::runtime::Value(
        static_cast<compiler::runtime::OpaqueObject*>(new PythonObject(std::move(object), internalForm)));
  }

  // The Python object a value holds, or null when it holds none of ours.
  static const py::object* of(const compiler::runtime::Value& v) {
    if (!v.isOpaque()) return nullptr;
    const auto* held = dynamic_cast<const PythonObject*>(&v.asOpaque());
    return held != nullptr ? &held->object_ : nullptr;
  }

  std::string str() const override;
  std::string repr() const override;
  std::string typeName() const override;
  bool equals(const compiler::runtime::Value& left, const compiler::runtime::Value& right) const override;
  bool truthy() const override;
  std::optional<std::string> format(std::string_view spec, std::string& error) const override;
  bool sized() const override;
  void dispose() override;

 private:
  ~PythonObject() = default;
  py::object object_;
  InternalForm internalForm_;
};

}  // namespace inmanta::python
