#include "recipebook/emit/atomic_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "recipebook/emit/launch_test_util.hpp"

namespace rb {
namespace {

int mode_of(const std::string& path) {
  struct stat st {};
  ::stat(path.c_str(), &st);
  return static_cast<int>(st.st_mode & 0777);
}

size_t entries(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(AtomicFile, WritesANewFileAndLeavesNoTemporary) {
  test::TempDir tmp;
  const std::string f = tmp.file("job.sbatch");
  ASSERT_TRUE(write_file_atomic({f, "#!/bin/bash\n", true}, false));
  EXPECT_EQ(test::read_text(f), "#!/bin/bash\n");
  EXPECT_EQ(mode_of(f) & 0100, 0100);  // executable for its owner
  EXPECT_EQ(entries(tmp.path()), 1u);
}

TEST(AtomicFile, RefusesAnExistingFileWithoutForce) {
  test::TempDir tmp;
  const std::string f = tmp.file("out.yaml");
  test::write_text(f, "old\n");
  auto r = write_file_atomic({f, "new\n", false}, false);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().str().find(f), std::string::npos);  // the error names the file
  EXPECT_NE(r.error().fix.find("--force"), std::string::npos);
  EXPECT_EQ(test::read_text(f), "old\n");
  EXPECT_EQ(entries(tmp.path()), 1u);
}

TEST(AtomicFile, ForceReplacesAndKeepsTheMode) {
  test::TempDir tmp;
  const std::string f = tmp.file("record.yaml");
  test::write_text(f, "old\n");
  ::chmod(f.c_str(), 0640);
  ASSERT_TRUE(write_file_atomic({f, "new\n", false}, true));
  EXPECT_EQ(test::read_text(f), "new\n");
  EXPECT_EQ(mode_of(f), 0640);
  EXPECT_EQ(entries(tmp.path()), 1u);
}

TEST(AtomicFile, SeveralFilesAreAllOrNothing) {
  test::TempDir tmp;
  test::write_text(tmp.file("b.yaml"), "keep\n");
  auto r = write_files_atomic({{tmp.file("a.sh"), "a\n", true}, {tmp.file("b.yaml"), "b\n", false}}, false);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("b.yaml"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(tmp.file("a.sh")));  // checked before anything was written
  EXPECT_EQ(test::read_text(tmp.file("b.yaml")), "keep\n");
  EXPECT_FALSE(write_files_atomic({{tmp.file("no/such/dir/x"), "x", false}}, false));
  ASSERT_TRUE(write_files_atomic({{tmp.file("a.sh"), "a\n", true}, {tmp.file("b.yaml"), "b\n", false}}, true));
  EXPECT_EQ(test::read_text(tmp.file("b.yaml")), "b\n");
}

}  // namespace
}  // namespace rb
