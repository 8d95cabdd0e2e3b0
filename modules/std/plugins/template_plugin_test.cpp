// Unit tests of std::template (spec A.8): the real Jinja2 in the embedded CPython of
// libinmanta_python.so, loaded with dlopen() as the inmanta executable loads it, first against the
// fake plugin context, then through whole compiles with the compiler's own context.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/driver.h"
#include "modules/std/plugins/plugin_test_support.h"
#include "modules/std/plugins/std_support.h"

namespace inmanta::stdmodule::testing {
namespace {

namespace fs = std::filesystem;
using compiler::CompileError;
using compiler::ErrorKind;
using compiler::PluginSuspend;

void write(const std::string& path, const std::string& content) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out << content;
}

// This build tree's module, whatever else is installed (set before the first render).
void useBuiltModule() { setenv("INMANTA_PYTHON_MODULE", INMANTA_PYTHON_MODULE_PATH, 1); }

// Whether a file whose name contains `name` is mapped into this process.
bool mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find(name) != std::string::npos) return true;
  return false;
}

// A scratch folder with a project (templates/) and a module `mod` (templates/), plus `bare`, a
// module without templates.
class TemplatePlugin : public StdPluginTest {
 protected:
  TemplatePlugin() {
    std::string pattern = (fs::temp_directory_path() / "inmanta_template_test_XXXXXX").string();
    root_ = mkdtemp(pattern.data());
    ctx.project = root_ + "/project";
    ctx.moduleDirs["mod"] = root_ + "/mod";
    ctx.moduleDirs["bare"] = root_ + "/bare";
    fs::create_directories(root_ + "/bare/model");
    ctx.registry = &registry;
    useBuiltModule();
  }
  ~TemplatePlugin() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // Renders `text` as a new template of `mod` (a compile loads each template once).
  Value render(const std::string& text, const Kwargs& kwargs = {}) {
    return call("template", {newTemplate(text)}, kwargs);
  }
  std::string newTemplate(const std::string& text) {
    std::string name = "t" + std::to_string(++count_) + ".j2";
    write(root_ + "/mod/templates/" + name, text);
    return "mod/" + name;
  }
  std::string rendered(const std::string& text, const Kwargs& kwargs = {}) {
    Value v = render(text, kwargs);
    if (!v.isString()) return "<not a string: " + compiler::runtime::repr(v) + ">";
    return v.asString();
  }
  // The kind and message of the compiler error a render raises.
  std::string compileError(const std::string& text, const Kwargs& kwargs = {}) {
    try {
      Value v = render(text, kwargs);
      return "no error, rendered " + compiler::runtime::repr(v);
    } catch (const CompileError& e) {
      return std::string(compiler::kindName(e.diagnostic().kind)) + ": " + e.diagnostic().message;
    }
  }
  std::string renderFailure(const std::string& text) { return failure("template", {newTemplate(text)}); }

  std::string root_;
  int count_ = 0;
};

// ------------------------------------------------------------------ paths

TEST_F(TemplatePlugin, RendersAModuleTemplateDroppingTheFinalNewline) {
  ctx.variables["name"] = Value("web");
  EXPECT_EQ(rendered("server {{ name }};\n"), "server web;");
  EXPECT_EQ(rendered("two\n\n"), "two\n");
}

TEST_F(TemplatePlugin, ProjectTemplatesHaveAnEmptyPrefix) {
  write(ctx.project + "/templates/top.j2", "top {{ 1 + 1 }}");
  write(ctx.project + "/templates/sub/deep.j2", "deep");
  EXPECT_EQ(str("template", {"/top.j2"}), "top 2");
  EXPECT_EQ(str("template", {"/sub/deep.j2"}), "deep");
}

TEST_F(TemplatePlugin, DotSlashIsTheCallingModule) {
  write(root_ + "/mod/templates/own.j2", "own");
  ctx.module = "mod::sub";
  EXPECT_EQ(str("template", {"./own.j2"}), "own");
  ctx.module = "__config__";
  EXPECT_EQ(failure("template", {"./own.j2"}),
            "Exception: Unable to determine current module for path ./own.j2, called from __config__");
}

TEST_F(TemplatePlugin, MissingTemplatesAreTemplateNotFound) {
  write(root_ + "/mod/templates/t.j2", "x");
  write(ctx.project + "/templates/other.j2", "x");
  EXPECT_EQ(failure("template", {"mod/missing.j2"}), "TemplateNotFound: mod/missing.j2");
  EXPECT_EQ(failure("template", {"nomod/t.j2"}), "TemplateNotFound: nomod/t.j2");
  EXPECT_EQ(failure("template", {"bare/t.j2"}), "TemplateNotFound: bare/t.j2");
  EXPECT_EQ(failure("template", {"/t.j2"}), "TemplateNotFound: /t.j2");
  EXPECT_EQ(failure("template", {"no-slash"}), "TemplateNotFound: no-slash");
}

