// The text readers (text_data.hpp): svmlight/libsvm files into CSR rows and CSV files into dense rows, with
// errors that name the file, line and token.
#include "zeta/base/text_data.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "zeta/base/error.hpp"

namespace zeta {
namespace {

[[noreturn]] void fail(const std::string& source, std::int64_t line, const std::string& what) {
  throw Error(ErrorCode::kFormat, source + ":" + std::to_string(line) + ": " + what);
}

// Parses the whole of token as a finite double; false if it is not one.
bool parse_double(const std::string& token, double& out) {
  if (token.empty()) return false;
  const char* begin = token.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (end != begin + token.size()) return false;
  if (!std::isfinite(v)) return false;
  if (errno == ERANGE && v != 0.0) return false;  // overflow (underflow to a denormal or zero is accepted)
  out = v;
  return true;
}

bool parse_int64(const std::string& token, std::int64_t& out) {
  if (token.empty()) return false;
  for (std::size_t i = 0; i < token.size(); ++i) {
    const char c = token[i];
    if (!((c >= '0' && c <= '9') || (i == 0 && (c == '-' || c == '+')))) return false;
  }
  if (token.size() == 1 && (token[0] == '-' || token[0] == '+')) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(token.c_str(), &end, 10);
  if (errno == ERANGE) return false;
  out = static_cast<std::int64_t>(v);
  return true;
}

std::string shorten(const std::string& token) { return token.size() > 40 ? token.substr(0, 40) + "..." : token; }

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return s.substr(b, e - b);
}

}  // namespace

SparseDataset parse_svmlight(std::istream& in, const SvmlightConfig& options, const std::string& source) {
  require(options.n_features >= 0, "n_features must be non-negative");
  SparseDataset d;
  d.x.indptr.assign(1, 0);
  std::int64_t max_index = -1;
  std::string line;
  std::int64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (line.find('\0') != std::string::npos) fail(source, line_no, "NUL byte in text");
    std::istringstream tokens(line);
    std::string token;
    if (!(tokens >> token)) continue;  // blank or comment-only line
    double label = 0.0;
    if (!parse_double(token, label)) fail(source, line_no, "label '" + shorten(token) + "' is not a finite number");
    std::int64_t previous = -1;
    while (tokens >> token) {
      const auto colon = token.find(':');
      if (colon == std::string::npos) fail(source, line_no, "expected index:value, got '" + shorten(token) + "'");
      const std::string key = token.substr(0, colon);
      const std::string value_text = token.substr(colon + 1);
      if (key == "qid") {
        std::int64_t qid = 0;
        if (!parse_int64(value_text, qid)) fail(source, line_no, "bad qid '" + shorten(value_text) + "'");
        continue;
      }
      std::int64_t index = 0;
      if (!parse_int64(key, index)) fail(source, line_no, "feature index '" + shorten(key) + "' is not an integer");
      const std::int64_t col = options.zero_based ? index : index - 1;
      if (col < 0) {
        fail(source, line_no,
             "feature index " + std::to_string(index) + " is below " +
                 (options.zero_based ? "0" : "1 (indices are 1-based)"));
      }
      if (col >= static_cast<std::int64_t>(INT32_MAX)) fail(source, line_no, "feature index is too large");
      if (options.n_features > 0 && col >= options.n_features) {
        fail(source, line_no,
             "feature index " + std::to_string(index) + " exceeds the " + std::to_string(options.n_features) +
                 " features");
      }
      if (col <= previous) fail(source, line_no, "feature indices must be strictly increasing");
      previous = col;
      double value = 0.0;
      if (!parse_double(value_text, value)) {
        fail(source, line_no, "value '" + shorten(value_text) + "' is not a finite number");
      }
      if (value != 0.0) {
        d.x.indices.push_back(static_cast<std::int32_t>(col));
        d.x.values.push_back(value);
      }
      if (col > max_index) max_index = col;
    }
    d.labels.push_back(label);
    d.x.indptr.push_back(static_cast<std::int64_t>(d.x.values.size()));
  }
  if (in.bad()) throw Error(ErrorCode::kIo, source + ": read error");
  d.x.rows = static_cast<std::int64_t>(d.labels.size());
  d.x.cols = options.n_features > 0 ? options.n_features : max_index + 1;
  return d;
}

