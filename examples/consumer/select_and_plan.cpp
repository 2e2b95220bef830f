// What an engine does at graph build time, in C++: load a database, ask for a q4gsw node's
// variant, plan its dispatch, prepack its weights. Usage: select_and_plan DB M N K GS
#include <vktune/runtime/dispatch.h>
#include <vktune/runtime/snapshot.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s DB M N K GS\n", argv[0]);
    return 2;
  }
  std::string error;
  const auto db = vktune::runtime::Snapshot::load(argv[1], &error);
  if (!db) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  // The device as vkGetPhysicalDeviceProperties2 reports it; here lavapipe's ids.
  vktune::runtime::DeviceQuery device{0x10005, 0, 13, 0, vktune::runtime::DeviceType::cpu};
  const vktune::runtime::ProblemQuery problem{"q4gsw", "f32", uint32_t(std::atoi(argv[2])),
                                              uint32_t(std::atoi(argv[3])),
                                              uint32_t(std::atoi(argv[4])),
                                              uint32_t(std::atoi(argv[5]))};
  const vktune::runtime::Selection s = db->select(device, problem);
  if (!s.ok()) {
    std::fprintf(stderr, "select: %s\n", s.error.data());
    return 1;
  }
  const vktune::runtime::DispatchPlan plan =
      vktune::runtime::plan_dispatch(s, problem, {65535, 65535, 65535});
  if (!plan.ok()) {
    std::fprintf(stderr, "plan: %s\n", plan.error.c_str());
    return 1;
  }
  std::printf("%s (%s, %s): %zu push-constant bytes, groups %u x %u x %u\n", s.variant_key.data(),
              std::string(to_string(s.shape_match)).c_str(), plan.layout.c_str(),
              plan.push_constants.size(), plan.groups[0], plan.groups[1], plan.groups[2]);
  for (const vktune::runtime::BindingPlan& b : plan.bindings) {
    std::printf("  binding %u %-9s %llu bytes (allocate %llu)%s\n", b.binding, b.name.data(),
                static_cast<unsigned long long>(b.bytes),
                static_cast<unsigned long long>(b.alloc_bytes), b.zero_once ? ", zeroed once" : "");
  }
  const std::vector<uint8_t> raw(size_t{problem.n} * (problem.k / 2), 0x88);
  std::vector<uint8_t> weights;
  if (const std::string e = vktune::runtime::prepack(plan.layout == "none" ? "raw" : plan.layout,
                                                     raw, problem.n, problem.k, weights);
      !e.empty()) {
    std::fprintf(stderr, "prepack: %s\n", e.c_str());
    return 1;
  }
  std::printf("  weights prepacked: %zu bytes\n", weights.size());
  return 0;
}
