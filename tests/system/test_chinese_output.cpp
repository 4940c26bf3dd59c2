// Every report of every command, rendered in Chinese (--lang zh), holds no
// English word outside a short allowlist; every example in the README and
// every worked example of the three articles runs in both languages. In
// process (run_cli), so the whole file stays fast under the sanitizers.
//
// What counts as an English word: a run of ASCII letters (split at '-', '/',
// '·', '×'), outside tokens that hold a digit (ids, numbers: a100-80g, fp8,
// 6·N), flags (--tp) and the value right after a flag (--recompute full),
// URLs and file names (a '.' inside the token), GitHub issues cited as
// repository#number, catalog ids and aliases, the tags the catalogs cite their
// sources by ((MLE-ACC) in data/gpus.json), one letter alone (formula
// symbols: s·b·h), and a source quoted in its own language after the label
// 来源： (up to the closing ）). Allowed besides (kAllowed in chinese_words.hpp):
// units (GiB, TFLOP/s), acronyms (MFU, TP, ZeRO, KV), and names: of models,
// GPUs, vendors, frameworks, serving engines, providers (from the catalogs)
// and of the papers' authors cited for a formula.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "chinese_words.hpp"

using namespace gpuplan;

namespace {

using namespace chinese_words;

std::vector<std::string> split_args(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  std::string a;
  while (in >> a) {
    if (a.size() >= 2 && a.front() == '"') {  // a quoted value: --engine "TensorRT-LLM 1.0"
      std::string rest;
      while (a.back() != '"' && in >> rest) a += " " + rest;
      a = a.substr(1, a.size() - 2);
    }
    out.push_back(a);
  }
  return out;
}

std::string join_args(const std::vector<std::string>& a) {
  std::string s;
  for (const auto& x : a) s += (s.empty() ? "" : " ") + x;
  return s;
}

// The README's `gpuplan ...` lines of its "Use" block, as argument lists:
// continuation lines joined, comments and output redirections dropped, the
// README's paths made real (../shared is the published cases; ./my-model/ a
// folder holding a catalog config.json).
std::vector<std::pair<std::string, std::vector<std::string>>> readme_examples() {
  std::ifstream f(std::string(GPUPLAN_SOURCE_DIR) + "/README.md");
  std::string line, joined;
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  bool in_block = false;
  const std::string model_dir = ::testing::TempDir() + "my-model/";
  std::system(("mkdir -p " + model_dir).c_str());
  {
    std::ifstream src(std::string(GPUPLAN_SOURCE_DIR) + "/data/models/llama-3.1-8b.json");
    std::ofstream(model_dir + "config.json") << src.rdbuf();
  }
  while (std::getline(f, line)) {
    if (line.rfind("```", 0) == 0) {
      in_block = !in_block;
      continue;
    }
    if (!in_block) continue;
    if (!joined.empty()) line = joined + " " + line;
    if (!line.empty() && line.back() == '\\') {
      joined = line.substr(0, line.size() - 1);
      continue;
    }
    joined.clear();
    const auto start = line.find_first_not_of(' ');
    if (start == std::string::npos || line.compare(start, 8, "gpuplan ") != 0) continue;
    std::string cmd = line.substr(start + 8);
    cmd = cmd.substr(0, cmd.find('#'));
    cmd = cmd.substr(0, cmd.find('>'));
    std::vector<std::string> args = split_args(cmd);
    const std::string key = join_args(args);
    for (auto& a : args) {
      if (a.rfind("../shared/", 0) == 0) a = std::string(GPUPLAN_SHARED_DIR) + a.substr(9);
      if (a == "./my-model/") a = model_dir;
    }
    for (size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] == "--save") args[i + 1] = ::testing::TempDir() + args[i + 1];  // not into the working directory
    }
    out.emplace_back(key, args);
  }
  return out;
}

