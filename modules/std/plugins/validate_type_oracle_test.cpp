// std::validate_type against a table of answers recorded from the reference stack: pydantic
// 2.13.4 (pydantic-core 2.46.4) in lax mode, inmanta-core 19's parametrize_type, std's catching
// of ValidationError/ValueError, and email-validator 2.3.0 for the e-mail types. The table is
// validate_type_oracle.json (its path: INMANTA_VALIDATE_TYPE_ORACLE); each row is [type, value,
// validation_parameters or null, the reference's answer]. Cases where the reference raises
// another Python error are tested in validate_type_test.cpp.
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "modules/std/plugins/plugin_test_support.h"

namespace inmanta::stdmodule::testing {
namespace {

// A JSON value of the table as a model value: ints stay ints, numbers with a point or exponent
// are floats, dicts keep their keys' order.
Value fromJson(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::null: return Value();
    case nlohmann::ordered_json::value_t::boolean: return Value(j.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer: return Value(j.get<int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned:
      if (j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) throw std::runtime_error("integer out of range");
      return Value(static_cast<int64_t>(j.get<uint64_t>()));
    case nlohmann::ordered_json::value_t::number_float: return Value(j.get<double>());
    case nlohmann::ordered_json::value_t::string: return Value(j.get<std::string>());
    case nlohmann::ordered_json::value_t::array: {
      ValueList items;
      for (const auto& e : j) items.push_back(fromJson(e));
      return Value(std::move(items));
    }
    case nlohmann::ordered_json::value_t::object: {
      ValueDict d;
      for (const auto& [k, v] : j.items()) d.items.emplace_back(k, fromJson(v));
      return Value(std::move(d));
    }
    default: throw std::runtime_error("unexpected JSON value " + j.dump());
  }
}

nlohmann::ordered_json readOracle() {
  std::ifstream in(INMANTA_VALIDATE_TYPE_ORACLE);
  if (!in) throw std::runtime_error("cannot read " INMANTA_VALIDATE_TYPE_ORACLE);
  return nlohmann::ordered_json::parse(in).at("cases");
}

using ValidateTypeOracle = StdPluginTest;

TEST_F(ValidateTypeOracle, AgreesWithPydantic) {
  size_t checked = 0;
  for (const auto& row : readOracle()) {
    ASSERT_EQ(row.size(), 4u) << row.dump();
    std::string type = row[0].get<std::string>();
    Value value = fromJson(row[1]);
    Value parameters = fromJson(row[2]);
    bool expected = row[3].get<bool>();
    Value result = call("validate_type", {Value(type), value, parameters});
    ASSERT_TRUE(result.isBool()) << type;
    EXPECT_EQ(result.asBool(), expected) << type << " " << row[1].dump() << " " << row[2].dump();
    ++checked;
  }
  EXPECT_GT(checked, 1500u);
  RecordProperty("cases", static_cast<int>(checked));
}

}  // namespace
}  // namespace inmanta::stdmodule::testing
