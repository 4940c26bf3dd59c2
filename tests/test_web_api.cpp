// The web API without sockets: gpuplan::web::handle_request answers exactly as
// the server does (src/web/http/ only moves bytes).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gpuplan/layout.hpp"
#include "gpuplan/memory_report.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/train_report.hpp"
#include "gpuplan/web.hpp"

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
  EXPECT_EQ(r.body, to_json(train_report(q)).dump());
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
  EXPECT_EQ(r.body, to_json(train_report(q)).dump());
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
  validate_layout(m, l, 64);
  EXPECT_EQ(r.body, to_json(memory_report(m, l, find_gpu("h100"), MemoryOptions{})).dump());
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
  EXPECT_EQ(body_of(handle_request("GET", "/api/health", ""))["ok"], true);
}

TEST(WebApi, FieldKeyMapsCliFlags) {
  EXPECT_EQ(web::field_key("--seq-len"), "seq_len");
  EXPECT_EQ(web::field_key("--gpus"), "gpus");
  EXPECT_EQ(web::field_key("model"), "model");
}

}  // namespace
}  // namespace gpuplan
