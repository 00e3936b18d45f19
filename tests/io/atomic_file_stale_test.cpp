// Temporary files left by interrupted atomic writes ("<name>.tmp<pid>_<n>" of a process
// that was killed before its rename) are removed by the next write to the same directory;
// a live process's temporary file, and every file of another form, stays.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <symflow/io/atomic_file.hpp>
#include <symflow/train/checkpoint_state.hpp>

#include "../test_util.hpp"

namespace symflow_test_io_atomic_file_stale_test {

namespace fs = std::filesystem;
namespace io = symflow::io;
namespace fio = symflow::detail::file_io;
using symflow::test::TempDir;

namespace {

// Larger than any Linux pid_max (at most 2^22), so no process ever has it.
const std::string kDeadPid = "2147483647";

void touch(const fs::path& path, const std::string& content = "partial") {
  std::ofstream(path) << content;
}

std::set<std::string> files_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

}  // namespace

TEST_CASE("io/atomic_file_stale: temp_file_pid reads the pid of '<name>.tmp<pid>_<n>' only") {
  CHECK(fio::temp_file_pid("model.ckpt-3.index.tmp1234_0") == 1234);
  CHECK(fio::temp_file_pid("checkpoint.tmp7_15") == 7);
  CHECK(fio::temp_file_pid("a.tmp.tmp42_1") == 42);  // the last ".tmp" is the suffix
  // Other forms are no temporary file of an atomic write.
  CHECK(fio::temp_file_pid("checkpoint") == 0);
  CHECK(fio::temp_file_pid("notes.tmp") == 0);
  CHECK(fio::temp_file_pid("x.tmp12") == 0);
  CHECK(fio::temp_file_pid("x.tmp_1") == 0);
  CHECK(fio::temp_file_pid("x.tmp12_") == 0);
  CHECK(fio::temp_file_pid("x.tmp1a_1") == 0);
  CHECK(fio::temp_file_pid("x.tmp12_1b") == 0);
  CHECK(fio::temp_file_pid(".tmp12_1") == 0);  // no target name
  // A pid beyond pid_t: not a pid at all.
  CHECK(fio::temp_file_pid("x.tmp99999999999999999999_1") == 0);
}

TEST_CASE(
    "io/atomic_file_stale: a write removes dead processes' temporary files, keeps live ones") {
  TempDir dir("atomic_stale");
  const fs::path root = dir.path();
  const std::string self = std::to_string(::getpid());
  // Left by killed saves: of the file written next, and of other files of the directory.
  touch(root / ("checkpoint.tmp" + kDeadPid + "_0"));
  touch(root / ("model.ckpt-3.index.tmp" + kDeadPid + "_12"));
  touch(root / ("model.ckpt-3.data-00000-of-00001.tmp" + kDeadPid + "_11"));
  // A write in progress in a live process (this one, with a counter it has not used).
  const std::string live = "checkpoint.tmp" + self + "_999999";
  touch(root / live);
  // pid 1 is alive (as root kill(1, 0) succeeds, else it fails with EPERM): kept.
  const std::string init = "model.ckpt-4.index.tmp1_0";
  touch(root / init);
  // Files of other forms, and a directory of the temporary form, are never removed.
  const std::set<std::string> others = {"notes.tmp", "x.tmp" + kDeadPid, "y.tmp_1",
                                        "model.ckpt-3.index"};
  for (const std::string& name : others) touch(root / name);
  const std::string sub = "sub.tmp" + kDeadPid + "_0";
  fs::create_directory(root / sub);
  // Another directory's stale files are not this write's business.
  fs::create_directory(root / "other");
  const std::string elsewhere = "checkpoint.tmp" + kDeadPid + "_3";
  touch(root / "other" / elsewhere);

  io::write_file_atomically(root / "checkpoint", "model_checkpoint_path: \"model.ckpt-4\"\n");

  std::set<std::string> expected = others;
  expected.insert({"checkpoint", live, init, sub, "other"});
  CHECK(files_in(root) == expected);
  CHECK(files_in(root / "other") == std::set<std::string>{elsewhere});
  CHECK(io::read_file(root / live) == "partial");  // untouched
}

TEST_CASE("io/atomic_file_stale: the next checkpoint state update cleans up an interrupted save") {
  TempDir dir("atomic_stale_state");
  const std::string ckpt_dir = dir.path().string();
  symflow::train::update_checkpoint_state(ckpt_dir, dir / "model.ckpt-1");
  // A save killed between writing its temporary files and renaming them.
  touch(dir.path() / ("checkpoint.tmp" + kDeadPid + "_5"));
  touch(dir.path() / ("model.ckpt-2.index.tmp" + kDeadPid + "_4"));
  CHECK(files_in(dir.path()).size() == 3);
  symflow::train::update_checkpoint_state(ckpt_dir, dir / "model.ckpt-3", {dir / "model.ckpt-1"});
  CHECK(files_in(dir.path()) == std::set<std::string>{"checkpoint"});
  auto state = symflow::train::get_checkpoint_state(ckpt_dir);
  REQUIRE(state.has_value());
  CHECK(state->model_checkpoint_path == dir / "model.ckpt-3");
}

TEST_CASE("io/atomic_file_stale: a failed write removes nothing and names the file") {
  TempDir dir("atomic_stale_fail");
  const std::string stale = "checkpoint.tmp" + kDeadPid + "_0";
  touch(dir.path() / stale);
  // A path that names no file is refused before anything is touched.
  CHECK_THROWS_WITH_AS(io::write_file_atomically(dir.path() / "", "x"),
                       doctest::Contains("expected a path that names a file"),
                       symflow::InvalidArgumentError);
  // Into a directory that does not exist: NotFoundError naming the target.
  const std::string missing = dir / "no_such_dir/checkpoint";
  CHECK_THROWS_WITH_AS(io::write_file_atomically(missing, "x"),
                       doctest::Contains(("Failed to write " + missing).c_str()),
                       symflow::NotFoundError);
  CHECK(files_in(dir.path()) == std::set<std::string>{stale});
}

}  // namespace symflow_test_io_atomic_file_stale_test
