// std plugins: string (spec Appendix A.8). Strings are sequences of code points (decision 9.1):
// lengths, slices and case mappings work on code points with Python's full Unicode mappings.
#include "modules/std/plugins/std_plugins.h"
#include "modules/std/plugins/std_support.h"
#include "util/digest.h"

#include <stdexcept>

namespace inmanta::stdmodule {

namespace {

// Python str.replace(old, new): every non-overlapping occurrence from the left; an empty `old`
// inserts `new` before every code point and at the end.
std::string pyReplace(const std::string& s, const std::string& from, const std::string& to) {
  std::string out;
  if (from.empty()) {
    std::vector<size_t> offsets = codePointOffsets(s);
    for (size_t k = 0; k + 1 < offsets.size(); ++k) {
      out += to;
      out.append(s, offsets[k], offsets[k + 1] - offsets[k]);
    }
    return out + to;
  }
  size_t pos = 0;
  while (true) {
    size_t hit = s.find(from, pos);
    if (hit == std::string::npos) break;
    out.append(s, pos, hit - pos);
    out += to;
    pos = hit + from.size();
  }
  out.append(s, pos, std::string::npos);
  return out;
}

// Python str.split(sep) with a non-empty separator.
ValueList pySplit(const std::string& s, const std::string& sep) {
  ValueList parts;
  size_t pos = 0;
  while (true) {
    size_t hit = s.find(sep, pos);
    if (hit == std::string::npos) break;
    parts.emplace_back(s.substr(pos, hit - pos));
    pos = hit + sep.size();
  }
  parts.emplace_back(s.substr(pos));
  return parts;
}

// the seed's MD5 as hex; a libcrypto without MD5 fails the call as Python's hashlib would
std::string seedDigest(const std::string& seed) {
  try {
    return util::md5Hex(seed);
  } catch (const std::runtime_error&) {
    fail("ValueError", "md5 is not available");
  }
}

bool isBase64Char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

// Python base64.b64decode(s, validate=True) succeeds: whole quanta of 4 alphabet characters, the
// last one possibly `xx==` or `xxx=`; nothing else (no whitespace, no excess padding). Unused
// bits of the last quantum are not checked, as in CPython's strict mode.
bool isStrictBase64(std::string_view s) {
  if (s.size() % 4 != 0) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (isBase64Char(c)) continue;
    if (c != '=') return false;
    size_t fromEnd = s.size() - i;  // 2: "xx==" third position, 1: last position
    if (fromEnd == 1) continue;
    if (fromEnd == 2 && s[i + 1] == '=') continue;
    return false;
  }
  return true;
}

}  // namespace

void registerStringPlugins(PluginRegistry& registry) {
  addPlugin(registry, "replace", {param("string", "string"), param("old", "string"), param("new", "string")}, "string",
            [](PluginContext&, const Args& a, const Kwargs&) {
              return Value(pyReplace(a[0].asString(), a[1].asString(), a[2].asString()));
            });
  addPlugin(registry, "capitalize", {param("string", "string")}, "string",
            [](PluginContext&, const Args& a, const Kwargs&) {
              return Value(caseMap(a[0].asString(), CaseMode::Capitalize));
            });
  addPlugin(registry, "upper", {param("string", "string")}, "string", [](PluginContext&, const Args& a, const Kwargs&) {
    return Value(caseMap(a[0].asString(), CaseMode::Upper));
  });
  addPlugin(registry, "lower", {param("string", "string")}, "string", [](PluginContext&, const Args& a, const Kwargs&) {
    return Value(caseMap(a[0].asString(), CaseMode::Lower));
  });
  addPlugin(registry, "limit", {param("string", "string"), param("length", "int")}, "string",
            [](PluginContext&, const Args& a, const Kwargs&) {
              // Python string[:length]
              const std::string& s = a[0].asString();
              std::vector<size_t> offsets = codePointOffsets(s);
              auto n = static_cast<int64_t>(offsets.size() - 1);
              int64_t end = a[1].toInt();
              if (end < 0) end = std::max<int64_t>(0, n + end);
              end = std::min(end, n);
              return Value(s.substr(0, offsets[static_cast<size_t>(end)]));
            });
  addPlugin(registry, "length", {param("value", "string")}, "int", [](PluginContext&, const Args& a, const Kwargs&) {
    return Value(static_cast<int64_t>(codePointCount(a[0].asString())));
  });
  addPlugin(registry, "split", {param("string_list", "string"), param("delim", "string")}, "list",
            [](PluginContext&, const Args& a, const Kwargs&) {
              if (a[1].asString().empty()) fail("ValueError", "empty separator");
              return Value(pySplit(a[0].asString(), a[1].asString()));
            });
  addPlugin(registry, "hostname", {param("fqdn", "string")}, "string",
            [](PluginContext&, const Args& a, const Kwargs&) {
              const std::string& fqdn = a[0].asString();
              return Value(fqdn.substr(0, fqdn.find('.')));
            });
  // `length` is accepted and unused, as in the reference
  addPlugin(registry, "unique_file",
            {param("prefix", "string"), param("seed", "string"), param("suffix", "string"),
             param("length", "int", Value(20))},
            "string", [](PluginContext&, const Args& a, const Kwargs&) {
              return Value(a[0].asString() + seedDigest(a[1].asString()) + a[2].asString());
            });
  addPlugin(registry, "is_base64_encoded", {param("s", "string")}, "bool",
            [](PluginContext&, const Args& a, const Kwargs&) { return Value(isStrictBase64(a[0].asString())); });
}

}  // namespace inmanta::stdmodule
