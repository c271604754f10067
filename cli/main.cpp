// zeta: command-line front end to the core. Every subcommand is reproducible from --seed and reports errors as
// one line on stderr with exit status 1 (2 for usage errors).
#include "command_line.hpp"

namespace zeta::cli {

// The command families, each in its own <family>_command(s).cpp, registered below in the order `zeta --help` lists
// them.
void add_rbm_commands(CommandLine& cli);    // train, logz, sample, eval
void add_track_command(CommandLine& cli);   // track
void add_darn_commands(CommandLine& cli);   // darn train, darn eval, darn sample
void add_prune_commands(CommandLine& cli);  // prune

}  // namespace zeta::cli

int main(int argc, char** argv) {
  zeta::cli::CommandLine cli;
  zeta::cli::add_rbm_commands(cli);
  zeta::cli::add_track_command(cli);
  zeta::cli::add_darn_commands(cli);
  zeta::cli::add_prune_commands(cli);
  return cli.run(argc, argv);
}
