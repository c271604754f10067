// Errors raised by the zeta core. The C API maps each code one-to-one onto zeta_status.
#pragma once

#include <stdexcept>
#include <string>

namespace zeta {

enum class ErrorCode {
  kArgument = 1,
  kMemory = 2,
  kIo = 3,
  kFormat = 4,
  kNumeric = 5,
  kCancelled = 6,
  kUnsupported = 7,
  kInternal = 8,
};

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

// Argument checks read better as one line at the top of a function.
inline void require(bool condition, const std::string& message, ErrorCode code = ErrorCode::kArgument) {
  if (!condition) throw Error(code, message);
}

}  // namespace zeta
