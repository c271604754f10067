// The zeta command line: the CLI11 app, the flags every command shares, and each command family's subcommands with
// what they run once the arguments are parsed. A command family adds its subcommands in its own file
// (add_<family>_commands) and is registered by one line in main.cpp.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace zeta::cli {

// Flags given before or after the subcommand, shared by every command.
struct GlobalOptions {
  bool quiet = false;  // no progress display
};

class CommandLine {
 public:
  using Action = std::function<int(const GlobalOptions&)>;

  CommandLine();

  // Adds a subcommand; `action` runs (with the parsed global flags) if it is the subcommand given, and returns the
  // exit status. The options it reads must outlive the parse: commands keep them in storage the action owns.
  CLI::App* add_command(const std::string& name, const std::string& description, Action action);

  // Parses argv and runs the chosen command. Errors are one line on stderr with exit status 1 (2 for usage errors).
  int run(int argc, char** argv);

 private:
  CLI::App app_;
  GlobalOptions global_;
  std::vector<std::pair<CLI::App*, Action>> commands_;
};

}  // namespace zeta::cli
