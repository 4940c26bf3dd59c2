// Issue 30, the parts fixed so far: inputs that crashed or misled. Each test
// failed before its fix (noted beside it).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "chinese_words.hpp"
#include "units/quantity_text.hpp"
#include <nlohmann/json.hpp>

#include "gpuplan/error.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/units.hpp"
#include "validate/validate.hpp"
#include "units/json_input.hpp"
#include "web/web.hpp"
#include "model/hf_config.hpp"

using namespace gpuplan;
using chinese_words::run_cli;

namespace {

std::string nested_arrays(int depth) { return std::string(static_cast<size_t>(depth), '[') + std::string(static_cast<size_t>(depth), ']'); }

std::filesystem::path scratch_file(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  std::ofstream(p) << text;
  return p;
}

}  // namespace

TEST(HostileInputs, DeeplyNestedJsonIsOneSentenceNotACrash) {
  // 90,000 nested arrays (180 KB) segfaulted --gpu-file, the web server and
  // the model reader when the document was copied. The bound is 64 levels:
  // 64 parse, 65 are refused.
  EXPECT_NO_THROW(parse_json_input(nested_arrays(kMaxJsonDepth), "f", "f"));
  try {
    parse_json_input(nested_arrays(kMaxJsonDepth + 1), "--gpu-file", "--gpu-file: x.json");
    ADD_FAILURE() << "65 levels accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "gpu_file");
    EXPECT_NE(std::string(e.what()).find("more than 64 deep"), std::string::npos) << e.what();
  }
  const std::string deep = nested_arrays(90000);
  const auto gpu_file = scratch_file("deep-gpus.json", "{\"gpus\": " + deep + "}");
  const auto model_file = scratch_file("deep-config.json", "{\"text_config\": " + deep + "}");
  const auto r1 = run_cli({"gpus", "--gpu-file", gpu_file.string()});
  EXPECT_EQ(r1.status, 2);
  EXPECT_NE(r1.err.find("nests objects or arrays more than 64 deep"), std::string::npos) << r1.err;
  const auto r2 = run_cli({"train", "--model", model_file.string(), "--tokens", "1T", "--gpu", "h100", "--gpus", "8"});
  EXPECT_EQ(r2.status, 2) << r2.err;
  std::filesystem::remove(gpu_file);
  std::filesystem::remove(model_file);
  // The web API answers 400 with the sentence.
  const web::ApiResponse w = web::handle_request("POST", "/api/train", "{\"model\": " + deep + "}");
  EXPECT_EQ(w.status, 400);
  EXPECT_NE(w.body.find("more than 64 deep"), std::string::npos) << w.body.substr(0, 300);
}

