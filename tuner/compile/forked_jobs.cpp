#include "tuner/compile/forked_jobs.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/error.h"

namespace nee {

static std::string read_tail(const std::string& path, size_t max_chars) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  if (s.size() > max_chars) s = "..." + s.substr(s.size() - max_chars);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

static pid_t start(const ForkedJob& job) {
  const pid_t pid = fork();
  if (pid < 0) throw Error("fork() failed");
  if (pid == 0) {
    const int fd = open(job.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, STDERR_FILENO);
      dup2(fd, STDOUT_FILENO);
    }
    try {
      job.work();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      std::fflush(stderr);
      _exit(1);
    } catch (...) {
      // Anything else must not unwind into the parent's code, which this child shares: a
      // failing Halide compile in a kernel test threw past the handler above and the child
      // went on to run the rest of the test binary's suite.
      std::fprintf(stderr, "the job threw an exception of an unknown type\n");
      std::fflush(stderr);
      _exit(1);
    }
    _exit(0);
  }
  return pid;
}

std::vector<ForkedJobResult> run_forked_jobs(const std::vector<ForkedJob>& jobs, int parallel,
                                             double timeout_seconds) {
  using clock = std::chrono::steady_clock;
  struct Running {
    size_t index;
    pid_t pid;
    clock::time_point start;
  };
  std::vector<ForkedJobResult> results(jobs.size());
  std::vector<Running> running;
  size_t next = 0;
  while (next < jobs.size() || !running.empty()) {
    while (next < jobs.size() && static_cast<int>(running.size()) < std::max(1, parallel)) {
      running.push_back({next, start(jobs[next]), clock::now()});
      ++next;
    }
    bool reaped = false;
    for (size_t i = 0; i < running.size(); ++i) {
      const Running job = running[i];
      ForkedJobResult& r = results[job.index];
      const std::string& log = jobs[job.index].log_path;
      int status = 0;
      pid_t done = waitpid(job.pid, &status, WNOHANG);
      r.seconds = std::chrono::duration<double>(clock::now() - job.start).count();
      if (done == 0 && r.seconds > timeout_seconds) {
        kill(job.pid, SIGKILL);
        waitpid(job.pid, &status, 0);
        r.error = "timed out after " + std::to_string(static_cast<int>(timeout_seconds)) + " s";
        done = job.pid;
      } else if (done == job.pid) {
        if (!WIFEXITED(status)) {
          r.error = "crashed (signal " + std::to_string(WTERMSIG(status)) + "): " + read_tail(log, 1500);
        } else if (WEXITSTATUS(status) != 0) {
          r.error = read_tail(log, 1500);
          if (r.error.empty()) r.error = "failed without a message";
        }
      }
      if (done == job.pid) {
        running.erase(running.begin() + static_cast<long>(i));
        --i;
        reaped = true;
      }
    }
    if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return results;
}

}  // namespace nee
