// `gpuplan web` for real, on loopback: the binary is started on a free port and
// talked to over plain sockets. Bad requests must not stop it, and a bounded
// load (10,000 mixed requests over 16 connections) must see no failure and no
// memory growth.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <cstdio>
#include <fstream>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

// GCC says so with __SANITIZE_ADDRESS__, clang (the fuzz build) with __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define GPUPLAN_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPUPLAN_TEST_UNDER_ASAN 1
#endif
#endif
#ifndef GPUPLAN_TEST_UNDER_ASAN
#define GPUPLAN_TEST_UNDER_ASAN 0
#endif

namespace {

// The running server: child process, its port.
class Server {
 public:
  explicit Server(int port = 0) {
    int out[2];
    if (pipe(out) != 0) return;
    const std::string port_text = std::to_string(port);
    pid_ = fork();
    if (pid_ == 0) {
      // The server dies with this test process: a test that crashes must not
      // leave it holding CTest's output pipe (CTest then waits for ever).
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      close(out[1]);
      execl(GPUPLAN_BINARY, GPUPLAN_BINARY, "web", "--port", port_text.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    std::string line;
    char c;
    while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
    close(out[0]);
    std::smatch m;
    if (std::regex_search(line, m, std::regex(R"(http://127\.0\.0\.1:(\d+)/)"))) port_ = std::stoi(m[1]);
  }
  ~Server() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }
  int port() const { return port_; }
  bool alive() const { return pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0; }
  // The exit status once it has stopped by itself (-1 while it runs).
  int exit_status() {
    int st = 0;
    if (pid_ <= 0 || waitpid(pid_, &st, 0) != pid_) return -1;
    pid_ = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  // Resident set size in KiB, from /proc.
  long rss_kib() const {
    std::ifstream f("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(f, line)) {
      if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

struct Response {
  int status = 0;
  std::string body;
};

// One keep-alive HTTP/1.1 connection.
class Conn {
 public:
  explicit Conn(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      close(fd_);
      fd_ = -1;
    }
    int one = 1;
    if (fd_ >= 0) setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    timeval tv{30, 0};
    if (fd_ >= 0) setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~Conn() {
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return fd_ >= 0; }

  bool send_all(const std::string& data) {
    size_t sent = 0;
    while (sent < data.size()) {
      const ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }
  std::optional<Response> request(const std::string& method, const std::string& path, const std::string& body = "",
                                  bool close_after = false, const std::string& extra_headers = "",
                                  const std::string& content_type = "application/json") {
    std::string req = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra_headers;
    if (method == "POST") req += "Content-Type: " + content_type + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
    if (close_after) req += "Connection: close\r\n";
    req += "\r\n" + body;
    if (!send_all(req)) return std::nullopt;
    return read_response();
  }
  // Raw bytes, then whatever comes back.
  std::optional<Response> raw(const std::string& bytes) {
    send_all(bytes);  // the server may close before taking it all
    return read_response();
  }
  // The next response on the connection (after pipelined requests).
  std::optional<Response> read_response() {
    size_t header_end;
    while ((header_end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (!fill()) return std::nullopt;
    }
    const std::string head = buf_.substr(0, header_end);
    Response r;
    if (std::sscanf(head.c_str(), "HTTP/1.1 %d", &r.status) != 1) return std::nullopt;
    size_t length = 0;
    std::smatch m;
    if (std::regex_search(head, m, std::regex("Content-Length: (\\d+)", std::regex::icase))) length = std::stoul(m[1]);
    buf_.erase(0, header_end + 4);
    while (buf_.size() < length) {
      if (!fill()) return std::nullopt;
    }
    r.body = buf_.substr(0, length);
    buf_.erase(0, length);
    return r;
  }

 private:
  bool fill() {
    char chunk[65536];
    const ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    buf_.append(chunk, static_cast<size_t>(n));
    return true;
  }
  int fd_ = -1;
  std::string buf_;
};

bool is_json_error(const Response& r) {
  const auto j = nlohmann::json::parse(r.body, nullptr, false);
  return j.is_object() && j.contains("error") && j.contains("field");
}

const std::string kTrainBody = R"({"model":"llama-3.1-70b","tokens":"15T","gpu":"h100","gpus":1024,"mfu":0.4})";

TEST(WebServer, KeepsServingAfterBadRequests) {
  Server s;
  ASSERT_GT(s.port(), 0) << "gpuplan web did not print its address";
  struct Case {
    std::string method, path, body;
    int status;
  };
  const std::vector<Case> cases = {
      {"POST", "/api/train", "{\"model\": ", 400},                                // malformed JSON
      {"POST", "/api/train", R"({"tokens":"15T","gpu":"h100","gpus":1024,"mfu":0.4})", 400},  // missing field
      {"POST", "/api/train", R"({"model":"llama-3.1-70b","tokens":"15T","gpu":"h100","gpus":[1],"mfu":0.4})", 400},  // wrong type
      {"GET", "/api/nothing", "", 404},                                            // unknown route
      {"POST", "/api/nothing", "{}", 404},
      {"GET", "/../../etc/passwd", "", 400},                                       // '..'
      {"GET", "/%2e%2e/%2e%2e/etc/passwd", "", 400},                               // '..', percent-encoded
      {"PUT", "/api/train", "{}", 405},
  };
  for (const auto& c : cases) {
    Conn conn(s.port());
    ASSERT_TRUE(conn.ok());
    const auto r = conn.request(c.method, c.path, c.body);
    ASSERT_TRUE(r) << c.method << " " << c.path;
    EXPECT_EQ(r->status, c.status) << c.method << " " << c.path << ": " << r->body;
    EXPECT_TRUE(is_json_error(*r)) << r->body;
  }
  {  // A 10 MB body: refused with 413 as soon as the headers say so.
    Conn conn(s.port());
    const std::string big(10 * 1024 * 1024, 'x');
    const auto r = conn.raw("POST /api/train HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
                            std::to_string(big.size()) + "\r\n\r\n" + big);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 413);
    EXPECT_TRUE(is_json_error(*r)) << r->body;
  }
  {  // Garbage instead of HTTP, a path longer than the limit, a half-sent request.
    Conn a(s.port());
    a.send_all("\x16\x03\x01 not http at all\r\n\r\n");
    Conn b(s.port());
    const auto r = b.request("GET", "/" + std::string(20000, 'a'));
    if (r) EXPECT_GE(r->status, 400);
    Conn c(s.port());
    c.send_all("POST /api/train HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"mo");
  }
  ASSERT_TRUE(s.alive());
  Conn conn(s.port());
  const auto r = conn.request("POST", "/api/train", kTrainBody);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(nlohmann::json::parse(r->body)["time"]["gpus"], 1024);
  // Every POST route of the API reaches the handler over HTTP (one the server does not
  // register answers 404): an empty request is the handler's 400 naming the missing field.
  for (const char* route : {"train", "memory", "plan", "infer", "finetune"}) {
    for (const char* suffix : {"", "/view"}) {
      const auto e = conn.request("POST", std::string("/api/") + route + suffix, "{}");
      ASSERT_TRUE(e) << route << suffix;
      EXPECT_EQ(e->status, 400) << route << suffix << ": " << e->body;
      EXPECT_FALSE(nlohmann::json::parse(e->body)["field"].is_null()) << route << suffix << ": " << e->body;
    }
  }
  const auto page = conn.request("GET", "/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("<html"), std::string::npos);
}

// Requests refused on their headers, over real sockets (issue 30): a page of
// another site posting to the local server, a name other than loopback in
// Pipelined requests (RFC 9112 §9.3.2): three requests sent at once on one
// connection, a POST with a body between two GETs, are answered in order.
// cpp-httplib 0.11.4 answered only the first (each request's read buffer,
// holding the next ones, was dropped with it); src/web/http/server.cpp keeps
// one buffer per connection.
TEST(WebServer, AnswersPipelinedRequestsInOrder) {
  Server s;
  ASSERT_GT(s.port(), 0);
  Conn c(s.port());
  ASSERT_TRUE(c.ok());
  const std::string host = "Host: 127.0.0.1:" + std::to_string(s.port()) + "\r\n";
  const std::string get = "GET /api/health HTTP/1.1\r\n" + host + "\r\n";
  const std::string post = "POST /api/train HTTP/1.1\r\n" + host + "Content-Type: application/json\r\nContent-Length: " +
                           std::to_string(kTrainBody.size()) + "\r\n\r\n" + kTrainBody;
  const std::string missing = "GET /no-such-page HTTP/1.1\r\n" + host + "\r\n";
  ASSERT_TRUE(c.send_all(get + post + missing + get));
  const auto first = c.read_response();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  EXPECT_NE(first->body.find("\"ok\":true"), std::string::npos) << first->body;
  const auto second = c.read_response();
  ASSERT_TRUE(second) << "the pipelined POST was not answered";
  EXPECT_EQ(second->status, 200);
  const auto train = nlohmann::json::parse(second->body, nullptr, false);
  ASSERT_TRUE(train.is_object());
  EXPECT_TRUE(train.contains("time")) << second->body.substr(0, 200);
  const auto third = c.read_response();
  ASSERT_TRUE(third) << "the third pipelined request was not answered";
  EXPECT_EQ(third->status, 404);
  const auto fourth = c.read_response();
  ASSERT_TRUE(fourth) << "the fourth pipelined request was not answered";
  EXPECT_EQ(fourth->status, 200);
  // The connection stays usable afterwards.
  const auto after = c.request("GET", "/api/health");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
}

// Host (DNS rebinding), a "simple" text/plain POST; a chunked body over the
// limit, whose framing carries no Content-Length, is cut off at 1 MiB; a
// second server on a port in use does not start.
TEST(WebServer, RefusesForeignPagesNamesAndOversizedChunkedBodies) {
  Server s;
  ASSERT_GT(s.port(), 0);
  const std::string origin = "Origin: http://127.0.0.1:" + std::to_string(s.port()) + "\r\n";
  {
    Conn c(s.port());
    const auto own = c.request("POST", "/api/train", kTrainBody, false, "");
    ASSERT_TRUE(own);
    EXPECT_EQ(own->status, 200);
  }
  {
    Conn c(s.port());
    const auto evil = c.request("POST", "/api/train", kTrainBody, false, "Origin: http://evil.example\r\n");
    ASSERT_TRUE(evil);
    EXPECT_EQ(evil->status, 403);
    EXPECT_TRUE(is_json_error(*evil)) << evil->body;
  }
  {
    Conn c(s.port());
    const auto plain = c.request("POST", "/api/train", kTrainBody, false, "", "text/plain");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->status, 415);
  }
  {
    Conn c(s.port());
    const auto rebound = c.raw("GET /api/health HTTP/1.1\r\nHost: evil.example:" + std::to_string(s.port()) + "\r\n\r\n");
    ASSERT_TRUE(rebound);
    EXPECT_EQ(rebound->status, 403);
  }
  {  // 256 chunks of 16 KiB (4 MiB) with no Content-Length.
    Conn c(s.port());
    const long before = s.rss_kib();
    std::string head = "POST /api/train HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    c.send_all(head);
    const std::string chunk = "4000\r\n" + std::string(16384, ' ') + "\r\n";
    for (int i = 0; i < 256; ++i) {
      if (!c.send_all(chunk)) break;  // the server stops reading at the limit
    }
    c.send_all("0\r\n\r\n");
    const auto r = c.raw("");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 413);
    EXPECT_LT(s.rss_kib() - before, 16 * 1024) << "the server kept more than 16 MiB of a 4 MiB body";
  }
  ASSERT_TRUE(s.alive());
  Server second(s.port());
  EXPECT_EQ(second.port(), 0);
  EXPECT_EQ(second.exit_status(), 1) << "a second gpuplan web started on a port in use";
  Conn c(s.port());
  const auto still = c.request("POST", "/api/train", kTrainBody, false, origin);
  ASSERT_TRUE(still);
  EXPECT_EQ(still->status, 200);
}

// The bounded load test of issues 7 and 30: fixed count, loopback only.
// 10,000 requests over 32 keep-alive connections, 1 in 100 of them hostile
// (sent on a connection of its own: a body nested 90,000 deep, a 70,000-entry
// list, a cross-origin POST, a foreign Host, a text/plain POST, a 2 MiB chunked
// body), while 16 slowloris connections trickle a request in one byte a second.
// No valid request may fail; the latency percentiles and the server's memory
// are printed (docs/web.md keeps the figures), not asserted as times.
TEST(WebServer, LoadTenThousandMixedRequests) {
  Server s;
  ASSERT_GT(s.port(), 0);
  struct Kind {
    const char* method;
    const char* path;
    std::string body;
    int status;
  };
  const std::vector<Kind> mix = {
      // Small models: the training estimate also searches layouts (~20 ms for 0.5B on 8 GPUs, ~0.1 s
      // for 70B on 1,024); the load test measures the server, not the planner.
      {"POST", "/api/train", R"({"model":"qwen2.5-0.5b","tokens":"100B","gpu":"h100","gpus":8,"mfu":0.4})", 200},
      {"POST", "/api/train/view", R"({"params":"7B","tokens":"1T","gpu":"a100-80g","deadline":"30d","mfu":"38%","price":"15-30cny"})", 200},
      {"POST", "/api/memory", R"({"model":"llama-3.1-70b","gpu":"h100","gpus":64,"tp":8,"pp":2,"zero":1})", 200},
      {"GET", "/", "", 200},
      {"GET", "/app.js", "", 200},
      {"GET", "/api/models", "", 200},
      {"GET", "/api/gpus", "", 200},
      {"POST", "/api/train", "{broken", 400},
      {"POST", "/api/memory", R"({"model":"llama-3.1-70b","gpu":"h100","tp":"x"})", 400},
      {"GET", "/api/missing", "", 404},
  };
  // Hostile requests: raw bytes and the status each must get.
  std::string list = R"({"model":"llama-3.1-8b","gpus":8,"gpu":[)";
  for (int i = 0; i < 70000; ++i) list += i ? ",\"h100\"" : "\"h100\"";
  list += "]}";
  const std::string deep = std::string(90000, '[') + std::string(90000, ']');
  auto post_raw = [](const std::string& body, const std::string& headers) {
    return "POST /api/train HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + "Content-Length: " + std::to_string(body.size()) +
           "\r\n\r\n" + body;
  };
  std::string chunked = "POST /api/train HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 128; ++i) chunked += "4000\r\n" + std::string(16384, ' ') + "\r\n";
  chunked += "0\r\n\r\n";
  const std::vector<std::pair<std::string, int>> hostile = {
      {post_raw(deep, "Content-Type: application/json\r\n"), 400},
      {post_raw(list, "Content-Type: application/json\r\n"), 400},
      {post_raw(kTrainBody, "Content-Type: application/json\r\nOrigin: http://evil.example\r\n"), 403},
      {"GET /api/health HTTP/1.1\r\nHost: evil.example\r\n\r\n", 403},
      {post_raw(kTrainBody, "Content-Type: text/plain\r\n"), 415},
      {chunked, 413},
  };
  constexpr int kConnections = 32;
  constexpr int kSlowloris = 16;
#if GPUPLAN_TEST_UNDER_ASAN
  // Under AddressSanitizer the allocator quarantines freed memory (RSS grows by
  // design) and every request is several times slower: a shorter run, no RSS bound.
  constexpr int kRequests = 2000;
  constexpr bool kCheckRss = false;
#else
  constexpr int kRequests = 10000;
  constexpr bool kCheckRss = true;
#endif
  std::mutex latencies_mutex;
  std::vector<double> latencies;
  // What failed, for the message: the request, the status (-1: no answer) and errno.
  std::mutex failed_mutex;
  std::vector<std::string> failed;
  auto fmt_failure = [](const std::string& method, const std::string& path, int status, int err) {
    return method + " " + path + " -> " + std::to_string(status) + " (errno " + std::to_string(err) + ")";
  };
  auto note_failure = [&](const std::string& what) {
    const std::lock_guard<std::mutex> lock(failed_mutex);
    if (failed.size() < 20) failed.push_back(what);
  };
  std::atomic<int> reconnects{0};
  auto failed_list = [&] {
    std::string all;
    for (const std::string& f : failed) all += "\n  " + f;
    return all;
  };
  // The hostile requests go from a thread of their own, interleaved in time
  // with the valid ones: a valid client's keep-alive connection never idles
  // while it waits on one (the server closes an idle one after 2 s, which a
  // real client answers by reconnecting).
  auto run = [&](int total, std::atomic<int>& failures, bool with_hostile) {
    std::vector<std::thread> threads;
    if (with_hostile) {
      threads.emplace_back([&] {
        for (int i = 37; i < total; i += 100) {
          const auto& [bytes, status] = hostile[static_cast<size_t>(i / 100) % hostile.size()];
          auto bad = std::make_unique<Conn>(s.port());
          auto r = bad->raw(bytes);
          // An oversized body may also meet a reset: the server answers 413 and
          // closes while the client is still sending (the dedicated test above
          // reads the 413 itself).
          if (status == 413 && !r) continue;
          if (!r && errno == ECONNRESET) {
            // A connection the server reset before answering (its 2 s read
            // timeout passed while a loaded machine kept the request waiting):
            // sent again on a new one, as for the valid clients below; counted
            // with theirs and bounded there.
            ++reconnects;
            bad = std::make_unique<Conn>(s.port());
            r = bad->raw(bytes);
          }
          if (!r || r->status != status) {
            ++failures;
            note_failure(fmt_failure("hostile", bytes.substr(0, bytes.find('\r')), r ? r->status : -1, errno));
          }
        }
      });
    }
    for (int t = 0; t < kConnections; ++t) {
      threads.emplace_back([&, t] {
        auto conn = std::make_unique<Conn>(s.port());
        if (!conn->ok()) {
          failures += total / kConnections;
          return;
        }
        std::vector<double> mine;
        for (int i = t; i < total; i += kConnections) {
          if (with_hostile && i % 100 == 37) continue;  // sent by the hostile thread
          const Kind& k = mix[static_cast<size_t>(i) % mix.size()];
          const auto t0 = std::chrono::steady_clock::now();
          auto r = conn->request(k.method, k.path, k.body);
          if (!r) {
            // The server closes a keep-alive connection idle for 2 s; a client
            // descheduled that long on a loaded machine finds it closed and,
            // as HTTP clients do (RFC 9112 §9.3.1), sends the request again on
            // a new connection. Counted, and bounded below.
            ++reconnects;
            conn = std::make_unique<Conn>(s.port());
            r = conn->request(k.method, k.path, k.body);
          }
          mine.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
          if (!r || r->status != k.status || r->body.empty()) {
            ++failures;
            note_failure(fmt_failure(k.method, k.path, r ? r->status : -1, errno));
          }
        }
        const std::lock_guard<std::mutex> lock(latencies_mutex);
        latencies.insert(latencies.end(), mine.begin(), mine.end());
      });
    }
    for (auto& th : threads) th.join();
  };
  const long cold_kib = s.rss_kib();
  // The slowloris clients, from the start of the warm-up to the end of the
  // run (so both see the same workers free): each holds a request open, one
  // header byte a second.
  std::atomic<bool> stop{false};
  std::vector<std::thread> slow;
  for (int i = 0; i < kSlowloris; ++i) {
    slow.emplace_back([&] {
      Conn c(s.port());
      c.send_all("POST /api/train HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
      while (!stop && c.send_all("a")) std::this_thread::sleep_for(std::chrono::seconds(1));
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::atomic<int> warm_failures{0};
  // Warm-up until the server's resident size is steady. Its worker threads each get a malloc arena
  // that fragments up to a plateau over the first ~30,000 requests of this mix (measured here: 20.8,
  // 21.9, 22.7, 22.7, 22.7, 22.8 MiB after successive 10,000-request runs, then flat); a fixed 1,000-
  // request warm-up left that growth inside the measured run and made the check flaky (+5..+13%).
  // A leak never settles: it keeps growing every round, so it still fails the check below.
  // Steady means three 5,000-request rounds in a row each grew it by under 1% (two
  // rounds once passed a false plateau of the 64 workers' arenas: +10.0% in CI).
  long settled_kib = s.rss_kib();
  int warm_requests = 0;
  // (Under ASan the quarantine keeps RSS growing and nothing is checked: no warm-up.)
  for (int round = 0, steady_rounds = 0; kCheckRss && round < 12 && steady_rounds < 3; ++round) {
    run(kRequests / 2, warm_failures, true);
    warm_requests += kRequests / 2;
    const long now_kib = s.rss_kib();
    steady_rounds = now_kib <= settled_kib * 1.01 ? steady_rounds + 1 : 0;
    settled_kib = now_kib;
  }
  // No ASSERT here: the slowloris threads still run, and leaving the test
  // with them joinable would terminate the process.
  EXPECT_EQ(warm_failures, 0) << failed_list();
  latencies.clear();
  const long before_kib = s.rss_kib();
  std::atomic<int> failures{0};
  const auto t0 = std::chrono::steady_clock::now();
  run(kRequests, failures, true);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const long after_kib = s.rss_kib();
  stop = true;
  for (auto& th : slow) th.join();
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) { return latencies.empty() ? 0.0 : 1e3 * latencies[std::min(latencies.size() - 1, static_cast<size_t>(p * latencies.size()))]; };
  std::printf("[ load ] %d requests (%zu valid timed, 1%% hostile) over %d connections beside %d slowloris in %.2f s: %.0f requests/s, "
              "%d failed; latency p50 %.1f ms, p99 %.1f ms, p99.9 %.1f ms, max %.1f ms; server RSS %ld KiB cold, %ld KiB before "
              "(after %d warm-up requests), %ld KiB after (%+.1f%%)\n",
              kRequests, latencies.size(), kConnections, kSlowloris, seconds, kRequests / seconds, failures.load(), pct(0.5), pct(0.99),
              pct(0.999), latencies.empty() ? 0.0 : 1e3 * latencies.back(), cold_kib, before_kib, warm_requests, after_kib,
              100.0 * (after_kib - before_kib) / before_kib);
  EXPECT_EQ(failures, 0) << failed_list();
  // Reconnections are the rare client stall, never the rule: at most one request in a thousand.
  EXPECT_LE(reconnects.load(), (warm_requests + kRequests) / 1000) << reconnects.load() << " reconnections";
  if (reconnects > 0) std::printf("[ load ] %d request(s) resent on a new connection after an idle close\n", reconnects.load());
  EXPECT_TRUE(s.alive());
  if (kCheckRss) EXPECT_LE(after_kib, before_kib * 1.10) << "server memory grew more than 10% over the run";
}

}  // namespace