TEST(HostileInputs, ValidateRefusesAFolderAndAnEmptyFile) {
  // Both exited 0 having scored nothing.
  EXPECT_EQ(run_cli({"validate", std::filesystem::temp_directory_path().string()}).status, 2);
  const auto empty = scratch_file("empty-cases.jsonl", "\n\n");
  const auto r = run_cli({"validate", empty.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("holds no cases"), std::string::npos) << r.err;
  std::filesystem::remove(empty);
}

TEST(HostileInputs, ABatchLargerThanTheDataIsRefused) {
  // --global-batch 1e308 made a run of 0 optimizer steps, exit 0.
  const auto r = run_cli({"train", "--model", "llama-3.1-8b", "--tokens", "1T", "--gpu", "h100", "--gpus", "64", "--global-batch", "1e308"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--global-batch"), std::string::npos) << r.err;
  // Said in sequences, as given: 1T tokens hold 1e12 / 4,096 = 244,140,625 sequences.
  EXPECT_NE(r.err.find("1e+308 sequences of 4096 tokens exceed the 1e+12 tokens of one epoch; give at most 2.441e+08 sequences."),
            std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("inf"), std::string::npos) << r.err;
  // 1M tokens at 4,096 per sequence: 245 sequences (1,003,520 tokens) are more
  // than the data, 244 (999,424) are one step.
  EXPECT_EQ(run_cli({"train", "--model", "llama-3.1-8b", "--tokens", "1M", "--gpu", "h100", "--gpus", "8", "--global-batch", "245"}).status, 2);
  const auto ok = run_cli({"train", "--model", "llama-3.1-8b", "--tokens", "1M", "--gpu", "h100", "--gpus", "8", "--global-batch", "244"});
  EXPECT_EQ(ok.status, 0) << ok.err;
  // With no batch given, the default never exceeds the data (100k tokens:
  // 24 whole sequences of 4,096), and less data than one sequence blames the data.
  const auto small = run_cli({"train", "--model", "llama-3.1-8b", "--tokens", "100k", "--gpu", "h100", "--gpus", "8"});
  EXPECT_EQ(small.status, 0) << small.err;
  const auto tiny = run_cli({"train", "--model", "llama-3.1-8b", "--tokens", "1000", "--gpu", "h100", "--gpus", "8"});
  EXPECT_EQ(tiny.status, 2);
  EXPECT_EQ(tiny.err.find("--global-batch"), std::string::npos) << tiny.err;
  EXPECT_NE(tiny.err.find("--tokens: 1000 tokens are fewer than one sequence"), std::string::npos) << tiny.err;
}

TEST(HostileInputs, DatasetSizesAsPeopleWriteThem) {
  // Only "1T" was read; 1TB, 500GB and 1TiB were refused.
  EXPECT_DOUBLE_EQ(parse_bytes("1TB", "--dataset-bytes"), 1e12);
  EXPECT_DOUBLE_EQ(parse_bytes("500GB", "--dataset-bytes"), 5e11);
  EXPECT_DOUBLE_EQ(parse_bytes("1TiB", "--dataset-bytes"), 1099511627776.0);  // 2^40
  EXPECT_DOUBLE_EQ(parse_bytes("64 GiB", "--dataset-bytes"), 68719476736.0);  // 2^36
  EXPECT_DOUBLE_EQ(parse_bytes("1T", "--dataset-bytes"), 1e12);
  EXPECT_DOUBLE_EQ(parse_bytes("2e11", "--dataset-bytes"), 2e11);
  for (const char* bad : {"TB", "-1TB", "1XB", "1e400GB", "0GB"}) EXPECT_THROW(parse_bytes(bad, "--dataset-bytes"), InputError) << bad;
  EXPECT_EQ(run_cli({"train", "--model", "llama-3.1-8b", "--dataset-bytes", "500GB", "--gpu", "h100", "--gpus", "64"}).status, 0);
}

TEST(HostileInputs, GpuNamesAsNvidiaSmiPrintsThem) {
  // nvidia-smi --query-gpu=name: each was "unknown GPU".
  EXPECT_EQ(find_gpu("NVIDIA H100 80GB HBM3").id, "h100-sxm5-80gb");
  EXPECT_EQ(find_gpu("NVIDIA A800-SXM4-80GB").id, "a800-sxm4-80gb");
  EXPECT_EQ(find_gpu("NVIDIA GeForce RTX 4090").id, "rtx4090-24gb");
  EXPECT_EQ(find_gpu("NVIDIA A100-SXM4-80GB").id, "a100-sxm4-80gb");
  EXPECT_EQ(find_gpu("NVIDIA A100 80GB PCIe").id, "a100-pcie-80gb");
  EXPECT_EQ(find_gpu("NVIDIA H100 PCIe").id, "h100-pcie-80gb");
  EXPECT_EQ(find_gpu("NVIDIA H800").id, "h800-sxm5-80gb");
  EXPECT_EQ(find_gpu("NVIDIA H20").id, "h20-96gb");
  EXPECT_EQ(find_gpu("Tesla V100-SXM2-32GB").id, "v100-sxm2-32gb");
  EXPECT_THROW(find_gpu("NVIDIA"), InputError);
}

TEST(HostileInputs, CalibrateSaveIsAtomicAndChecked) {
  const auto dir = std::filesystem::temp_directory_path() / ("calib-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "calib.json").string();
  const std::vector<std::string> base = {"calibrate", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "8", "--tp", "2",
                                         "--global-batch", "32", "--micro-batch", "2"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  ASSERT_EQ(run_cli(with({"--step-time", "2.4", "--save", file})).status, 0);
  std::ifstream in(file);
  const std::string saved((std::istreambuf_iterator<char>(in)), {});
  ASSERT_FALSE(saved.empty());
  // A bad input read after the fit leaves the old file whole: it was written
  // first, so this run (another step time, other factors) replaced it and then failed.
  EXPECT_EQ(run_cli(with({"--step-time", "3.1", "--save", file, "--tokens", "-1"})).status, 2);
  std::ifstream again(file);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(again)), {}), saved);
  // No temporary file is left beside it.
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1);
  // A device that refuses the bytes is an error, not "Saved" (exit 0 before).
  if (std::filesystem::exists("/dev/full")) {
    const auto r = run_cli(with({"--step-time", "2.4", "--save", "/dev/full"}));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(std::filesystem::is_character_file("/dev/full"));
  }
  // Killed at any moment, the file is the old one or the new one (here the
  // same text), whole: the text goes to a temporary file renamed over it. 100
  // kills, each a little later into the run (a guard: the write window is
  // microseconds, so this rarely caught the old truncate-then-write).
  for (int i = 0; i < 100; ++i) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      run_cli(with({"--step-time", "2.4", "--save", file}));
      ::_exit(0);
    }
    ::usleep(static_cast<useconds_t>(200 * i));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    std::ifstream now(file);
    EXPECT_EQ(std::string((std::istreambuf_iterator<char>(now)), {}), saved) << "kill " << i;
  }
  std::filesystem::remove_all(dir);
}

