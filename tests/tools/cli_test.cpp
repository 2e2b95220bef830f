// Runs the built vktune binary: `merge` end to end and the error paths of `report`, `run-layer`,
// `inspect` and `tune --families`. (Refusals that keep a database whole: refusals_test.cpp.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "tests/tools/report_fixture.h"
#include "tests/tools/run_vktune.h"

namespace vktune::report {
namespace {

using namespace vktune::testing;

// Number options say what they want in words: CLI11's own checks printed DBL_MAX in full.
TEST(VktuneCli, NumberOptionErrorsAreShort) {
  for (const std::string& args : {std::string("tune --budget -1"), std::string("tune --variant-budget 0"),
                                  std::string("bench --db /dev/null --variant-budget x"),
                                  std::string("run-layer --fixed --m 0")}) {
    const VktuneResult r = vktune(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("is not a number"), std::string::npos) << args << "\n" << r.output;
    EXPECT_LT(r.output.size(), 300u) << args << "\n" << r.output;
  }
}

TEST(VktuneCli, MergeTwiceIsIdempotent) {
  TempDir dir;
  {
    db::Store a = db::Store::open(dir.file("a.db"));
    build_synthetic(a);
    db::Store b = db::Store::open(dir.file("b.db"));
    b.upsert_device(synthetic_device(0x1234, "Other GPU"));
  }
  const std::string args =
      "merge " + quoted(dir.file("a.db")) + " " + quoted(dir.file("b.db")) + " -o " + quoted(dir.file("c.db"));
  const VktuneResult first = vktune(args);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("measurements +25"), std::string::npos) << first.output;
  const VktuneResult second = vktune(args);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_EQ(count(second.output, "devices +0, kernels +0, problems +0, runs +0, measurements +0"),
            2u)
      << second.output;
  const db::Store c = db::Store::open(dir.file("c.db"), db::OpenMode::read_only);
  EXPECT_EQ(c.devices().size(), 3u);
  EXPECT_EQ(c.measurements().size(), 25u);
}

TEST(VktuneCli, RunLayerOptionErrors) {
  // Checked before any Vulkan device is touched.
  const VktuneResult neither = vktune("run-layer --preset smoke");
  EXPECT_NE(neither.exit_code, 0);
  EXPECT_NE(neither.output.find("--db FILE"), std::string::npos) << neither.output;
  const VktuneResult both = vktune("run-layer --fixed --db x.db");
  EXPECT_NE(both.exit_code, 0);
  EXPECT_NE(both.output.find("excludes"), std::string::npos) << both.output;
  const VktuneResult preset = vktune("run-layer --preset llama-70b --fixed");
  EXPECT_EQ(preset.exit_code, 1);
  EXPECT_NE(preset.output.find("is not a preset"), std::string::npos) << preset.output;
  // Shapes the layer cannot have, named with the fix.
  TempDir dir;
  std::ofstream(dir.file("groups.json"))
      << R"({"hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
             "num_key_value_heads": 3, "head_dim": 16, "vocab_size": 256})";
  for (const auto& [args, says] :
       {std::pair<std::string, std::string>{"--context 2 --m 3", "L must be at least M"},
        {"--context 0", "L=0 is empty"},
        {"--m 4 --decode-steps 2", "decode steps are M=1"},
        {"--model '" + dir.file("groups.json") + "'", "does not divide num_attention_heads=4"}}) {
    const VktuneResult r = vktune("run-layer --fixed " + args);
    EXPECT_NE(r.exit_code, 0) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << args << "\n" << r.output;
  }
}

