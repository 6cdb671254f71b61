#pragma once
#include <string>
#include <vector>

#include "core/workload.h"

namespace nee::bench {

// A named list of shapes of one operator family, as the command line writes them:
// MatMul "MxKxN", conv2d "NxCxHxW,OxKHxKW[,sS][,pP][,dD][,gG]".
struct Suite {
  std::string name;
  std::string op;  // "matmul" or "conv2d"
  std::vector<std::string> shapes;
  std::string meaning;
};

// square: 256, 512 and 1024 cubed. bert: the BERT-base encoder's projections at
// sequence length 128 (QKV/output 768x768, feed-forward 768x3072). all: both.
// resnet50-conv: every distinct convolution of ResNet-50 at batch 1, 224x224.
// mobilenetv2-dw: MobileNetV2's depthwise convolutions at batch 1, 224x224.
const std::vector<Suite>& suites();
// Throws nee::Error listing the known names.
const Suite& find_suite(const std::string& name);
std::vector<std::string> suite_names();

// A shape of either family: one with a comma is a conv2d shape, else a MatMul shape.
Workload workload_from_shape(const std::string& shape);

}  // namespace nee::bench