// The three articles' worked examples as commands (the numbers themselves are
// checked in test_seed_examples.cpp): 7B × 1T on A100 at 40% and ¥15–30; 7B ×
// 2T with a 7-day deadline; GPT-3 175B × 300B on 1,000 A100s for 30 days; the
// steps of 1e11 tokens at 4,096 per step over 5 epochs; the 10B image model
// (1M images of 1,024 patches, 5 epochs, 50 TFLOP/s); the memory of a 7B model
// under mixed-precision AdamW; debugging on 10 A100s before the main run.
const std::vector<std::string> kArticleExamples = {
    "train --params 7B --tokens 1T --gpu a100-80g --gpus 1000 --mfu 0.4 --price 15-30cny --fault-budget 0",
    "train --params 7B --tokens 2T --gpu a100-80g --deadline 7d --mfu 0.4 --fault-budget 0",
    "train --params 7B --tokens 2T --gpu a100-80g --gpus 1024 --deadline 7d --mfu 0.4 --fault-budget 0",
    "train --params 175B --tokens 300B --gpu a100-80g --gpus 1000 --deadline 30d --fault-budget 0",
    "train --params 1B --tokens 1e11 --batch-tokens 4096 --epochs 5 --gpu a100-80g --gpus 8 --mfu 0.4",
    "train --params 10B --samples 1e6 --tokens-per-sample 1024 --epochs 5 --gpu h100 --precision fp16 "
    "--tflops-per-gpu 50 --gpus 10 --fault-budget 0",
    "memory --params 7B --gpu a100-80g",
    "memory --model llama-3.1-8b --gpu a100-80g --gpus 8 --zero 1 --seq-len 4096",
    "train --params 7B --tokens 1T --gpu h100 --gpus 50 --mfu 0.5 --fault-budget 0.2 --comm-margin 0.1 "
    "--phase debug:a100-80g:10:72h:12cny",
};

// Other reports and states the README does not show: one per command and per
// kind of section (a layout that does not fit, an export's notes, spot, one
// GPU's and one model's card, a framework's profile, help).
const std::vector<std::string> kOtherReports = {
    "train --params 7B --tokens 1万亿 --gpu a100-80g --gpus 64 --mfu 0.4",
    "train --params 7B --tokens 1万亿 --gpu a100-80g --gpus 64 --mfu 0.4 --market cn",
    "train --params 7B --tokens 1万亿 --gpu a100-80g --gpus 64 --mfu 0.4 --market us",
    "train --model llama-3.1-8b --tokens 1T --gpu h100 --gpus 64 --mfu 0.4 --spot",
    "train --model llama-3.1-8b --tokens 1T --gpu h100 --deadline 1个月 --mfu 0.4 --confidence 0.9",
    "memory --model llama-3.1-70b --gpu a100-80g --gpus 8 --tp 8 --seq-len 8192",
    "memory --model llama-3.1-70b --gpu h100 --gpus 16 --tp 16",
    "plan --model llama-3.1-8b --gpu h100 --gpus 64 --seq 4096 --global-batch 256 --export megatron",
    "finetune --model llama-3.1-8b --method lora --gpu a100-80g --samples 10000 --seq 2048",
    "finetune --model llama-3.1-70b --method full --gpu h800 --samples 10000 --seq 4096 --epochs 2",
    "infer --model qwen2.5-7b --gpu 4090 --input 1024 --output 256 --rps 2",
    "gpus h100",
    "gpus 910b2",
    "models qwen3-30b-a3b",
    "frameworks megatron-core@0.8.0",
};

struct Offence {
  std::string line;
  std::vector<std::string> words;
};

std::vector<Offence> offences(const std::string& text, const std::set<std::string>& names) {
  std::vector<Offence> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto words = english_words(line, names);
    if (!words.empty()) out.push_back({line, words});
  }
  return out;
}

std::string describe_offences(const std::vector<Offence>& found) {
  std::string s;
  for (const auto& o : found) {
    s += "  [";
    for (size_t i = 0; i < o.words.size(); ++i) s += (i ? " " : "") + o.words[i];
    s += "]  " + o.line + "\n";
  }
  return s;
}

// Reports whose Chinese is not complete yet (issue 16, what is left): the
// number of lines that still hold English words. A report may not get worse;
// one that is fixed comes off this list. Keyed by the command as written here
// (README lines as the README writes them). Every report not listed: zero.
const std::map<std::string, size_t> kLinesLeftInEnglish = {
#include "chinese_output_remaining.inc"
};

