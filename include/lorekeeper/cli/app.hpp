// The `lorekeeper` command line: parses arguments, loads the configuration and runs one subcommand.
#pragma once

namespace lorekeeper::cli {

// Runs the CLI; returns the process exit code (0 success, 1 failure, 2 usage error).
int run(int argc, char** argv);

}  // namespace lorekeeper::cli
