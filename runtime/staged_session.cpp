#include "runtime/staged_session.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.h"

namespace nee {

namespace {

// Stages a run may pass through: each makes progress, so this bounds a model that
// never finishes (a Loop whose condition stays true) rather than any real one.
constexpr size_t kMaxStagesPerRun = 10000;

}  // namespace

StagedSession::StagedSession(std::shared_ptr<const StagedModel> model, ProviderMaker make_providers,
                             SessionOptions session_options, size_t capacity)
    : model_(std::move(model)),
      make_providers_(std::move(make_providers)),
      session_options_(session_options),
      capacity_(std::max<size_t>(capacity, 1)) {}

StagedSession::Entry StagedSession::entry_for(const KnownValues& known) {
  Key key;
  for (const auto& [name, type] : known.typed) key.first[name] = type.to_string();
  for (const auto& [name, t] : known.constants) {
    std::string& bytes = key.second[name];
    bytes = t.type().to_string();
    if (t.dtype() != DType::string) {
      bytes.append(static_cast<const char*>(t.data()), t.bytes());
      continue;
    }
    for (int64_t i = 0; i < t.elements(); ++i) {  // the text, not the std::string objects
      const std::string& s = t.data_as<std::string>()[i];
      bytes += std::to_string(s.size()) + ':' + s;
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = stages_.find(key);
  if (it == stages_.end()) {
    if (stages_.size() >= capacity_) {
      stages_.erase(std::min_element(stages_.begin(), stages_.end(), [](const auto& a, const auto& b) {
        return a.second.last_use < b.second.last_use;
      }));
    }
    Stage stage = model_->stage(known);
    auto session = std::make_shared<Session>(std::move(stage.graph), make_providers_(), session_options_);
    session->prepare();
    ++made_;
    it = stages_.emplace(std::move(key), Entry{std::move(session), std::move(stage.values_needed), 0}).first;
  }
  it->second.last_use = ++uses_;
  return it->second;
}

StagedSession::Stages StagedSession::last_stages() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_stages_;
}

size_t StagedSession::made() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return made_;
}

size_t StagedSession::kept() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stages_.size();
}

std::map<std::string, Tensor> StagedSession::run(const std::map<std::string, Tensor>& inputs,
                                                 const std::map<std::string, Tensor>& into, Stages* stages) {
  for (const std::string& name : model_->input_names()) {
    if (!inputs.count(name)) throw Error(fmt::format("graph input '{}' is not given", name));
  }
  std::map<std::string, Tensor> values = inputs;
  std::set<std::string> as_constants;
  const std::vector<std::string> outputs = model_->output_names();
  Stages used;
  for (size_t round = 0; round < kMaxStagesPerRun; ++round) {
    KnownValues known;
    for (const auto& [name, t] : values) {
      if (as_constants.count(name)) {
        known.constants.emplace(name, t);
      } else {
        known.typed.emplace(name, t.type());
      }
    }
    const Entry entry = entry_for(known);
    Session& session = *entry.session;
    used.push_back(entry.session);
    std::map<std::string, Tensor> stage_inputs;
    for (const std::string& name : session.graph().inputs()) stage_inputs.emplace(name, values.at(name));
    const size_t known_before = values.size(), constants_before = as_constants.size();
    for (auto& [name, t] : session.run(stage_inputs, into)) {
      // A value the stage folded to a constant decides shapes as a constant downstream.
      if (session.graph().constant(name)) as_constants.insert(name);
      values.emplace(name, std::move(t));
    }
    for (const std::string& name : entry.values_needed) {
      if (values.count(name)) as_constants.insert(name);
    }
    const bool done = std::all_of(outputs.begin(), outputs.end(), [&](const std::string& n) { return values.count(n); });
    if (done) {
      std::map<std::string, Tensor> result;
      for (const std::string& name : outputs) result.emplace(name, values.at(name));
      if (stages) *stages = used;
      std::lock_guard<std::mutex> lock(mutex_);
      last_stages_ = std::move(used);
      return result;
    }
    if (values.size() == known_before && as_constants.size() == constants_before) {
      std::vector<std::string> missing;
      for (const std::string& name : outputs) {
        if (!values.count(name)) missing.push_back(name);
      }
      throw Error(fmt::format("stage {} computed nothing new; outputs {} cannot be computed", round + 1,
                              fmt::join(missing, ", ")));
    }
  }
  throw Error(fmt::format("the model did not finish within {} stages (a Loop whose condition never turns false?)",
                          kMaxStagesPerRun));
}

}  // namespace nee