// Runs one command in Chinese (table) and checks every line; `english_too`
// also runs it in English (it must succeed). `key` names it in kLinesLeftInEnglish.
void expect_chinese(const std::string& key, std::vector<std::string> args, bool english_too) {
  static const std::set<std::string> names = catalog_names();
  std::vector<std::string> en = args, zh = args;
  for (size_t i = 0; i + 1 < en.size(); ++i) {
    if (en[i] == "--lang") en.erase(en.begin() + i, en.begin() + i + 2);
  }
  zh = en;
  zh.insert(zh.end(), {"--lang", "zh"});
  const CliRun z = run_cli(zh);
  ASSERT_EQ(z.status, 0) << join_args(zh) << "\n" << z.err;
  // JSON and CSV are the programs' schema (English keys); what people read is checked.
  // So are launch configs (--export: a framework's own config file).
  const bool for_people = std::find(zh.begin(), zh.end(), "json") == zh.end() && std::find(zh.begin(), zh.end(), "csv") == zh.end() &&
                          std::find(zh.begin(), zh.end(), "--export") == zh.end();
  const auto found = offences(for_people ? z.out + z.err : z.err, names);
  const auto left = kLinesLeftInEnglish.find(key);
  const size_t allowed = left == kLinesLeftInEnglish.end() ? 0 : left->second;
  EXPECT_LE(found.size(), allowed) << "gpuplan " << join_args(zh) << " prints English (" << found.size() << " lines, "
                                   << allowed << " known):\n" << describe_offences(found);
  if (std::getenv("GPUPLAN_PRINT_ENGLISH")) std::printf("    {\"%s\", %zu},\n", key.c_str(), found.size());
  if (english_too) {
    const CliRun e = run_cli(en);
    EXPECT_EQ(e.status, 0) << join_args(en) << "\n" << e.err;
    EXPECT_FALSE(e.out.empty()) << join_args(en);
  }
}

}  // namespace

TEST(ChineseOutput, TheScannerFindsEnglishAndSparesNames) {
  const std::set<std::string> names = catalog_names();
  EXPECT_EQ(english_words("  总训练时间  4.75 h", names), std::vector<std::string>{});  // one letter: a symbol
  EXPECT_EQ(english_words("  模型  7B-parameter model", names), (std::vector<std::string>{"parameter", "model"}));
  EXPECT_EQ(english_words("  6 replica(s) × TP 2", names), (std::vector<std::string>{"replica"}));
  EXPECT_EQ(english_words("  GPU  NVIDIA H100 SXM5 80GB (h100-sxm5-80gb)  NVLink 4", names), std::vector<std::string>{});
  EXPECT_EQ(english_words("  改用 --recompute full 或 --zero 3（见 docs/memory.md）", names), std::vector<std::string>{});
  EXPECT_EQ(english_words("  单卡有效算力  125 TFLOP/s", names), std::vector<std::string>{});
  EXPECT_EQ(english_words("  GPU-hours", names), std::vector<std::string>{"hours"});
  // A quoted source is labelled and spared; the text around it is not.
  EXPECT_EQ(english_words("  注意力算子：实测值（来源：Dao 2023, FlashAttention-2 benchmark）", names), std::vector<std::string>{});
  EXPECT_EQ(english_words("  measured（来源：Dao 2023）", names), std::vector<std::string>{"measured"});
}

TEST(ChineseOutput, EveryReadmeExampleInBothLanguages) {
  const auto examples = readme_examples();
  ASSERT_GE(examples.size(), 20u) << "the README's Use block was not found";
  for (const auto& [key, args] : examples) expect_chinese(key, args, true);
}

TEST(ChineseOutput, EveryArticleWorkedExampleInBothLanguages) {
  for (const auto& line : kArticleExamples) expect_chinese(line, split_args(line), true);
}

TEST(ChineseOutput, OtherReportsAndStates) {
  for (const auto& line : kOtherReports) expect_chinese(line, split_args(line), false);
}

