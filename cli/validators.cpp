#include "validators.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace zeta::cli {
namespace {

// The whole text as a base-10 integer; false for anything else ("2.5", "1e3", "", "12abc", out of range).
bool parse_integer(const std::string& text, long long& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtoll(text.c_str(), &end, 10);
  return errno == 0 && *end == '\0';
}

bool parse_number(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtod(text.c_str(), &end);
  return errno == 0 && *end == '\0' && std::isfinite(value);
}

std::string got(const std::string& text) { return " (got " + (text.empty() ? std::string("nothing") : text) + ")"; }

std::string number_text(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", x);
  return buffer;
}

// "must be a positive integer (got x)", naming the bound only when the value is an integer beyond it.
CLI::Validator bounded_integer(long long lowest, long long highest, const std::string& kind, const std::string& name) {
  return CLI::Validator(
      [lowest, highest, kind](std::string& text) -> std::string {
        long long value = 0;
        const bool integer = parse_integer(text, value);
        if (integer && value >= lowest && value <= highest) return "";
        if (integer && value > highest)
          return "must be " + kind + " no larger than " + std::to_string(highest) + got(text);
        return "must be " + kind + got(text);
      },
      name);
}

}  // namespace

CLI::Validator positive_integer(long long highest) {
  return bounded_integer(1, highest, "a positive integer", "POSITIVE");
}

CLI::Validator non_negative_integer(long long highest) {
  return bounded_integer(0, highest, "0 or a positive integer", "NONNEGATIVE");
}

CLI::Validator integer_in(long long lowest, long long highest) {
  const std::string range = std::to_string(lowest) + " to " + std::to_string(highest);
  return CLI::Validator(
      [lowest, highest, range](std::string& text) -> std::string {
        long long value = 0;
        return parse_integer(text, value) && value >= lowest && value <= highest
                   ? ""
                   : "must be an integer from " + range + got(text);
      },
      "[" + std::to_string(lowest) + ", " + std::to_string(highest) + "]");
}

CLI::Validator number_in(double lowest, double highest) {
  const std::string range = number_text(lowest) + " to " + number_text(highest);
  return CLI::Validator(
      [lowest, highest, range](std::string& text) -> std::string {
        double value = 0.0;
        return parse_number(text, value) && value >= lowest && value <= highest
                   ? ""
                   : "must be a number from " + range + got(text);
      },
      "[" + number_text(lowest) + ", " + number_text(highest) + "]");
}

CLI::Validator one_of(std::vector<std::string> choices) {
  std::string listed;
  for (const std::string& choice : choices) listed += (listed.empty() ? "" : ", ") + choice;
  const std::string description = "{" + listed + "}";
  return CLI::Validator(
      [choices = std::move(choices), listed](std::string& text) -> std::string {
        for (const std::string& choice : choices)
          if (text == choice) return "";
        return "must be one of " + listed + got(text);
      },
      description);
}

}  // namespace zeta::cli
