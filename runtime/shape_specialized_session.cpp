#include "runtime/shape_specialized_session.h"

#include <algorithm>

namespace nee {

ShapeSpecializedSession::ShapeSpecializedSession(GraphMaker make_graph, ProviderMaker make_providers, size_t capacity)
    : make_graph_(std::move(make_graph)), make_providers_(std::move(make_providers)),
      capacity_(std::max<size_t>(capacity, 1)) {}

Session& ShapeSpecializedSession::session_for(const std::map<std::string, Tensor>& inputs) {
  InputShapes shapes;
  for (const auto& [name, tensor] : inputs) shapes[name] = tensor.shape();
  auto it = sessions_.find(shapes);
  if (it == sessions_.end()) {
    if (sessions_.size() >= capacity_) {
      sessions_.erase(std::min_element(sessions_.begin(), sessions_.end(), [](const auto& a, const auto& b) {
        return a.second.last_use < b.second.last_use;
      }));
    }
    auto session = std::make_unique<Session>(make_graph_(shapes), make_providers_());
    session->prepare();
    ++made_;
    it = sessions_.emplace(shapes, Entry{std::move(session), 0}).first;
  }
  it->second.last_use = ++uses_;
  return *it->second.session;
}

std::map<std::string, Tensor> ShapeSpecializedSession::run(const std::map<std::string, Tensor>& inputs) {
  return session_for(inputs).run(inputs);
}

}  // namespace nee
