// Bad input in Chinese (issue 16, "Complete Chinese"): under --lang zh every
// sentence a user gets for bad input is Chinese, still names the field and
// what is allowed, and holds no English word outside the allowlist of
// test_chinese_output.cpp (its checker, chinese_words.hpp). The English
// sentences are unchanged. In process (run_command / run_cli / handle_request),
// no spawning: the whole file runs in well under a second.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "chinese_words.hpp"
#include "cli/run_cli.hpp"
#include "gpuplan/error.hpp"
#include "web/web.hpp"

using namespace chinese_words;

namespace {

// One bad input: the command line, and the words the sentence may quote in
// Latin letters because they are what the user typed or the values the flag
// accepts (--rank-by time or cost): input, not gpuplan's prose.
struct BadInput {
  std::vector<std::string> args;
  std::set<std::string> quoted = {};
};

bool has_cjk(const std::string& s) {
  // U+4E00..U+9FFF encode as E4 B8 80 .. E9 BF BF in UTF-8.
  for (size_t i = 0; i + 2 < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0xE4 && c <= 0xE9) return true;
  }
  return false;
}

std::string joined(const std::vector<std::string>& a) {
  std::string s;
  for (const auto& x : a) s += (s.empty() ? "" : " ") + x;
  return s;
}

// A config.json whose layer count is beyond any real model (refused with the limit).
std::string deep_config_path() {
  const std::string dir = ::testing::TempDir() + "zh-errors-deep/";
  std::system(("mkdir -p " + dir).c_str());
  std::ofstream(dir + "config.json") << R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 3131072,
    "vocab_size": 128256, "max_position_embeddings": 131072})";
  return dir;
}

const std::string kTrain7b = "train --params 7B --tokens 1T --gpu h100 --gpus 64 --mfu 0.4";

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::string w;
  for (char c : line + " ") {
    if (c == ' ') {
      if (!w.empty()) out.push_back(w);
      w.clear();
    } else {
      w += c;
    }
  }
  return out;
}
// `base` with `flag value`: the flag's value replaced where base gives it, else added.
std::vector<std::string> with(const std::string& base, const std::vector<std::string>& flag_value) {
  std::vector<std::string> a = words(base);
  for (size_t i = 0; i + 1 < a.size(); ++i) {
    if (a[i] == flag_value[0]) {
      a[i + 1] = flag_value[1];
      return a;
    }
  }
  a.insert(a.end(), flag_value.begin(), flag_value.end());
  return a;
}

