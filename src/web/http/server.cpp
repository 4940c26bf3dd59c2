// A thin shell: every request goes to gpuplan::web::handle_request, which
// decides everything; this file only configures cpp-httplib (limits, threads,
// JSON bodies for the errors httplib answers itself).
#include "web/http/server.hpp"

#include <httplib.h>

#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "web/web.hpp"

namespace gpuplan::web {
namespace {

void respond(const ApiResponse& r, httplib::Response& res) {
  res.status = r.status;
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Cache-Control", "no-cache");
  if (r.content_type.rfind("text/html", 0) == 0) {
    res.set_header("Content-Security-Policy",
                   "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'");
  }
  res.set_content(r.body, r.content_type.c_str());
}

// The routes that take a body.
const std::set<std::string>& post_routes() {
  static const std::set<std::string> routes = {"/api/train", "/api/train/view", "/api/memory", "/api/memory/view",
                                                "/api/plan", "/api/plan/view", "/api/infer", "/api/infer/view",
                                                "/api/finetune", "/api/finetune/view"};
  return routes;
}

}  // namespace

int serve(const std::string& host, int port) {
  httplib::Server svr;
  svr.new_task_queue = [] { return new httplib::ThreadPool(16); };
  svr.set_payload_max_length(kMaxBodyBytes);
  svr.set_keep_alive_max_count(1000);
  svr.set_tcp_nodelay(true);  // headers and body go out in separate writes: without this, Nagle + delayed ACK add ~40 ms to each response
  svr.set_read_timeout(10, 0);
  svr.set_write_timeout(10, 0);

  // GET and HEAD are answered here, before routing: no regex runs over the
  // path (std::regex recursion grows with its length). Requests with a body go
  // through httplib's routing so the body is read (and size-limited) first.
  svr.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    if (req.method != "GET" && req.method != "HEAD") return httplib::Server::HandlerResponse::Unhandled;
    respond(handle_request(req.method, req.path, ""), res);
    return httplib::Server::HandlerResponse::Handled;
  });
  for (const auto& route : post_routes()) {
    svr.Post(route, [](const httplib::Request& req, httplib::Response& res) {
      respond(handle_request(req.method, req.path, req.body), res);
    });
  }
  // Errors httplib produces itself get a JSON body too: an unknown route or
  // method is answered by handle_request (404, 405, or 400 for '..'); 413 for a
  // body over the limit, 400 for a malformed request.
  svr.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    // A request httplib parsed but could not route (a PUT, an unknown POST
    // path): handle_request says why (404, 405, or 400 for '..').
    if (!req.method.empty() && !(req.method == "POST" && post_routes().count(req.path)) && res.status != 413) {
      respond(handle_request(req.method, req.path, ""), res);
      return httplib::Server::HandlerResponse::Handled;
    }
    std::string msg = "HTTP error " + std::to_string(res.status) + ".";
    std::string msg_zh = "HTTP 错误 " + std::to_string(res.status) + "。";
    if (res.status == 413) {
      msg = "The request body is larger than the limit of " + std::to_string(kMaxBodyBytes) + " bytes.";
      msg_zh = "请求体超过了 " + std::to_string(kMaxBodyBytes) + " 字节的上限。";
    } else if (res.status == 400) {
      msg = "Malformed HTTP request.";
      msg_zh = "HTTP 请求格式有误。";
    } else if (res.status == 414) {
      msg = "The request path is too long.";
      msg_zh = "请求路径过长。";
    }
    res.set_content(nlohmann::json{{"error", msg}, {"error_zh", msg_zh}, {"field", nullptr}}.dump(), "application/json");
    return httplib::Server::HandlerResponse::Handled;
  }));
  svr.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content(R"({"error":"Internal error (please report this).","error_zh":"内部错误（请报告此问题）。","field":null})", "application/json");
  });

  int bound = port;
  if (port == 0) {
    bound = svr.bind_to_any_port(host.c_str());
  } else if (!svr.bind_to_port(host.c_str(), port)) {
    bound = -1;
  }
  if (bound <= 0) {
    std::fprintf(stderr, "error: cannot listen on %s:%d (in use, or not an address of this machine).\n", host.c_str(), port);
    return 1;
  }
  const std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  std::printf("gpuplan web: serving on http://%s:%d/  (Ctrl-C stops)\n", shown.c_str(), bound);
  std::fflush(stdout);
  return svr.listen_after_bind() ? 0 : 1;
}

}  // namespace gpuplan::web
