// A workload's name as a GoogleTest parameter name, which allows only letters,
// digits and '_' ("vecadd-pt" -> "vecadd_pt").
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

namespace gpumux::test {

inline std::string workload_test_name(std::string_view workload) {
  std::string name(workload);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

}  // namespace gpumux::test
