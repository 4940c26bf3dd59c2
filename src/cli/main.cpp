// gpuplan: plan GPU resources for training, fine-tuning and serving large models.
// Each subcommand lives in its own file; this one only dispatches and turns
// bad input into one sentence and exit status 2.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "gpuplan/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "gpuplan: how many FLOPs, GPUs, hours and money a large-model training run needs.\n"
      "Start with:  gpuplan train --model llama-3.1-8b --tokens 1T --gpu h100 --gpus 64 --mfu 0.4\n"
      "List models: gpuplan models      List GPUs: gpuplan gpus"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "gpuplan 0.1.0");
  gpuplan::cli::register_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "error: %s Run 'gpuplan --help' or 'gpuplan <command> --help'.\n", e.what());
    return 2;
  } catch (const gpuplan::InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const nlohmann::json::exception& e) {
    std::fprintf(stderr, "error: malformed JSON input: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "internal error: %s (please report this)\n", e.what());
    return 1;
  }
  return 0;
}
