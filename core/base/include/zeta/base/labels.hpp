// Class labels beside a data matrix (one per row): picking a mini-batch's labels and scoring decisions.
// Header-only: the classifiers' files use it, and some builds compile those files without the rest of the base.
#pragma once

#include <cstdint>
#include <vector>

#include "zeta/base/error.hpp"

namespace zeta {

// labels[rows[i]] for each i, in the given order (rows may repeat).
inline std::vector<int> select_labels(const std::vector<int>& labels, const std::vector<std::int64_t>& rows) {
  std::vector<int> out(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    require(rows[i] >= 0 && static_cast<std::size_t>(rows[i]) < labels.size(), "row index out of range");
    out[i] = labels[static_cast<std::size_t>(rows[i])];
  }
  return out;
}

// ±1 labels of a one-output net from labels that are ±1 or 0, where 0 counts as −1.
inline std::vector<int> sign_labels(const std::vector<int>& labels) {
  std::vector<int> out(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) out[i] = labels[i] > 0 ? 1 : -1;
  return out;
}

// The fraction of positions where decisions and truth differ (both non-empty, of one length).
inline double error_rate(const std::vector<int>& decisions, const std::vector<int>& truth) {
  require(!truth.empty(), "error rate of no examples");
  require(decisions.size() == truth.size(), "error rate: one decision per example needed");
  std::int64_t wrong = 0;
  for (std::size_t i = 0; i < truth.size(); ++i) wrong += decisions[i] != truth[i] ? 1 : 0;
  return static_cast<double>(wrong) / static_cast<double>(truth.size());
}

}  // namespace zeta
