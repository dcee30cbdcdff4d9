// The smrt_serve binary: its flags (--help lists each, unknown ones are
// refused by name), and SIGTERM: stop accepting, finish, exit 0.
#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/paths.h"

extern char** environ;

namespace smrt::serve {
namespace {

using ::testing::HasSubstr;

// Runs a shell command; its exit status and what it wrote (stdout and
// stderr).
std::pair<int, std::string> RunServe(const std::string& args) {
  const std::string command = std::string(SMRT_SERVE_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(ServeMainTest, HelpListsEveryFlag) {
  auto [status, out] = RunServe("--help");
  EXPECT_EQ(status, 0) << out;
  for (const char* flag :
       {"--port ", "--rest_api_port ", "--rest_api_num_threads ", "--rest_api_timeout_in_ms ",
        "--model_name ", "--model_base_path ", "--model_config_file ",
        "--model_config_file_poll_wait_seconds ", "--enable_batching ",
        "--batching_parameters_file ", "--file_system_poll_wait_seconds ",
        "--enable_model_warmup (default true)", "--grpc_max_threads ", "--grpc_channel_arguments ",
        "--bind_address (default \"127.0.0.1\")", "--max_request_bytes ",
        "--max_inflight_requests ", "--device ", "--precision "}) {
    EXPECT_THAT(out, HasSubstr(flag));
  }
  EXPECT_THAT(out, HasSubstr("--port (default 8500)"));
  EXPECT_THAT(out, HasSubstr("--rest_api_port (default 0)"));
}

TEST(ServeMainTest, BadFlagsAreRefusedByName) {
  auto [status, out] = RunServe("--no_such_flag=1");
  EXPECT_EQ(status, 2);
  EXPECT_THAT(out, HasSubstr("unknown flag --no_such_flag"));
  std::tie(status, out) = RunServe("--port=eighty");
  EXPECT_EQ(status, 2);
  EXPECT_THAT(out, HasSubstr("flag --port: 'eighty' is not a whole number"));
  std::tie(status, out) = RunServe("--port=0 --rest_api_port=0 --model_base_path=/tmp");
  EXPECT_EQ(status, 2);
  EXPECT_THAT(out, HasSubstr("nothing would be served"));
  std::tie(status, out) = RunServe("--grpc_channel_arguments=nokey --model_base_path=/tmp");
  EXPECT_EQ(status, 2);
  EXPECT_THAT(out, HasSubstr("'nokey' is not key=value"));
  std::tie(status, out) = RunServe("--rest_api_port=8601");
  EXPECT_EQ(status, 1);
  EXPECT_THAT(out, HasSubstr("model_base_path"));
}

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// Requests keep coming while SIGTERM arrives: each is answered in full or
// refused at the door, and the server exits 0.
TEST(ServeMainTest, SigtermFinishesRequestsAndExitsZero) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  const int port = FreePort();
  const std::string log = smrt::testing::MakeTempDir() + "/serve.log";
  const std::string rest_port = "--rest_api_port=" + std::to_string(port);
  const std::string base =
      "--model_base_path=" + smrt::testing::SharedModel("tf-serving/saved_model_half_plus_two_cpu");
  std::vector<std::string> args = {SMRT_SERVE_BINARY, "--port=0", rest_port,
                                   "--model_name=half_plus_two", base};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid;
  ASSERT_EQ(posix_spawn(&pid, SMRT_SERVE_BINARY, &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);

  httplib::Client client("127.0.0.1", port);
  bool ready = false;
  for (int i = 0; i < 600 && !ready; ++i) {
    httplib::Result res = client.Get("/v1/models/half_plus_two");
    ready = res && res->status == 200;
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(ready) << "smrt_serve did not become ready";

  std::atomic<bool> stop{false};
  std::atomic<int> answered{0}, wrong{0};
  std::thread load([&] {
    httplib::Client c("127.0.0.1", port);
    while (!stop.load()) {
      httplib::Result res = c.Post("/v1/models/half_plus_two:predict", R"({"instances": [[1.0]]})",
                                   "application/json");
      if (!res) continue;  // refused: the server has stopped accepting
      if (res->status == 200 && res->body.find("2.5") != std::string::npos) {
        ++answered;
      } else {
        ++wrong;
      }
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  stop = true;
  load.join();
  std::ifstream file(log);
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << text.str();
  EXPECT_THAT(text.str(), HasSubstr("SIGTERM: finishing the requests in flight"));
  EXPECT_GT(answered.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace smrt::serve
