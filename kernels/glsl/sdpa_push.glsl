// sdpa's push constants (kernels/op.h SdpaPush), shared by every sdpa kernel: the problem
// sizes, the cache length among them, so one compiled variant serves a growing cache.

layout(push_constant) uniform Push {
  uint tokens;    // M
  uint cache_len; // L, the cache positions attended (`length` is a GLSL method name)
  uint heads;
  uint kv_heads;  // heads % kv_heads == 0
  uint head_dim;  // D
  float scale;    // 1 / sqrt(D)
  uint pad0;
  uint pad1;
} pc;

// Cache positions that token `t` attends (causal: it sits at position L - M + t).
uint attended(uint t) { return pc.cache_len - pc.tokens + t + 1u; }
