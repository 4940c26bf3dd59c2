// The web API without sockets: gpuplan::web::handle_request answers exactly as
// the server does (src/web/http/ only moves bytes).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/run_cli.hpp"
#include "gpuplan/engine.hpp"
#include "inputs/command_inputs.hpp"
#include "inputs/input_info.hpp"
#include "gpuplan/finetune.hpp"
#include "gpuplan/hardware.hpp"
#include "gpuplan/layout.hpp"
#include "report/memory_report.hpp"
#include "gpuplan/model.hpp"
#include "report/report.hpp"
#include "report/train_report.hpp"
#include "web/web.hpp"
#include "test_support.hpp"
#include "inputs/report_chains.hpp"

namespace gpuplan {
namespace {

using nlohmann::json;
using web::handle_request;

json body_of(const web::ApiResponse& r) { return json::parse(r.body); }

// An error: the status, a JSON body with a sentence and the field.
void expect_error(const web::ApiResponse& r, int status, const std::string& field) {
  EXPECT_EQ(r.status, status) << r.body;
  EXPECT_EQ(r.content_type, "application/json");
  const json j = body_of(r);
  ASSERT_TRUE(j.contains("error")) << r.body;
  EXPECT_TRUE(j["error"].is_string());
  EXPECT_FALSE(j["error"].get<std::string>().empty());
  if (field.empty()) EXPECT_TRUE(j["field"].is_null()) << r.body;
  else EXPECT_EQ(j["field"], field) << r.body;
}

const char* kTrain = R"({"model":"llama-3.1-70b","tokens":"15T","gpu":"h100","gpus":1024,"mfu":0.4})";

// `gpuplan <args>`, in process: the exit status, stdout and stderr.
struct CliRun {
  int status = -1;
  std::string out, err;
};
CliRun run_in_process(std::vector<std::string> args) {
  args.insert(args.begin(), "gpuplan");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  CliRun r;
  r.status = cli::run_cli(static_cast<int>(argv.size()), argv.data(), &r.out, &r.err);
  return r;
}
// What `gpuplan <args> --format json` prints, parsed.
json cli_json(std::vector<std::string> args) {
  args.push_back("--format");
  args.push_back("json");
  const CliRun r = run_in_process(args);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? json::parse(r.out) : json();
}
// What the API answers with 200, parsed.
json api_json(const std::string& route, const json& body) {
  const auto r = handle_request("POST", route, body.dump());
  EXPECT_EQ(r.status, 200) << body.dump() << "\n" << r.body;
  return r.status == 200 ? body_of(r) : json();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
using gpuplan_test::temp_file;

const std::string kCatalogConfig = std::string(GPUPLAN_SOURCE_DIR) + "/data/models/llama-3.1-8b.json";

// A report with the model's display name (which names where the model came from) blanked.
json without_model_name(json j) {
  j["inputs"]["model"] = "";
  j["model"]["name"] = "";
  return j;
}
// A plan report without the line saying how long the search took.
json without_search_time(json j) {
  json kept = json::array();
  for (const auto& a : j["assumptions"]) {
    if (a.get<std::string>().rfind("Search took", 0) != 0) kept.push_back(a);
  }
  j["assumptions"] = kept;
  return j;
}

TEST(WebApi, TrainEqualsTheLibraryReport) {
  const auto r = handle_request("POST", "/api/train", kTrain);
  ASSERT_EQ(r.status, 200) << r.body;
  TrainRequest q;
  q.model = "llama-3.1-70b";
  q.workload.tokens = 15e12;
  q.workload.seq_len = 4096;  // the CLI's default, which the API shares
  q.gpu = "h100";
  q.gpus = 1024;
  q.mfu = 0.4;
  q.typed_inputs = {{"--tokens", "15T", 15e12, Unit::kCount}};  // the API echoes how "15T" was read, as the CLI does
  EXPECT_EQ(r.body, to_json(train_report_for(q)).dump());
}

// No seq_len: the one default the library, CLI and Python share (issue 25):
// GPT-3's own 2,048-token context, not 4,096, and equal to the library's
// report with seq_len left at 0.
TEST(WebApi, TrainWithoutSeqLenTakesTheModelsContext) {
  const auto r = handle_request("POST", "/api/train", R"({"model":"gpt3-175b","tokens":"300B","gpu":"a100-80g","gpus":1024,"mfu":0.4})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(nlohmann::json::parse(r.body)["inputs"]["seq_len"], 2048);
  TrainRequest q;
  q.model = "gpt3-175b";
  q.workload.tokens = 300e9;
  q.gpu = "a100-80g";
  q.gpus = 1024;
  q.mfu = 0.4;
  q.typed_inputs = {{"--tokens", "300B", 300e9, Unit::kCount}};
  EXPECT_EQ(r.body, to_json(train_report_for(q)).dump());
}

TEST(WebApi, TrainEqualsForDeadlineRangePriceAndStrings) {
  const auto r = handle_request("POST", "/api/train",
      R"({"model":"Llama-3.1-8B","tokens":"1e12","gpu":"a100-80g","deadline":"30d","mfu":"40%","price":"15-30cny","seq_len":"8192"})");
  ASSERT_EQ(r.status, 200) << r.body;
  TrainRequest q;
  q.model = "llama-3.1-8b";
  q.workload.tokens = 1e12;
  q.workload.seq_len = 8192;
  q.gpu = "a100-80g";
  q.deadline_s = 30 * 86400.0;
  q.mfu = 0.4;
  q.price.text = "15-30cny";
  q.typed_inputs = {{"--tokens", "1e12", 1e12, Unit::kCount}, {"--deadline", "30d", 30 * 86400.0, Unit::kSeconds}};
  EXPECT_EQ(r.body, to_json(train_report_for(q)).dump());
}

TEST(WebApi, ViewCarriesTheSameReportAndBothLanguages) {
  const auto plain = handle_request("POST", "/api/train", kTrain);
  const auto view = handle_request("POST", "/api/train/view", kTrain);
  ASSERT_EQ(view.status, 200);
  const json v = body_of(view);
  EXPECT_EQ(v["report"], body_of(plain));
  bool found = false;
  for (const auto& s : v["view"]["sections"]) {
    for (const auto& row : s["rows"]) {
      if (s["key"] == "time" && row["key"] == "wall_clock_s") {
        found = true;
        EXPECT_FALSE(row["zh"].get<std::string>().empty());
        EXPECT_NE(row["value_en"], row["value_zh"]);  // "195 days" vs "195 天"
      }
    }
  }
  EXPECT_TRUE(found);
}

TEST(WebApi, MemoryEqualsTheLibraryReport) {
  const auto r = handle_request("POST", "/api/memory",
      R"({"model":"llama-3.1-70b","gpu":"h100","gpus":64,"tp":8,"pp":2,"zero":1,"seq_len":8192})");
  ASSERT_EQ(r.status, 200) << r.body;
  const ModelSpec m = find_model("llama-3.1-70b");
  Layout l;
  l.tp = 8;
  l.pp = 2;
  l.dp = 4;
  l.zero_stage = 1;
  l.seq_len = 8192;
  l.sequence_parallel = true;  // the generic profile's default with TP (data/frameworks/generic.json)
  // No global batch given: 2^22 tokens / 8192 = 512 sequences, a multiple of dp 4 × micro-batch 1
  // (default_global_batch_seqs), so 128 micro-batches and min(pp 2, 128) = 2 in flight on stage 0.
  l.global_batch = 512;
  validate_layout(m, l, 64);
  EXPECT_EQ(r.body, to_json(memory_report_for(m, l, find_gpu("h100"), MemoryOptions{}, /*batch_defaulted=*/true)).dump());
}

TEST(WebApi, MemoryTakesAPastedConfigObject) {
  const std::string config = R"({"architectures":["LlamaForCausalLM"],"hidden_size":4096,"intermediate_size":14336,
    "num_attention_heads":32,"num_hidden_layers":32,"num_key_value_heads":8,"vocab_size":128256,"rms_norm_eps":1e-5,
    "tie_word_embeddings":false,"hidden_act":"silu","max_position_embeddings":131072})";
  const auto r = handle_request("POST", "/api/memory", R"({"config":)" + config + R"(,"gpu":"h100","gpus":8,"tp":8})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_GT(body_of(r)["memory"]["peak_bytes"].get<double>(), 0);
  // An incomplete config is refused with the missing key named.
  expect_error(handle_request("POST", "/api/memory", R"({"config":{"hidden_size":4096},"gpu":"h100"})"), 400, "config");
}

TEST(WebApi, TrainTakesAPastedConfigAsTheCatalogModelAndTheCliPath) {
  // data/models/llama-3.1-8b.json pasted whole, against naming the model and
  // against the CLI's --model <that file>. No MFU: the layout search predicts it
  // from the pasted architecture too.
  const json config = json::parse(read_text(kCatalogConfig));
  const json common = {{"tokens", "1T"}, {"gpu", "h100"}, {"gpus", 64}, {"price", "2.49"}};
  json pasted = common, named = common;
  pasted["config"] = config;
  named["model"] = "llama-3.1-8b";
  const json by_config = api_json("/api/train", pasted);
  const json by_name = api_json("/api/train", named);
  ASSERT_TRUE(by_config.contains("time")) << by_config.dump();
  EXPECT_EQ(by_config["model"]["name"], "pasted config.json");
  EXPECT_EQ(by_name["model"]["name"], "Llama 3.1 8B");
  EXPECT_GT(by_config["time"]["mfu"].get<double>(), 0.2);
  EXPECT_EQ(without_model_name(by_config), without_model_name(by_name));
  const json by_cli = cli_json({"train", "--model", kCatalogConfig, "--tokens", "1T", "--gpu", "h100", "--gpus", "64", "--price", "2.49"});
  EXPECT_EQ(without_model_name(by_config), without_model_name(by_cli));
  // The deadline solver (GPU count and MFU from each other) too.
  pasted.erase("gpus");
  pasted["deadline"] = "30d";
  named.erase("gpus");
  named["deadline"] = "30d";
  EXPECT_EQ(without_model_name(api_json("/api/train", pasted)), without_model_name(api_json("/api/train", named)));
}

TEST(WebApi, MalformedConfigIs400NamingTheKeyAsTheCliDoes) {
  const json good = json::parse(read_text(kCatalogConfig));
  struct Case {
    const char* name;
    json config;
    const char* key;  // named in the sentence
  };
  json missing = good, negative = good, text = good;
  missing.erase("num_hidden_layers");
  negative["hidden_size"] = -4096;
  text["num_attention_heads"] = "32";
  for (const Case& c : {Case{"missing", missing, "num_hidden_layers"}, Case{"negative", negative, "hidden_size"},
                        Case{"string", text, "num_attention_heads"}}) {
    SCOPED_TRACE(c.name);
    for (const char* route : {"/api/train", "/api/memory", "/api/plan"}) {
      json body = {{"config", c.config}, {"gpu", "h100"}, {"gpus", 8}};
      if (std::string(route) == "/api/train") {
        body["tokens"] = "1T";
        body["mfu"] = 0.4;
      }
      const auto r = handle_request("POST", route, body.dump());
      expect_error(r, 400, "config");
      const std::string sentence = body_of(r)["error"];
      EXPECT_NE(sentence.find(c.key), std::string::npos) << route << ": " << sentence;
      // The CLI's --model FILE says the same, naming the file where the API says "pasted config.json".
      const std::string file = temp_file(std::string("web_bad_config_") + c.name + ".json", c.config.dump());
      const CliRun cli = run_in_process({"train", "--model", file, "--tokens", "1T", "--gpu", "h100", "--gpus", "8", "--mfu", "0.4"});
      EXPECT_EQ(cli.status, 2);
      std::string expected = sentence;
      expected.replace(expected.find("pasted config.json"), std::string("pasted config.json").size(), file);
      EXPECT_EQ(cli.err, "error: " + expected + "\n");
    }
  }
  // Not an object, and two descriptions of one model.
  expect_error(handle_request("POST", "/api/train", R"({"config":"./config.json","tokens":"1T","gpu":"h100","gpus":8,"mfu":0.4})"),
               400, "config");
  expect_error(handle_request("POST", "/api/train", json{{"config", good}, {"model", "llama-3.1-8b"}, {"tokens", "1T"},
                                                        {"gpu", "h100"}, {"gpus", 8}, {"mfu", 0.4}}.dump()),
               400, "model");
  expect_error(handle_request("POST", "/api/train", json{{"config", good}, {"params", "8B"}, {"tokens", "1T"},
                                                        {"gpu", "h100"}, {"gpus", 8}, {"mfu", 0.4}}.dump()),
               400, "model");
}

// Every option of `gpuplan train`, `memory` and `plan` (from their --help) is a
// key of the same name in the request, except the output options, which the API
// does not have (it answers JSON with both languages' labels), --gpu-file, and
// plan's --export/--rank (a launch file instead of the ranking; CLI only so far).
TEST(WebApi, EveryCliFlagIsARequestKey) {
  for (const std::string command : {"train", "memory", "plan", "infer", "finetune"}) {
    const CliRun help = run_in_process({command, "--help"});
    ASSERT_EQ(help.status, 0) << help.err;
    std::istringstream lines(help.out);
    std::string line;
    int flags = 0;
    while (std::getline(lines, line)) {
      const auto start = line.find_first_not_of(' ');
      if (start == std::string::npos || start == 0 || line[start] != '-') continue;
      // "  -m,--model TEXT  ..." or "  --seq-len,--seq INT  ...": the first long name.
      std::string names = line.substr(start, line.find(' ', start) - start);
      const auto dashdash = names.find("--");
      if (dashdash == std::string::npos) continue;
      std::string flag = names.substr(dashdash);
      flag = flag.substr(0, flag.find(','));
      if (flag == "--help" || flag == "--format" || flag == "--lang" || flag == "--gpu-file" ||
          (command == "plan" && (flag == "--export" || flag == "--rank"))) {
        continue;
      }
      ++flags;
      const std::string key = InputError::request_key(flag);
      const auto r = handle_request("POST", std::string("/api/") + command, json{{key, nullptr}}.dump());
      EXPECT_EQ(r.body.find("is not a field of this request"), std::string::npos) << command << " " << flag << ": " << r.body;
    }
    EXPECT_GT(flags, 15) << command << " --help:\n" << help.out;
  }
  // And the reverse for a key the CLI does not have: `gpuplan plan` takes no --params.
  expect_error(handle_request("POST", "/api/plan", R"({"params":"7B","gpu":"h100","gpus":8})"), 400, "params");
}

// The train flags for failures, restarts, checkpoints and spot preemptions:
// each changes the answer, and exactly as the CLI flag does.
TEST(WebApi, OperationsFieldsAnswerAsTheCliFlags) {
  const json base_body = {{"model", "llama-3.1-70b"}, {"tokens", "15T"}, {"gpu", "h100"}, {"gpus", 1024}, {"mfu", 0.4}};
  const std::vector<std::string> base_args = {"train", "--model", "llama-3.1-70b", "--tokens", "15T", "--gpu", "h100", "--gpus", "1024", "--mfu", "0.4"};
  const json base = api_json("/api/train", base_body);
  struct Case {
    std::string key;
    json value;
    std::vector<std::string> flags;
  };
  const std::vector<Case> cases = {
      {"fault_budget", 0.2, {"--fault-budget", "0.2"}},
      {"gpu_mtbf_hours", 5000, {"--gpu-mtbf-hours", "5000"}},
      {"restart_minutes", 60, {"--restart-minutes", "60"}},
      {"storage_gbytes_per_s", "10", {"--storage-gbytes-per-s", "10"}},
      {"checkpoint_interval", "6h", {"--checkpoint-interval", "6h"}},
      {"spot_mtbf_hours", 500, {"--spot", "--spot-mtbf-hours", "500"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.key);
    json body = base_body;
    body[c.key] = c.value;
    std::vector<std::string> args = base_args;
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    json without = base_body;  // the same request without the field
    if (c.key == "spot_mtbf_hours") body["spot"] = without["spot"] = true;
    const json api = api_json("/api/train", body);
    EXPECT_EQ(api, cli_json(args));
    EXPECT_NE(api, api_json("/api/train", without));
  }
  // Directions: failures more often, slower restarts and slower storage cost more time.
  auto fault_s = [&](const char* key, const json& value) {
    json body = base_body;
    body[key] = value;
    return api_json("/api/train", body)["time"]["fault_budget_s"].get<double>();
  };
  const double fault = base["time"]["fault_budget_s"].get<double>();
  EXPECT_GT(fault_s("gpu_mtbf_hours", 5000), fault);
  EXPECT_GT(fault_s("restart_minutes", 60), fault);
  EXPECT_GT(fault_s("storage_gbytes_per_s", 10), fault);
  // Spot: preemptions every 500 h per node lose fewer GPU-hours than every 72 h (the default).
  json spot = base_body;
  spot["spot"] = true;
  const double lost72 = api_json("/api/train", spot)["gpu_hours"]["spot_overhead_gpu_hours"].get<double>();
  spot["spot_mtbf_hours"] = 500;
  EXPECT_LT(api_json("/api/train", spot)["gpu_hours"]["spot_overhead_gpu_hours"].get<double>(), lost72);
  // Checked as the CLI checks them, the error naming the key.
  json bad = base_body;
  bad["storage_gbytes_per_s"] = -1;
  expect_error(handle_request("POST", "/api/train", bad.dump()), 400, "storage_gbytes_per_s");
  bad = base_body;
  bad["checkpoint_interval"] = "soon";
  expect_error(handle_request("POST", "/api/train", bad.dump()), 400, "checkpoint_interval");
}

// --calibration FILE on the CLI; the API takes the file's object, never a path.
TEST(WebApi, CalibrationIsThePastedCalibrateFile) {
  const std::string file = ::testing::TempDir() + "web_calib.json";
  const CliRun c = run_in_process({"calibrate", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "8", "--tp", "2", "--global-batch", "32",
                            "--micro-batch", "2", "--seq-len", "4096", "--zero", "1", "--sequence-parallel", "--step-time", "2.4",
                            "--save", file});
  ASSERT_EQ(c.status, 0) << c.err;
  const json body = {{"model", "llama-3.1-8b"}, {"tokens", "1T"}, {"gpu", "h100"}, {"gpus", 256}};
  json calibrated = body;
  calibrated["calibration"] = json::parse(read_text(file));
  const json api = api_json("/api/train", calibrated);
  EXPECT_EQ(api, cli_json({"train", "--model", "llama-3.1-8b", "--tokens", "1T", "--gpu", "h100", "--gpus", "256", "--calibration", file}));
  // The trial ran slower than predicted, so the calibrated full run is predicted slower too.
  EXPECT_LT(api["time"]["mfu"].get<double>(), api_json("/api/train", body)["time"]["mfu"].get<double>());
  json bad = body;
  bad["calibration"] = file;  // a path is not read
  expect_error(handle_request("POST", "/api/train", bad.dump()), 400, "calibration");
  bad["calibration"] = json{{"gemm_ceiling", 0.5}};
  expect_error(handle_request("POST", "/api/train", bad.dump()), 400, "calibration");
}

TEST(WebApi, PlanCompareLayoutAnswersAsTheCliFlag) {
  const json body = {{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"gpus", 8}, {"global_batch", 64},
                     {"compare_layout", {"tp=2,pp=1,dp=4,mb=1,recompute=full"}}};
  const json api = api_json("/api/plan", body);
  EXPECT_EQ(without_search_time(api), without_search_time(cli_json({"plan", "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "8",
                                                                      "--global-batch", "64", "--compare-layout",
                                                                      "tp=2,pp=1,dp=4,mb=1,recompute=full"})));
  EXPECT_TRUE(api.at("groups").at(0).contains("reference")) << api.dump();
  json bad = body;
  bad["compare_layout"] = {"tp=2,pp=1,dp=8"};  // 16 GPUs, not 8
  expect_error(handle_request("POST", "/api/plan", bad.dump()), 400, "compare_layout");
  bad["compare_layout"] = "tp=2,pp=1,dp=4";  // repeatable: an array
  expect_error(handle_request("POST", "/api/plan", bad.dump()), 400, "compare_layout");
}

// POST /api/plan/export is `gpuplan plan ... --export TO --rank N`: the same
// text (the library's launch_config, one decision for both), the file name and
// media type the page saves it under, the DeepSpeed note the CLI prints on
// stderr, and the CLI's refusals as 400s naming the key.
TEST(WebApi, PlanExportIsTheClisExportText) {
  const json plan = {{"model", "llama-3.1-70b"}, {"gpu", "h100"}, {"gpus", 64}, {"seq_len", 4096}, {"global_batch", 256}};
  for (const char* to : {"megatron", "deepspeed", "torchtitan", "megatron-bridge", "nemo", "megatron-deepspeed", "gpt-neox"}) {
    for (int rank : {1, 2}) {
      json body = plan;
      body["export"] = to;
      body["rank"] = rank;
      const CliRun cli = run_in_process({"plan", "--model", "llama-3.1-70b", "--gpu", "h100", "--gpus", "64", "--seq-len", "4096", "--global-batch", "256",
                                  "--export", to, "--rank", std::to_string(rank)});
      if (cli.status != 0) {  // a rank the format's reader cannot run: the same refusal, in both languages
        const auto r = handle_request("POST", "/api/plan/export", body.dump());
        expect_error(r, 400, "export");
        EXPECT_EQ("error: " + body_of(r)["error"].get<std::string>() + "\n", cli.err);
        continue;
      }
      const json j = api_json("/api/plan/export", body);
      EXPECT_EQ(j["text"], cli.out) << to << " rank " << rank;
      EXPECT_EQ(j["format"], to);
      EXPECT_EQ(j["rank"], rank);
      const std::string file = j["file_name"];
      const std::string format = to;
      EXPECT_EQ(file, format == "megatron"     ? "megatron-args.txt"
                      : format == "deepspeed"  ? "ds_config.json"
                      : format == "torchtitan" ? "torchtitan.toml"
                                               : format + ".overrides");
      // The command that starts it names the file (8 nodes of 8 H100s).
      const std::string launch = j["launch"];
      EXPECT_NE(launch.find(file), std::string::npos) << launch;
      EXPECT_NE(launch.find(format == "deepspeed" ? "--num_nodes 8" : format == "nemo" ? "--nodes 8" : "--nnodes 8"), std::string::npos) << launch;
      // What the CLI says on stderr is the notes' English, line by line.
      std::string notes;
      for (const auto& n : j["notes"]) notes += n["en"].get<std::string>() + "\n";
      EXPECT_EQ(notes, cli.err) << to << " rank " << rank;
    }
  }
  // No format: the planned framework's own (generic: Megatron-LM arguments).
  EXPECT_EQ(api_json("/api/plan/export", plan)["format"], "megatron");
  json torchtitan = plan;
  torchtitan["framework"] = "torchtitan@2025-10";
  const json own = api_json("/api/plan/export", torchtitan);
  EXPECT_EQ(own["format"], "torchtitan");
  EXPECT_EQ(own["runner"], "torchtitan@2025-10");
  // Refusals name the key.
  json bad = plan;
  bad["export"] = "colossalai";
  expect_error(handle_request("POST", "/api/plan/export", bad.dump()), 400, "export");
  bad = plan;
  bad["rank"] = 0;
  expect_error(handle_request("POST", "/api/plan/export", bad.dump()), 400, "rank");
  bad = plan;
  bad["gpus"] = "64,128";
  expect_error(handle_request("POST", "/api/plan/export", bad.dump()), 400, "export");
  // Only plan has an export; GET is refused.
  expect_error(handle_request("POST", "/api/train/export", kTrain), 404, "");
  expect_error(handle_request("GET", "/api/plan/export", ""), 405, "");
}

TEST(WebApi, MalformedJsonIs400) {
  expect_error(handle_request("POST", "/api/train", "{\"model\": "), 400, "");
  expect_error(handle_request("POST", "/api/train", "not json"), 400, "");
  expect_error(handle_request("POST", "/api/train", ""), 400, "");
  expect_error(handle_request("POST", "/api/train", "[1,2]"), 400, "");  // not an object
}

TEST(WebApi, MissingFieldIs400WithTheFieldNamed) {
  expect_error(handle_request("POST", "/api/train", R"({"tokens":"15T","gpu":"h100","gpus":1024,"mfu":0.4})"), 400, "model");
  expect_error(handle_request("POST", "/api/train", R"({"model":"llama-3.1-70b","tokens":"15T","gpus":1024,"mfu":0.4})"), 400, "gpu");
  expect_error(handle_request("POST", "/api/memory", R"({"model":"llama-3.1-70b"})"), 400, "gpu");
}

TEST(WebApi, WrongTypeIs400WithTheFieldNamed) {
  expect_error(handle_request("POST", "/api/train", R"({"model":"llama-3.1-70b","tokens":"15T","gpu":"h100","gpus":true,"mfu":0.4})"), 400, "gpus");
  expect_error(handle_request("POST", "/api/train", R"({"model":7,"tokens":"15T","gpu":"h100","gpus":1024,"mfu":0.4})"), 400, "model");
  expect_error(handle_request("POST", "/api/memory", R"({"model":"llama-3.1-70b","gpu":"h100","tp":"eight"})"), 400, "tp");
  expect_error(handle_request("POST", "/api/memory", R"({"model":"llama-3.1-70b","gpu":"h100","tp":2.5})"), 400, "tp");
  expect_error(handle_request("POST", "/api/memory", R"({"model":"llama-3.1-70b","gpu":"h100","sequence_parallel":"yes"})"), 400,
               "sequence_parallel");
}

TEST(WebApi, ValidatesAsTheCliDoes) {
  // The same checks and sentences as `gpuplan train`: a negative count, an MFU above 1, NaN, an unknown GPU.
  expect_error(handle_request("POST", "/api/train", R"({"model":"llama-3.1-70b","tokens":"-5T","gpu":"h100","gpus":1024,"mfu":0.4})"), 400, "tokens");
  expect_error(handle_request("POST", "/api/train", R"({"model":"llama-3.1-70b","tokens":"15T","gpu":"h100","gpus":1024,"mfu":1.5})"), 400, "mfu");
  expect_error(handle_request("POST", "/api/train", R"({"model":"llama-3.1-70b","tokens":"nan","gpu":"h100","gpus":1024,"mfu":0.4})"), 400, "tokens");
  expect_error(handle_request("POST", "/api/train", R"({"model":"llama-3.1-70b","tokens":"15T","gpu":"h1000","gpus":1024,"mfu":0.4})"), 400, "gpu");
  expect_error(handle_request("POST", "/api/train", R"({"model":"llama-3.1-70b","tokens":"15T","gpu":"h100","gpus":1024.5,"mfu":0.4})"), 400, "gpus");
  expect_error(handle_request("POST", "/api/memory", R"({"model":"llama-3.1-70b","gpu":"h100","gpus":64,"tp":3})"), 400, "gpus");
  // A key the CLI has no flag for (a typo) is refused, not ignored.
  expect_error(handle_request("POST", "/api/train", R"({"model":"llama-3.1-70b","tokens":"15T","gpu":"h100","gpus":1024,"mfuu":0.4})"), 400, "mfuu");
}

TEST(WebApi, NothingInARequestReadsAFile) {
  // The CLI's --model takes a config.json path; the API takes catalog ids only.
  expect_error(handle_request("POST", "/api/train", R"({"model":"/etc/passwd","tokens":"15T","gpu":"h100","gpus":1024,"mfu":0.4})"), 400, "model");
  expect_error(handle_request("POST", "/api/memory", R"({"model":"/tmp","gpu":"h100"})"), 400, "model");
  expect_error(handle_request("POST", "/api/memory", R"({"model":"llama-3.1-70b","gpu":"h100","gpu_file":"/etc/passwd"})"), 400, "gpu_file");
}

TEST(WebApi, TenMegabyteBodyIs413) {
  const std::string big(10 * 1024 * 1024, 'x');
  expect_error(handle_request("POST", "/api/train", big), 413, "");
  std::string padded = std::string(R"({"model":"llama-3.1-70b","pad":")") + std::string(web::kMaxBodyBytes, ' ') + "\"}";
  expect_error(handle_request("POST", "/api/train", padded), 413, "");
}

// Issue 13: the serving tab's call is `gpuplan infer`, key for flag.
TEST(WebApi, InferEqualsTheCli) {
  const json api = api_json("/api/infer", json{{"model", "deepseek-v3"}, {"gpu", "h800"}, {"precision", "fp8"}, {"rps", 50}});
  EXPECT_EQ(api, cli_json({"infer", "--model", "deepseek-v3", "--gpu", "h800", "--precision", "fp8", "--rps", "50"}));
  EXPECT_TRUE(api["deployment"]["feasible"].is_boolean());
  const json dis = api_json("/api/infer", json{{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"rps", "5"}, {"input", 1024},
                                                {"latency_target_ms", 30}, {"disaggregate", true}});
  EXPECT_EQ(dis, cli_json({"infer", "--model", "llama-3.1-8b", "--gpu", "h100", "--rps", "5", "--input", "1024",
                           "--latency-target-ms", "30", "--disaggregate"}));
  // An unreachable target: 400 naming the key, one sentence.
  expect_error(handle_request("POST", "/api/infer", R"({"model":"deepseek-v3","gpu":"h800","precision":"fp8","rps":50,"latency_target_ms":1})"),
               400, "latency_target_ms");
}

// Issue 16: the fine-tuning tab's call is `gpuplan finetune` (FinetuneInputs /
// finetune_report_for), key for flag, and its numbers are the estimator's.
TEST(WebApi, FinetuneEqualsTheLibraryAndTheCli) {
  // 10M tokens packed into 2,048-token samples: ceil(10,000,000 / 2,048) = 4,883
  // samples; × 2,048 × 2 epochs = 20,000,768 tokens.
  const json api = api_json("/api/finetune", json{{"model", "llama-3.1-8b"}, {"gpu", "a100-80g"}, {"method", "lora"}, {"tokens", "10M"},
                                                  {"seq_len", 2048}, {"epochs", 2}, {"rank", 16}, {"no_ranking", true}});
  EXPECT_EQ(api["inputs"]["samples"], 4883);
  EXPECT_EQ(api["flops"]["tokens"], 20000768);
  // The same job given to the estimator directly: the smallest count that fits and its time and memory.
  const ModelSpec m = *find_catalog_model("llama-3.1-8b");
  const GpuSpec& g = find_gpu("a100-80g");
  FinetuneJob j;
  j.method = FineTune::kLora;
  j.lora_rank = 16;
  j.seq_len = 2048;
  j.samples = 4883;
  j.epochs = 2;
  const int64_t n = smallest_fitting_gpus(m, g, j);
  ASSERT_EQ(n, 1);  // 8B in bf16 (16 GB) plus rank-16 adapters fits one 80 GB A100
  const FinetuneEstimate e = estimate_finetune(m, g, j, n);
  EXPECT_EQ(api["inputs"]["gpus"], n);
  EXPECT_DOUBLE_EQ(api["time"]["wall_clock_s"].get<double>(), e.wall_s);
  EXPECT_EQ(api["memory"]["peak_bytes"].get<int64_t>(), std::llround(e.memory.peak_bytes));  // to the nearest byte
  EXPECT_EQ(api, cli_json({"finetune", "--model", "llama-3.1-8b", "--gpu", "a100-80g", "--method", "lora", "--tokens", "10M", "--seq-len", "2048",
                           "--epochs", "2", "--rank", "16", "--no-ranking"}));
  // A deadline without a count: the fewest GPUs (doubling from the smallest that fits) finishing by then.
  const double one_gpu_s = e.wall_s;
  const json fast = api_json("/api/finetune", json{{"model", "llama-3.1-8b"}, {"gpu", "a100-80g"}, {"tokens", "10M"}, {"seq_len", 2048},
                                                   {"epochs", 2}, {"rank", 16}, {"no_ranking", true}, {"deadline", fmt::format("{}s", one_gpu_s / 3)}});
  int64_t k = 1;
  while (estimate_finetune(m, g, j, k).wall_s > one_gpu_s / 3) k *= 2;
  EXPECT_GT(k, 2);
  EXPECT_EQ(fast["inputs"]["gpus"], k);
  EXPECT_EQ(fast["time"]["deadline_met"], true);
}

TEST(WebApi, FinetuneBadInputIs400NamingTheField) {
  expect_error(handle_request("POST", "/api/finetune", R"({"model":"llama-3.1-8b","gpu":"a100-80g","method":"dora"})"), 400, "method");
  expect_error(handle_request("POST", "/api/finetune", R"({"model":"llama-3.1-8b","gpu":"a100-80g","samples":"1k","tokens":"1M"})"), 400, "tokens");
  // Issue 16: full fine-tuning of 405B on 24 GB cards fits no count up to 1,024: one sentence, not a time and a cost.
  const auto r = handle_request("POST", "/api/finetune", R"({"model":"llama-3.1-405b","gpu":"4090","method":"full","no_ranking":true})");
  expect_error(r, 400, "gpu");
  EXPECT_NE(body_of(r)["error"].get<std::string>().find("does not fit"), std::string::npos) << r.body;
}

TEST(WebApi, UnknownRouteIs404) {
  expect_error(handle_request("POST", "/api/nothing", "{}"), 404, "");
  expect_error(handle_request("GET", "/api/train/more", ""), 404, "");
  expect_error(handle_request("GET", "/nothing.html", ""), 404, "path");
  expect_error(handle_request("GET", "/api/train", ""), 405, "");
  expect_error(handle_request("DELETE", "/", ""), 405, "");
}

TEST(WebApi, DotDotPathIs400) {
  expect_error(handle_request("GET", "/../etc/passwd", ""), 400, "path");
  expect_error(handle_request("GET", "/..", ""), 400, "path");
  expect_error(handle_request("POST", "/api/../api/train", kTrain), 400, "path");
  expect_error(handle_request("GET", "/static/..\\..\\x", ""), 400, "path");
}

TEST(WebApi, ServesTheEmbeddedPage) {
  const auto index = handle_request("GET", "/", "");
  ASSERT_EQ(index.status, 200);
  EXPECT_EQ(index.content_type, "text/html; charset=utf-8");
  EXPECT_NE(index.body.find("app.js"), std::string::npos);
  const auto js = handle_request("GET", "/app.js", "");
  ASSERT_EQ(js.status, 200);
  EXPECT_EQ(js.content_type, "text/javascript; charset=utf-8");
  EXPECT_NE(js.body.find("训练时长"), std::string::npos);  // UTF-8 survives the embedding
  EXPECT_EQ(handle_request("GET", "/style.css", "").status, 200);
}

TEST(WebApi, Catalogs) {
  const json m = body_of(handle_request("GET", "/api/models", ""));
  EXPECT_EQ(m["models"].size(), model_catalog().size());
  const json g = body_of(handle_request("GET", "/api/gpus", ""));
  EXPECT_EQ(g["gpus"].size(), gpu_catalog().size());
  // The Serving tab's engine menu: every engine profile, each version by its label.
  const json e = body_of(handle_request("GET", "/api/engines", ""));
  ASSERT_EQ(e["engines"].size(), engine_catalog().size());
  EXPECT_EQ(e["engines"][0]["versions"][0]["label"], engine_catalog()[0].versions[0].label());
  EXPECT_EQ(body_of(handle_request("GET", "/api/health", ""))["ok"], true);
}

// Byte counts are JSON integers (34359738368, not 34359738368.0), to the
// nearest byte; so are the other counts of a GPU's card (TDP in W, PCIe
// generation, GPUs per node). Rates (bytes/s, FLOP/s) stay numbers.
TEST(WebApi, ByteCountsAreJsonIntegers) {
  const json list = cli_json({"gpus"});
  ASSERT_EQ(list["gpus"].size(), gpu_catalog().size());
  for (const json& g : list["gpus"]) {
    EXPECT_TRUE(g["memory_bytes"].is_number_integer()) << g["id"] << ": " << g["memory_bytes"].dump();
    EXPECT_TRUE(g["gpus_per_node"].is_number_integer()) << g["id"];
    EXPECT_EQ(g["memory_bytes"].get<int64_t>(), std::llround(find_gpu(g["id"].get<std::string>()).memory_bytes)) << g["id"];
  }
  // h200: 141 GiB = 141 × 2^30 = 151,397,597,184 bytes; 700 W; PCIe Gen5 (data/gpus.json).
  const json h200 = cli_json({"gpus", "h200"})["gpu"];
  EXPECT_TRUE(h200["memory_bytes"].is_number_integer());
  EXPECT_EQ(h200["memory_bytes"].get<int64_t>(), int64_t{151397597184});
  EXPECT_EQ(h200["memory_bytes"].dump(), "151397597184");
  EXPECT_EQ(h200["tdp_w"].dump(), "700");
  EXPECT_EQ(h200["pcie_gen"].dump(), "5");
  EXPECT_EQ(h200["gpus_per_node"].dump(), "8");
  EXPECT_TRUE(h200["hbm_bytes_per_s"].is_number_float());  // a rate, 4.8e12 bytes/s
  // The web page's catalog too: a100-80g is 80 × 2^30 = 85,899,345,920 bytes.
  const json web = body_of(handle_request("GET", "/api/gpus", ""));
  for (const json& g : web["gpus"]) {
    EXPECT_TRUE(g["memory_bytes"].is_number_integer()) << g["id"];
    if (g["id"] == "a100-sxm4-80gb") EXPECT_EQ(g["memory_bytes"].get<int64_t>(), int64_t{85899345920});
  }
  // A memory estimate's byte counts are fractional in the library; JSON writes each to the nearest byte.
  const json mem = cli_json({"memory", "--model", "llama-3.1-8b", "--gpu", "h100"})["memory"];
  int byte_keys = 0;
  for (auto it = mem.begin(); it != mem.end(); ++it) {
    const std::string& k = it.key();
    if (k.size() < 6 || k.compare(k.size() - 6, 6, "_bytes") != 0 || it.value().is_null()) continue;
    ++byte_keys;
    EXPECT_TRUE(it.value().is_number_integer()) << k << ": " << it.value().dump();
  }
  EXPECT_GE(byte_keys, 8);  // weights, gradients, optimizer, activations, logits, ... capacity
  // Rounding to the nearest byte, and a value past 2^53 (not exact as an integer) left a number.
  Report rep;
  rep.command = "memory";
  Section s{"memory", "Memory", "显存", {}, {}, {}};
  s.rows.push_back(Row{"a_bytes", "A", "A", 1610612736.4, Unit::kBytes});
  s.rows.push_back(Row{"b_bytes", "B", "B", 1610612736.6, Unit::kBytes});
  s.rows.push_back(Row{"c_bytes", "C", "C", 1e18, Unit::kBytes});
  rep.sections.push_back(s);
  const json j = to_json(rep);
  EXPECT_EQ(j["memory"]["a_bytes"].dump(), "1610612736");
  EXPECT_EQ(j["memory"]["b_bytes"].dump(), "1610612737");
  EXPECT_TRUE(j["memory"]["c_bytes"].is_number_float());
}

TEST(WebApi, FieldKeyMapsCliFlags) {
  // An InputError names its input by request key however the throwing site wrote it.
  EXPECT_EQ(InputError("--seq-len", "x").field(), "seq_len");
  EXPECT_EQ(InputError("gpus", "x").field(), "gpus");
  EXPECT_EQ(InputError("train.framework", "x").field(), "train.framework");
  // The sentence in request keys: gpuplan's inputs renamed, another program's flags kept.
  EXPECT_EQ(in_request_keys("--seq-len must be at least 1 (Megatron's --seq-length; --use-distributed-optimizer too)."),
            "seq_len must be at least 1 (Megatron's --seq-length; --use-distributed-optimizer too).");
  EXPECT_EQ(in_request_keys("--micro-batch and --micro-batch-size, --gpus,--tp--"), "micro_batch and --micro-batch-size, gpus,tp--");
  EXPECT_EQ(in_request_keys("a--gpus b_--gpus"), "a--gpus b_--gpus");
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// Issue 17: each input of train, memory, calibrate, plan, infer and finetune is
// declared once (visit_<command>_inputs); the CLI binds every one as its flag,
// the web API reads every one under its key, and the CLI has no option besides
// them but the model, its own (output, files) and the calibrate/plan modes.
// (python/tests/test_api.py checks the same inputs are keyword arguments.)
TEST(WebApi, EveryDeclaredInputReachesTheCliAndTheWeb) {
  EXPECT_EQ(input_key({"--fleet-utilisation,--fleet-utilization", "", ""}), "fleet_utilisation");
  EXPECT_EQ(input_key({"--gpus,-n", "", ""}), "gpus");
  const std::set<std::string> cli_own = {"--model", "--params", "--calibration", "--save", "--export", "--rank",
                                         "--format", "--lang", "--gpu-file"};
  const std::set<std::string> web_endpoints = {"train", "memory", "plan", "infer", "finetune"};  // calibrate has none
  const auto specs = cli::command_specs();
  size_t commands = 0;
  for (const cli::DeclaredInputs& d : cli::declared_inputs()) {
    ++commands;
    std::set<std::string> cli_flags;
    for (const auto& c : specs) {
      if (c.name != d.command) continue;
      for (const auto& o : c.options) cli_flags.insert(o.name);
    }
    ASSERT_FALSE(cli_flags.empty()) << d.command;
    std::set<std::string> declared;
    for (const InputInfo& input : d.inputs) {
      const std::string all_flags = input.flags;
      const std::string flag = all_flags.substr(0, all_flags.find(','));  // the canonical one, as command_specs names it
      EXPECT_TRUE(declared.insert(flag).second) << d.command << " declares " << flag << " twice";
      EXPECT_TRUE(cli_flags.count(flag)) << d.command << " " << flag;
      if (!web_endpoints.count(d.command)) continue;
      // The web reads the key: a value of the wrong JSON type is refused naming it
      // (an unread key would be refused as unknown instead). Nothing is computed.
      const json body = {{input_key(input), json::object()}};
      const web::ApiResponse r = handle_request("POST", "/api/" + d.command, body.dump());
      EXPECT_EQ(r.status, 400) << d.command << " " << flag;
      EXPECT_EQ(json::parse(r.body).value("field", ""), input_key(input)) << d.command << " " << flag << ": " << r.body;
    }
    for (const std::string& flag : cli_flags) {
      EXPECT_TRUE(declared.count(flag) || cli_own.count(flag)) << d.command << " binds " << flag << " by hand";
    }
  }
  EXPECT_EQ(commands, 6u);
}

}  // namespace
}  // namespace gpuplan
