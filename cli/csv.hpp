// CSV outputs of the commands.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>
#include <utility>

#include "zeta/base/model_file.hpp"

namespace zeta::cli {

// A CSV table kept in memory and written whole: save() replaces the file atomically, so a long run that saves after
// every row and is stopped early leaves a complete file of the rows so far, never a torn one.
class CsvFile {
 public:
  CsvFile(std::string path, const std::string& header) : path_(std::move(path)), text_(header + "\n") {}

  // Appends one row, formatted as by printf (without the newline).
  __attribute__((format(printf, 2, 3))) void add_row(const char* format, ...) {
    va_list args;
    va_start(args, format);
    va_list again;
    va_copy(again, args);
    const int length = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    std::string row(static_cast<std::size_t>(length) + 1, '\0');
    std::vsnprintf(row.data(), row.size(), format, again);
    va_end(again);
    row.back() = '\n';
    text_ += row;
  }

  void save() const { write_file_atomic(path_, Bytes(text_.begin(), text_.end())); }

 private:
  std::string path_;
  std::string text_;
};

}  // namespace zeta::cli
