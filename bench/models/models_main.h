#pragma once

namespace nee::bench {

// True when argv holds --models: nee-bench then runs the model-level comparison.
bool wants_models_mode(int argc, char** argv);
// `nee-bench --models [...]`: NEE against ONNX Runtime and OpenVINO on the model zoo.
int models_main(int argc, char** argv);

}  // namespace nee::bench