// Every GPU's note (data/gpus.json notes) is written in Chinese too (notes_zh),
// in the words the rest of the zh output uses: no English word outside the
// allowlist, and every number of the English note kept (the multiset of its
// numbers, thousands separators dropped, is the same in both).
std::multiset<std::string> numbers_in(const std::string& text) {
  std::multiset<std::string> out;
  std::string n;
  for (size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ' ';
    const bool digit = std::isdigit(static_cast<unsigned char>(c));
    const bool inside = !n.empty() && (c == '.' || c == ',') && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]));
    if (digit || inside) {
      if (c != ',') n += c;  // 1,440 and 1440 are the same number
    } else if (!n.empty()) {
      out.insert(n);
      n.clear();
    }
  }
  return out;
}

TEST(ChineseOutput, EveryGpuNoteHasItsChinese) {
  const std::set<std::string> names = catalog_names();
  EXPECT_EQ(numbers_in("1,440 GB / 8 = 180; 0.803, 2.4 Gb/s"), (std::multiset<std::string>{"1440", "8", "180", "0.803", "2.4"}));
  size_t notes = 0;
  for (const GpuSpec& g : gpu_catalog()) {
    if (g.notes.empty()) continue;
    ++notes;
    EXPECT_FALSE(g.notes_zh.empty()) << g.id << ": notes without notes_zh (data/gpus.json)";
    if (g.notes_zh.empty()) continue;
    EXPECT_EQ(english_words(g.notes_zh, names), std::vector<std::string>{}) << g.id << " notes_zh: " << g.notes_zh;
    // A number may be repeated in Chinese ("而 320 不可能是…"); none may be lost.
    const std::multiset<std::string> en = numbers_in(g.notes), zh = numbers_in(g.notes_zh);
    for (const std::string& n : std::set<std::string>(en.begin(), en.end())) {
      EXPECT_GE(zh.count(n), en.count(n)) << g.id << ": the English note's " << n << " is missing from notes_zh";
    }
  }
  EXPECT_GE(notes, 31u);  // every GPU of data/gpus.json carries a note
}

// The card of every GPU (gpuplan gpus ID --lang zh, as the CLI prints it)
// shows the Chinese note, and no sentence of the English one; a card that fell
// back to English (ascend910b-64gb, h200, mi300x before their notes_zh) fails here.
// A peak the catalog leaves empty is "not supported" only where the silicon
// lacks it: the L20's FP8 is listed by no source (its peak_tflops.fp8 source
// says "unknown: …"; Ada has FP8), the V100 has no BF16 unit.
TEST(ChineseOutput, AnUnlistedPeakIsUnknownNotUnsupported) {
  const CliRun l20 = run_cli({"gpus", "l20", "--lang", "zh"});
  ASSERT_EQ(l20.status, 0) << l20.err;
  EXPECT_NE(l20.out.find("fp8 稠密峰值        未知（没有来源给出）"), std::string::npos) << l20.out;
  const CliRun en = run_cli({"gpus", "l20"});
  EXPECT_NE(en.out.find("unknown (no source lists it)"), std::string::npos) << en.out;
  const CliRun v100 = run_cli({"gpus", "v100"});
  EXPECT_NE(v100.out.find("Dense peak bf16                              not supported"), std::string::npos) << v100.out;
}

TEST(ChineseOutput, EveryGpuCardShowsItsChineseNote) {
  const std::set<std::string> names = catalog_names();
  for (const GpuSpec& g : gpu_catalog()) {
    const CliRun r = run_cli({"gpus", g.id, "--lang", "zh"});
    ASSERT_EQ(r.status, 0) << g.id << "\n" << r.err;
    // The whole card: specification (links and networks in Chinese), sources (quoted), note, listings.
    const auto found = offences(r.out, names);
    EXPECT_TRUE(found.empty()) << "gpuplan gpus " << g.id << " --lang zh prints English:\n" << describe_offences(found);
    if (g.notes.empty()) continue;
    // The note's line: 备注 and the Chinese note, no English word in it.
    const size_t at = r.out.find("  备注  ");
    ASSERT_NE(at, std::string::npos) << g.id << ": no 备注 line\n" << r.out;
    const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
    EXPECT_NE(line.find(g.notes_zh), std::string::npos) << g.id << ": the card does not show notes_zh: " << line;
    EXPECT_EQ(english_words(line, names), std::vector<std::string>{}) << g.id << ": " << line;
    // Each English sentence of the note (split at ". "), none of them printed.
    std::string sentence;
    for (size_t i = 0; i <= g.notes.size(); ++i) {
      const bool end = i == g.notes.size() || (g.notes[i] == '.' && i + 1 < g.notes.size() && g.notes[i + 1] == ' ');
      if (!end) {
        sentence += g.notes[i];
        continue;
      }
      while (!sentence.empty() && sentence.front() == ' ') sentence.erase(sentence.begin());
      if (sentence.size() > 12) EXPECT_EQ(r.out.find(sentence), std::string::npos) << g.id << " prints its English note: " << sentence;
      sentence.clear();
    }
  }
}

