// `recipebook serve`: the JSON API (api.hpp) and the embedded page over HTTP, on loopback unless
// --host names another address (then with a warning). A bounded pool of workers, a 1 MiB body cap,
// socket read/write time limits and the API's plan limits keep one client from hanging the rest.
#pragma once

#include <functional>
#include <string>

#include "recipebook/context.hpp"

namespace rb::serve {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;           // 0: any free port (the line printed names it)
  bool open = false;         // --open: start the desktop's browser on the page
  int workers = 8;           // --workers: requests served at once
  int timeout_s = 10;        // --timeout: socket read and write limit per request
  int max_concurrent_plans = 0;  // 0: one per core
};

// Serves until SIGINT or SIGTERM. Prints "recipebook: serving http://HOST:PORT/" on ctx.out once
// listening. Returns the exit code (2 when the catalog does not load or the port cannot be bound).
int run_serve(const ServeOptions& opts, const cli::Context& ctx);

}  // namespace rb::serve
