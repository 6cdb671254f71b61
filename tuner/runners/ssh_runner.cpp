#include "tuner/runners/ssh_runner.h"

#include <filesystem>
#include <regex>

#include "core/error.h"
#include "core/subprocess.h"
#include "tuner/runners/batch_folder.h"

namespace nee {

namespace fs = std::filesystem;

namespace {

// ssh and scp connect, authenticate and copy within this; a stuck network fails the batch.
constexpr double kTransferTimeoutS = 300;

std::string last_line(const std::string& text) {
  std::string s = text;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  const size_t newline = s.rfind('\n');
  return newline == std::string::npos ? s : s.substr(newline + 1);
}

}  // namespace

SshUrl SshUrl::parse(const std::string& url) {
  static const std::regex pattern(R"(^ssh://(([A-Za-z0-9._-]+)@)?([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(:([0-9]{1,5}))?/?$)");
  std::smatch match;
  if (!std::regex_match(url, match, pattern)) {
    throw Error("bad runner URL '" + url + "': expected ssh://[user@]host[:port]");
  }
  SshUrl u;
  std::string host = match[3];
  if (host.front() == '[') host = host.substr(1, host.size() - 2);
  u.destination = match[2].matched ? std::string(match[2]) + "@" + host : host;
  if (match[5].matched) {
    u.port = std::stoi(match[5]);
    if (u.port < 1 || u.port > 65535) throw Error("bad runner URL '" + url + "': port must be 1 to 65535");
  }
  return u;
}

std::string SshUrl::to_string() const {
  return "ssh://" + destination + (port ? ":" + std::to_string(port) : "");
}

SshRunner::SshRunner(SshUrl url, SshSettings ssh, RunnerOptions options, std::string work_dir)
    : url_(std::move(url)), ssh_(std::move(ssh)), options_(options), work_dir_(std::move(work_dir)) {
  if (!ssh_.identity.empty() && !fs::exists(ssh_.identity)) {
    throw Error("ssh identity file '" + ssh_.identity + "' not found");
  }
}

SshRunner::~SshRunner() {
  if (remote_dir_.empty()) return;
  try {
    remote("rm -rf '" + remote_dir_ + "'", 30);
  } catch (const std::exception&) {
    // The remote's temporary folder stays; nothing here depends on it.
  }
}

std::string SshRunner::remote(const std::string& command, double timeout_seconds) {
  std::vector<std::string> argv = {"ssh", "-o", "BatchMode=yes"};
  if (url_.port) argv.insert(argv.end(), {"-p", std::to_string(url_.port)});
  if (!ssh_.identity.empty()) argv.insert(argv.end(), {"-i", ssh_.identity});
  for (const std::string& o : ssh_.options) argv.insert(argv.end(), {"-o", o});
  argv.insert(argv.end(), {url_.destination, command});
  const ProcessResult p = run_process(argv, timeout_seconds, /*merge_stderr=*/true);
  if (p.timed_out) throw Error(name() + ": '" + command + "' took over " + std::to_string(int(timeout_seconds)) + " s");
  if (!p.exited || p.exit_code != 0) {
    throw Error(name() + ": '" + command + "' failed (exit " + std::to_string(p.exit_code) + "): " + p.output);
  }
  return p.output;
}

void SshRunner::copy(const std::vector<std::string>& sources, const std::string& destination) {
  std::vector<std::string> argv = {"scp", "-q", "-r", "-o", "BatchMode=yes"};
  if (url_.port) argv.insert(argv.end(), {"-P", std::to_string(url_.port)});
  if (!ssh_.identity.empty()) argv.insert(argv.end(), {"-i", ssh_.identity});
  for (const std::string& o : ssh_.options) argv.insert(argv.end(), {"-o", o});
  argv.insert(argv.end(), sources.begin(), sources.end());
  argv.push_back(destination);
  const ProcessResult p = run_process(argv, kTransferTimeoutS, /*merge_stderr=*/true);
  if (p.timed_out || !p.exited || p.exit_code != 0) {
    throw Error(name() + ": copying to " + destination + " failed: " + (p.timed_out ? "timed out" : p.output));
  }
}

const std::string& SshRunner::remote_dir() {
  if (remote_dir_.empty()) {
    const std::string dir = last_line(remote("mktemp -d /tmp/nee-measure-XXXXXX", kTransferTimeoutS));
    if (dir.rfind("/tmp/nee-measure-", 0) != 0 || dir.find('\'') != std::string::npos) {
      throw Error(name() + ": mktemp gave no folder: '" + dir + "'");
    }
    remote_dir_ = dir;
  }
  return remote_dir_;
}

DeviceFingerprint SshRunner::device(TargetKind kind) {
  auto it = devices_.find(kind);
  if (it != devices_.end()) return it->second;
  const std::string program = remote_dir() + "/nee-measure";
  if (devices_.empty()) copy({executable_dir() + "/nee-measure"}, url_.destination + ":" + program);
  const std::string output = remote("'" + program + "' --fingerprint " + to_string(kind), kTransferTimeoutS);
  DeviceFingerprint d;
  try {
    d = DeviceFingerprint::from_json(nlohmann::json::parse(last_line(output)));
  } catch (const std::exception& e) {
    throw Error(name() + ": nee-measure --fingerprint gave no fingerprint: " + output);
  }
  return devices_[kind] = d;
}

void SshRunner::measure(const std::vector<MeasureTask>& tasks, double best_us, const ResultSink& sink) {
  if (tasks.empty()) return;
  const std::string name_in_dirs = "batch-" + std::to_string(batches_++);
  const std::string local = work_dir_ + "/" + name_in_dirs;
  const std::string there = remote_dir() + "/" + name_in_dirs;
  fs::remove_all(local);
  const BatchManifest manifest = pack_batch_folder(local, tasks, tasks.front().candidate.target.halide, options_,
                                                   {{tasks.front().candidate.workload.key(), best_us}});

  // The batch runs unattended there: each candidate under its own limit, the whole run
  // under their sum plus the transfers. Whatever came back is handed over even when the
  // run failed part way; a candidate without a result is not stored as a failure (it
  // was never measured), the batch throws instead and a rerun measures it.
  std::map<std::string, MeasureResult> results;
  std::string failure;
  if (!manifest.tasks.empty()) {
    copy({local}, url_.destination + ":" + remote_dir());
    try {
      remote("'" + there + "/bin/nee-measure' --batch '" + there + "'",
             kTransferTimeoutS + static_cast<double>(manifest.tasks.size()) * (options_.timeout_seconds + 5));
    } catch (const std::exception& e) {
      failure = e.what();
    }
    try {
      fs::remove(batch_results_path(local));
      copy({url_.destination + ":" + batch_results_path(there)}, local);
      for (const BatchResult& r : read_batch_results(local)) results[r.task] = r.result;
      remote("rm -rf '" + there + "'", kTransferTimeoutS);
    } catch (const std::exception& e) {
      if (failure.empty()) failure = e.what();
    }
  }
  fs::remove_all(local);

  size_t packed = 0;
  int missing = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    MeasureResult r;
    if (!tasks[i].build.ok()) {
      r.status = MeasureStatus::build_error;
      r.error = tasks[i].build.error;
    } else {
      auto found = results.find(manifest.tasks[packed++].id);
      if (found == results.end()) {
        ++missing;
        continue;
      }
      r = found->second;
    }
    // The sink's wish to stop is not needed here: the whole batch was measured already.
    sink(i, r);
  }
  if (missing) {
    throw Error(name() + ": " + std::to_string(missing) + " candidate(s) of the batch came back without a result" +
                (failure.empty() ? "" : ": " + failure));
  }
}

}  // namespace nee
