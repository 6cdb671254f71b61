#include "core/family.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"

namespace nee {

const std::vector<Family>& families() {
  static const std::vector<Family> all = [] {
    std::vector<Family> rows = {
#define NEE_FAMILY_ROW(name) name##_family(),
        NEE_FAMILIES(NEE_FAMILY_ROW)
#undef NEE_FAMILY_ROW
    };
    for (size_t i = 0; i < rows.size(); ++i) {
      if (static_cast<size_t>(rows[i].id) != i) {
        throw Error(fmt::format("family row {} ('{}') is out of the list's order", i, rows[i].name));
      }
      if (!rows[i].flops || !rows[i].reduction_length || !rows[i].from_shape || !rows[i].attrs_from_json ||
          !rows[i].remade) {
        throw Error(fmt::format("family row '{}' lacks one of its functions", rows[i].name));
      }
    }
    return rows;
  }();
  return all;
}

const Family& family_named(const std::string& name) {
  for (const Family& f : families()) {
    if (f.name == name) return f;
  }
  throw Error(fmt::format("unknown operator family '{}' (known: {})", name, fmt::join(family_names(), ", ")));
}

const Family& family_of(const Workload& w) { return family_named(w.op); }

std::vector<std::string> family_names() {
  std::vector<std::string> names;
  for (const Family& f : families()) names.push_back(f.name);
  return names;
}

void require_family_made(const Workload& w) {
  Workload remade;
  try {
    remade = family_of(w).remade(w);
  } catch (const Error& e) {
    throw Error(fmt::format("{} workload {} is not one NEE makes: {}", w.op, w.key(), e.what()));
  }
  if (remade.key() != w.key()) {
    throw Error(fmt::format("{} workload {} is not what its inputs make ({})", w.op, w.key(), remade.key()));
  }
}

void require_input_count(const Workload& w, size_t count) {
  if (w.inputs.size() != count) {
    throw Error(fmt::format("{} inputs where its attributes call for {}", w.inputs.size(), count));
  }
}

}  // namespace nee
