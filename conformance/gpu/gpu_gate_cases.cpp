// gpu_gate_cases.cpp - the gate's recipe enumeration (gpu_gate_cases.hpp).
#include "gpu_gate_cases.hpp"

#include "mx/recipe.hpp"

namespace gate {

std::vector<std::string> main_recipes() { return mx::recipe_names(); }

std::vector<std::string> option_recipes() {
  std::vector<std::string> v;
  for (const std::string& r : mx::recipe_names()) {
    const bool fp8 = r.rfind("mxfp8_", 0) == 0;
    const std::string nan = fp8 ? ":nan_canonical" : ":nan_to_max";
    v.push_back(r + nan);
    v.push_back(r + ":nonfinite_block_ignore");
    v.push_back(r + nan + ":nonfinite_block_ignore");
  }
  return v;
}

}  // namespace gate
