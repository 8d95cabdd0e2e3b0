// inmanta-cli's output: tables in the reference's style, --json, Python's str() of values, and
// percent-encoding for the paths it requests.
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iostream>

#include "cli/inmanta_cli/session.h"

namespace inmanta::cli::client {

namespace {

// Characters on screen of UTF-8 text (code points; every one taken as one column wide).
std::size_t displayWidth(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

// The byte offset after `columns` code points of `text` (or its size).
std::size_t byteOffset(const std::string& text, std::size_t columns) {
  std::size_t i = 0;
  for (std::size_t seen = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (seen == columns) break;
      ++seen;
    }
  }
  return i;
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    lines.push_back(text.substr(start, nl - start));
  lines.push_back(text.substr(start));
  return lines;
}

// `text`'s lines, each broken to at most `width` columns: at the last space that fits, else hard.
std::vector<std::string> wrapCell(const std::string& text, std::size_t width) {
  std::vector<std::string> out;
  for (std::string line : splitLines(text)) {
    while (displayWidth(line) > width) {
      std::size_t cut = byteOffset(line, width);
      std::size_t space = line.rfind(' ', cut);
      if (space != std::string::npos && space > 0) {
        out.push_back(line.substr(0, space));
        line = line.substr(space + 1);
      } else {
        out.push_back(line.substr(0, cut));
        line = line.substr(cut);
      }
    }
    out.push_back(line);
  }
  return out;
}

std::string pad(const std::string& text, std::size_t width, bool centre) {
  std::size_t fill = width > displayWidth(text) ? width - displayWidth(text) : 0;
  if (!centre) return text + std::string(fill, ' ');
  return std::string(fill / 2, ' ') + text + std::string(fill - fill / 2, ' ');
}

std::string rule(const std::vector<std::size_t>& widths, char c) {
  std::string line = "+";
  for (std::size_t w : widths) line += std::string(w + 2, c) + "+";
  return line + "\n";
}

std::string drawRow(const std::vector<std::string>& cells, const std::vector<std::size_t>& widths, bool centre) {
  std::vector<std::vector<std::string>> wrapped;
  std::size_t height = 1;
  for (std::size_t i = 0; i < widths.size(); ++i) {
    wrapped.push_back(wrapCell(i < cells.size() ? cells[i] : "", widths[i]));
    height = std::max(height, wrapped.back().size());
  }
  std::string out;
  for (std::size_t line = 0; line < height; ++line) {
    out += "|";
    for (std::size_t i = 0; i < widths.size(); ++i)
      out += " " + pad(line < wrapped[i].size() ? wrapped[i][line] : "", widths[i], centre) + " |";
    out += "\n";
  }
  return out;
}

// The terminal's width when standard output is one; 0 (no limit) otherwise.
std::size_t terminalWidth() {
  if (!isatty(STDOUT_FILENO)) return 0;
  struct winsize size {};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

void appendQuoted(std::string& out, const std::string& text) {
  // Python's repr of a str: single quotes unless the text holds one and no double quote.
  char quote = text.find('\'') != std::string::npos && text.find('"') == std::string::npos ? '"' : '\'';
  out += quote;
  for (char c : text) {
    if (c == '\\') out += "\\\\";
    else if (c == quote) out += std::string("\\") + quote;
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else out += c;
  }
  out += quote;
}

void appendRepr(std::string& out, const json& value) {
  if (value.is_string()) appendQuoted(out, value.get<std::string>());
  else if (value.is_array()) {
    out += "[";
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (i) out += ", ";
      appendRepr(out, value[i]);
    }
    out += "]";
  } else if (value.is_object()) {
    out += "{";
    bool first = true;
    for (const auto& [key, item] : value.items()) {
      if (!first) out += ", ";
      first = false;
      appendQuoted(out, key);
      out += ": ";
      appendRepr(out, item);
    }
    out += "}";
  } else out += pythonStr(value);
}

}  // namespace

std::string formatTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                        std::size_t maxWidth) {
  std::vector<std::size_t> widths(header.size(), 0);
  auto measure = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < widths.size() && i < cells.size(); ++i)
      for (const std::string& line : splitLines(cells[i])) widths[i] = std::max(widths[i], displayWidth(line));
  };
  measure(header);
  for (const auto& row : rows) measure(row);
  // Narrow the widest column, a column at a time, until the table fits (borders: 3 per column + 1).
  if (maxWidth > 0) {
    const std::size_t minimum = 8;
    for (;;) {
      std::size_t total = 1;
      for (std::size_t w : widths) total += w + 3;
      auto widest = std::max_element(widths.begin(), widths.end());
      if (total <= maxWidth || widest == widths.end() || *widest <= minimum) break;
      --*widest;
    }
  }
  std::string out = rule(widths, '-') + drawRow(header, widths, true) + rule(widths, '=');
  for (const auto& row : rows) out += drawRow(row, widths, false);
  return out + rule(widths, '-');
}

void printTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::cout << formatTable(header, rows, terminalWidth()) << std::flush;
}

void printJson(const json& value) { std::cout << value.dump(2) << "\n" << std::flush; }

std::string pythonStr(const json& value) {
  if (value.is_null()) return "None";
  if (value.is_boolean()) return value.get<bool>() ? "True" : "False";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return value.dump();
  std::string out;
  appendRepr(out, value);
  return out;
}

std::string field(const json& object, const std::string& key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return "";
  return pythonStr(*it);
}

std::string urlEncode(const std::string& text) {
  static const char* const kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
    else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace inmanta::cli::client
