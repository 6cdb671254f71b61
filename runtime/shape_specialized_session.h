#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/kernel_provider.h"
#include "runtime/session.h"

namespace nee {

// A model whose graph inputs have symbolic dims (batch, sequence length), run with
// whatever shapes each call brings. NEE plans memory and binds kernels for static shapes,
// so each distinct set of input shapes gets its own Session: the graph made at those
// shapes, optimized, its kernels bound (a bundle's where it holds the workloads of those
// shapes, the reference kernels for the rest) and its memory planned. Sessions are kept,
// so a shape seen before costs one lookup; the least recently used goes past `capacity`.
class ShapeSpecializedSession {
 public:
  using InputShapes = std::map<std::string, std::vector<int64_t>>;
  // Makes the graph at the given input shapes (the importer, for an ONNX model).
  using GraphMaker = std::function<Graph(const InputShapes&)>;
  // Makes the providers of one new Session (a bundle's, for instance).
  using ProviderMaker = std::function<std::vector<std::unique_ptr<KernelProvider>>()>;

  ShapeSpecializedSession(GraphMaker make_graph, ProviderMaker make_providers, size_t capacity = 8);

  // The Session for these inputs' shapes, made on first use.
  Session& session_for(const std::map<std::string, Tensor>& inputs);
  std::map<std::string, Tensor> run(const std::map<std::string, Tensor>& inputs);

  // How many specializations were made, and how many are kept now.
  size_t made() const { return made_; }
  size_t kept() const { return sessions_.size(); }

 private:
  struct Entry {
    std::unique_ptr<Session> session;
    size_t last_use;
  };
  GraphMaker make_graph_;
  ProviderMaker make_providers_;
  size_t capacity_, made_ = 0, uses_ = 0;
  std::map<InputShapes, Entry> sessions_;
};

}  // namespace nee
