// Helpers shared by the suites in tests/: temporary folders that clean up after themselves.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace rb::test {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "rbtest-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }
  // Writes `text` to path()/name (creating folders) and returns the full path.
  std::string write(const std::string& name, const std::string& text) const {
    const auto p = std::filesystem::path(path_) / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

 private:
  std::string path_;
};

}  // namespace rb::test

#include <sstream>

#include "recipebook/catalog/catalog.hpp"
#include "recipebook/context.hpp"

namespace rb::test {

// What a subcommand printed and returned.
struct CliOut {
  int rc = -1;
  std::string out;
  std::string err;
};

// Runs `f(const cli::Context&)` with string streams for its output.
template <typename F>
CliOut run_cli(F&& f, bool json) {
  std::ostringstream out;
  std::ostringstream err;
  const cli::Context ctx{out, err, {}, json, false};
  CliOut r;
  r.rc = f(ctx);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// The built-in catalog, loaded once per test process.
inline const Catalog& builtin_catalog() {
  static const Catalog c = *Catalog::load();
  return c;
}

}  // namespace rb::test
