#include "embedded/server/services/files.h"

#include <dtl/dtl.hpp>

#include <algorithm>

#include "embedded/server/errors.h"
#include "util/base64.h"
#include "util/digest.h"

namespace inmanta::server {

void FileService::upload(const std::string& hash, const std::string& base64Content) {
  std::optional<std::string> content = util::base64Decode(base64Content);
  if (!content) throw badRequest("the content of file " + hash + " is not valid base64");
  if (util::sha1Hex(*content) != hash) throw badRequest("The hash does not match the content");
  store_.putFile(hash, *content);
}

bool FileService::exists(const std::string& hash) { return store_.hasFile(hash); }

std::string FileService::download(const std::string& hash) {
  std::optional<std::string> content = store_.getFile(hash);
  if (!content) throw notFound("The file with hash " + hash + " does not exist");
  return util::base64Encode(*content);
}

std::vector<std::string> FileService::missing(const std::vector<std::string>& hashes) {
  return store_.missingFiles(hashes);
}

std::string FileService::contentOrEmpty(const std::string& hash) {
  if (hash.empty() || hash == "0") return {};
  std::optional<std::string> content = store_.getFile(hash);
  if (!content) throw notFound("The file with hash " + hash + " does not exist");
  return *content;
}

std::vector<std::string> FileService::diff(const std::string& hashA, const std::string& hashB) {
  return unifiedDiff(contentOrEmpty(hashA), contentOrEmpty(hashB), hashA, hashB);
}

namespace {

std::vector<std::string> splitKeepingNewlines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

// difflib's opcodes: equal runs, and changes (a delete, an insert or both: difflib's replace)
struct Opcode {
  bool equal;
  size_t i1, i2, j1, j2;
};

std::vector<Opcode> opcodes(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  dtl::Diff<std::string> diff(a, b);
  diff.compose();
  std::vector<Opcode> codes;
  size_t i = 0;
  size_t j = 0;
  for (const auto& [line, info] : diff.getSes().getSequence()) {
    bool equal = info.type == dtl::SES_COMMON;
    if (codes.empty() || codes.back().equal != equal) codes.push_back({equal, i, i, j, j});
    Opcode& code = codes.back();
    if (info.type != dtl::SES_ADD) code.i2 = ++i;
    if (info.type != dtl::SES_DELETE) code.j2 = ++j;
  }
  return codes;
}

// difflib._format_range_unified
std::string formatRange(size_t start, size_t stop) {
  size_t beginning = start + 1;
  size_t length = stop - start;
  if (length == 1) return std::to_string(beginning);
  if (length == 0) --beginning;
  return std::to_string(beginning) + "," + std::to_string(length);
}

}  // namespace

std::vector<std::string> unifiedDiff(const std::string& a, const std::string& b, const std::string& fromName,
                                     const std::string& toName) {
  std::vector<std::string> aLines = splitKeepingNewlines(a);
  std::vector<std::string> bLines = splitKeepingNewlines(b);
  std::vector<Opcode> codes = opcodes(aLines, bLines);
  const size_t context = 3;
  if (codes.empty()) codes.push_back({true, 0, 1, 0, 1});
  if (codes.front().equal) {
    Opcode& first = codes.front();
    first.i1 = std::max(first.i1, first.i2 - std::min(first.i2, context));
    first.j1 = std::max(first.j1, first.j2 - std::min(first.j2, context));
  }
  if (codes.back().equal) {
    Opcode& last = codes.back();
    last.i2 = std::min(last.i2, last.i1 + context);
    last.j2 = std::min(last.j2, last.j1 + context);
  }
  // difflib.get_grouped_opcodes(3)
  std::vector<std::vector<Opcode>> groups;
  std::vector<Opcode> group;
  for (Opcode code : codes) {
    if (code.equal && code.i2 - code.i1 > 2 * context) {
      group.push_back(
          {true, code.i1, std::min(code.i2, code.i1 + context), code.j1, std::min(code.j2, code.j1 + context)});
      groups.push_back(std::move(group));
      group.clear();
      code.i1 = std::max(code.i1, code.i2 - context);
      code.j1 = std::max(code.j1, code.j2 - context);
    }
    group.push_back(code);
  }
  if (!group.empty() && !(group.size() == 1 && group.front().equal)) groups.push_back(std::move(group));

  std::vector<std::string> out;
  for (const auto& hunk : groups) {
    if (out.empty()) {
      out.push_back("--- " + fromName + "\n");
      out.push_back("+++ " + toName + "\n");
    }
    out.push_back("@@ -" + formatRange(hunk.front().i1, hunk.back().i2) + " +" +
                  formatRange(hunk.front().j1, hunk.back().j2) + " @@\n");
    for (const Opcode& code : hunk) {
      if (code.equal) {
        for (size_t i = code.i1; i < code.i2; ++i) out.push_back(" " + aLines[i]);
        continue;
      }
      for (size_t i = code.i1; i < code.i2; ++i) out.push_back("-" + aLines[i]);
      for (size_t j = code.j1; j < code.j2; ++j) out.push_back("+" + bLines[j]);
    }
  }
  return out;
}

}  // namespace inmanta::server
