// gpuplan's command line as a function (see run_cli.hpp).
#include "run_cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "commands.hpp"
#include "common.hpp"
#include "inputs/command_inputs.hpp"
#include "gpuplan/error.hpp"
#include "inputs/finetune_inputs.hpp"
#include "gpuplan/hardware.hpp"
#include "inputs/infer_inputs.hpp"
#include "parse_errors.hpp"
#include "units/text_match.hpp"

namespace gpuplan::cli {
namespace {

void write_err(std::string* err, const std::string& text) {
  if (err) {
    err->append(text);
  } else {
    std::fwrite(text.data(), 1, text.size(), stderr);
  }
}

// Restores the output sink however run_cli leaves.
struct CaptureGuard {
  std::string* previous;
  explicit CaptureGuard(std::string* out) : previous(set_output_capture(out)) {}
  ~CaptureGuard() { set_output_capture(previous); }
};

std::string app_help() {
  return help_text(
      "gpuplan: how many FLOPs, GPUs, hours and money a large-model training run needs.\n"
      "Start with:  gpuplan train --model llama-3.1-8b --tokens 1T --gpu h100 --gpus 64 --mfu 0.4\n"
      "List models: gpuplan models      List GPUs: gpuplan gpus",
      "gpuplan：一次大模型训练需要多少计算量、多少张卡、多少小时、多少钱。\n"
      "从这里开始：gpuplan train --model llama-3.1-8b --tokens 1T --gpu h100 --gpus 64 --mfu 0.4 --lang zh\n"
      "列出模型：gpuplan models      列出 GPU：gpuplan gpus");
}

// The language --help is written in: what --lang says on the command line (`fallback` when absent, en when unreadable).
Lang lang_on_command_line(const std::vector<std::string>& args, Lang fallback) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string value;
    if (args[i] == "--lang" && i + 1 < args.size()) value = args[i + 1];
    else if (args[i].rfind("--lang=", 0) == 0) value = args[i].substr(7);
    else continue;
    try {
      return parse_lang(value);
    } catch (const InputError&) {
      return Lang::kEn;
    }
  }
  return fallback;
}

// The one command line every caller parses with, its help in `lang`.
void configure(CLI::App& app, Lang lang) {
  set_help_lang(lang);
  app.description(app_help());
  app.require_subcommand(1);
  app.set_version_flag("--version", "gpuplan 0.1.0");
  register_commands(app);
  localize_help(app);
  set_help_lang(Lang::kEn);
}

// Bad input as run_cli prints it: one line, in the language --lang asked for
// (the Chinese sentence of an InputError, else its English).
std::string bad_input_line(const InputError& e, Lang lang) {
  return lang == Lang::kZh ? "错误：" + e.zh() + "\n" : std::string("error: ") + e.what() + "\n";
}

// The option a CLI11 message is about: its first word that starts with "--".
std::string option_named_in(const std::string& message) {
  const auto at = message.find("--");
  if (at == std::string::npos) return "";
  auto end = message.find_first_of(" :,=)'\"", at);
  return message.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// A flag the command does not have ("--mfuu", "--seqlen=4096"): the nearest of
// its own, as a mistyped command gets the nearest commands. Empty unless the
// parse error is about arguments not expected.
using FlagHint = Bilingual;
FlagHint unknown_flag_hint(const CLI::App& app, const CLI::ParseError& e) {
  if (!dynamic_cast<const CLI::ExtrasError*>(&e)) return {};
  const auto parsed = app.get_subcommands();
  if (parsed.empty()) return {};
  std::vector<std::string> names;
  for (const CLI::Option* o : parsed.front()->get_options()) {
    for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
  }
  std::vector<std::string> near;
  std::istringstream words(std::string(e.what()).substr(std::string(e.what()).find(':') + 1));
  for (std::string w; words >> w;) {
    if (w.rfind("--", 0) != 0) continue;
    w = w.substr(0, w.find('='));
    for (const std::string& n : closest_names(w, names, 1)) {
      // A typo keeps the first letter (--mfuu, --seqlen); a name sharing only a
      // few letters (--gpu for --mfuu) would mislead.
      if (w.size() > 2 && n.size() > 2 && n[2] != std::tolower(static_cast<unsigned char>(w[2]))) continue;
      if (std::find(near.begin(), near.end(), n) == near.end()) near.push_back(n);
    }
  }
  if (near.empty()) return {};
  return {" (did you mean " + join(near, ", ") + "?)", "是否指 " + join(near, "、") + "？"};
}

}  // namespace

