// TfIdfVectorizer (opset 9): counts of chosen n-grams of integer token sequences.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"

namespace nee {

namespace {

int64_t positive_attribute(const Node& node, const std::string& name) {
  const int64_t value = node.attrs.get_int(name);
  if (value < 1) throw Error(fmt::format("{} is {}; it must be at least 1", name, value));
  return value;
}

// How many n-grams the pool holds, checking that ngram_counts splits it into runs of
// whole 1-grams, 2-grams, ...: run k (for (k+1)-grams) starts at ngram_counts[k] and
// ends where the next starts, the last at the pool's end. An n-gram pooled twice would
// have two columns of which only one could count it, so that is refused too.
int64_t pooled_ngrams(const std::vector<int64_t>& ngram_counts, const std::vector<int64_t>& pool) {
  if (ngram_counts.empty() || ngram_counts[0] != 0) {
    throw Error(fmt::format("ngram_counts [{}] must start at 0 (where the 1-grams start in the pool)",
                            fmt::join(ngram_counts, ",")));
  }
  const auto pool_size = static_cast<int64_t>(pool.size());
  std::set<std::vector<int64_t>> seen;
  for (size_t k = 0; k < ngram_counts.size(); ++k) {
    const int64_t begin = ngram_counts[k];
    const int64_t end = k + 1 < ngram_counts.size() ? ngram_counts[k + 1] : pool_size;
    const auto length = static_cast<int64_t>(k + 1);
    if (end < begin || end > pool_size || (end - begin) % length != 0) {
      throw Error(fmt::format("ngram_counts [{}] does not split the pool of {} values into whole runs of "
                              "1-grams, 2-grams, ...", fmt::join(ngram_counts, ","), pool_size));
    }
    for (int64_t at = begin; at < end; at += length) {
      std::vector<int64_t> ngram(pool.begin() + at, pool.begin() + at + length);
      if (!seen.insert(ngram).second) {
        throw Error(fmt::format("pool_int64s holds the n-gram [{}] twice", fmt::join(ngram, ",")));
      }
    }
  }
  return static_cast<int64_t>(seen.size());
}

}  // namespace

// Input: int32 or int64 [C] or [N, C] (each row a token sequence). The pool lists the
// n-grams counted, 1-grams first (ngram_counts says where each length starts); the i-th
// pooled n-gram is counted into output column ngram_indexes[i], giving f32 [W] or [N, W]
// with W = max(ngram_indexes) + 1. String pools (pool_strings) need string tensors,
// which NEE does not hold. Stored for the kernel: the attributes, weights filled with
// ones when absent (TF ignores them).
std::vector<TensorType> import_tf_idf_vectorizer(const ImportContext& ctx, Node& node) {
  if (node.attrs.has("pool_strings")) {
    throw Error("pool_strings is not supported: NEE holds no string tensors (pool_int64s with integer "
                "tokens is)");
  }
  expect_arity(node, 1, 1, 1);
  const TensorType& x = input_type(ctx, node, 0, {DType::i32, DType::i64});
  if (x.shape.size() != 1 && x.shape.size() != 2) {
    throw Error(fmt::format("X {} must be [C] or [N, C]", x.to_string()));
  }
  const std::string mode = node.attrs.get_string("mode");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") {
    throw Error(fmt::format("mode '{}' is not one of TF, IDF, TFIDF", mode));
  }
  const int64_t min_gram_length = positive_attribute(node, "min_gram_length");
  const int64_t max_gram_length = positive_attribute(node, "max_gram_length");
  if (max_gram_length < min_gram_length) {
    throw Error(fmt::format("max_gram_length {} is below min_gram_length {}", max_gram_length, min_gram_length));
  }
  const int64_t max_skip_count = node.attrs.get_int("max_skip_count");
  if (max_skip_count < 0) throw Error(fmt::format("max_skip_count is {}; it must not be negative", max_skip_count));

  const std::vector<int64_t>& pool = node.attrs.get_ints("pool_int64s");
  const std::vector<int64_t>& ngram_counts = node.attrs.get_ints("ngram_counts");
  const std::vector<int64_t>& ngram_indexes = node.attrs.get_ints("ngram_indexes");
  const int64_t ngrams = pooled_ngrams(ngram_counts, pool);
  if (ngrams == 0) throw Error("the pool holds no n-grams, so the output would have no columns");
  if (static_cast<int64_t>(ngram_indexes.size()) != ngrams) {
    throw Error(fmt::format("ngram_indexes has {} entries; the pool holds {} n-grams", ngram_indexes.size(), ngrams));
  }
  // Columns are assigned, not accumulated, so two n-grams in one column would hide each other.
  const std::set<int64_t> columns(ngram_indexes.begin(), ngram_indexes.end());
  if (*columns.begin() < 0 || columns.size() != ngram_indexes.size()) {
    throw Error(fmt::format("ngram_indexes [{}] must be distinct and non-negative", fmt::join(ngram_indexes, ",")));
  }
  std::vector<float> weights(ngram_indexes.size(), 1.0f);
  if (node.attrs.has("weights")) {
    weights = node.attrs.get_floats("weights");
    if (weights.size() != ngram_indexes.size()) {
      throw Error(fmt::format("weights has {} entries; it needs one per pooled n-gram ({})", weights.size(),
                              ngram_indexes.size()));
    }
  }
  node.attrs.set("weights", weights);

  const int64_t width = *columns.rbegin() + 1;
  if (x.shape.size() == 1) return {TensorType{DType::f32, {width}}};
  return {TensorType{DType::f32, {x.shape[0], width}}};
}

}  // namespace nee
