// gpumux serve without CUDA programs: the workload keys it refuses, and a
// client speaking the wire protocol directly (serve/protocol.h), whose bad
// requests get clear errors and whose protocol violation detaches it, never
// crashing the server.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>

#include "cli_test_util.h"
#include "gpumux/core/error.h"
#include "gpumux/multitask/workload_file.h"
#include "gpumux/serve/protocol.h"

namespace {

namespace fs = std::filesystem;
using gpumux::LoadError;
using gpumux::multitask::parse_workload;
using namespace gpumux::serve;

// The LoadError message of an attached workload, or "" if it parses.
std::string attached_error(const std::string& toml) {
  try {
    parse_workload(toml, "w.toml", ".", true);
  } catch (const LoadError& e) {
    return e.what();
  }
  return "";
}

TEST(ServeWorkload, AttachedAppsHaveANameAndTheKeysOfHowTheyRun) {
  auto w = parse_workload(
      "[policy]\nname = \"smk-even\"\n[run]\nmax_cycles = 1000000\n"
      "[[app]]\nname = \"a\"\npriority = 2\narrival_cycle = 500\ncpu_gap_us = 1.5\n[[app]]\nname = \"b\"\n",
      "w.toml", ".", true);
  ASSERT_EQ(w.apps.size(), 2u);
  EXPECT_TRUE(w.apps[0].attached);
  EXPECT_EQ(w.apps[0].priority, 2);
  EXPECT_EQ(w.apps[0].arrival, 500u);
  EXPECT_EQ(w.run.max_cycles, 1000000u);
  EXPECT_FALSE(w.run.restart);  // a program runs once, as it was started
}

TEST(ServeWorkload, ExampleOfTheDocsLoads) {
  auto w = gpumux::multitask::load_workload_file(std::string(GPUMUX_SOURCE_DIR) + "/configs/serve/four-programs.toml", true);
  EXPECT_EQ(w.apps.size(), 4u);
  EXPECT_EQ(w.policy, "smk-even");
}

TEST(ServeWorkload, RefusesKeysThatCannotApply) {
  EXPECT_NE(attached_error("[[app]]\nname = \"a\"\nbenchmark = \"sgemm\"\n").find("w.toml:3"), std::string::npos);
  EXPECT_NE(attached_error("[[app]]\nname = \"a\"\nbenchmark = \"sgemm\"\n").find("cannot apply"), std::string::npos);
  EXPECT_NE(attached_error("[[app]]\nname = \"a\"\nseed = 3\n").find("cannot apply"), std::string::npos);
  EXPECT_NE(attached_error("[[app]]\nname = \"a\"\nqos_goal = 0.5\n").find("cannot apply"), std::string::npos);
  EXPECT_NE(attached_error("[run]\ncompletions = 2\n[[app]]\nname = \"a\"\n").find("run.completions"),
            std::string::npos);
  EXPECT_NE(attached_error("[run]\nrestart = false\n[[app]]\nname = \"a\"\n").find("run.restart"), std::string::npos);
  EXPECT_NE(attached_error("[[app]]\npriority = 1\n").find("needs a name"), std::string::npos);
  // The same keys stay valid in gpumux run's workloads.
  EXPECT_NO_THROW(parse_workload("[run]\ncompletions = 2\n[[app]]\nbenchmark = \"sgemm\"\n", "w.toml"));
}

TEST(ServeProtocol, ReaderRejectsTruncatedAndTrailingFields) {
  std::vector<uint8_t> four = Writer().u32(7).data();
  Reader r(four);
  EXPECT_THROW(r.u64("address"), ProtocolError);
  Reader ok(four);
  EXPECT_EQ(ok.u32("x"), 7u);
  EXPECT_NO_THROW(ok.end("x"));
  std::vector<uint8_t> str = Writer().u64(uint64_t(1) << 40).data();  // a string longer than the payload
  Reader s(str);
  EXPECT_THROW(s.str("ptx"), ProtocolError);
  Reader t(four);
  EXPECT_THROW(t.end("Synchronize"), ProtocolError);
}

// A request and its reply over `fd`.
Status request(int fd, Op op, const Writer& w, std::vector<uint8_t>& reply) {
  EXPECT_TRUE(send_frame(fd, uint32_t(op), w.data()));
  uint32_t status = 0;
  EXPECT_TRUE(recv_frame(fd, status, reply));
  return Status(status);
}

Writer hello(const std::string& name) {
  Writer w;
  w.u32(kProtocolVersion).str(name).u32(1).str("/bin/false").str("/").u32(0);
  return w;
}

TEST(ServeProtocol, BadRequestsGetErrorsAndAProtocolViolationDetachesTheProgram) {
  fs::path dir = fs::path(GPUMUX_BUILD_DIR) / "serve-protocol-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "w.toml") << "[[app]]\nname = \"x\"\n[[app]]\nname = \"y\"\n";
  std::string sock = (dir / "s.sock").string(), out;
  auto server = std::async(std::launch::async, [&] {
    return gpumux::test::run_gpumux(
        "serve " + (dir / "w.toml").string() + " --no-baselines --attach-timeout 20 -s " + sock, out);
  });
  int fd = -1;
  for (int i = 0; i < 400 && fd < 0; ++i) {
    fd = connect_unix(sock);
    if (fd < 0) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_GE(fd, 0) << "the server did not listen";
  std::vector<uint8_t> reply;
  // An application the workload does not have is refused, naming those it waits for.
  EXPECT_EQ(request(fd, Op::Hello, hello("nobody"), reply), Status::ProtocolError);
  EXPECT_NE(Reader(reply).str("message").find("waiting: x"), std::string::npos);
  close(fd);

  fd = connect_unix(sock);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(request(fd, Op::Hello, hello("x"), reply), Status::Ok);
  EXPECT_EQ(Reader(reply).str("gpu"), "gtx980");
  ASSERT_EQ(request(fd, Op::Malloc, Writer().u64(64), reply), Status::Ok);
  uint64_t p = Reader(reply).u64("address");
  EXPECT_EQ(request(fd, Op::Write, Writer().u64(p).str("gpumux"), reply), Status::Ok);
  ASSERT_EQ(request(fd, Op::Read, Writer().u64(p).u64(6), reply), Status::Ok);
  EXPECT_EQ(Reader(reply).str("bytes"), "gpumux");
  // Bad use of the API: an error reply, and the program goes on.
  EXPECT_EQ(request(fd, Op::Read, Writer().u64(p).u64(65), reply), Status::ApiError);
  EXPECT_EQ(request(fd, Op::Free, Writer().u64(12345), reply), Status::ApiError);
  EXPECT_EQ(request(fd, Op::Launch, Writer().u32(3).str("k"), reply), Status::ProtocolError);  // truncated
  EXPECT_NE(Reader(reply).str("message").find("truncated"), std::string::npos);
  close(fd);
  // Launch flags other than cooperative (1) and graph node (2) are a protocol violation too.
  fd = connect_unix(sock);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(request(fd, Op::Hello, hello("y"), reply), Status::Ok);
  Writer launch;
  launch.u32(0).str("k").u32(1).u32(1).u32(1).u32(1).u32(1).u32(1).u64(0).u32(0).u32(4).u32(0);
  EXPECT_EQ(request(fd, Op::Launch, launch, reply), Status::ProtocolError);
  EXPECT_NE(Reader(reply).str("message").find("unknown launch flags 0x4"), std::string::npos);
  close(fd);
  EXPECT_EQ(server.get(), 1) << out;  // its applications failed
  EXPECT_NE(out.find("x detached: protocol error: truncated message"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(sock));  // the server removes its socket
}

}  // namespace
