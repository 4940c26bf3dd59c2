#include "common.hpp"

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "gpuplan/error.hpp"
#include "gpuplan/hardware.hpp"
#include "inputs/input_info.hpp"
#include "gpuplan/units.hpp"
#include "input_flags.hpp"
#include "commands/market_terms.hpp"

namespace gpuplan::cli {

namespace {
thread_local Lang g_help_lang = Lang::kEn;  // per thread, as the output capture below
thread_local Lang g_default_lang = Lang::kEn;
}  // namespace

Lang environment_lang() {
  if (const char* v = std::getenv("GPUPLAN_LANG"); v && *v) {
    try {
      return parse_lang(v);
    } catch (const InputError&) {
      throw InputError("GPUPLAN_LANG", fmt::format("GPUPLAN_LANG must be en or zh (got '{}').", v),
                       fmt::format("GPUPLAN_LANG 须为 en（英文）或 zh（中文）（当前为 '{}'）。", v));
    }
  }
  // POSIX precedence: the first of these that is set and not empty names the locale.
  for (const char* name : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(name);
    if (!v || !*v) continue;
    const std::string locale = v;
    return locale.rfind("zh", 0) == 0 ? Lang::kZh : Lang::kEn;
  }
  return Lang::kEn;
}

void set_default_lang(Lang lang) { g_default_lang = lang; }

void set_help_lang(Lang lang) { g_help_lang = lang; }
Lang help_lang() { return g_help_lang; }
std::string help_text(const char* en, const char* zh) { return g_help_lang == Lang::kZh ? zh : en; }

void localize_help(CLI::App& app) {
  if (g_help_lang != Lang::kZh) return;
  auto localize = [](CLI::App* a) {
    const auto f = a->get_formatter();
    for (const auto& [k, v] : std::initializer_list<std::pair<const char*, const char*>>{
             {"Usage", "用法"}, {"OPTIONS", "选项"}, {"SUBCOMMAND", "子命令"}, {"SUBCOMMANDS", "子命令"},
             {"REQUIRED", "（必填）"}, {"Positionals", "位置参数"}, {"TEXT", "文本"}, {"INT", "整数"}, {"UINT", "非负整数"},
             {"FLOAT", "数值"}, {"Needs", "需要"}, {"Excludes", "不可与之同用"}, {"Env", "环境变量"}}) {
      f->label(k, v);
    }
    if (a->get_help_ptr()) a->get_help_ptr()->description("显示帮助并退出");
    for (CLI::Option* o : a->get_options()) {
      if (o->get_group() == "Options") o->group("选项");
    }
  };
  localize(&app);
  if (CLI::Option* v = app.get_option_no_throw("--version")) v->description("显示版本并退出");
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    sub->group("子命令");
    localize(sub);
  }
}

void add_output_options(CLI::App* app, OutputOptions* out) {
  app->add_option("--format", out->format, help_text("Output: table, json, csv or markdown", "输出格式：table、json、csv 或 markdown"))
      ->capture_default_str();
  out->lang = g_default_lang == Lang::kZh ? "zh" : "en";
  app->add_option("--lang", out->lang, help_text("Labels: en or zh (中文); default: GPUPLAN_LANG, else the locale (zh_*: zh), else en",
                                                 "语言：en（英文）或 zh（中文）；默认取 GPUPLAN_LANG，否则按系统语言环境（zh_*：zh），否则 en"))
      ->capture_default_str();
  app->add_option("--gpu-file", out->gpu_file,
                  help_text("JSON file adding or overriding GPUs (format: docs/data-formats.md)", "增加或覆盖 GPU 的 JSON 文件（格式见 docs/data-formats.md）"));
}

void add_market_flags(CLI::App* app, MarketFlags* flags, bool provider) {
  const BindInputs bind{app};
  bind(kMarketInput, flags->market);
  if (provider) bind(kProviderInput, flags->provider);
  bind(kCurrencyInput, flags->currency);
}

void apply_market_flags(const MarketFlags& flags, const OutputOptions& out, PriceInput* price) {
  apply_market_terms(price, flags.market, flags.provider, flags.currency, out.lang);
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
