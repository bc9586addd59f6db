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
  ASSERT_TRUE(write_files_atomic({{tmp.file("a.sh"), "a\n", true}, {tmp.file("b.yaml"), "b\n", false}}, true));
  EXPECT_EQ(test::read_text(tmp.file("b.yaml")), "b\n");
}

TEST(AtomicFile, MakesMissingFoldersAndTakesThemBackOnFailure) {
  // Old code: "no folder jobs" (the README's `launch ... -o jobs/` on a fresh checkout).
  test::TempDir tmp;
  const std::string jobs = tmp.file("jobs/run1");
  ASSERT_TRUE(write_files_atomic({{jobs + "/a.sbatch", "a\n", true}, {jobs + "/a.recipe.yaml", "r\n", false}}, false));
  EXPECT_EQ(test::read_text(jobs + "/a.sbatch"), "a\n");
  EXPECT_EQ(entries(jobs), 2u);  // no temporaries left

  // A failure after the folders were made leaves nothing: a file whose folder cannot be made (its
  // ancestor is a file) is found before anything is made; a temporary that cannot be created (the
  // second folder is read-only) takes the first file's new folder back.
  test::write_text(tmp.file("plain"), "x");
  auto blocked = write_files_atomic({{tmp.file("new1/a.sh"), "a", true}, {tmp.file("plain/b.sh"), "b", true}}, false);
  ASSERT_FALSE(blocked);
  EXPECT_NE(blocked.error().message.find("plain"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(tmp.file("new1")));
  // Putting the second file in place fails (its path is a folder, which no file replaces, even for
  // root): the first file, already in place, and its new folder are taken back.
  std::filesystem::create_directory(tmp.file("taken"));
  auto late = write_files_atomic({{tmp.file("new2/a.sh"), "a", true}, {tmp.file("taken"), "b", true}}, true);
  ASSERT_FALSE(late);
  EXPECT_NE(late.error().message.find("nothing was written"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(tmp.file("new2")));
  EXPECT_EQ(entries(tmp.path()), 3u);  // jobs, plain, taken: no temporaries
}

}  // namespace
}  // namespace rb
