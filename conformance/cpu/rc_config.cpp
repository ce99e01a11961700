// rc_config.cpp - RapidCheck defaults for the cpu label: more cases per
// property than RapidCheck's 100 (the properties are cheap). A RC_PARAMS set
// by the caller wins (e.g. RC_PARAMS="seed=123 max_success=5000").
#include <cstdlib>

namespace {
const int kRcDefaults = [] { return ::setenv("RC_PARAMS", "max_success=2000", 0); }();
}  // namespace
