#include "embedded/server/arguments.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <stdexcept>

#include "embedded/server/errors.h"
#include "embedded/store/ids.h"

namespace inmanta::server {

namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string lowerCase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  return text;
}

const char* typeName(ArgType type) {
  switch (type) {
    case ArgType::uuid: return "uuid";
    case ArgType::integer: return "int";
    case ArgType::number: return "float";
    case ArgType::boolean: return "bool";
    case ArgType::string: return "str";
    case ArgType::list: return "list";
    case ArgType::dict: return "dict";
    case ArgType::any: return "any";
  }
  return "any";
}

// A whole-string integer, or nullopt.
std::optional<std::int64_t> integerText(const std::string& text) {
  try {
    size_t used = 0;
    long long n = std::stoll(text, &used, 10);
    if (used == text.size() && !text.empty() && !std::isspace(static_cast<unsigned char>(text[0]))) return n;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

nlohmann::json convertScalar(ArgType type, const nlohmann::json& value) {
  switch (type) {
    case ArgType::uuid: {
      if (!value.is_string()) throw std::invalid_argument("UUID input should be a string");
      std::optional<std::string> id = store::canonicalUuid(value.get<std::string>());
      if (!id) throw std::invalid_argument("Input should be a valid UUID, invalid character or length");
      return *id;
    }
    case ArgType::integer: {
      if (value.is_number_integer()) return value;
      if (value.is_number_float()) {
        double d = value.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) return static_cast<std::int64_t>(d);
        throw std::invalid_argument("Input should be a valid integer, got a number with a fractional part");
      }
      if (value.is_string())
        if (std::optional<std::int64_t> n = integerText(value.get<std::string>())) return *n;
      throw std::invalid_argument("Input should be a valid integer");
    }
    case ArgType::number: {
      if (value.is_number()) return value;
      if (value.is_string()) {
        const std::string text = value.get<std::string>();
        try {
          size_t used = 0;
          double d = std::stod(text, &used);
          if (used == text.size() && std::isfinite(d)) return d;
        } catch (const std::exception&) {
        }
      }
      throw std::invalid_argument("Input should be a valid number");
    }
    case ArgType::boolean: {
      if (value.is_boolean()) return value;
      if (value.is_number_integer() && (value.get<std::int64_t>() == 0 || value.get<std::int64_t>() == 1))
        return value.get<std::int64_t>() == 1;
      if (value.is_string()) {
        std::string text = lowerCase(value.get<std::string>());
        if (text == "true" || text == "1" || text == "yes" || text == "on") return true;
        if (text == "false" || text == "0" || text == "no" || text == "off") return false;
      }
      throw std::invalid_argument("Input should be a valid boolean");
    }
    case ArgType::string:
      if (!value.is_string()) throw std::invalid_argument("Input should be a valid string");
      return value;
    case ArgType::dict:
      if (!value.is_object()) throw std::invalid_argument("Input should be a valid dictionary");
      return value;
    case ArgType::list:
    case ArgType::any: return value;
  }
  return value;
}

// Whether converting `value` to `arg`'s type gives the value as it is (anything for `any`, an object
// for a dict, an array of `any` items for a list): such a value is moved into the arguments, not
// converted into a copy — a put_version's resources are megabytes of JSON.
bool keptAsIs(const Arg& arg, const nlohmann::json& value) {
  switch (arg.type) {
    case ArgType::any: return true;
    case ArgType::dict: return value.is_object();
    case ArgType::list: return value.is_array() && arg.element == ArgType::any;
    default: return false;
  }
}

}  // namespace

std::string percentDecode(const std::string& text, bool plusIsSpace) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%' && i + 2 < text.size()) {
      int high = hexValue(text[i + 1]);
      int low = hexValue(text[i + 2]);
      if (high >= 0 && low >= 0) {
        out += static_cast<char>(high * 16 + low);
        i += 2;
        continue;
      }
    }
    out += (plusIsSpace && c == '+') ? ' ' : c;
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> parseQueryString(const std::string& query) {
  std::vector<std::pair<std::string, std::string>> pairs;
  size_t start = 0;
  while (start <= query.size()) {
    size_t amp = query.find('&', start);
    std::string part = query.substr(start, amp == std::string::npos ? std::string::npos : amp - start);
    if (!part.empty()) {
      size_t eq = part.find('=');
      std::string name = percentDecode(part.substr(0, eq), true);
      std::string value = eq == std::string::npos ? "" : percentDecode(part.substr(eq + 1), true);
      pairs.emplace_back(std::move(name), std::move(value));
    }
    if (amp == std::string::npos) break;
    start = amp + 1;
  }
  return pairs;
}

nlohmann::json convertArgument(const Arg& arg, const nlohmann::json& value) {
  if (arg.type != ArgType::list) return convertScalar(arg.type, value);
  if (!value.is_array()) throw std::invalid_argument("Input should be a valid list");
  nlohmann::json items = nlohmann::json::array();
  for (const auto& item : value) items.push_back(convertScalar(arg.element, item));
  return items;
}