TEST(HostileInputs, ALocalConfigFolderWinsOverTheCatalogName) {
  // `huggingface-cli download Qwen/Qwen2.5-7B-Instruct --local-dir Qwen2.5-7B-Instruct`
  // leaves a folder named as the catalog's alias; its (edited) config was
  // ignored for the catalog entry. As transformers' from_pretrained does, the
  // folder wins: here its config keeps 4 of the 28 layers.
  const auto dir = std::filesystem::temp_directory_path() / ("local-model-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "Qwen2.5-7B-Instruct");
  const ModelSpec catalog = find_model("Qwen2.5-7B-Instruct");
  ASSERT_EQ(catalog.layers, 28);
  std::ofstream(dir / "Qwen2.5-7B-Instruct" / "config.json")
      << R"({"architectures":["Qwen2ForCausalLM"],"model_type":"qwen2","hidden_size":3584,"intermediate_size":18944,)"
         R"("num_attention_heads":28,"num_key_value_heads":4,"num_hidden_layers":4,"vocab_size":152064,"hidden_act":"silu",)"
         R"("max_position_embeddings":32768,"tie_word_embeddings":false})";
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  const ModelSpec local = find_model("Qwen2.5-7B-Instruct");
  std::filesystem::current_path(cwd);
  EXPECT_EQ(local.layers, 4);
  EXPECT_EQ(local.name, "Qwen2.5-7B-Instruct");
  std::filesystem::remove_all(dir);
}

// A config file is named from its own name fields, else after its folder when it
// is a config.json ("./config.json" read from inside that folder was named "."),
// else after itself (/tmp/llava.json was named "tmp").
TEST(HostileInputs, ConfigFilesAreNamedAfterTheirFolderOrThemselves) {
  const auto dir = std::filesystem::temp_directory_path() / ("config-names-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "Qwen2.5-7B-Instruct");
  const std::string body = R"({"architectures":["Qwen2ForCausalLM"],"model_type":"qwen2","hidden_size":3584,"intermediate_size":18944,)"
                           R"("num_attention_heads":28,"num_key_value_heads":4,"num_hidden_layers":4,"vocab_size":152064})";
  std::ofstream(dir / "Qwen2.5-7B-Instruct" / "config.json") << body;
  std::ofstream(dir / "my-model.json") << body;
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir / "Qwen2.5-7B-Instruct");
  const ModelSpec here = find_model("./config.json");
  std::filesystem::current_path(cwd);
  EXPECT_EQ(here.name, "Qwen2.5-7B-Instruct");
  EXPECT_EQ(find_model((dir / "my-model.json").string()).name, "my-model");
  std::filesystem::remove_all(dir);
}

// A multimodal config (LLaVA: text_config and a CLIP ViT-L/14 vision_config)
// plans the language model; every command says first that the vision tower is
// not counted, with its size: 24 × (4·1024² + 2·1024·4096) = 301,989,888
// parameters ≈ 0.30B.
TEST(HostileInputs, AMultimodalConfigSaysItsVisionTowerIsNotCounted) {
  const auto file = std::filesystem::temp_directory_path() / ("llava-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << R"({"architectures":["LlavaForConditionalGeneration"],"model_type":"llava",)"
                         R"("text_config":{"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,)"
                         R"("num_key_value_heads":8,"intermediate_size":14336,"vocab_size":128256},)"
                         R"("vision_config":{"model_type":"clip_vision_model","hidden_size":1024,"num_hidden_layers":24,)"
                         R"("num_attention_heads":16,"intermediate_size":4096,"image_size":336,"patch_size":14}})";
  const ModelSpec m = find_model(file.string());
  EXPECT_TRUE(m.vision_tower_ignored);
  EXPECT_DOUBLE_EQ(m.vision_tower_params, 301989888.0);
  const std::vector<std::vector<std::string>> commands = {
      {"train", "--model", file.string(), "--tokens", "1T", "--gpu", "h100", "--gpus", "8", "--mfu", "0.4"},
      {"memory", "--model", file.string(), "--gpu", "h100", "--gpus", "8"},
      {"plan", "--model", file.string(), "--gpu", "h100", "--gpus", "8"},
      {"infer", "--model", file.string(), "--gpu", "h100"},
      {"finetune", "--model", file.string(), "--gpu", "h100", "--no-ranking"}};
  for (const auto& args : commands) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 0) << args[0] << ": " << r.err;
    const auto at = r.out.find("vision tower (vision_config: 24 layers, hidden 1024, ~0.30B parameters) is not counted");
    EXPECT_NE(at, std::string::npos) << args[0] << ":\n" << r.out.substr(0, 600);
    EXPECT_LT(at, 400u) << args[0] << ": not said first";
    auto zh = args;
    zh.push_back("--lang");
    zh.push_back("zh");
    EXPECT_NE(run_cli(zh).out.find("视觉编码器（vision_config：24 层，隐藏维度 1024，约 0.30B 参数）未计入"), std::string::npos) << args[0];
  }
  std::filesystem::remove(file);
  // Qwen2-VL names its ViT's keys depth, embed_dim and mlp_ratio: 32 × (4·1280² + 2·1280·5120) = 629,145,600.
  const ModelSpec vl = model_from_hf_config(nlohmann::json::parse(
      R"({"model_type":"qwen2_vl","hidden_size":3584,"num_hidden_layers":28,"num_attention_heads":28,"num_key_value_heads":4,)"
      R"("intermediate_size":18944,"vocab_size":152064,"text_config":{"hidden_size":3584,"num_hidden_layers":28,"num_attention_heads":28,)"
      R"("num_key_value_heads":4,"intermediate_size":18944,"vocab_size":152064},"vision_config":{"depth":32,"embed_dim":1280,"mlp_ratio":4}})"),
      "qwen2-vl config.json");
  EXPECT_DOUBLE_EQ(vl.vision_tower_params, 629145600.0);
}
