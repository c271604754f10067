#include "command_line.hpp"

#include <cstddef>
#include <cstdio>
#include <exception>
#include <string>

#include "cpu_path.h"
#include "zeta/base/build_info.hpp"
#include "zeta/base/error.hpp"

namespace zeta::cli {

CommandLine::CommandLine()
    : app_("zeta: RBMs with tracked partition functions, and classifiers with hard normalisers") {
  app_.require_subcommand(1);
  // Usage errors start with "zeta: ", as the commands' own errors do. The option checks (validators.hpp) say what a
  // value must be; CLI11 reports them as "<option>: must be ...", printed as one sentence: "--hidden must be ...".
  app_.failure_message([](const CLI::App*, const CLI::Error& e) {
    std::string message = e.what();
    const std::size_t colon = message.find(": must be ");
    if (dynamic_cast<const CLI::ValidationError*>(&e) != nullptr && colon != std::string::npos) message.erase(colon, 1);
    return "zeta: " + message + "\nRun with --help for more information.\n";
  });
  app_.add_flag("-q,--quiet", global_.quiet, "no progress display");
  app_.fallthrough();  // global flags may follow the subcommand
  // What a seed's numbers depend on besides the thread count: the version, the products' backend (chosen when
  // zeta was built, cmake/ZetaBlas.cmake), the instruction set and the CPU path (zeta_build_info's text).
  app_.set_version_flag("--version",
                        [] { return zeta::build_info(ZETA_CLI_VERSION) + "\nCPU path: " + ZETA_CPU_PATH; });
}

CLI::App* CommandLine::add_command(const std::string& name, const std::string& description, Action action) {
  CLI::App* command = app_.add_subcommand(name, description);
  commands_.emplace_back(command, std::move(action));
  return command;
}

int CommandLine::run(int argc, char** argv) {
  try {
    app_.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version end the parse this way too, with status 0 (CLI11 numbers the other errors from 100).
    return app_.exit(e) == 0 ? 0 : 2;
  }
  try {
    for (const auto& [command, action] : commands_)
      if (command->parsed()) return action(global_);
  } catch (const zeta::Error& e) {
    std::fprintf(stderr, "zeta: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zeta: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace zeta::cli
