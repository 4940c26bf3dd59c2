// Pieces every subcommand shares: output options and number parsing for flags.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "gpuplan/cost.hpp"
#include "report/report.hpp"

namespace gpuplan::cli {

struct OutputOptions {
  std::string format = "table";
  std::string lang = "en";  // add_output_options sets it to default_lang() first
  std::string gpu_file;
};

// --market, --provider and --currency: where prices come from and what money is shown in.
struct MarketFlags {
  std::optional<std::string> market, provider, currency;
};
void add_market_flags(CLI::App* app, MarketFlags* flags, bool provider = true);
// The PriceInput fields they set; the market defaults from --lang (zh: cn).
void apply_market_flags(const MarketFlags& flags, const OutputOptions& out, PriceInput* price);

// --help in Chinese. run_cli reads --lang from the command line before the
// commands are declared and sets the language their help texts are taken in;
// every option is declared once, with both texts: help_text("Number of GPUs", "卡数").
void set_help_lang(Lang lang);

// The language without --lang: GPUPLAN_LANG (en or zh; another value is bad
// input naming it), else the locale (LC_ALL, then LC_MESSAGES, then LANG:
// zh_CN.UTF-8 and the like give zh), else en.
Lang environment_lang();
// The --lang default the commands declared after it take (per thread): run_cli
// sets environment_lang(), run_command (the Python module) en.
void set_default_lang(Lang lang);
Lang help_lang();
std::string help_text(const char* en, const char* zh);
// Help's own words (Usage, OPTIONS, REQUIRED, the option groups) in the help language.
void localize_help(CLI::App& app);

// --format, --lang and --gpu-file on a subcommand.
void add_output_options(CLI::App* app, OutputOptions* out);

// Loads --gpu-file if given, then renders and prints the report.
void load_gpu_file(const OutputOptions& out);
void print_report(const Report& report, const OutputOptions& out);

// Everything a command prints to stdout goes through emit(). While a capture
// string is set (run_cli with `out`), text is appended there instead.
void emit(const std::string& text);
// Sets the capture string (nullptr: stdout); returns the previous one.
std::string* set_output_capture(std::string* out);

}  // namespace gpuplan::cli
