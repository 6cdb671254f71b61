// TfIdfVectorizer (opset 9): per row of integer tokens, how often each pooled n-gram
// occurs, with up to max_skip_count tokens skipped between an n-gram's neighbours.
#include <algorithm>
#include <map>
#include <vector>

#include "runtime/reference/index_tensor.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

enum class Weighting { tf, idf, tfidf };

// The importer-checked attributes: the pool's n-grams, each with its id (its order in
// the pool, which indexes ngram_indexes and weights).
struct NgramCounting {
  std::map<std::vector<int64_t>, int64_t> id_of;
  int64_t min_length, max_length, max_skip;
  int64_t longest_pooled;  // n-grams longer than the pool's cannot be found
  std::vector<int64_t> column;
  std::vector<float> weight;
  Weighting weighting;
};

std::map<std::vector<int64_t>, int64_t> pooled_ngram_ids(const std::vector<int64_t>& pool,
                                                         const std::vector<int64_t>& ngram_counts) {
  std::map<std::vector<int64_t>, int64_t> ids;
  int64_t id = 0;
  for (size_t k = 0; k < ngram_counts.size(); ++k) {
    const auto length = static_cast<int64_t>(k + 1);
    const int64_t end = k + 1 < ngram_counts.size() ? ngram_counts[k + 1] : static_cast<int64_t>(pool.size());
    for (int64_t at = ngram_counts[k]; at < end; at += length, ++id) {
      ids.emplace(std::vector<int64_t>(pool.begin() + at, pool.begin() + at + length), id);
    }
  }
  return ids;
}

// Adds one to counts[id] for every occurrence in tokens[first, first + length) of a
// pooled n-gram, with `skip` tokens left out between its neighbours, for each skip up
// to max_skip. A 1-gram has no neighbours, so it is counted once per position, not once
// per skip.
void count_ngrams(const NgramCounting& c, const Tensor& tokens, int64_t first, int64_t length,
                  std::vector<int64_t>& counts) {
  const int64_t longest = std::min({c.max_length, c.longest_pooled, length});
  std::vector<int64_t> ngram;
  for (int64_t start = 0; start < length; ++start) {
    for (int64_t n = c.min_length; n <= longest; ++n) {
      const int64_t skips = n == 1 ? 0 : c.max_skip;
      for (int64_t skip = 0; skip <= skips; ++skip) {
        if (start + (n - 1) * (skip + 1) >= length) break;  // wider skips reach further still
        ngram.clear();
        for (int64_t k = 0; k < n; ++k) ngram.push_back(index_at(tokens, first + start + k * (skip + 1)));
        const auto found = c.id_of.find(ngram);
        if (found != c.id_of.end()) ++counts[found->second];
      }
    }
  }
}

}  // namespace

// Each row's output holds, in the column of each pooled n-gram, its count (TF), its
// weight where it occurs at all (IDF) or count * weight (TFIDF); other columns are 0.
ReferenceFn make_reference_tf_idf_vectorizer(const Graph& graph, const Node& node) {
  const TensorType& x = graph.type_of(node.inputs[0]);
  const int64_t rows = x.shape.size() == 2 ? x.shape[0] : 1;
  const int64_t row_length = x.shape.back();
  const int64_t width = graph.type_of(node.outputs[0]).shape.back();
  const std::string& mode = node.attrs.get_string("mode");
  const std::vector<int64_t>& ngram_counts = node.attrs.get_ints("ngram_counts");
  NgramCounting c{pooled_ngram_ids(node.attrs.get_ints("pool_int64s"), ngram_counts),
                  node.attrs.get_int("min_gram_length"),
                  node.attrs.get_int("max_gram_length"),
                  node.attrs.get_int("max_skip_count"),
                  static_cast<int64_t>(ngram_counts.size()),
                  node.attrs.get_ints("ngram_indexes"),
                  node.attrs.get_floats("weights"),
                  mode == "TF" ? Weighting::tf : mode == "IDF" ? Weighting::idf : Weighting::tfidf};
  return [c = std::move(c), rows, row_length, width](const std::vector<const Tensor*>& in,
                                                     const std::vector<Tensor*>& out) {
    float* y = out[0]->data_as<float>();
    std::fill(y, y + rows * width, 0.0f);
    std::vector<int64_t> counts(c.column.size());
    for (int64_t r = 0; r < rows; ++r) {
      std::fill(counts.begin(), counts.end(), 0);
      count_ngrams(c, *in[0], r * row_length, row_length, counts);
      for (size_t id = 0; id < counts.size(); ++id) {
        const auto count = static_cast<float>(counts[id]);
        float value = count;
        if (c.weighting == Weighting::idf) value = counts[id] > 0 ? c.weight[id] : 0.0f;
        if (c.weighting == Weighting::tfidf) value = count * c.weight[id];
        y[r * width + c.column[id]] = value;
      }
    }
  };
}

}  // namespace nee
