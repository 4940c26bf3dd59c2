#include "common.hpp"

#include <cstdio>

#include "gpuplan/hardware.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {

void add_output_options(CLI::App* app, OutputOptions* out) {
  app->add_option("--format", out->format, "Output: table, json, csv or markdown")->capture_default_str();
  app->add_option("--lang", out->lang, "Labels: en or zh (中文)")->capture_default_str();
  app->add_option("--gpu-file", out->gpu_file, "JSON file adding or overriding GPUs (format: docs/data-formats.md)");
}

void add_market_flags(CLI::App* app, MarketFlags* flags, bool provider) {
  app->add_option("--market", flags->market, "Where you rent: cn (China listings, CNY) or us (US listings, USD); default from --lang (zh: cn)");
  if (provider) app->add_option("--provider", flags->provider, "A named listing of that market instead of its default (gpuplan gpus GPU lists them)");
  app->add_option("--currency", flags->currency, "Currency money is shown in: usd or cny (default: the market's)");
}

void apply_market_flags(const MarketFlags& flags, const OutputOptions& out, PriceInput* price) {
  price->market = flags.market ? parse_market(*flags.market, "--market") : default_market_for_lang(out.lang);
  if (flags.provider && !flags.provider->empty()) price->provider = flags.provider;
  if (flags.currency) price->currency = parse_currency(*flags.currency, "--currency");
}

void load_gpu_file(const OutputOptions& out) {
  if (!out.gpu_file.empty()) load_user_gpu_file(out.gpu_file);
}

namespace {
thread_local std::string* g_capture = nullptr;  // per thread: the Python module runs commands from several threads
}  // namespace

void emit(const std::string& text) {
  if (g_capture) {
    g_capture->append(text);
  } else {
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
}

std::string* set_output_capture(std::string* out) {
  std::string* previous = g_capture;
  g_capture = out;
  return previous;
}

void print_report(const Report& report, const OutputOptions& out) {
  emit(render(report, parse_format(out.format), parse_lang(out.lang)));
}

}  // namespace gpuplan::cli
