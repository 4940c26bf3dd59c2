// Fuzz target: the web API's request handler (gpuplan::web::handle_request), the
// function every HTTP request of `gpuplan web` reaches. The first byte picks a
// route (or, with its high bit set, the first line is taken as the path); the
// rest is the request body. Every answer must be a 2xx/4xx with a JSON body
// whose numbers are finite; a crash, UB, an escaping exception, HTTP 500 or a
// hang is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_check.hpp"
#include "web/web.hpp"

using namespace gpuplan;

namespace {
const char* const kRoutes[] = {
    "/api/train", "/api/memory", "/api/plan", "/api/train/view", "/api/memory/view", "/api/plan/view",
    "/api/health", "/api/models", "/api/gpus", "/", "/app.js", "/api/finetune", "/api/finetune/view",
    "/api/infer", "/api/infer/view", "/api/plan/export", "/api/engines", "/api/frameworks",
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Up to 256 KiB: room for the array nested 90,000 deep (180 KB) that once
  // crashed the server and the CLI (issue 30; seed deep_nesting_90000).
  if (size < 1 || size > 256 * 1024) return 0;
  const gpuplan::fuzz::CpuBudget budget;  // the timing build: over 1 s of CPU is a finding
  const uint8_t selector = data[0];
  std::string rest(reinterpret_cast<const char*>(data + 1), size - 1);
  std::string path;
  if (selector & 0x80) {
    const auto nl = rest.find('\n');
    path = rest.substr(0, nl);
    rest = nl == std::string::npos ? std::string() : rest.substr(nl + 1);
  } else {
    path = kRoutes[(selector & 0x7f) % (sizeof(kRoutes) / sizeof(kRoutes[0]))];
  }
  const char* method = (selector & 0x40) ? "GET" : "POST";
  const web::ApiResponse r = web::handle_request(method, path, rest);
  if (r.status >= 500 || r.status < 200) gpuplan::fuzz::fail("HTTP " + std::to_string(r.status) + ": " + r.body);
  if (r.content_type == "application/json") {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(r.body);
    } catch (const nlohmann::json::exception& e) {
      gpuplan::fuzz::fail(std::string("response is not JSON: ") + e.what());
    }
    gpuplan::fuzz::check_json_finite(j);
    if (r.status >= 400 && !(j.is_object() && j.contains("error"))) gpuplan::fuzz::fail("error response without 'error'");
  }
  return 0;
}