nlohmann::json validateArguments(const std::vector<Arg>& declared, RawArguments raw, bool acceptsExtraFields) {
  auto find = [&](const std::string& name) -> const Arg* {
    for (const Arg& arg : declared)
      if (arg.name == name) return &arg;
    return nullptr;
  };

  // Gather the raw values: the body, then the query (a list may repeat, a dict uses dotted
  // names), then the path. Query strings only carry text; the conversion below turns it into the
  // declared type.
  // Percent-escapes can spell any bytes; what reaches a service (and a store, whose text columns
  // are UTF-8) must be text. A JSON body was checked by its parser already.
  auto requireText = [](const std::string& name, const std::string& value) {
    try {
      (void)nlohmann::json(value).dump();
    } catch (const nlohmann::json::type_error&) {
      throw HttpError(400, "Invalid request: Failed to validate argument " + name + ": the value is not valid UTF-8");
    }
  };
  for (const auto& [name, value] : raw.query) requireText(name, value);
  for (const auto& [name, value] : raw.path) requireText(name, value);

  nlohmann::json values = raw.body.is_object() ? std::move(raw.body) : nlohmann::json::object();
  std::set<std::string> unknown;
  for (const auto& [name, value] : raw.query) {
    const Arg* arg = find(name);
    size_t dot = name.find('.');
    if (arg == nullptr && dot != std::string::npos) {
      const Arg* dictArg = find(name.substr(0, dot));
      if (dictArg != nullptr && dictArg->type == ArgType::dict) {
        nlohmann::json& dict = values[dictArg->name];
        if (!dict.is_object()) dict = nlohmann::json::object();
        std::string key = name.substr(dot + 1);
        // A repeated key collects its values in a list (filter.status=a&filter.status=b).
        if (!dict.contains(key)) dict[key] = value;
        else if (dict[key].is_array()) dict[key].push_back(value);
        else dict[key] = nlohmann::json::array({dict[key], value});
        continue;
      }
    }
    if (arg != nullptr && arg->type == ArgType::list) {
      nlohmann::json& list = values[name];
      if (!list.is_array()) list = nlohmann::json::array();
      list.push_back(value);
    } else {
      values[name] = value;
    }
  }
  for (const auto& [name, value] : raw.path) values[name] = value;

  if (raw.tidHeader && find("tid") != nullptr) {
    if (values.contains("tid") && !values["tid"].is_null()) {
      std::optional<std::string> a = store::canonicalUuid(*raw.tidHeader);
      std::optional<std::string> b = values["tid"].is_string() ? store::canonicalUuid(values["tid"].get<std::string>())
                                                               : std::nullopt;
      if (!a || !b || *a != *b)
        throw badRequest(
            "Value for argument tid was provided via a header and a non-header argument, but both "
            "values don't match (header=" +
            *raw.tidHeader + "; non-header=" +
            (values["tid"].is_string() ? values["tid"].get<std::string>() : values["tid"].dump()) + ")");
    }
    values["tid"] = *raw.tidHeader;
  }

  for (const auto& [name, value] : values.items())
    if (find(name) == nullptr) unknown.insert(name);
  if (!unknown.empty() && !acceptsExtraFields) {
    std::string names;
    for (const auto& name : unknown) names += (names.empty() ? "'" : ", '") + name + "'";
    throw badRequest("request contains fields {" + names +
                     "} that are not declared in method and no kwargs argument is provided.");
  }

  nlohmann::json args = nlohmann::json::object();
  nlohmann::json errors = nlohmann::json::array();
  for (const Arg& arg : declared) {
    if (!values.contains(arg.name) || values[arg.name].is_null()) {
      if (arg.required) throw badRequest("Field '" + arg.name + "' is required.");
      if (!arg.fallback.is_null()) args[arg.name] = arg.fallback;
      continue;
    }
    if (keptAsIs(arg, values[arg.name])) {
      args[arg.name] = std::move(values[arg.name]);
      continue;
    }
    try {
      args[arg.name] = convertArgument(arg, values[arg.name]);
    } catch (const std::invalid_argument& e) {
      errors.push_back(
          {{"loc", {arg.name}}, {"msg", e.what()}, {"type", typeName(arg.type)}, {"input", values[arg.name]}});
    }
  }
  if (!errors.empty()) {
    std::string message = "Failed to validate argument";
    for (const auto& error : errors)
      message += "\n" + error["loc"][0].get<std::string>() + ": " + error["msg"].get<std::string>();
    throw badRequest(message, nlohmann::json{{"validation_errors", errors}});
  }
  if (acceptsExtraFields)
    for (const auto& name : unknown) args[name] = values[name];
  return args;
}

}  // namespace inmanta::server
