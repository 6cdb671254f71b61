#include "core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>

#include "core/error.h"

namespace nee {

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds, bool merge_stderr) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw Error("pipe() failed");
  const pid_t pid = fork();
  if (pid < 0) throw Error("fork() failed");
  if (pid == 0) {
    setpgid(0, 0);
    dup2(pipe_fds[1], STDOUT_FILENO);
    if (merge_stderr) dup2(pipe_fds[1], STDERR_FILENO);
    exec_or_exit(argv);
  }
  setpgid(pid, pid);
  close(pipe_fds[1]);

  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  bool open = true;
  while (open) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    pollfd p{pipe_fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<long>(left.count(), INT_MAX)));
    if (ready > 0) {
      char chunk[4096];
      const ssize_t got = read(pipe_fds[0], chunk, sizeof chunk);
      if (got <= 0) {
        open = false;
      } else {
        result.output.append(chunk, static_cast<size_t>(got));
      }
    }
  }
  int status = 0;
  if (result.timed_out) {
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
  } else {
    // The pipe closed; the process is exiting. Keep the deadline while reaping it.
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        result.timed_out = true;
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      usleep(1000);
    }
  }
  close(pipe_fds[0]);
  if (!result.timed_out) {
    if (WIFEXITED(status)) {
      result.exited = true;
      result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.signal = WTERMSIG(status);
    }
  }
  return result;
}

void exec_or_exit(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  _exit(127);
}

std::string executable_dir() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) throw Error("cannot find the running executable");
  path[n] = 0;
  std::string p(path);
  return p.substr(0, p.rfind('/'));
}

}  // namespace nee
