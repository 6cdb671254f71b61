#include "tuner/measure/measuring_child.h"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>

#include "core/error.h"
#include "core/subprocess.h"
#include "tuner/measure/library_measurement.h"

namespace nee {

MeasuringChild::MeasuringChild(std::vector<std::string> command, RunnerOptions options)
    : command_(std::move(command)), options_(options) {}

MeasuringChild::~MeasuringChild() { stop(); }

void MeasuringChild::start() {
  std::vector<std::string> argv = command_;
  argv.push_back("--serve");
  const std::vector<std::string> settings = options_.measure_args();
  argv.insert(argv.end(), settings.begin(), settings.end());
  // A socket rather than pipes: writing to a process that died answers EPIPE through
  // send(MSG_NOSIGNAL), not a SIGPIPE that would end the tuner.
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) throw Error("socketpair() failed");
  const pid_t pid = fork();
  if (pid < 0) throw Error("fork() failed");
  if (pid == 0) {
    // A group of its own, as run_process gives each candidate's child: Ctrl-C reaches
    // the tuner, which stops between candidates, and not the candidate being measured.
    setpgid(0, 0);
    dup2(fds[1], STDIN_FILENO);
    dup2(fds[1], STDOUT_FILENO);
    exec_or_exit(argv);
  }
  setpgid(pid, pid);
  close(fds[1]);
  pid_ = pid;
  socket_ = fds[0];
  unread_.clear();
  served_ = 0;
  ++started_;
}

void MeasuringChild::stop() {
  if (pid_ < 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  close(socket_);
  pid_ = -1;
  socket_ = -1;
}

MeasureResult MeasuringChild::ended(const std::string& output) {
  int status = 0;
  waitpid(pid_, &status, 0);
  close(socket_);
  pid_ = -1;
  socket_ = -1;
  MeasureResult result;
  if (WIFSIGNALED(status)) {
    result.status = MeasureStatus::crash;
    result.error = std::string("kernel crashed: ") + strsignal(WTERMSIG(status));
  } else {
    result.status = MeasureStatus::runtime_error;
    result.error = "nee-measure exited " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                   " without a result: " + output;
  }
  return result;
}

MeasureResult MeasuringChild::measure(const ChildMeasurement& m) {
  if (pid_ < 0) start();
  const std::string request = m.to_json().dump() + "\n";
  std::string output;  // what the process printed for this candidate besides its result
  size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = send(socket_, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return ended(output);
    sent += static_cast<size_t>(n);
  }
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(options_.timeout_seconds);
  for (;;) {
    for (size_t end; (end = unread_.find('\n')) != std::string::npos;) {
      const std::string line = unread_.substr(0, end);
      unread_.erase(0, end + 1);
      if (line.rfind(kServedResultPrefix, 0) != 0) {
        output += line + "\n";
        continue;
      }
      MeasureResult result;
      try {
        result = MeasureResult::from_json(nlohmann::json::parse(line.substr(std::strlen(kServedResultPrefix))));
      } catch (const std::exception& e) {
        result.status = MeasureStatus::runtime_error;
        result.error = "nee-measure answered an unreadable result: " + line;
      }
      if (result.status != MeasureStatus::ok || ++served_ >= kCandidatesPerChild) stop();
      return result;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    pollfd p{socket_, POLLIN, 0};
    const int ready = left <= 0 ? 0 : poll(&p, 1, static_cast<int>(std::min<long>(left, INT_MAX)));
    if (ready < 0 && errno == EINTR) continue;  // Ctrl-C's handler ran; the tuner decides
    if (ready == 0) {
      stop();
      MeasureResult result;
      result.status = MeasureStatus::timeout;
      result.error = "measurement exceeded " + std::to_string(static_cast<int>(options_.timeout_seconds)) + " s";
      return result;
    }
    char chunk[4096];
    const ssize_t got = read(socket_, chunk, sizeof chunk);
    if (got <= 0) return ended(output);
    unread_.append(chunk, static_cast<size_t>(got));
  }
}

}  // namespace nee