// Each a distinct InputError throw site, reached from the command line.
std::vector<BadInput> bad_inputs() {
  const std::string llama = "--model llama-3.1-8b";
  return {
      // parsers of typed values (units.cpp, cost.cpp, market.cpp)
      {with(kTrain7b, {"--tokens", "7x"})},
      {with(kTrain7b, {"--deadline", "3q"})},
      {words("train --params 7B --tokens 1T --gpu h100 --gpus 64 --mfu 1.5")},
      {with(kTrain7b, {"--price", "5eur"})},
      {with(kTrain7b, {"--currency", "eur"}), {"usd", "cny", "eur"}},
      {with(kTrain7b, {"--market", "eu"}), {"cn", "us", "eu"}},
      {with(kTrain7b, {"--phase", "x1"}), {"debug"}},
      {with(kTrain7b, {"--recompute", "some"}), {"none", "selective", "full", "some"}},
      {with(kTrain7b, {"--format", "xml"}), {"table", "json", "csv", "markdown", "xml"}},
      // catalogs
      {words("train --params 7B --tokens 1T --gpu h1000 --gpus 64 --mfu 0.4")},
      {words("train --model llama-9 --tokens 1T --gpu h100 --gpus 64 --mfu 0.4")},
      {with(kTrain7b, {"--precision", "fp7"})},
      {words("train --params 7B --tokens 1T --gpu a100-80g --gpus 64 --mfu 0.4 --precision fp8")},
      {with(kTrain7b, {"--framework", "foo"}), {"foo"}},
      // train's own rules (train_estimate.cpp, workload.cpp, command_inputs.cpp)
      {words("train --params 7B --tokens 1T --gpu h100 --gpus 8.5 --mfu 0.4")},
      {with(kTrain7b, {"--tflops-per-gpu", "100"})},
      {words("train --params 7B --gpu h100 --gpus 64 --mfu 0.4")},
      {with(kTrain7b, {"--samples", "1000"})},
      {words("train --params 7B --tokens 1T --gpu h100")},
      {words("train --params 7B --tokens 1T --gpu h100 --gpus 8 --tflops-per-gpu 5000")},
      {words("train " + llama + " --params 8B --tokens 1T --gpu h100 --gpus 64 --mfu 0.4")},
      // layouts (layout.cpp, plan.cpp)
      {words("memory " + llama + " --gpu h100 --gpus 8 --tp 3")},
      {words("memory " + llama + " --gpu h100 --gpus 10 --tp 4")},
      {words("memory " + llama + " --gpu h100 --gpus 8 --zero 5")},
      {words("memory " + llama + " --gpu h100 --gpus 8 --first-stage-layers 5")},
      {words("memory " + llama + " --gpu h100 --gpus 8 --ep 2")},
      {words("plan " + llama + " --gpu h100 --gpus 64 --tp 3")},
      {words("plan " + llama + " --gpu h100 --gpus 8 --tp 16")},
      {words("plan " + llama + " --gpu h100 --gpus 64 --top 0")},
      {words("plan " + llama + " --gpu h100 --gpus 64 --rank-by speed"), {"time", "cost", "speed"}},
      {words("plan " + llama + " --gpu h100 --gpus 64-32")},
      // the plan command's own checks (cmd_plan.cpp: --export, --rank)
      {words("plan " + llama + " --gpu h100 --gpus 8 --export bogus"), {"bogus"}},
      {words("plan " + llama + " --gpu h100 --gpus 8 --rank 3")},
      {words("plan " + llama + " --gpu h100 --gpus 8 --export megatron --rank 0")},
      // inference (inference_memory.cpp validate_inference, src/inputs/infer_inputs.cpp, src/commands/infer.cpp)
      {words("infer " + llama + " --gpu h100 --input 0 --output 128")},
      {words("infer " + llama + " --gpu h100 --tp 16")},
      {words("infer " + llama + " --gpu h100 --ep 8")},
      {words("infer " + llama + " --gpu h100 --max-throughput --rps 2")},
      {words("infer " + llama + " --gpu h100 --input 200000 --output 128")},
      {words("infer " + llama + " --gpu v100 --precision bf16")},
      // fine-tuning (src/inputs/finetune_inputs.cpp, src/commands/finetune.cpp, estimate/finetune/finetune.cpp)
      {words("finetune " + llama + " --gpu a100-80g --method half"), {"full", "lora", "qlora", "half"}},
      {words("finetune " + llama + " --gpu a100-80g --method lora --rank 0")},
      {words("finetune " + llama + " --gpu a100-80g --seq-len 1048576")},
      {words("finetune --model llama-3.1-405b --gpu 4090 --method full")},
      {words("finetune " + llama + " --gpu a100-80g --samples 1000 --tokens 1M")},
      // a pasted or pointed-to config.json (hf_config.cpp)
      {words("train --model " + deep_config_path() + " --tokens 1T --gpu h100 --gpus 64 --mfu 0.4")},
      // CLI11's own parse errors (parse_errors.cpp)
      {with(kTrain7b, {"--tpp", "8"})},
      {words("memory " + llama + " --gpu h100 --tp")},
      {words("memory " + llama + " --gpu h100 --tp 1.5")},
  };
}

std::set<std::string> names_and(const std::set<std::string>& quoted) {
  static const std::set<std::string> names = catalog_names();
  std::set<std::string> all = names;
  all.insert(quoted.begin(), quoted.end());
  return all;
}

}  // namespace

TEST(ChineseErrors, EveryBadInputSentenceIsChineseAndNamesItsField) {
  std::set<std::string> sentences;
  for (const BadInput& b : bad_inputs()) {
    SCOPED_TRACE("gpuplan " + joined(b.args));
    std::string out;
    try {
      gpuplan::cli::run_command(b.args, &out);
      ADD_FAILURE() << "accepted";
      continue;
    } catch (const gpuplan::InputError& e) {
      EXPECT_TRUE(e.has_zh()) << e.what();
      const std::string zh = e.zh();
      EXPECT_TRUE(has_cjk(zh)) << zh;
      EXPECT_NE(std::string(e.what()), zh);  // what() stays English (Python, logs)
      ASSERT_FALSE(e.field().empty()) << zh;
      // The sentence names the input as the command line spells it (--seq-len for the key seq_len).
      std::string flag = "--" + e.field();
      std::replace(flag.begin(), flag.end(), '_', '-');
      EXPECT_TRUE(zh.find(e.field()) != std::string::npos || zh.find(flag) != std::string::npos)
          << "does not name " << e.field() << ": " << zh;
      EXPECT_EQ(english_words(zh, names_and(b.quoted)), std::vector<std::string>{}) << zh;
      sentences.insert(zh);
    }
    // The CLI prints that sentence under --lang zh, with exit status 2.
    std::vector<std::string> zh_args = b.args;
    zh_args.insert(zh_args.end(), {"--lang", "zh"});
    const CliRun r = run_cli(zh_args);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err.rfind("错误：", 0), 0u) << r.err;
    EXPECT_EQ(english_words(r.err, names_and(b.quoted)), std::vector<std::string>{}) << r.err;
  }
  EXPECT_GE(sentences.size(), 40u) << "distinct sentences";
}

