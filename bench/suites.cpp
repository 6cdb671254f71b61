#include "bench/suites.h"

#include "core/conv2d_workload.h"
#include "core/error.h"
#include "core/matmul_workload.h"

namespace nee::bench {

const std::vector<Suite>& suites() {
  static const std::vector<Suite> all = {
      {"square", "matmul", {"256x256x256", "512x512x512", "1024x1024x1024"}, "square MatMul, 256 to 1024 cubed"},
      {"bert", "matmul", {"128x768x768", "128x768x3072"}, "BERT-base projections at sequence length 128"},
      {"all",
       "matmul",
       {"256x256x256", "512x512x512", "1024x1024x1024", "128x768x768", "128x768x3072"},
       "square and bert"},
      // torchvision's ResNet-50 (v1.5: the stride sits on the 3x3 of each first
      // bottleneck), one entry per distinct shape, in network order.
      {"resnet50-conv",
       "conv2d",
       {"1x3x224x224,64x7x7,s2,p3",
        "1x64x56x56,64x1x1", "1x64x56x56,64x3x3,p1", "1x64x56x56,256x1x1", "1x256x56x56,64x1x1",
        "1x256x56x56,128x1x1", "1x128x56x56,128x3x3,s2,p1", "1x128x28x28,512x1x1", "1x256x56x56,512x1x1,s2",
        "1x512x28x28,128x1x1", "1x128x28x28,128x3x3,p1",
        "1x512x28x28,256x1x1", "1x256x28x28,256x3x3,s2,p1", "1x256x14x14,1024x1x1", "1x512x28x28,1024x1x1,s2",
        "1x1024x14x14,256x1x1", "1x256x14x14,256x3x3,p1",
        "1x1024x14x14,512x1x1", "1x512x14x14,512x3x3,s2,p1", "1x512x7x7,2048x1x1", "1x1024x14x14,2048x1x1,s2",
        "1x2048x7x7,512x1x1", "1x512x7x7,512x3x3,p1"},
       "every distinct convolution of ResNet-50, batch 1, 224x224"},
      {"mobilenetv2-dw",
       "conv2d",
       {"1x32x112x112,32x3x3,p1,g32", "1x96x112x112,96x3x3,s2,p1,g96", "1x144x56x56,144x3x3,p1,g144",
        "1x144x56x56,144x3x3,s2,p1,g144", "1x192x28x28,192x3x3,p1,g192", "1x192x28x28,192x3x3,s2,p1,g192",
        "1x384x14x14,384x3x3,p1,g384", "1x576x14x14,576x3x3,p1,g576", "1x576x14x14,576x3x3,s2,p1,g576",
        "1x960x7x7,960x3x3,p1,g960"},
       "MobileNetV2's depthwise 3x3 convolutions, batch 1, 224x224"},
  };
  return all;
}

std::vector<std::string> suite_names() {
  std::vector<std::string> names;
  for (const Suite& s : suites()) names.push_back(s.name);
  return names;
}

const Suite& find_suite(const std::string& name) {
  for (const Suite& s : suites()) {
    if (s.name == name) return s;
  }
  std::string known;
  for (const std::string& n : suite_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error("unknown suite '" + name + "' (known: " + known + ")");
}

Workload workload_from_shape(const std::string& shape) {
  return shape.find(',') == std::string::npos ? matmul_workload_from_shape(shape) : conv2d_workload_from_shape(shape);
}

}  // namespace nee::bench
