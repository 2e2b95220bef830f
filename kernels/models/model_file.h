// `--model FILE`: a Hugging Face config.json or a GGUF file, told apart by the GGUF magic.
#pragma once

#include <string>

#include "kernels/models/model_shapes.h"

namespace vktune::models {

// The shapes of the model in `path`: a GGUF file (only its header is read) or else a
// config.json. Throws std::invalid_argument naming the file and what is wrong or missing.
ModelShapes load_model_file(const std::string& path);

}  // namespace vktune::models
