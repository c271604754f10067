// Checks of option values for the zeta command line. Each failure says what the option must be and what it got
// ("must be a positive integer (got -5)"); CommandLine puts the option's name in front, so the user reads one
// sentence: "--hidden must be a positive integer (got -5)". Every option check in cli/ is one of these.
#pragma once

#include <CLI/CLI.hpp>

#include <limits>
#include <string>
#include <vector>

namespace zeta::cli {

// `highest` is what the option's variable holds (an int unless the option says otherwise).
CLI::Validator positive_integer(long long highest = std::numeric_limits<int>::max());
CLI::Validator non_negative_integer(long long highest = std::numeric_limits<int>::max());
CLI::Validator integer_in(long long lowest, long long highest);
CLI::Validator number_in(double lowest, double highest);
CLI::Validator one_of(std::vector<std::string> choices);

}  // namespace zeta::cli
