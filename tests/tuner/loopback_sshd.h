#pragma once
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/subprocess.h"
#include "temp_dir.h"

namespace nee::tuner_test {

// A real sshd on 127.0.0.1, started for one test: its own host key, a fresh user key
// in authorized_keys, a free port, key-only login as the current user, and a
// known_hosts file holding its host key. start() throws with sshd's log when it does
// not come up, so a test using it fails instead of passing without ssh.
class LoopbackSshd {
 public:
  LoopbackSshd() : dir_("sshd") {}
  ~LoopbackSshd() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }

  void start() {
    if (geteuid() == 0) std::filesystem::create_directories("/run/sshd");  // sshd's privilege separation dir
    keygen(dir_.file("host_key"));
    keygen(dir_.file("user_key"));
    std::filesystem::copy_file(dir_.file("user_key.pub"), dir_.file("authorized_keys"));
    port_ = free_port();
    {
      std::ofstream config(dir_.file("sshd_config"));
      config << "Port " << port_ << "\nListenAddress 127.0.0.1\nHostKey " << dir_.file("host_key")
             << "\nAuthorizedKeysFile " << dir_.file("authorized_keys") << "\nPidFile " << dir_.file("sshd.pid")
             << "\nStrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
             << "PermitRootLogin prohibit-password\nSubsystem sftp internal-sftp\nLogLevel VERBOSE\n";
    }
    {
      std::ofstream known(dir_.file("known_hosts"));
      known << "[127.0.0.1]:" << port_ << " " << read(dir_.file("host_key.pub"));
    }
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      const std::string log = dir_.file("sshd.log");
      if (!freopen(log.c_str(), "w", stderr)) _exit(126);
      execl("/usr/sbin/sshd", "/usr/sbin/sshd", "-D", "-e", "-f", dir_.file("sshd_config").c_str(), nullptr);
      _exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!accepts()) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("sshd exited at start (/usr/sbin/sshd present? openssh-server is installed by "
                                 "scripts/install-deps.sh): " + read(dir_.file("sshd.log")));
      }
      if (std::chrono::steady_clock::now() > deadline) {
        throw std::runtime_error("sshd did not listen on 127.0.0.1:" + std::to_string(port_) + ": " +
                                 read(dir_.file("sshd.log")));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  std::string url() const { return "ssh://" + std::string(getpwuid(geteuid())->pw_name) + "@127.0.0.1:" + std::to_string(port_); }
  std::string identity() const { return dir_.file("user_key"); }
  // ssh -o options: trust exactly this server's host key, and ignore the user's config.
  std::vector<std::string> options() const {
    return {"UserKnownHostsFile=" + dir_.file("known_hosts"), "StrictHostKeyChecking=yes", "IdentitiesOnly=yes"};
  }
  std::string log() const { return read(dir_.file("sshd.log")); }

 private:
  static std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static void keygen(const std::string& path) {
    const ProcessResult r = run_process({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path}, 30, true);
    if (!r.exited || r.exit_code != 0) throw std::runtime_error("ssh-keygen failed: " + r.output);
  }
  static int free_port() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      close(fd);
      throw std::runtime_error("no free port on 127.0.0.1");
    }
    close(fd);
    return ntohs(addr.sin_port);
  }
  bool accepts() const {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port_));
    const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    close(fd);
    return ok;
  }

  TempDir dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace nee::tuner_test
