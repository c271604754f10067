// Readers for the two text formats most labelled data sets come in:
// - svmlight / libsvm sparse text: "label index:value index:value ... # comment", indices 1-based and strictly
//   increasing within a line, "qid:n" tokens ignored, blank and '#' lines skipped;
// - dense CSV: numbers separated by a delimiter, optionally a header line and a label column.
// Malformed input throws Error(kFormat) whose message names the source and the 1-based line number; a file that
// cannot be opened throws Error(kIo). Numbers must be finite (nan and inf are rejected).
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "zeta/base/numerics.hpp"
#include "zeta/base/sparse.hpp"

namespace zeta {

struct SparseDataset {
  CsrMatrix x;
  std::vector<double> labels;  // one per row
};

struct SvmlightConfig {
  // Number of features; 0 infers it as the largest index seen. An index beyond a given count is an error.
  std::int64_t n_features = 0;
  // Indices count from 1 (svmlight, libsvm) unless this is set; index 0 is an error in the 1-based form.
  bool zero_based = false;
};

SparseDataset parse_svmlight(std::istream& in, const SvmlightConfig& options = {},
                             const std::string& source = "<stream>");
SparseDataset parse_svmlight_string(const std::string& text, const SvmlightConfig& options = {});
SparseDataset read_svmlight(const std::string& path, const SvmlightConfig& options = {});

struct DenseDataset {
  MatrixD x;
  std::vector<double> labels;             // empty without a label column
  std::vector<std::string> column_names;  // the header's names of the x columns, empty without a header
};

struct CsvConfig {
  char delimiter = ',';
  bool header = false;    // the first non-blank line names the columns
  int label_column = -1;  // 0-based column holding the label, -1 for none
};

DenseDataset parse_csv(std::istream& in, const CsvConfig& options = {}, const std::string& source = "<stream>");
DenseDataset parse_csv_string(const std::string& text, const CsvConfig& options = {});
DenseDataset read_csv(const std::string& path, const CsvConfig& options = {});

}  // namespace zeta
