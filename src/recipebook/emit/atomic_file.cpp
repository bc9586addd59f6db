#include "recipebook/emit/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

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

}  // namespace

Result<void> write_file_atomic(const FileToWrite& file, bool overwrite) {
  const std::string& path = file.path;
  if (!overwrite && exists(path))
    return fail(path + " exists; not overwriting it", {}, "pass --force to replace it, or choose another folder");
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
    return ok;
  }
  if (overwrite) {
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      const int e = errno;
      ::unlink(tmp.c_str());
      return fail("cannot write " + path + ": " + errno_text(e));
    }
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
    return {};
  }
  ::unlink(tmp.c_str());
  return {};
}

Result<void> write_files_atomic(const std::vector<FileToWrite>& files, bool overwrite) {
  for (size_t i = 0; i < files.size(); ++i) {
    for (size_t j = 0; j < i; ++j)
      if (files[j].path == files[i].path) return fail(files[i].path + " would be written twice");
    struct stat st {};
    const std::string dir = folder_of(files[i].path);
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return fail("no folder " + dir);
    if (!overwrite && exists(files[i].path))
      return fail(files[i].path + " exists; not overwriting it (nothing was written)", {},
                  "pass --force to replace it, or choose another folder");
  }
  for (const auto& f : files)
    if (auto ok = write_file_atomic(f, overwrite); !ok) return ok;
  return {};
}

}  // namespace rb