TEST_F(TemplatePlugin, TemplateErrorsAreNamedAfterTheJinjaException) {
  EXPECT_EQ(renderFailure("{% if x %}"),
            "TemplateSyntaxError: Unexpected end of template. Jinja was looking for the following tags: 'elif' or "
            "'else' or 'endif'. The innermost block that needs to be closed is 'if'.");
  EXPECT_EQ(renderFailure("{{ 1 / 0 }}"), "ZeroDivisionError: division by zero");
}

// ------------------------------------------------------------------ variables

TEST_F(TemplatePlugin, ValuesRenderAsPythonDoes) {
  ctx.variables = {{"f", Value(2.0)},     {"i", Value(3)},         {"t", Value(true)},   {"n", Value()},
                   {"l", list({1, "a"})}, {"d", dict({{"k", 1}})}, {"s", Value("héllo")}};
  EXPECT_EQ(rendered("{{ f }} {{ i }} {{ t }} {{ n }} {{ l }} {{ d }} {{ s }}"),
            "2.0 3 True None @[1, 'a'] @{'k': 1} héllo");
}

TEST_F(TemplatePlugin, ListsAndDictsAreProxies) {
  ctx.variables["l"] = list({"a", "b", list({1, 2})});
  ctx.variables["d"] = dict({{"x", 1}, {"y", list({"z"})}});
  EXPECT_EQ(rendered("{% for e in l %}[{{ e }}]{% endfor %} {{ l | length }} {{ l[0] }}{{ l[-2] }} {{ l[2][1] }} {{ "
                     "l[1:] }}"),
            "[a][b][@[1, 2]] 3 ab 2 @['b', [1, 2]]");
  EXPECT_EQ(rendered(
                "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %} {{ d.x }} {{ d['y'][0] }} {{ d | length }}"),
            "x=1;y=@['z']; 1 z 2");
  EXPECT_EQ(rendered(
                "{{ 'a' in l }} {{ 'q' in l }} {{ 'x' in d }} {{ l == ['a', 'b', [1, 2]] }} {{ l[7] is defined }}"),
            "True False True True False");
  EXPECT_EQ(compileError("{{ l.zz }}"), "RuntimeException: can not get a attribute zz, ['a', 'b', [1, 2]] is a list");
  EXPECT_EQ(compileError("{{ d[1] }}"),
            "RuntimeException: Expected string key, but got 1, {'x': 1, 'y': ['z']} is a dict");
  EXPECT_EQ(compileError("{{ d.nope }}"),
            "NotFoundException: 'inmanta_plugins.std.DictProxy object' has no attribute 'nope'");
}

TEST_F(TemplatePlugin, InstancesReadAttributesThroughTheCompiler) {
  FakeInstance os("std::OS", {{"name", Value("linux")}});
  FakeInstance host("std::Host", {{"name", Value("h1")}, {"os", instance(os)}, {"port", Value(22)}});
  ctx.variables["host"] = instance(host);
  EXPECT_EQ(rendered("{{ host.name }}:{{ host.port }} {{ host.os.name | std.upper }}"), "h1:22 LINUX");
  // reference: a missing attribute is a lenient Undefined, empty and false
  EXPECT_EQ(rendered("[{{ host.nope }}] {{ host.nope is defined }} {% if not host.nope %}no{% endif %}"),
            "[] False no");
  host.unready.push_back("port");
  EXPECT_THROW(render("{{ host.port }}"), PluginSuspend);
}

TEST_F(TemplatePlugin, UndefinedVariableIsANotFoundException) {
  EXPECT_EQ(compileError("a {{ nope }} b"), "NotFoundException: 'nope' is undefined");
  EXPECT_EQ(rendered("{% if nope is defined %}yes{% else %}no{% endif %} {{ nope | default('dflt') }}"), "no dflt");
}

TEST_F(TemplatePlugin, UnreadyVariablesSuspendTheCall) {
  ctx.variables["ready"] = Value(1);
  ctx.unreadyVariables.push_back("late");
  EXPECT_EQ(rendered("{{ ready }}"), "1");
  EXPECT_THROW(render("{{ ready }} {{ late }}"), PluginSuspend);
}

TEST_F(TemplatePlugin, UnknownValuesMakeTheResultUnknown) {
  ctx.variables["u"] = Value::unknown();
  ctx.variables["l"] = list({1, Value::unknown()});
  EXPECT_TRUE(render("x {{ u }}").isUnknown());
  EXPECT_TRUE(render("{{ l[1] }}").isUnknown());
  EXPECT_EQ(rendered("{{ l[0] }} {{ l | length }}"), "1 2");  // only what the template reads
  EXPECT_TRUE(render("{{ v }}", {{"v", Value::unknown()}}).isUnknown());
}

