// Progress reporting for long calls. The callback runs on the caller's thread; returning false cancels the
// work, which then throws Error(kCancelled) and leaves every model it touched in a valid state.
#pragma once

#include <cstdint>
#include <functional>

namespace zeta {

struct Progress {
  const char* stage = "";  // e.g. "exact log Z", "AIS", "training"
  std::int64_t done = 0;
  std::int64_t total = 0;
  double value = 0.0;  // a stage-specific running figure (a running estimate), NaN when there is none
};

using ProgressCallback = std::function<bool(const Progress&)>;

}  // namespace zeta
