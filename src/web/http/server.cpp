// A thin shell: every request goes to gpuplan::web::handle_request, which
// decides everything; this file only configures cpp-httplib (limits, threads,
// JSON bodies for the errors httplib answers itself) and keeps each
// connection's read buffer across its requests (pipelining).
#include "web/http/server.hpp"

#include <httplib.h>

#include <malloc.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
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
                                                "/api/plan", "/api/plan/view", "/api/plan/export", "/api/infer", "/api/infer/view",
                                                "/api/finetune", "/api/finetune/view"};
  return routes;
}

// One connection's byte stream, whose read buffer lives as long as the
// connection. cpp-httplib 0.11.4 makes a new SocketStream (with its own 4 KiB
// read buffer) for each request of a keep-alive connection, so the bytes of a
// pipelined next request, read together with this one, were dropped with it:
// of three requests sent at once only the first was answered (RFC 9112 §9.3.2
// has a server answer pipelined requests in order). Reads and writes keep
// httplib's per-operation timeouts.
class ConnectionStream final : public httplib::Stream {
 public:
  ConnectionStream(socket_t sock, time_t read_s, time_t read_us, time_t write_s, time_t write_us)
      : sock_(sock), read_ms_(static_cast<int>(read_s * 1000 + read_us / 1000)), write_ms_(static_cast<int>(write_s * 1000 + write_us / 1000)) {}

  bool is_readable() const override { return off_ < len_ || wait(POLLIN, read_ms_); }
  bool is_writable() const override { return wait(POLLOUT, write_ms_); }

  ssize_t read(char* ptr, size_t size) override {
    if (off_ >= len_) {
      if (!wait(POLLIN, read_ms_)) return -1;
      ssize_t n;
      do n = recv(sock_, buf_, sizeof buf_, 0);
      while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      off_ = 0;
      len_ = static_cast<size_t>(n);
    }
    const size_t n = std::min(size, len_ - off_);
    std::memcpy(ptr, buf_ + off_, n);
    off_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!wait(POLLOUT, write_ms_)) return -1;
    ssize_t n;
    do n = send(sock_, ptr, size, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { address(getpeername, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address(getsockname, ip, port); }
  socket_t socket() const override { return sock_; }

  // Waits up to `timeout_s` for the next request, in slices so that a stopped
  // server (`svr_sock` closed) is noticed: true when bytes of it are here.
  bool next_request(time_t timeout_s, const std::atomic<socket_t>& svr_sock) const {
    if (off_ < len_) return true;  // pipelined: already read
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    while (svr_sock != INVALID_SOCKET) {
      if (wait(POLLIN, 100)) return true;
      if (std::chrono::steady_clock::now() >= end) return false;
    }
    return false;
  }

 private:
  bool wait(short events, int timeout_ms) const {
    pollfd p{sock_, events, 0};
    int r;
    do r = poll(&p, 1, timeout_ms);
    while (r < 0 && errno == EINTR);
    return r > 0 && (p.revents & (events | POLLHUP)) != 0;
  }
  void address(int (*name)(int, sockaddr*, socklen_t*), std::string& ip, int& port) const {
    sockaddr_storage a{};
    socklen_t n = sizeof a;
    char host[NI_MAXHOST] = "", serv[NI_MAXSERV] = "";
    if (name(sock_, reinterpret_cast<sockaddr*>(&a), &n) == 0 &&
        getnameinfo(reinterpret_cast<sockaddr*>(&a), n, host, sizeof host, serv, sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
      ip = host;
      port = std::atoi(serv);
    }
  }

  socket_t sock_;
  int read_ms_, write_ms_;
  char buf_[4096];
  size_t off_ = 0, len_ = 0;
};

// Closes a connection on which the last response said "Connection: close",
// in stages (RFC 9112 §9.6): the write side first, then whatever the client
// is still sending is read and dropped until it closes its side, for at most
// 2 s and 4 MiB. A refusal answered before its body was read (403, 415, 413)
// otherwise closed a socket with unread bytes, which sends a TCP reset that
// can reach the client before it reads the response (seen in the load test:
// a hostile POST got ECONNRESET instead of its 403 or 415).
void close_in_stages(socket_t sock) {
  shutdown(sock, SHUT_WR);
  char scratch[16384];
  size_t drained = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (drained < (size_t{4} << 20)) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()).count();
    if (left <= 0) break;
    pollfd p{sock, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) break;
    const ssize_t n = recv(sock, scratch, sizeof scratch, 0);
    if (n <= 0) break;  // the client closed its side (or the connection failed)
    drained += static_cast<size_t>(n);
  }
  close(sock);
}

// httplib's server with one ConnectionStream per connection (above); the
// rest (parsing, routing, limits) is httplib's own process_request.
class Server final : public httplib::Server {
  bool process_and_close_socket(socket_t sock) override {
    bool ret = false;
    bool closed = false;  // the last response said Connection: close
    {
      ConnectionStream strm(sock, read_timeout_sec_, read_timeout_usec_, write_timeout_sec_, write_timeout_usec_);
      for (size_t left = keep_alive_max_count_; left > 0 && strm.next_request(keep_alive_timeout_sec_, svr_sock_); --left) {
        ret = process_request(strm, left == 1, closed, nullptr);
        if (!ret || closed) break;
      }
    }
    if (ret && closed) {
      close_in_stages(sock);  // the client may still be sending what was not read
    } else {
      // Idle past the keep-alive timeout, closed by the client, or a request
      // that failed: nothing is owed to the client.
      shutdown(sock, SHUT_RDWR);
      close(sock);
    }
    return ret;
  }
};

}  // namespace

