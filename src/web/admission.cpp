// Which requests `gpuplan web` reads at all (web.hpp refuse_request): the
// checks a browser's same-origin rules leave to the server.
//
// A page on any other site the user has open may send requests to a server on
// 127.0.0.1: a "simple" cross-origin POST (text/plain or a form) goes out
// without a CORS preflight, and DNS rebinding lets a foreign page reach the
// loopback server under its own host name. So: a server bound to loopback
// answers only requests whose Host header names loopback at its port; a POST
// must be JSON (a cross-origin JSON POST needs a preflight, which this server
// never grants) and, where the browser says where it comes from (Origin), come
// from this server's own origin.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "units/text_match.hpp"
#include "web/web.hpp"

namespace gpuplan::web {
namespace {

// "name:port", "[::1]:port" or a bare name → the name (brackets dropped) and
// the port (0 when none is written; -1 when it is not a number).
std::pair<std::string, int> split_host(const std::string& h) {
  std::string name = h, port;
  if (!h.empty() && h.front() == '[') {
    const auto close = h.find(']');
    if (close == std::string::npos) return {h, -1};
    name = h.substr(1, close - 1);
    if (close + 1 < h.size()) {
      if (h[close + 1] != ':') return {name, -1};
      port = h.substr(close + 2);
    }
  } else if (const auto colon = h.rfind(':'); colon != std::string::npos && h.find(':') == colon) {
    name = h.substr(0, colon);
    port = h.substr(colon + 1);
  }
  if (port.empty()) return {ascii_lower(name), 0};
  if (port.size() > 5 || !std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c); })) return {ascii_lower(name), -1};
  return {ascii_lower(name), std::stoi(port)};
}

}  // namespace

bool is_loopback_name(const std::string& host) {
  const std::string h = ascii_lower(host);
  if (h == "localhost" || h == "::1") return true;
  // 127.0.0.0/8 written as four decimal octets: a name that merely starts
  // with "127." (127.attacker.example) is a DNS name a rebinding page controls.
  int octets = 0, value = -1;
  for (const char c : h + ".") {
    if (c == '.') {
      if (value < 0 || value > 255) return false;
      ++octets;
      value = -1;
    } else if (std::isdigit(static_cast<unsigned char>(c)) && value < 1000) {
      value = (value < 0 ? 0 : value * 10) + (c - '0');
    } else {
      return false;
    }
  }
  return octets == 4 && h.rfind("127.", 0) == 0;
}

std::optional<ApiResponse> refuse_request(const RequestMeta& r, const ServerIdentity& s) {
  // The Host header: on a loopback server, a loopback name at this port (a
  // port left out is the browser's default, which a page on this server would
  // not use, but command-line clients send the bare name).
  if (is_loopback_name(s.bind_host)) {
    const auto [name, port] = split_host(r.host);
    if (r.host.empty() || !is_loopback_name(name) || (port != 0 && port != s.port)) {
      return error_response(403,
                            fmt::format("The Host header '{}' does not name this server (127.0.0.1:{} or localhost:{}); "
                                        "requests reaching it under another name are refused.",
                                        r.host.substr(0, 200), s.port, s.port),
                            "", fmt::format("Host 请求头“{}”不是本服务器（127.0.0.1:{} 或 localhost:{}）；以其他名称到达的请求一律拒绝。",
                                            r.host.substr(0, 200), s.port, s.port));
    }
  }
  if (r.method != "POST") return std::nullopt;
  // Where the browser says the request comes from, it must be this page: the
  // origin of its Host, or on a loopback server a loopback name at its port.
  auto own_origin = [&] {
    const std::string o = ascii_lower(r.origin);
    if (o == "http://" + ascii_lower(r.host)) return true;
    if (o.rfind("http://", 0) != 0 || !is_loopback_name(s.bind_host)) return false;
    const auto [name, port] = split_host(o.substr(7));
    return is_loopback_name(name) && port == s.port;
  };
  if (!r.origin.empty() && !own_origin()) {
    return error_response(403,
                          fmt::format("Cross-origin requests are refused: Origin '{}' is not this server's page (http://{}).",
                                      r.origin.substr(0, 200), r.host.substr(0, 200)),
                          "", fmt::format("拒绝跨源请求：Origin“{}”不是本服务器的页面（http://{}）。", r.origin.substr(0, 200), r.host.substr(0, 200)));
  }
  // The media type before any parameter, without the optional whitespace
  // around it (RFC 9110 §8.3: "application/json ; charset=utf-8" is valid).
  std::string type = ascii_lower(r.content_type.substr(0, r.content_type.find(';')));
  type.erase(0, std::min(type.size(), type.find_first_not_of(" \t")));
  type.erase(type.find_last_not_of(" \t") + 1);
  if (type != "application/json") {
    return error_response(415,
                          fmt::format("The API takes JSON: send the body with Content-Type: application/json (got '{}').",
                                      r.content_type.empty() ? "none" : r.content_type.substr(0, 100)),
                          "", fmt::format("接口只接受 JSON：请以 Content-Type: application/json 发送请求体（收到的是“{}”）。",
                                          r.content_type.empty() ? "无" : r.content_type.substr(0, 100)));
  }
  return std::nullopt;
}

}  // namespace gpuplan::web
