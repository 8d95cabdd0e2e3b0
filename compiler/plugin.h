// The plugin API: how a module (std, in C++) declares plugins the model can call, and what a
// plugin may do while it runs (spec 4.13, Appendix A.8).
//
// The compiler binds the call's arguments to the declared parameters, validates each against its
// declared type (a PluginTypeException otherwise), skips the call when an argument is unknown
// (unless the plugin accepts unknowns), calls `run`, and validates the result against the
// declared return type. A plugin reports failures by throwing one of the exceptions below.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/diag/diagnostic.h"
#include "compiler/runtime/value.h"

namespace inmanta::compiler {

struct PluginParam {
  std::string name;
  // The declared type as the reference writes it: `string`, `int`, `float`, `bool`, `number`,
  // `any`, `list`, `dict`, `string[]`, `std::Entity`, `std::OS`, `std::ipv_any_network`, ...
  std::string type;
  // A default value; `defaultIsNone` marks a `T = None` parameter: its default is null but an
  // explicit null is still rejected unless T is nullable (spec 4.13).
  std::optional<runtime::Value> defaultValue;
  bool defaultIsNone = false;
  bool keywordOnly = false;
  bool hasDefault() const { return defaultValue.has_value() || defaultIsNone; }
};

class PluginContext;

// The orchestrator as a compile's plugins reach it (std::getfact, std::server_token): given by
// the caller (the CLI, from the .inmanta settings); the compiler itself never calls a server.
class ServerConnection {
 public:
  struct Reply {
    int status = 0;              // 0: no HTTP answer (`transportError` says why)
    std::string transportError;  // e.g. "Connection refused"
    std::string body;            // the reply's JSON text
  };
  virtual ~ServerConnection() = default;
  // One call scoped to the configured environment (X-Inmanta-tid); `body` is JSON text, empty
  // for GET; `path` is `/api/v1/...` with its query string already encoded.
  virtual Reply call(const std::string& method, const std::string& path, const std::string& body) = 0;
  // `http://host:port`, for messages.
  virtual std::string address() const = 0;
};

// A fact the server could not give (export spec 1.7): listed in the version's `unknowns`.
struct UnknownParameter {
  std::string resource;   // the resource id
  std::string parameter;  // the fact's name
  std::string source = "fact";
};

// The resource id of an instance as the reference's `inmanta.resources.to_id` computes it.
struct ResourceIdentity {
  enum class State { NotAResource, Unknown, Known } state = State::NotAResource;
  std::string id;  // `std::File[host,path=/etc/motd]` when Known
};

struct PluginSpec {
  std::string ns = "std";  // the module namespace the plugin is registered in
  std::string name;        // `print`; called as `std::print`
  std::vector<PluginParam> params;
  bool varKeywords = false;  // takes **kwargs (std::template)
  // The declared types of *args and **kwargs when they are checked (Python plugins): empty, or
  // `any`, not checked.
  std::string varArgsType;  // non-empty: takes *args; the extra positional values follow
                            // the declared parameters in `run`'s args
  std::string varKeywordsType;
  std::string returnType;       // empty: no annotation, the result is not checked; "null": returns nothing
  bool acceptsUnknown = false;  // called even when an argument is unknown (is_unknown, getattr)
  bool contextAware = false;    // takes the hidden context: refused in typedef constraints
  bool deprecated = false;      // logs a PluginDeprecationWarning on every call
  std::string replacedBy;       // what the warning recommends instead, if anything
  // Where a plugin written in Python is defined (the line after its decorator, as the
  // reference's Location); its declared types are resolved there once the model is defined.
  // Invalid for std's plugins in C++.
  SourceLocation location;
  // args: one per declared parameter, in declaration order (defaults filled in); kwargs: the
  // extra keyword arguments of a **kwargs plugin.
  std::function<runtime::Value(PluginContext& ctx, const std::vector<runtime::Value>& args,
                               const std::vector<std::pair<std::string, runtime::Value>>& kwargs)>
      run;

  std::string fullName() const { return ns + "::" + name; }
};

// What a running plugin may ask of the compiler. Plugins do I/O only through this.
class PluginContext {
 public:
  virtual ~PluginContext() = default;

  // Where std::print writes (standard output of the compile).
  virtual std::ostream& out() = 0;
  // Logs a warning (e.g. PluginDeprecationWarning) on standard error.
  virtual void warn(const std::string& kind, const std::string& message) = 0;

  // The value of attribute `name` of an instance. Throws PluginSuspend when the attribute is not
  // ready yet (the call is retried when it is), PluginFailure("AttributeError", ...) when the
  // entity has no such attribute, CompileError for an OptionalValueException.
  virtual runtime::Value attribute(const runtime::Value& instance, std::string_view name) = 0;
  // The value of the variable `name` as the calling statement sees it (spec 3.13): locals of the
  // enclosing blocks; inside an implementation the instance's attributes and `self`; then the
  // top-level variables of the calling file's namespace. Throws PluginSuspend when it is not
  // ready yet, CompileError NotFoundException ("variable x not found") when there is no such
  // variable, CompileError OptionalValueException for an optional relation frozen empty.
  virtual runtime::Value variable(std::string_view name) = 0;
  // True when the instance's entity is `entityName` (fully qualified) or a subtype of it;
  // throws PluginFailure("AttributeError", ...) when no entity has that name.
  virtual bool isInstanceOf(const runtime::Value& instance, std::string_view entityName) = 0;
  // The fully qualified entity name of an instance (`__config__::A`).
  virtual std::string entityName(const runtime::Value& instance) = 0;
  // The creation ordinal of an instance in this compile (for std::objid).
  virtual size_t instanceOrdinal(const runtime::Value& instance) = 0;