TEST(ChineseErrors, AMistypedCommandGetsItsSuggestionInChinese) {
  const CliRun r = run_cli({"trian", "--lang", "zh"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "错误：未知命令 'trian'（是否指 train、plan？）；gpuplan --help 列出全部命令。\n");
}

TEST(ChineseErrors, EnglishSentencesAreUnchanged) {
  // The sentences as they were before the Chinese twins (one per kind of site).
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {with(kTrain7b, {"--tokens", "7x"}),
       "error: --tokens must be a positive number, optionally with a suffix k, M, B (or G), T, P or 万, 亿 "
       "(e.g. 7e9, 70B, 15T, 1万亿, 2000亿) (got '7x').\n"},
      {words("train --params 7B --tokens 1T --gpu h100 --gpus 64 --mfu 1.5"),
       "error: --mfu must be a fraction greater than 0 and at most 1 (e.g. 0.4 or 40%) (got '1.5').\n"},
      {words("plan --model llama-3.1-8b --gpu h100 --gpus 64 --tp 3"), "error: --tp 3 must divide the model's 32 attention heads.\n"},
      {words("memory --model llama-3.1-8b --gpu h100 --gpus 8 --zero 5"), "error: --zero must be 0, 1, 2 or 3 (got 5).\n"},
      {{"trian"}, "error: unknown command 'trian' (did you mean train, plan?); 'gpuplan --help' lists the commands.\n"},
      {with(kTrain7b, {"--tpp", "8"}),
       "error: The following arguments were not expected: 8 --tpp Run 'gpuplan --help' or 'gpuplan <command> --help'.\n"},
  };
  for (const auto& [args, expected] : cases) {
    const CliRun r = run_cli(args);
    EXPECT_EQ(r.status, 2) << joined(args);
    EXPECT_EQ(r.err, expected) << joined(args);
  }
}

TEST(ChineseErrors, TheWebApiReturnsBothSentences) {
  using nlohmann::json;
  const json req = {{"model", "llama-3.1-8b"}, {"tokens", "1T"}, {"gpu", "h1000"}, {"gpus", 64}, {"mfu", 0.4}};
  const auto r = gpuplan::web::handle_request("POST", "/api/train", req.dump());
  EXPECT_EQ(r.status, 400);
  const json j = json::parse(r.body);
  EXPECT_EQ(j["field"], "gpu");
  // The CLI's sentence (the page turns --gpu into its form's label); "field" is the request key.
  EXPECT_EQ(j["error"].get<std::string>().rfind("--gpu: unknown GPU 'h1000'", 0), 0u) << r.body;
  const std::string zh = j["error_zh"];
  EXPECT_EQ(zh.rfind("--gpu：未知的 GPU 'h1000'", 0), 0u) << zh;
  EXPECT_EQ(english_words(zh, names_and({})), std::vector<std::string>{}) << zh;
  // A pasted config.json keeps its Chinese sentence under the request's key.
  json cfg = json::parse(R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32,
                             "vocab_size": 0, "intermediate_size": 14336})");
  const auto c = gpuplan::web::handle_request("POST", "/api/memory", json{{"config", cfg}, {"gpu", "h100"}}.dump());
  EXPECT_EQ(c.status, 400);
  const json cj = json::parse(c.body);
  EXPECT_EQ(cj["field"], "config");
  EXPECT_TRUE(has_cjk(cj["error_zh"].get<std::string>())) << c.body;
  EXPECT_FALSE(has_cjk(cj["error"].get<std::string>())) << c.body;
  // Errors of the routing itself come in both languages too.
  const json nf = json::parse(gpuplan::web::handle_request("GET", "/api/nope", "").body);
  EXPECT_EQ(nf["error_zh"], "没有这个接口：/api/nope。");
  // The request reader's own sentences (api.cpp Body): a key no endpoint reads, a wrong type.
  for (const json& body : {json{{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"gpus", 8}, {"tokens", "1T"}, {"bogus_key", 1}},
                           json{{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"gpus", 8}, {"tokens", true}}}) {
    const json e = json::parse(gpuplan::web::handle_request("POST", "/api/train", body.dump()).body);
    const std::string ezh = e["error_zh"];
    EXPECT_TRUE(has_cjk(ezh)) << e.dump();
    EXPECT_EQ(english_words(ezh, names_and({"bogus_key", "true", "false"})), std::vector<std::string>{}) << ezh;
  }
}
