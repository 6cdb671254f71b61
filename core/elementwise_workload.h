#pragma once
#include <string>
#include <vector>

#include "core/elementwise_program.h"
#include "core/workload.h"

namespace nee {

// The elementwise family: one fused program (core/elementwise_program.h) evaluated at
// every element of the output, each input read with ONNX multidirectional broadcasting.
// Attribute "program" holds the program's canonical text.
//
// Validates the f32 types, a rank >= 1 output without empty dims, that every input
// broadcasts to the output and that the program reads exactly these inputs; throws
// nee::Error naming the problem.
Workload make_elementwise_workload(const std::vector<TensorType>& inputs, const TensorType& output,
                                   const ElementwiseProgram& program);
ElementwiseProgram elementwise_program(const Workload& w);
// "DxD...[+DxD...]:PROGRAM" (the inputs' shapes, then the program's text) as
// `nee-tune --op elementwise --shape` reads it.
Workload elementwise_workload_from_shape(const std::string& text);
// Instructions x output elements.
double elementwise_flops(const Workload& w);

}  // namespace nee