SparseDataset parse_svmlight_string(const std::string& text, const SvmlightConfig& options) {
  std::istringstream in(text);
  return parse_svmlight(in, options, "<string>");
}

SparseDataset read_svmlight(const std::string& path, const SvmlightConfig& options) {
  std::ifstream in(path);
  if (!in) throw Error(ErrorCode::kIo, "cannot open '" + path + "'");
  return parse_svmlight(in, options, path);
}

DenseDataset parse_csv(std::istream& in, const CsvConfig& options, const std::string& source) {
  require(options.label_column >= -1, "label_column must be -1 or a column index");
  require(options.delimiter != '\n' && options.delimiter != '\r' && options.delimiter != '\0', "bad delimiter");
  DenseDataset d;
  std::vector<double> values;
  std::int64_t n_columns = -1;
  std::int64_t rows = 0;
  bool header_pending = options.header;
  std::string line;
  std::int64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (trim(line).empty()) continue;
    if (line.find('\0') != std::string::npos) fail(source, line_no, "NUL byte in text");
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (true) {
      const auto pos = line.find(options.delimiter, start);
      fields.push_back(trim(line.substr(start, pos == std::string::npos ? std::string::npos : pos - start)));
      if (pos == std::string::npos) break;
      start = pos + 1;
    }
    const auto n = static_cast<std::int64_t>(fields.size());
    if (n_columns < 0) {
      n_columns = n;
      if (options.label_column >= n) {
        fail(source, line_no,
             "label column " + std::to_string(options.label_column) + " is beyond the " + std::to_string(n) +
                 " columns");
      }
    } else if (n != n_columns) {
      fail(source, line_no, "has " + std::to_string(n) + " fields, expected " + std::to_string(n_columns));
    }
    if (header_pending) {
      header_pending = false;
      for (std::int64_t c = 0; c < n; ++c) {
        if (c != options.label_column) d.column_names.push_back(fields[static_cast<std::size_t>(c)]);
      }
      continue;
    }
    for (std::int64_t c = 0; c < n; ++c) {
      double v = 0.0;
      const std::string& f = fields[static_cast<std::size_t>(c)];
      if (!parse_double(f, v)) {
        fail(source, line_no, "field " + std::to_string(c + 1) + " '" + shorten(f) + "' is not a finite number");
      }
      if (c == options.label_column) {
        d.labels.push_back(v);
      } else {
        values.push_back(v);
      }
    }
    ++rows;
  }
  if (in.bad()) throw Error(ErrorCode::kIo, source + ": read error");
  const std::int64_t x_cols = n_columns < 0 ? 0 : n_columns - (options.label_column >= 0 ? 1 : 0);
  // Every value and label read is in memory, so the counts are Eigen sizes (32 bits in the WebAssembly module).
  const auto n_rows = static_cast<Eigen::Index>(rows), n_cols = static_cast<Eigen::Index>(x_cols);
  d.x.resize(n_rows, n_cols);
  for (Eigen::Index r = 0; r < n_rows; ++r) {
    for (Eigen::Index c = 0; c < n_cols; ++c) d.x(r, c) = values[static_cast<std::size_t>(r * n_cols + c)];
  }
  return d;
}

DenseDataset parse_csv_string(const std::string& text, const CsvConfig& options) {
  std::istringstream in(text);
  return parse_csv(in, options, "<string>");
}

DenseDataset read_csv(const std::string& path, const CsvConfig& options) {
  std::ifstream in(path);
  if (!in) throw Error(ErrorCode::kIo, "cannot open '" + path + "'");
  return parse_csv(in, options, path);
}

}  // namespace zeta
