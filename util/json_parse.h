// nlohmann::json::parse of a large request body, on two threads. A version upload is one JSON
// object of a few megabytes, nearly all of it one array (`resources`: 10,000 resources are 4.4
// MB), and nlohmann parses it on one core at about 60 MB/s while the other core waits.
// Here the text is first split (a scan that only follows strings and brackets): the object's
// largest array member is cut into its elements, which two threads parse, and the rest of the
// object is parsed as it is. The value is the one nlohmann::json::parse gives; whenever the split
// is not plain (not an object, a key given twice, an element that does not parse, anything
// after the object), the whole text goes to nlohmann::json::parse, which gives its own value or
// its own parse_error.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace inmanta::util {

// Below this size a text is parsed by nlohmann::json::parse alone.
constexpr std::size_t kParallelParseFrom = 256 * 1024;

// nlohmann::json::parse(text), the large array of an object on two threads when the text has
// `minimum` bytes or more (tests split small texts).
nlohmann::json parseJson(std::string_view text, std::size_t minimum = kParallelParseFrom);

// The split parse alone: nothing when the text is not split (it would be parsed whole). Tests.
std::optional<nlohmann::json> parseJsonSplit(std::string_view text, std::size_t minimum = 0);

}  // namespace inmanta::util
