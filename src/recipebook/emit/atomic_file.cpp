#include "recipebook/emit/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <vector>

namespace rb {
namespace {

std::string errno_text(int e) { return std::strerror(e); }

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::string folder_of(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string parent = p.parent_path().string();
  return parent.empty() ? "." : parent;
}

Result<void> write_all(int fd, std::string_view text, const std::string& tmp) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("cannot write " + tmp + ": " + errno_text(errno));
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return fail("cannot flush " + tmp + ": " + errno_text(errno));
  return {};
}

// A file written to its temporary, flushed and with its final mode, waiting to be put in place.
struct Prepared {
  std::string tmp;
  std::string path;
  bool placed = false;  // put in place as a new file (rollback removes it)
};

Result<Prepared> prepare(const FileToWrite& file, bool overwrite) {
  const std::string& path = file.path;
  const std::string dir = folder_of(path);
  std::string tmp = dir + "/." + std::filesystem::path(path).filename().string() + ".tmpXXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return fail("cannot create a temporary file in " + dir + ": " + errno_text(errno));

  mode_t mode = file.executable ? 0755 : 0644;
  struct stat old {};
  if (overwrite && ::stat(path.c_str(), &old) == 0) {
    mode = old.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = mode & ~mask;
  }
  auto ok = write_all(fd, file.text, tmp);
  if (ok && ::fchmod(fd, mode) != 0) ok = fail("cannot set the mode of " + tmp + ": " + errno_text(errno));
  if (::close(fd) != 0 && ok) ok = fail("cannot close " + tmp + ": " + errno_text(errno));
  if (!ok) {
    ::unlink(tmp.c_str());
    return tl::unexpected(ok.error());
  }
  return Prepared{tmp, path};
}

// Puts a prepared file in place; its temporary is gone afterwards either way.
Result<void> commit(Prepared& p, bool overwrite) {
  const std::string& path = p.path;
  const std::string& tmp = p.tmp;
  if (overwrite) {
    const bool existed = exists(path);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      const int e = errno;
      ::unlink(tmp.c_str());
      return fail("cannot write " + path + ": " + errno_text(e));
    }
    p.placed = !existed;
    return {};
  }
  // No-clobber: link() fails with EEXIST when the destination appeared meanwhile.
  if (::link(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    if (e == EEXIST) {
      ::unlink(tmp.c_str());
      return fail(path + " exists; not overwriting it", {}, "pass --force to replace it, or choose another folder");
    }
    // A file system without hard links: fall back to a checked rename.
    if (exists(path) || ::rename(tmp.c_str(), path.c_str()) != 0) {
      const int e2 = exists(path) ? EEXIST : errno;
      ::unlink(tmp.c_str());
      return fail("cannot write " + path + ": " + errno_text(e2));
    }
    p.placed = true;
    return {};
  }
  ::unlink(tmp.c_str());
  p.placed = true;
  return {};
}

// The folders to make for `dir`, outermost first; an Error when an existing ancestor is not a folder.
Result<std::vector<std::string>> missing_folders(const std::string& dir) {
  std::vector<std::string> out;
  std::filesystem::path p(dir);
  while (true) {
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) return fail(p.string() + " is not a folder");
      break;
    }
    if (errno != ENOENT) return fail("cannot use the folder " + p.string() + ": " + errno_text(errno));
    out.push_back(p.string());
    const std::filesystem::path parent = p.parent_path();
    if (parent.empty() || parent == p) break;
    p = parent;
  }
  return std::vector<std::string>(out.rbegin(), out.rend());
}

}  // namespace

Result<void> write_file_atomic(const FileToWrite& file, bool overwrite) {
  if (!overwrite && exists(file.path))
    return fail(file.path + " exists; not overwriting it", {}, "pass --force to replace it, or choose another folder");
  auto p = prepare(file, overwrite);
  if (!p) return tl::unexpected(p.error());
  return commit(*p, overwrite);
}

Result<void> write_files_atomic(const std::vector<FileToWrite>& files, bool overwrite) {
  std::vector<std::string> to_make;
  for (size_t i = 0; i < files.size(); ++i) {
    for (size_t j = 0; j < i; ++j)
      if (files[j].path == files[i].path) return fail(files[i].path + " would be written twice");
    auto missing = missing_folders(folder_of(files[i].path));
    if (!missing) return tl::unexpected(missing.error());
    for (auto& m : *missing)
      if (std::find(to_make.begin(), to_make.end(), m) == to_make.end()) to_make.push_back(std::move(m));
    if (!overwrite && exists(files[i].path))
      return fail(files[i].path + " exists; not overwriting it (nothing was written)", {},
                  "pass --force to replace it, or choose another folder");
  }
  std::vector<std::string> made;
  std::vector<Prepared> ready;
  auto undo = [&](Error e) -> Result<void> {
    for (auto it = ready.rbegin(); it != ready.rend(); ++it) {
      if (it->placed) ::unlink(it->path.c_str());
      else ::unlink(it->tmp.c_str());
    }
    for (auto it = made.rbegin(); it != made.rend(); ++it) ::rmdir(it->c_str());
    e.message += " (nothing was written)";
    return tl::unexpected(std::move(e));
  };
  for (const auto& d : to_make) {
    if (::mkdir(d.c_str(), 0777) != 0 && errno != EEXIST) return undo(Error{"cannot make the folder " + d + ": " + errno_text(errno)});
    made.push_back(d);
  }
  for (const auto& f : files) {
    auto p = prepare(f, overwrite);
    if (!p) return undo(p.error());
    ready.push_back(std::move(*p));
  }
  for (auto& p : ready) {
    if (auto ok = commit(p, overwrite); !ok) {
      p.tmp.clear();  // a failed commit removed its own temporary
      return undo(ok.error());
    }
  }
  return {};
}

}  // namespace rb
