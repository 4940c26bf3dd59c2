// Which requests `gpuplan web` reads at all (issue 30): the Host, Origin and
// Content-Type checks of src/web/admission.cpp, and the bounds on what one
// request may hold (src/web/api.cpp), called without sockets.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "web/web.hpp"

namespace gpuplan::web {
namespace {

const ServerIdentity kLoopback{"127.0.0.1", 8080};

RequestMeta post(const std::string& host, const std::string& origin = "", const std::string& type = "application/json") {
  return RequestMeta{"POST", host, origin, type};
}

int status_of(const std::optional<ApiResponse>& r) { return r ? r->status : 0; }

// DNS rebinding: a page of evil.example whose name is made to resolve to
// 127.0.0.1 reaches the loopback server with its own name in Host.
TEST(WebAdmission, LoopbackServerAnswersOnlyLoopbackNamesAtItsPort) {
  for (const char* ok : {"127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080", "127.0.0.1"}) {
    EXPECT_EQ(status_of(refuse_request(RequestMeta{"GET", ok, "", ""}, kLoopback)), 0) << ok;
  }
  EXPECT_EQ(status_of(refuse_request(RequestMeta{"GET", "127.1.2.3:8080", "", ""}, kLoopback)), 0);
  for (const char* bad : {"evil.example", "evil.example:8080", "127.0.0.1:9090", "127.0.0.1:80x", "", "[::1", "192.168.1.5:8080",
                          "127.attacker.example:8080", "127.0.0.1.attacker.example:8080", "127.0.0.256:8080", "127.0.0:8080"}) {
    const auto r = refuse_request(RequestMeta{"GET", bad, "", ""}, kLoopback);
    ASSERT_EQ(status_of(r), 403) << bad;
    EXPECT_NE(nlohmann::json::parse(r->body)["error"].get<std::string>().find("Host header"), std::string::npos);
  }
  // A server the user exposed on purpose (--host 0.0.0.0) is reached under any name.
  EXPECT_EQ(status_of(refuse_request(RequestMeta{"GET", "gpu-box.lan:8080", "", ""}, ServerIdentity{"0.0.0.0", 8080})), 0);
}

// A "simple" cross-origin POST (text/plain, a form) goes out without a CORS
// preflight, so the server itself refuses it; its own page's POST passes.
TEST(WebAdmission, CrossOriginAndNonJsonPostsAreRefused) {
  EXPECT_EQ(status_of(refuse_request(post("127.0.0.1:8080", "http://127.0.0.1:8080"), kLoopback)), 0);
  EXPECT_EQ(status_of(refuse_request(post("localhost:8080", "http://localhost:8080", "application/json; charset=utf-8"), kLoopback)), 0);
  EXPECT_EQ(status_of(refuse_request(post("localhost:8080", "", " Application/JSON ; charset=utf-8"), kLoopback)), 0);
  EXPECT_EQ(status_of(refuse_request(post("localhost:8080", "", "application/jsonx"), kLoopback)), 415);
  EXPECT_EQ(status_of(refuse_request(post("127.0.0.1:8080"), kLoopback)), 0);  // curl sends no Origin
  EXPECT_EQ(status_of(refuse_request(post("127.0.0.1", "http://localhost:8080"), kLoopback)), 0);
  EXPECT_EQ(status_of(refuse_request(post("127.0.0.1", "http://localhost"), kLoopback)), 403);
  EXPECT_EQ(status_of(refuse_request(post("127.0.0.1", "http://127.attacker.example:8080"), kLoopback)), 403);
  EXPECT_EQ(status_of(refuse_request(post("127.0.0.1:8080", "http://evil.example"), kLoopback)), 403);
  EXPECT_EQ(status_of(refuse_request(post("127.0.0.1:8080", "null"), kLoopback)), 403);
  EXPECT_EQ(status_of(refuse_request(post("127.0.0.1:8080", "http://127.0.0.1:9090"), kLoopback)), 403);
  EXPECT_EQ(status_of(refuse_request(post("gpu-box.lan:8080", "http://evil.example"), ServerIdentity{"0.0.0.0", 8080})), 403);
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""}) {
    const auto r = refuse_request(post("127.0.0.1:8080", "", type), kLoopback);
    ASSERT_EQ(status_of(r), 415) << type;
    EXPECT_NE(nlohmann::json::parse(r->body)["error"].get<std::string>().find("application/json"), std::string::npos);
  }
}

// What one request may hold: the 70,000-entry GPU list and the 700 KB model
// name of the issue are refused with one sentence, in well under a millisecond
// of work per kilobyte, before any GPU or model is looked up.
TEST(WebAdmission, RequestsOverTheSizeBoundsAreRefusedWithOneSentence) {
  nlohmann::json many = {{"model", "llama-3.1-8b"}, {"gpu", nlohmann::json::array()}, {"gpus", 8}};
  for (int i = 0; i < 70000; ++i) many["gpu"].push_back("h100");
  ApiResponse r = handle_request("POST", "/api/plan", many.dump());
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(nlohmann::json::parse(r.body)["error"].get<std::string>().find("at most 1024"), std::string::npos) << r.body;
  const nlohmann::json long_name = {{"model", std::string(700 * 1024, 'x')}, {"tokens", "1T"}, {"gpu", "h100"}, {"gpus", 8}};
  r = handle_request("POST", "/api/train", long_name.dump());
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(nlohmann::json::parse(r.body)["error"].get<std::string>().find("16384 bytes"), std::string::npos) << r.body;
  nlohmann::json wide = {{"model", "llama-3.1-8b"}};
  for (int i = 0; i < 30000; ++i) wide["k" + std::to_string(i)] = i;
  r = handle_request("POST", "/api/train", wide.dump());
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(nlohmann::json::parse(r.body)["error"].get<std::string>().find("20000 JSON values"), std::string::npos) << r.body;
  // A pasted config.json is well inside the bounds (GPT-OSS's 36-entry layer_types).
  const nlohmann::json config = {{"config", {{"hidden_size", 2880}, {"num_hidden_layers", 36}, {"num_attention_heads", 64},
                                             {"num_key_value_heads", 8}, {"intermediate_size", 2880}, {"vocab_size", 201088},
                                             {"layer_types", std::vector<std::string>(36, "full_attention")}}},
                                 {"tokens", "1T"}, {"gpu", "h100"}, {"gpus", 64}, {"mfu", 0.4}};
  EXPECT_EQ(handle_request("POST", "/api/train", config.dump()).status, 200);
}

}  // namespace
}  // namespace gpuplan::web