TEST_F(TemplatePlugin, WithKwargsOnlyTheKwargsAreVisible) {
  ctx.variables["scoped"] = Value("s");
  EXPECT_EQ(rendered("{{ a }}-{{ b[1] }}", {{"a", Value(1)}, {"b", list({"x", "y"})}}), "1-y");
  EXPECT_EQ(compileError("{{ a }}{{ scoped }}", {{"a", Value(1)}}), "NotFoundException: 'scoped' is undefined");
  EXPECT_EQ(rendered("{{ scoped }}"), "s");
}

// ------------------------------------------------------------------ plugins as filters

TEST_F(TemplatePlugin, PluginsAreFiltersWithDots) {
  ctx.variables["s"] = Value("hello");
  EXPECT_EQ(rendered("{{ s | std.upper }} {{ s | std.limit(3) }} {{ s | std.capitalize | std.length }}"),
            "HELLO hel 5");
  EXPECT_EQ(rendered("{{ std is defined }}"), "False");  // filters only, no variable named std
  EXPECT_EQ(renderFailure("{{ s | std.nope }}"), "TemplateAssertionError: No filter named 'std.nope'.");
}

TEST_F(TemplatePlugin, FilterFailuresPassAsTheyAre) {
  EXPECT_EQ(renderFailure("{{ false | std.assert('boom') }}"), "AssertionError: Assertion error: boom");
  EXPECT_EQ(renderFailure("{{ 'x' | std.upper(y=1) }}"),
            "TypeError: _plugin_filter.<locals>.safewrapper() got an unexpected keyword argument 'y'");
  EXPECT_EQ(compileError("{{ nope | std.upper }}"), "NotFoundException: 'nope' is undefined");
}

// ------------------------------------------------------------------ caching and start-up

TEST_F(TemplatePlugin, TemplatesAreLoadedOncePerCompile) {
  write(root_ + "/mod/templates/t.j2", "first");
  EXPECT_EQ(str("template", {"mod/t.j2"}), "first");
  write(root_ + "/mod/templates/t.j2", "second");
  EXPECT_EQ(str("template", {"mod/t.j2"}), "first");  // this compile keeps what it loaded
  FakePluginContext next;
  next.moduleDirs = ctx.moduleDirs;
  EXPECT_EQ(spec("template").run(next, {Value("mod/t.j2")}, {}).asString(), "second");
}

TEST_F(TemplatePlugin, PythonStartsOnTheFirstTemplateOnly) {
  if (templateEngineLoaded()) GTEST_SKIP() << "an earlier test in this process rendered (ctest runs one per process)";
  EXPECT_EQ(str("upper", {"a"}), "A");
  EXPECT_FALSE(templatePythonStarted());
  EXPECT_FALSE(mapped("libinmanta_python"));
  EXPECT_FALSE(mapped("libpython"));
  EXPECT_EQ(rendered("x"), "x");
  EXPECT_TRUE(templateEngineLoaded());
  EXPECT_TRUE(templatePythonStarted());
  EXPECT_TRUE(mapped("libinmanta_python"));
  EXPECT_TRUE(mapped("libpython"));
}

// The module has its own copies of the exception types' type_info; catching goes by name, so
// exceptions thrown on either side of the dlopen() boundary are caught on the other.
TEST_F(TemplatePlugin, ExceptionsCrossTheModuleBoundary) {
  // the context's CompileError (NotFoundException), caught in the module: an undefined name
  EXPECT_EQ(rendered("{{ nope is defined }}"), "False");
  // the context's PluginFailure (AttributeError), caught in the module: a missing attribute
  FakeInstance host("std::Host", {{"name", Value("h1")}});
  ctx.variables["host"] = instance(host);
  EXPECT_EQ(rendered("[{{ host.nope }}]"), "[]");
  // the context's PluginSuspend, carried through Jinja's frames and out of the module
  ctx.unreadyVariables.push_back("late");
  EXPECT_THROW(render("{{ late }}"), PluginSuspend);
  // a plugin's PluginFailure, from a filter: through the module and back
  EXPECT_EQ(renderFailure("{{ false | std.assert('boom') }}"), "AssertionError: Assertion error: boom");
  // the module's own CompileError and PluginFailure
  EXPECT_EQ(compileError("{{ nope }}"), "NotFoundException: 'nope' is undefined");
  EXPECT_THROW(render("{{ 1 / 0 }}"), PluginFailure);
}

// ------------------------------------------------------------------ whole compiles

