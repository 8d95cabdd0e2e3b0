// The validators behind std::validate_type (spec A.1, A.8): what pydantic 2 (pydantic-core,
// speedate, the url and uuid crates, email-validator) accepts in lax mode for the types std's
// typedefs and models name. Each returns true when pydantic would accept the value.
#pragma once

#include <string>
#include <string_view>

#include "modules/std/plugins/std_support.h"

namespace inmanta::stdmodule::pydantic {

// datetime.date / datetime.time / datetime.datetime (speedate formats, unix timestamps for
// numbers and numeric strings as pydantic-core applies them).
bool validDate(const Value& v);
bool validTime(const Value& v);
bool validDateTime(const Value& v);

// uuid.UUID: 32 hex digits, optionally hyphenated 8-4-4-4-12, optionally as `urn:uuid:…`. The
// braced `{…}` form is rejected (spec A.1). `version` > 0 also requires that UUID version.
bool validUuid(const Value& v, int version = 0);

// The WHATWG URL parser of the `url` crate: true when the text parses as an absolute URL;
// `scheme` receives the lower-cased scheme.
bool parseUrl(std::string_view text, std::string& scheme);

// pydantic's validate_email (the "pretty" `Name <addr>` form, then email-validator with
// deliverability checks off): true when the address is accepted.
bool validEmail(const std::string& text);

// pydantic-core's lax int and float parsing of a value (bool counts as a number, strings are
// parsed). The parsed int may exceed 64 bits: `big` then holds its approximate value.
struct LaxInt {
  bool ok = false;
  int64_t value = 0;
  bool big = false;
  long double approx = 0;
};
LaxInt laxInt(const Value& v, bool strict);
struct LaxFloat {
  bool ok = false;
  double value = 0;
};
LaxFloat laxFloat(const Value& v, bool strict);

}  // namespace inmanta::stdmodule::pydantic
