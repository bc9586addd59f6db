#include "recipebook/serve/server.hpp"

#include <httplib.h>
#include <signal.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cctype>
#include <cstdlib>
#include <ostream>
#include <thread>

#include "recipebook/report.hpp"
#include "recipebook/serve/api.hpp"
#include "recipebook/serve/assets.hpp"

namespace rb::serve {
namespace {

constexpr int kListenBacklog = 128;  // connections waiting for accept()

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.starts_with("127.");
}

void send(httplib::Response& res, const ApiResponse& r) {
  res.status = r.status;
  res.set_header("X-Recipebook-Exit-Code", std::to_string(r.exit_code));
  res.set_header("Cache-Control", "no-store");
  res.set_content(r.body, r.content_type.c_str());
}

std::multimap<std::string, std::string> query_of(const httplib::Request& req) {
  std::multimap<std::string, std::string> q;
  for (const auto& [k, v] : req.params) q.emplace(k, v);
  return q;
}

}  // namespace

int run_serve(const ServeOptions& opts, const cli::Context& ctx) {
  const bool host_ok = !opts.host.empty() && std::all_of(opts.host.begin(), opts.host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == ':' || c == '-';
  });
  if (!host_ok) return cli::report(ctx, Error("--host: '" + opts.host + "' is not a host name or address"));
  if (opts.port < 0 || opts.port > 65535) return cli::report(ctx, Error("--port: must be between 0 and 65535"));
  if (opts.workers < 1 || opts.workers > 256) return cli::report(ctx, Error("--workers: must be between 1 and 256"));
  if (opts.timeout_s < 1 || opts.timeout_s > 3600) return cli::report(ctx, Error("--timeout: must be between 1 and 3600 s"));

  ApiConfig cfg;
  cfg.catalog_dirs = ctx.catalog_dirs;
  const int cores = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  cfg.max_concurrent_plans = opts.max_concurrent_plans > 0 ? opts.max_concurrent_plans : cores;
  auto api = Api::create(cfg);
  if (!api) return cli::report(ctx, api.error());

  httplib::Server svr;
  const int workers = opts.workers;
  svr.new_task_queue = [workers] { return new httplib::ThreadPool(static_cast<size_t>(workers)); };
  svr.set_payload_max_length(cfg.max_body_bytes);
  svr.set_read_timeout(opts.timeout_s, 0);
  svr.set_write_timeout(opts.timeout_s, 0);
  // A worker serves one connection at a time, and an idle keep-alive connection holds its worker
  // until the timeout: httplib's defaults (5 requests a connection, 5 s idle) made clients reconnect
  // every 5 requests while idle connections held every worker, and under 8 clients some requests
  // waited 1-4 s for one (load_bench.mjs, max 3.0-4.0 s). Connections now stay for many requests
  // and give their worker back after 1 s idle.
  svr.set_keep_alive_max_count(1000);
  svr.set_keep_alive_timeout(1);
  svr.set_tcp_nodelay(true);  // small JSON answers: no 40 ms wait on a delayed ACK (Nagle)
  // No response compression. Debian's cpp-httplib (0.11) compresses every text/JSON response the
  // client accepts, brotli first, at brotli's default quality 11 and with no setting to change it:
  // measured here, 2.1-2.4 s of CPU for the 277 KB app.js and ~95 ms for one 7 KB estimate answer
  // (chromium sends "Accept-Encoding: gzip, deflate, br"), against under 1 ms uncompressed. On
  // loopback there is nothing to save; so the request's Accept-Encoding is dropped before httplib
  // picks an encoding. (The Request is the server's own, non-const object handed in as const.)
  svr.set_pre_routing_handler([](const httplib::Request& req, httplib::Response&) {
    const_cast<httplib::Request&>(req).headers.erase("Accept-Encoding");
    return httplib::Server::HandlerResponse::Unhandled;
  });

  const Api& a = *api;
  auto api_handler = [&a](const httplib::Request& req, httplib::Response& res) {
    send(res, a.handle(req.method, req.path, query_of(req), req.body));
  };
  svr.Get(R"(/api/.*)", api_handler);
  svr.Post(R"(/api/.*)", api_handler);
  svr.Put(R"(/api/.*)", api_handler);
  svr.Delete(R"(/api/.*)", api_handler);
  svr.Get(R"(/.*)", [](const httplib::Request& req, httplib::Response& res) {
    const auto asset = find_asset(req.path);
    if (!asset) {
      res.status = 404;
      res.set_content("not found\n", "text/plain");
      return;
    }
    // The page loads nothing from anywhere but this server.
    res.set_header("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'");
    res.set_header("Cache-Control", "no-cache");
    res.set_content(asset->text.data(), asset->text.size(), std::string(asset->content_type).c_str());
  });
  // httplib's own refusals (a body over the cap: 413; a path no handler takes) as the API's JSON error.
  svr.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    const std::string msg = res.status == 413 ? "the request body is larger than the server takes (1 MiB)"
                                              : "the server refused " + req.method + " " + req.path;
    send(res, error_response(res.status, Error(msg, {}, "see docs/serve.md",
                                               res.status == 413 ? kRuleLimit : "RB-SERVE-ROUTE")));
  });
  svr.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    send(res, error_response(500, Error("internal error", {}, {}, "RB-INTERNAL")));
  });

  if (!is_loopback(opts.host))
    ctx.err << "recipebook: warning: serving on " << opts.host
            << ", not loopback: anyone who can reach this address can use the API (there is no authentication)\n";

  // httplib listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, compiled into Debian's
  // library): 8 clients connecting at once overflowed it, and the SYNs dropped were retried after
  // 1 s (load_bench max 1023-1032 ms). The listening socket is caught as httplib makes it (the
  // option callback replaces httplib's default, SO_REUSEADDR, so that is set here too) and
  // listen() is called again with a larger backlog, which Linux applies to a listening socket.
  int listen_fd = -1;
  svr.set_socket_options([&listen_fd](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listen_fd = sock;
  });
  const int port = opts.port == 0 ? svr.bind_to_any_port(opts.host) : (svr.bind_to_port(opts.host, opts.port) ? opts.port : -1);
  if (port >= 0 && listen_fd >= 0) listen(listen_fd, kListenBacklog);
  if (port < 0)
    return cli::report(ctx, Error("cannot listen on " + opts.host + ":" + std::to_string(opts.port), {},
                                  "pick another --port (0 = any free port)"));

  // SIGINT / SIGTERM stop the server: they are blocked here (and so in every worker thread started
  // after this) and waited for by one thread.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  // httplib's stop() does nothing until listen_after_bind() has started: a signal that arrives
  // before (a test stopping the server right after its first line, under load) was lost and the
  // server then ran forever. So the stop waits for the server to run, or for listen to have returned.
  std::atomic<bool> listen_returned{false};
  std::thread waiter([&svr, &listen_returned, stop_signals] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    while (!svr.is_running() && !listen_returned.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    svr.stop();
  });

  const std::string url_host = opts.host.find(':') != std::string::npos ? "[" + opts.host + "]" : opts.host;
  const std::string url = "http://" + url_host + ":" + std::to_string(port) + "/";
  ctx.out << "recipebook: serving " << url << std::endl;
  if (opts.open) {
    const std::string cmd = "xdg-open '" + url + "' >/dev/null 2>&1 &";  // url holds checked characters only
    if (std::system(cmd.c_str()) != 0) ctx.err << "recipebook: could not start a browser; open " << url << "\n";
  }
  const bool ok = svr.listen_after_bind();
  listen_returned = true;
  if (waiter.joinable()) {
    pthread_kill(waiter.native_handle(), SIGTERM);  // a stop that did not come from a signal
    waiter.join();
  }
  return ok ? cli::kExitOk : cli::kExitUsage;
}

}  // namespace rb::serve
