// Helpers shared by every test binary (tests/ and the module tests under src/): a temporary folder
// that cleans up after itself.
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
  // path()/name, not created.
  [[nodiscard]] std::string file(const std::string& name) const {
    return (std::filesystem::path(path_) / name).string();
  }
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

