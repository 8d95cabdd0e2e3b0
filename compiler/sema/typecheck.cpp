#include "compiler/sema/typecheck.h"

#include "compiler/runtime/instance.h"
#include "compiler/sema/define.h"

namespace inmanta::compiler::sema {

using runtime::Value;

namespace {
std::optional<Diagnostic> invalid(const Value& v, const std::string& expected) {
  return Diagnostic(ErrorKind::RuntimeException, "Invalid value '" + runtime::str(v) + "', expected " + expected);
}
// The reference's list types (List, TypedList, LiteralList) and the Literal union refuse with a
// TypingException; the other types with a RuntimeException.
std::optional<Diagnostic> invalidTyping(const Value& v, const std::string& expected) {
  return Diagnostic(ErrorKind::TypingException, "Invalid value '" + runtime::str(v) + "', expected " + expected);
}

bool isLiteral(const Value& v) {
  switch (v.type()) {
    case Value::Type::Instance:
    case Value::Type::Opaque: return false;  // (the reference's Literal union refuses a Python object)
    case Value::Type::List:
      for (const Value& e : v.asList())
        if (!isLiteral(e)) return false;
      return true;
    case Value::Type::Dict:
      for (const auto& [k, e] : v.asDict().items)
        if (!isLiteral(e)) return false;
      return true;
    case Value::Type::Null:
    case Value::Type::Bool:
    case Value::Type::Int:
    case Value::Type::Float:
    case Value::Type::String:
    case Value::Type::Unknown: return true;
  }
  __builtin_unreachable();  // (the switch above names every value)
}

std::optional<Diagnostic> validatePrimitive(model::Primitive p, const Value& v) {
  switch (p) {
    case model::Primitive::String: return v.isString() ? std::nullopt : invalid(v, "string");
    case model::Primitive::Int: return v.isInt() || v.isBool() ? std::nullopt : invalid(v, "int");
    case model::Primitive::Float: return v.isFloat() ? std::nullopt : invalid(v, "float");
    case model::Primitive::Number: return v.isNumber() ? std::nullopt : invalid(v, "number");
    case model::Primitive::Bool: return v.isBool() ? std::nullopt : invalid(v, "bool");
    case model::Primitive::List: return v.isList() && isLiteral(v) ? std::nullopt : invalidTyping(v, "list");
    case model::Primitive::Dict:
      if (!v.isDict()) return invalid(v, "dict");
      return isLiteral(v) ? std::nullopt : invalidTyping(v, "dict");
    case model::Primitive::Any: return std::nullopt;
  }
  return std::nullopt;
}
}  // namespace

std::optional<Diagnostic> validateValue(const model::Type* type, const Value& v, const ConstraintCheck& check) {
  if (v.isUnknown()) return std::nullopt;
  switch (type->kind()) {
    case model::Type::Kind::Primitive:
      return validatePrimitive(static_cast<const model::PrimitiveType*>(type)->primitive, v);
    case model::Type::Kind::Nullable:
      if (v.isNull()) return std::nullopt;
      return validateValue(static_cast<const model::NullableType*>(type)->element, v, check);
    case model::Type::Kind::List: {
      if (!v.isList()) return invalidTyping(v, type->name());
      const model::Type* element = static_cast<const model::ListType*>(type)->element;
      for (const Value& e : v.asList()) {
        if (e.isList() || e.isNull()) return invalid(e, element->name());
        if (auto err = validateValue(element, e, check)) return err;
      }
      return std::nullopt;
    }
    case model::Type::Kind::Typedef: {
      auto* t = static_cast<const model::Typedef*>(type);
      if (auto err = validateValue(t->base, v, check)) return err;
      if (check) return check(*t, v);
      return std::nullopt;
    }
    case model::Type::Kind::Entity: {
      if (!v.isInstance()) return invalid(v, type->name());
      auto* instance = static_cast<const runtime::Instance*>(v.asInstance());
      if (instance->entity->isA(static_cast<const model::Entity*>(type))) return std::nullopt;
      return Diagnostic(ErrorKind::RuntimeException,
                        "Invalid class type for " + instance->display() + ", should be " + type->name());
    }
  }
  return std::nullopt;
}

std::optional<Diagnostic> validatePluginType(const model::Model& model, const model::Namespace* ns,
                                             const std::string& type, const Value& v, const ConstraintCheck& check) {
  if (v.isUnknown() || type == "any") return std::nullopt;
  // a type in parentheses (Python plugins' `(int|string)[]`)
  if (type.size() > 2 && type.front() == '(' && type.back() == ')') {
    int depth = 0;
    bool whole = true;
    for (size_t i = 0; i + 1 < type.size(); ++i) {
      if (type[i] == '(') ++depth;
      if (type[i] == ')' && --depth == 0) whole = false;  // closes before the end: `(a)|(b)`
    }
    if (whole) return validatePluginType(model, ns, type.substr(1, type.size() - 2), v, check);
  }
  // a union (Python plugins' `int | str`): the first alternative that accepts the value
  {
    std::vector<std::string> alternatives;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < type.size(); ++i) {
      if (type[i] == '[' || type[i] == '(') ++depth;
      if (type[i] == ']' || type[i] == ')') --depth;
      if (type[i] == '|' && depth == 0) {
        alternatives.push_back(type.substr(start, i - start));
        start = i + 1;
      }
    }
    if (!alternatives.empty()) {
      alternatives.push_back(type.substr(start));
      std::optional<Diagnostic> last;
      for (std::string& alternative : alternatives) {
        while (!alternative.empty() && alternative.front() == ' ') alternative.erase(0, 1);
        while (!alternative.empty() && alternative.back() == ' ') alternative.pop_back();
        last = validatePluginType(model, ns, alternative, v, check);
        if (!last) return std::nullopt;
      }
      return invalid(v, type);
    }
  }
  // a dict of typed values (Python plugins' `dict[str, T]`)
  if (type.size() > 6 && type.compare(0, 5, "dict[") == 0 && type.back() == ']') {
    if (!v.isDict()) return invalid(v, type);
    std::string element = type.substr(5, type.size() - 6);
    for (const auto& entry : v.asDict().items)
      if (auto err = validatePluginType(model, ns, element, entry.second, check)) return err;
    return std::nullopt;
  }
  if (type.size() > 1 && type.back() == '?') {
    if (v.isNull()) return std::nullopt;
    return validatePluginType(model, ns, type.substr(0, type.size() - 1), v, check);
  }
  if (type.size() > 2 && type.compare(type.size() - 2, 2, "[]") == 0) {
    if (!v.isList()) return invalidTyping(v, type);
    for (const Value& e : v.asList()) {
      if (e.isNull() || e.isList()) return invalid(e, type.substr(0, type.size() - 2));
      if (auto err = validatePluginType(model, ns, type.substr(0, type.size() - 2), e, check)) return err;
    }
    return std::nullopt;
  }
  if (type == "list") return v.isList() ? std::nullopt : invalidTyping(v, "list");
  if (type == "dict") return v.isDict() ? std::nullopt : invalid(v, "dict");
  if (type == "null") return std::nullopt;
  const model::Type* primitive = nullptr;
  ast::Name name(type, {});
  const model::Definition* def = nullptr;
  try {
    def = resolveName(model, ns, name, &primitive);
  } catch (const CompileError&) {
    return std::nullopt;  // a type this build does not know: accept
  }
  if (primitive != nullptr) return validateValue(primitive, v, check);
  if (def->kind == model::Definition::Kind::Typedef) return validateValue(def->typedefType(), v, check);
  if (def->kind == model::Definition::Kind::Entity) return validateValue(def->entity(), v, check);
  return std::nullopt;
}

}  // namespace inmanta::compiler::sema
