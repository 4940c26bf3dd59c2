// `gpuplan web`'s HTTP server: cpp-httplib around gpuplan::web::handle_request.
#pragma once
#include <string>

namespace gpuplan::web {

// Serves until the process is stopped. Port 0 picks a free port. Prints
// "gpuplan web: serving on http://HOST:PORT/" (flushed) once listening.
// Returns 0 after a clean stop, 1 when the address cannot be bound.
int serve(const std::string& host, int port);

}  // namespace gpuplan::web
