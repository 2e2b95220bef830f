// The cooperative-matrix types and calls of q4gsw_coopmat.comp in either API: KHR 0,
// GL_NV_cooperative_matrix (what Debian 12's shaderc compiles); KHR 1, GL_KHR_cooperative_matrix
// (what AMD and Intel GPUs expose as well as NVIDIA's; the newer compiler). 16x16 subgroup tiles,
// fp16 operands, fp32 or fp16 accumulators. Loads and stores take the array, an offset and a
// stride in its element type, and whether the tile is column-major. Included right after the
// other #extension lines.
#ifndef KHR
#define KHR 0
#endif
#if KHR
#extension GL_KHR_cooperative_matrix : require
#define MAT_A coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define MAT_B coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>
#define MAT_ACC coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define MAT_ACC16 coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define MAT_LAYOUT(col) ((col) ? gl_CooperativeMatrixLayoutColumnMajor : gl_CooperativeMatrixLayoutRowMajor)
#define MAT_LOAD(m, buf, offset, stride, col) coopMatLoad(m, buf, offset, stride, MAT_LAYOUT(col))
#define MAT_STORE(m, buf, offset, stride, col) coopMatStore(m, buf, offset, stride, MAT_LAYOUT(col))
#define MAT_MULADD coopMatMulAdd
#else
#extension GL_NV_cooperative_matrix : require
#define MAT_A fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define MAT_B MAT_A
#define MAT_ACC fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define MAT_ACC16 MAT_A
#define MAT_LOAD coopMatLoadNV
#define MAT_STORE coopMatStoreNV
#define MAT_MULADD coopMatMulAddNV
#endif
