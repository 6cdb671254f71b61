#include "runtime/reference/einsum_equation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "core/error.h"

namespace nee {

namespace {

constexpr int kLetters = 52;  // a-z then A-Z; ellipsis dims are labels from 52 on

// One operand's (or the output's) term: letter labels, and where the ellipsis stands.
struct Term {
  std::vector<int> letters;
  int ellipsis_at = -1;  // index into letters before which the ellipsis goes, or -1
};

std::string strip_spaces(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c != ' ') out += c;
  }
  return out;
}

Term parse_term(const std::string& text, const std::string& equation) {
  Term term;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (text.compare(i, 3, "...") == 0) {
      if (term.ellipsis_at >= 0) throw Error(fmt::format("equation '{}' has two ellipses in one term", equation));
      term.ellipsis_at = static_cast<int>(term.letters.size());
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      term.letters.push_back(std::islower(static_cast<unsigned char>(c)) ? c - 'a' : 26 + (c - 'A'));
    } else {
      throw Error(fmt::format("equation '{}' has '{}', which is neither a letter nor an ellipsis", equation, c));
    }
  }
  return term;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts(1);
  for (char c : text) {
    if (c == separator) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

}  // namespace

EinsumEquation parse_einsum(const std::string& text, const std::vector<std::vector<int64_t>>& shapes) {
  const std::string equation = strip_spaces(text);
  const size_t arrow = equation.find("->");
  const std::vector<std::string> operand_texts = split(equation.substr(0, arrow), ',');
  if (operand_texts.size() != shapes.size()) {
    throw Error(fmt::format("equation '{}' names {} operands, the node has {}", text, operand_texts.size(),
                            shapes.size()));
  }
  EinsumEquation eq;
  eq.label_sizes.assign(kLetters, -1);
  size_t ellipsis_rank = 0;
  std::vector<Term> terms;
  for (size_t k = 0; k < shapes.size(); ++k) {
    terms.push_back(parse_term(operand_texts[k], text));
    const Term& term = terms.back();
    const size_t rank = shapes[k].size();
    if (term.ellipsis_at < 0 ? rank != term.letters.size() : rank < term.letters.size()) {
      throw Error(fmt::format("operand {} has rank {}, which term '{}' does not match", k, rank, operand_texts[k]));
    }
    if (term.ellipsis_at >= 0) ellipsis_rank = std::max(ellipsis_rank, rank - term.letters.size());
  }
  eq.label_sizes.resize(kLetters + ellipsis_rank, 1);
  for (size_t d = 0; d < ellipsis_rank; ++d) eq.label_sizes[kLetters + d] = 1;

  std::map<int, int> uses;
  for (size_t k = 0; k < shapes.size(); ++k) {
    const Term& term = terms[k];
    const size_t covered = shapes[k].size() - term.letters.size();  // dims the ellipsis covers
    std::vector<int> labels;
    for (size_t i = 0; i <= term.letters.size(); ++i) {
      if (static_cast<int>(i) == term.ellipsis_at) {
        for (size_t d = 0; d < covered; ++d) labels.push_back(kLetters + static_cast<int>(ellipsis_rank - covered + d));
      }
      if (i < term.letters.size()) labels.push_back(term.letters[i]);
    }
    std::vector<int> seen_here;
    for (size_t d = 0; d < labels.size(); ++d) {
      const int label = labels[d];
      const int64_t dim = shapes[k][d];
      int64_t& size = eq.label_sizes[label];
      if (label >= kLetters) {  // ellipsis dims broadcast
        if (size != 1 && dim != 1 && dim != size) {
          throw Error(fmt::format("operand {}'s ellipsis dims [{}] do not broadcast with the others'", k,
                                  fmt::join(shapes[k], ",")));
        }
        if (dim != 1) size = dim;
      } else {
        if (size >= 0 && size != dim) {
          throw Error(fmt::format("label '{}' has size {} in operand {} but {} elsewhere",
                                  label < 26 ? char('a' + label) : char('A' + label - 26), dim, k, size));
        }
        size = dim;
        if (std::find(seen_here.begin(), seen_here.end(), label) == seen_here.end()) ++uses[label];
        seen_here.push_back(label);
      }
    }
    eq.operand_labels.push_back(labels);
  }

  if (arrow == std::string::npos) {
    for (size_t d = 0; d < ellipsis_rank; ++d) eq.output_labels.push_back(kLetters + static_cast<int>(d));
    for (const auto& [label, count] : uses) {  // std::map: a-z before A-Z, as ids sort
      if (count == 1) eq.output_labels.push_back(label);
    }
    // numpy's implicit mode sorts by character code: upper case before lower case.
    std::stable_partition(eq.output_labels.begin() + static_cast<std::ptrdiff_t>(ellipsis_rank),
                          eq.output_labels.end(), [](int label) { return label >= 26; });
  } else {
    const Term out = parse_term(equation.substr(arrow + 2), text);
    for (size_t i = 0; i <= out.letters.size(); ++i) {
      if (static_cast<int>(i) == out.ellipsis_at) {
        for (size_t d = 0; d < ellipsis_rank; ++d) eq.output_labels.push_back(kLetters + static_cast<int>(d));
      }
      if (i == out.letters.size()) break;
      const int label = out.letters[i];
      if (!uses.count(label)) {
        throw Error(fmt::format("equation '{}' outputs a label that no operand has", text));
      }
      if (std::count(out.letters.begin(), out.letters.end(), label) > 1) {
        throw Error(fmt::format("equation '{}' repeats a label in its output", text));
      }
      eq.output_labels.push_back(label);
    }
  }
  for (int64_t& size : eq.label_sizes) size = std::max<int64_t>(size, 1);  // unused letters
  return eq;
}

}  // namespace nee
