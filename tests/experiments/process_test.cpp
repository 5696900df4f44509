#include "gpumux/experiments/process.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "file_test_util.h"
#include "gpumux/core/error.h"

namespace gpumux::experiments {
namespace {

namespace fs = std::filesystem;

using test::read_file;

TEST(Process, CapturesOutputErrorAndExitCode) {
  ProcessResult r = run_process({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
}

TEST(Process, ArgumentsReachTheChildVerbatim) {
  // No shell between us and the child: quotes, spaces and $ are plain bytes.
  ProcessResult r = run_process({"/bin/sh", "-c", "printf '%s|' \"$@\"", "sh", "a b", "it's", "$HOME", ""});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "a b|it's|$HOME||");
}

TEST(Process, LooksUpPathAndReadsNoInput) {
  ProcessResult r = run_process({"cat"});  // stdin is /dev/null: returns at once
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
}

TEST(Process, LargeOutputOnBothStreamsDoesNotDeadlock) {
  ProcessResult r = run_process({"/bin/sh", "-c", "head -c 1000000 /dev/zero; head -c 500000 /dev/zero >&2"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.size(), 1000000u);
  EXPECT_EQ(r.err.size(), 500000u);
}

TEST(Process, SignalGivesExitCode128PlusSignal) {
  EXPECT_EQ(run_process({"/bin/sh", "-c", "kill -KILL $$"}).exit_code, 128 + 9);
}

TEST(Process, MissingProgramExits127WithReason) {
  ProcessResult r = run_process({"gpumux-no-such-program", "x"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("gpumux-no-such-program"), std::string::npos) << r.err;
  EXPECT_EQ(run_process({"/nonexistent/dir/prog"}).exit_code, 127);
}

TEST(Process, OutputFileGetsBothStreams) {
  fs::path f = fs::temp_directory_path() / ("gpumux-process-test-" + std::to_string(::getpid()) + ".txt");
  std::ofstream(f) << "old content that must go\n";
  ProcessResult r = run_process({"/bin/sh", "-c", "echo one; echo two >&2; exit 1"}, f);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(read_file(f), "one\ntwo\n");

  r = run_process({"gpumux-no-such-program"}, f);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(read_file(f).find("cannot execute gpumux-no-such-program"), std::string::npos) << read_file(f);
  fs::remove(f);
}

TEST(Process, UnopenableOutputFileOrEmptyCommandThrows) {
  EXPECT_THROW(run_process({"true"}, "/nonexistent/dir/log.txt"), ApiError);
  EXPECT_THROW(run_process({}), ApiError);
}

}  // namespace
}  // namespace gpumux::experiments