TEST(VktuneCli, ReportErrors) {
  TempDir dir;
  {
    db::Store a = db::Store::open(dir.file("a.db"));
    build_synthetic(a);
  }
  const VktuneResult bad_format =
      vktune("report --db " + quoted(dir.file("a.db")) + " --format pdf -o " + quoted(dir.file("r.pdf")));
  EXPECT_NE(bad_format.exit_code, 0);
  EXPECT_NE(bad_format.output.find("unknown report format \"pdf\""), std::string::npos)
      << bad_format.output;

  const VktuneResult missing = vktune("report --db " + quoted(dir.file("none.db")) + " --format html -o " +
                                quoted(dir.file("r.html")));
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.output.find("does not exist"), std::string::npos) << missing.output;

  const VktuneResult ok =
      vktune("report --db " + quoted(dir.file("a.db")) + " --format md -o " + quoted(dir.file("r.md")));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(slurp(dir.file("r.md")).find("# vktune tuning report"), std::string::npos);

  // An exported document reports as the database it imports into. (Not as the fixture it came
  // from: an export leaves out the rates, which import derives, and the fixture's are made up.)
  ASSERT_EQ(vktune("export --db " + quoted(dir.file("a.db")) + " -o " + quoted(dir.file("a.json")))
                .exit_code,
            0);
  ASSERT_EQ(vktune("import --db " + quoted(dir.file("b.db")) + " " + quoted(dir.file("a.json"))).exit_code, 0);
  const VktuneResult from_db = vktune("report --db " + quoted(dir.file("b.db")) + " --format csv -o -");
  const VktuneResult from_json =
      vktune("report --db " + quoted(dir.file("a.json")) + " --format csv -o -");
  EXPECT_EQ(from_json.exit_code, 0) << from_json.output;
  EXPECT_EQ(from_json.output, from_db.output);

  // Usage errors exit 2 (docs/cli.md, "Output and exit status"); --peak-tflops is an html option.
  EXPECT_EQ(vktune("report --format md -o -").exit_code, 2);
  EXPECT_EQ(vktune("report --db " + quoted(dir.file("a.db")) + " --peak-tflops -1 -o -").exit_code, 2);
  const VktuneResult peak = vktune("report --db " + quoted(dir.file("a.db")) +
                                   " --format md --peak-tflops 60 -o -");
  EXPECT_EQ(peak.exit_code, 1);
  EXPECT_NE(peak.output.find("--peak-tflops applies to --format html only"), std::string::npos)
      << peak.output;
  const VktuneResult html = vktune("report --db " + quoted(dir.file("a.db")) +
                                   " --peak-tflops 60 -o " + quoted(dir.file("r.html")));
  EXPECT_EQ(html.exit_code, 0) << html.output;
  EXPECT_NE(slurp(dir.file("r.html")).find("60.00 TFLOP/s given"), std::string::npos);
}

TEST(VktuneCli, InspectAndFamiliesErrors) {
  const VktuneResult op = vktune("inspect --op conv --n 64");
  EXPECT_EQ(op.exit_code, 1);
  EXPECT_NE(op.output.find("unknown op conv"), std::string::npos) << op.output;

  // The default device: lavapipe has no pipeline statistics and says so; a GPU driver that has
  // them prints one line per legal variant.
  const VktuneResult stats = vktune("inspect --m 1 --n 64 --k 64 --gs 32 --family q4gsw_naive");
  if (stats.exit_code == 0) {
    EXPECT_NE(stats.output.find("variants inspected"), std::string::npos) << stats.output;
  } else {
    EXPECT_NE(stats.output.find("no VK_KHR_pipeline_executable_properties"), std::string::npos)
        << stats.output;
  }

  TempDir dir;
  const VktuneResult family = vktune("tune --families q4gsw_naive,nope --db " + quoted(dir.file("t.db")));
  EXPECT_NE(family.exit_code, 0);
  EXPECT_NE(family.output.find("unknown family \"nope\""), std::string::npos) << family.output;
}

TEST(VktuneCli, TuneModelErrorsNameTheFile) {
  // The model file is read before any Vulkan device is touched.
  TempDir dir;
  const std::string config = dir.file("config.json");
  std::ofstream(config) << R"({"hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4})";
  const VktuneResult missing = vktune("tune --model " + quoted(config) + " --db " + quoted(dir.file("t.db")));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find(config + ": missing \"vocab_size\""), std::string::npos) << missing.output;

  const std::string gguf = dir.file("m.gguf");
  std::ofstream(gguf, std::ios::binary) << std::string("GGUF\3\0\0\0", 8);
  const VktuneResult truncated = vktune("tune --model " + quoted(gguf) + " --db " + quoted(dir.file("t.db")));
  EXPECT_EQ(truncated.exit_code, 1);
  EXPECT_NE(truncated.output.find(gguf + ": truncated while reading tensor count"), std::string::npos)
      << truncated.output;

  const VktuneResult both = vktune("tune --model " + quoted(config) + " --shapes smoke");
  EXPECT_NE(both.exit_code, 0);
  EXPECT_NE(both.output.find("excludes"), std::string::npos) << both.output;
  EXPECT_FALSE(std::filesystem::exists(dir.file("t.db")));
}


