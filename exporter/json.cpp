#include "exporter/json.h"

#include <cmath>

#include "util/resource_id.h"
#include "util/unknown.h"

namespace inmanta::exporter {

using compiler::runtime::Value;

namespace {

void appendEscape(std::string& out, unsigned unit) {
  static const char* hex = "0123456789abcdef";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += hex[(unit >> shift) & 15];
}

// Decodes one UTF-8 sequence at `i`; returns U+FFFD (and advances one byte) on invalid input.
unsigned decodeUtf8(std::string_view s, size_t& i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  int extra = c >= 0xF8 ? -1 : c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC2 ? 1 : -1;
  if (extra < 0 || i + static_cast<size_t>(extra) >= s.size()) {
    ++i;
    return 0xFFFD;
  }
  unsigned cp = c & (0x3F >> extra);
  for (int k = 1; k <= extra; ++k) {
    unsigned char cc = byte(i + k);
    if ((cc & 0xC0) != 0x80) {
      ++i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (cc & 0x3F);
  }
  if ((extra == 2 && cp < 0x800) || (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF))) {
    ++i;
    return 0xFFFD;
  }
  i += extra + 1;
  return cp;
}

}  // namespace

void appendJsonString(std::string& out, std::string_view text) {
  out += '"';
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '/':
          if (i > 0 && text[i - 1] == '<') out += "\\/";
          else out += '/';
          break;
        default:
          if (c < 0x20 || c == 0x7F) appendEscape(out, c);
          else out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    unsigned cp = decodeUtf8(text, i);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      appendEscape(out, 0xD800 + (cp >> 10));
      appendEscape(out, 0xDC00 + (cp & 0x3FF));
    } else {
      appendEscape(out, cp);
    }
  }
  out += '"';
}

void appendJsonValue(std::string& out, const Value& v) {
  switch (v.type()) {
    case Value::Type::Null: out += "null"; return;
    case Value::Type::Bool: out += v.asBool() ? "true" : "false"; return;
    case Value::Type::Int: out += std::to_string(v.asInt()); return;
    case Value::Type::Float: {
      double d = v.asFloat();
      if (std::isnan(d)) out += "NaN";
      else if (std::isinf(d)) out += d > 0 ? "Infinity" : "-Infinity";
      else out += compiler::runtime::formatFloat(d);
      return;
    }
    case Value::Type::String: appendJsonString(out, v.asString()); return;
    case Value::Type::List: {
      out += '[';
      bool first = true;
      for (const Value& e : v.asList()) {
        if (!first) out += ", ";
        first = false;
        appendJsonValue(out, e);
      }
      out += ']';
      return;
    }
    case Value::Type::Dict: {
      out += '{';
      bool first = true;
      for (const auto& [k, e] : v.asDict().items) {
        if (!first) out += ", ";
        first = false;
        appendJsonString(out, k);
        out += ": ";
        appendJsonValue(out, e);
      }
      out += '}';
      return;
    }
    case Value::Type::Instance: throw ExportError(v.asInstance()->display() + " is not JSON serializable");
    // (the reference's JSON encoder: `repr(o) + " is not JSON serializable"`)
    case Value::Type::Opaque: throw ExportError(v.asOpaque().repr() + " is not JSON serializable");
    case Value::Type::Unknown: appendJsonString(out, util::kUnknownMarker); return;
  }
}

void appendResourceJson(std::string& out, const Resource& r, long long version) {
  out += '{';
  for (const auto& [name, value] : r.fields) {
    appendJsonString(out, name);
    out += ": ";
    appendJsonValue(out, value);
    out += ", ";
  }
  out += "\"requires\": [";
  for (size_t i = 0; i < r.requires_.size(); ++i) {
    if (i) out += ", ";
    appendJsonString(out, r.requires_[i]);
  }
  out += "], \"id\": ";
  appendJsonString(out, util::versionedId(r.rid, version));
  out += '}';
}

std::string resourcesJson(const std::vector<Resource>& resources) {
  std::string out = "[";
  for (size_t i = 0; i < resources.size(); ++i) {
    if (i) out += ", ";
    appendResourceJson(out, resources[i]);
  }
  out += ']';
  return out;
}

}  // namespace inmanta::exporter