// A line of --help holds Chinese: a byte of a multi-byte UTF-8 character.
bool has_chinese(const std::string& line) {
  return std::any_of(line.begin(), line.end(), [](char c) { return static_cast<unsigned char>(c) >= 0xE3; });
}

TEST(ChineseOutput, HelpInChinese) {
  // --help follows --lang: the subcommand's description, its options' texts and CLI11's own words.
  const CliRun r = run_cli({"train", "--lang", "zh", "--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("一次训练的计算量、时间、卡数与费用"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("用法"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("每轮训练 token 数"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Usage"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Number of GPUs"), std::string::npos) << r.out;
  // Without --lang zh the help stays English.
  const CliRun e = run_cli({"train", "--help"});
  EXPECT_NE(e.out.find("Number of GPUs"), std::string::npos) << e.out;
}

TEST(ChineseOutput, EveryCommandsHelpInChinese) {
  // An option's values are what the user types (--recompute selective): spared in --help.
  std::set<std::string> names = catalog_names();
  for (const char* v : {"none", "selective", "full", "flash", "cudnn", "sdpa", "materialised", "table", "json", "csv", "markdown", "on",
                        "off", "cn", "us", "usd", "cny", "fused", "chunked", "en", "zh", "time", "cost", "lora", "qlora", "attn", "mlp",
                        "all", "gate", "up", "down", "adamw", "sgd", "train_memory", "train_throughput", "train_total", "inference",
                        "vocab_parallel", "megatron", "deepspeed", "torchtitan", "vllm", "sglang", "lmdeploy", "TurboMind", "recompute", "mb", "sp", "first", "last", "zero",
                        "vp", "cp", "ep", "tp", "pp", "dp", "op", "layer", "minimal", "nf4", "gptq", "optimizer", "parameters", "activations"}) {
    names.insert(v);
  }
  // Positionals' names (gpuplan models [model]), terms, units and formats a Chinese engineer writes in Latin letters too.
  for (const char* v : {"model", "gpu", "file", "framework", "engine", "rank", "Transformer", "eager", "TCP", "TOML", "MAPE", "JSON", "Lines", "ms",
                        "smi", "shared", "validation",
                        // Megatron's stage-layout syntax and its MTP layers; the expert-TP flag's name.
                        "MTP", "Et", "tt", "etp"}) {
    names.insert(v);
  }
  size_t commands = 0;
  for (const cli::CommandSpec& c : cli::command_specs()) {
    ++commands;
    const CliRun r = run_cli({c.name, "--lang", "zh", "--help"});
    EXPECT_EQ(r.status, 0) << c.name;
    const auto found = offences(r.out, names);
    EXPECT_TRUE(found.empty()) << "gpuplan " << c.name << " --help --lang zh prints English:\n" << describe_offences(found);
    // Every line of help text is Chinese: the description's and each option's
    // (a line of an example command alone excepted: gpuplan ... and its continuation).
    std::istringstream lines(r.out);
    std::string line, previous;
    for (; std::getline(lines, line); previous = line) {
      const std::string trimmed = line.substr(std::min(line.size(), line.find_first_not_of(' ')));
      if (trimmed.empty() || trimmed.rfind("gpuplan ", 0) == 0 || (!previous.empty() && previous.back() == '\\')) continue;
      EXPECT_TRUE(has_chinese(line)) << "gpuplan " << c.name << " --help --lang zh: " << line;
    }
  }
  EXPECT_GE(commands, 11u);  // train, memory, calibrate, plan, infer, finetune, validate, models, gpus, frameworks, web
}