  // The folder of a loaded module by name (`std`, `mymod`), or empty when there is none.
  virtual std::string moduleDir(std::string_view module) = 0;
  // The module of the file the call is written in.
  virtual std::string callingModule() = 0;
  // The namespace of the file the call is written in (`__config__`, `m::sub`).
  virtual std::string callingNamespace() = 0;
  // The project folder (the compiler's working directory for data/std/passwordfile.txt).
  virtual std::string projectDir() = 0;

  // Settings from .inmanta / the environment (compiler config), e.g. ("config", "environment").
  virtual std::optional<std::string> setting(std::string_view section, std::string_view key) = 0;
  // The server, or null when the caller gave none (a call then fails as a refused connection).
  virtual ServerConnection* server() = 0;
  // Adds a fact the server could not give to the version's `unknowns`.
  virtual void reportUnknown(UnknownParameter parameter) = 0;
  // A log line of the plugin's module (`level`: "WARNING", "INFO", "DEBUG"), shown by verbosity.
  virtual void log(std::string_view level, const std::string& message) = 0;
  // The resource id of an instance of a registered resource type (following the agent path and
  // reading the id attribute; suspends like `attribute` when a value is not ready); Unknown when
  // a value on the way is unknown; NotAResource for anything else. Throws PluginFailure when
  // the agent path does not lead to a string.
  virtual ResourceIdentity resourceId(const runtime::Value& instance) = 0;

  // Calls another registered plugin (`std::upper`) the way the reference's Python code calls a
  // plugin object (Jinja filters): the arguments are bound and type-checked as for a call in the
  // model, unknown arguments give an unknown result unless the plugin accepts them, and the
  // result is checked against the declared return type (PluginTypeException). The callee's own
  // failures (PluginFailure, ExplicitPluginFailure, CompileError, PluginSuspend) pass unwrapped.
  // Throws PluginFailure("KeyError", ...) when no plugin has that name.
  virtual runtime::Value callPlugin(std::string_view fullName, const std::vector<runtime::Value>& args,
                                    const std::vector<std::pair<std::string, runtime::Value>>& kwargs = {}) = 0;
  // The full names of every registered plugin, sorted.
  virtual std::vector<std::string> pluginNames() = 0;
  // Where the call is written: the location of compiler errors a plugin raises about the call
  // itself (the reference's `ctx.owner`).
  virtual SourceLocation callLocation() = 0;
  // State a plugin keeps for the rest of this compile, one slot per key, empty at first (the
  // caches the reference keeps in module globals and resets between compiles). Released with
  // the compile.
  virtual std::shared_ptr<void>& compileState(std::string_view key) = 0;
};

// Any failure inside a plugin other than a compiler error: reported as an ExternalException
// "Exception in plugin P" caused by `pythonType: message` (e.g. AssertionError, IndexError).
class PluginFailure : public std::exception {
 public:
  PluginFailure(std::string pythonType, std::string message, std::string traceback = {})
      : pythonType_(std::move(pythonType)), message_(std::move(message)), traceback_(std::move(traceback)) {}
  const std::string& pythonType() const { return pythonType_; }
  const std::string& message() const { return message_; }
  // Python's traceback of the failure, when it happened in Python code (shown with -X).
  const std::string& traceback() const { return traceback_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string pythonType_;
  std::string message_;
  std::string traceback_;
};

// The plugin's own dedicated error: an ExplicitPluginException "PluginException in plugin P".
class ExplicitPluginFailure : public std::exception {
 public:
  explicit ExplicitPluginFailure(std::string message) : message_(std::move(message)) {}
  const std::string& message() const { return message_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

// Thrown through a plugin by PluginContext::attribute and ::variable when a value is not ready
// yet; the compiler re-runs the call later. Plugins must let it pass.
class PluginSuspend : public std::exception {
 public:
  explicit PluginSuspend(void* variable) : variable_(variable) {}
  void* variable() const { return variable_; }
  const char* what() const noexcept override { return "suspended on an unready value"; }

 private:
  void* variable_;
};

// Every plugin of every module compiled into this binary, by full name.
class PluginRegistry {
 public:
  void add(PluginSpec spec);
  const PluginSpec* find(std::string_view fullName) const;
  // Every full name, sorted.
  std::vector<std::string> names() const;
  // The plugins registered in a module namespace, in name order.
  std::vector<const PluginSpec*> inNamespace(std::string_view ns) const;
  // Another registry whose plugins this one also offers, below its own (the built-in modules'
  // plugins under a compile's Python ones); it must outlive this one.
  void setFallback(const PluginRegistry* fallback) { fallback_ = fallback; }

 private:
  std::map<std::string, std::unique_ptr<PluginSpec>, std::less<>> plugins_;
  const PluginRegistry* fallback_ = nullptr;
};

}  // namespace inmanta::compiler
