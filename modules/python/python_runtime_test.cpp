#include "modules/python/python_runtime.h"

#include <gtest/gtest.h>
#include <pybind11/eval.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

namespace inmanta::python {
namespace {

// A C++ exception type Python knows nothing about.
struct Marker {
  int code;
};

// ctest runs every test in its own process; this one is first in the file for a plain run too.
TEST(PythonRuntime, LinkingStartsNothing) { EXPECT_FALSE(everStarted()); }

TEST(PythonRuntime, FirstGilStartsTheInterpreter) {
  {
    Gil gil;
    EXPECT_TRUE(running());
    EXPECT_EQ(py::eval("6 * 7").cast<int>(), 42);
  }
  Gil again;  // the second use finds it running
  EXPECT_TRUE(everStarted());
}

TEST(PythonRuntime, IsolatedFromTheUsersEnvironment) {
  Gil gil;
  py::object sys = py::module_::import("sys");
  EXPECT_EQ(sys.attr("flags").attr("isolated").cast<int>(), 1);
  // bytecode only in the user's cache folder (a mirror tree), never beside the sources
  py::object prefix = sys.attr("pycache_prefix");
  if (prefix.is_none()) {
    EXPECT_EQ(sys.attr("flags").attr("dont_write_bytecode").cast<int>(), 1);
  } else {
    EXPECT_EQ(sys.attr("flags").attr("dont_write_bytecode").cast<int>(), 0);
    std::string dir = prefix.cast<std::string>();
    const char* own = std::getenv("INMANTA_PYCACHE");
    if (own != nullptr) EXPECT_EQ(dir, own);
    else EXPECT_NE(dir.find("inmanta/pycache"), std::string::npos) << dir;
  }
}

TEST(PythonRuntime, Jinja2Loads) {
  Gil gil;
  py::object jinja = py::module_::import("jinja2");
  py::object env = jinja.attr("Environment")();
  EXPECT_EQ(env.attr("from_string")("{{ x }}-{{ y }}\n")
                .attr("render")(py::dict(py::arg("x") = 2.0, py::arg("y") = true))
                .cast<std::string>(),
            "2.0-True");  // the trailing newline dropped, as Jinja does by default
}

TEST(PythonRuntime, AnyThreadMayTakeTheGil) {
  { Gil gil; }
  int value = 0;
  std::thread other([&] {
    Gil gil;
    value = py::eval("len('four')").cast<int>();
  });
  other.join();
  EXPECT_EQ(value, 4);
}

TEST(PythonRuntime, DescribeGivesClassNameAndMessage) {
  Gil gil;
  try {
    py::exec("raise KeyError('nope')");
    FAIL() << "no exception";
  } catch (const py::error_already_set& e) {
    PythonError error = describe(e);
    EXPECT_EQ(error.type(), "KeyError");
    EXPECT_EQ(error.message(), "'nope'");
  }
  try {
    py::exec("import jinja2\njinja2.Environment(undefined=jinja2.StrictUndefined).from_string('{{ nope }}').render()");
    FAIL() << "no exception";
  } catch (const py::error_already_set& e) {
    PythonError error = describe(e);
    EXPECT_EQ(error.type(), "UndefinedError");
    EXPECT_EQ(error.message(), "'nope' is undefined");
  }
}

// A C++ callback that Python calls: its exceptions are relayed.
py::cpp_function thrower() {
  return py::cpp_function([](int code) -> int {
    return relay([&]() -> int {
      if (code < 0) throw Marker{code};
      if (code == 0) throw py::key_error("zero");
      return code * 2;
    });
  });
}

TEST(PythonRuntime, CppExceptionsCrossPythonFramesIntact) {
  Gil gil;
  py::dict scope;
  scope["f"] = thrower();
  py::exec("def through(code):\n    return [f(code)]\n", scope);
  EXPECT_EQ(callPython([&] { return scope["through"](21); })[py::int_(0)].cast<int>(), 42);
  try {
    callPython([&] { return scope["through"](-7); });
    FAIL() << "no exception";
  } catch (const Marker& m) {
    EXPECT_EQ(m.code, -7);
  }
}

TEST(PythonRuntime, PythonErrorsFromCallbacksStayPythonErrors) {
  Gil gil;
  py::dict scope;
  scope["f"] = thrower();
  py::exec("def caught():\n    try:\n        f(0)\n    except KeyError as e:\n        return 'caught ' + str(e)\n",
           scope);
  EXPECT_EQ(callPython([&] { return scope["caught"](); }).cast<std::string>(), "caught 'zero'");
  try {
    callPython([&] { return scope["f"](0); });
    FAIL() << "no exception";
  } catch (const py::error_already_set& e) {
    EXPECT_EQ(describe(e).type(), "KeyError");
  }
}

TEST(PythonRuntime, SwallowedRelayIsStillRethrown) {
  Gil gil;
  py::dict scope;
  scope["f"] = thrower();
  py::exec("def swallow():\n    try:\n        f(-1)\n    except Exception:\n        pass\n    return 1\n", scope);
  EXPECT_THROW(callPython([&] { return scope["swallow"](); }), Marker);
  // and nothing is left over for the next call
  EXPECT_EQ(callPython([&] { return scope["f"](1); }).cast<int>(), 2);
}

}  // namespace
}  // namespace inmanta::python