// A project in a scratch folder compiled in this process with every std plugin.
class TemplateCompile : public ::testing::Test {
 protected:
  TemplateCompile() {
    std::string pattern = (fs::temp_directory_path() / "inmanta_template_compile_XXXXXX").string();
    root_ = mkdtemp(pattern.data());
    write(root_ + "/project.yml", "name: t\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n");
    registerStdPlugins(registry_);
    setenv("INMANTA_STD_PATH", INMANTA_SOURCE_STD_DIR, 1);
    useBuiltModule();
  }
  ~TemplateCompile() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // Compiles main.cf; returns standard output, or "FAILED:" and the diagnostic.
  std::string compile(const std::string& mainCf) {
    write(root_ + "/main.cf", mainCf);
    compiler::CompileOptions options;
    options.projectDir = root_;
    options.plugins = &registry_;
    std::ostringstream out, err;
    compiler::CompileStatus status = compiler::runCompile(options, out, err);
    if (status != compiler::CompileStatus::Success) {
      std::string e = err.str();
      size_t at = e.find("Error: ");
      return "FAILED: " + (at == std::string::npos ? e : e.substr(at));
    }
    return out.str();
  }

  std::string root_;
  compiler::PluginRegistry registry_;
};

TEST_F(TemplateCompile, ImplementationScopeAttributesAndLocals) {
  write(root_ + "/libs/web/module.yml", "name: web\nversion: 1.0.0\nlicense: ASL\n");
  write(root_ + "/libs/web/templates/site.j2",
        "{{ name }}:{{ port }} {{ local }} {{ mod_var }}{% for a in aliases %} {{ a | std.upper }}{% endfor %}"
        " {{ self.__class__.__name__ }}\n");  // `self` is Jinja's own name for the template
  write(root_ + "/libs/web/model/_init.cf",
        "mod_var = \"m\"\n"
        "entity Site:\n  string name\n  int port\n  string[] aliases\n  string out\nend\n"
        "implementation render for Site:\n  local = \"l\"\n  self.out = std::template(\"./site.j2\")\nend\n"
        "implement Site using render\n");
  EXPECT_EQ(compile("import web\n"
                    "s = web::Site(name=\"shop\", aliases=[\"a\", \"b\"])\n"
                    "std::print(s.out)\n"
                    "s.port = 443\n"),  // assigned after the template is first tried: the call waits
            "shop:443 l m A B TemplateReference\n");
}

TEST_F(TemplateCompile, TopLevelNamesOfTheCallingFile) {
  write(root_ + "/templates/t.j2", "{{ x }} {{ y | std.limit(2) }}");
  EXPECT_EQ(compile("std::print(std::template(\"/t.j2\"))\nx = 1.0\ny = \"abc\"\n"), "1.0 ab\n");
}

TEST_F(TemplateCompile, UndefinedVariableIsWrapped) {
  write(root_ + "/templates/t.j2", "{{ nope }}");
  std::string result = compile("x = std::template(\"/t.j2\")\n");
  EXPECT_NE(result.find("Error: WrappingRuntimeException: Exception in plugin std::template (./main.cf:1:5)"),
            std::string::npos)
      << result;
  EXPECT_NE(result.find("caused by: NotFoundException: 'nope' is undefined (./main.cf:1:5)"), std::string::npos)
      << result;
}

TEST_F(TemplateCompile, FilterArgumentsAreTypeChecked) {
  write(root_ + "/templates/t.j2", "{{ 3 | std.upper }}");
  std::string result = compile("x = std::template(\"/t.j2\")\n");
  EXPECT_NE(result.find("Error: WrappingRuntimeException: Exception in plugin std::template"), std::string::npos)
      << result;
  EXPECT_NE(result.find("caused by: PluginTypeException: Value 3 for argument string of plugin std::upper"),
            std::string::npos)
      << result;
}

TEST_F(TemplateCompile, HostUriOfTheStdModule) {
  EXPECT_EQ(compile("h = std::Host(name=\"h1\", os=std::linux, ip=\"10.0.0.1\", remote_agent=true)\n"
                    "a = std::AgentConfig[agentname=\"h1\"]\n"
                    "std::print(a.uri)\n"),
            "ssh://root@10.0.0.1:22?python=python\n");
}

TEST_F(TemplateCompile, CompilesWithoutTemplatesNeverStartPython) {
  if (templateEngineLoaded()) GTEST_SKIP() << "an earlier test in this process rendered (ctest runs one per process)";
  EXPECT_EQ(compile("std::print(std::upper(\"a\"))\n"), "A\n");
  EXPECT_FALSE(templateEngineLoaded());
  EXPECT_FALSE(mapped("libinmanta_python"));
  EXPECT_FALSE(mapped("libpython"));
}

}  // namespace
}  // namespace inmanta::stdmodule::testing