void run_command(const std::vector<std::string>& args, std::string* out) {
  CLI::App app;
  set_default_lang(Lang::kEn);  // a program's call: its answer does not depend on the caller's locale
  configure(app, Lang::kEn);
  CaptureGuard guard(out);
  const UserGpuScope gpus;  // a --gpu-file applies to this call only, on this thread (issue 31 bug 1)
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    throw InputError("--help", "--help prints the command line's help; it has no result to return.", "--help 只打印命令行帮助，没有结果可返回。");
  } catch (const CLI::CallForAllHelp&) {
    throw InputError("--help-all", "--help-all prints the command line's help; it has no result to return.",
                     "--help-all 只打印命令行帮助，没有结果可返回。");
  } catch (const CLI::CallForVersion&) {
    throw InputError("--version", "--version prints the program's version; it has no result to return.", "--version 只打印版本号，没有结果可返回。");
  } catch (const CLI::ParseError& e) {
    const FlagHint hint = unknown_flag_hint(app, e);
    throw InputError(option_named_in(e.what()), e.what() + hint.en, parse_error_zh(e) + hint.zh);
  } catch (const nlohmann::json::exception& e) {
    throw InputError("", std::string("malformed JSON input: ") + e.what(), std::string("JSON 输入格式有误：") + e.what());
  }
}

std::vector<CommandSpec> command_specs() {
  CLI::App app;
  set_default_lang(Lang::kEn);
  configure(app, Lang::kEn);
  std::vector<CommandSpec> specs;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    CommandSpec c;
    c.name = sub->get_name();
    c.help = sub->get_description();
    for (const CLI::Option* o : sub->get_options()) {
      if (o == sub->get_help_ptr() || o == sub->get_help_all_ptr()) continue;
      OptionSpec s;
      s.positional = !o->nonpositional();
      s.name = s.positional ? o->get_name() : "--" + o->get_lnames().front();
      s.flag = o->get_expected_max() == 0;  // a switch takes no value
      s.repeatable = !s.flag && o->get_items_expected_max() > 1;
      s.required = o->get_required();
      s.type = o->get_type_name();
      s.default_text = o->get_default_str();
      s.help = o->get_description();
      c.options.push_back(std::move(s));
    }
    specs.push_back(std::move(c));
  }
  return specs;
}

int run_cli(int argc, char** argv, std::string* out, std::string* err) {
  CLI::App app;
  // --lang chooses the help's language and the error sentences' too; without
  // it GPUPLAN_LANG or the locale does (issue 30).
  Lang env_lang = Lang::kEn;
  try {
    env_lang = environment_lang();
  } catch (const InputError& e) {
    write_err(err, bad_input_line(e, Lang::kEn));
    return 2;
  }
  set_default_lang(env_lang);
  const Lang lang = lang_on_command_line(std::vector<std::string>(argv + std::min(argc, 1), argv + argc), env_lang);
  configure(app, lang);
  CaptureGuard guard(out);
  const UserGpuScope gpus;  // a --gpu-file applies to this command only (tests and fuzzing call run_cli many times)
  // A mistyped command ("trian") gets the nearest real ones, not CLI11's "A subcommand is required".
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      const auto near = closest_names(argv[1], names);
      write_err(err, lang == Lang::kZh ? fmt::format("错误：未知命令 '{}'{}；gpuplan --help 列出全部命令。\n", argv[1],
                                                     near.empty() ? "" : "（是否指 " + join(near, "、") + "？）")
                                       : fmt::format("error: unknown command '{}'{}; 'gpuplan --help' lists the commands.\n", argv[1],
                                                     near.empty() ? "" : " (did you mean " + join(near, ", ") + "?)"));
      return 2;
    }
  }
  // Help and version text: to stdout (or `out`), as CLI11 prints it.
  auto exit_with = [&](const CLI::Error& e) {
    std::ostringstream o, er;
    const int rc = app.exit(e, o, er);
    emit(o.str());
    write_err(err, er.str());
    return rc;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return exit_with(e);
  } catch (const CLI::CallForAllHelp& e) {
    return exit_with(e);
  } catch (const CLI::CallForVersion& e) {
    return exit_with(e);
  } catch (const CLI::ParseError& e) {
    const FlagHint hint = unknown_flag_hint(app, e);
    write_err(err, lang == Lang::kZh ? "错误：" + parse_error_zh(e) + hint.zh + "用法见 gpuplan --help 或 gpuplan <命令> --help。\n"
                                     : std::string("error: ") + e.what() + hint.en + " Run 'gpuplan --help' or 'gpuplan <command> --help'.\n");
    return 2;
  } catch (const gpuplan::InputError& e) {
    write_err(err, bad_input_line(e, lang));
    return 2;
  } catch (const nlohmann::json::exception& e) {
    write_err(err, lang == Lang::kZh ? std::string("错误：JSON 输入格式有误：") + e.what() + "\n"
                                     : std::string("error: malformed JSON input: ") + e.what() + "\n");
    return 2;
  } catch (const std::exception& e) {
    write_err(err, std::string("internal error: ") + e.what() + " (please report this)\n");
    return 1;
  }
  return 0;
}

}  // namespace gpuplan::cli
