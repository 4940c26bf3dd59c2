// The web front end (issue 7): a JSON API over the same library calls the CLI
// uses, and the page's static files, compiled into the binary from web/.
//
// Everything a request can do is decided here, without sockets, so tests call
// it directly; src/web/http/ only moves bytes between cpp-httplib and
// handle_request. Nothing a request says reads or writes a file: models come
// from the catalog, a bare parameter count or a pasted config.json object,
// GPUs from the built-in catalog only.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "data/embedded_data.hpp"

namespace gpuplan {

// The files under web/, embedded at build time (cmake/EmbedData.cmake).
const std::vector<EmbeddedFile>& embedded_web_files();

namespace web {

// Request bodies larger than this get HTTP 413.
inline constexpr std::size_t kMaxBodyBytes = 1024 * 1024;

struct ApiResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

// Routes (docs/web.md):
//   GET  /, /index.html, /app.js, ...   the page (embedded files)
//   GET  /api/health                    {"ok": true, "version": ...}
//   GET  /api/models, /api/gpus         catalogs for the page's menus
//   POST /api/train                     to_json(train_report(...)): what `gpuplan train --format json` prints
//   POST /api/memory                    to_json(memory_report(...)): `gpuplan memory --format json`
//   POST /api/plan                      to_json(plan_report(...)): `gpuplan plan --format json`
//   POST /api/infer                     to_json(infer_report_for(...)): `gpuplan infer --format json`
//   POST /api/finetune                  to_json(finetune_report_for(...)): `gpuplan finetune --format json`
//   POST /api/<command>/view            {"report": <the same JSON>, "view": labels and formatted values, en and zh}
// Errors: {"error": "<one sentence>", "field": "<request key or null>"} with
// 400 (bad input), 404 (unknown route or file), 405 (wrong method), 413 (body too large),
// 403 / 415 from refuse_request.
ApiResponse handle_request(const std::string& method, const std::string& path, const std::string& body);

// Who the server is, for judging a request's Host and Origin headers.
struct ServerIdentity {
  std::string bind_host = "127.0.0.1";  // the address it listens on
  int port = 0;                          // the port it listens on
};
// What the admission check reads of a request (empty: the header is absent).
struct RequestMeta {
  std::string method, host, origin, content_type;
};
// A request refused before its body is read (src/web/admission.cpp), else
// nullopt: 403 for a Host header that does not name a loopback server at its
// port (DNS rebinding) and for a POST whose Origin is not the server's own
// page; 415 for a POST that is not application/json (a cross-origin JSON POST
// needs a CORS preflight, which the server never grants).
std::optional<ApiResponse> refuse_request(const RequestMeta& r, const ServerIdentity& s);
// localhost, 127.x.x.x or ::1.
bool is_loopback_name(const std::string& host);

// One error response: {"error": the English sentence, "error_zh": the Chinese
// one (the English where none is given), "field": the request key or null}.
ApiResponse error_response(int status, const std::string& message, const std::string& field = "",
                           const std::string& message_zh = "");

}  // namespace web
}  // namespace gpuplan