TEST(VktuneCli, CostModelAndTrainDbRefuseWhatTheyCannotUse) {
  TempDir dir;
  const std::string path = dir.file("one.db");
  {
    db::Store store = db::Store::open(path);
    db::DeviceRecord device;
    device.name = "Test GPU";
    device.pipeline_cache_uuid = std::string(32, '0');
    store.upsert_device(device);
  }
  const VktuneResult few = vktune("cost-model --db " + quoted(path));
  EXPECT_EQ(few.exit_code, 1) << few.output;
  EXPECT_NE(few.output.find("too few swept problems for a model"), std::string::npos) << few.output;
  const VktuneResult other = vktune("cost-model --db " + quoted(path) + " --device Elsewhere");
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_NE(other.output.find("it holds:\n  Test GPU"), std::string::npos) << other.output;

  // --train-db: a database of another vendor's device is nothing to learn from; a kin's with no
  // problems is too little.
  const std::string elsewhere = dir.file("elsewhere.db"), kin = dir.file("kin.db");
  for (const auto& [file, vendor] : {std::pair{elsewhere, 0x10deu}, std::pair{kin, 0u}}) {
    db::Store store = db::Store::open(file);
    db::DeviceRecord device;
    device.vendor_id = vendor;
    device.name = "Kin GPU";
    device.pipeline_cache_uuid = std::string(32, '0');
    store.upsert_device(device);
  }
  const VktuneResult foreign =
      vktune("cost-model --db " + quoted(path) + " --train-db " + quoted(elsewhere));
  EXPECT_EQ(foreign.exit_code, 2) << foreign.output;
  EXPECT_NE(
      foreign.output.find("no database recorded on Test GPU or on another device of its vendor"),
      std::string::npos)
      << foreign.output;
  const VktuneResult empty_kin =
      vktune("cost-model --db " + quoted(path) + " --train-db " + quoted(kin));
  EXPECT_EQ(empty_kin.exit_code, 1) << empty_kin.output;
  EXPECT_NE(empty_kin.output.find("of an op of --db's"), std::string::npos) << empty_kin.output;

  const VktuneResult halving = vktune("tune --strategy halving --train-db " + quoted(path) +
                                      " --db " + quoted(dir.file("t.db")));
  EXPECT_EQ(halving.exit_code, 2) << halving.output;
  EXPECT_NE(halving.output.find("--train-db is read by --strategy model and by --prior only"),
            std::string::npos)
      << halving.output;
  EXPECT_FALSE(std::filesystem::exists(dir.file("t.db")));
}

}  // namespace
}  // namespace vktune::report

namespace vktune::report {
namespace {

// Completes the words of `line` (the last one being typed) with the script `vktune completion
// bash` printed, in a real bash, and returns the candidates.
std::string complete(const TempDir& dir, const std::string& line) {
  const std::string driver = dir.file("complete.bash");
  std::ofstream(driver) << "source " << quoted(dir.file("vktune.bash")) << "\n"
                        << "COMP_WORDS=(" << line << ")\n"
                        << "COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
                        << "_vktune_complete\n"
                        << "echo \"${COMPREPLY[*]}\"\n";
  FILE* pipe = ::popen(("bash " + quoted(driver)).c_str(), "r");
  std::string out;
  char buf[4096];
  for (size_t n; pipe && (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  if (pipe) ::pclose(pipe);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

TEST(VktuneCli, BashCompletionCompletesCommandsOptionsAndFiles) {
  TempDir dir;
  const VktuneResult r = vktune("completion bash");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ofstream(dir.file("vktune.bash")) << r.output;
  std::ofstream(dir.file("tuned.db")) << "";

  EXPECT_EQ(complete(dir, "vktune tu"), "tune");
  EXPECT_EQ(complete(dir, "vktune ex"), "export");
  EXPECT_EQ(complete(dir, "vktune tune --str"), "--strategy");
  // A flag before does not end the command; another command's options are not offered.
  EXPECT_EQ(complete(dir, "vktune tune --json --res"), "--resume");
  EXPECT_EQ(complete(dir, "vktune report --res"), "");
  // After an option that takes a value, files.
  EXPECT_EQ(complete(dir, "vktune report --db " + quoted(dir.file("tu"))), dir.file("tuned.db"));
  // A flag takes none: options again.
  EXPECT_EQ(complete(dir, "vktune tune --json --pro"), "--profile");
  EXPECT_EQ(complete(dir, "vktune tune --devices all --work"), "");  // a hidden option
  EXPECT_EQ(vktune("completion zsh").exit_code, 2);
}

}  // namespace
}  // namespace vktune::report
