// gpuplan: plan GPU resources for training, fine-tuning and serving large models.
// Each subcommand lives in its own file; the parsing, dispatch and the turning
// of bad input into one sentence and exit status 2 are in run_cli.cpp, so they
// can be called in-process (tests, fuzz/fuzz_cli.cpp).
#include "run_cli.hpp"

int main(int argc, char** argv) { return gpuplan::cli::run_cli(argc, argv); }
