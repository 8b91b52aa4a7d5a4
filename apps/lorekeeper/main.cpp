// Entry point of the `lorekeeper` binary; everything else lives in the libraries.
#include "lorekeeper/cli/app.hpp"

int main(int argc, char** argv) { return lorekeeper::cli::run(argc, argv); }
