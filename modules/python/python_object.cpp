#include "modules/python/python_object.h"

#include <utility>

namespace inmanta::python {

using compiler::runtime::Value;

namespace {
// str() or repr() of an object (`render`: PyObject_Str or PyObject_Repr). One that raises gets
// what Python itself prints then (a traceback's `<exception str() failed>`): a message must
// still be made.
std::string render(const py::object& o, PyObject* (*fn)(PyObject*), const char* what) {
  Gil gil;
  PyObject* text = fn(o.ptr());
  if (text == nullptr) {
    PyErr_Clear();
    return std::string("<exception ") + what + "() failed>";
  }
  return py::reinterpret_steal<py::str>(text);
}
}  // namespace

std::string PythonObject::str() const { return render(object_, PyObject_Str, "str"); }

std::string PythonObject::repr() const { return render(object_, PyObject_Repr, "repr"); }

std::string PythonObject::typeName() const {
  Gil gil;
  return python::typeName(object_);
}

bool PythonObject::equals(const Value& left, const Value& right) const {
  Gil gil;
  auto side = [&](const Value& v) -> py::object {
    if (const py::object* o = of(v)) return *o;
    return internalForm_(v);
  };
  try {
    py::object l = side(left), r = side(right);
    // (Python's `==` operator, as the reference's Equals: no shortcut for the same object)
    PyObject* result = PyObject_RichCompare(l.ptr(), r.ptr(), Py_EQ);
    int answer = result != nullptr ? PyObject_IsTrue(result) : -1;
    Py_XDECREF(result);
    if (answer >= 0) return answer == 1;
    // an __eq__ that raises: the reference would stop on the Python error; the objects are then
    // equal only when they are the same one
    PyErr_Clear();
    return l.is(r);
  } catch (const py::error_already_set&) {
    PyErr_Clear();
    return false;
  }
}

bool PythonObject::truthy() const {
  Gil gil;
  int answer = PyObject_IsTrue(object_.ptr());
  if (answer < 0) PyErr_Clear();  // (a __bool__ that raises: taken as Python's default, true)
  return answer != 0;
}

std::optional<std::string> PythonObject::format(std::string_view spec, std::string& error) const {
  Gil gil;
  try {
    return py::str(py::module_::import("builtins").attr("format")(object_, py::str(std::string(spec))));
  } catch (const py::error_already_set& e) {
    error = describe(e).message();
    return std::nullopt;
  }
}

bool PythonObject::sized() const {
  Gil gil;
  return py::hasattr(object_, "__len__");
}

void PythonObject::dispose() {
  if (running()) {
    Gil gil;
    object_ = py::object();
  } else {
    (void)object_.release();  // the interpreter is gone, and the object with it
  }
  delete this;
}

}  // namespace inmanta::python
