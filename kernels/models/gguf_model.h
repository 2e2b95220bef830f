// The linear and norm shapes of a GGUF model (Llama-style blocks: attn_q/k/v/output,
// ffn_gate/up/down, then output or the tied token_embd), from its header alone.
#pragma once

#include <string>

#include "kernels/models/gguf_header.h"
#include "kernels/models/model_config.h"
#include "kernels/models/model_shapes.h"

namespace vktune::models {

// From the tensors of every block blk.<i> when the header lists any, else from the
// "<general.architecture>.*" metadata (embedding_length, feed_forward_length,
// attention.head_count, attention.head_count_kv, attention.key_length, vocab_size or the
// tokenizer's token count). Throws std::invalid_argument "<name>: ..." naming the missing
// tensor or key, or the tensor whose shape is not a 2-D weight.
ModelShapes gguf_model_shapes(const GgufHeader& header, const std::string& name);

// The ModelConfig the metadata states (the fallback above); throws as above.
ModelConfig gguf_metadata_config(const GgufHeader& header, const std::string& name);

}  // namespace vktune::models
