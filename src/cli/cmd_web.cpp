// gpuplan web: the planner as a local web page (src/web/, docs/web.md).
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "gpuplan/error.hpp"
#include "web/http/server.hpp"

namespace gpuplan::cli {

void add_web_command(CLI::App& app) {
  struct Flags {
    std::string host = "127.0.0.1";
    int port = 8080;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand("web",
      help_text("Serve the planner as a web page and a JSON API (docs/web.md).\n"
      "Example: gpuplan web    then open http://127.0.0.1:8080/",
      "以网页和 JSON API 提供规划服务（docs/web.md）。\n"
      "示例：gpuplan web    然后打开 http://127.0.0.1:8080/"));
  cmd->add_option("--host", flags->host, help_text("Address to listen on (127.0.0.1: this machine only; 0.0.0.0: every interface)",
                                                  "监听地址（127.0.0.1：仅本机；0.0.0.0：所有网卡）"))
      ->capture_default_str();
  cmd->add_option("--port,-p", flags->port, help_text("TCP port (0: any free port, printed at start)", "TCP 端口（0：任一空闲端口，启动时打印）"))
      ->capture_default_str();
  cmd->callback([flags] {
    if (flags->port < 0 || flags->port > 65535) throw InputError("--port", "--port must be from 0 to 65535.", "--port 须为 0 到 65535 之间。");
    const int rc = web::serve(flags->host, flags->port);
    if (rc != 0) std::exit(rc);
  });
}

}  // namespace gpuplan::cli
