// Python values to model values, for the native modules of libinmanta_python.so (std::template's
// filters, modules' plugin results): None, bool, int (64 bits), float, str, lists and tuples, and
// dicts with string keys, nested; a Python object that wraps a model value (a handle, a proxy)
// gives that value back. Anything else is a TypeError raised to Python, or what the caller makes
// of it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "compiler/runtime/value.h"
#include "modules/python/python_runtime.h"

namespace inmanta::python {

// `held(o)`: the model value `o` wraps, or null when it wraps none; `to` names where the value
// goes in messages ("a plugin", "the model"); `other(o)`: the value of any other object, at any
// depth (a plugin's result keeps it as an opaque value).
template <class Held, class Other>
compiler::runtime::Value toModelValue(py::handle o, const Held& held, const std::string& to, const Other& other) {
  using compiler::runtime::Value;
  if (o.is_none()) return Value();
  if (PyBool_Check(o.ptr())) return Value(o.ptr() == Py_True);
  if (PyLong_Check(o.ptr())) {
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(o.ptr(), &overflow);
    if (overflow != 0) raise(PyExc_OverflowError, "int too large for " + to + " (64 bits)");
    if (i == -1 && PyErr_Occurred() != nullptr) throw py::error_already_set();
    return Value(static_cast<int64_t>(i));
  }
  if (PyFloat_Check(o.ptr())) return Value(PyFloat_AsDouble(o.ptr()));
  if (PyUnicode_Check(o.ptr())) return Value(o.cast<std::string>());
  if (const Value* wrapped = held(o)) return *wrapped;
  if (PyList_Check(o.ptr()) || PyTuple_Check(o.ptr())) {
    compiler::runtime::ValueList items;
    for (py::handle item : o) items.push_back(toModelValue(item, held, to, other));
    return Value(std::move(items));
  }
  if (PyDict_Check(o.ptr())) {
    compiler::runtime::ValueDict d;
    for (std::pair<py::handle, py::handle> entry : py::reinterpret_borrow<py::dict>(o)) {
      py::handle k = entry.first, item = entry.second;
      if (!PyUnicode_Check(k.ptr()))
        raise(PyExc_TypeError, "the keys of a dict passed to " + to + " must be strings, got " + typeName(k));
      d.items.emplace_back(py::str(k).cast<std::string>(), toModelValue(item, held, to, other));
    }
    return Value(std::move(d));
  }
  return other(o);
}

// The same, where any other object is a TypeError raised to Python.
template <class Held>
compiler::runtime::Value toModelValue(py::handle o, const Held& held, const std::string& to) {
  return toModelValue(o, held, to, [&](py::handle x) -> compiler::runtime::Value {
    raise(PyExc_TypeError, "a value of type " + typeName(x) + " can not be passed to " + to);
  });
}

}  // namespace inmanta::python
