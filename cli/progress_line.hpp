// The commands' progress display.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdio>

#include <unistd.h>

#include "zeta/base/progress.hpp"

namespace zeta::cli {

// A one-line progress display on stderr, redrawn at most 10 times a second; only on a terminal, where \r
// redraws the line (in a log file it would pile up).
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled && isatty(fileno(stderr)) != 0) {}
  bool operator()(const Progress& p) {
    if (!enabled_) return true;
    const auto now = std::chrono::steady_clock::now();
    if (p.done < p.total && now - last_ < std::chrono::milliseconds(100)) return true;
    last_ = now;
    std::fprintf(stderr, "\r%-14s %5.1f%%", p.stage, p.total > 0 ? 100.0 * double(p.done) / double(p.total) : 0.0);
    if (std::isfinite(p.value)) std::fprintf(stderr, "  %.4f", p.value);
    if (p.done >= p.total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
    return true;
  }

 private:
  bool enabled_;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace zeta::cli