int serve(const std::string& host, int port) {
  // glibc gives each worker thread that allocates concurrently its own malloc
  // arena (up to 8 per core), and each keeps the high-water mark of the
  // largest bodies it parsed: with 64 workers the resident size grew by 100+
  // MiB and took 50,000 requests to settle. Four arenas bound it. And a block
  // of 128 KiB or more (a request body, its parsed JSON) is mapped on its own
  // and returned when freed: glibc otherwise raises that threshold to the
  // largest block freed so far (its dynamic mmap threshold), after which such
  // blocks come from the arenas and leave them fragmented.
  mallopt(M_ARENA_MAX, 4);
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  Server svr;
  // cpp-httplib holds one worker per open connection for the connection's
  // life, so a client that trickles its request in (slowloris) or idles
  // keeps one busy: 64 workers leave room for 16 such clients beside 32
  // concurrent users (the load test, docs/web.md); an idle keep-alive
  // connection is closed after 2 s, a read that waits 5 s ends the request.
  svr.new_task_queue = [] { return new httplib::ThreadPool(64); };
  svr.set_payload_max_length(kMaxBodyBytes);
  svr.set_keep_alive_max_count(1000);
  svr.set_keep_alive_timeout(2);
  svr.set_tcp_nodelay(true);  // headers and body go out in separate writes: without this, Nagle + delayed ACK add ~40 ms to each response
  svr.set_read_timeout(5, 0);
  svr.set_write_timeout(10, 0);
  // SO_REUSEADDR only: cpp-httplib's default also sets SO_REUSEPORT, which let
  // a second `gpuplan web` bind the same port and take part of the traffic.
  svr.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const char*>(&yes), sizeof yes);
  });

  // Every request is first judged on its headers (refuse_request: Host,
  // Origin, Content-Type), before any body is read. GET and HEAD are then
  // answered here, before routing: no regex runs over the path (std::regex
  // recursion grows with its length). Requests with a body go to the POST
  // routes, which read it themselves, at most kMaxBodyBytes of it whatever
  // its framing (a chunked body has no Content-Length for httplib's limit).
  auto identity = std::make_shared<ServerIdentity>();
  identity->bind_host = host;
  svr.set_pre_routing_handler([identity](const httplib::Request& req, httplib::Response& res) {
    const RequestMeta meta{req.method, req.get_header_value("Host"), req.get_header_value("Origin"), req.get_header_value("Content-Type")};
    if (const auto refused = refuse_request(meta, *identity)) {
      respond(*refused, res);
      res.set_header("Connection", "close");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (req.method != "GET" && req.method != "HEAD") return httplib::Server::HandlerResponse::Unhandled;
    respond(handle_request(req.method, req.path, ""), res);
    return httplib::Server::HandlerResponse::Handled;
  });
  for (const auto& route : post_routes()) {
    svr.Post(route, [](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& read) {
      std::string body;
      bool too_big = false;
      const bool whole = read([&](const char* data, size_t n) {
        if (body.size() + n > kMaxBodyBytes) {
          too_big = true;
          return false;
        }
        body.append(data, n);
        return true;
      });
      // A Content-Length over the limit: httplib skips the body unread and
      // marks the response 413 (detail::read_content); a chunked body stops
      // at the limit here.
      if (too_big || res.status == 413) {
        respond(error_response(413, "The request body is larger than the limit of " + std::to_string(kMaxBodyBytes) + " bytes.", "",
                               "请求体超过了 " + std::to_string(kMaxBodyBytes) + " 字节的上限。"),
                res);
        res.set_header("Connection", "close");
        return;
      }
      if (!whole) {
        respond(error_response(400, "The request body ended before its stated length.", "", "请求体在声明的长度之前就结束了。"), res);
        res.set_header("Connection", "close");
        return;
      }
      respond(handle_request(req.method, req.path, body), res);
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
  identity->port = bound;
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
