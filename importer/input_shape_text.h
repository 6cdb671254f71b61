#pragma once
#include <string>
#include <vector>

#include "importer/import_onnx.h"

namespace nee {

// The text form of one graph input's shape on the command line (nee-run and nee-tune
// --input-shape, the shapes nee-bench passes to nee-tune): NAME=DxDx...xD, e.g.
// input=8x3x224x224, every dim a positive integer. The name is everything before the
// last '=', so names holding '=' still parse.
std::string input_shape_text(const std::string& name, const std::vector<int64_t>& shape);

// Parses texts of that form into import_onnx's InputShapes. Throws nee::Error quoting the
// text for a missing '=', an empty name or dim, a dim that is not a positive integer, or
// a name given twice. Whether the names are graph inputs, and whether the shapes agree
// with the model's fixed dims, import_onnx checks.
InputShapes parse_input_shapes(const std::vector<std::string>& texts);

// Texts that may name an input more than once: one set of shapes per distinct use, for
// a bundle that serves several shapes (sequence-length buckets:
// seq=1x16 seq=1x32 seq=1x64). A new set starts where a name repeats, and takes the
// inputs it does not name from the set before it. Errors as parse_input_shapes'.
std::vector<InputShapes> parse_input_shape_sets(const std::vector<std::string>& texts);

}  // namespace nee
